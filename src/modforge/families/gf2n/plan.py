"""The derived plan of a GF(2)[t]/F(t) multiplier (family gf2n): F, the split point r, the
exponent e of the congruence C = A*B*t^-e mod F, the step count, the structure of F, and the
timing they give.

Each algorithm interleaves one of three ways (`Interleaving`):
    blakely     one bit of A a step, left to right:         steps = n,  e = 0  (Alg 4)
    montgomery  one bit of B a step, right to left:         steps = n,  e = n  (Alg 5)
    bipartite   both halves at once, split at r = ceil(n/2): steps = r, e = r  (BMM, FIKO, RF-FIKO)
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Literal

from ...math.irreducible import structure
from ...math.poly import parse_poly
from ...registry import Timing
from .model import split_point

Interleaving = Literal["blakely", "montgomery", "bipartite"]


@functools.lru_cache(maxsize=256)
def poly_int(poly: str) -> int:
    """Canonical expression -> int form (bit i = coefficient of t^i)."""
    return sum(c << i for i, c in enumerate(parse_poly(poly, 2)))


@functools.lru_cache(maxsize=64)
def _structure(poly: str) -> tuple[bool, str, str]:
    """(irreducible, kind, message) of F (cached: the test takes time for large n)."""
    s = structure(parse_poly(poly, 2), 2)
    return s["irreducible"], s["kind"], s["message"]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Gf2nPlan(Timing):
    """One configuration's derived values. The timing is an IterativeCore's: a load cycle, then
    `steps` step cycles; cycles = steps, latency = initiation_interval = steps + 1."""
    n: int               # degree of F; operands and result have n bits
    poly: str            # F, canonical
    f: int               # F as an int, bit i = coefficient of t^i
    r: int               # the split point ceil(n/2) (A = A1 t^r + A0)
    exponent: int        # e in C = A*B*t^-e mod F
    steps: int           # step cycles of one multiplication
    irreducible: bool    # F irreducible: GF(2^n), else a ring
    kind: str            # "field" or "ring"
    structure: str       # F's structure in words
    serial: str = "shift"  # how the operand read a bit a step is held: "shift" or "select" (hw.py)


def derive(n: int, poly: str, interleaving: Interleaving, serial: str = "shift") -> Gf2nPlan:
    """The plan of degree n, canonical F `poly`, for an algorithm interleaving as `interleaving`
    says (the module docstring's table)."""
    r = split_point(n)
    steps, exponent = {"blakely": (n, 0), "montgomery": (n, n), "bipartite": (r, r)}[interleaving]
    irreducible, kind, message = _structure(poly)
    return Gf2nPlan(n=n, poly=poly, f=poly_int(poly), r=r, exponent=exponent, steps=steps,
                    irreducible=irreducible, kind=kind, structure=message, serial=serial,
                    **dataclasses.asdict(Timing.iterative(steps)))
