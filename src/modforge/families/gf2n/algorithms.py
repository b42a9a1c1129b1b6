"""The registered GF(2)[t]/F(t) multipliers: gf2n-blakely, gf2n-montgomery, gf2n-bmm,
gf2n-fiko, gf2n-rffiko (paper: docs/references.md#oliva-madrigal-2023, with docs/corrections.md).

Payload: A in the low n bits, B in the next n bits; result: n bits, degree < n.
These multipliers compute their congruence in GF(2)[t]/F whether or not F is
irreducible, so reducible F (a ring) is accepted and reported in extra_info.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any, ClassVar, Literal

from ...errors import ParameterError
from ...hw.iterative import IterativeCore
from ...hw.layout import Layouts
from ...math import gf2
from ...math.poly import format_poly
from ...math.presets import resolve_modulus
from ...registry import POLYNOMIAL, Algorithm, Computes, Operand, param, register
from ...spec import gf2_mulmod
from . import hw, model as M
from .plan import Gf2nPlan, Interleaving, derive, poly_int

ENCODING = "GF(2) polynomial: bit i is the coefficient of t^i"
PAPER = ("Oliva Madrigal et al., Reduction-Free Multiplication for Finite Fields and "
         "Polynomial Rings, WAIFI 2022 (LNCS 13638, 2023)")
#: NIST's largest binary field is 571 bits; gf2n-fiko at n = 1024 generates in about 20 s, and
#: poly=auto searches about 7 s for a degree-1024 modulus (no trinomial: a pentanomial)
MAX_N = 1024


@dataclasses.dataclass(frozen=True)
class Gf2nParams:
    n: int = param(163, help="degree n of F(t); operands and result have n bits", lo=2, hi=MAX_N)
    poly: str = param(kind=POLYNOMIAL, default="auto", help="F(t): rft (x^n+x^ceil(n/2)+1), type1 "
                                   "(x^n+x^floor(n/2)+1), type2 (x^n+x+1), nist, auto (lowest-weight irreducible) "
                                   "or an expression such as x^9+x^5+1", hi=MAX_N)
    serial: Literal["shift", "select"] = param(
        "shift", help="how the operand read a bit a step is held: shift (a shift register, a LUT per bit for "
                      "its load multiplexer; the fastest) or select (a register loaded once and a multiplexer "
                      "tree that picks the next bit a cycle ahead, like the paper's B0[i] read by a counter: fewer "
                      "LUTs on 6-input-LUT devices, slower on 4-input ones; benchmarks/gf2n_luts.md)")


@dataclasses.dataclass(frozen=True)
class RfFikoParams(Gf2nParams):
    n: int = param(163, help="odd degree n of the reduction-free trinomial F(t); "
                             "operands and result have n bits", lo=3, hi=MAX_N)
    poly: str = param(kind=POLYNOMIAL, default="rft", help="F(t): must be rft = x^n+x^ceil(n/2)+1 (or that trinomial "
                                  "written out)", hi=MAX_N)


def _mask(w: int) -> int:
    return (1 << w) - 1


class Gf2nAlgorithm(Algorithm[Gf2nParams, Gf2nPlan]):
    family = "gf2n"
    paper = PAPER
    Params: ClassVar[type] = Gf2nParams  # the registry's: a subclass names its own
    needs_f0: ClassVar[bool] = True      # the Montgomery quotient needs F invertible mod t
    interleaving: ClassVar[Interleaving]  # the step count and exponent (plan.py)

    # --- parameters -------------------------------------------------------------------
    def validate(self, params: Gf2nParams) -> Gf2nParams:
        n, spec = params.n, params.poly
        if not isinstance(n, int) or isinstance(n, bool) or n < 2:
            raise ParameterError(self.name, "n", "must be an integer >= 2", n)
        if not isinstance(spec, str):
            raise ParameterError(self.name, "poly", "must be a string", spec)
        try:
            coeffs = resolve_modulus(2, n, spec)
        except ValueError as e:
            raise ParameterError(
                self.name, "poly",
                f"must be rft, type1, type2, nist, auto or a monic polynomial of degree n={n} "
                f"over GF(2) ({e})", spec) from None
        if len(coeffs) - 1 != n or coeffs[-1] != 1:
            raise ParameterError(self.name, "poly", f"must be monic of degree n={n}", spec)
        canonical = format_poly(coeffs, 2)
        if self.needs_f0 and coeffs[0] == 0:
            raise ParameterError(
                self.name, "poly",
                "must have constant term f_0 = 1 (the Montgomery quotient needs t "
                "invertible mod F)", canonical)
        self.check(n, canonical)
        return dataclasses.replace(params, poly=canonical)

    def check(self, n: int, poly: str) -> None:
        """Algorithm-specific rules on the resolved modulus."""

    def derive(self, params: Gf2nParams) -> Gf2nPlan:
        """F, the split r, the exponent e, the step count and the timing (plan.py)."""
        return derive(params.n, params.poly, self.interleaving, params.serial)

    # --- mathematics ------------------------------------------------------------------
    def operands(self, params: Gf2nParams) -> list[Operand]:
        return [Operand("a", params.n, ENCODING, f"deg A < {params.n}"),
                Operand("b", params.n, ENCODING, f"deg B < {params.n}")]

    def result(self, params: Gf2nParams) -> Operand:
        return Operand("c", params.n, ENCODING, f"deg C < {params.n}")

    def result_width(self, params: Gf2nParams) -> int:
        return params.n

    def congruence(self, params: Gf2nParams) -> str:
        e = self.derived(params).exponent
        tail = f"*t^-{e}" if e else ""
        return f"C = A*B{tail} mod F(t), F = {params.poly}, deg C < {params.n}"

    def model(self, params: Gf2nParams, *operands: int) -> int:
        a, b = operands
        return self.multiply(self.derived(params), a, b)

    def multiply(self, plan: Gf2nPlan, a: int, b: int) -> int:
        """The bit-exact result of the algorithm's model (model.py)."""
        raise NotImplementedError

    def random_operands(self, params: Gf2nParams, rng: random.Random) -> tuple[int, ...]:
        return (rng.getrandbits(params.n), rng.getrandbits(params.n))

    def cases(self, params: Gf2nParams) -> list[tuple[int, ...]]:
        plan = self.derived(params)
        n, r = plan.n, plan.r
        ones = _mask(n)
        flow = plan.f & ones                       # F's low part, F - t^n
        lo, hi = _mask(r), ones ^ _mask(r)         # the halves at the split t^r
        vals = [0, 1, ones, 1 << (n - 1), flow, lo, hi, 2, ones ^ 1, 0b101 & ones]
        out = [(0, 0), (0, ones), (ones, 0), (1, 1), (1, ones), (ones, 1), (ones, ones)]
        out += [(a, b) for a in vals for b in vals]
        bits = sorted({0, 1 % n, r - 1, r, n - 2, n - 1} & set(range(n)))
        out += [(1 << i, 1 << j) for i in bits for j in bits]
        return list(dict.fromkeys(out))   # in order, each once

    # --- hardware ---------------------------------------------------------------------
    def build(self, params: Gf2nParams) -> IterativeCore:
        plan = self.plan(params)
        return IterativeCore(self.datapath(plan.derived, (plan.input_layout, plan.output_layout)))

    def datapath(self, plan: Gf2nPlan, layouts: Layouts) -> hw.Gf2nDatapath:
        """The algorithm's datapath (hw.py) for F, its payloads of `layouts` (the plan's)."""
        raise NotImplementedError

    # --- formal reference (modforge prove) ----------------------------------------------
    formal = True
    MAX_PROOF_N = 64

    def reference(self, params: Gf2nParams) -> str:
        """ok: C*t^e = A*B mod F, both sides by the schoolbook product; C has n bits, so deg C < n,
        and t is invertible mod F when e > 0 (f_0 = 1), so this is C = A*B*t^-e mod F."""
        plan = self.derived(params)
        n, f, e = plan.n, plan.f, plan.exponent
        if n > self.MAX_PROOF_N:
            raise ParameterError("prove", "n", f"must be at most {self.MAX_PROOF_N} for a bounded proof", n)
        t_e = gf2.mod(1 << e, f)
        lhs = f"mulmod(result, {n}'h{t_e:x})" if e else "result"
        return (gf2_mulmod("mulmod", f)
                + f"  assign ok = {lhs} == mulmod(operands[{n - 1}:0], operands[{2 * n - 1}:{n}]);\n"
                + "  assign in_domain = 1'b1;\n")

    def tag(self, params: Gf2nParams) -> str:
        return f"n{params.n}" + ("_select" if params.serial == "select" else "")

    def computes(self, params: Gf2nParams) -> Computes:
        return Computes("GF(p^m)", 2, params.n, params.poly, self.derived(params).irreducible, ("n", "poly"))

    def extra_info(self, params: Gf2nParams) -> dict[str, Any]:
        plan = self.derived(params)
        return {
            "modulus": params.poly,
            "kind": plan.kind,
            "irreducible": plan.irreducible,
            "structure": plan.structure,
            "split_r": plan.r,
            "congruence": self.congruence(params),
            "serial": params.serial,
        }


