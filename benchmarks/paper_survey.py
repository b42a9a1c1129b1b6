"""The digit-serial survey's Tables 1-4 with open tools, beside the paper.

    modforge explore sweeps/survey_quick.toml --db survey.sqlite      # or survey_tables.toml: all of it
    python3 benchmarks/paper_survey.py --db survey.sqlite [-o benchmarks/survey_paper.md]

Every "ours" figure is read from the sweep's database (generated, verified, placed and
routed on ECP5; synthesized for Xilinx 7 and to generic gates where the sweep asks). ECP5
and the paper's Spartan-3 both have slices of two LUT4 and two flip-flops; our slice count is
the lower bound ceil(max(LUT4, FF) / 2) (nextpnr reports
no slice count). Our multiplication time is the latency of one multiplication (one load
cycle more than the step cycles) times the post-route clock period; throughput is m bits
per initiation interval. The paper's figures are typed in below, only for the columns
labelled "paper" and for the ordering checks.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

from _compare import done_records, fmt, orderings, run

NAMES = {"gfpm-mse-horner": "Alg 1", "gfpm-lse-basic": "Alg 4", "gfpm-mse-shu": "Alg 2",
         "gfpm-mse-digit": "Alg 3", "gfpm-lse-digit": "Alg 5", "gfpm-mse-pipelined": "Fig 1d",
         "gfpm-lse-nam": "Fig 2c", "gfpm-lse-pipelined": "Fig 2d"}
DS = (4, 8, 12, 16, 20, 24, 28, 32)

# paper, Table 1: slices, delay ns, multiplication time ns, throughput Mbit/s, per slice
PAPER_T1 = {
    (163, "Alg 1"): (85, 4.9, 798.7, 204.1, 2.4), (163, "Alg 4"): (179, 4.9, 798.7, 204.1, 1.1),
    (233, "Alg 1"): (122, 4.9, 1141.7, 204.1, 1.7), (233, "Alg 4"): (270, 5.3, 1234.9, 188.7, 0.7),
    (283, "Alg 1"): (146, 5.3, 1499.9, 188.7, 1.3), (283, "Alg 4"): (322, 4.9, 1386.7, 204.1, 0.6),
    (409, "Alg 1"): (216, 6.2, 2535.8, 161.3, 0.7), (409, "Alg 4"): (473, 4.9, 2004.1, 204.1, 0.4),
    (571, "Alg 1"): (311, 4.9, 2797.9, 204.1, 0.7), (571, "Alg 4"): (643, 4.9, 2797.9, 204.1, 0.3),
}
# paper, Tables 2 (time ns) and 3 (throughput/slice Mbit/s), GF(2^163), D = 4, 8, ..., 32
PAPER_T2 = {"Alg 2": (203.7, 115.8, 79.1, 66.7, 58.8, 54.7, 45.7, 46.2),
            "Alg 3": (294.4, 116.8, 76.2, 72.7, 79.1, 60.3, 51.4, 53.6),
            "Alg 5": (209.2, 109.7, 89.4, 69.3, 64.0, 58.0, 57.4, 72.7)}
PAPER_T3 = {"Alg 2": (2.9, 2.5, 2.0, 1.9, 1.4, 1.2, 1.2, 1.1),
            "Alg 3": (1.9, 2.4, 2.8, 2.1, 1.1, 1.2, 1.2, 1.0),
            "Alg 5": (2.1, 2.2, 2.0, 2.0, 1.3, 1.2, 1.0, 0.7)}
# paper, Table 4, GF(2^163), D = 32, R = 4: slices, delay ns, time ns, throughput, per slice
PAPER_T4 = {"Fig 1d": (2158, 5.9, 47.2, 3453.4, 1.6), "Fig 2c": (2637, 6.6, 52.8, 3087.1, 1.2),
            "Fig 2d": (2269, 5.9, 47.2, 3453.4, 1.5)}


def figures(rec: dict) -> dict:
    """Slices, clock period, multiplication time, throughput and throughput per slice."""
    m, e = rec["params"]["m"], rec["metrics"]
    slices = math.ceil(max(e["lut"], e["ff"]) / 2)
    thr = m * e["throughput_mops"]  # Mbit/s
    return {"slices": slices, "delay": 1000 / e["fmax_mhz"], "time": e["latency_ns"], "thr": thr,
            "per_slice": thr / slices, "lut": e["lut"], "ff": e["ff"], "cycles": e["initiation_interval"]}


FIELDS = (163, 233, 283, 409, 571)


def key(r: dict) -> tuple:
    """(m, name, D or None) of a record."""
    return (r["params"]["m"], NAMES[r["algorithm"]],
            None if r["algorithm"] in ("gfpm-mse-horner", "gfpm-lse-basic") else r["params"].get("D"))


def load(db: Path) -> tuple[dict, dict]:
    """ECP5 figures and the other targets' metrics (target -> key -> metrics), by key."""
    ecp5, other = {}, {}
    for r in done_records(db):
        if r["algorithm"] not in NAMES or r["params"]["p"] != 2:
            continue
        if r["target"] == "ecp5":
            ecp5[key(r)] = figures(r)
        else:
            other.setdefault(r["target"], {})[key(r)] = r["metrics"]
    return ecp5, other


