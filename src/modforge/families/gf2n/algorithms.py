"""The registered GF(2)[t]/F(t) multipliers: gf2n-blakely, gf2n-montgomery, gf2n-bmm,
gf2n-fiko, gf2n-rffiko (paper: docs/references.md#oliva-madrigal-2023, with docs/corrections.md).

Payload: A in the low n bits, B in the next n bits; result: n bits, degree < n.
These multipliers compute their congruence in GF(2)[t]/F whether or not F is
irreducible, so reducible F (a ring) is accepted and reported in extra_info.
"""

from __future__ import annotations

import dataclasses
import functools
import random
from typing import ClassVar

from ...errors import ParameterError
from ...formal import gf2_mulmod
from ...hw.iterative import IterativeCore
from ...math import gf2
from ...math.irreducible import structure
from ...math.poly import format_poly, parse_poly
from ...math.presets import resolve_modulus
from ...registry import POLYNOMIAL, Algorithm, Computes, Operand, Timing, param, register
from . import hw, model as M

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


@dataclasses.dataclass(frozen=True)
class RfFikoParams:
    n: int = param(163, help="odd degree n of the reduction-free trinomial F(t); "
                             "operands and result have n bits", lo=3, hi=MAX_N)
    poly: str = param(kind=POLYNOMIAL, default="rft", help="F(t): must be rft = x^n+x^ceil(n/2)+1 (or that trinomial "
                                  "written out)", hi=MAX_N)


@functools.lru_cache(maxsize=256)
def poly_int(poly: str) -> int:
    """Canonical expression -> int form (bit i = coefficient of t^i)."""
    return sum(c << i for i, c in enumerate(parse_poly(poly, 2)))


@functools.lru_cache(maxsize=64)
def _structure(poly: str) -> dict:
    return structure(parse_poly(poly, 2), 2)


def _mask(w: int) -> int:
    return (1 << w) - 1


class Gf2nAlgorithm(Algorithm):
    family = "gf2n"
    paper = PAPER
    Params: ClassVar[type] = Gf2nParams  # the registry's: a subclass names its own
    needs_f0 = True          # the Montgomery quotient needs F invertible mod t

    # --- parameters -------------------------------------------------------------------
    def validate(self, params):
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
        return self.Params(n=n, poly=canonical)

    def check(self, n: int, poly: str) -> None:
        """Algorithm-specific rules on the resolved modulus."""

    def derive(self, params):
        """The timing: an iterative core of `steps` step cycles."""
        return Timing.iterative(self.steps(params))

    def steps(self, params) -> int:
        """Step cycles of one multiplication."""
        raise NotImplementedError

    # --- mathematics ------------------------------------------------------------------
    def f(self, params) -> int:
        return poly_int(params.poly)

    def r(self, params) -> int:
        return M.split_point(params.n)

    def operands(self, params):
        return [Operand("a", params.n, ENCODING, f"deg A < {params.n}"),
                Operand("b", params.n, ENCODING, f"deg B < {params.n}")]

    def result(self, params):
        return Operand("c", params.n, ENCODING, f"deg C < {params.n}")

    def result_width(self, params):
        return params.n

    def exponent(self, params) -> int:
        """e in C = A*B*t^-e mod F."""
        raise NotImplementedError

    def congruence(self, params):
        e = self.exponent(params)
        tail = f"*t^-{e}" if e else ""
        return f"C = A*B{tail} mod F(t), F = {params.poly}, deg C < {params.n}"

    def random_operands(self, params, rng: random.Random):
        return (rng.getrandbits(params.n), rng.getrandbits(params.n))

    def cases(self, params):
        n, r = params.n, self.r(params)
        ones = _mask(n)
        flow = self.f(params) & ones               # F's low part, F - t^n
        lo, hi = _mask(r), ones ^ _mask(r)         # the halves at the split t^r
        vals = [0, 1, ones, 1 << (n - 1), flow, lo, hi, 2, ones ^ 1, 0b101 & ones]
        out = [(0, 0), (0, ones), (ones, 0), (1, 1), (1, ones), (ones, 1), (ones, ones)]
        out += [(a, b) for a in vals for b in vals]
        bits = sorted({0, 1 % n, r - 1, r, n - 2, n - 1} & set(range(n)))
        out += [(1 << i, 1 << j) for i in bits for j in bits]
        return list(dict.fromkeys(out))   # in order, each once

    # --- hardware ---------------------------------------------------------------------
    # --- formal reference (modforge prove) ----------------------------------------------
    formal = True
    MAX_PROOF_N = 64

    def reference(self, params):
        """ok: C*t^e = A*B mod F, both sides by the schoolbook product; C has n bits, so deg C < n,
        and t is invertible mod F when e > 0 (f_0 = 1), so this is C = A*B*t^-e mod F."""
        n, f, e = params.n, self.f(params), self.exponent(params)
        if n > self.MAX_PROOF_N:
            raise ParameterError("prove", "n", f"must be at most {self.MAX_PROOF_N} for a bounded proof", n)
        t_e = gf2.mod(1 << e, f)
        lhs = f"mulmod(result, {n}'h{t_e:x})" if e else "result"
        return (gf2_mulmod("mulmod", f)
                + f"  assign ok = {lhs} == mulmod(operands[{n - 1}:0], operands[{2 * n - 1}:{n}]);\n"
                + "  assign in_domain = 1'b1;\n")

    def tag(self, params):
        return f"n{params.n}"

    def computes(self, params):
        return Computes("GF(p^m)", 2, params.n, params.poly, _structure(params.poly)["irreducible"], ("n", "poly"))

    def extra_info(self, params):
        s = _structure(params.poly)
        return {
            "modulus": params.poly,
            "kind": s["kind"],
            "irreducible": s["irreducible"],
            "structure": s["message"],
            "split_r": self.r(params),
            "congruence": self.congruence(params),
        }