@register
class Blakely(Gf2nAlgorithm):
    name = "gf2n-blakely"
    title = "interleaved Blakely multiplier over GF(2)[t]/F, one bit of A per cycle (Alg 4)"
    paper = PAPER + ", Alg. 4"
    needs_f0 = False         # left-to-right reduction works for any monic F
    interleaving = "blakely"

    def multiply(self, plan: Gf2nPlan, a: int, b: int) -> int:
        return M.interleaved_blakely(plan.f, a, b)

    def datapath(self, plan: Gf2nPlan, layouts: Layouts) -> hw.Gf2nDatapath:
        return hw.Blakely(plan, layouts)

    def grid(self) -> list[dict[str, str]]:
        return [{"n": "9", "poly": "x^9+x^5+1"}, {"n": "16", "poly": "auto"},
                {"n": "17", "poly": "x^17+x^16+x^3+x", "serial": "select"}, {"n": "163", "poly": "nist"}]


@register
class Montgomery(Gf2nAlgorithm):
    name = "gf2n-montgomery"
    title = "interleaved Montgomery multiplier over GF(2)[t]/F, one bit of B per cycle (Alg 5)"
    paper = PAPER + ", Alg. 5"
    interleaving = "montgomery"

    def multiply(self, plan: Gf2nPlan, a: int, b: int) -> int:
        return M.interleaved_montgomery(plan.f, a, b)

    def datapath(self, plan: Gf2nPlan, layouts: Layouts) -> hw.Gf2nDatapath:
        return hw.Montgomery(plan, layouts)

    def grid(self) -> list[dict[str, str]]:
        return [{"n": "9", "poly": "rft"}, {"n": "16", "poly": "auto"},
                {"n": "17", "poly": "type1", "serial": "select"}, {"n": "233", "poly": "type1"}]


