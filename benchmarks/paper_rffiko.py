"""The reduction-free paper's Tables 4 (FPGA) and 5 (ASIC) with open tools, beside the paper.

    modforge explore sweeps/rffiko_paper.toml --db rffiko.sqlite
    python3 benchmarks/paper_rffiko.py --db rffiko.sqlite [-o benchmarks/rffiko_paper.md]

Every "ours" figure is read from the sweep's database (generated, verified, synthesized
here). The paper's figures are typed in below, only for the columns labelled "paper", and
for the ordering checks that say whether a claim of the paper holds with open tools.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from _compare import done_records, fmt, orderings, run

ALGS = ["gf2n-blakely", "gf2n-montgomery", "gf2n-bmm", "gf2n-fiko", "gf2n-rffiko"]
SHORT = {"gf2n-blakely": "Blakely", "gf2n-montgomery": "Montgomery", "gf2n-bmm": "BMM",
         "gf2n-fiko": "FIKO", "gf2n-rffiko": "RF-FIKO"}
FIELDS = {107: "F1: t^107+t^54+1", 163: "F2: t^163+t^82+1", 521: "F3: t^521+t^260+1", 571: "F4': t^571+t+1"}

# paper, Table 4 (FPGA): CC, LUT, f MHz, latency us; Table 5 (ASIC 28 nm): time ns, gates
PAPER_FPGA = {
    (107, "Blakely"): (107, 179, 299.4, 0.357), (107, "Montgomery"): (107, 177, 277.8, 0.385),
    (107, "BMM"): (54, 344, 327.9, 0.165), (107, "FIKO"): (54, 400, 342.5, 0.158),
    (107, "RF-FIKO"): (54, 235, 350.8, 0.154),
    (163, "Blakely"): (163, 260, 268.1, 0.608), (163, "Montgomery"): (163, 262, 268.8, 0.606),
    (163, "BMM"): (82, 477, 286.5, 0.286), (163, "FIKO"): (82, 768, 289.9, 0.283),
    (163, "RF-FIKO"): (82, 512, 308.6, 0.266),
    (521, "Blakely"): (521, 819, 218.3, 2.39), (521, "Montgomery"): (521, 813, 216.0, 2.41),
    (521, "BMM"): (261, 1492, 219.3, 1.19), (521, "FIKO"): (261, 2685, 203.7, 1.28),
    (571, "Blakely"): (571, 893, 215.1, 2.66), (571, "Montgomery"): (571, 895, 207.9, 2.75),
    (571, "BMM"): (286, 1632, 215.1, 1.33), (571, "FIKO"): (286, 2772, 199.7, 1.432),
}
PAPER_ASIC = {
    (107, "Blakely"): (0.33, 1941), (107, "Montgomery"): (0.37, 2039), (107, "BMM"): (0.36, 5512),
    (107, "FIKO"): (0.34, 7812), (107, "RF-FIKO"): (0.32, 4876),
    (163, "Blakely"): (0.34, 3115), (163, "Montgomery"): (0.38, 3835), (163, "BMM"): (0.38, 6551),
    (163, "FIKO"): (0.34, 12402), (163, "RF-FIKO"): (0.34, 7059),
    (521, "Blakely"): (0.4, 9240), (521, "Montgomery"): (0.41, 11785), (521, "BMM"): (0.39, 20690),
    (521, "FIKO"): (0.41, 41007),
    (571, "Blakely"): (0.4, 11031), (571, "Montgomery"): (0.41, 12399), (571, "BMM"): (0.39, 22370),
    (571, "FIKO"): (0.41, 43346),
}


def load(db: Path) -> dict:
    """(n, short name, target) -> metrics of the done records."""
    return {(r["params"]["n"], SHORT[r["algorithm"]], r["target"]): r["metrics"]
            for r in done_records(db) if r["algorithm"] in SHORT}


def tables(res: dict) -> list[str]:
    rows = ["## Table 4: FPGA (ours: ECP5 LFE5U-25F, or a larger LFE5U for a design filling it over 75%, "
            "place and route at 300 MHz asked, and Xilinx 7 "
            "synthesis; paper: Xilinx FPGA)", "",
            "| field | algorithm | cycles | ECP5 LUT4 | ECP5 FF | ECP5 Fmax MHz | latency us | xc7 LUT | "
            "paper CC | paper LUT | paper f MHz | paper latency us |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for n, field in FIELDS.items():
        for alg in SHORT.values():
            e, x = res.get((n, alg, "ecp5")), res.get((n, alg, "xc7"))
            p = PAPER_FPGA.get((n, alg))
            if not (e or p):
                continue
            e = e or {}
            rows.append(f"| {field} | {alg} | {fmt(e.get('cycles'))} | {fmt(e.get('lut'))} | {fmt(e.get('ff'))} | "
                        f"{fmt(e.get('fmax_mhz'))} | "
                        f"{fmt(e['latency_ns'] / 1000, 3) if e.get('latency_ns') else '-'} | "
                        f"{fmt((x or {}).get('lut'))} | " + " | ".join(
                            fmt(v, d) for v, d in zip(p or (None,) * 4, (0, 0, 1, 3), strict=True)) + " |")
    rows += ["", "## Table 5: ASIC (ours: OSU 0.18 um standard cells and Yosys generic gates; paper: 28 nm)", "",
             "| field | algorithm | cells | area um2 | critical path ns | area x time (um2 us) | generic gates "
             "| gate depth | paper time ns | paper gates |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for n, field in FIELDS.items():
        for alg in SHORT.values():
            a, g = res.get((n, alg, "asic")) or {}, res.get((n, alg, "generic")) or {}
            p = PAPER_ASIC.get((n, alg))
            if not (a or p):
                continue
            rows.append(f"| {field} | {alg} | {fmt(a.get('cells'))} | {fmt(a.get('cell_area_um2'), 0)} | "
                        f"{fmt(a.get('critical_path_ns'), 2)} | {fmt(a.get('area_time'), 0)} | {fmt(g.get('gates'))} | "
                        f"{fmt(g.get('depth'))} | " + " | ".join(fmt(v, 2) for v in (p or (None,) * 2)) + " |")
    return rows


def claims(res: dict) -> list[str]:
    """The paper's orderings, checked on our figures and on the paper's own."""
    def ours(n, alg, target, key):
        m = res.get((n, alg, target))
        return m.get(key) if m else None

    def paper(n, alg, key):
        p = PAPER_FPGA.get((n, alg))
        return None if p is None else {"lut": p[1], "latency_ns": p[3] * 1000}[key]

    checks = []
    for n in (107, 163):
        checks += [(f"RF-FIKO uses fewer LUTs than FIKO (GF(2^{n}))", n, "lut", "RF-FIKO", "FIKO"),
                   (f"RF-FIKO is faster than FIKO (GF(2^{n}))", n, "latency_ns", "RF-FIKO", "FIKO"),
                   (f"RF-FIKO is faster than BMM (GF(2^{n}))", n, "latency_ns", "RF-FIKO", "BMM")]
    for n in FIELDS:
        checks += [(f"BMM uses fewer LUTs than FIKO (GF(2^{n}))", n, "lut", "BMM", "FIKO"),
                   (f"BMM is faster than Blakely (GF(2^{n}))", n, "latency_ns", "BMM", "Blakely"),
                   (f"Blakely uses fewer LUTs than BMM (GF(2^{n}))", n, "lut", "Blakely", "BMM")]
    return orderings("## The paper's orderings with open tools (ECP5)",
                     [(text, ours(n, x, "ecp5", key), ours(n, y, "ecp5", key), paper(n, x, key), paper(n, y, key))
                      for text, n, key, x, y in checks])


def report_lines(db: Path) -> list[str]:
    res = load(db)
    return [f"# Reduction-free paper, Tables 4 and 5, with open tools ({time.strftime('%Y-%m-%d')})", "",
             "Made by `modforge explore sweeps/rffiko_paper.toml --db rffiko.sqlite` and "
             "`python3 benchmarks/paper_rffiko.py --db rffiko.sqlite`. Our cycles are the step cycles; "
             "our latency is one load cycle more, times the post-route clock period. Columns marked "
             "*paper* are the paper's printed figures (Tables 4 and 5), for comparison only.", "",
             *tables(res), "", *claims(res)]


if __name__ == "__main__":
    sys.exit(run(__doc__, report_lines))
