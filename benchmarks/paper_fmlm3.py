"""The FMLM3 paper's Table 6 beside modforge's rsa-fmlm3, the word-serial baseline
rsa-montgomery at the same sizes, and the size from which FMLM3 wins, from a sweep database.

    modforge explore sweeps/fmlm3_paper.toml --db fmlm3.sqlite --workers 2
    python3 benchmarks/paper_fmlm3.py --db fmlm3.sqlite -o benchmarks/fmlm3_paper.md

The rows are the sweep's points (sweeps/fmlm3_paper.toml); a point the database does not hold
yet is listed as pending, with the cycles its formula gives (Algorithm.cycles: one
multiplication, first input beat to last output beat, what the simulators check). A result
made by other code than the checkout's (the stored source digest differs) is marked "old". A
point whose design verified but whose synthesis failed or timed out with this checkout's code
(on ECP5: it does not fit or route) says so in its state.
The paper's figures (Table 6, Xilinx ISE 14.7 on a Virtex-6 xc6vlx130t-1, post place and
route) are typed in below, only for the columns labelled "paper".

Yosys gives resource counts for Xilinx (xcup, xc7) but no clock, so there the comparison is
clock-free: LUT x cycles. Latency at Fmax and the paper's area-latency product
(ALP = LUT x latency in us) come from the ECP5 points (nextpnr's post-route Fmax).
"""

from __future__ import annotations

import dataclasses
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _compare import done_records, fmt, run, synth_failures  # noqa: E402
from modforge.explore.store import tool_versions  # noqa: E402
from modforge.explore.sweep import Point, load  # noqa: E402
from modforge.registry import lookup  # noqa: E402

SWEEP = Path(__file__).parent.parent / "sweeps" / "fmlm3_paper.toml"
TARGETS = ("xcup", "xc7", "ecp5")
FMLM3, BASELINE = "rsa-fmlm3", "rsa-montgomery"

#: Table 6 in the paper's order: (l, Algorithm, M = 2^K + 1: K, P, u, bfs) -> (LUT, slices, DSP,
#: RAMB36, RAM18, cycles, period ns, latency us, ALP LUT x us); bfs 1: the gray rows
PAPER = {
    (1024, 3, 128, 32, 32, 2): (13811, 3923, 27, 26, 1, 657, 5.48, 3.60, 49725),
    (1024, 2, 96, 32, 32, 2): (7845, 2225, 27, 16, 9, 905, 4.78, 4.33, 33937),
    (1024, 3, 64, 64, 16, 2): (6047, 1757, 9, 16, 1, 1052, 3.80, 4.00, 24173),
    (1024, 3, 64, 64, 16, 1): (5003, 1509, 9, 16, 1, 1372, 4.10, 5.63, 28143),
    (2048, 3, 224, 32, 64, 2): (21975, 6525, 90, 38, 11, 728, 7.58, 5.52, 121263),
    (2048, 2, 160, 32, 64, 2): (15621, 4687, 45, 26, 11, 905, 6.12, 5.54, 86518),
    (2048, 3, 128, 64, 32, 2): (13975, 3928, 27, 28, 1, 1061, 5.34, 5.67, 79179),
    (2048, 3, 64, 128, 16, 2): (7337, 2083, 9, 17, 1, 2036, 3.88, 7.90, 57960),
    (2048, 3, 64, 128, 16, 1): (5964, 1720, 9, 22, 0, 2945, 4.07, 11.99, 71485),
    (3072, 2, 224, 32, 96, 2): (23460, 6909, 90, 38, 11, 918, 7.72, 7.09, 166260),
    (3072, 2, 128, 64, 48, 2): (13684, 3931, 27, 28, 1, 1462, 5.24, 7.66, 104831),
    (3072, 2, 64, 128, 24, 2): (7351, 2103, 9, 22, 1, 2770, 3.84, 10.64, 78191),
    (3072, 2, 64, 128, 24, 1): (5838, 1696, 9, 35, 1, 4131, 3.98, 16.44, 95985),
    (4096, 2, 288, 32, 128, 2): (34995, 10257, 135, 50, 11, 917, 9.47, 8.68, 303575),
    (4096, 2, 192, 64, 64, 2): (19005, 5525, 81, 39, 2, 1474, 6.88, 10.14, 192723),
    (4096, 3, 128, 128, 32, 2): (14243, 3898, 27, 29, 0, 2040, 5.41, 11.04, 157191),
    (4096, 3, 128, 128, 32, 1): (11898, 3529, 27, 34, 0, 2945, 5.71, 16.82, 200076),
    (7680, 2, 128, 128, 60, 2): (14683, 4248, 27, 34, 0, 2774, 5.38, 14.92, 219131),
}