@register
class Bmm(Gf2nAlgorithm):
    name = "gf2n-bmm"
    title = "bipartite modular multiplier (parallel interleaved Blakely and Montgomery, Alg 6-8)"
    paper = PAPER + ", Alg. 6-8"
    interleaving = "bipartite"   # both units step once per cycle

    def multiply(self, plan: Gf2nPlan, a: int, b: int) -> int:
        return M.bmm(plan.f, a, b)

    def datapath(self, plan: Gf2nPlan, layouts: Layouts) -> hw.Gf2nDatapath:
        return hw.Bmm(plan, layouts)

    def grid(self) -> list[dict[str, str]]:
        return [{"n": "9", "poly": "rft"}, {"n": "16", "poly": "auto"},
                {"n": "163", "poly": "nist"}, {"n": "17", "poly": "rft", "serial": "select"}]


@register
class Fiko(Gf2nAlgorithm):
    """FIKO for any F of degree n >= 2 with f_0 = 1. The Montgomery quotient (modulo
    F0 = F mod t^r) needs f_0 = 1; the Blakely quotient (modulo F1 = F >> r, degree
    floor(n/2) >= 1, monic) is always defined, so no further rule is needed."""

    name = "gf2n-fiko"
    title = "fully interleaved Karatsuba-Ofman multiplier with bipartite quotients (Fig. 1-2)"
    paper = PAPER + ", Fig. 1-2"
    interleaving = "bipartite"   # one bit of each half-size product per cycle

    def multiply(self, plan: Gf2nPlan, a: int, b: int) -> int:
        return M.fiko(plan.f, a, b)

    def datapath(self, plan: Gf2nPlan, layouts: Layouts) -> hw.Gf2nDatapath:
        return hw.Fiko(plan, layouts)

    def grid(self) -> list[dict[str, str]]:
        return [{"n": "9", "poly": "rft"}, {"n": "16", "poly": "auto"},
                {"n": "17", "poly": "type2", "serial": "select"}, {"n": "163", "poly": "nist"}]


@register
class RfFiko(Gf2nAlgorithm):
    name = "gf2n-rffiko"
    title = "reduction-free fully interleaved Karatsuba-Ofman multiplier (Fig. 4-5)"
    paper = PAPER + ", Fig. 4-5"
    Params = RfFikoParams
    interleaving = "bipartite"   # r = (n+1)/2: one bit of each half-size product per cycle

    def check(self, n: int, poly: str) -> None:
        if n % 2 == 0:
            raise ParameterError(
                self.name, "n",
                "must be odd (RF-FIKO is exact only for x^n+x^ceil(n/2)+1 with n odd)", n)
        want = M.rft(n)
        if poly_int(poly) != want:
            expr = format_poly(tuple((want >> i) & 1 for i in range(n + 1)), 2)
            raise ParameterError(
                self.name, "poly",
                f"must be the reduction-free trinomial x^n+x^ceil(n/2)+1 = {expr} "
                "(RF-FIKO takes its quotients straight from C0 and C2)", poly)

    def multiply(self, plan: Gf2nPlan, a: int, b: int) -> int:
        return M.rffiko(plan.n, a, b)

    def datapath(self, plan: Gf2nPlan, layouts: Layouts) -> hw.Gf2nDatapath:
        return hw.RfFiko(plan, layouts)

    def grid(self) -> list[dict[str, str]]:
        return [{"n": "9"}, {"n": "17"}, {"n": "107"}, {"n": "17", "serial": "select"}]
