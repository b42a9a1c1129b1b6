"""Parameters and registry entries of the digit-serial GF(p^m) multipliers (family
"digitserial"): Beuchat, Miyoshi, Oyama, Okamoto, "Multiplication over F_{p^m} on FPGA:
A Survey", Algorithms 1-5 and Figures 1d, 2c, 2d, corrected per docs/corrections.md.

Every algorithm computes p(x) = a(x) b(x) mod f(x) in GF(p^m) = GF(p)[x]/f(x), f monic
irreducible of degree m (a reducible f is refused: it gives a ring, not a field).
"""

from __future__ import annotations

import dataclasses
import functools
import random
from typing import Any, ClassVar

from modforge.errors import ParameterError
from modforge.hw.iterative import IterativeCore
from modforge.hw.layout import Layouts
from modforge.math import irreducible, poly, presets
from modforge.registry import POLYNOMIAL, Algorithm, Computes, Operand, param, register
from modforge.spec import gf2_mulmod, gfp_mulmod

from . import hw, model
from .plan import DigitPlan, derive

MAX_P = 31  # "small" characteristic: the GF(p) cells are tables over coeff_bits(p) bits
#: NIST's GF(2^571) and the survey's GF(3^239) fit; the modulus' irreducibility test (and
#: poly=auto's search, shown as progress) takes seconds from m = 256 on for odd p
MAX_M = 1024
#: a digit of D coefficients is D m GF(p) cells: a fully parallel GF(2^256) multiplier
MAX_D = 256

_PAPER = ("Beuchat, Miyoshi, Oyama, Okamoto, Multiplication over F_{p^m} on FPGA: A Survey, "
          "ARC 2007 (LNCS 4419)")


@dataclasses.dataclass(frozen=True)
class FieldParams:
    p: int = param(2, help="characteristic: a small prime (2, 3, 5, 7, ...)", lo=2, hi=MAX_P)
    m: int = param(163, help="extension degree m of GF(p^m)", lo=2, hi=MAX_M)
    poly: str = param(kind=POLYNOMIAL, default="paper", help="modulus f: paper | nist | auto | an explicit monic "
                                    "irreducible polynomial such as x^97+x^16-1", hi=MAX_M)


@dataclasses.dataclass(frozen=True)
class DigitParams(FieldParams):
    D: int = param(1, help="digit size: coefficients of a(x) per step, 1 <= D <= m", lo=1, hi=MAX_D)


@dataclasses.dataclass(frozen=True)
class PipelinedParams(DigitParams):
    R: int = param(1, help="pipeline registers: t(x) is split into R registered group "
                           "sums, 1 <= R <= D", lo=1, hi=MAX_D)


@dataclasses.dataclass(frozen=True)
class NamParams(DigitParams):
    D: int = param(2, help="digit size: coefficients of a(x) per step, 2 <= D <= m", lo=2, hi=MAX_D)
    R: int = param(2, help="accumulators (R = 2: DAM, R > 2: NAM), 2 <= R <= D", lo=2, hi=MAX_D)


@functools.lru_cache(maxsize=256)
def _resolve(name: str, p: int, m: int, spec: str) -> tuple[int, ...]:
    """Resolve and check the modulus (cached: irreducibility tests of large m take time)."""
    try:
        f = presets.resolve_modulus(p, m, spec)
    except ValueError as e:
        raise ParameterError(name, "poly", f"must name a monic polynomial of degree m={m} "
                             f"over GF({p}) ({e})", spec) from None
    st = irreducible.structure(f, p)
    if not st["irreducible"]:
        raise ParameterError(name, "poly", f"must be irreducible for a field multiplier: "
                             f"{st['message']}", spec)
    return f