def column(target: str) -> str:
    """The table a target's results go to: ecp5-static (the static placer, for the K = 128
    cores) is the ECP5 table's."""
    return "ecp5" if target == "ecp5-static" else target


def ring_exponent(params: dict) -> int:
    """K of M = 2^K + 1, K = cP."""
    c = params["c"]
    return params["P"] // 2 if c == "1/2" else int(c) * params["P"]


def paper_key(params: dict) -> tuple:
    return params["l"], params["algorithm"], ring_exponent(params), params["P"], params["u"], params["bfs"]


def cycles_of(point: Point) -> int:
    alg = lookup(point.algorithm)
    return alg.cycles(alg.parse(point.params))


class Results:
    """The sweep's points and the newest stored result of each on each target."""

    def __init__(self, db: Path):
        # one ECP5 column: the points the sweep places with the static placer are its too
        self.points = [dataclasses.replace(p, targets=tuple(map(column, p.targets))) for p in load(SWEEP).points]
        self.latest = {(r["param_hash"], column(r["target"])): r for r in done_records(db)} if db.exists() else {}
        self.current = {(t, a): tool_versions(t, a) for t in TARGETS for a in (FMLM3, BASELINE)}
        self.failures = {(r["param_hash"], column(r["target"])): r for r in synth_failures(db)
                         if not self.old(r)} if db.exists() else {}

    def record(self, point: Point, target: str) -> dict | None:
        return self.latest.get((point.param_hash, target)) if target in point.targets else None

    def old(self, record: dict) -> bool:
        return record["tool_versions"] != self.current[(column(record["target"]), record["algorithm"])]

    def failure(self, point: Point, target: str) -> str | None:
        """Why this checkout's code could not be synthesized at this point on this target, if it
        could not and has no result: "did not place and route in 1,500 s on the 85k part", "synthesis failed"."""
        r = self.failures.get((point.param_hash, target))
        if r is None or self.record(point, target) is not None:
            return None
        m = r["metrics"] or {}
        timed_out = re.search(r"(\S+) timed out after (\d+)", r["message"] or "")  # synth.synthesize's message
        if timed_out:
            tool, seconds = timed_out.group(1), int(timed_out.group(2))
            part = re.search(r"LFE5U-(\d+)", m.get("device") or "")  # the part nextpnr-ecp5 --85k places on
            where = f" on the {part.group(1)}k part" if part else ""
            verb = "place and route" if "nextpnr" in tool else "synthesize"
            return f"did not {verb} in {fmt(seconds)} s{where}"
        return "synthesis failed"

    def of(self, algorithm: str, bits: int | None = None) -> list[Point]:
        return [p for p in self.points if p.algorithm == algorithm and (bits is None or p.params["l"] == bits)]


