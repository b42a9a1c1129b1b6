"""The derived plan of the wide field multipliers (128 to 1024 bits, issue 37; wide.py):
q, k = bits(q), its form, the reduction's constants, its stages with their formula, and the
DSP count of every product on the profile.

Timing: one register stage a cycle, a product every cycle (initiation interval 1), latency =
cycles = `stages`:
    the product a*b                 P = KARATSUBA_STAGES + 1 = 4 (split, DSPs, recombination,
                                    the sum registered)
    montgomery                      P + 4 (t = x q' mod R) + 4 ((x + t q) / R) + 1 = 13
    barrett                         P + 4 (q3) + 4 (x - q3 q mod 2^(k+2)) + 1 = 13
    pseudo-mersenne                 P + f (f folds, each one shift-add sum; 2f when c is a DSP
                                    product: its partial products, then the sum) + 1
    solinas                         P + 1 (the signed word sum) + 1 (the correction) = 6
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ...hw.dsp import KARATSUBA_STAGES, dsp_tiles, karatsuba_dsps
from ...hw.wide import low_product_dsps
from ...math import fields as F
from ...registry import Timing

PRODUCT_STAGES = KARATSUBA_STAGES + 1
#: a pseudo-Mersenne c of at most this many signed digits is folded by shift-adds, no DSP
SHIFT_ADD_TERMS = 6


def naf(c: int) -> list[tuple[int, int]]:
    """c > 0 in non-adjacent form: [(sign, shift)], the fewest signed powers of two."""
    out, e = [], 0
    while c:
        if c & 1:
            d = 2 - (c & 3)          # 1 or -1
            out.append((d, e))
            c -= d
        c >>= 1
        e += 1
    return out


def fold_widths(k: int, c: int, xmax: int) -> list[tuple[int, int]]:
    """The pseudo-Mersenne folds of x <= xmax (fields.pseudo_mersenne_fold_bound's bound):
    [(bits of the high part hi, bits of lo + hi c)], one a fold, until the bound is below 2^k."""
    out, b = [], xmax
    while b >> k:
        h = b >> k
        b = max((h - 1) * c + (1 << k) - 1, h * c + (b & ((1 << k) - 1)))
        out.append((h.bit_length(), b.bit_length()))
    return out


@dataclasses.dataclass(frozen=True, kw_only=True)
class WidePlan(Timing):
    """One wide configuration's derived values."""
    q: int
    k: int                             # bits of q: a, b, c are k bits
    kind: str                          # the reduction (fields.REDUCTIONS)
    named: F.Named | None              # q's name, when q is a named prime
    forms: tuple[F.Form, ...]          # every form of q (fields.forms)
    gamma: tuple[int, int] | None      # the DSP profile (None: products left to the tool)
    stages: int
    formula: str
    multiplications: tuple[tuple[str, int, int, int], ...]  # (what, bits, bits, DSPs)
    scale: int                         # model(a, b) = a b scale mod q
    factor: str                        # the congruence's factor, e.g. A*B*2^-256
    terms: F.Terms = ()                # solinas: q's signed powers of two; pseudo-mersenne: c's
    w: int = 0                         # solinas: the word
    c: int = 0                         # pseudo-mersenne: q = 2^k - c
    folds: tuple[tuple[int, int], ...] = ()   # pseudo-mersenne: fold_widths
    shift_add: bool = False            # pseudo-mersenne: c by shift-adds

    @property
    def dsp_total(self) -> int:
        return sum(n for *_, n in self.multiplications)

    def form(self, name: str) -> F.Form | None:
        return next((f for f in self.forms if f.name == name), None)


def _dsps(what: str, bits: int, gamma: tuple[int, int] | None, low: bool = False) -> tuple[str, int, int, int]:
    return (what, bits, bits, low_product_dsps(bits, gamma) if low else karatsuba_dsps(bits, gamma))


def derive(q: int, kind: str, gamma: tuple[int, int] | None) -> WidePlan:
    """The plan of reduction `kind` for q (checked by the algorithm: q has the form)."""
    k = q.bit_length()
    named = next((n for n in F.NAMED.values() if n.q == q), None)
    forms = tuple(F.forms(q))
    product = _dsps("a b (Karatsuba)", k, gamma)
    common: dict[str, Any] = dict(q=q, k=k, kind=kind, named=named, forms=forms, gamma=gamma)
    if kind == "montgomery":
        stages = PRODUCT_STAGES * 3 + 1
        return _plan(common, stages, f"{stages} = 4 (a b) + 4 (t = x q' mod 2^{k}, truncated) + 4 ((x + t q) / "
                     f"2^{k}) + 1 (one conditional subtraction)",
                     (product, _dsps("t = x q' mod 2^k (low half)", k, gamma, True), _dsps("t q", k, gamma)),
                     pow(2, -k, q), f"A*B*2^-{k}")
    if kind == "barrett":
        stages = PRODUCT_STAGES * 3 + 1
        return _plan(common, stages, f"{stages} = 4 (a b) + 4 (q3 = ((x >> {k - 1}) mu) >> {k + 1}) + 4 "
                     f"(r = x - q3 q mod 2^{k + 2}, truncated) + 1 (r in [0, 3q): two conditional subtractions "
                     "in one stage)",
                     (product, _dsps("q3 = (x >> (k-1)) mu", k + 1, gamma),
                      _dsps("q3 q mod 2^(k+2) (low half)", k + 2, gamma, True)), 1, "A*B")
    if kind == "pseudo-mersenne":
        return _pseudo_mersenne(common, product)
    assert kind == "solinas"
    form = next(f for f in forms if f.name == "solinas")
    stages = PRODUCT_STAGES + 2
    return _plan(common, stages, f"{stages} = 4 (a b) + 1 (the signed sum of the folded words) + 1 (the "
                 "correction: the one of s + j q in [0, q))", (product,), 1, "A*B",
                 terms=form.params["terms"], w=form.params["w"])


def _pseudo_mersenne(common: dict[str, Any], product: tuple[str, int, int, int]) -> WidePlan:
    q, k, gamma = common["q"], common["k"], common["gamma"]
    c = (1 << k) - q
    folds = tuple(fold_widths(k, c, (q - 1) ** 2))
    digits = naf(c)
    shift_add = len(digits) <= SHIFT_ADD_TERMS or gamma is None
    per = 1 if shift_add else 2
    stages = PRODUCT_STAGES + per * len(folds) + 1
    how = "one shift-add sum" if shift_add else "the hi c partial products, then the sum"
    mults = [product] + ([] if shift_add else
                         [(f"hi c (fold {i + 1})", h, c.bit_length(), dsp_tiles(h, c.bit_length(), *gamma))
                          for i, (h, _) in enumerate(folds)])
    return _plan(common, stages, f"{stages} = 4 (a b) + {per * len(folds)} ({len(folds)} folds x = lo + hi c, "
                 f"each {how}) + 1 (one conditional subtraction)", tuple(mults), 1, "A*B",
                 terms=tuple(digits), c=c, folds=folds, shift_add=shift_add)


def _plan(common: dict[str, Any], stages: int, formula: str, mults: tuple[tuple[str, int, int, int], ...],
          scale: int, factor: str, **extra: Any) -> WidePlan:
    return WidePlan(**common, stages=stages, formula=formula, multiplications=mults, scale=scale,
                    factor=factor, cycles=stages, latency=stages, initiation_interval=1, **extra)
