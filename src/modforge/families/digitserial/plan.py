"""The derived plan of a digit-serial GF(p^m) multiplier (family digitserial): the field
polynomial f, the digit D, the number of digits, the group registers, the coefficient bits,
the step count, the structure of f, the cost of its reduction, and the timing they give.

Steps, n = ceil(m/D) digits (`extra_steps` beyond n):
    MSE Horner (Alg 1), LSE basic (Alg 4)   D = 1, n = m steps          (+0)
    MSE Shu (Alg 2)                          n steps                     (+0)
    MSE digit (Alg 3), LSE digit (Alg 5)     n + 1: the extra iteration  (+1)
    LSE NAM (Fig. 2c)                        n + 1: the output stage     (+1)
    MSE, LSE pipelined (Fig. 1d, 2d)         n + 2: one more for the register level (+2)
"""

from __future__ import annotations

import dataclasses
import functools

from ...math import irreducible, poly
from ...registry import Timing
from . import model


@functools.lru_cache(maxsize=256)
def _structure(p: int, f: tuple[int, ...]) -> tuple[bool, str, str]:
    """(irreducible, kind, message) of f (cached: the test takes seconds for large m)."""
    s = irreducible.structure(f, p)
    return s["irreducible"], s["kind"], s["message"]


@dataclasses.dataclass(frozen=True, kw_only=True)
class DigitPlan(Timing):
    """One configuration's derived values. The timing is an IterativeCore's: a load cycle, then
    `steps` = digits + extra step cycles (the module docstring's table); cycles = steps,
    latency = initiation_interval = steps + 1."""
    p: int
    m: int
    f: tuple[int, ...]       # the field polynomial, coefficients low first (monic, degree m)
    poly: str                # f, canonical
    D: int                   # the digit: coefficients of a(x) a step (1 for the bit-serial ones)
    R: int                   # group registers (0: none; NAM: its accumulators)
    groups: tuple[range, ...]  # the R groups of a digit's partial products (model.groups)
    digits: int              # n = ceil(m/D)
    steps: int               # step cycles of one multiplication
    coeff_bits: int          # bits of a packed GF(p) coefficient
    irreducible: bool
    kind: str                # "field" or "ring"
    structure: str           # f's structure in words
    reduction_operands: int  # eq. (2)'s worst coefficient: the terms it sums (model.reduction_cost)
    reduction_alpha: int     # its additions of polynomials
    reduction_coefficient_additions: int

    @property
    def width(self) -> int:
        """Bits of a packed element (an operand, the result): m coefficients."""
        return self.coeff_bits * self.m


def derive(p: int, m: int, canonical: str, D: int, R: int, extra_steps: int) -> DigitPlan:
    """The plan of GF(p)[x]/(f), f the canonical `canonical` of degree m, digit D, R group
    registers (0: none), for an algorithm of `extra_steps` steps beyond its digits."""
    f = poly.parse_poly(canonical, p)
    digits = model.n_digits(m, D)
    irr, kind, message = _structure(p, f)
    red = model.reduction_cost(f, p, D)
    return DigitPlan(p=p, m=m, f=f, poly=canonical, D=D, R=R,
                     groups=tuple(model.groups(D, R)) if R else (), digits=digits,
                     steps=digits + extra_steps, coeff_bits=poly.coeff_bits(p), irreducible=irr, kind=kind,
                     structure=message, reduction_operands=red["operands"], reduction_alpha=red["alpha"],
                     reduction_coefficient_additions=red["coefficient_additions"],
                     **dataclasses.asdict(Timing.iterative(digits + extra_steps)))
