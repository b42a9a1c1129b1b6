"""The pipelined field multipliers of issue 37 on ECP5 (Yosys synth_ecp5, nextpnr-ecp5:
LUT4, FF, MULT18, Fmax, latency, ATP): depth=short against depth=deep (a stage a Karatsuba
level, the roots by carry-save and carry-select adds) at 130 bits (2^130 - 5, Poly1305's
prime: pseudo-Mersenne, and Montgomery's truncated products), and depth=deep at 255-256
bits, where depth=short does not route.

    PYTHONPATH=src python3 benchmarks/prime_fields_ecp5.py [-o benchmarks/prime_fields_ecp5.md]

Each point is `modforge synth <algorithm> q=<q> dsp=ecp5 depth=<depth> --target ecp5` (3 to
10 minutes at 130 bits, 15 to 30 at 255 bits; the synthesis cache keeps them).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _compare import run_measured, synth_json  # noqa: E402
from modforge.registry import lookup  # noqa: E402

POLY1305 = hex((1 << 130) - 5)
#: (algorithm, q, depths): at 255-256 bits depth=short does not route (the note)
POINTS = [("modmul-pseudo-mersenne", POLY1305, ("short", "deep")),
          ("modmul-field-montgomery", POLY1305, ("short", "deep")),
          ("modmul-pseudo-mersenne", "25519", ("deep",)), ("modmul-pseudo-mersenne", "secp256k1", ("deep",))]


def report() -> list[str]:
    rows = ["| q | algorithm | depth | latency | LUT4 | FF | MULT18 | Fmax MHz | latency ns | ATP (LUT-eq x us) |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for algorithm, q, kinds in POINTS:
        alg = lookup(algorithm)
        for depth in kinds:
            plan = alg.derived(alg.parse({"q": q, "dsp": "ecp5", "depth": depth}))
            r = synth_json(algorithm, f"q={q}", "dsp=ecp5", f"depth={depth}", "--target", "ecp5")
            rows.append(f"| {q} | {algorithm} | {depth} | {plan.latency} | {r['lut']:,} | {r['ff']:,} | {r['dsp']} | "
                        f"{r['fmax_mhz']:.1f} | {r['latency_ns']:.1f} | {r['atp']:,.0f} |")
            print(rows[-1], file=sys.stderr)
    return rows + ["", "dsp=ecp5 (18x18): the product a Karatsuba tree of three levels (130 bits, 27 multipliers) "
                   "or four (255-256 bits, 81); Montgomery adds two truncated products by constants (63 in all "
                   "at 130 bits). short: every level above the first recombined in the product's last stage, "
                   "its carry chains in series; deep: a stage a level, the roots' tops one carry-save sum, then "
                   "a carry-select adder of 96-bit segments (hw.dsp.fast_sum); a truncated product's pieces "
                   "in one such sum, and Montgomery's x added inside t q's. nextpnr at 100 MHz asked, one seed "
                   "(a few percent of noise), on the smallest LFE5U the design fills to at most 75 % (the "
                   "85k here). ATP: LUT-eq (LUT4 + FF/2 + 100 MULT18) x latency in us."]


if __name__ == "__main__":
    sys.exit(run_measured(__doc__, "Pipelined field multipliers on ECP5 (issue 37)", report,
                          "PYTHONPATH=src python3 benchmarks/prime_fields_ecp5.py -o benchmarks/prime_fields_ecp5.md"))