@register
class Blakely(Gf2nAlgorithm):
    name = "gf2n-blakely"
    title = "interleaved Blakely multiplier over GF(2)[t]/F, one bit of A per cycle (Alg 4)"
    paper = PAPER + ", Alg. 4"
    needs_f0 = False         # left-to-right reduction works for any monic F

    def exponent(self, params):
        return 0

    def model(self, params, a, b):
        return M.interleaved_blakely(self.f(params), a, b)

    def steps(self, params):
        """n step cycles (one bit of A each)."""
        return params.n

    def build(self, params):
        return IterativeCore(hw.Blakely(self.f(params)))

    def grid(self):
        return [{"n": "9", "poly": "x^9+x^5+1"}, {"n": "16", "poly": "auto"},
                {"n": "17", "poly": "x^17+x^16+x^3+x"}, {"n": "163", "poly": "nist"}]


@register
class Montgomery(Gf2nAlgorithm):
    name = "gf2n-montgomery"
    title = "interleaved Montgomery multiplier over GF(2)[t]/F, one bit of B per cycle (Alg 5)"
    paper = PAPER + ", Alg. 5"

    def exponent(self, params):
        return params.n

    def model(self, params, a, b):
        return M.interleaved_montgomery(self.f(params), a, b)

    def steps(self, params):
        """n step cycles (one bit of B each)."""
        return params.n

    def build(self, params):
        return IterativeCore(hw.Montgomery(self.f(params)))

    def grid(self):
        return [{"n": "9", "poly": "rft"}, {"n": "16", "poly": "auto"},
                {"n": "17", "poly": "type1"}, {"n": "233", "poly": "type1"}]


@register
class Bmm(Gf2nAlgorithm):
    name = "gf2n-bmm"
    title = "bipartite modular multiplier (parallel interleaved Blakely and Montgomery, Alg 6-8)"
    paper = PAPER + ", Alg. 6-8"

    def exponent(self, params):
        return self.r(params)

    def model(self, params, a, b):
        return M.bmm(self.f(params), a, b)

    def steps(self, params):
        """r = ceil(n/2) step cycles (both units step once per cycle)."""
        return self.r(params)

    def build(self, params):
        return IterativeCore(hw.Bmm(self.f(params)))

    def grid(self):
        return [{"n": "9", "poly": "rft"}, {"n": "16", "poly": "auto"},
                {"n": "163", "poly": "nist"}]


@register
class Fiko(Gf2nAlgorithm):
    """FIKO for any F of degree n >= 2 with f_0 = 1. The Montgomery quotient (modulo
    F0 = F mod t^r) needs f_0 = 1; the Blakely quotient (modulo F1 = F >> r, degree
    floor(n/2) >= 1, monic) is always defined, so no further rule is needed."""

    name = "gf2n-fiko"
    title = "fully interleaved Karatsuba-Ofman multiplier with bipartite quotients (Fig. 1-2)"
    paper = PAPER + ", Fig. 1-2"

    def exponent(self, params):
        return self.r(params)

    def model(self, params, a, b):
        return M.fiko(self.f(params), a, b)

    def steps(self, params):
        """r = ceil(n/2) step cycles (one bit of each half-size product per cycle)."""
        return self.r(params)

    def build(self, params):
        return IterativeCore(hw.Fiko(self.f(params)))

    def grid(self):
        return [{"n": "9", "poly": "rft"}, {"n": "16", "poly": "auto"},
                {"n": "17", "poly": "type2"}, {"n": "163", "poly": "nist"}]


@register
class RfFiko(Gf2nAlgorithm):
    name = "gf2n-rffiko"
    title = "reduction-free fully interleaved Karatsuba-Ofman multiplier (Fig. 4-5)"
    paper = PAPER + ", Fig. 4-5"
    Params = RfFikoParams

    def check(self, n, poly):
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

    def exponent(self, params):
        return self.r(params)

    def model(self, params, a, b):
        return M.rffiko(params.n, a, b)

    def steps(self, params):
        """r = (n+1)/2 step cycles (one bit of each half-size product per cycle)."""
        return self.r(params)

    def build(self, params):
        return IterativeCore(hw.RfFiko(self.f(params)))

    def grid(self):
        return [{"n": "9"}, {"n": "17"}, {"n": "107"}]
