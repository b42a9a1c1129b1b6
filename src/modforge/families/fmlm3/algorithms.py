"""The registered algorithms of family "fmlm3" (Dai et al. 2017 with docs/corrections.md):
fmlm3-transform, the FFT/FFT^-1 unit of Sec. 5.1 (Figs. 4 and 8) on its own: CT, NCT, CT^-1
or NCT^-1 of length P over Z_M, M = 2^(cP) + 1, with 1 or 2 butterfly structures, every
twiddle a shift (math.fmlm3 is the model; plan.TransformPlan the architecture and its timing).

Frames: P coefficients stream in as H = P/L beats and out the same way, L = 2 bfs: lane l
(bits [l (K+1), (l+1)(K+1))) of beat k is coefficient Lk + l, natural order on both sides
(the unit permutes to bit-reversed order as it loads), K = cP, each coefficient in [0, M).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import random
from fractions import Fraction
from typing import Any, Literal

from amaranth.lib import data

from ...errors import ParameterError
from ...hw.dsp import DSP_HELP, Dsp
from ...math import fmlm3
from ...math.primes import is_prime
from ...registry import POW2, Algorithm, Computes, Operand, layout, param, register
from . import hw, model
from .model import Context, default_modulus
from .multiplier_hw import MultiplierCore
from .plan import KIND_CODES, MultiplierPlan, TransformPlan

PAPER = ("Dai, Chen, Cheung, Koc, Area-Time Efficient Architecture of FFT-Based Montgomery Multiplication, "
         "IEEE Trans. Computers 2017, Sec. 5.1, Figs. 4 and 8, eqs. (7)-(9), (28)-(29)")
MIN_P, MAX_P, MAX_C, MAX_K = 8, 1024, 64, 4096
BUTTERFLY_DEEP = ("no stage with two carry chains in series (a PowerMul's lo/hi mask registered beside its "
                  "rotation, its subtraction and its fold mod M in two stages, a fixed shift's alike: a cycle more "
                  "a butterfly, one more with sqrt(2) twiddles, one more with a fixed shift)")

CONGRUENCE = {
    "ct": "X_n = sum_k x_k omega^(-kn) mod M (CT, eq. 5 with A = 1)",
    "nct": "X_n = sum_k x_k A^k omega^(-kn) mod M (NCT, eq. 5)",
    "ct_inv": "x_n = P^-1 sum_k X_k omega^(kn) mod M (CT^-1)",
    "nct_inv": "x_n = (A^n P)^-1 sum_k X_k omega^(kn) mod M (NCT^-1, eq. 5)",
}


def lanes_text(plan: TransformPlan) -> str:
    """The encoding of a beat of coefficients."""
    L, w = plan.lanes, plan.K + 1
    return (f"{L} lanes of {w}-bit unsigned coefficients: beat k, lane l (bits [{w}l, {w}(l+1))) is "
            f"coefficient {L}k + l (natural order)")


def transform_beat(plan: TransformPlan) -> list[Operand]:
    """A transform unit's input beat: L coefficient lanes, then (kind = any) the kind code; the
    fmlm3-transform stream and the multiplier's unit alike (hw.TransformCore reads it by name)."""
    x = Operand("x", plan.lanes * (plan.K + 1), lanes_text(plan), f"each coefficient < M = 2^{plan.K}+1", plan.lanes)
    if not plan.kind_bits:
        return [x]
    return [x, Operand("kind", plan.kind_bits, "0 ct, 1 nct, 2 ct_inv, 3 nct_inv; read with the frame's first "
                       "beat", "0..3")]


def transform_result(plan: TransformPlan) -> Operand:
    """A transform unit's output beat: L coefficient lanes."""
    return Operand("c", plan.lanes * (plan.K + 1), lanes_text(plan), f"each coefficient < M = 2^{plan.K}+1", plan.lanes)


def unit_layouts(plan: TransformPlan) -> tuple[data.StructLayout, data.StructLayout]:
    """The input and output layouts of a transform unit of `plan` (hw.TransformCore)."""
    return layout(transform_beat(plan)), layout([transform_result(plan)])


