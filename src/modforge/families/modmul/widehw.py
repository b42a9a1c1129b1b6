"""Fully pipelined datapaths of the wide field multipliers (128 to 1024 bits, wide.py): the
product a*b and the reductions' products from hw.wide's Karatsuba tiling (whole products,
truncated low halves and tops), the special forms' folds as shift-adds and word sums, then
the final correction; one register stage per step, the stages of wideplan.py's formulas.

Payload: a in the low k bits, b in the next k bits (a, b < q), k = bits(q); result: k bits,
in [0, q) (fully reduced). Each datapath's model is math.fields' (bit-exact at the output).
op=square: a alone, the product a^2 (hw.wide's square tree). output=lazy: the result
c < 2q (k + 1 bits; pseudo-mersenne: k bits, < 2^k), the bounds of wide.py's docstring.
"""

from __future__ import annotations

from typing import Any

from amaranth.hdl import Cat, Const, Module, Mux, Value, signed

from ...hw.dsp import DEEP_SEGMENT, accumulate, karatsuba_sum, partial_products, register_products, wire
from ...hw.layout import Layouts
from ...hw.pipeline import Datapath, Operands, Stager
from ...hw.wide import high_product, low_product, products
from ...math import fields as F
from .wideplan import WidePlan


class WideDatapath(Datapath):
    """Common part: the product a*b (PRODUCT_STAGES stages) and the last correction."""

    def __init__(self, plan: WidePlan, layouts: Layouts):
        self.plan, self.q, self.k, self.dsp = plan, plan.q, plan.k, plan.gamma
        self.by_constant: dict[str, Any] = {"logic": plan.logic, "deep": plan.deep}   # hw.wide's low/high_product
        super().__init__(*layouts, plan.stages)

    def product(self, stage: Stager, operands: Operands) -> Value:
        """x = a*b (a^2: the square tree), 2k bits: the Karatsuba stages, then the sum registered."""
        k, name = self.k, "aa" if self.plan.square else "ab"
        trees, _ = products(stage, [(operands.a, None if self.plan.square else operands.b, k)], self.dsp, name,
                             deep=self.plan.deep)
        total = karatsuba_sum(stage.m, trees[0], name, segment=DEEP_SEGMENT if self.plan.deep else 0)
        x = stage(total[:2 * k], "x", 2 * k)                                     # the last stage: x = a b
        stage.next()
        return x

    def correct(self, stage: Stager, r: Value, most: int = 1) -> Value:
        """Last stage: r in [0, (most + 1) q) -> r mod q, the conditional subtractions side by
        side (lazy, most 3: that of 2q alone, r < 2q, out_bits wide)."""
        out: Value = r
        for j in [2] if self.plan.lazy else range(1, most + 1):
            d = wire(stage.m, r - j * self.q, f"r_{j}q")
            out = Mux(d[-1], out, d)                              # d >= 0: its sign bit clear
        c = stage(out[:self.plan.out_bits], "c", self.plan.out_bits)
        stage.next()
        return c


class Montgomery(WideDatapath):
    """x 2^-k mod q, R = 2^k: t = x q' mod R (a truncated product), s = (x + t q) / R < 2q,
    one subtraction. x + t q = 0 mod R makes s exact from hw.wide's top of t q alone: A in
    (t q - 2^(k-1), t q], so x + A in (s R - R/2, s R], and with Y = (x >> (k-2)) + (A >>
    (k-2)) in [4s - 3, 4s] (the two floors lose at most 1), s = (Y + 3) >> 2: of x only its
    top k + 2 bits ride on."""

    def build(self, m: Module, stage: Stager, operands: Operands) -> Value:
        k, q = self.k, self.q
        x = self.product(stage, operands)
        qp = F.montgomery_constants(q, k)[1]
        t, [xh] = low_product(stage, x[:k], qp, k, self.dsp, "t", [x[k - 2:]], **self.by_constant)   # t = x_l q' mod R
        t, xh = stage(t, "t", k), stage(xh, "xh")
        stage.next()
        # Y 2^(k-2) = x's top 2^(k-2) + A in tq's own sum (deep: its carry-save terms), + 3 2^(k-2)
        y, _ = high_product(stage, t, q, k, self.dsp, "tq", slack=1, addends=[(xh, k - 2), (3, k - 2)],
                            **self.by_constant)
        s = stage(y[k:2 * k + 1], "s", k + 1)                                 # s = (x + t q) / R < 2q
        stage.next()
        return s if self.plan.lazy else self.correct(stage, s)