def measured(r: dict | None, cycles: int) -> dict:
    """Our figures of one point on one target: counts, cycles, LUT x cycles, and (ECP5) Fmax,
    latency in us and ALP; None where there is no such figure."""
    if r is None:
        return {"cycles": cycles}
    m = r["metrics"] or {}
    cycles = m.get("cycles") or cycles
    fmax = r["fmax_mhz"]
    latency = cycles / fmax if fmax else None
    return {"lut": r["lut"], "lutram": m.get("lutram"), "ff": r["ff"], "dsp": r["dsp"], "bram": m.get("bram"),
            "fmax": fmax, "cycles": cycles,
            "lut_cycles": r["lut"] * cycles if r["lut"] else None, "latency": latency,
            "area_cycles": r["area"] * cycles if r["area"] else None,
            "alp": r["lut"] * latency if r["lut"] and latency else None}


def ratio(ours, paper) -> str:
    return f"{ours / paper:.2f}" if ours and paper else "-"


def state(results: Results, r: dict | None, point: Point, target: str) -> str:
    if target not in point.targets:
        return "not in sweep"
    if r is None:
        return results.failure(point, target) or "pending"
    return "old" if results.old(r) else "done"


def fmlm3_table(results: Results, target: str) -> list[str]:
    clocked = target == "ecp5"
    head = ("| l | alg | M | P | u | bfs | LUT | LUT RAM | FF | DSP | BRAM | " + ("Fmax MHz | " if clocked else "")
            + "cycles | " + ("latency us | ALP | " if clocked else "LUT x cycles | ")
            + "paper LUT | paper DSP | paper RAMB36/18 | paper cycles | paper MHz | paper latency us | paper ALP | "
            + "LUT / paper | cycles / paper | " + ("ALP / paper" if clocked else "LUT x cycles / paper") + " | state |")
    rows = [head, "|" + "---|" * (head.count("|") - 1)]
    order = list(PAPER)
    for point in sorted(results.of(FMLM3), key=lambda p: order.index(paper_key(p.params))):
        if target not in point.targets:
            continue
        p, r = point.params, results.record(point, target)
        ours = measured(r, cycles_of(point))
        paper = PAPER.get(paper_key(p))
        lut, _slices, dsp, b36, b18, pc, period, plat, palp = paper or (None,) * 9
        cells = [fmt(p["l"]), str(p["algorithm"]), f"2^{ring_exponent(p)}+1", str(p["P"]), str(p["u"]),
                 str(p["bfs"]), fmt(ours.get("lut")), fmt(ours.get("lutram")), fmt(ours.get("ff")),
                 fmt(ours.get("dsp")), fmt(ours.get("bram"))]
        cells += [fmt(ours.get("fmax"))] if clocked else []
        cells += [fmt(ours["cycles"])]
        cells += [fmt(ours.get("latency"), 2), fmt(ours.get("alp"), 0)] if clocked else [fmt(ours.get("lut_cycles"))]
        cells += [fmt(lut), fmt(dsp), f"{b36}/{b18}" if paper else "-", fmt(pc),
                  fmt(1000 / period, 0) if period else "-", fmt(plat, 2), fmt(palp)]
        cells += [ratio(ours.get("lut") and ours["lut"] + (ours.get("lutram") or 0), lut), ratio(ours["cycles"], pc),
                  ratio(ours.get("alp"), palp) if clocked else ratio(ours.get("lut_cycles"), lut * pc if lut else None),
                  state(results, r, point, target)]
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def baseline_table(results: Results, target: str) -> list[str]:
    clocked = target == "ecp5"
    head = ("| l | w | pe | LUT | LUT RAM | FF | DSP | BRAM | " + ("Fmax MHz | " if clocked else "") + "cycles | "
            + ("latency us | ALP | " if clocked else "LUT x cycles | ") + "state |")
    rows = [head, "|" + "---|" * (head.count("|") - 1)]
    for point in results.of(BASELINE):
        if target not in point.targets:
            continue
        p, r = point.params, results.record(point, target)
        ours = measured(r, cycles_of(point))
        cells = [fmt(p["l"]), str(p["w"]), str(p["pe"]), fmt(ours.get("lut")), fmt(ours.get("lutram")),
                 fmt(ours.get("ff")), fmt(ours.get("dsp")), fmt(ours.get("bram"))]
        cells += [fmt(ours.get("fmax"))] if clocked else []
        cells += [fmt(ours["cycles"])]
        cells += [fmt(ours.get("latency"), 2), fmt(ours.get("alp"), 0)] if clocked else [fmt(ours.get("lut_cycles"))]
        rows.append("| " + " | ".join(cells + [state(results, r, point, target)]) + " |")
    return rows


