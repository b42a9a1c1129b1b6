"""rsa-montgomery as issue 37's iterative field multiplier on xcup (Yosys synth_xilinx,
modforge's flow), against the iterative anchor: a 256-bit DSP-cascade Montgomery multiplier on
UltraScale+ (published: 16 DSP, 1,526 LUT, 3,155 FF, a product per 36 cycles; folded 5 DSP,
542 LUT, 171 cycles). LUT x II is the area-time product of the brief (II: the cycles between
products; a product's first input beat to its last output beat is `cycles`). The 256-bit
points face the anchors; secp256k1, BLS12-381 and P-521 follow at the best 256-bit setting.
Then ECP5 (nextpnr place and route: Fmax).

    PYTHONPATH=src python3 benchmarks/iterative_fields.py [-o benchmarks/iterative_fields.md]

Each point is `modforge synth rsa-montgomery modulus=... --target xcup` (10 to 40 s each), or
`--target ecp5 --freq 200` (20 s to a few minutes).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _compare import run_measured, synth_json  # noqa: E402
from rsa_montgomery import measure  # noqa: E402

ANCHORS = {"cascade": (1526, 36), "folded": (542, 171)}      # (LUT, cycles a product)
POINTS = ["modulus=p256 w=16 pe=1", "modulus=p256 w=16 pe=1 fixed=1", "modulus=p256 w=32 pe=1",
          "modulus=p256 w=32 pe=1 fixed=1", "modulus=p256 w=32 pe=2 fixed=1", "modulus=p256 w=32 pe=8 fixed=1",
          "modulus=p256 w=64 pe=1 fixed=1", "modulus=p256 w=64 pe=2 fixed=1", "modulus=p256 w=64 pe=4 fixed=1",
          "modulus=25519 w=32 pe=1 fixed=1",
          "modulus=p256 w=16 pe=1 fixed=1 banks=2", "modulus=p256 w=32 pe=1 fixed=1 banks=2",
          "modulus=p256 w=32 pe=2 fixed=1 banks=2", "modulus=p256 w=32 pe=8 fixed=1 banks=2",
          "modulus=p256 w=64 pe=1 fixed=1 banks=2", "modulus=25519 w=32 pe=1 fixed=1 banks=2",
          "modulus=secp256k1 w=32 pe=1 fixed=1 banks=2", "modulus=bls12-381 w=32 pe=1 fixed=1 banks=2",
          "modulus=p521 w=32 pe=1 fixed=1 banks=2"]
#: on ECP5 (dsp=ecp5: 18x18 multipliers), 200 MHz asked
ECP5_POINTS = ["modulus=p256 w=16", "modulus=p256 w=16 fixed=1", "modulus=p256 w=32 fixed=1",
               "modulus=p256 w=32 pe=2 fixed=1", "modulus=p256 w=16 fixed=1 banks=2",
               "modulus=p256 w=32 fixed=1 banks=2", "modulus=25519 w=32 fixed=1 banks=2",
               "modulus=secp256k1 w=32 fixed=1 banks=2", "modulus=bls12-381 w=32 fixed=1 banks=2",
               "modulus=p521 w=32 fixed=1 banks=2"]


def report() -> list[str]:
    rows = ["II: cycles between products (the anchors' \"one product per 36 / 171 cycles\"); cycles: one product's "
            "first input beat to its last output beat (load and read-out of s = l/w words included). fixed=1: the "
            "build's prime for good (no cfg stream, N in a ROM); for P-256 and P-521 N' = -N^-1 mod 2^w = 1 at w = "
            "16, 32, 64, so m = t_0 + x_i y_0 needs no product by N' (the Montgomery-friendly fast path); the other "
            "primes have no such form (their fixed=1 rows keep them).", "",
            "| configuration | LUT | LUT-RAM/SRL | FF | DSP | II | cycles | LUT x II | / cascade | / folded "
            "| (LUT + LUT-RAM) x II | / cascade | / folded |", "|---" * 13 + "|"]
    for args in POINTS:
        r = measure(args)
        cells = []
        for luts in (r["lut"], r["lut"] + r["lutram"]):
            atp = luts * r["initiation_interval"]
            cells.append(f"{atp:,} | " + " | ".join(f"{atp / (lut * cycles):.2f}" for lut, cycles in ANCHORS.values()))
        rows.append(f"| {args} | {r['lut']:,} | {r['lutram']:,} | {r['ff']:,} | {r['dsp']} | "
                    f"{r['initiation_interval']} | {r['cycles']} | {' | '.join(cells)} |")
        print(rows[-1], file=sys.stderr)
    cascade, folded = (lut * cycles for lut, cycles in ANCHORS.values())
    return rows + ["", f"Anchor LUT x cycles: cascade 1,526 x 36 = {cascade:,}, folded 542 x 171 = {folded:,} "
                   "(published figures, Vivado; ours: Yosys synth_xilinx, no place and route; no BRAM in any "
                   "point). / cascade, / folded: our area x II over theirs (below 1: smaller). LUT-RAM/SRL: the "
                   "LUTs of distributed RAMs and shift registers, counted apart from LUT; the second product "
                   "adds them (Vivado's LUT count includes LUTs as memory).", "",
                   "## ECP5 (nextpnr place and route, 200 MHz asked)", "",
                   "    PYTHONPATH=src modforge synth rsa-montgomery <configuration> dsp=ecp5 --target ecp5 --freq 200",
                   ""] + ecp5()


def ecp5() -> list[str]:
    rows = ["| configuration | LUT4 | FF | MULT18 | Fmax MHz | II | cycles | II / Fmax (ns) |", "|---" * 8 + "|"]
    for args in ECP5_POINTS:
        r = synth_json("rsa-montgomery", *args.split(), "dsp=ecp5", "--target", "ecp5", "--freq", "200")
        ii = r["initiation_interval"]
        rows.append(f"| {args} | {r['lut']:,} | {r['ff']:,} | {r['dsp']} | {r['fmax_mhz']:.1f} | {ii} | "
                    f"{r['cycles']} | {1000 * ii / r['fmax_mhz']:,.0f} |")
        print(rows[-1], file=sys.stderr)
    return rows + ["", "The smallest LFE5U the design fits (25k here), one placement each: a few percent of noise. "
                   "II / Fmax: the time between products."]


if __name__ == "__main__":
    sys.exit(run_measured(__doc__, "rsa-montgomery as an iterative field multiplier (xcup, ECP5)", report,
                          "PYTHONPATH=src python3 benchmarks/iterative_fields.py -o benchmarks/iterative_fields.md"))
