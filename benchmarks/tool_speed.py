"""Speed of modforge itself: where the time of the common path goes.

    python3 benchmarks/tool_speed.py [--vectors 10000] [--points 100] [--workers 2] [-o benchmarks/tool_speed.md]

Part 1, one design (GF(2^163), MSE-first digit-serial, D = 16): generate, model vectors,
Verilator and Icarus (build, run), synthesis for ecp5 (Yosys, nextpnr), each timed; then
the same verification again with the Verilator build cache warm; then verify and synth
run side by side, as independent steps.
Part 2, a sweep of --points digit sizes of the same field on the generic target, cold
(an empty build cache), then again into a fresh database with the cache warm, then
re-run on the first database (everything skipped): wall time and the sum of each stage
over the points, from the records the sweep stored.

Times are wall-clock seconds on this machine (shared and noisy: compare within one run).
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from modforge.design import generate
from modforge.explore.store import Store
from modforge.registry import lookup
from modforge.sim.runners import simulate
from modforge.sim.testbench import write_testbench
from modforge.sim.vectors import make_vectors, write_vectors
from modforge.synth import synthesize

ALGORITHM, CONFIG = "gfpm-mse-digit", {"p": "2", "m": "163", "poly": "nist", "D": "16"}


def timed(fn, *args, **kw):
    start = time.perf_counter()
    out = fn(*args, **kw)
    return out, time.perf_counter() - start


def one_design(vectors: int, work: Path) -> list[str]:
    alg = lookup(ALGORITHM)
    params, t_parse = timed(alg.parse, CONFIG)
    design, t_gen = timed(generate, alg, params, work)
    vecs, t_model = timed(make_vectors, alg, params, vectors)
    write_vectors(vecs, design.directory / "vectors", design.input_width, design.output_width)
    write_testbench(design, vectors)
    ver = simulate(design, "verilator")
    ica = simulate(design, "icarus")
    syn, t_syn = timed(synthesize, design, "ecp5", 100.0, cache=False)   # the tools' time, not the cache's
    warm = simulate(design, "verilator")

    def side_by_side():
        with ThreadPoolExecutor(3) as pool:
            jobs = [pool.submit(simulate, design, "verilator"), pool.submit(simulate, design, "icarus"),
                    pool.submit(synthesize, design, "ecp5", 100.0, cache=False)]
            return [j.result() for j in jobs]
    par, t_par = timed(side_by_side)
    assert ver.ok and ica.ok and warm.ok and syn.ok and all(r.ok for r in par)
    tools = syn.tool_seconds
    seq = ver.build_seconds + ver.run_seconds + ica.build_seconds + ica.run_seconds + t_syn
    rows = [
        f"### One design: `{ALGORITHM} {' '.join(f'{k}={v}' for k, v in CONFIG.items())}`, "
        f"{vectors} vectors, ecp5 at 100 MHz",
        "",
        "| step | seconds |",
        "|---|---|",
        f"| parse and validate | {t_parse:.2f} |",
        f"| generate Verilog (Amaranth) | {t_gen:.2f} |",
        f"| model vectors ({vectors}) | {t_model:.2f} |",
        f"| Verilator build (cold) | {ver.build_seconds:.2f} |",
        f"| Verilator run | {ver.run_seconds:.2f} |",
        f"| Verilator build (cached) | {warm.build_seconds:.2f} |",
        f"| Icarus compile | {ica.build_seconds:.2f} |",
        f"| Icarus run | {ica.run_seconds:.2f} |",
        f"| Yosys synth_ecp5 | {tools.get('yosys', 0):.2f} |",
        f"| nextpnr-ecp5 | {tools.get('nextpnr-ecp5', 0):.2f} |",
        f"| both simulators + synthesis one after another (cold build) | {seq:.2f} |",
        f"| the same side by side (cached build) | {t_par:.2f} |",
        "",
        f"Result: {syn.lut} LUT4, {syn.ff} FF, Fmax {syn.fmax_mhz} MHz, "
        f"{design.initiation_interval} cycles per multiplication.",
    ]
    return rows


SWEEP = """\
[[sweep]]
name = "tool-speed"
algorithm = "{alg}"
targets = ["generic"]
vectors = 1000
[sweep.params]
p = 2
m = 163
poly = "nist"
D = {{range = [1, {points}, 1]}}
"""


def sweep_pass(toml: Path, db: Path, workers: int, env: dict) -> tuple[float, dict]:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "modforge", "explore", str(toml), "--db", str(db),
                    "--workers", str(workers)], check=True, env=env, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    sums = {"points": 0, "point": 0.0, "build": 0.0, "run": 0.0, "synth": 0.0, "cached": 0}
    with Store(db) as store:
        for rec in store.rows("status = 'done'"):
            sums["points"] += 1
            sums["point"] += rec["seconds"] or 0
            for run in rec["verification"]["runs"]:
                sums["build"] += run["build_seconds"]
                sums["run"] += run["run_seconds"]
                sums["cached"] += bool(run.get("build_cached"))
            sums["synth"] += rec["metrics"]["seconds"] or 0
    return wall, sums


def sweep(points: int, workers: int, work: Path) -> list[str]:
    toml = work / "sweep.toml"
    toml.write_text(SWEEP.format(alg=ALGORITHM, points=points))
    # a cold build cache; the synthesis cache off, so each pass runs the tools (benchmarks/synth_cache.md)
    env = dict(os.environ, MODFORGE_CACHE=str(work / "cache"), MODFORGE_NO_SYNTH_CACHE="1")
    rows = [
        f"### A {points}-point sweep: `{ALGORITHM} p=2 m=163 poly=nist D=1..{points}`, "
        f"target generic, 1000 vectors on Verilator, {workers} workers",
        "",
        "| pass | wall s | points done | sum of point s | Verilator build s (cached) | sim run s | "
        "synth s | generate + vectors s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for label, db in (("cold cache", work / "a.sqlite"), ("warm cache, new database", work / "b.sqlite"),
                      ("re-run, all stored", work / "a.sqlite")):
        wall, s = sweep_pass(toml, db, workers, env)
        rest = s["point"] - s["build"] - s["run"] - s["synth"]
        rows.append(f"| {label} | {wall:.1f} | {s['points']} | {s['point']:.1f} | {s['build']:.1f} "
                    f"({s['cached']}) | {s['run']:.1f} | {s['synth']:.1f} | {rest:.1f} |")
        print(rows[-1], flush=True)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vectors", type=int, default=10_000)
    ap.add_argument("--points", type=int, default=100)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("-o", "--out", type=Path)
    args = ap.parse_args()
    head = [f"Speed of the tool (`python3 benchmarks/tool_speed.py --vectors {args.vectors} "
            f"--points {args.points} --workers {args.workers}`), {platform.node()}, "
            f"{os.cpu_count()} cores, {time.strftime('%Y-%m-%d')}.", ""]
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["MODFORGE_CACHE"] = str(Path(tmp) / "cache")  # part 1 starts cold too
        rows = head + one_design(args.vectors, Path(tmp) / "design")
        print("\n".join(rows), flush=True)
        rows += [""] + sweep(args.points, args.workers, Path(tmp))
    if args.out:
        args.out.write_text("\n".join(rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
