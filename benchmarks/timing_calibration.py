"""Calibrate synth/timing.py's ECP5 delay model on nextpnr: place and route a handful of modmul
designs (dsp=ecp5) through modforge's synthesis flow (`modforge synth ... --target ecp5`, at
_ecp5.FREQ_MHZ), read the segments of their critical paths in nextpnr's report.json, average the
cell delays by kind, fit the routing (a + b log2(fan-out) on the Yosys netlist's nets, then one
scale on both routing constants so the predicted periods match the achieved ones), and print the
constants (timing.ECP5's literal) with the predicted against achieved Fmax of every design, each
masked one predicted from its FULL pipeline's netlist, as target_mhz does.

    PYTHONPATH=src python3 benchmarks/timing_calibration.py [-o benchmarks/timing_calibration.md]

About 10 to 30 s of nextpnr a design on a free core; the runs stay in _ecp5.ROOT (the sweep of
target_mhz.py reuses them). Predicted here is register to register (`ports=False`): nextpnr's
out-of-context Fmax does not time the paths from the input ports.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _compare import run_measured  # noqa: E402
from _ecp5 import FREQ_MHZ, place_and_route  # noqa: E402
from modforge.synth.timing import ECP5, Delays, Netlist  # noqa: E402

#: (algorithm, parameters, pipeline masks besides the full pipeline)
POINTS: list[tuple[str, dict[str, str], tuple[str, ...]]] = [
    ("modmul-k2red", {"q": "0x80130001", "logqh": "16"}, ("0101011", "1010101")),
    ("modmul-k2red", {"q": "0x8000118000000001", "logqh": "26", "reduce_only": "1"}, ("01011", "10101")),
    ("modmul-wlm-mixed", {"q": "0x800a000000000001", "logqh": "17", "reduce_only": "1"}, ("01011", "10101")),
    ("modmul-montgomery", {"q": "0x80014001"}, ("0101011",)),
    ("modmul-barrett", {"q": "0xffffffffffe40001", "reduce_only": "1"}, ("10101",)),
    ("modmul-wlm", {"q": "0x8000000014000001", "logqh": "40"}, ("010101011",)),
    ("modmul-k2red-shift", {"q": "0x800a000000000001", "logqh": "17", "rho": "A", "reduce_only": "1"}, ("01011",)),
    ("modmul-plantard", {"q": "0x9e140001"}, ()),
]

CCU = "$CCU2_COMB"


def kind(seg: dict) -> str | None:
    """The model constant a report.json segment measures (None: a carry-chain wire or half cell)."""
    src, dst, cell = seg["from"]["port"], seg["to"]["port"], seg["to"]["cell"]
    if seg["type"] in ("clk-to-q", "setup"):
        return seg["type"].replace("-", "_")
    if seg["type"] == "routing":
        if src == "FCO":
            return None
        return "route_local" if dst == "DI" else "route"
    if src == "FCI" and dst == "FCO":
        return "carry" if cell.endswith(CCU + "0") else None    # a CCU2C: its two halves
    if dst == "FCO":
        return "carry_in"
    if src == "FCI":
        return "carry_sum"
    if dst.startswith("OFX"):
        return "mux"
    if re.fullmatch(r"P\d+", dst):
        return "mult"
    if dst == "F":
        return "lut"
    return None


def fanout(netlist: Netlist, names: dict, net: str) -> int | None:
    """The sinks of a nextpnr net in the Yosys netlist (None: not found by name)."""
    match = re.fullmatch(r"(.*)\[(\d+)\]", net)
    name, index = (match.group(1), int(match.group(2))) if match else (net, 0)
    entry = names.get(name)
    if entry is None or index >= len(entry["bits"]) or not isinstance(entry["bits"][index], int):
        return None
    return len(netlist.sinks.get(entry["bits"][index], [])) or None


def least_squares(xs: list[float], ys: list[float]) -> tuple[float, float]:
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    var = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / var if var else 0.0
    return my - slope * mx, slope


@dataclasses.dataclass
class Run:
    label: str
    mask: str
    full: Netlist           # the full pipeline's netlist
    achieved: float         # MHz
    lut: int | None
    ff: int | None


def measure() -> tuple[list[Run], dict[str, list[float]], list[tuple[float, float]]]:
    runs: list[Run] = []
    samples: dict[str, list[float]] = defaultdict(list)
    routes: list[tuple[float, float]] = []        # (log2 fan-out, delay)
    for algorithm, params, masks in POINTS:
        full = None
        for mask in ("", *masks):
            design, metrics = place_and_route(algorithm, {**params, "dsp": "ecp5", "pipeline": mask})
            work = design.directory / "synth" / "ecp5"
            raw = json.loads((work / "synth.json").read_text())
            netlist = Netlist(raw, design.top)
            full = full or netlist
            names = raw["modules"][design.top]["netnames"]
            for path in json.loads((work / "report.json").read_text())["critical_paths"]:
                for seg in path["path"]:
                    what = kind(seg)
                    if what is None:
                        continue
                    samples[what].append(seg["delay"])
                    fan = fanout(netlist, names, seg.get("net", "")) if what == "route" else None
                    if fan:
                        routes.append((math.log2(fan), seg["delay"]))
            label = f"{algorithm[7:]} q={params['q']}" + (" reduce_only" if params.get("reduce_only") else "")
            assert metrics.fmax_mhz is not None
            runs.append(Run(label, mask or "full", full, metrics.fmax_mhz, metrics.lut, metrics.ff))
            print(f"{label} {mask or 'full'}: {metrics.fmax_mhz:.1f} MHz", file=sys.stderr, flush=True)
    return runs, samples, routes


def predict(run: Run, delays: Delays) -> float:
    timing = run.full.with_delays(delays).timing(ports=False)
    keep = [True] * timing.stages if run.mask == "full" else [c == "1" for c in run.mask]
    return 1000.0 / timing.period(keep)


def fit(runs: list[Run], samples: dict[str, list[float]], routes: list[tuple[float, float]]) -> Delays:
    means = {k: statistics.fmean(v) for k, v in samples.items() if v}
    base, slope = least_squares(*map(list, zip(*routes, strict=True))) if len(routes) > 2 else (ECP5.route, 0.0)
    slope = max(slope, 0.0)
    logic = {f.name: round(means.get(f.name, getattr(ECP5, f.name)), 3) for f in dataclasses.fields(Delays)}
    start = dataclasses.replace(Delays(**logic), route=base, route_fanout=slope)

    def error(scale: float) -> float:
        d = dataclasses.replace(start, route=start.route * scale, route_fanout=start.route_fanout * scale,
                                route_local=start.route_local * scale)
        return sum(math.log(predict(r, d) / r.achieved) ** 2 for r in runs)
    scale = min((s / 100 for s in range(50, 201, 5)), key=error)
    return dataclasses.replace(start, route=round(start.route * scale, 3),
                               route_fanout=round(start.route_fanout * scale, 3),
                               route_local=round(start.route_local * scale, 3))


def report() -> list[str]:
    runs, samples, routes = measure()
    fitted = fit(runs, samples, routes)
    fields = ", ".join(f"{f.name}={getattr(fitted, f.name)!r}" for f in dataclasses.fields(Delays))
    rows = [f"nextpnr-ecp5 --freq {FREQ_MHZ:g}, seed 1; segments: "
            + ", ".join(f"{k} {len(v)}" for k, v in sorted(samples.items())) + f"; fan-out samples {len(routes)}.",
            "", f"    ECP5 = Delays({fields})", "",
            "| design | pipeline | LUT | FF | achieved MHz | predicted MHz (fitted) | error "
            "| predicted (timing.ECP5) |",
            "|---|---|---|---|---|---|---|---|"]
    errors = []
    for r in runs:
        p, q = predict(r, fitted), predict(r, ECP5)
        errors.append(abs(p / r.achieved - 1))
        rows.append(f"| {r.label} | {r.mask} | {r.lut} | {r.ff} | {r.achieved:.1f} | {p:.1f} | "
                    f"{100 * (p / r.achieved - 1):+.1f}% | {q:.1f} |")
    rows += ["", f"Mean absolute error (fitted): {100 * statistics.fmean(errors):.1f}%, "
             f"largest {100 * max(errors):.1f}% over {len(runs)} place-and-route runs; each masked design predicted "
             "from its full pipeline's netlist (registers of merged stages as wires)."]
    return rows


if __name__ == "__main__":
    COMMAND = "PYTHONPATH=src python3 benchmarks/timing_calibration.py -o benchmarks/timing_calibration.md"
    sys.exit(run_measured(__doc__, "ECP5 timing model calibration", report, COMMAND))