def row(label: str, ours: dict | None, paper) -> str:
    o = ours or {}
    cells = [fmt(o.get("cycles")), fmt(o.get("lut")), fmt(o.get("ff")), fmt(o.get("slices")),
             fmt(o.get("delay"), 2), fmt(o.get("time"), 1), fmt(o.get("thr"), 1), fmt(o.get("per_slice"), 2)]
    cells += [fmt(v, d) for v, d in zip(paper or (None,) * 5, (0, 1, 1, 1, 1), strict=True)]
    return f"| {label} | " + " | ".join(cells) + " |"


HEAD = ("| cycles | LUT4 | FF | slices | period ns | time ns | Mbit/s | Mbit/s/slice | paper slices | "
        "paper delay ns | paper time ns | paper Mbit/s | paper Mbit/s/slice |")


def report(res: dict) -> list[str]:
    out = ["## Table 1: Algorithm 1 (MSE first, Horner) vs Algorithm 4 (LSE first), D = 1", "",
           "| field | algorithm " + HEAD, "|---|---" + "|---" * 13 + "|"]
    for m in FIELDS:
        for alg in ("Alg 1", "Alg 4"):
            if (m, alg, None) in res or (m, alg) in PAPER_T1:
                out.append(row(f"GF(2^{m}) | {alg}", res.get((m, alg, None)), PAPER_T1.get((m, alg))))
    out += ["", "## Tables 2 and 3: Algorithms 2, 3 (MSE first) and 5 (LSE first) (the paper: GF(2^163) only)", "",
            "| field | D | algorithm | cycles | LUT4 | FF | slices | time ns | Mbit/s/slice | paper time ns "
            "| paper Mbit/s/slice |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for m in FIELDS:
        for k, D in enumerate(DS):
            for alg in ("Alg 2", "Alg 3", "Alg 5"):
                o = res.get((m, alg, D))
                if o is None:
                    continue
                paper = (PAPER_T2[alg][k], PAPER_T3[alg][k]) if m == 163 else ("-", "-")
                out.append(f"| GF(2^{m}) | {D} | {alg} | {o['cycles']} | {o['lut']:,} | {o['ff']:,} | "
                           f"{o['slices']:,} | {o['time']:.1f} | {o['per_slice']:.2f} | {paper[0]} | {paper[1]} |")
    out += ["", "## Table 4: pipelined MSE (Fig. 1d), NAM (Fig. 2c), pipelined LSE (Fig. 2d), "
            "D = 32, R = 4 (the paper: GF(2^163) only)", "", "| field | operator " + HEAD,
            "|---|---" + "|---" * 13 + "|"]
    for m in FIELDS:
        for alg in ("Fig 1d", "Fig 2c", "Fig 2d"):
            if (m, alg, 32) in res or m == 163:
                out.append(row(f"GF(2^{m}) | {alg}", res.get((m, alg, 32)), PAPER_T4[alg] if m == 163 else None))
    return out


def other_targets(other: dict) -> list[str]:
    """Every point synthesized for Xilinx 7 (LUT6, FF, CARRY4) or to generic gates (two-input
    gates and inverters, flip-flops apart; depth in gates)."""
    keys = sorted({k for recs in other.values() for k in recs}, key=lambda k: (k[0], k[2] or 0, k[1]))
    if not keys:
        return []
    xc7, gen = other.get("xc7", {}), other.get("generic", {})
    out = ["## Xilinx 7 and generic gates (Yosys synth_xilinx; synth + abc -g AND,NAND,OR,NOR,XOR,XNOR,MUX)", "",
           "| field | D | operator | xc7 LUT | xc7 FF | xc7 CARRY4 | gates | gate depth |",
           "|---|---|---|---|---|---|---|---|"]
    for k in keys:
        x, g = xc7.get(k, {}), gen.get(k, {})
        out.append(f"| GF(2^{k[0]}) | {k[2] or 1} | {k[1]} | {fmt(x.get('lut'))} | {fmt(x.get('ff'))} | "
                   f"{fmt(x.get('carry'))} | {fmt(g.get('gates'))} | {fmt(g.get('depth'))} |")
    return out


def claims(res: dict, other: dict) -> list[str]:
    def ours(m, alg, D, key):
        o = res.get((m, alg, D))
        return o[key] if o else None

    def xc7_luts(m, alg, D):
        return other.get("xc7", {}).get((m, alg, D), {}).get("lut")

    checks = []
    for m in (163, 233, 283, 409, 571):
        p1, p4 = PAPER_T1[(m, "Alg 1")], PAPER_T1[(m, "Alg 4")]
        checks.append((f"Alg 1 is smaller than Alg 4 (slices, GF(2^{m}))", ours(m, "Alg 1", None, "slices"),
                       ours(m, "Alg 4", None, "slices"), p1[0], p4[0]))
        checks.append((f"Alg 4 has a lower throughput/slice than Alg 1 (GF(2^{m}))",
                       ours(m, "Alg 4", None, "per_slice"), ours(m, "Alg 1", None, "per_slice"), p4[4], p1[4]))
    for k, D in enumerate(DS):
        best_mse = max((v for v in (ours(163, "Alg 2", D, "per_slice"), ours(163, "Alg 3", D, "per_slice")) if v),
                       default=None)
        checks.append((f"Alg 5 (LSE) has a lower throughput/slice than the better MSE, D = {D}",
                       ours(163, "Alg 5", D, "per_slice"), best_mse, PAPER_T3["Alg 5"][k],
                       max(PAPER_T3["Alg 2"][k], PAPER_T3["Alg 3"][k])))
    for m in FIELDS[1:]:                 # the other fields: the paper's GF(2^163) claims, no paper figures
        for D in DS:
            best_mse = max((v for v in (ours(m, "Alg 2", D, "per_slice"), ours(m, "Alg 3", D, "per_slice")) if v),
                           default=None)
            if best_mse and ours(m, "Alg 5", D, "per_slice"):
                checks.append((f"Alg 5 (LSE) has a lower throughput/slice than the better MSE, GF(2^{m}), D = {D}",
                               ours(m, "Alg 5", D, "per_slice"), best_mse, None, None))
    for m in FIELDS:
        for fig in ("Fig 1d", "Fig 2d"):
            if m == 163 or (m, fig, 32) in res:
                paper = (PAPER_T4[fig][0], PAPER_T4["Fig 2c"][0]) if m == 163 else (None, None)
                checks.append((f"{fig} (pipelined) is smaller than Fig 2c (NAM), GF(2^{m})", ours(m, fig, 32, "slices"),
                               ours(m, "Fig 2c", 32, "slices"), *paper))
    xc7 = []
    for m in FIELDS:
        p1, p4 = PAPER_T1[(m, "Alg 1")], PAPER_T1[(m, "Alg 4")]
        if xc7_luts(m, "Alg 1", None):
            xc7.append((f"Alg 1 is smaller than Alg 4 (xc7 LUTs; paper: slices), GF(2^{m})",
                        xc7_luts(m, "Alg 1", None), xc7_luts(m, "Alg 4", None), p1[0], p4[0]))
    for m in FIELDS:
        for fig in ("Fig 1d", "Fig 2d"):
            if xc7_luts(m, fig, 32):
                paper = (PAPER_T4[fig][0], PAPER_T4["Fig 2c"][0]) if m == 163 else (None, None)
                xc7.append((f"{fig} (pipelined) is smaller than Fig 2c (NAM) (xc7 LUTs), GF(2^{m})",
                            xc7_luts(m, fig, 32), xc7_luts(m, "Fig 2c", 32), *paper))
    return (orderings("## The paper's orderings with open tools (ECP5)", checks)
            + (["", *orderings("## The same on Xilinx 7 (LUTs)", xc7)] if xc7 else []))


def report_lines(db: Path) -> list[str]:
    res, other = load(db)
    extra = other_targets(other)
    return [f"# Digit-serial survey, Tables 1-4, with open tools ({time.strftime('%Y-%m-%d')})", "",
             "Made by `modforge explore sweeps/survey_tables.toml --db survey.sqlite` (or its quick cut "
             "`survey_quick.toml`) and `python3 benchmarks/paper_survey.py --db survey.sqlite`; ECP5 "
             "LFE5U-25F (a larger LFE5U for a design filling it over 75%), nextpnr at 200 MHz asked. "
             "Columns marked *paper* are the paper's printed figures "
             "(Spartan-3 XC3S1500), for comparison only; rows we did not run show only those.", "",
             *report(res), "", *([*extra, ""] if extra else []), *claims(res, other)]


if __name__ == "__main__":
    sys.exit(run(__doc__, report_lines))
