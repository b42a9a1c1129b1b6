"""Amaranth hardware of the digit-serial GF(p^m) multipliers (see model.py for the maths).

Polynomials over GF(p) are bit-sliced inside the cores: a `Vec` of n coefficients holds
w = coeff_bits(p) planes of n bits each, plane k = bit k of every coefficient.  GF(p)
operations then act on whole polynomials with wide bitwise logic (p = 2: XOR/AND; p = 3 in
the paper's 2-bit encoding 0, 1, 2 = 00, 01, 10: the 4-input functions below; other small
p: a bit-sliced adder with conditional subtraction of p and minterm tables).  Ports use
the packed encoding: coefficient i in bits [w*i+w-1 : w*i]; the input payload is a in the
low m*w bits, b in the next m*w bits.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Signal, Value

from modforge.hw.iterative import IterativeCore
from modforge.math import poly

from . import model

__all__ = [
    "GF", "Vec", "MseShuCore", "MseDigitCore", "LseBasicCore", "LseDigitCore", "LseNamCore",
]


class Vec:
    """n coefficients over GF(p), bit-sliced: planes[k] (n bits) = bit k of every coefficient."""

    __slots__ = ("planes", "n")

    def __init__(self, planes, n: int):
        self.planes = tuple(planes)
        self.n = n

    def bits(self, i: int) -> list[Value]:
        """The w bits of coefficient i."""
        return [pl[i] for pl in self.planes]


class GF:
    """GF(p) vector arithmetic on `Vec`s: the shared building block of every core."""

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
        return [d.eq(s[:dst.n]) for d, s in zip(dst.planes, src.planes)]

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
        for a, b in zip(u.planes, v.planes):
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
            l, h = coef[0].replicate(n), coef[1].replicate(n)
            vl, vh = v.planes
            return self.wire_vec(Vec([(l & vl) | (h & vh), (l & vh) | (h & vl)], n), "pp")
        v = self.wire_vec(v, "pp_in")
        acc = None
        for x in range(1, self.p):
            sel = (Cat(*coef) == x).replicate(n)
            sv = self.scale(v, x)
            term = [sel & pl for pl in sv.planes]
            acc = term if acc is None else [a | t for a, t in zip(acc, term)]
        return self.wire_vec(Vec(acc, n), "pp")

    # --- reduction by f (eq. (2)) -----------------------------------------------------
    def reduce_rows(self, v: Vec, f) -> list[Vec]:
        """v mod f as a list of polynomials of m coefficients to be summed (eq. (2)): row 0
        is v_0..v_{m-1}; each term v_i (x^i mod f) contributes c*v_i at position k, placed
        in the first row free at k.  Rows = max operands per output coefficient."""
        f = poly.trim(f)
        m = len(f) - 1
        if v.n <= m:
            return [v]
        table = model.xpow_table(f, self.p, v.n - m)
        high = self.slice(v, m, v.n)
        scaled: dict[int, Vec] = {}
        rows: list[dict[int, tuple[int, int]]] = []  # row -> {position k: (c, i)}
        for i, r in enumerate(table):
            for k, c in enumerate(r):
                if not c:
                    continue
                if c not in scaled:
                    scaled[c] = self.scale(high, c)
                row = 0
                while row < len(rows) and k in rows[row]:
                    row += 1
                if row == len(rows):
                    rows.append({})
                rows[row][k] = (c, i)
        out = [self.slice(v, 0, m)]
        for row in rows:
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
            out.append(Vec(planes, m))
        return out

    def reduce(self, v: Vec, f) -> Vec:
        return self.sum(self.reduce_rows(v, f))


class _Core(IterativeCore):
    """Common shell: GF(p)[x]/f, digit size D, packed a/b in, packed m coefficients out.

    Subclasses describe their registers as (register, value at load, value at each step);
    all combinational logic is built first, then one load/step block updates the state.
    """

    def __init__(self, p: int, f, D: int, steps: int):
        self.p, self.f, self.D = p, poly.trim(f), D
        self.m = len(self.f) - 1
        self.n = model.n_digits(self.m, D)
        self.gf = GF(p)
        w = self.gf.w
        super().__init__(2 * self.m * w, self.m * w, steps)

    def operands_in(self, module: Module, operands: Value) -> tuple[Vec, Vec]:
        """Bind the GF helper to the module and split the payload into a and b (wiring)."""
        self.gf.bind(module)
        mw = self.m * self.gf.w
        return (self.gf.from_packed(operands[:mw], self.m),
                self.gf.from_packed(operands[mw:2 * mw], self.m))

    def update(self, m: Module, load: Value, step: Value, regs) -> None:
        """regs: (register Vec, value on load, value on each step or None to hold)."""
        gf = self.gf
        with m.If(load):
            for r, at_load, _ in regs:
                m.d.sync += gf.eq(r, at_load)
        with m.Elif(step):
            for r, _, at_step in regs:
                if at_step is not None:
                    m.d.sync += gf.eq(r, at_step)

    def pps(self, digit: list[list[Value]], base: Vec, js) -> list[Vec]:
        """Partial products a_{Di+j} x^j base(x), j in js (not reduced)."""
        return [self.gf.mul_coef(digit[j], self.gf.shift(base, j)) for j in js]

    def a_register(self, msb_first: bool):
        """The a register (n*D coefficients, a zero-padded), shifted by D per step, zeros in:
        MSE first shifts up and reads its top D coefficients, LSE first shifts down and reads
        its low D. Returns (register, next value, digit coefficients' bits)."""
        gf, D, nd = self.gf, self.D, self.n * self.D
        areg = gf.reg(nd, "a")
        if nd == D:
            nxt = gf.zero(nd)
        elif msb_first:
            nxt = gf.shift(gf.slice(areg, 0, nd - D), D)
        else:
            nxt = gf.ext(gf.slice(areg, D, nd), nd)
        base = (self.n - 1) * D if msb_first else 0
        return areg, nxt, [areg.bits(base + j) for j in range(D)]


class MseShuCore(_Core):
    """Algorithm 2 (Algorithm 1 for D = 1): ceil(m/D) steps, result in register p."""

    def __init__(self, p: int, f, D: int):
        m = len(poly.trim(f)) - 1
        super().__init__(p, f, D, model.n_digits(m, D))

    def datapath(self, m, load, step, index, operands):
        gf, D = self.gf, self.D
        a_in, b_in = self.operands_in(m, operands)
        areg, a_next, digit = self.a_register(msb_first=True)
        b = gf.reg(self.m, "b")
        acc = gf.reg(self.m, "p")
        # x^j b mod f, j < D: b is constant during a multiplication; eq. (2) networks
        bj = [b] + [gf.reduce(gf.shift(b, j), self.f) for j in range(1, D)]
        # stage: p <- sum_j a_{Di+j} (x^j b mod f) + (x^D p mod f), one balanced tree
        t = [gf.mul_coef(digit[j], bj[j]) for j in range(D)]
        nxt = gf.sum(t + gf.reduce_rows(gf.shift(acc, D), self.f))
        self.update(m, load, step, [(areg, a_in, a_next), (b, b_in, None),
                                    (acc, gf.zero(self.m), nxt)])
        return gf.to_packed(acc)


class MseDigitCore(_Core):
    """Algorithm 3 (R = 0) and Figure 1d (R >= 1 group registers): ceil(m/D)+1 (+1 with
    the pipeline level) steps; result = s / x^D from register s."""

    def __init__(self, p: int, f, D: int, R: int = 0):
        self.R = R
        m = len(poly.trim(f)) - 1
        super().__init__(p, f, D, model.n_digits(m, D) + 1 + (1 if R else 0))

    def datapath(self, m, load, step, index, operands):
        gf, D = self.gf, self.D
        a_in, b_in = self.operands_in(m, operands)
        areg, a_next, digit = self.a_register(msb_first=True)
        b = gf.reg(self.m, "b")
        s = gf.reg(self.m + D, "s")
        regs = [(areg, a_in, a_next), (b, b_in, None)]
        # x^D (s mod f): eq. (2) rows shifted by D (wiring)
        loop = [gf.shift(r, D) for r in gf.reduce_rows(s, self.f)]
        if not self.R:
            # stage: s <- sum_j a_{Di+j} x^j b + x^D (s mod f), one balanced tree
            regs.append((s, gf.zero(s.n), gf.sum(self.pps(digit, b, range(D)) + loop)))
        else:
            T = [gf.reg(self.m + g[-1], f"t{r}") for r, g in enumerate(model.groups(D, self.R))]
            # pipeline stage 1: T_r <- sum over group r of a_{Di+j} x^j b (a tree per group)
            for Tr, g in zip(T, model.groups(D, self.R)):
                regs.append((Tr, gf.zero(Tr.n), gf.sum(self.pps(digit, b, g))))
            # pipeline stage 2: s <- sum_r T_r + x^D (s mod f) (R+1 polynomials)
            regs.append((s, gf.zero(s.n), gf.sum(list(T) + loop)))
        self.update(m, load, step, regs)
        return gf.to_packed(gf.slice(s, D, D + self.m))


class _LseCore(_Core):
    """LSE first: register q holds x^(Di) b mod f, updated by eq. (2) each step."""

    def q_register(self, b_in: Vec):
        gf = self.gf
        q = gf.reg(self.m, "q")
        # q <- x^D q mod f (eq. (2), table x^m .. x^(m+D-1))
        return q, (q, b_in, gf.reduce(gf.shift(q, self.D), self.f))


class LseBasicCore(_LseCore):
    """Algorithm 4: m steps, result in register p."""

    def __init__(self, p: int, f):
        super().__init__(p, f, 1, len(poly.trim(f)) - 1)

    def datapath(self, m, load, step, index, operands):
        gf = self.gf
        a_in, b_in = self.operands_in(m, operands)
        areg, a_next, digit = self.a_register(msb_first=False)
        q, q_upd = self.q_register(b_in)
        acc = gf.reg(self.m, "p")
        # stage: p <- p + a_i q
        nxt = gf.add(acc, gf.mul_coef(digit[0], q))
        self.update(m, load, step, [(areg, a_in, a_next), q_upd, (acc, gf.zero(self.m), nxt)])
        return gf.to_packed(acc)


class LseDigitCore(_LseCore):
    """Algorithm 5 (R = 0) and Figure 2d (R >= 1 group registers): ceil(m/D)+1 (+1 with
    the pipeline level) steps; result = s mod x^m from register s."""

    def __init__(self, p: int, f, D: int, R: int = 0):
        self.R = R
        m = len(poly.trim(f)) - 1
        super().__init__(p, f, D, model.n_digits(m, D) + 1 + (1 if R else 0))

    def datapath(self, m, load, step, index, operands):
        gf, D = self.gf, self.D
        a_in, b_in = self.operands_in(m, operands)
        areg, a_next, digit = self.a_register(msb_first=False)
        q, q_upd = self.q_register(b_in)
        s = gf.reg(self.m + D - 1, "s")
        regs = [(areg, a_in, a_next), q_upd]
        # s mod f: eq. (2) rows (table x^m .. x^(m+D-2))
        loop = gf.reduce_rows(s, self.f)
        if not self.R:
            # stage: s <- (s mod f) + sum_j a_{Di+j} x^j q, one balanced tree
            regs.append((s, gf.zero(s.n), gf.sum(loop + self.pps(digit, q, range(D)))))
        else:
            T = [gf.reg(self.m + g[-1], f"t{r}") for r, g in enumerate(model.groups(D, self.R))]
            # pipeline stage 1: T_r <- sum over group r of a_{Dk+j} x^j q
            for Tr, g in zip(T, model.groups(D, self.R)):
                regs.append((Tr, gf.zero(Tr.n), gf.sum(self.pps(digit, q, g))))
            # pipeline stage 2: s <- (s mod f) + sum_r T_r (R+1 polynomials)
            regs.append((s, gf.zero(s.n), gf.sum(loop + list(T))))
        self.update(m, load, step, regs)
        return gf.to_packed(gf.slice(s, 0, self.m))


class LseNamCore(_LseCore):
    """Figure 2c (DAM/NAM, R accumulators): ceil(m/D)+1 steps; the last step adds the
    accumulators, reduces mod f and loads the output register."""

    def __init__(self, p: int, f, D: int, R: int):
        self.R = R
        m = len(poly.trim(f)) - 1
        super().__init__(p, f, D, model.n_digits(m, D) + 1)

    def datapath(self, m, load, step, index, operands):
        gf, D = self.gf, self.D
        a_in, b_in = self.operands_in(m, operands)
        areg, a_next, digit = self.a_register(msb_first=False)
        q, q_upd = self.q_register(b_in)
        regs = [(areg, a_in, a_next), q_upd]
        acc = []
        for r, g in enumerate(model.groups(D, self.R)):
            c = gf.reg(self.m + g[-1], f"c{r}")
            acc.append(c)
            # accumulate: c_r <- c_r + sum over group r of a_{Di+j} x^j q (digit n is zero)
            regs.append((c, gf.zero(c.n), gf.sum([c] + self.pps(digit, q, g))))
        out = gf.reg(self.m, "out")
        # output stage (last step only): out <- (sum_r c_r) mod f, adder tree + eq. (2)
        final = gf.reduce(gf.sum(acc), self.f)
        self.update(m, load, step, regs)
        with m.If(step & (index == self.n)):
            m.d.sync += gf.eq(out, final)
        return gf.to_packed(out)
