"""What the paper-comparison scripts share: reading a sweep database, number formatting,
and the table of a paper's orderings checked on our figures and on the paper's."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from modforge.explore.store import Store


def fmt(v, digits: int = 1) -> str:
    if v is None:
        return "-"
    return f"{v:,.{digits}f}" if isinstance(v, float) else f"{v:,}"


def synth_json(algorithm: str, *args: str, env: dict | None = None, nice: bool = False) -> dict:
    """One `modforge synth ALGORITHM ARGS... --json` in a scratch folder: its record (env: the
    environment to run in; nice: at a lower priority)."""
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "modforge", "synth", algorithm, *args, "--json", "-o", tmp]
        out = subprocess.run(["nice", "-n", "10", *command] if nice else command, capture_output=True, text=True,
                             check=True, env=env)
        return json.loads(out.stdout)


def source_tree(rev: str, tmp: Path) -> Path:
    """The src folder of revision REV of this repository, unpacked into tmp (`git archive`):
    PYTHONPATH for measuring that revision's generator."""
    root = Path(__file__).resolve().parent.parent
    archive = subprocess.run(["git", "-C", str(root), "archive", rev, "src"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive.stdout, check=True)
    return tmp / "src"


#: issue 38's comparison with a hand-written SystemVerilog design of each reduction, in the same
#: flow: (algorithm, q, log q_h, parameters, xcup area modforge/hand-written at 9eafe0a); the
#: reduction alone with its run-time modulus, as the paper's Tables 3-4 designs
HANDWRITTEN = [
    ("modmul-wlm", "0x9fc00001", 16, ("qh_input=1",), 1.05),
    ("modmul-wlm", "0xbe00000000000001", 17, ("qh_input=1",), 1.03),
    ("modmul-wlm-mixed", "0xbe00000000000001", 17, ("qh_input=1",), 1.00),
    ("modmul-k2red", "0x9fc00001", 16, ("qh_input=1",), 0.93),
    ("modmul-k2red", "0xbe00000000000001", 17, ("qh_input=1",), 0.83),
    ("modmul-k2red-shift", "0xfff00001", 16, ("shift_input=1", "rho=A"), 1.03),
    ("modmul-k2red-shift", "0xd800000000000001", 17, ("shift_input=1", "rho=B"), 0.91),
    ("modmul-montgomery-shift", "0x9fc00001", 16, ("shift_input=1", "rho=A"), 1.30),
    ("modmul-montgomery-shift", "0xbe00000000000001", 17, ("shift_input=1", "rho=A"), 1.30),
]
#: the one pair issue 38 gives ECP5 figures for, K2RED-Shift 32-bit Proth-3l rho A (its HANDWRITTEN
#: row): area-time modforge/hand-written, modforge's Fmax, the hand-written design's Fmax (MHz)
HANDWRITTEN_ECP5 = (1.35, 90.7, 138.6)


def lut_eq(r: dict) -> float:
    """A synthesis record's area, LUT + LUT-RAM/SRL + FF/2 + 100 DSP (the papers' LUT + FF/2
    + 100 DSP with the LUTs used as memory among the LUTs; a record from a revision that did
    not count them has none)."""
    return r["lut"] + r.get("lutram", 0) + r["ff"] / 2 + 100 * r["dsp"]


def geomean(values: list[float]) -> float:
    product = 1.0
    for v in values:
        product *= v
    return product ** (1 / len(values))


def done_records(db: Path) -> list[dict]:
    with Store(db) as store:
        return store.rows("status = 'done'")


def synth_failures(db: Path) -> list[dict]:
    """Points whose design verified but whose synthesis failed or timed out (a design that
    does not fit or route), oldest first."""
    with Store(db) as store:
        return store.rows("status = 'failed' AND stage = 'synth'")


def orderings(title: str, checks: list[tuple[str, float | None, float | None, float | None, float | None]],
              smaller: str = "smaller") -> list[str]:
    """checks: (claim 'x < y', ours x, ours y, paper x, paper y); the claim holds if x < y."""
    rows = [title, "", "| claim | ours: x/y | holds (ours) | paper: x/y | holds (paper) |", "|---|---|---|---|---|"]
    for text, ox, oy, px, py in checks:
        def cell(x, y):
            return (f"{x / y:.3f}", "yes" if x < y else "no") if x and y else ("-", "-")
        (o, oh), (p, ph) = cell(ox, oy), cell(px, py)
        rows.append(f"| {text} | {o} | {oh} | {p} | {ph} |")
    return rows


def run(doc: str, report: Callable[[Path], list[str]]) -> int:
    """The command line of a paper-comparison script: --db DB [-o OUT]; prints the report
    (lines) and writes it to OUT."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--db", type=Path, default=Path("modforge.sqlite"))
    ap.add_argument("-o", "--out", type=Path)
    args = ap.parse_args()
    text = "\n".join(report(args.db))
    print(text)
    if args.out:
        write_report(args.out, text)
    return 0


READING = "\n## Reading"


def write_report(out: Path, text: str) -> None:
    """Write a report's text to OUT, keeping the hand-written reading after its tables (the
    old file's part from its first '## Reading' heading on), which a re-run cannot write."""
    old = out.read_text() if out.exists() else ""
    reading = old[old.index(READING):] if READING in old else ""
    out.write_text(f"{text}\n{reading}")


def run_before_after(doc: str, title: str, report: Callable[[str], list[str]], rev: str = "9eafe0a") -> int:
    """The command line of a script that measures a revision against this tree: [--before REV]
    [-o OUT]; prints report(REV) and writes it to OUT under `title`."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--before", default=rev, help="the revision measured as 'before'")
    ap.add_argument("-o", "--out", type=Path)
    args = ap.parse_args()
    text = "\n".join(report(args.before))
    print(text)
    if args.out:
        write_report(args.out, f"# {title}\n\n{text}")
    return 0


def run_measured(doc: str, title: str, report: Callable[[], list[str]], command: str | None = None) -> int:
    """The command line of a script that measures as it goes: [-o OUT]; prints the report
    and writes it to OUT under `title` (and the `command` that makes it, if given)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("-o", "--out", type=Path)
    args = ap.parse_args()
    text = "\n".join(report())
    print(text)
    if args.out:
        how = f"```\n{command}\n```\n\n" if command else ""
        write_report(args.out, f"# {title}\n\n{how}{text}")
    return 0