def best(results: Results, algorithm: str, bits: int, target: str | None, figure: str) -> tuple | None:
    """(the smallest `figure`, the point that gives it, how many points are unmeasured) over
    the sweep's points of `algorithm` at l = bits on `target` (None: the formulas' cycles);
    None while none is measured."""
    found, pending = [], 0
    for point in results.of(algorithm, bits):
        if target is not None and target not in point.targets:
            continue
        value = cycles_of(point) if target is None else \
            measured(results.record(point, target), cycles_of(point)).get(figure)
        if value is not None:
            found.append((value, point))
        else:  # not measured yet, or its synthesis failed (it might win with more time)
            pending += 1
    if not found:
        return None
    value, point = min(found, key=lambda f: f[0])
    p = point.params
    what = (f"P={p['P']} u={p['u']} alg {p['algorithm']} bfs={p['bfs']}" if algorithm == FMLM3
            else f"w={p['w']} pe={p['pe']}")
    return value, what, pending


def none_fit(results: Results, bits: int, target: str | None) -> bool:
    """Whether every rsa-fmlm3 point of the sweep at l = bits on target failed synthesis."""
    points = [p for p in results.of(FMLM3, bits) if target in p.targets]
    return bool(points) and all(results.failure(p, target) for p in points)


def crossover(results: Results) -> list[str]:
    sizes = sorted({p.params["l"] for p in results.points})
    checks = [("cycles (formulas, any target)", None, "cycles", 0), ("LUT x cycles, xcup", "xcup", "lut_cycles", 0),
              ("LUT x cycles, xc7", "xc7", "lut_cycles", 0), ("LUT-eq x cycles, xcup", "xcup", "area_cycles", 0),
              ("LUT-eq x cycles, xc7", "xc7", "area_cycles", 0), ("latency us at Fmax, ecp5", "ecp5", "latency", 2),
              ("ALP (LUT x us), ecp5", "ecp5", "alp", 0)]
    rows = ["| figure (smaller wins) | " + " | ".join(f"l = {b}" for b in sizes) + " | FMLM3 wins from |",
            "|---|" + "---|" * (len(sizes) + 1)]
    for title, target, figure, digits in checks:
        cells, verdicts = [], []
        for bits in sizes:
            ours, theirs = best(results, FMLM3, bits, target, figure), best(results, BASELINE, bits, target, figure)
            if ours is None and theirs is not None and not theirs[2] and none_fit(results, bits, target):
                cells.append(f"no rsa-fmlm3 point synthesized (see its rows) vs {fmt(theirs[0], digits)} "
                             f"({theirs[1]}): FIOS (provisional)")
                verdicts.append((False, True))
                continue
            if ours is None or theirs is None:
                cells.append("pending")
                verdicts.append(None)
                continue
            unmeasured = ours[2] + theirs[2]
            verdicts.append((ours[0] < theirs[0], unmeasured > 0))
            cells.append(f"{fmt(ours[0], digits)} ({ours[1]}) vs {fmt(theirs[0], digits)} ({theirs[1]}): "
                         f"{'FMLM3' if ours[0] < theirs[0] else 'FIOS'}"
                         + (f" (provisional: {unmeasured} points unmeasured)" if unmeasured else ""))
        rows.append(f"| {title} | " + " | ".join(cells) + f" | {smallest_win(sizes, verdicts)} |")
    return rows


