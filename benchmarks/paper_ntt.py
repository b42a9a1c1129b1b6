"""The NTT modular-reduction paper's Tables 3-4 (standalone reductions) and 5-6 (NTT at
log n = 12, PE = 16) with open tools, beside the paper.

    modforge explore sweeps/ntt_paper.toml --db ntt.sqlite --workers 2
    python3 benchmarks/paper_ntt.py --db ntt.sqlite [-o benchmarks/ntt_paper.md]

Every "ours" figure is read from the sweep's database (generated, verified, synthesized
here) or computed by modforge (the DSP count its tiling implies). The paper's figures
(Vivado 2023.2 on an Alveo U280) are typed in below, only for the columns labelled
"paper" and for the ordering checks.

ATP as the paper defines it (Sec. 5): average latency (us) x (LUT + FF/2 + 100 DSP +
300 BRAM); the average latency of a pipelined reduction is one clock period, of an NTT
the cycles per transform over the clock (BRAM left out for the NTT, as the paper does).
Yosys gives no clock for UltraScale+ (xcup), so ATP is computed on ECP5 (nextpnr's Fmax);
xcup gives the counts and "area" = LUT + FF/2 + 100 DSP.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from _compare import done_records, fmt, orderings, run
from modforge.registry import lookup

SHORT = {"modmul-wlm": "WLM", "modmul-wlm-mixed": "WLM-Mixed", "modmul-k2red": "K2RED",
         "modmul-k2red-shift": "K2RED-Shift", "modmul-montgomery-shift": "Montgomery-Shift",
         "modmul-montgomery": "Montgomery", "modmul-barrett": "Barrett", "modmul-plantard": "Plantard"}
NTT_SHORT = {"wlm": "WLM", "wlm-mixed": "WLM-Mixed", "k2red": "K2RED", "k2red-shift": "K2RED-Shift",
             "montgomery-shift": "Montgomery-Shift"}

# paper Table 3: (algorithm, log q, log q_h) -> (LUT, FF, DSP, MHz, ATP)
PAPER_T3 = {
    ("WLM", 64, 47): (487, 1177, 8, 416, 4.5), ("WLM", 64, 48): (518, 1195, 8, 416, 4.59),
    ("WLM", 64, 49): (566, 1450, 10, 434, 5.26), ("WLM", 64, 50): (579, 1478, 10, 434, 5.33),
    ("WLM", 64, 51): (583, 1506, 10, 434, 5.37), ("WLM", 32, 15): (136, 226, 2, 526, 0.85),
    ("WLM", 32, 16): (130, 210, 2, 526, 0.82), ("WLM", 32, 17): (152, 315, 3, 526, 1.15),
    ("WLM", 32, 18): (156, 320, 3, 526, 1.17), ("WLM", 32, 19): (160, 325, 3, 526, 1.18),
    ("WLM-Mixed", 64, 17): (315, 522, 3, 476, 1.83), ("WLM-Mixed", 32, 15): (131, 211, 2, 526, 0.82),
    ("K2RED", 64, 26): (411, 424, 6, 476, 2.56), ("K2RED", 64, 32): (432, 483, 8, 476, 3.09),
    ("K2RED", 32, 15): (151, 201, 2, 588, 0.76), ("K2RED", 32, 16): (154, 210, 2, 588, 0.78),
}
# paper Table 4: (algorithm, rho, log q, log q_h, Proth-3l?) -> (LUT, FF, DSP, MHz, ATP); the
# paper prints log q_h = 47 for Montgomery-Shift's 64-bit rows whose prime counts are those
# of log q_h = 17 (omega = 47): read as 17
PAPER_T4 = {
    ("K2RED-Shift", "A", 64, 17, True): (1259, 979, 0, 476, 3.67),
    ("K2RED-Shift", "B", 64, 17, True): (1295, 409, 0, 370, 4.04),
    ("K2RED-Shift", "B", 64, 17, False): (1079, 397, 0, 454, 2.81),
    ("K2RED-Shift", "A", 64, 32, True): (1287, 1071, 0, 500, 3.64),
    ("K2RED-Shift", "B", 64, 32, True): (1340, 465, 0, 344, 4.56),
    ("K2RED-Shift", "A", 64, 32, False): (945, 953, 0, 588, 2.41),
    ("K2RED-Shift", "B", 64, 32, False): (1048, 449, 0, 416, 3.05),
    ("K2RED-Shift", "A", 32, 15, True): (611, 537, 0, 588, 1.49),
    ("K2RED-Shift", "B", 32, 15, True): (617, 245, 0, 434, 1.7),
    ("K2RED-Shift", "B", 32, 15, False): (510, 232, 0, 555, 1.12),
    ("K2RED-Shift", "A", 32, 16, True): (595, 537, 0, 555, 1.55),
    ("K2RED-Shift", "B", 32, 16, True): (598, 248, 0, 416, 1.73),
    ("K2RED-Shift", "A", 32, 16, False): (462, 466, 0, 714, 0.97),
    ("K2RED-Shift", "B", 32, 16, False): (488, 235, 0, 526, 1.15),
    ("Montgomery-Shift", "A", 64, 17, True): (1114, 954, 0, 526, 3.02),
    ("Montgomery-Shift", "B", 64, 17, True): (1002, 591, 0, 416, 3.11),
    ("Montgomery-Shift", "B", 64, 17, False): (671, 583, 0, 416, 2.31),
    ("Montgomery-Shift", "A", 64, 32, True): (1545, 1101, 0, 500, 4.19),
    ("Montgomery-Shift", "B", 64, 32, True): (1391, 642, 0, 416, 4.1),
    ("Montgomery-Shift", "B", 64, 32, False): (945, 632, 0, 416, 3.02),
    ("Montgomery-Shift", "A", 32, 15, True): (665, 558, 0, 625, 1.49),
    ("Montgomery-Shift", "B", 32, 15, True): (603, 329, 0, 434, 1.76),
    ("Montgomery-Shift", "B", 32, 15, False): (411, 321, 0, 476, 1.2),
    ("Montgomery-Shift", "A", 32, 16, True): (667, 564, 0, 588, 1.61),
    ("Montgomery-Shift", "B", 32, 16, True): (639, 332, 0, 454, 1.77),
    ("Montgomery-Shift", "B", 32, 16, False): (420, 324, 0, 476, 1.22),
}
# paper Tables 5 (log q = 32) and 6 (log q = 64), log n = 12, PE = 16:
# (reduction, log q) -> (log q_h, LUT e3, FF e3, DSP, BRAM, MHz, latency us, ATP e3)
PAPER_NTT = {
    ("WLM", 32): (19, 14, 10, 112, 17, 434, 3.60, 113.71),
    ("WLM-Mixed", 32): (15, 14, 9, 96, 17, 434, 3.59, 105.78),
    ("K2RED", 32): (15, 14, 11, 96, 17, 416, 3.75, 111.73),
    ("K2RED-Shift", 32): (16, 17, 13, 64, 17, 400, 3.91, 119.51),
    ("Montgomery-Shift", 32): (16, 17, 10, 64, 17, 400, 3.91, 115.56),
    ("WLM", 64): (51, 34, 32, 352, 34, 333, 4.71, 402.81),
    ("WLM-Mixed", 64): (17, 28, 22, 240, 34, 322, 4.85, 310.58),
    ("K2RED", 64): (26, 30, 22, 288, 34, 333, 4.70, 330.71),
    ("K2RED-Shift", 64): (17, 38, 27, 192, 34, 333, 4.70, 334.79),
    ("Montgomery-Shift", 64): (17, 35, 22, 192, 34, 344, 4.54, 299.09),
}


def area(lut, ff, dsp, bram=0):
    return lut + ff / 2 + 100 * dsp + 300 * bram


def modmul_key(rec) -> tuple:
    """(algorithm, log q, log q_h, rho, Proth-3l?) of a reduction record (log q_h 0 where
    the algorithm has none; rho/Proth-3l None where it has no shifts)."""
    alg = lookup(rec["algorithm"])
    p = alg.parse({k: str(v) for k, v in rec["params"].items()})
    info = alg.extra_info(p)
    proth3l = None if "proth" not in info else info["proth"] == "3l"
    return (SHORT[rec["algorithm"]], p.q.bit_length(), getattr(p, "logqh", 0), getattr(p, "rho", None), proth3l)


def load(db: Path):
    """(key, target) -> (metrics, predicted DSPs) for the reductions; (reduction, log q,
    variant, target) -> metrics for the NTTs (variant: "", "PE = 8", "2 buffers", "twiddles=load", ...)."""
    red, ntt = {}, {}
    for r in done_records(db):
        if r["algorithm"] in SHORT and r["params"].get("reduce_only"):
            alg = lookup(r["algorithm"])
            p = alg.parse({k: str(v) for k, v in r["params"].items()})
            red[(modmul_key(r), r["target"])] = (r["metrics"], alg.extra_info(p).get("dsp_total"))
        elif r["algorithm"] == "ntt-forward" and r["params"]["reduction"] in NTT_SHORT:
            pe = int(r["params"]["pe"])
            variant = ", ".join(v for v in (f"PE = {pe}" * (pe != 16),
                                            "2 buffers" * (r["params"].get("buffers", 1) == 2),
                                            "twiddles=load" * (r["params"].get("twiddles") == "load")) if v)
            target = "ecp5" if r["target"] == "ecp5-static" else r["target"]  # one ECP5 column
            ntt[(NTT_SHORT[r["params"]["reduction"]], int(r["params"]["q"]).bit_length(),
                 variant, target)] = r["metrics"]
    return red, ntt


def ecp5_atp(m) -> float | None:
    """The paper's ATP on ECP5 figures: one clock period x area (MULT18X18D as DSP)."""
    if not m or not m.get("fmax_mhz"):
        return None
    return area(m["lut"], m["ff"], m["dsp"] or 0) / m["fmax_mhz"]


