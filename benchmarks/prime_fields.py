"""The field multipliers of issue 37 on xcup, 256 to 521 bits (Yosys synth_xilinx, modforge's flow):
LUT, FF, DSP, BRAM and latency of every reduction that applies, side by side, so a user sees
what the prime's form buys; with the DSPs of the product a*b alone (the Karatsuba count) and
the whole multiplier's DSPs over it (the issue's targets: at most 2x for a generic q, 1.2x
for a special form).

    PYTHONPATH=src python3 benchmarks/prime_fields.py [-o benchmarks/prime_fields.md]

Each point is `modforge synth <algorithm> q=<name> --target xcup` (minutes each: the
256-bit Karatsuba trees are large). No ECP5 place and route (too slow at these sizes).
The second table: the squarer (op=square: a^2, hw.dsp's Karatsuba square tree) beside the
multiplier, one reduction per prime (the multipliers of the first table come from the
synthesis cache). The third: dsp_budget=2x the product's DSPs (the issue's target for a
generic q), the constants' cheapest tiles by shift-adds in logic, beside no budget. ECP5
(place and route, Fmax, depth=deep): prime_fields_ecp5.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _compare import run_measured, synth_json  # noqa: E402
from modforge.registry import lookup  # noqa: E402

POINTS = [("modmul-field-montgomery", "p256"), ("modmul-field-barrett", "p256"), ("modmul-solinas", "p256"),
          ("modmul-field-barrett", "secp256k1"), ("modmul-pseudo-mersenne", "secp256k1"),
          ("modmul-pseudo-mersenne", "25519"), ("modmul-field-montgomery", "bn254"),
          ("modmul-field-montgomery", "bls12-377"), ("modmul-field-montgomery", "bls12-381"),
          ("modmul-field-barrett", "bls12-381"), ("modmul-pseudo-mersenne", "p521")]


#: the squarer against the multiplier: one reduction per prime (its special form where it has one)
SQUARE_POINTS = [("modmul-solinas", "p256"), ("modmul-pseudo-mersenne", "secp256k1"),
                 ("modmul-pseudo-mersenne", "25519"), ("modmul-field-montgomery", "bls12-381")]


#: the DSP budget at the issue's 2x the product's DSPs, for the generic primes above it
BUDGET_POINTS = [("modmul-field-montgomery", "bn254"), ("modmul-field-montgomery", "bls12-381"),
                 ("modmul-field-barrett", "bls12-381")]


def measure(algorithm: str, q: str, *args: str, target: str = "xcup") -> dict:
    return synth_json(algorithm, f"q={q}", *args, "--target", target)


def squares() -> list[str]:
    rows = ["| prime | algorithm | op | latency | LUT | FF | DSP | DSP of the product | LUT square / mul |",
            "|---|---|---|---|---|---|---|---|---|"]
    for algorithm, q in SQUARE_POINTS:
        alg, luts = lookup(algorithm), {}
        for op in ("mul", "square"):
            plan = alg.derived(alg.parse({"q": q, "op": op}))
            r = measure(algorithm, q, f"op={op}")
            luts[op] = r["lut"]
            ratio = f"{luts['square'] / luts['mul']:.2f}" if op == "square" else ""
            rows.append(f"| {q} | {algorithm} | {op} | {plan.latency} | {r['lut']:,} | {r['ff']:,} | {r['dsp']} | "
                        f"{plan.multiplications[0][-1]} | {ratio} |")
            print(rows[-1], file=sys.stderr)
    return rows + ["", "op=square: one operand; the product a^2 a Karatsuba square tree (three squares a level, the "
                   "middle (a0 + a1)^2, the leaves' partial products a_i a_j once, doubled by their shift), its "
                   "levels the fewest DSPs (karatsuba_square_levels), the reduction as the multiplier's. On "
                   "26x17 the square tree needs the product's DSPs (81 at 256 bits, 162 at 381): a one-DSP leaf "
                   "squares at the same cost, a symmetric leaf of 2 chunks (32 bits: 3 DSPs) what a Karatsuba "
                   "level over one-DSP leaves does, one of 3 chunks (48 bits: 6) what the plain 26x17 tiling of "
                   "the product's 48-bit leaf does. The squarer saves LUTs and FFs: half the leaf operand "
                   "registers, one adder a middle (a0 + a1) instead of two differences, and at 256 bits one "
                   "level fewer (3, 32- to 34-bit leaves). Where the product's leaves are several tiles it saves "
                   "DSPs too: 381 bits on the ECP5 profile (18x18), 162 against 243 (plan counts, design.json "
                   "dsp_multiplications). Montgomery's two products by constants are the squarer's too: at 381 "
                   "bits 0.94 of the multiplier's LUTs."]


def budgets() -> list[str]:
    rows = ["| prime | algorithm | dsp_budget | LUT | FF | DSP | DSP / a*b's | tiles in logic | their adders | "
            "LUT-eq |", "|---|---|---|---|---|---|---|---|---|---|"]
    for algorithm, q in BUDGET_POINTS:
        alg = lookup(algorithm)
        product = alg.derived(alg.parse({"q": q})).multiplications[0][-1]
        for budget in (0, 2 * product):
            plan = alg.derived(alg.parse({"q": q, "dsp_budget": str(budget)}))
            r = measure(algorithm, q, f"dsp_budget={budget}")
            eq = r["lut"] + r["ff"] / 2 + 100 * r["dsp"]
            rows.append(f"| {q} | {algorithm} | {budget or 'none'} | {r['lut']:,} | {r['ff']:,} | {r['dsp']} | "
                        f"{r['dsp'] / product:.2f} | {plan.logic_tiles} | {plan.logic_adders} | {eq:,.0f} |")
            print(rows[-1], file=sys.stderr)
    return rows + ["", "dsp_budget=N: at most N DSPs; the tiles of the reduction's products by constants (q, q', "
                   "mu), each a DSP, move into logic one constant chunk at a time, the fewest adder bits a tile "
                   "first (hw.dsp.cheapest_logic): x_chunk * c as the shifted x_chunk of c's signed digits "
                   "summed (non-adjacent form, digits - 1 adders, hw.dsp.constant_product), in the DSP's stage. "
                   "Without a budget only one-digit chunks (shifts) leave the DSPs. tiles in logic, their "
                   "adders: the plan's (design.json logic_tiles). LUT-eq: LUT + FF/2 + 100 DSP."]


def report() -> list[str]:
    rows = ["| prime | algorithm | latency | LUT | FF | DSP | BRAM | DSP of a*b | DSP / a*b's |",
            "|---|---|---|---|---|---|---|---|---|"]
    for algorithm, q in POINTS:
        alg = lookup(algorithm)
        plan = alg.derived(alg.parse({"q": q}))
        product = plan.multiplications[0][-1]
        r = measure(algorithm, q)
        rows.append(f"| {q} | {algorithm} | {plan.latency} | {r['lut']:,} | {r['ff']:,} | {r['dsp']} | {r['bram']} | "
                    f"{product} | {r['dsp'] / product:.2f} |")
        print(rows[-1], file=sys.stderr)
    return rows + ["", "dsp=dsp48e2 (26x17 unsigned, 27x18 signed): every product a Karatsuba tiling, its levels "
                   "the fewest DSPs (karatsuba_levels); the reduction's constant products truncated (hw.wide): "
                   "the low halves (Montgomery's t = x q' mod 2^k, Barrett's q3 q mod 2^(k+2)) a whole product "
                   "and two low halves, split where that needs the fewest DSPs (at 381 bits 115 instead of 162), "
                   "the tops (Montgomery's t q, Barrett's q3) the same pieces read backwards, with an error "
                   "under 2^k that the exact low half of x + t q (zero) removes, or that one more conditional "
                   "subtraction of Barrett's takes (119). Latency in cycles, one product a cycle. The plan "
                   "(design.json dsp_total) counts the constants' nonzero tiles of more than one signed digit "
                   "(Montgomery 137 at p256, 207 at bn254, 392 at bls12-381; Barrett 157, 126, 396), Yosys a "
                   "few fewer where a tile's x chunk is partly zero (the top's padding). "
                   "Before the truncated products (whole products for t q and q3, a whole one for the low "
                   "halves at these sizes; same flow): p256 Montgomery 138 DSP, 19,295 LUT, 14,173 FF; p256 "
                   "Barrett 156, 21,834, 15,428; secp256k1 Barrett 147, 19,585, 13,876; bn254 Montgomery 243 "
                   "(3.00x), 24,494, 18,812; bls12-381 Montgomery 470 (2.90x), 36,668, 19,221. At 381 bits "
                   "the DSPs fall by 81 and the LUTs and FFs rise by 6 % and 25 % (15 pieces a truncated product, "
                   "whose Karatsuba trees register more leaf operands, leaf products and nodes than one tree; "
                   "capped at 7 pieces: 401 DSP, 39,152 LUT, 23,733 FF), 89,859 LUT-equivalents against 93,279 "
                   "(LUT + FF/2 + 100 DSP); at 254 and 256 bits all three fall. bls12-377, the anchor's prime: "
                   "the product at the anchor's 162 DSP, the whole Montgomery multiplier at 377 (2.33x; q = 1 mod "
                   "2^46, so q's low chunks are zero and fold). The issue's 2x for a generic q is "
                   "not reached (2.40 at 381 bits, 2.56 at 254): a truncated product takes 0.71 to 0.79 of a whole "
                   "one here (115 and 119 of 162 at 381 bits; a three-way split as the anchor's, 121 to 125), and "
                   "a larger error left to more corrections brings the top only down to the low half's 115: 2x "
                   "needs the two products by constants at half a product each, what schoolbook truncation "
                   "saves; a Karatsuba short product tends to about 0.81 of a whole one (Mulders' short "
                   "product, docs/references.md#mulders-2000), so for a q without structure 2x is below what "
                   "truncated tiled products reach: "
                   "it takes constants cheap outside the DSPs (the anchor's low-weight constants in LUTs): "
                   "dsp_budget, the third table. "
                   "Tried and not kept: each of the top's pieces floored where together they lose under half "
                   "the error (the adders below the floor gone, g for the other half): bls12-381 Montgomery "
                   "38,651 LUT, 23,803 FF, 391 DSP; bn254 20,224, 14,007, 208; p256 18,038, 12,919, 134: within "
                   "1 % either way and a DSP or two more. "
                   "Fmax: xcup has no place and route here (Yosys only); ECP5 in prime_fields_ecp5.md. With "
                   "depth=short ECP5 does not route these sizes: `modforge synth modmul-pseudo-mersenne "
                   "q=25519 dsp=ecp5 --target ecp5-static` fills an LFE5U-85F to 20 % of its LUTs (17,426) and 51 % "
                   "of its multipliers (81), and nextpnr's router still had 43,351 overused wires after 124,000 "
                   "iterations (31 minutes; 46,355 at 109,000); depth=deep routes it.", "",
                   "## The squarer against the multiplier (op=square)", ""] + squares() + [
                   "", "## A DSP budget: the constants' cheapest tiles in logic (dsp_budget)", ""] + budgets()


if __name__ == "__main__":
    sys.exit(run_measured(__doc__, "Field multipliers on xcup, 256 to 521 bits (issue 37)", report))
