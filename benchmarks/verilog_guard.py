"""The hardware guard of a change to the Verilog back end: synthesize, on one target, every
grid design whose Verilog body differs between two snapshots (benchmarks/verilog_snapshot.py)
and compare LUT, FF, DSP and BRAM. A rewrite that should not change what the hardware costs
stays within +-1 % LUT and FF with equal DSP and BRAM.

    python3 benchmarks/verilog_guard.py OLD NEW [--target xcup] [--timeout 600] [--out FILE.md]

Both sides run in one process on the same Yosys; the old side is NEW's design folder with
OLD's Verilog files (same module names: the same parameters), so design.json is today's.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

from modforge.design import Design
from modforge.synth import synthesize

FIELDS = ("lut", "ff", "dsp", "bram")


def body(folder: Path) -> dict[str, str]:
    """The Verilog files of a design, without their `//` header lines."""
    return {p.name: re.sub(r"(?m)^//.*\n", "", p.read_text()) for p in sorted(folder.glob("*.v"))
            if p.name != "tb.v"}


def cost(folder: Path, target: str, timeout: float) -> dict[str, float] | None:
    metrics = synthesize(Design.load(folder), target, timeout=timeout)
    if metrics.status != "ok":
        return None
    out = {f: float(getattr(metrics, f) or 0) for f in FIELDS}
    out["lut"] += metrics.lutram or 0      # LUTs used as memory are LUTs too
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--target", default="xcup")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    rows = ["| design | args | LUT old | LUT new | ratio | FF old | FF new | ratio | DSP | BRAM | within |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    outside = 0
    for new in sorted(p.parent for p in args.new.glob("*/*/design.json")):
        old = args.old / new.relative_to(args.new)
        if not old.is_dir() or body(old) == body(new):
            continue
        label = f"{new.parent.name}/{new.name}"
        with tempfile.TemporaryDirectory() as tmp:
            before, after = Path(tmp) / "old", Path(tmp) / "new"
            shutil.copytree(new, after)
            shutil.copytree(new, before)
            for name in body(before):
                (before / name).unlink()
            for name in body(old):
                shutil.copyfile(old / name, before / name)
            a, b = cost(before, args.target, args.timeout), cost(after, args.target, args.timeout)
        if a is None or b is None:
            line = f"| {label} | {(new / 'args.txt').read_text().strip()} | synthesis failed or timed out |"
            outside += 1
        else:
            lut, ff = b["lut"] / max(a["lut"], 1), b["ff"] / max(a["ff"], 1)
            ok = abs(lut - 1) <= 0.01 and abs(ff - 1) <= 0.01 and a["dsp"] == b["dsp"] and a["bram"] == b["bram"]
            outside += not ok
            line = (f"| {label} | {(new / 'args.txt').read_text().strip()} | {a['lut']:g} | {b['lut']:g} | {lut:.3f} "
                    f"| {a['ff']:g} | {b['ff']:g} | {ff:.3f} | {a['dsp']:g} -> {b['dsp']:g} "
                    f"| {a['bram']:g} -> {b['bram']:g} | {'yes' if ok else 'NO'} |")
        rows.append(line)
        print(line, flush=True)
    summary = f"{len(rows) - 2} designs differ; {outside} outside +-1 % LUT/FF or with other DSP/BRAM"
    text = "\n".join(rows) + f"\n\n{summary}\n"
    if args.out:
        args.out.write_text(text)
    print(text.splitlines()[-1])
    return 1 if outside else 0


if __name__ == "__main__":
    sys.exit(main())
