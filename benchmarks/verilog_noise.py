"""How much synthesis moves on the same circuit: the xcup (or other target) LUT, FF, DSP and
BRAM of a design's Verilog as written, and of rewrites of it that mean the same netlist:
its one-line continuous assigns in another order (`order`), and the operands of its one-line
`a ^ b`, `a & b`, `a | b` assigns swapped (`swap`), each with a few seeds. What a change of
the Verilog back end moves by less than this spread is ABC's noise, not the change's
(benchmarks/verilog_guard.md).

    PYTHONPATH=$PWD/src python3 benchmarks/verilog_noise.py DESIGN_FOLDER [VERILOG ...] [--seeds 5]

DESIGN_FOLDER is a generated design (a snapshot's OUT/<alg>/<k>); each VERILOG (default:
the folder's own) takes the place of its top file in a copy of the folder.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from modforge.design import Design
from modforge.synth import synthesize

ASSIGN = re.compile(r"^  assign .*;\n$")
OPERAND = r"(\S+(?: \[[^\]]*\])?|\{[^}]*\})"
BINARY = re.compile(rf"^(  assign \S+ += ){OPERAND} ([\^&|]) {OPERAND};$", re.M)


def reorder(text: str, seed: int) -> str:
    """The one-line continuous assigns in a random order (each keeps its text)."""
    lines = text.splitlines(keepends=True)
    where = [k for k, line in enumerate(lines) if ASSIGN.match(line)]
    moved = [lines[k] for k in where]
    random.Random(seed).shuffle(moved)
    for k, line in zip(where, moved, strict=True):
        lines[k] = line
    return "".join(lines)


def swap(text: str, seed: int) -> str:
    """About half of the one-line commutative assigns with their operands swapped."""
    rng = random.Random(seed)
    return BINARY.sub(lambda m: m.group(0) if rng.random() < 0.5 else f"{m[1]}{m[4]} {m[3]} {m[2]};", text)


def cost(folder: Path, verilog: str, target: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "design"
        shutil.copytree(folder, work)
        design = Design.load(work)
        (work / f"{design.top}.v").write_text(verilog)
        metrics = synthesize(design, target, timeout=3600)
    if metrics.status != "ok":
        raise RuntimeError(f"{folder}: synthesis {metrics.status}: {metrics.message}")
    return {"lut": (metrics.lut or 0) + (metrics.lutram or 0), "ff": metrics.ff or 0,
            "dsp": metrics.dsp or 0, "bram": metrics.bram or 0}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("verilog", type=Path, nargs="*")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--target", default="xcup")
    args = ap.parse_args()
    top = args.folder / f"{Design.load(args.folder).top}.v"
    for source in args.verilog or [top]:
        text = source.read_text()
        luts = []
        for label, rewrite in [("as written", lambda t, _: t), ("order", reorder), ("swap", swap)]:
            for seed in range(1, args.seeds + 1) if label != "as written" else [0]:
                row = cost(args.folder, rewrite(text, seed), args.target)
                luts.append(row["lut"])
                print(f"{source}: {label} {seed or ''}: " + " ".join(f"{k}={v:g}" for k, v in row.items()),
                      flush=True)
        print(f"{source}: LUT {min(luts):g}..{max(luts):g}, mean {statistics.mean(luts):.1f} "
              f"over {len(luts)} runs\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
