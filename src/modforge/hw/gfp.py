"""GF(p) polynomial arithmetic in hardware, bit-sliced: the datapath toolkit of the GF(p^m)
multipliers.

A `Vec` of n coefficients over GF(p) holds w = coeff_bits(p) planes of n bits each, plane
k = bit k of every coefficient, so GF(p) operations act on whole polynomials with wide
bitwise logic (p = 2: XOR/AND; p = 3 in the 2-bit encoding 0, 1, 2 = 00, 01, 10: 4-input
functions; other small p: a bit-sliced adder with conditional subtraction of p and minterm
tables).  Ports use the packed encoding: coefficient i in bits [w*i+w-1 : w*i]
(`from_packed`, `to_packed`).

Contract: for inputs whose coefficients are in [0, p), `GF(p)` computes coefficient-wise
sums mod p (`add`, `sum`), constant multiples (`scale`), a variable coefficient times a
polynomial (`mul_coef`), and the reduction mod a constant f by eq. (2) of Beuchat et al.
(`reduce`, `reduce_rows`), each equal to the `modforge.math.poly` result; all of it is
combinational.  Bound to a module (`bind`), the helper drives intermediate results into
named comb signals (names numbered in creation order).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from amaranth.hdl import Cat, Const, Module, Signal, Value

from modforge.math import poly

__all__ = ["GF", "Vec"]


class Vec:
    """n coefficients over GF(p), bit-sliced: planes[k] (n bits) = bit k of every coefficient."""

    __slots__ = ("planes", "n")

    def __init__(self, planes: Iterable[Value], n: int) -> None:
        self.planes = tuple(planes)
        self.n = n

    def bits(self, i: int) -> list[Value]:
        """The w bits of coefficient i."""
        return [pl[i] for pl in self.planes]


class GF:
    """GF(p) vector arithmetic on `Vec`s: one instance per core, bound to its module."""

    def __init__(self, p: int):
        self.p = p
        self.w = poly.coeff_bits(p)
        self.module: Module | None = None
        self._count = 0

    def bind(self, module: Module) -> None:
        """Give the helper a module for its intermediate wires: every GF(p) operation whose
        inputs fan out more than once (p > 2) drives named comb signals, which keeps the
        netlist and the simulator's expressions linear in the tree size."""
        self.module = module

    def wire(self, value: Value, name: str) -> Value:
        if self.module is None:
            return value
        self._count += 1
        sig = Signal(len(value), name=f"{name}{self._count}")
        self.module.d.comb += sig.eq(value)
        return sig

    def wire_vec(self, v: Vec, name: str) -> Vec:
        return Vec([self.wire(pl, f"{name}_b{k}_") for k, pl in enumerate(v.planes)], v.n)

    # --- wiring -----------------------------------------------------------------------
    def const(self, n: int, value: int = 0) -> Vec:
        return Vec([Const(0 if not (value >> k) & 1 else (1 << n) - 1, n) for k in range(self.w)], n)

    def zero(self, n: int) -> Vec:
        return self.const(n, 0)

    def ext(self, v: Vec, n: int) -> Vec:
        """Zero-extend to n coefficients."""
        if v.n == n:
            return v
        assert n > v.n
        return Vec([Cat(pl, Const(0, n - v.n)) for pl in v.planes], n)

    def shift(self, v: Vec, k: int) -> Vec:
        """x^k v(x) (wiring)."""
        if k == 0:
            return v
        return Vec([Cat(Const(0, k), pl) for pl in v.planes], v.n + k)

    def slice(self, v: Vec, lo: int, hi: int) -> Vec:
        return Vec([pl[lo:hi] for pl in v.planes], hi - lo)

    def from_packed(self, x: Value, n: int) -> Vec:
        """Packed port encoding -> planes (wiring)."""
        w = self.w
        if w == 1:
            return Vec([x[:n]], n)
        return Vec([Cat(*[x[w * i + k] for i in range(n)]) for k in range(w)], n)

    def to_packed(self, v: Vec) -> Value:
        """Planes -> packed port encoding (wiring)."""
        if self.w == 1:
            return v.planes[0]
        return Cat(*[pl[i] for i in range(v.n) for pl in v.planes])

    def reg(self, n: int, name: str) -> Vec:
        return Vec([Signal(n, name=f"{name}_b{k}" if self.w > 1 else name) for k in range(self.w)], n)

    def eq(self, dst: Vec, src: Vec) -> list:
        src = self.ext(src, dst.n) if src.n < dst.n else src
        return [d.eq(s[:dst.n]) for d, s in zip(dst.planes, src.planes, strict=True)]

    # --- GF(p) arithmetic -------------------------------------------------------------
    def add(self, u: Vec, v: Vec) -> Vec:
        """u + v, coefficient-wise mod p."""
        n = max(u.n, v.n)
        u, v = self.ext(u, n), self.ext(v, n)
        if self.p == 2:
            return Vec([u.planes[0] ^ v.planes[0]], n)
        if self.p == 3:
            (a0, a1), (b0, b1) = u.planes, v.planes
            t = self.wire((a1 | b0) ^ (a0 | b1), "t")
            return self.wire_vec(Vec([(a1 | b1) ^ t, (a0 | b0) ^ t], n), "sum")
        # general p: bit-sliced ripple adder, then subtract p when the sum is >= p
        ones = Const((1 << n) - 1, n)
        s, c = [], Const(0, n)
        for a, b in zip(u.planes, v.planes, strict=True):
            s.append(self.wire(a ^ b ^ c, "s"))
            c = self.wire((a & b) | (c & (a ^ b)), "c")
        s.append(c)
        d, br = [], Const(0, n)
        for k, x in enumerate(s):
            y = ones if (self.p >> k) & 1 else Const(0, n)
            d.append(x ^ y ^ br)
            br = self.wire((~x & y) | (~x & br) | (y & br), "br")
        ge = ~br
        return self.wire_vec(Vec([(d[k] & ge) | (s[k] & ~ge) for k in range(self.w)], n), "sum")

    def sum(self, vs: list[Vec]) -> Vec:
        """Balanced adder tree."""
        vs = list(vs)
        if not vs:
            raise ValueError("empty sum")
        while len(vs) > 1:
            vs = [self.add(vs[i], vs[i + 1]) if i + 1 < len(vs) else vs[i] for i in range(0, len(vs), 2)]
        return vs[0]

    def _match(self, v: Vec, value: int) -> Value:
        """Per coefficient: 1 where the coefficient equals `value` (a minterm of the w planes)."""
        term = None
        for k, pl in enumerate(v.planes):
            lit = pl if (value >> k) & 1 else ~pl
            term = lit if term is None else term & lit
        return term

    def scale(self, v: Vec, c: int) -> Vec:
        """c * v for a constant c."""
        c %= self.p
        if c == 0:
            return self.zero(v.n)
        if c == 1:
            return v
        if self.p == 3:  # c = 2: swap the two bits (wiring)
            return Vec([v.planes[1], v.planes[0]], v.n)
        v = self.wire_vec(v, "sc_in")
        out = []
        for k in range(self.w):
            terms = [self._match(v, x) for x in range(1, self.p) if ((c * x) % self.p >> k) & 1]
            acc = terms[0]
            for t in terms[1:]:
                acc = acc | t
            out.append(acc)
        return self.wire_vec(Vec(out, v.n), "scaled")

    def mul_coef(self, coef: list[Value], v: Vec) -> Vec:
        """a * v for one variable coefficient a (its w bits): a partial product."""
        n = v.n
        if self.p == 2:
            return Vec([v.planes[0] & coef[0].replicate(n)], n)
        if self.p == 3:
            one, two = coef[0].replicate(n), coef[1].replicate(n)  # a = 1, a = 2
            vl, vh = v.planes
            return self.wire_vec(Vec([(one & vl) | (two & vh), (one & vh) | (two & vl)], n), "pp")
        v = self.wire_vec(v, "pp_in")
        acc: list[Value] = []
        for x in range(1, self.p):
            sel = (Cat(*coef) == x).replicate(n)
            sv = self.scale(v, x)
            term = [sel & pl for pl in sv.planes]
            acc = [a | t for a, t in zip(acc, term, strict=True)] if acc else term
        return self.wire_vec(Vec(acc, n), "pp")

    # --- reduction by f (eq. (2)) -----------------------------------------------------
    def reduce_rows(self, v: Vec, f: Sequence[int]) -> list[Vec]:
        """v mod f as a list of polynomials of m coefficients to be summed (eq. (2)): row 0
        is v_0..v_{m-1}; each term v_i (x^i mod f) contributes c*v_i at position k, placed
        in the first row free at k.  Rows = max operands per output coefficient."""
        f = poly.trim(f)
        m = len(f) - 1
        if v.n <= m:
            return [v]
        rows, scales = _place_terms(poly.xpow_table(f, self.p, v.n - m))
        high = self.slice(v, m, v.n)
        scaled = {c: self.scale(high, c) for c in scales}
        return [self.slice(v, 0, m)] + [self._row(row, scaled, m) for row in rows]

    def _row(self, row: dict[int, tuple[int, int]], scaled: dict[int, Vec], m: int) -> Vec:
        """One reduction row (wiring): position k takes coefficient i of c*v_high, runs of
        consecutive sources as one slice, empty positions zero."""
        planes = []
        for plane in range(self.w):
            parts, k = [], 0
            while k < m:
                if k not in row:  # a run of zeros
                    k2 = k
                    while k2 < m and k2 not in row:
                        k2 += 1
                    parts.append(Const(0, k2 - k))
                    k = k2
                    continue
                c, i = row[k]  # a run of consecutive sources with the same scale
                k2 = k + 1
                while k2 < m and row.get(k2) == (c, i + k2 - k):
                    k2 += 1
                parts.append(scaled[c].planes[plane][i:i + k2 - k])
                k = k2
            planes.append(Cat(*parts))
        return Vec(planes, m)

    def reduce(self, v: Vec, f: Sequence[int]) -> Vec:
        return self.sum(self.reduce_rows(v, f))


def _place_terms(table: Iterable[Sequence[int]]) -> tuple[list[dict[int, tuple[int, int]]], list[int]]:
    """The terms c*v_{m+i} at position k of eq. (2) (c = coefficient k of table[i]), each in
    the first row free at k: (rows as {k: (c, i)}, the scales c in order of first use)."""
    rows: list[dict[int, tuple[int, int]]] = []
    scales: list[int] = []
    for i, r in enumerate(table):
        for k, c in enumerate(r):
            if not c:
                continue
            if c not in scales:
                scales.append(c)
            row = 0
            while row < len(rows) and k in rows[row]:
                row += 1
            if row == len(rows):
                rows.append({})
            rows[row][k] = (c, i)
    return rows, scales