class Barrett(WideDatapath):
    """x mod q (HAC 14.42, radix 2): q3 = ((x >> (k-1)) mu) >> (k+1), mu = floor(4^k / q),
    from hw.wide's top of the product (error under 2^(k+1): q3 or one less); r = x - q3 q in
    [0, 4q) from the low k+2 bits of both (a truncated product); three conditional
    subtractions (lazy: one, of 2q)."""

    def build(self, m: Module, stage: Stager, operands: Operands) -> Value:
        k, q = self.k, self.q
        x = self.product(stage, operands)
        mu = (1 << 2 * k) // q
        um, [xl] = high_product(stage, x[k - 1:], mu, k + 1, self.dsp, "qm", [x[:k + 2]], **self.by_constant)
        q3 = stage(um[k + 1:2 * k + 2], "q3", k + 1)
        xl = stage(xl, "xl")
        stage.next()
        lo, [xl] = low_product(stage, q3, q, k + 2, self.dsp, "q3q", [xl], **self.by_constant)   # q3 q mod 2^(k+2)
        r = stage((xl - lo)[:k + 2], "r", k + 2)                            # r = x - q3 q in [0, 4q)
        stage.next()
        return self.correct(stage, r, most=3)


class PseudoMersenne(WideDatapath):
    """q = 2^k - c: folds x = lo + hi c (2^k = c mod q) until x < 2^k < 2q, then one
    subtraction. hi c as shift-adds of c's signed digits (sparse c), else DSP tiles."""

    def fold(self, stage: Stager, v: Value, i: int, hi_bits: int, width: int) -> Value:
        k, plan = self.k, self.plan
        lo, hi = v[:k], v[k:k + hi_bits]
        if plan.shift_add:
            pos = [(e, hi) for s, e in plan.terms if s > 0]
            neg = [(e, hi) for s, e in plan.terms if s < 0]
            total = lo + accumulate(pos) - (accumulate(neg) if neg else 0)
        else:
            pp = register_products(stage, partial_products(hi, hi_bits, plan.c, plan.c.bit_length(), self.dsp),
                                   f"f{i}")
            lo = stage(lo, f"f{i}_lo")
            stage.next()
            total = lo + accumulate(pp)
        out = stage(total[:width], f"f{i}", width)
        stage.next()
        return out

    def build(self, m: Module, stage: Stager, operands: Operands) -> Value:
        v = self.product(stage, operands)
        for i, (hi_bits, width) in enumerate(self.plan.folds):
            v = self.fold(stage, v, i, hi_bits, width)
        return v if self.plan.lazy else self.correct(stage, v)                # lazy: v < 2^k


class Solinas(WideDatapath):
    """The NIST-style word fold (fields.solinas): x's 2n words a_i (w bits), s = sum_j (a_j +
    sum_i a_(n+i) m_ij) 2^(w j), packed into as few k-bit addends as the coefficients allow
    (a word of each column in each), adds and subtracts only; s in [-A q, (B+1) q); then the
    s - j q in [0, q) chosen among the A + B + 1 candidates side by side."""

    def addends(self, x: Value) -> tuple[list[Value], list[Value]]:
        """(positive, negative) k-bit addends whose sum is s."""
        w, n = self.plan.w, self.k // self.plan.w
        rows = F.solinas_table(self.plan.terms, w)
        words = [x[w * i:w * (i + 1)] for i in range(2 * n)]
        pos: list[list[Value]] = [[words[j]] for j in range(n)]
        neg: list[list[Value]] = [[] for _ in range(n)]
        for i, row in enumerate(rows):
            for j, mij in enumerate(row):
                (pos if mij > 0 else neg)[j].extend([words[n + i]] * abs(mij))
        zero = Const(0, w)
        pack = lambda cols: [Cat(*(col[r] if r < len(col) else zero for col in cols))  # noqa: E731
                             for r in range(max(map(len, cols)))]
        return pack(pos), pack(neg)

    def build(self, m: Module, stage: Stager, operands: Operands) -> Value:
        q = self.q
        x = self.product(stage, operands)
        low, high = F.solinas_bounds(self.plan.terms, self.plan.w)
        pos, neg = self.addends(x)
        width = max((low * q).bit_length(), ((high + 1) * q).bit_length()) + 1
        total: Value = sum(pos[1:], pos[0])
        if neg:
            total = total - sum(neg[1:], neg[0])
        s = stage(total, "s", signed(width))                                # s = x + j q, -A <= j <= B
        stage.next()
        out: Value = s + low * q                                            # j = -A: never negative
        step = 2 if self.plan.lazy else 1                                   # lazy: (s + A q) mod 2q
        for j in range(-low + step, high + 1, step):
            cand = wire(m, s - j * q, f"s_{j + low}")
            out = Mux(cand[-1], out, cand)
        c = stage(out[:self.plan.out_bits], "c", self.plan.out_bits)
        stage.next()
        return c