def reduction_rows(red: dict, keys: list[tuple], paper: dict, paper_key) -> list[str]:
    rows = ["| reduction | log q | log q_h | rho | Proth | DSP (tiling) | xcup LUT | xcup FF | xcup DSP | "
            "xcup area | ECP5 LUT4 | ECP5 FF | ECP5 MULT18 | ECP5 Fmax | ECP5 ATP | paper LUT | paper FF | "
            "paper DSP | paper MHz | paper area | paper ATP |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for key in keys:
        (x, dsp_pred), (e, _) = red.get((key, "xcup"), ({}, None)), red.get((key, "ecp5"), ({}, None))
        p = paper.get(paper_key(key))
        name, logq, logqh, rho, p3 = key
        xa = area(x["lut"], x["ff"], x["dsp"] or 0) if x.get("lut") is not None else None
        pa = area(p[0], p[1], p[2]) if p else None
        rows.append(" | ".join([
            f"| {name}", str(logq), str(logqh or "-"), rho or "-", "-" if p3 is None else ("3l" if p3 else "2l"),
            fmt(dsp_pred), fmt(x.get("lut")), fmt(x.get("ff")), fmt(x.get("dsp")), fmt(xa, 0),
            fmt(e.get("lut")), fmt(e.get("ff")), fmt(e.get("dsp")), fmt(e.get("fmax_mhz")), fmt(ecp5_atp(e), 2),
            *(fmt(v) for v in (p[:4] if p else (None,) * 4)), fmt(pa, 0), fmt(p[4] if p else None, 2)]) + " |")
    return rows


def ntt_rows(ntt: dict) -> list[str]:
    """xcup counts, ECP5 (where run) counts, Fmax, time per transform and ATP, the paper's."""
    rows = ["| reduction | log q | cycles C | II | xcup LUT | xcup FF | xcup DSP | xcup BRAM36 | xcup area | "
            "ECP5 LUT4 | ECP5 FF | ECP5 MULT18 | ECP5 Fmax | ECP5 us (II/f) | ECP5 ATP e3 | "
            "paper log q_h | paper LUT | paper FF | paper DSP | paper BRAM | paper MHz | paper cycles (lat x f) | "
            "paper area | paper ATP e3 |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    variants = sorted({(name, logq, variant) for name, logq, variant, _ in ntt if variant})
    for name, logq, variant in [(*k, "") for k in PAPER_NTT] + variants:
        p = None if variant else PAPER_NTT[(name, logq)]
        x, e = ntt.get((name, logq, variant, "xcup")) or {}, ntt.get((name, logq, variant, "ecp5")) or {}
        xa = area(x["lut"], x["ff"], x["dsp"] or 0) if x.get("lut") is not None else None
        us = e["initiation_interval"] / e["fmax_mhz"] if e.get("fmax_mhz") else None
        atp = area(e["lut"], e["ff"], e["dsp"] or 0) * us / 1000 if us else None
        rows.append(" | ".join([
            f"| {name}" + (f", {variant}" if variant else ""), str(logq), fmt(x.get("cycles") or e.get("cycles")),
            fmt(x.get("initiation_interval") or e.get("initiation_interval")), fmt(x.get("lut")),
            fmt(x.get("ff")), fmt(x.get("dsp")), fmt(x.get("bram")), fmt(xa, 0),
            fmt(e.get("lut")), fmt(e.get("ff")), fmt(e.get("dsp")), fmt(e.get("fmax_mhz")), fmt(us, 2), fmt(atp, 2),
            *([str(p[0]), fmt(p[1] * 1000), fmt(p[2] * 1000), fmt(p[3]), fmt(p[4]), fmt(p[5]),
               fmt(round(p[6] * p[5])), fmt(area(p[1] * 1000, p[2] * 1000, p[3]), 0), fmt(p[7], 2)]
              if p else ["-"] * 9)]) + " |")
    return rows


def claims(red: dict, ntt: dict) -> list[str]:
    def ours(key, what):
        if what == "xcup area":
            m = red.get((key, "xcup"), ({}, None))[0]
            return area(m["lut"], m["ff"], m["dsp"] or 0) if m.get("lut") is not None else None
        if what == "ecp5 ATP":
            return ecp5_atp(red.get((key, "ecp5"), ({}, None))[0])
        m = red.get((key, "xcup"), ({}, None))[0]
        return m.get(what)

    def paper(key, what):
        name, logq, logqh, rho, p3 = key
        p = PAPER_T4.get((name, rho, logq, logqh, p3)) if rho else PAPER_T3.get((name, logq, logqh))
        if p is None:
            return None
        return {"xcup area": area(p[0], p[1], p[2]), "ecp5 ATP": p[4], "lut": p[0], "ff": p[1]}[what]

    wlm47, wlmm17, k2r26 = ("WLM", 64, 47, None, None), ("WLM-Mixed", 64, 17, None, None), ("K2RED", 64, 26, None, None)
    k2r15, wlmm15 = ("K2RED", 32, 15, None, None), ("WLM-Mixed", 32, 15, None, None)
    wlm15, wlm19 = ("WLM", 32, 15, None, None), ("WLM", 32, 19, None, None)
    ks2l, ks3l = ("K2RED-Shift", 64, 17, "B", False), ("K2RED-Shift", 64, 17, "B", True)
    msA, msB = ("Montgomery-Shift", 32, 16, "A", True), ("Montgomery-Shift", 32, 16, "B", True)
    checks = []
    for what in ("xcup area", "ecp5 ATP"):
        checks += [
            (f"64-bit: WLM-Mixed < K2RED (log q_h 26), {what}", wlmm17, k2r26, what),
            (f"64-bit: K2RED (log q_h 26) < WLM (log q_h 47), {what}", k2r26, wlm47, what),
            (f"32-bit: K2RED < WLM-Mixed (log q_h 15), {what}", k2r15, wlmm15, what),
            (f"32-bit: WLM log q_h 15 (2 steps) < 19 (3 steps), {what}", wlm15, wlm19, what),
            (f"64-bit: WLM-Mixed < K2RED-Shift (rho B, 2l), {what}", wlmm17, ks2l, what),
            (f"64-bit: K2RED-Shift Proth-2l < Proth-3l (rho B), {what}", ks2l, ks3l, what),
        ]
    checks += [("32-bit Montgomery-Shift: rho B has fewer FF than rho A", msB, msA, "ff")]
    out = orderings("## The paper's orderings with open tools (reductions alone)",
                    [(text, ours(x, w), ours(y, w), paper(x, w), paper(y, w)) for text, x, y, w in checks])

    def ntt_area(name, logq, src):
        if src == "paper":
            p = PAPER_NTT[(name, logq)]
            return area(p[1] * 1000, p[2] * 1000, p[3])
        m = ntt.get((name, logq, "", "xcup")) or {}
        return area(m["lut"], m["ff"], m["dsp"] or 0) if m.get("lut") is not None else None

    nchecks = []
    for logq in (32, 64):
        for other in ("WLM", "K2RED", "K2RED-Shift", "Montgomery-Shift"):
            nchecks.append((f"NTT log q = {logq}: WLM-Mixed < {other}, area", "WLM-Mixed", other, logq))
    out += [""] + orderings("## NTT (log n = 12, PE = 16, xcup area; paper: LUT + FF/2 + 100 DSP)",
                            [(t, ntt_area(x, lq, "ours"), ntt_area(y, lq, "ours"), ntt_area(x, lq, "paper"),
                              ntt_area(y, lq, "paper")) for t, x, y, lq in nchecks])
    return out


def report_lines(db: Path) -> list[str]:
    red, ntt = load(db)
    keys = sorted({k for k, _ in red},
                  key=lambda k: (list(SHORT.values()).index(k[0]), -k[1], k[2], k[3] or "", bool(k[4])))
    dsp_keys = [k for k in keys if k[3] is None]
    shift_keys = [k for k in keys if k[3] is not None]
    return [f"# NTT modular-reduction paper, Tables 3-6, with open tools ({time.strftime('%Y-%m-%d')})", "",
             "Made by `modforge explore sweeps/ntt_paper.toml --db ntt.sqlite --workers 2` and "
             "`python3 benchmarks/paper_ntt.py --db ntt.sqlite`. Ours: the reduction alone (reduce_only=1, "
             "input x <= (q-1)^2, as the paper's Tables 3-4), fully pipelined; xcup = Yosys synth_xilinx "
             "-family xcup (DSP48E2, 26x17 tiling); ECP5 = Yosys + nextpnr-ecp5 at 200 MHz asked (18x18 "
             "tiling, dsp=ecp5). Columns marked *paper* are the paper's printed figures (Vivado, Alveo U280), "
             "for comparison only. Area = LUT + FF/2 + 100 DSP; ECP5 ATP = area / Fmax (us), the "
             "paper's ATP with one clock period as the average latency.", "",
             "## Table 3: DSP-based reductions", "",
             *reduction_rows(red, dsp_keys, PAPER_T3, lambda k: (k[0], k[1], k[2])), "",
             "## Table 4: shift-add reductions", "",
             *reduction_rows(red, shift_keys, PAPER_T4, lambda k: (k[0], k[3], k[1], k[2], k[4])), "",
             "## Tables 5 and 6: forward NTT, log n = 12, PE = 16", "",
             "Ours: one forward transform of the NTT core (C compute cycles; II = n/P + C: the next "
             "polynomial loads while the last is read out; with 2 buffers it loads while one computes, "
             "II = C). ECP5 only for the 32-bit shift-add "
             "reductions (MULT18X18D for the a*b products only, 4 per butterfly; the DSP-based "
             "reductions need more than the largest ECP5 has). At PE = 16 with nextpnr's static placer "
             "(target ecp5-static: its default placer packs these cores so densely that routing "
             "stalls, see the reading), at PE = 4 and 8 with the default.", "",
             *ntt_rows(ntt), "", *claims(red, ntt)]


if __name__ == "__main__":
    sys.exit(run(__doc__, report_lines))
