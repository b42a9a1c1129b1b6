"""Amaranth datapaths of the GF(2)[t]/F(t) multipliers, plain builders (hw.iterative.Datapath)
that hw.iterative.IterativeCore wraps: one load cycle, `steps` step cycles, then the
result, a function of registered state only. The per-cycle updates are those of the models in `model.py` (same names).

F is a generation-time constant: every product with a part of F is a fixed xor network.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value

from ...hw.gf2 import const_mul
from ...hw.iterative import Datapath, Operands
from ...hw.layout import Layouts
from ...hw.select import bit_tree
from .model import mask
from .plan import Gf2nPlan


def _wire(m: Module, width: int, value: Value, name: str) -> Signal:
    """A named comb signal of exactly `width` bits (truncates or zero-extends value)."""
    s = Signal(width, name=name)
    m.d.comb += s.eq(value)
    return s


def _bit_ahead(m: Module, load: Value, step: Value, index: Value, first: Value, sources: list[Value],
               name: str) -> Signal:
    """A register that holds bit `index` of a serial operand during step `index`: `first` at
    load, then chosen a cycle ahead as the xor of bit index + 1 of every source (registers
    loaded once; source[1:] indexed by `index`, no adder). One multiplexer tree (hw.select) per source
    instead of a shift register's load multiplexer on every bit (a LUT per bit), and the bit
    still leaves a register."""
    bit = Signal(name=name)
    with m.If(load):
        m.d.sync += bit.eq(first)
    with m.Elif(step):
        ahead = Const(0, 1)
        for source in sources:                   # index + 1 = len: after the last step, unused
            ahead = ahead ^ bit_tree(index, source[1:])
        m.d.sync += bit.eq(ahead)
    return bit


def _serial_bits(m: Module, load: Value, step: Value, index: Value, value: Value, name: str,
                 select: bool) -> tuple[Signal, Signal]:
    """value's bits one a step, bit 0 first, and the register that holds value: with select,
    loaded once (static) and the bit chosen a cycle ahead (_bit_ahead); else a shift register
    (a LUT per bit for its load multiplexer, the bit straight from its end)."""
    held = Signal(len(value), name=name)
    with m.If(load):
        m.d.sync += held.eq(value)
    if select:
        return held, _bit_ahead(m, load, step, index, value[0], [held], f"{name}_bit")
    with m.Elif(step):
        m.d.sync += held.eq(held >> 1)
    return held, held[0]


class Gf2nDatapath(Datapath):
    """Common part: F, its degree n, the split r (h = n - r) and the step count, from the plan;
    the payloads' layouts (layouts: the plan's, A and B in, C out)."""

    def __init__(self, plan: Gf2nPlan, layouts: Layouts):
        self.f, self.n, self.r = plan.f, plan.n, plan.r
        self.select = plan.serial == "select"
        self.h = self.n - self.r
        super().__init__(*layouts, plan.steps)

    def _operands(self, operands: Operands) -> tuple[Value, Value]:
        return operands.a, operands.b


class Blakely(Gf2nDatapath):
    """Interleaved Blakely (Alg 4): n steps, A*B mod F."""

    def build(self, m: Module, load: Value, step: Value, index: Value, operands: Operands) -> Value:
        n, f = self.n, self.f
        a_in, b_in = self._operands(operands)
        _, a_bit = _serial_bits(m, load, step, index, a_in[::-1], "a", self.select)  # A, MSB first
        b = Signal(n, name="b")        # B, static
        r = Signal(n, name="R")        # residue, deg < n
        # shift-add: R*t + a_i*B (n+1 bits)
        rs = _wire(m, n + 1, Cat(Const(0, 1), r) ^ Mux(a_bit, b, 0), "R_shift_add")
        with m.If(load):
            # load: B in, R = 0
            m.d.sync += [b.eq(b_in), r.eq(0)]
        with m.Elif(step):
            # step: reduce by F when r_n = 1 (clears bit n)
            m.d.sync += r.eq(rs[:n] ^ Mux(rs[n], f & mask(n), 0))
        return r


class Montgomery(Gf2nDatapath):
    """Interleaved Montgomery (Alg 5): n steps, A*B*t^-n mod F (f_0 = 1)."""

    def build(self, m: Module, load: Value, step: Value, index: Value, operands: Operands) -> Value:
        n, f = self.n, self.f
        a_in, b_in = self._operands(operands)
        a = Signal(n, name="a")        # A, static
        _, b_bit = _serial_bits(m, load, step, index, b_in, "b", self.select)   # B, LSB first
        r = Signal(n, name="R")        # residue, deg < n
        # add: R + b_i*A; the quotient bit is its constant coefficient
        ra = _wire(m, n, r ^ Mux(b_bit, a, 0), "R_add")
        # reduce: + q*F (F's t^n term becomes bit n-1 after the shift), then / t
        rr = _wire(m, n - 1, (ra ^ Mux(ra[0], f & mask(n), 0))[1:], "R_red")   # its bit 0 is 0: / t drops it
        with m.If(load):
            # load: A in, R = 0
            m.d.sync += [a.eq(a_in), r.eq(0)]
        with m.Elif(step):
            # step: (R + b_i*A + q*F) / t
            m.d.sync += r.eq(Cat(rr, ra[0]))
        return r


class Bmm(Gf2nDatapath):
    """BMM (Alg 6-8): r = ceil(n/2) steps; parallel Blakely S and Montgomery T units;
    result S + T = A*B*t^-r mod F (f_0 = 1)."""

    def build(self, m: Module, load: Value, step: Value, index: Value, operands: Operands) -> Value:
        n, r, f = self.n, self.r, self.f
        fl = f & mask(n)
        a_in, b_in = self._operands(operands)
        a = Signal(n, name="a")        # A, static (both units)
        bh = Cat(b_in >> r, Const(0, r))[:r][::-1]        # BH = B >> r, MSB first
        _, bh_bit = _serial_bits(m, load, step, index, bh, "bh", self.select)
        _, bl_bit = _serial_bits(m, load, step, index, b_in[:r], "bl", self.select)  # BL = B mod t^r, LSB first
        s = Signal(n, name="S")        # Blakely residue A*BH mod F
        t = Signal(n, name="T")        # Montgomery residue A*BL*t^-j mod F
        # Blakely unit: S*t + bh*A, reduced when bit n is set
        ss = _wire(m, n + 1, Cat(Const(0, 1), s) ^ Mux(bh_bit, a, 0), "S_shift_add")
        # Montgomery unit: T + bl*A, + q*F, / t
        ta = _wire(m, n, t ^ Mux(bl_bit, a, 0), "T_add")
        tr = _wire(m, n - 1, (ta ^ Mux(ta[0], fl, 0))[1:], "T_red")            # its bit 0 is 0: / t drops it
        with m.If(load):
            # load: A, S = T = 0
            m.d.sync += [a.eq(a_in), s.eq(0), t.eq(0)]
        with m.Elif(step):
            # step: one Blakely and one Montgomery iteration in parallel
            m.d.sync += [
                s.eq(ss[:n] ^ Mux(ss[n], fl, 0)),
                t.eq(Cat(tr, ta[0])),
            ]
        # output: S + T (reduced; not the printed S + T + F)
        return s ^ t


class _Karatsuba(Gf2nDatapath):
    """Shared part of FIKO and RF-FIKO: operand registers and the three Karatsuba-Ofman
    products C0 = A0*B0, C1 = (A0+A1)*(B0+B1), C2 = A1*B1, one bit of each per step."""

    def karatsuba(self, m: Module, load: Value, step: Value, index: Value, operands: Operands) -> None:
        r, h = self.r, self.h
        self.a0 = a0 = Signal(r, name="a0")        # A0, static
        self.asum = asum = Signal(r, name="asum")  # A0 + A1, static
        self.b1 = b1 = Signal(h, name="b1")        # B1, static
        self.c0 = c0 = Signal(2 * r - 1, name="C0")
        self.c1 = c1 = Signal(2 * r - 1, name="C1")
        self.c2 = c2 = Signal(max(2 * h - 1, 1), name="C2")
        a_in, b_in = self._operands(operands)
        msb_first = lambda v: Cat(v, Const(0, r))[:r][::-1]   # noqa: E731  (r bits, zero-extended)
        _, self.a1_bit = _serial_bits(m, load, step, index, msb_first(a_in >> r), "a1", self.select)  # A1, MSB 1st
        b0, self.b0_bit = _serial_bits(m, load, step, index, b_in[:r], "b0", self.select)  # B0, LSB first
        bs = msb_first(b_in[:r] ^ (b_in >> r))          # B0 + B1, MSB first
        if self.select:     # from the B0 and B1 registers: no third register, no xor per bit
            bs_bit = _bit_ahead(m, load, step, index, bs[0], [msb_first(b0), msb_first(b1)], "bs_bit")
        else:
            _, bs_bit = _serial_bits(m, load, step, index, bs, "bs", False)
        with m.If(load):
            # load: split A and B at t^r, form the Karatsuba-Ofman sums, clear C0, C1, C2
            m.d.sync += [
                a0.eq(a_in[:r]), asum.eq(a_in[:r] ^ (a_in >> r)), b1.eq(b_in >> r),
                c0.eq(0), c1.eq(0), c2.eq(0),
            ]
        with m.Elif(step):
            # step: C0 LSB first (C0/t + b0_s*A0*t^(r-1)), C1 and C2 MSB first (Horner)
            m.d.sync += [
                c0.eq((c0 >> 1) ^ Mux(self.b0_bit, a0 << (r - 1), 0)),
                c1.eq((c1 << 1) ^ Mux(bs_bit, asum, 0)),
                c2.eq((c2 << 1) ^ Mux(self.a1_bit, b1, 0)),
            ]

    def final_sum(self, m: Module, c0p_ur: Value, c1p: Value, c2p_lr: Value) -> Value:
        """Sec. 8.2's sum (C0'_UR || C2'_LR) + C1' + (C2'_LR || C0'_UR), n bits (corrections.md#piko-final-sum)."""
        n, r = self.n, self.r
        ur = _wire(m, r, c0p_ur, "C0p_UR")
        lr = _wire(m, r, c2p_lr, "C2p_LR")
        c1w = _wire(m, n, c1p, "C1p")
        return _wire(m, n, Cat(lr, ur) ^ c1w ^ Cat(ur, lr), "sum")


class Fiko(_Karatsuba):
    """FIKO (Fig. 1-2): r = ceil(n/2) steps; C0, C1, C2 plus the Blakely (R1/Q1, modulo
    F1 = F >> r) and Montgomery (R0/Q0, modulo F0 = F mod t^r) quotient units; the
    reduction terms and the final sum are fixed xor networks on the registers."""

    def build(self, m: Module, load: Value, step: Value, index: Value, operands: Operands) -> Value:
        n, r, h, f = self.n, self.r, self.h, self.f
        f0, f1 = f & mask(r), f >> r
        self.karatsuba(m, load, step, index, operands)
        a0, b1 = self.a0, self.b1
        r1 = Signal(h, name="R1")                   # Blakely residue of A1*B1 mod F1
        q1 = Signal(r, name="Q1")                   # Blakely quotient Q
        r0 = Signal(max(r - 1, 1), name="R0")       # Montgomery residue
        q0 = Signal(r, name="Q0")                   # Montgomery quotient Q'
        # Blakely unit: R1*t + a1*B1; the quotient bit is coefficient h
        r1s = _wire(m, h + 1, Cat(Const(0, 1), r1) ^ Mux(self.a1_bit, b1, 0), "R1_shift_add")
        qb = r1s[h]
        # Montgomery unit: R0 + b0*A0; the quotient bit is coefficient 0
        r0a = _wire(m, r, r0 ^ Mux(self.b0_bit, a0, 0), "R0_add")
        qm = r0a[0]
        r0r = _wire(m, len(r0), (r0a ^ Mux(qm, f0, 0))[1:], "R0_red")          # its bit 0 is 0: / t drops it
        with m.If(load):
            # load: clear the quotient units
            m.d.sync += [r1.eq(0), q1.eq(0), r0.eq(0), q0.eq(0)]
        with m.Elif(step):
            # step: reduce R1 by F1, R0 by F0 (then / t); shift the quotient bits in
            m.d.sync += [
                r1.eq(r1s[:h] ^ Mux(qb, f1 & mask(h), 0)),
                q1.eq(Cat(qb, q1[:r - 1])),
                r0.eq(r0r),
                q0.eq(Cat(q0[1:], qm)),
            ]
        # reduction terms (Fig. 1): C0' = C0 + Q'F0, C2' = C2 + QF1, C1' = C1 + (Q'+Q)(F0+F1)
        c0p_ur = _wire(m, r - 1, (self.c0 ^ const_mul(q0, f0))[r:], "C0p_hi")   # the sum reads C0' >> r only
        c2p = _wire(m, r, self.c2 ^ const_mul(q1, f1), "C2p")
        c1p = _wire(m, n, self.c1 ^ const_mul(q0 ^ q1, f0 ^ f1), "C1p_full")
        # final sum (Sec. 8.2's, not Fig. 1's): A*B*t^-r mod F
        return self.final_sum(m, c0p_ur, c1p, c2p)


class RfFiko(_Karatsuba):
    """RF-FIKO (Fig. 4-5, Section 8.2) for F = t^n + t^r + 1, n odd: r steps computing only
    C0, C1, C2; quotients, reduction terms and the final sum are shifts and xors."""

    def build(self, m: Module, load: Value, step: Value, index: Value, operands: Operands) -> Value:
        n, r = self.n, self.r
        self.karatsuba(m, load, step, index, operands)
        c0, c1, c2 = self.c0, self.c1, self.c2
        # quotients without reduction units: Q' = C0_LR, Q = C2 >> (r-1)
        q0 = _wire(m, r, c0[:r], "Q0")
        q1 = _wire(m, r, c2 >> (r - 1), "Q1")
        # C2'_LR = (C2 + Q*t^(r-1) + Q)_LR  (Q*F1, F1 = t^(r-1) + 1)
        c2p = _wire(m, r, c2 ^ (q1 << (r - 1)) ^ q1, "C2p_LR")
        # C1' = C1 + (Q' + Q)*t^(r-1)  (F0 + F1 = t^(r-1))
        c1p = _wire(m, n, c1 ^ ((q0 ^ q1) << (r - 1)), "C1p_full")
        # final sum (Sec. 8.2's), C0'_UR = C0_UR: A*B*t^-r mod F
        return self.final_sum(m, c0[r:], c1p, c2p)
