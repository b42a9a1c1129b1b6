"""Cycles per multiplication and simulation time per 1,000 multiplications, on each
simulator, for the paper-sized configurations.

    python3 benchmarks/sim_speed.py [--vectors 1000] [--only NAME_SUBSTRING] [-o benchmarks/sim_speed.md]

Prints a markdown table; times are wall-clock seconds on this machine (shared and noisy:
compare within one run). The simulated vectors are checked like in `modforge verify`, so
a row only appears for a design that passed.
"""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
import time
from pathlib import Path

from modforge.registry import lookup
from modforge.sim.runners import SIMULATORS, simulate
from modforge.sim.verify import prepare

CONFIGS = [
    ("gf2n-blakely", {"n": "163", "poly": "nist"}),
    ("gf2n-montgomery", {"n": "163", "poly": "nist"}),
    ("gf2n-bmm", {"n": "163", "poly": "nist"}),
    ("gf2n-fiko", {"n": "163", "poly": "rft"}),
    ("gf2n-rffiko", {"n": "163", "poly": "rft"}),
    ("gf2n-rffiko", {"n": "571", "poly": "rft"}),
    ("gfpm-mse-horner", {"p": "2", "m": "163", "poly": "nist"}),
    ("gfpm-lse-basic", {"p": "2", "m": "163", "poly": "nist"}),
    ("gfpm-mse-shu", {"p": "2", "m": "163", "poly": "nist", "D": "16"}),
    ("gfpm-mse-digit", {"p": "2", "m": "163", "poly": "nist", "D": "16"}),
    ("gfpm-lse-digit", {"p": "2", "m": "163", "poly": "nist", "D": "16"}),
    ("gfpm-mse-pipelined", {"p": "2", "m": "283", "poly": "nist", "D": "32", "R": "4"}),
    ("gfpm-lse-nam", {"p": "2", "m": "283", "poly": "nist", "D": "32", "R": "4"}),
    ("gfpm-lse-pipelined", {"p": "2", "m": "283", "poly": "nist", "D": "32", "R": "4"}),
    ("gfpm-mse-digit", {"p": "3", "m": "97", "poly": "paper", "D": "8"}),
    ("gfpm-lse-digit", {"p": "3", "m": "97", "poly": "paper", "D": "8"}),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vectors", type=int, default=1000)
    ap.add_argument("--only", default="")
    ap.add_argument("-o", "--out", type=Path)
    args = ap.parse_args()
    rows = [
        f"Simulation of {args.vectors} multiplications per configuration "
        f"(`python3 benchmarks/sim_speed.py --vectors {args.vectors}`), {platform.node()}, "
        f"{time.strftime('%Y-%m-%d')}.",
        "",
        "| algorithm | parameters | cycles/mult | latency | model s | " +
        " | ".join(f"{s} build s | {s} run s" for s in SIMULATORS) + " | verdict |",
        "|---|---|---|---|---|" + "---|---|" * len(SIMULATORS) + "---|",
    ]
    print("\n".join(rows), flush=True)
    for name, cfg in CONFIGS:
        if args.only not in name:
            continue
        alg = lookup(name)
        params = alg.parse(cfg)
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            design = prepare(alg, params, Path(tmp), args.vectors)
            model_s = time.perf_counter() - start
            results = [simulate(design, sim) for sim in SIMULATORS]
        cells = " | ".join(f"{r.build_seconds:.2f} | {r.run_seconds:.2f}" for r in results)
        verdict = "pass" if all(r.ok for r in results) else "FAIL"
        row = (f"| {name} | {' '.join(f'{k}={v}' for k, v in cfg.items())} | {design.initiation_interval} | "
               f"{design.latency} | {model_s:.2f} | {cells} | {verdict} |")
        rows.append(row)
        print(row, flush=True)
    if args.out:
        args.out.write_text("\n".join(rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