@dataclasses.dataclass(frozen=True)
class TransformParams:
    P: int = param(32, kind=POW2, help="transform length P = 2^v", lo=MIN_P, hi=MAX_P)
    c: str = param("1", help=f"ring parameter: M = 2^(cP) + 1, c = 1/2 or an integer 1..{MAX_C} (omega = 2^(2c), "
                             "A = 2^c; c = 1/2: omega = 2, A = sqrt(2) = 2^(3P/8) - 2^(P/8))")
    kind: Literal["ct", "nct", "ct_inv", "nct_inv", "any"] = param(
        "ct", help="the transform: ct (CT), nct (NCT), ct_inv (CT^-1), nct_inv (NCT^-1), or any: each frame "
                   "names its own (a 2-bit kind field, the codes 0-3 in this order: the one unit of Algorithms "
                   "2 and 3)")
    bfs: Literal[1, 2] = param(1, help="butterfly structures: 1 or 2 (L = 2 bfs coefficients a cycle and a beat)")
    depth: Literal["short", "deep"] = param(
        "short", help=f"the butterflies' pipeline: short, a subtraction and its fold mod M in one stage; deep, "
                      f"{BUTTERFLY_DEEP}, for devices with slow carry chains (ECP5)")


@register
class Transform(Algorithm[TransformParams, TransformPlan]):
    name = "fmlm3-transform"
    family = "fmlm3"
    title = "FMLM3 FFT/FFT^-1 unit: constant-geometry shift-only NWT over Z_(2^(cP)+1), 1 or 2 butterflies"
    paper = PAPER
    Params = TransformParams
    frames = True
    parallelism = "bfs"

    # --- parameters -------------------------------------------------------------------
    def validate(self, params: TransformParams) -> TransformParams:
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

    def derive(self, params: TransformParams) -> TransformPlan:
        return TransformPlan(params.P, Fraction(params.c), params.kind, params.bfs, params.depth == "deep")

    def width(self, params: TransformParams) -> int:
        return self.derived(params).K + 1

    # --- frames -----------------------------------------------------------------------
    def pack(self, params: TransformParams, coeffs: list[int]) -> list[int]:
        L, w = self.derived(params).lanes, self.width(params)
        return [sum(x << (lane * w) for lane, x in enumerate(coeffs[k * L:(k + 1) * L]))
                for k in range(len(coeffs) // L)]

    def in_beats(self, params: TransformParams, operands: tuple[Any, ...]) -> list[tuple[int, ...]]:
        """kind = any: the kind code rides with every beat (the unit reads the first's)."""
        extra = tuple(operands[1:])
        return [(beat, *extra) for beat in self.pack(params, operands[0])]

    def out_beats(self, params: TransformParams, result: list[int]) -> list[int]:
        return self.pack(params, result)

    def operands(self, params: TransformParams) -> list[Operand]:
        return transform_beat(self.derived(params))

    def result_width(self, params: TransformParams) -> int:
        return self.derived(params).lanes * self.width(params)

    def result(self, params: TransformParams) -> Operand:
        return transform_result(self.derived(params))

    # --- mathematics ------------------------------------------------------------------
    def model(self, params: TransformParams, *operands: Any) -> list[int]:
        """math.fmlm3's ct, nct, ct_inv or nct_inv (its congruence: `congruence`); kind = any:
        the one the frame's code names (the second operand)."""
        x, *code = operands
        return model.transform(self.derived(params), x, list(KIND_CODES)[code[0]] if code else None)

    def congruence(self, params: TransformParams) -> str:
        plan = self.derived(params)
        A = f"2^{3 * params.P // 8} - 2^{params.P // 8}" if params.c == "1/2" else f"2^{params.c}"
        omega = "2" if params.c == "1/2" else f"2^{2 * int(params.c)}"
        what = ("by the frame's kind code: " + "; ".join(f"{code}: {CONGRUENCE[k]}" for k, code in KIND_CODES.items())
                if params.kind == "any" else CONGRUENCE[params.kind])
        return (f"{what}, n = 0..{params.P - 1}, M = 2^{plan.K}+1, omega = {omega}, A = {A}, "
                "natural order in and out")

    def computes(self, params: TransformParams) -> Computes:
        M = self.derived(params).ring.M
        return Computes("Z_q", M, 1, "", is_prime(M), ("P", "c"))

    def random_operands(self, params: TransformParams, rng: random.Random) -> tuple[Any, ...]:
        plan = self.derived(params)
        x = [rng.randrange(plan.ring.M) for _ in range(params.P)]
        return (x, rng.randrange(4)) if plan.kind_bits else (x,)

    def cases(self, params: TransformParams) -> list[tuple[Any, ...]]:
        """Zeros, all M-1 = 2^K (the one value with bit K set), all 2^K - 1, 1 = x_0, x_(P-1),
        alternating 0 / M-1."""
        plan = self.derived(params)
        P, top = params.P, 1 << plan.K
        xs = [[0] * P, [top] * P, [top - 1] * P, [1] + [0] * (P - 1), [0] * (P - 1) + [1],
              [top * (i & 1) for i in range(P)]]
        if not plan.kind_bits:
            return [(x,) for x in xs]
        return [(x, code) for x in xs for code in range(4)]

    # --- formal reference (modforge prove) ----------------------------------------------
    formal = True
    MAX_PROOF_K = 8        # P = 16, c = 1/2 and P = 8, c = 1 (c = 1/2 at P = 8: K = 4)

    def reference(self, params: TransformParams) -> str:
        """ok iff every result coefficient X_n (bits [n(K+1), (n+1)(K+1)), natural order) is
        canonical, in [0, M), and X_n = sum_k x_k omega^(-kn) (CT), sum_k x_k A^k omega^(-kn) (NCT),
        P^-1 sum_k x_k omega^(kn) (CT^-1) or (A^n P)^-1 sum_k x_k omega^(kn) (NCT^-1) mod M,
        omega = A^2, for operand coefficients x_k < M in natural order (in_domain).

        Written from the sums, not from the unit: every kind is an evaluation X_n = sum_k x_k z_n^k
        at z_n = A^(-2n) (CT), A^(1-2n) (NCT) or A^(2n) (the inverses), then times P^-1 or
        (A^n P)^-1. Radix-2 decimation in time splits x into its even and odd halves
        E, O, the same evaluation at z_n^2: X_n = E_n + z_n O_n and X_(n+m/2) = E_n - z_n O_n
        (z_(n+m/2) = -z_n, as A^P = -1). Unrolled with bit-reversed input, stage s (span m = 2^s,
        J = P/m) takes (u, v) at positions (i+j, i+j+m/2) to u +- v z_j^J, z_j^J = A^e a constant
        mod M, e = -2jJ, (1-2j)J or 2jJ; every value `% M`. Its internal values are the partial
        transforms the unit keeps in its RAMs, which ABC's SAT sweeping pairs up."""
        P, plan = params.P, self.derived(params)
        if plan.K > self.MAX_PROOF_K:
            raise ParameterError("prove", "c", f"must keep K = cP at most {self.MAX_PROOF_K} for a bounded proof "
                                 f"(P={P})", f"{params.c} (K={plan.K})")
        if params.kind == "any":
            raise ParameterError("prove", "kind", "must be one transform (ct, nct, ct_inv or nct_inv)", params.kind)
        K, w, v = plan.K, plan.K + 1, P.bit_length() - 1
        M = (1 << K) + 1
        A = (1 << int(plan.c)) if plan.c.denominator == 1 else (1 << 3 * K // 4) - (1 << K // 4)  # sqrt(2), eq. 14
        assert pow(A, P, M) == M - 1         # the butterflies' +-: z_(n+m/2) = -z_n

        def times(name: str, value: str, factor: int) -> list[str]:
            """name = value * factor mod M (factor a constant in [0, M)): a shift by k when
            factor = 2^k mod M, k < 2K (the product then stays below 2^(3K+1))."""
            wide = 3 * K + 1
            shifts = [k for k in range(2 * K) if pow(2, k, M) == factor]
            product = f"{value} << {shifts[0]}" if shifts else f"{value} * {wide}'d{factor}"
            return [f"  wire [{wide - 1}:0] {name}_product = {product};",
                    f"  wire [{w - 1}:0] {name} = {name}_product % {wide}'d{M};"]

        def twiddle(j: int, J: int) -> int:
            e = {"ct": -2 * j * J, "nct": (1 - 2 * j) * J, "ct_inv": 2 * j * J, "nct_inv": 2 * j * J}[params.kind]
            return pow(A, e, M)

        lines = [f"  wire [{w - 1}:0] x{k} = operands[{k * w + w - 1}:{k * w}];" for k in range(P)]
        a = [f"x{int(f'{i:0{v}b}'[::-1], 2)}" for i in range(P)]
        for s in range(1, v + 1):
            m, out = 1 << s, list(a)
            for i in range(0, P, m):
                for j in range(m // 2):
                    top, bottom = i + j, i + j + m // 2
                    t = f"t{s}_{bottom}"
                    lines += times(t, a[bottom], twiddle(j, P // m))
                    for index, expr in ((top, f"{a[top]} + {t}"), (bottom, f"{a[top]} + {w}'d{M} - {t}")):
                        name = f"a{s}_{index}"
                        lines += [f"  wire [{w}:0] {name}_sum = {expr};",
                                  f"  wire [{w - 1}:0] {name} = {name}_sum % {w + 1}'d{M};"]
                        out[index] = name
            a = out
        if params.kind.endswith("_inv"):
            for n in range(P):
                scale = pow(P * (pow(A, n, M) if params.kind == "nct_inv" else 1), -1, M)
                lines += times(f"y{n}", a[n], scale)
                a[n] = f"y{n}"
        domain = " && ".join(f"x{k} <= {w}'d{1 << K}" for k in range(P))
        lines += [f"  assign ok = result == {{{', '.join(reversed(a))}}};", f"  assign in_domain = {domain};"]
        return "\n".join(lines) + "\n"

    # --- hardware ---------------------------------------------------------------------
    def build(self, params: TransformParams) -> hw.TransformCore:
        streams = self.plan(params)
        return hw.TransformCore(self.derived(params), (streams.input_layout, streams.output_layout))

    def tag(self, params: TransformParams) -> str:
        c = "h" if params.c == "1/2" else params.c
        return f"p{params.P}_c{c}_{params.kind}_bfs{params.bfs}" + ("_deep" if params.depth == "deep" else "")

    def grid(self) -> list[dict[str, str]]:
        return [
            {"P": "16", "c": "1", "kind": "ct", "bfs": "1"},
            {"P": "16", "c": "1/2", "kind": "nct", "bfs": "2"},          # sqrt(2) in the butterflies
            {"P": "32", "c": "1/2", "kind": "nct_inv", "bfs": "1"},      # sqrt(2) in the u scaler
            {"P": "32", "c": "3", "kind": "any", "bfs": "2"},            # every kind, chosen per frame
            {"P": "16", "c": "1/2", "kind": "any", "bfs": "2"},
            {"P": "16", "c": "1/2", "kind": "any", "bfs": "1", "depth": "deep"},
        ]

    def extended_grid(self) -> list[dict[str, str]]:
        # Table 6's transforms: l = 2048 with P = 64, c = 2 and P = 128, c = 1/2 (u = 32, 16)
        return [{"P": P, "c": c, "kind": kind, "bfs": bfs} for P, c in (("64", "2"), ("128", "1/2"))
                for kind in ("ct", "nct_inv", "any") for bfs in ("1", "2")]

    def extra_info(self, params: TransformParams) -> dict[str, Any]:
        plan = self.derived(params)
        return {
            "K": plan.K, "M": f"2^{plan.K}+1", "lanes": plan.lanes, "issues_per_stage_H": plan.H,
            "stage_gap_G": plan.gap, "write_delay_Dw": plan.write_delay,
            "butterfly_depth": plan.butterfly_depth, "sqrt2_butterflies": plan.butterfly_sqrt2,
            "u_scaler": plan.inverse, "sqrt2_u_scaler": plan.inverse and plan.scale_sqrt2,
            "o1_fixed_shift": plan.fixed_shift,
            "cycles_formula": "C = (v-1) G + H + Dw, G = max(H, H/2 + Dw + 1), H = P/(2 bfs)",
            "paper_eq29_cycles": plan.paper_cycles(),
            "rams": f"2 groups x {plan.lanes} banks x {plan.H} words of {plan.K + 1} bits",
        }


# ---------------------------------------------------------------- rsa-fmlm3

RSA_PAPER = ("Dai, Chen, Cheung, Koc, Area-Time Efficient Architecture of FFT-Based Montgomery Multiplication, "
             "IEEE Trans. Computers 2017, Algorithms 2 and 3, Sec. 5, Table 6")
MIN_L, MAX_L = 16, 8192


@dataclasses.dataclass(frozen=True)
class RsaFmlm3Params:
    l: int = param(1024,  # noqa: E741  (the paper's name for the operand bits)
                   help="operand bits (N has exactly l bits)", lo=MIN_L, hi=MAX_L)
    P: int = param(64, kind=POW2, help="transform length P = 2^v, at most l", lo=MIN_P, hi=MAX_P)
    u: int = param(0, help="digit bits (B = 2^u), u P >= l; 0: ceil(l/P)", lo=0, hi=MAX_L)
    algorithm: Literal[2, 3] = param(3, help="Algorithm 2 (9 transforms a product here, c by eq. 15) or "
                                             "3 (7 transforms, c by eq. 20)")
    c: str = param("", help="ring parameter: M = 2^(cP) + 1, c = 1/2 or a positive integer, checked against "
                            "eq. (13) (Alg 2) or (19) (Alg 3); empty: the smallest that passes")
    bfs: Literal[1, 2] = param(1, help="butterfly structures of the transform unit: 1 or 2 (L = 2 bfs digits "
                                       "a beat)")
    modulus: int = param(0, help="the modulus N after reset (odd, exactly l bits, coprime to R = 2^(uP) - 1; "
                                 "cfg loads others at run time); 0: a fixed one", lo=0, hi=(1 << MAX_L) - 1)
    domain: Literal["time", "spectral"] = param(
        "time", help="time: x, y and t as digits (7 transforms a product for Alg 3); spectral: as T(.) = CT(.), "
                     "T'(.) = NCT(.) and the parity, the form an exponentiation keeps between products "
                     "(Algorithms 2 and 3 as the paper states them: 5 transforms for Alg 3)")
    muladds: Literal["lanes", "1"] = param(
        "lanes", help="lanes: one MulAdd a lane (L = 2 bfs, 9 DSPs each for K = 64), the products riding on the "
                      "transform read-outs; 1: one shared MulAdd (the paper's), one coefficient a cycle, on the input "
                      "as it comes and on read-outs held to its pace (Table 6's set: 2,009 cycles spectral "
                      "against 1,720)")
    depth: Literal["short", "deep"] = param(
        "short", help="the MulAdds', Restrict's and the butterflies' pipelines: short (6 MulAdd stages, the levels "
                      "of its Karatsuba product above the first summed in one); deep: the inputs registered twice, "
                      "the split's top level a stage, a stage a level, the root's carry-save terms registered "
                      "before their carry-select add, the fold mod M in two (11 stages at K = 128, 12 at 224 and "
                      "288 on 18x18), Restrict's comparison and decrement in two, the stores read through a "
                      "register (a cycle more a step that reads one), segments over 128 bits added carry-select, "
                      f"and the transform's butterflies with {BUTTERFLY_DEEP}, for devices with slow carry chains "
                      "and block RAM outputs (ECP5)")
    dsp: Dsp = param("dsp48e2", help=DSP_HELP + " (the MulAdds' Karatsuba products: ecp5 for ECP5, whose 18x18 "
                                                 "multipliers a 26x17 tile takes two of)")


@register
class RsaFmlm3(Algorithm[RsaFmlm3Params, MultiplierPlan]):
    """FMLM3 Montgomery multiplication t = x y R^-1 mod N, R = 2^(uP) - 1: Algorithm 2 or 3
    run step by step around one fmlm3-transform unit (model.py: the values; plan.py and
    program.py: the plan, the program and its cycles; multiplier_hw.py: the controller)."""
    name = "rsa-fmlm3"
    family = "fmlm3"
    title = "FFT-based Montgomery multiplier (FMLM3, Algorithms 2/3) around one transform unit, N loaded at run time"
    paper = RSA_PAPER
    Params = RsaFmlm3Params
    frames = True
    config_stream = True
    parallelism = "bfs"

    # --- parameters -------------------------------------------------------------------
    def validate(self, params: RsaFmlm3Params) -> RsaFmlm3Params:
        bits, P = params.l, params.P
        if not MIN_L <= bits <= MAX_L:
            raise ParameterError(self.name, "l", f"must be in {MIN_L}..{MAX_L}", bits)
        if not MIN_P <= P <= min(MAX_P, bits):
            raise ParameterError(self.name, "P", f"must be a power of two in {MIN_P}..min({MAX_P}, l)", P)
        u = params.u or -(-bits // P)
        if params.c.strip():
            text = params.c.strip()
            if text not in ("1/2", "0.5") and not text.isdigit():
                raise ParameterError(self.name, "c", "must be 1/2 or a positive integer", params.c)
            c = Fraction(1, 2) if text in ("1/2", "0.5") else Fraction(int(text))
        else:
            v = P.bit_length() - 1
            c = fmlm3.smallest_c(v + 2 * u + 1 if params.algorithm == 2 else 2 * v + 3 * u, P)
        sets = fmlm3.check_set(bits, P, u, c, params.algorithm)
        if sets.ring.K > MAX_K:
            raise ParameterError(self.name, "c", f"must keep the ring's K = cP at most {MAX_K} (P={P})", str(c))
        width = u * P
        modulus = params.modulus or default_modulus(bits, width)
        self.check_modulus(modulus, bits, width, "modulus")
        return dataclasses.replace(params, u=u, c="1/2" if c == fmlm3.HALF else str(c), modulus=modulus)

    def check_modulus(self, modulus: int, bits: int, width: int, argument: str) -> None:
        if modulus.bit_length() != bits or not modulus & 1:
            raise ParameterError(self.name, argument, f"must be odd with exactly l={bits} bits", hex(modulus))
        if modulus >= (1 << width) - 1 or math.gcd(modulus, (1 << width) - 1) != 1:
            raise ParameterError(self.name, argument, f"must be below and coprime to R = 2^{width} - 1", hex(modulus))

    def derive(self, params: RsaFmlm3Params) -> MultiplierPlan:
        c = fmlm3.HALF if params.c == "1/2" else Fraction(int(params.c))
        return MultiplierPlan(fmlm3.check_set(params.l, params.P, params.u, c, params.algorithm), params.bfs,
                              params.domain, params.muladds == "1", params.depth == "deep", params.dsp)

    def context(self, params: RsaFmlm3Params) -> Context:
        return _context(self.derived(params), params.modulus)

    def computes(self, params: RsaFmlm3Params) -> Computes:
        # an RSA modulus is composite: Z_N is a ring (its primality is not tested)
        return Computes("Z_q", params.modulus, is_field=False, defined_by=("modulus",))

    # --- streams ----------------------------------------------------------------------
    def digits_text(self, params: RsaFmlm3Params) -> str:
        L, u = self.derived(params).lanes, params.u
        return f"{L} digits of {u} bits: beat k, lane j (bits [{u}j, {u}(j+1))) is digit {L}k + j, low digits first"

    def spectra_text(self, params: RsaFmlm3Params) -> str:
        plan = self.derived(params)
        L, w = plan.lanes, plan.K + 1
        return (f"Cat(T lanes, T' lanes, parity): beat k, lane j (bits [{w}j, {w}(j+1))) is coefficient {L}k + j "
                f"of T(.) = CT(digits), the same from bit {L * w} for T'(.) = NCT(digits), bit {2 * L * w} the "
                "number's parity (every beat)")

    def spectral(self, params: RsaFmlm3Params, name: str, domain: str) -> Operand:
        """domain = spectral: a beat of a number's spectra, its parts T (CT), Tn (NCT) and
        parity the hardware reads by name."""
        plan = self.derived(params)
        L, w = plan.lanes, plan.K + 1
        coefficients = f"each coefficient < M = 2^{plan.K}+1"
        parts = (Operand("T", L * w, f"T(.) = CT(digits): lane j is coefficient {L}k + j", coefficients, L),
                 Operand("Tn", L * w, f"T'(.) = NCT(digits): lane j is coefficient {L}k + j", coefficients, L),
                 Operand("parity", 1, "the number mod 2 (every beat)", "0..1"))
        return Operand(name, plan.beat_width, self.spectra_text(params), domain, parts=parts)

    def operands(self, params: RsaFmlm3Params) -> list[Operand]:
        if params.domain == "spectral":
            return [self.spectral(params, "x", "the spectra of an x < N"),
                    self.spectral(params, "y", "the spectra of a y < N")]
        width, L = self.derived(params).beat_width, self.derived(params).lanes
        return [Operand("x", width, self.digits_text(params), "x < N", L),
                Operand("y", width, self.digits_text(params), "y < N", L)]

    def result_width(self, params: RsaFmlm3Params) -> int:
        return self.derived(params).beat_width

    def result(self, params: RsaFmlm3Params) -> Operand:
        if params.domain == "spectral":
            return self.spectral(params, "t", "the spectra of t < N")
        return Operand("t", self.result_width(params), self.digits_text(params), "t < N", self.derived(params).lanes)

    def in_beats(self, params: RsaFmlm3Params, operands: tuple[Any, ...]) -> list[tuple[int, ...]]:
        x, y = operands
        return list(zip(self.out_beats(params, x), self.out_beats(params, y), strict=True))

    def out_beats(self, params: RsaFmlm3Params, result: Any) -> list[int]:
        """A number's frame, or (domain = spectral) its spectra's."""
        plan = self.derived(params)
        return model.spectral_frame(plan, result) if params.domain == "spectral" else model.frame(plan, result)

    # --- the cfg stream: N's spectra and digits ----------------------------------------
    def config_width(self, params: RsaFmlm3Params) -> int:
        return self.derived(params).cfg_width

    def config_fields(self, params: RsaFmlm3Params) -> list[Operand]:
        plan = self.derived(params)
        return [Operand("data", plan.cfg_data_bits, f"{plan.lanes} lanes of {plan.K + 1} bits (spectra) or "
                        f"{params.u} bits (digits)", "the beat"),
                Operand("index", plan.index_bits, "unsigned binary", "the beat's index k"),
                Operand("sel", 2, "unsigned binary", "1: T(N') = CT(N'), 2: T'(N) = NCT(N), 3: N's digits")]

    def config_words(self, params: RsaFmlm3Params, moduli: list[int]) -> list[int]:
        """The cfg payloads that load the one modulus of `moduli` (`modforge config rsa-fmlm3
        ... --prime N` prints them)."""
        if len(moduli) != 1:
            raise ParameterError(self.name, "modulus", "must be one modulus to load", ",".join(map(hex, moduli)))
        self.check_modulus(moduli[0], params.l, params.u * params.P, "modulus")
        return model.cfg_words(self.derived(params), moduli[0])

    def verified_modulus(self, params: RsaFmlm3Params) -> int:
        """Another modulus of l bits than the build's (a core ignoring cfg fails)."""
        width = params.u * params.P
        other = default_modulus(params.l, width, salt=1)
        return default_modulus(params.l, width, salt=2) if other == params.modulus else other

    def verification_config(self, params: RsaFmlm3Params) -> tuple[RsaFmlm3Params, list[int]]:
        other = self.verified_modulus(params)
        return dataclasses.replace(params, modulus=other), self.config_words(params, [other])

    # --- mathematics ------------------------------------------------------------------
    def model(self, params: RsaFmlm3Params, *operands: Any) -> Any:
        """x y R^-1 mod N by model.multiply (the core's steps and selections; tests check it
        against math.fmlm3.montgomery_multiply and pow); domain = spectral: x, y and t as
        math.fmlm3.Spectral (model.multiply_spectral, checked against
        math.fmlm3.montgomery_product)."""
        plan, (x, y) = self.derived(params), operands
        if params.domain == "spectral":
            return model.multiply_spectral(plan, self.context(params), x, y)
        return model.multiply(plan, self.context(params), x, y)

    def congruence(self, params: RsaFmlm3Params) -> str:
        width = params.u * params.P
        if params.domain == "spectral":
            return (f"T(t), T'(t), t mod 2 for t = x*y*R^-1 mod N, R = 2^{width} - 1, 0 <= t < N, from T(x), T'(x), "
                    f"x mod 2 and those of y, 0 <= x, y < N (T = CT, T' = NCT of the {params.u}-bit digits over "
                    f"Z_M, M = 2^{self.derived(params).K}+1), N odd of exactly l = {params.l} bits, coprime to R "
                    "(loaded through cfg)")
        return (f"t = x*y*R^-1 mod N, R = 2^{width} - 1 (B^P - 1, B = 2^{params.u}, P = {params.P}), 0 <= t < N, "
                f"for 0 <= x, y < N, N odd of exactly l = {params.l} bits, coprime to R (loaded through cfg)")

    def random_operands(self, params: RsaFmlm3Params, rng: random.Random) -> tuple[Any, ...]:
        return self._operands(params, (rng.randrange(params.modulus), rng.randrange(params.modulus)))

    def cases(self, params: RsaFmlm3Params) -> list[tuple[Any, ...]]:
        n = params.modulus
        pairs = [(0, 0), (1, 1), (n - 1, n - 1), (0, n - 1), (n - 1, 1), (1, n - 2), (2, 3), (n - 2, n - 1)]
        return [self._operands(params, pair) for pair in pairs]

    def _operands(self, params: RsaFmlm3Params, pair: tuple[int, int]) -> tuple[Any, ...]:
        """The numbers, or (domain = spectral) their spectra."""
        if params.domain == "spectral":
            return tuple(model.spectra(self.derived(params), x) for x in pair)
        return pair

    # --- hardware ---------------------------------------------------------------------
    def build(self, params: RsaFmlm3Params) -> MultiplierCore:
        plan, streams = self.derived(params), self.plan(params)
        return MultiplierCore(plan, params.modulus, {"i": streams.input_layout, "o": streams.output_layout,
                                                     "cfg": streams.config_layout}, unit_layouts(plan.transform))

    def tag(self, params: RsaFmlm3Params) -> str:
        c = "h" if params.c == "1/2" else params.c
        spectral = "_spec" if params.domain == "spectral" else ""
        shared = "_ma1" if params.muladds == "1" else ""
        return f"l{params.l}_p{params.P}_u{params.u}_c{c}_a{params.algorithm}_bfs{params.bfs}{spectral}{shared}"

    def grid(self) -> list[dict[str, str]]:
        return [{"l": "32", "P": "16", "algorithm": "3", "bfs": "1"},
                {"l": "32", "P": "16", "algorithm": "3", "bfs": "2"},
                {"l": "32", "P": "8", "algorithm": "2", "bfs": "2"},
                {"l": "64", "P": "32", "algorithm": "3", "bfs": "2"},      # c = 1/2: sqrt(2) twiddles
                {"l": "32", "P": "16", "algorithm": "3", "bfs": "2", "domain": "spectral"},
                {"l": "32", "P": "8", "algorithm": "2", "bfs": "1", "domain": "spectral"},
                {"l": "32", "P": "16", "algorithm": "3", "bfs": "2", "domain": "spectral", "muladds": "1"},
                {"l": "32", "P": "8", "algorithm": "2", "bfs": "1", "muladds": "1"},
                {"l": "32", "P": "16", "algorithm": "3", "bfs": "2", "muladds": "1"},
                # K = 128 on 18x18 tiles: MulAdds of 10 stages
                {"l": "64", "P": "64", "u": "1", "c": "2", "depth": "deep", "dsp": "ecp5"}]

    def extended_grid(self) -> list[dict[str, str]]:
        # Table 6's sets: l = 3072 with Alg 2 at c = 1/2 (Alg 3 would need c = 1: corrections.md#fmlm3-algorithm4),
        # 4096 its 3* row, 7680 its one row
        return [{"l": "1024", "P": "64", "u": "16", "algorithm": "3", "bfs": "2"},
                {"l": "2048", "P": "128", "u": "16", "algorithm": "3", "bfs": "2"},
                {"l": "2048", "P": "128", "u": "16", "algorithm": "3", "bfs": "1"},
                {"l": "2048", "P": "128", "u": "16", "algorithm": "3", "bfs": "2", "domain": "spectral"},
                {"l": "2048", "P": "128", "u": "16", "algorithm": "3", "bfs": "2", "domain": "spectral",
                 "muladds": "1"},
                {"l": "3072", "P": "128", "u": "24", "algorithm": "2", "c": "1/2", "bfs": "2"},
                {"l": "4096", "P": "128", "u": "32", "algorithm": "3", "c": "1", "bfs": "2"},
                {"l": "7680", "P": "128", "u": "60", "algorithm": "2", "c": "1", "bfs": "2"}]

    def extra_info(self, params: RsaFmlm3Params) -> dict[str, Any]:
        plan = self.derived(params)
        T = plan.transform
        config = {"width": plan.cfg_width, "words": 3 * plan.H,
                  "payload": f"Cat(data[{plan.cfg_data_bits}], index[{plan.index_bits}], sel[2]): sel 1 beat k of "
                             "T(N'), sel 2 of T'(N), sel 3 of N's digits (`modforge config ... --prime N` writes them)",
                  "rule": "cfg.ready only between multiplications",
                  "verified_moduli": [hex(self.verified_modulus(params))]}
        return {"K": plan.K, "M": f"2^{plan.K}+1", "lanes": plan.lanes, "beats_H": plan.H,
                "mul_add_depth": plan.mul_add_depth, "mul_add_dsps": plan.mul_add_dsps,
                "dsp_total": plan.mul_add_dsps * (1 if plan.shared else plan.lanes),
                "transform_C": T.cycles, "transforms": list(plan.transforms),
                "steps": plan.schedule(), "config": config,
                "formula": "latency = sum of the steps + 1: a transform 2H + C + 2 + sink depth (time: the input "
                           "one 2H + C + 1 + its depth; spectral: the input H + 1 + MulAdd's depth), a pass H + "
                           "depth (muladds = 1: a product P + 1 + MulAdd's depth, the input's 1 more, a read-out "
                           "through the MulAdd P - H more than a plain one; depth = deep: a store's read 2 "
                           "cycles, not 1, in each); "
                           "II = latency + H; cycles = latency + H - 1",
                "paper_table6_note": "Table 6's cycles are Table 5's operations for Alg 3 summed one after another "
                                     "(5 transforms, 4 multiply-adds of P + 3 on one Multiply Adder, 6 adds, a "
                                     "halving: 2,042 for l = 2048, P = 128, 2 BFS; plan.py); domain = spectral "
                                     "is that product (5 transforms), time adds CT and NCT of x and y (7)"}


@functools.lru_cache(maxsize=16)
def _context(plan: MultiplierPlan, N: int) -> Context:
    """What the core holds after N's cfg words (cached: the spectra of N', N)."""
    return model.load_cfg(plan, model.cfg_words(plan, N))