def smallest_win(sizes: list[int], verdicts: list) -> str:
    """The first size FMLM3 wins at, once every smaller size has a verdict (win, provisional)."""
    provisional = False
    for bits, verdict in zip(sizes, verdicts, strict=True):
        if verdict is None:
            return f"not up to l = {sizes[sizes.index(bits) - 1]}, pending beyond" if bits != sizes[0] else "pending"
        wins, unsure = verdict
        provisional |= unsure
        if wins:
            return f"l = {bits}" + (" (provisional)" if provisional else "")
    return "never (in the sweep)" + (" (provisional)" if provisional else "")


def report(db: Path) -> list[str]:
    results = Results(db)
    out = ["# FMLM3 (rsa-fmlm3) beside Table 6 of Dai et al. 2017, and the word-serial baseline "
           f"({time.strftime('%Y-%m-%d')})", "",
           f"Generated by `python3 benchmarks/paper_fmlm3.py --db {db.name}` from the sweep "
           "`sweeps/fmlm3_paper.toml`. Ours: modforge's flow (Yosys synth_xilinx for xcup and xc7, "
           "nextpnr-ecp5 for ecp5). Paper: Table 6, Xilinx ISE 14.7 on Virtex-6 xc6vlx130t-1, typed in "
           "(paper MHz = 1000 / its period). Cycles: one multiplication, first input beat to last output "
           "beat (ours from the design's formula, checked by simulation; pending rows show the formula's "
           "count). state: done, pending (not yet in the database), old (made by other code than this "
           "checkout: re-run the sweep) or why this checkout's design has no figures there (it verified, "
           "synthesis failed or timed out: on ECP5, it does not fit or route).", "",
           "Reading the rows: bfs 1 is the paper's gray rows (the second of each pair of equal sets, Table 7's "
           "\"1 BFS\"). Every Table 6 set passes rsa-fmlm3's validation as printed (`modforge rsa params l=...` "
           "lists each with eq. (13) for Alg 2, eq. (19) for Alg 3); l = 3072, P = 128 is Alg 2 in the paper "
           "and must stay so: Alg 3 needs c = 1 there (docs/corrections.md#fmlm3-algorithm4). The sweep runs each "
           "row as Table 6 counts it "
           "(rsa-fmlm3's paper_table6_note): x, y and t in the spectral domain (`domain=spectral`: 5 transforms "
           "for Alg 3, 7 for Alg 2) on one shared Multiply Adder (`muladds=1`). LUT: logic LUTs; LUT RAM: "
           "the LUTs used as distributed RAM or shift registers (xc7/xcup). The paper's LUT figure is ISE's "
           "Slice LUTs, memory LUTs included, so LUT / paper compares LUT + LUT RAM with it.", ""]
    for target in TARGETS:
        if not any(target in p.targets for p in results.points):
            continue
        out += [f"## {target}", "", "### rsa-fmlm3, Table 6's rows", ""] + fmlm3_table(results, target)
        out += ["", "### rsa-montgomery (word-serial FIOS, w = 16) at the same sizes", ""]
        out += baseline_table(results, target) + [""]
    out += ["## Crossover: where rsa-fmlm3's best beats rsa-montgomery's best", "",
            "Each cell: the best of the sweep's rsa-fmlm3 points at that l vs the best of its rsa-montgomery "
            "points, and which wins, over the measured points (provisional while some are not). \"FMLM3 wins "
            "from\": the smallest l of the sweep at which rsa-fmlm3 wins. LUT x cycles leaves out the DSPs "
            "(FIOS takes 50 or 98, FMLM3 9 to 135) and the block RAMs; LUT-eq x cycles counts them with "
            "modforge's area weights (synth.metrics: LUT-eq = LUT + LUT RAM + FF/2 + 100 DSP + 300 BRAM36).", ""]
    return out + crossover(results)


if __name__ == "__main__":
    sys.exit(run(__doc__, report))
