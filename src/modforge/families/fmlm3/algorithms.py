"""The registered algorithms of family "fmlm3" (fft-montgomery-fmlm3-rsa.txt with errata.md):
fmlm3-transform, the FFT/FFT^-1 unit of Sec. 5.1 (Figs. 4 and 8) on its own: CT, NCT, CT^-1
or NCT^-1 of length P over Z_M, M = 2^(cP) + 1, with 1 or 2 butterfly structures, every
twiddle a shift (math.fmlm3 is the model; model.TransformPlan the architecture).

Frames: P coefficients stream in as H = P/L beats and out the same way, L = 2 bfs: lane l
(bits [l (K+1), (l+1)(K+1))) of beat k is coefficient Lk + l, natural order on both sides
(the unit permutes to bit-reversed order as it loads), K = cP, each coefficient in [0, M).
"""

from __future__ import annotations

import dataclasses
import random
from fractions import Fraction
from typing import Literal

from ...errors import ParameterError
from ...math.primes import is_prime
from ...registry import POW2, Algorithm, Computes, Operand, param, register
from . import hw
from .model import KIND_CODES, TransformPlan

PAPER = ("Dai, Chen, Cheung, Koc, Area-time Efficient Architecture of FFT-based Montgomery Multiplication "
         "(fft-montgomery-fmlm3-rsa.txt), Sec. 5.1, Figs. 4 and 8, eqs. (7)-(9), (28)-(29)")
MIN_P, MAX_P, MAX_C, MAX_K = 8, 1024, 64, 4096

CONGRUENCE = {
    "ct": "X_n = sum_k x_k omega^(-kn) mod M (CT, eq. 5 with A = 1)",
    "nct": "X_n = sum_k x_k A^k omega^(-kn) mod M (NCT, eq. 5)",
    "ct_inv": "x_n = P^-1 sum_k X_k omega^(kn) mod M (CT^-1)",
    "nct_inv": "x_n = (A^n P)^-1 sum_k X_k omega^(kn) mod M (NCT^-1, eq. 5)",
}


@dataclasses.dataclass(frozen=True)
class TransformParams:
    P: int = param(32, kind=POW2, help=f"transform length P = 2^v, {MIN_P}..{MAX_P}")
    c: str = param("1", help=f"ring parameter: M = 2^(cP) + 1, c = 1/2 or an integer 1..{MAX_C} (omega = 2^(2c), "
                             "A = 2^c; c = 1/2: omega = 2, A = sqrt(2) = 2^(3P/8) - 2^(P/8))")
    kind: Literal["ct", "nct", "ct_inv", "nct_inv", "any"] = param(
        "ct", help="the transform: ct (CT), nct (NCT), ct_inv (CT^-1), nct_inv (NCT^-1), or any: each frame "
                   "names its own (a 2-bit kind field, the codes 0-3 in this order: the one unit of Algorithms "
                   "2 and 3)")
    bfs: Literal[1, 2] = param(1, help="butterfly structures: 1 or 2 (L = 2 bfs coefficients a cycle and a beat)")