class _GFpm(Algorithm[FieldParams, DigitPlan]):
    """The common part. The parameters are a FieldParams, a DigitParams (has_D: a digit D)
    or a PipelinedParams / NamParams (has_R: R group registers as well)."""
    family = "digitserial"
    paper = _PAPER
    parallelism = "D"
    has_D: ClassVar[bool] = True
    has_R: ClassVar[bool] = False
    min_R: ClassVar[int] = 1
    extra_steps: ClassVar[int]       # steps beyond the ceil(m/D) digits (plan.py)
    _grid: ClassVar[list[dict[str, str]]]

    # --- parameters -------------------------------------------------------------------
    def validate(self, params: FieldParams) -> FieldParams:
        name = self.name
        p, m = params.p, params.m
        if not isinstance(p, int) or not poly.is_prime_small(p):
            raise ParameterError(name, "p", "must be a prime", p)
        if p > MAX_P:
            raise ParameterError(name, "p", f"must be a small prime (<= {MAX_P})", p)
        if not isinstance(m, int) or m < 2:
            raise ParameterError(name, "m", "must be an integer >= 2", m)
        if self.has_D:
            D = self.digit(params)
            lo = 2 if self.min_R > 1 else 1
            if not isinstance(D, int) or not lo <= D <= m:
                raise ParameterError(name, "D", f"must satisfy {lo} <= D <= m (m={m})", D)
        if self.has_R:
            R = self.registers(params)
            if not isinstance(R, int) or not self.min_R <= R <= self.digit(params):
                raise ParameterError(name, "R", f"must satisfy {self.min_R} <= R <= D (D={self.digit(params)})", R)
        if not isinstance(params.poly, str):
            raise ParameterError(name, "poly", "must be a string", params.poly)
        f = _resolve(name, p, m, params.poly)
        return dataclasses.replace(params, poly=poly.format_poly(f, p))

    def digit(self, params: FieldParams) -> int:
        """The digit parameter D (1 without one)."""
        return params.D if isinstance(params, DigitParams) else 1

    def registers(self, params: FieldParams) -> int:
        """The group-register parameter R (0 without one)."""
        return params.R if isinstance(params, (PipelinedParams, NamParams)) else 0

    def derive(self, params: FieldParams) -> DigitPlan:
        """f, the digit, the digits, the steps and the timing (plan.py)."""
        return derive(params.p, params.m, params.poly, self.digit(params), self.registers(params),
                      self.extra_steps)

    # --- mathematics ------------------------------------------------------------------
    def encoding(self, plan: DigitPlan) -> str:
        k = plan.coeff_bits
        return f"GF({plan.p}) digits: coefficient i of x^i in bits [{k}i, {k}i+{k}), each in 0..{plan.p - 1}"

    def operands(self, params: FieldParams) -> list[Operand]:
        plan = self.derived(params)
        w, e = plan.width, self.encoding(plan)
        return [Operand("a", w, e, f"deg a < {params.m}", params.m),     # m coefficients: lanes
                Operand("b", w, e, f"deg b < {params.m}", params.m)]

    def result(self, params: FieldParams) -> Operand:
        plan = self.derived(params)
        return Operand("c", plan.width, self.encoding(plan), f"deg c < {params.m}", params.m)

    def result_width(self, params: FieldParams) -> int:
        return self.derived(params).width

    def congruence(self, params: FieldParams) -> str:
        return f"p(x) = a(x)*b(x) mod f(x) in GF({params.p}^{params.m}), f = {self.derived(params).poly}"

    def _run(self, plan: DigitPlan, a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
        """The algorithm's model (model.py) on unpacked operands."""
        raise NotImplementedError

    def model(self, params: FieldParams, *operands: int) -> int:
        """p(x) = a(x) b(x) mod f(x), packed (coefficient i in bits [w*i+w-1 : w*i])."""
        a, b = operands
        p, m = params.p, params.m
        r = self._run(self.derived(params), poly.unpack(a, p, m), poly.unpack(b, p, m))
        return poly.pack(r, p, m)

    def random_operands(self, params: FieldParams, rng: random.Random) -> tuple[int, ...]:
        p, m = params.p, params.m
        if p == 2:
            return (rng.getrandbits(m), rng.getrandbits(m))
        return tuple(poly.pack([rng.randrange(p) for _ in range(m)], p, m) for _ in range(2))

    def cases(self, params: FieldParams) -> list[tuple[int, ...]]:
        p, m = params.p, params.m
        f = self.derived(params).f
        low = poly.trim(f[:m])                      # f's low part: f - x^m
        elems = {
            "zero": (), "one": (1,), "max": (p - 1,) * m, "top": poly.shift((1,), m - 1),
            "ones": (1,) * m, "flow": low, "xm": poly.neg(low, p),  # x^m mod f = -(f - x^m)
            "alt": tuple((i % 2) * (p - 1) for i in range(m)),
            "x": (0, 1),
        }
        pairs = [("zero", "zero"), ("zero", "max"), ("max", "zero"), ("one", "one"),
                 ("one", "max"), ("max", "one"), ("max", "max"), ("top", "top"),
                 ("ones", "ones"), ("top", "max"), ("max", "top"), ("flow", "flow"),
                 ("xm", "xm"), ("flow", "top"), ("xm", "max"), ("alt", "max"), ("x", "top")]
        return [(poly.pack(elems[u], p, m), poly.pack(elems[v], p, m)) for u, v in pairs]

    # --- formal reference (modforge prove) ----------------------------------------------
    formal = True
    MAX_PROOF_BITS = 64

    def reference(self, params: FieldParams) -> str:
        """ok: c = a*b mod f by a schoolbook product over GF(p), for operands whose digits are < p."""
        plan = self.derived(params)
        p, m, k, w = plan.p, plan.m, plan.coeff_bits, plan.width
        if w > self.MAX_PROOF_BITS:
            raise ParameterError("prove", "m", f"must make at most {self.MAX_PROOF_BITS} bits an operand "
                                 f"(m*{k}) for a bounded proof", m)
        f = plan.f
        a, b = f"operands[{w - 1}:0]", f"operands[{2 * w - 1}:{w}]"
        if p == 2:
            body = gf2_mulmod("mulmod", sum(c << i for i, c in enumerate(f)))
            return body + f"  assign ok = result == mulmod({a}, {b});\n  assign in_domain = 1'b1;\n"
        digits = " && ".join(f"operands[{k * i + k - 1}:{k * i}] < {p}" for i in range(2 * m))
        return (gfp_mulmod("mulmod", p, f) + f"  assign ok = result == mulmod({a}, {b});\n"
                f"  assign in_domain = {digits};\n")

    # --- hardware ---------------------------------------------------------------------
    def build(self, params: FieldParams) -> IterativeCore:
        plan = self.plan(params)
        return IterativeCore(self.datapath(plan.derived, (plan.input_layout, plan.output_layout)))

    def datapath(self, plan: DigitPlan, layouts: Layouts) -> hw.DigitDatapath:
        """The algorithm's datapath (hw.py), its payloads of `layouts` (the plan's)."""
        raise NotImplementedError

    def tag(self, params: FieldParams) -> str:
        parts = [f"p{params.p}", f"m{params.m}"]
        if self.has_D:
            parts.append(f"d{self.digit(params)}")
        if self.has_R:
            parts.append(f"r{self.registers(params)}")
        return "_".join(parts)

    def computes(self, params: FieldParams) -> Computes:
        plan = self.derived(params)
        return Computes("GF(p^m)", params.p, params.m, params.poly, plan.irreducible, ("p", "m", "poly"))

    def extra_info(self, params: FieldParams) -> dict[str, Any]:
        plan = self.derived(params)
        info: dict[str, Any] = {
            "field": plan.structure,
            "kind": plan.kind,
            "poly": plan.poly,
            "digits": plan.digits,
            "cycles": plan.cycles,
            "reduction_operands": plan.reduction_operands,
            "reduction_alpha": plan.reduction_alpha,
            "reduction_coefficient_additions": plan.reduction_coefficient_additions,
        }
        if self.has_R:
            info["groups"] = [len(g) for g in plan.groups]
        return info

    def grid(self) -> list[dict[str, str]]:
        return [dict(g) for g in self._grid]


def _g(**kw: object) -> dict[str, str]:
    return {k: str(v) for k, v in kw.items()}


_SMALL_D = [
    _g(p=2, m=13, poly="auto", D=1), _g(p=2, m=13, poly="auto", D=3), _g(p=2, m=13, poly="auto", D=13),
    _g(p=3, m=11, poly="paper", D=1), _g(p=3, m=11, poly="paper", D=3), _g(p=3, m=11, poly="paper", D=11),
    _g(p=3, m=11, poly="x^11+x^10+x^8+2*x^7+x+1", D=3), _g(p=5, m=7, poly="auto", D=3),
    _g(p=2, m=163, poly="paper", D=16), _g(p=3, m=97, poly="paper", D=8),
]
_SMALL_R = [
    _g(p=2, m=13, poly="auto", D=1, R=1), _g(p=2, m=13, poly="auto", D=3, R=2),
    _g(p=2, m=13, poly="auto", D=13, R=4), _g(p=3, m=11, poly="paper", D=3, R=3),
    _g(p=3, m=11, poly="paper", D=11, R=2), _g(p=5, m=7, poly="auto", D=4, R=2),
    _g(p=2, m=163, poly="paper", D=32, R=4), _g(p=3, m=97, poly="paper", D=8, R=2),
]
_SMALL_NAM = [
    _g(p=2, m=13, poly="auto", D=2, R=2), _g(p=2, m=13, poly="auto", D=3, R=3),
    _g(p=2, m=13, poly="auto", D=13, R=4), _g(p=3, m=11, poly="paper", D=3, R=2),
    _g(p=3, m=11, poly="paper", D=11, R=3), _g(p=5, m=7, poly="auto", D=4, R=2),
    _g(p=2, m=163, poly="paper", D=32, R=4), _g(p=3, m=97, poly="paper", D=8, R=2),
]
_SMALL_1 = [
    _g(p=2, m=13, poly="auto"), _g(p=3, m=11, poly="paper"),
    _g(p=3, m=11, poly="x^11+x^10+x^8+2*x^7+x+1"), _g(p=5, m=7, poly="auto"),
    _g(p=2, m=163, poly="paper"),
]


@register
class MseHorner(_GFpm):
    """Algorithm 1: p <- a_i b + (x p mod f), i = m-1 .. 0."""
    name = "gfpm-mse-horner"
    title = "GF(p^m) MSE-first Horner multiplier (one coefficient per step)"
    paper = _PAPER + ", Algorithm 1 / Fig. 1a"
    Params = FieldParams
    has_D = False
    _grid = _SMALL_1
    extra_steps = 0   # m steps (D = 1)

    def _run(self, plan: DigitPlan, a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
        return model.mse_horner(plan.p, plan.f, a, b)

    def datapath(self, plan: DigitPlan, layouts: Layouts) -> hw.DigitDatapath:
        return hw.MseShu(plan, layouts)


@register
class MseShu(_GFpm):
    """Algorithm 2 (Shu et al.)."""
    name = "gfpm-mse-shu"
    title = "GF(p^m) MSE-first digit-serial multiplier of Shu et al. (reduced partial products)"
    paper = _PAPER + ", Algorithm 2 / Fig. 1b"
    Params = DigitParams
    _grid = _SMALL_D
    extra_steps = 0   # ceil(m/D) steps

    def _run(self, plan: DigitPlan, a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
        return model.mse_shu(plan.p, plan.f, a, b, plan.D)

    def datapath(self, plan: DigitPlan, layouts: Layouts) -> hw.DigitDatapath:
        return hw.MseShu(plan, layouts)


@register
class MseDigit(_GFpm):
    """Algorithm 3 (Song-Parhi with the extra iteration)."""
    name = "gfpm-mse-digit"
    title = "GF(p^m) MSE-first digit-serial multiplier of Song and Parhi (result s/x^D)"
    paper = _PAPER + ", Algorithm 3 / Fig. 1c"
    Params = DigitParams
    _grid = _SMALL_D
    extra_steps = 1   # the extra iteration, a zero digit, gives x^D (ab mod f)

    def _run(self, plan: DigitPlan, a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
        return model.mse_digit(plan.p, plan.f, a, b, plan.D)

    def datapath(self, plan: DigitPlan, layouts: Layouts) -> hw.DigitDatapath:
        return hw.MseDigit(plan, layouts)


@register
class MsePipelined(_GFpm):
    """Figure 1d."""
    name = "gfpm-mse-pipelined"
    title = "GF(p^m) MSE-first digit-serial multiplier, partial-product sum pipelined (R group registers)"
    paper = _PAPER + ", Fig. 1d"
    Params = PipelinedParams
    has_R = True
    _grid = _SMALL_R
    extra_steps = 2   # Alg 3's extra iteration, and one for the register level

    def _run(self, plan: DigitPlan, a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
        return model.mse_pipelined(plan.p, plan.f, a, b, plan.D, plan.R)

    def datapath(self, plan: DigitPlan, layouts: Layouts) -> hw.DigitDatapath:
        return hw.MseDigit(plan, layouts)


@register
class LseBasic(_GFpm):
    """Algorithm 4."""
    name = "gfpm-lse-basic"
    title = "GF(p^m) LSE-first multiplier (one coefficient per step)"
    paper = _PAPER + ", Algorithm 4 / Fig. 2a"
    Params = FieldParams
    has_D = False
    _grid = _SMALL_1
    extra_steps = 0   # m steps (D = 1)

    def _run(self, plan: DigitPlan, a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
        return model.lse_basic(plan.p, plan.f, a, b)

    def datapath(self, plan: DigitPlan, layouts: Layouts) -> hw.DigitDatapath:
        return hw.LseBasic(plan, layouts)


@register
class LseDigit(_GFpm):
    """Algorithm 5 (Bertoni et al.), corrected."""
    name = "gfpm-lse-digit"
    title = "GF(p^m) LSE-first digit-serial multiplier of Bertoni et al. (reduced accumulator)"
    paper = _PAPER + ", Algorithm 5 / Fig. 2b (corrected: ceil(m/D)+1 iterations)"
    Params = DigitParams
    _grid = _SMALL_D
    extra_steps = 1   # the last, a zero digit, leaves s reduced

    def _run(self, plan: DigitPlan, a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
        return model.lse_digit(plan.p, plan.f, a, b, plan.D)

    def datapath(self, plan: DigitPlan, layouts: Layouts) -> hw.DigitDatapath:
        return hw.LseDigit(plan, layouts)


@register
class LseNam(_GFpm):
    """Figure 2c (DAM / NAM)."""
    name = "gfpm-lse-nam"
    title = "GF(p^m) LSE-first multi-accumulator multiplier of Kumar et al. (DAM/NAM)"
    paper = _PAPER + ", Fig. 2c"
    Params = NamParams
    has_R = True
    min_R = 2
    _grid = _SMALL_NAM
    extra_steps = 1   # the output stage: the R accumulators summed, eq. (2), the output register

    def _run(self, plan: DigitPlan, a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
        return model.lse_nam(plan.p, plan.f, a, b, plan.D, plan.R)

    def datapath(self, plan: DigitPlan, layouts: Layouts) -> hw.DigitDatapath:
        return hw.LseNam(plan, layouts)


@register
class LsePipelined(_GFpm):
    """Figure 2d."""
    name = "gfpm-lse-pipelined"
    title = "GF(p^m) LSE-first digit-serial multiplier, partial-product sum pipelined (R group registers)"
    paper = _PAPER + ", Fig. 2d"
    Params = PipelinedParams
    has_R = True
    _grid = _SMALL_R
    extra_steps = 2   # Alg 5's extra iteration, and one for the register level

    def _run(self, plan: DigitPlan, a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
        return model.lse_pipelined(plan.p, plan.f, a, b, plan.D, plan.R)

    def datapath(self, plan: DigitPlan, layouts: Layouts) -> hw.DigitDatapath:
        return hw.LseDigit(plan, layouts)
