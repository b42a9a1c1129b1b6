"""The derived plan of the wide field multipliers (128 to 1024 bits, issue 37; wide.py):
q, k = bits(q), its form, the reduction's constants, its stages with their formula, and the
DSP count of every product on the profile.

Timing: one register stage a cycle, a product every cycle (initiation interval 1), latency =
cycles = `stages`:
    the product a*b                 P = KARATSUBA_STAGES + 1 = 4 (split, DSPs, recombination,
                                    the sum registered)
    montgomery                      P + 4 (t = x q' mod R) + 4 ((x + t q) / R, t q's top) + 1 = 13
    barrett                         P + 4 (q3, the product's top) + 4 (x - q3 q mod 2^(k+2)) + 1 = 13
    pseudo-mersenne                 P + f (f folds, each one shift-add sum; 2f when c is a DSP
                                    product: its partial products, then the sum) + 1
    solinas                         P + 1 (the signed word sum) + 1 (the correction) = 6

depth=deep: every product, whole or truncated (the 4s above), one stage more for each
Karatsuba level of its deepest tree above the first two (hw.dsp.deep_stages), and the
truncated products (by q, q', mu) one more for the top level's split (two levels or more:
its middle's differences registered before the levels below take theirs,
hw.wide.deep_product_stages): stage 3
recombines the first level, the last stage the root, whose top is one carry-save sum and a
carry-select add (hw.dsp.fast_sum); short (the default)
recombines all above the first in the last stage, whose carry chains then run through
every level (on ECP5 at 130 bits 50 MHz against deep's 88; at 255 bits only deep routes:
benchmarks/prime_fields.md).

DSPs: the product a*b's Karatsuba tiling; the reductions' products by constants (q, q', mu)
their nonzero tiles (hw.wide.low_tiles, high_tiles), less those built in logic (`logic`,
hw.dsp.cheapest_logic): every tile of a one-digit constant chunk (a shift), and with
dsp_budget=N the cheapest in adders until at most N DSPs are left.

op=square: the product a^2 (hw.dsp's square tree), the same stages. output=lazy (c < 2q, the
final subtraction left out where it is one): montgomery and pseudo-mersenne one stage fewer
(12; P + f), barrett and solinas the same stages with fewer comparisons (one subtraction of
two; every other correction candidate).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ...hw.dsp import (
    KARATSUBA_STAGES,
    Logic,
    cheapest_logic,
    deep_stages,
    dsp_tiles,
    karatsuba_dsps,
    karatsuba_levels,
    karatsuba_square_dsps,
    karatsuba_square_levels,
    naf,
)
from ...hw.wide import deep_product_stages, high_pieces, high_tiles, low_pieces, low_tiles, pieces_levels
from ...math import fields as F
from ...registry import Timing

PRODUCT_STAGES = KARATSUBA_STAGES + 1
#: a pseudo-Mersenne c of at most this many signed digits is folded by shift-adds, no DSP
SHIFT_ADD_TERMS = 6


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
    logic: Logic = frozenset()         # the constant chunks built by shift-adds (hw.dsp.cheapest_logic)
    logic_tiles: int = 0               # the tiles of those chunks
    logic_adders: int = 0              # their adders
    square: bool = False               # op=square: one operand a, the product a^2
    deep: bool = False                 # depth=deep: a stage a Karatsuba level (hw.wide.deep_product_stages)
    lazy: bool = False                 # output=lazy: c < out_bound, congruent
    in_bound: int = 0                  # every operand < in_bound (q; lazy: 2^k, montgomery q)
    out_bound: int = 0                 # c < out_bound (q; lazy: 2q, pseudo-mersenne 2^k)

    @property
    def out_bits(self) -> int:
        return (self.out_bound - 1).bit_length()

    @property
    def dsp_total(self) -> int:
        return sum(n for *_, n in self.multiplications)

    def form(self, name: str) -> F.Form | None:
        return next((f for f in self.forms if f.name == name), None)


#: a reduction's product by a constant: (what, bits, its tiles: hw.wide.low_tiles or high_tiles)
ByConstant = tuple[str, int, list[tuple[int, int]]]


def _by_constants(common: dict[str, Any], product: tuple[str, int, int, int], parts: list[ByConstant],
                  budget: int) -> dict[str, Any]:
    """The plan's multiplications (the product, then each by-constant product: its tiles not in
    logic) and the logic (hw.dsp.cheapest_logic, what the budget leaves the constants)."""
    tiles = [t for *_, ts in parts for t in ts]
    logic = cheapest_logic(tiles, budget - product[-1] if budget else None)
    moved = [(b, c) for b, c in tiles if c in logic]
    mults = (product,) + tuple((what, bits, bits, sum(c not in logic for _, c in ts)) for what, bits, ts in parts)
    return dict(common, multiplications=mults, logic=logic, logic_tiles=len(moved),
                logic_adders=sum(len(naf(c)) - 1 for _, c in moved))


def bounds(q: int, kind: str, lazy: bool) -> tuple[int, int]:
    """(operands' bound, result's bound), both exclusive. Reduced: (q, q). Lazy: the result
    < 2q (pseudo-mersenne: < 2^k, the folds' bound); the operands any k-bit value (x = a b <
    4^k, the bound under which math.fields proves barrett's r < 3q, the folds' and solinas'
    ranges), but montgomery's < q: s = (x + t q) / 2^k < 2q needs x < q 2^k (with a, b < 2q,
    s < 5q)."""
    k = q.bit_length()
    if not lazy:
        return q, q
    return (q if kind == "montgomery" else 1 << k), (1 << k if kind == "pseudo-mersenne" else 2 * q)


def derive(q: int, kind: str, gamma: tuple[int, int] | None, op: str = "mul", output: str = "reduced",
           dsp_budget: int = 0, depth: str = "short") -> WidePlan:
    """The plan of reduction `kind` for q (checked by the algorithm: q has the form), of a b
    (op=mul) or a^2 (op=square), fully reduced or lazy (output); dsp_budget (0: none): at most
    that many DSPs, the constants' cheapest tiles in logic; depth=deep: a stage a Karatsuba
    level (the module docstring)."""
    k = q.bit_length()
    named = next((n for n in F.NAMED.values() if n.q == q), None)
    forms = tuple(F.forms(q))
    square, lazy, deep = op == "square", output == "lazy", depth == "deep"
    product = ("a^2 (Karatsuba square)", k, k, karatsuba_square_dsps(k, gamma)) if square else \
        ("a b (Karatsuba)", k, k, karatsuba_dsps(k, gamma))

    def tiles(of: Any, y: int, bits: int, *slack: int) -> list[tuple[int, int]]:
        return [] if gamma is None else of(y, bits, gamma, *slack)

    def extra(levels: list[int]) -> int:            # the truncated products' deep stages
        return deep_product_stages(levels) if deep else 0

    P = PRODUCT_STAGES + (deep_stages([karatsuba_square_levels(k, gamma) if square else karatsuba_levels(k, gamma)])
                          if deep else 0)

    ab, AB = ("a^2", "A^2") if square else ("a b", "A*B")
    in_bound, out_bound = bounds(q, kind, lazy)
    common: dict[str, Any] = dict(q=q, k=k, kind=kind, named=named, forms=forms, gamma=gamma, square=square,
                                  lazy=lazy, deep=deep, in_bound=in_bound, out_bound=out_bound)
    if kind == "montgomery":
        low = PRODUCT_STAGES + extra(pieces_levels(low_pieces(k, gamma), gamma))
        top = PRODUCT_STAGES + extra(pieces_levels(high_pieces(k, gamma, 1)[1], gamma))
        stages = P + low + top + (0 if lazy else 1)
        last = ", s < 2q: the result (lazy, no subtraction)" if lazy else ") + 1 (one conditional subtraction"
        qp = F.montgomery_constants(q, k)[1]
        parts = [("t = x q' mod 2^k (low half)", k, tiles(low_tiles, qp, k)),
                 ("t q (its top, error < 2^(k-1))", k, tiles(high_tiles, q, k, 1))]
        return _plan(_by_constants(common, product, parts, dsp_budget), stages,
                     f"{stages} = {P} ({ab}) + {low} (t = x q' mod 2^{k}, truncated) + {top} ((x + t q) / 2^{k} from "
                     f"the top of t q{last})", pow(2, -k, q), f"{AB}*2^-{k}")
    if kind == "barrett":
        top = PRODUCT_STAGES + extra(pieces_levels(high_pieces(k + 1, gamma)[1], gamma))
        low = PRODUCT_STAGES + extra(pieces_levels(low_pieces(k + 2, gamma), gamma))
        stages = P + top + low + 1
        last = ("one conditional subtraction of 2q, r < 2q (lazy)" if lazy else
                "three conditional subtractions in one stage")
        mu = (1 << 2 * k) // q
        parts = [("q3 = (x >> (k-1)) mu (its top, error < 2^(k+1))", k + 1, tiles(high_tiles, mu, k + 1)),
                 ("q3 q mod 2^(k+2) (low half)", k + 2, tiles(low_tiles, q, k + 2))]
        return _plan(_by_constants(common, product, parts, dsp_budget), stages,
                     f"{stages} = {P} ({ab}) + {top} (q3 = ((x >> {k - 1}) mu) >> {k + 1} from the product's top) + "
                     f"{low} (r = x - q3 q mod 2^{k + 2}, truncated) + 1 (r in [0, 4q): {last})", 1, AB)
    if kind == "pseudo-mersenne":
        return _pseudo_mersenne(common, product, P, ab, AB)
    assert kind == "solinas"
    form = next(f for f in forms if f.name == "solinas")
    stages = P + 2
    last = "(s + A q) mod 2q < 2q (lazy): every other candidate s - j q" if lazy else "the one of s + j q in [0, q)"
    return _plan(dict(common, multiplications=(product,)), stages, f"{stages} = {P} ({ab}) + 1 (the signed sum of "
                 f"the folded words) + 1 (the correction: {last})", 1, AB, terms=form.params["terms"],
                 w=form.params["w"])


def _pseudo_mersenne(common: dict[str, Any], product: tuple[str, int, int, int], P: int, ab: str,
                     AB: str) -> WidePlan:
    q, k, gamma, lazy = common["q"], common["k"], common["gamma"], common["lazy"]
    c = (1 << k) - q
    folds = tuple(fold_widths(k, c, (common["in_bound"] - 1) ** 2))
    digits = naf(c)
    shift_add = len(digits) <= SHIFT_ADD_TERMS or gamma is None
    per = 1 if shift_add else 2
    stages = P + per * len(folds) + (0 if lazy else 1)
    how = "one shift-add sum" if shift_add else "the hi c partial products, then the sum"
    mults = [product] + ([] if shift_add else
                         [(f"hi c (fold {i + 1})", h, c.bit_length(), dsp_tiles(h, c.bit_length(), *gamma))
                          for i, (h, _) in enumerate(folds)])
    last = ", x < 2^k: the result (lazy, no subtraction)" if lazy else ") + 1 (one conditional subtraction"
    return _plan(dict(common, multiplications=tuple(mults)), stages, f"{stages} = {P} ({ab}) + {per * len(folds)} "
                 f"({len(folds)} folds x = lo + hi c, each {how}{last})", 1, AB,
                 terms=tuple(digits), c=c, folds=folds, shift_add=shift_add)


def _plan(common: dict[str, Any], stages: int, formula: str, scale: int, factor: str, **extra: Any) -> WidePlan:
    return WidePlan(**common, stages=stages, formula=formula, scale=scale, factor=factor, cycles=stages,
                    latency=stages, initiation_interval=1, **extra)