@register
class Transform(Algorithm):
    name = "fmlm3-transform"
    family = "fmlm3"
    title = "FMLM3 FFT/FFT^-1 unit: constant-geometry shift-only NWT over Z_(2^(cP)+1), 1 or 2 butterflies"
    paper = PAPER
    Params = TransformParams
    frames = True
    parallelism = "bfs"

    # --- parameters -------------------------------------------------------------------
    def validate(self, params):
        P = params.P
        if not MIN_P <= P <= MAX_P:
            raise ParameterError(self.name, "P", f"must be a power of two in {MIN_P}..{MAX_P}", P)
        text = params.c.strip()
        if text in ("1/2", "0.5"):
            return dataclasses.replace(params, c="1/2")
        if not text.isdigit() or not 1 <= int(text) <= MAX_C:
            raise ParameterError(self.name, "c", f"must be 1/2 or an integer in 1..{MAX_C}", params.c)
        if int(text) * P > MAX_K:
            raise ParameterError(self.name, "c", f"must keep the ring's K = cP at most {MAX_K} (P={P})", params.c)
        return dataclasses.replace(params, c=str(int(text)))

    def derive(self, params) -> TransformPlan:
        return TransformPlan(params.P, Fraction(params.c), params.kind, params.bfs)

    def width(self, params) -> int:
        return self.derived(params).K + 1

    # --- frames -----------------------------------------------------------------------
    def frame_beats(self, params):
        return self.derived(params).H

    def pack(self, params, coeffs) -> list[int]:
        L, w = self.derived(params).lanes, self.width(params)
        return [sum(x << (lane * w) for lane, x in enumerate(coeffs[k * L:(k + 1) * L]))
                for k in range(len(coeffs) // L)]

    def in_beats(self, params, operands):
        """kind = any: the kind code rides with every beat (the unit reads the first's)."""
        extra = tuple(operands[1:])
        return [(beat, *extra) for beat in self.pack(params, operands[0])]

    def out_beats(self, params, result):
        return self.pack(params, result)

    def lanes(self, params) -> str:
        L, w = self.derived(params).lanes, self.width(params)
        return (f"{L} lanes of {w}-bit unsigned coefficients: beat k, lane l (bits [{w}l, {w}(l+1))) is "
                f"coefficient {L}k + l (natural order)")

    def operands(self, params):
        plan = self.derived(params)
        x = Operand("x", plan.lanes * self.width(params), self.lanes(params), f"each coefficient < M = 2^{plan.K}+1")
        if not plan.kind_bits:
            return [x]
        return [x, Operand("kind", plan.kind_bits, "0 ct, 1 nct, 2 ct_inv, 3 nct_inv; read with the frame's first "
                           "beat", "0..3")]

    def result_width(self, params):
        return self.derived(params).lanes * self.width(params)

    def result(self, params):
        plan = self.derived(params)
        return Operand("c", self.result_width(params), self.lanes(params), f"each coefficient < M = 2^{plan.K}+1")

    # --- mathematics ------------------------------------------------------------------
    def model(self, params, x, kind=None):
        """math.fmlm3's ct, nct, ct_inv or nct_inv (its congruence: `congruence`); kind = any:
        the one the frame's code names."""
        return self.derived(params).run(x, None if kind is None else list(KIND_CODES)[kind])

    def congruence(self, params):
        plan = self.derived(params)
        A = f"2^{3 * params.P // 8} - 2^{params.P // 8}" if params.c == "1/2" else f"2^{params.c}"
        omega = "2" if params.c == "1/2" else f"2^{2 * int(params.c)}"
        what = ("by the frame's kind code: " + "; ".join(f"{code}: {CONGRUENCE[k]}" for k, code in KIND_CODES.items())
                if params.kind == "any" else CONGRUENCE[params.kind])
        return (f"{what}, n = 0..{params.P - 1}, M = 2^{plan.K}+1, omega = {omega}, A = {A}, "
                "natural order in and out")

    def computes(self, params):
        M = self.derived(params).ring.M
        return Computes("Z_q", M, 1, "", is_prime(M), ("P", "c"))

    def random_operands(self, params, rng: random.Random):
        plan = self.derived(params)
        x = [rng.randrange(plan.ring.M) for _ in range(params.P)]
        return (x, rng.randrange(4)) if plan.kind_bits else (x,)

    def cases(self, params):
        """Zeros, all M-1 = 2^K (the one value with bit K set), all 2^K - 1, 1 = x_0, x_(P-1),
        alternating 0 / M-1."""
        plan = self.derived(params)
        P, top = params.P, 1 << plan.K
        xs = [[0] * P, [top] * P, [top - 1] * P, [1] + [0] * (P - 1), [0] * (P - 1) + [1],
              [top * (i & 1) for i in range(P)]]
        if not plan.kind_bits:
            return [(x,) for x in xs]
        return [(x, code) for x in xs for code in range(4)]

    # --- hardware ---------------------------------------------------------------------
    def build(self, params):
        return hw.TransformCore(self.derived(params))

    def cycles(self, params):
        """C = (v-1) G + H + Dw, the transform from its first issue to its last write
        (model.TransformPlan: G = max(H, H/2 + Dw + 1), H = P/(2 bfs), Dw the issue-to-write
        pipeline)."""
        return self.derived(params).compute_cycles()

    def latency(self, params):
        """H + C + 3: see model.TransformPlan.latency."""
        return self.derived(params).latency()

    def initiation_interval(self, params):
        """2H + C: see model.TransformPlan.initiation_interval."""
        return self.derived(params).initiation_interval()

    def tag(self, params):
        c = "h" if params.c == "1/2" else params.c
        return f"p{params.P}_c{c}_{params.kind}_bfs{params.bfs}"

    def grid(self):
        return [
            {"P": "16", "c": "1", "kind": "ct", "bfs": "1"},
            {"P": "16", "c": "1/2", "kind": "nct", "bfs": "2"},          # sqrt(2) in the butterflies
            {"P": "32", "c": "1/2", "kind": "nct_inv", "bfs": "1"},      # sqrt(2) in the FSOs
            {"P": "32", "c": "3", "kind": "any", "bfs": "2"},            # every kind, chosen per frame
            {"P": "16", "c": "1/2", "kind": "any", "bfs": "2"},
        ]

    def extended_grid(self):
        # Table 6's transforms: l = 2048 with P = 64, c = 2 and P = 128, c = 1/2 (u = 32, 16)
        return [{"P": P, "c": c, "kind": kind, "bfs": bfs} for P, c in (("64", "2"), ("128", "1/2"))
                for kind in ("ct", "nct_inv", "any") for bfs in ("1", "2")]

    def extra_info(self, params):
        plan = self.derived(params)
        return {
            "K": plan.K, "M": f"2^{plan.K}+1", "lanes": plan.lanes, "issues_per_stage_H": plan.H,
            "stage_gap_G": plan.gap, "write_delay_Dw": plan.write_delay,
            "butterfly_depth": plan.butterfly_depth, "fso_depth": plan.fso_depth,
            "sqrt2_butterflies": plan.butterfly_sqrt2, "sqrt2_fso": plan.fso_sqrt2,
            "cycles_formula": "C = (v-1) G + H + Dw, G = max(H, H/2 + Dw + 1), H = P/(2 bfs)",
            "paper_eq29_cycles": plan.paper_cycles(),
            "rams": f"2 groups x {plan.lanes} banks x {plan.H} words of {plan.K + 1} bits",
        }

