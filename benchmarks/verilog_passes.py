"""What the optimisations of the Verilog back end (modforge.verilog) do to synthesis: xcup
LUT, FF, CARRY8, DSP and BRAM (Yosys synth_xilinx) of a design of every family, with every
optimisation on (the generated Verilog), and without each in turn.

    PYTHONPATH=$PWD/src python3 benchmarks/verilog_passes.py [-o benchmarks/verilog_passes.md] [--only NAME]

Variants (`skip` of modforge.verilog.to_verilog): `share` (Yosys opt_merge: identical cells
merged), `narrow` (results cut above the highest bit read), `drop_low` (bitwise results cut
below the lowest bit read), `keep_add_width` (additions exempt from `narrow`: skipping it
narrows them too), and all of the first three at once. The last column is the Verilog's
size (the simulators' work grows with it).
"""

from __future__ import annotations

import argparse
import functools
import platform
import tempfile
import time
from pathlib import Path

import modforge.design
from modforge.registry import lookup
from modforge.synth.yosys import synthesize
from modforge.verilog import to_verilog

DESIGNS = [
    ("gf2n-rffiko", {"n": "163", "poly": "rft"}),
    ("gfpm-mse-digit", {"p": "2", "m": "163", "poly": "nist", "D": "16"}),
    ("modmul-barrett", {"q": "0xfff00001"}),
    ("modmul-montgomery-shift", {"q": "0x9fc00001", "logqh": "16"}),
    ("ntt-polymul", {"q": "0x9fc00001", "n": "16", "pe": "2", "reduction": "montgomery-shift"}),
    ("poly-schoolbook", {"n": "16", "q": "3329", "small": "2"}),
    ("rsa-montgomery", {"l": "256", "w": "32", "pe": "1"}),
    ("rsa-fmlm3", {"l": "32", "P": "8", "algorithm": "2", "bfs": "2"}),
]
VARIANTS = {"all on": (), "no share": ("share",), "no narrow": ("narrow",), "no drop_low": ("drop_low",),
            "adds narrowed": ("keep_add_width",), "none": ("share", "narrow", "drop_low")}
COLUMNS = ("lut", "ff", "carry", "dsp", "bram")


def measure(name: str, args: dict, skip: tuple[str, ...], work: Path) -> dict:
    alg = lookup(name)
    modforge.design.to_verilog = functools.partial(to_verilog, skip=skip)    # type: ignore[attr-defined]
    design = modforge.design.generate(alg, alg.parse(dict(args)), work)
    metrics = synthesize(design, "xcup", timeout=7200)
    if metrics.status != "ok":
        raise RuntimeError(f"{name} {args} without {skip}: {metrics.message}")
    size = sum((work / f).stat().st_size for f in design.files)
    return {k: getattr(metrics, k) for k in COLUMNS} | {"kib": round(size / 1024)}


def cell(value, base) -> str:
    if value == base or not isinstance(value, int | float):
        return str(value)
    return f"{value} ({value - base:+})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--out", type=Path)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    lines = [f"xcup (Yosys synth_xilinx -family xcup), `python3 benchmarks/verilog_passes.py`, {platform.node()}, "
             f"{time.strftime('%Y-%m-%d')}: the change against all on in brackets.", "",
             "| design | variant | LUT | FF | CARRY8 | DSP | BRAM | Verilog KiB |", "|---|---|---|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    for name, params in DESIGNS:
        if args.only not in name:
            continue
        label = f"{name} " + " ".join(f"{k}={v}" for k, v in params.items())
        base: dict = {}
        for variant, skip in VARIANTS.items():
            with tempfile.TemporaryDirectory() as folder:
                row = measure(name, params, skip, Path(folder))
            base = base or row
            line = (f"| {label} | {variant} | " + " | ".join(cell(row[k], base[k]) for k in (*COLUMNS, "kib")) + " |")
            lines.append(line)
            print(line, flush=True)
            label = ""
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
