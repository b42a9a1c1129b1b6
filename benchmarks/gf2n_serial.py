"""The GF(2^n) multipliers' serial operand held two ways (parameter `serial`): shift (a shift
register, a LUT per bit for its load multiplexer) or select (a register loaded once and a
multiplexer tree picking the next bit a cycle ahead), at the reduction-free paper's fields F1
and F2, on xc7 (Yosys synth_xilinx LUTs, the paper's figures beside them) and ECP5 (nextpnr,
300 MHz asked).

    PYTHONPATH=src python3 benchmarks/gf2n_serial.py [-o benchmarks/gf2n_serial.md]

Each point is `modforge synth <algorithm> n=<n> poly=rft serial=<mode> --target xc7|ecp5`.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _compare import fmt, run_measured, synth_json  # noqa: E402
from paper_rffiko import ALGS, PAPER_FPGA, SHORT  # noqa: E402


def measure(algorithm: str, n: int, serial: str, target: str) -> dict:
    return synth_json(algorithm, f"n={n}", "poly=rft", f"serial={serial}", "--target", target, "--freq", "300")


def report() -> list[str]:
    rows = ["| n | algorithm | xc7 LUT shift | xc7 LUT select | select/shift | paper LUT | select/paper | "
            "ECP5 LUT4 shift / select | ECP5 MHz shift / select |", "|---|---|---|---|---|---|---|---|---|"]
    for n in (107, 163):
        for alg in ALGS:
            x = {s: measure(alg, n, s, "xc7") for s in ("shift", "select")}
            e = {s: measure(alg, n, s, "ecp5") for s in ("shift", "select")}
            paper = PAPER_FPGA[(n, SHORT[alg])][1]
            rows.append(f"| {n} | {SHORT[alg]} | {x['shift']['lut']} | {x['select']['lut']} | "
                        f"{x['select']['lut'] / x['shift']['lut']:.2f} | {paper} | {x['select']['lut'] / paper:.2f} | "
                        f"{e['shift']['lut']} / {e['select']['lut']} | "
                        f"{fmt(e['shift']['fmax_mhz'])} / {fmt(e['select']['fmax_mhz'])} |")
            print(rows[-1], file=sys.stderr)
    return rows + ["", "select pays on 6-input LUTs (xc7: a 4:1 multiplexer per LUT, wider ones with MUXF7/F8) "
                   "and costs on ECP5's 4-input LUTs, where the multiplexer tree is as large as the load "
                   "multiplexers it replaces and sets the critical path. Most of the gap left to the paper's "
                   "(Vivado) LUTs is in the accumulators' bit cells, each a 3-input function (the shifted "
                   "neighbour xor a_i AND b_j): Vivado can pack two of them into one LUT6 site (LUT6_2), "
                   "Yosys counts each as a LUT; not measured here (no Vivado in this flow)."]


if __name__ == "__main__":
    sys.exit(run_measured(__doc__, "GF(2^n) serial operands: shift register or multiplexer (issue 38)", report))
