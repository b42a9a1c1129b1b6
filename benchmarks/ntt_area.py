"""The NTT-reduction paper's NTT cores (Tables 5 and 6: forward NTT, log n = 12, PE = 16, one
per reduction, 32- and 64-bit) on xcup (Yosys synth_xilinx), before and after a change, beside
the paper's Vivado figures: LUT (with LUT-RAM and SRL), FF, DSP, BRAM36 and the area; and
ML-KEM's cores (profile=ml-kem, K2RED-Shift, as sweeps/ntt_standards.toml) before and after.

    PYTHONPATH=src python3 benchmarks/ntt_area.py [--before REV] [-o benchmarks/ntt_area.md]

Each point is `modforge synth ntt-forward n=4096 pe=16 reduction=<r> q=<q> [logqh=<L>] [rho=A]
--target xcup`, the designs of `sweeps/ntt_paper.toml`'s table5-6-xcup block (1 to 5 minutes
each; the synthesis cache makes re-runs free). "before" is the same command on the source tree
of REV (default 3c00cf3; `git archive` into a temporary folder), "after" on this tree.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _compare import fmt, lut_eq, run_before_after, source_tree, synth_json  # noqa: E402
from paper_ntt import NTT_SHORT, PAPER_NTT  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
#: (reduction, q, extra parameters): the table5-6-xcup block of sweeps/ntt_paper.toml
POINTS = [
    ("wlm", "0xfffde001", ()),
    ("wlm-mixed", "0xfff00001", ("logqh=15",)),
    ("k2red", "0xfff00001", ("logqh=15",)),
    ("k2red-shift", "0x9fc00001", ("logqh=16", "rho=A")),
    ("montgomery-shift", "0x9fc00001", ("logqh=16",)),
    ("wlm", "0xfffffffffffe4001", ("logqh=51",)),
    ("wlm-mixed", "0xffe9800000000001", ()),
    ("k2red", "0xffffff0000000001", ("logqh=26",)),
    ("k2red-shift", "0xbe00000000000001", ("logqh=17", "rho=A")),
    ("montgomery-shift", "0xbe00000000000001", ("logqh=17",)),
]
#: (algorithm, parameters): ML-KEM's forward NTT, product and command core (ntt_standards.md's rows)
MLKEM = [("ntt-forward", (f"pe={pe}",)) for pe in (1, 2, 4, 8)] + [
    ("ntt-polymul", ("pe=4",)), ("ntt-commands", ("pe=2",)), ("ntt-commands", ("pe=4",))]


def xcup(src: Path, algorithm: str, *params: str) -> dict:
    return synth_json(algorithm, *params, "--target", "xcup", env=dict(os.environ, PYTHONPATH=str(src)), nice=True)


def cells(b: dict, a: dict) -> str:
    """LUT (with LUT-RAM), FF, DSP, BRAM36, area: before / after each."""
    keys = (lambda r: r["lut"] + r["lutram"], lambda r: r["ff"], lambda r: r["dsp"], lambda r: r["bram"], lut_eq)
    return " | ".join(f"{fmt(f(b), 0)} / {fmt(f(a), 0)}" for f in keys)


def mlkem_rows(old_src: Path) -> list[str]:
    rows = ["| design | parameters | LUT | FF | DSP | BRAM36 | area | area after/before |", "|---" * 8 + "|"]
    for algorithm, params in MLKEM:
        args = ("profile=ml-kem", "reduction=k2red-shift", *params)
        b, a = (xcup(s, algorithm, *args) for s in (old_src, ROOT / "src"))
        rows.append(f"| {algorithm} | {' '.join(params)} | {cells(b, a)} | {lut_eq(a) / lut_eq(b):.3f} |")
        print(rows[-1], file=sys.stderr, flush=True)
    return rows


def report(rev: str) -> list[str]:
    rows = ["| reduction | log q | LUT | FF | DSP | BRAM36 | area | area after/before | paper LUT | paper FF "
            "| paper DSP | paper BRAM | paper area | area after/paper |", "|---" * 14 + "|"]
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        old_src = source_tree(rev, Path(tmp))
        for reduction, q, extra in POINTS:
            b, a = (xcup(s, "ntt-forward", "n=4096", "pe=16", f"reduction={reduction}", f"q={q}", *extra)
                    for s in (old_src, ROOT / "src"))
            name, logq = NTT_SHORT[reduction], int(q, 16).bit_length()
            _, lut_k, ff_k, dsp, bram, *_ = PAPER_NTT[(name, logq)]
            paper_area = 1000 * lut_k + 1000 * ff_k / 2 + 100 * dsp
            ratios.append(lut_eq(a) / paper_area)
            rows.append(f"| {name} | {logq} | {cells(b, a)} | {lut_eq(a) / lut_eq(b):.3f} "
                        f"| {lut_k},000 | {ff_k},000 | {dsp} | {bram} "
                        f"| {paper_area:,.0f} | {ratios[-1]:.2f} |")
            print(rows[-1], file=sys.stderr, flush=True)
        mlkem = mlkem_rows(old_src)
    return rows + [
        "", f"Area after/paper: {min(ratios):.2f} to {max(ratios):.2f}.", "",
        f"Each cell: before ({rev}) / after (this tree). LUT: LUTs with those used as LUT-RAM and shift registers; "
        "area: LUT + FF/2 + 100 DSP (the paper's, BRAM left out as it does for the NTT). Paper: Tables 5 and 6 "
        "(Vivado, Alveo U280; LUT and FF printed in thousands). Cycles per transform are the same before and "
        "after (the schedule is unchanged).", "", "## ML-KEM's cores (FIPS 203: n = 256, q = 3329, K2RED-Shift)", "",
        *mlkem, "", "Each cell: before / after, as above; area: LUT + FF/2 + 100 DSP."]


if __name__ == "__main__":
    sys.exit(run_before_after(__doc__, "NTT cores' area on xcup, Tables 5 and 6 (issue 38)", report, rev="3c00cf3"))
