"""Amaranth datapaths of the GF(2)[t]/F(t) multipliers, plain builders (hw.iterative.Datapath)
that hw.iterative.IterativeCore wraps: one load cycle, `steps` step cycles, then the
result, a function of registered state only. The per-cycle updates are those of the models in `model.py` (same names).

F is a generation-time constant: every product with a part of F is a fixed xor network.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value

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


#: a vector of GF(2) sums known at generation time: bit i is the set of register bits
#: (register, index) whose xor it is (a bit that occurs twice cancels)
XorVec = list[frozenset[tuple[str, int]]]


def _reg_bits(name: str, width: int) -> XorVec:
    return [frozenset({(name, i)}) for i in range(width)]


def _vxor(*vecs: XorVec) -> XorVec:
    out: XorVec = [frozenset()] * max(len(v) for v in vecs)
    for v in vecs:
        out = [x ^ y for x, y in zip(out, v + [frozenset()] * (len(out) - len(v)), strict=True)]
    return out


def _vmul(vec: XorVec, const: int) -> XorVec:
    """vec * const in GF(2)[t] (const a generation-time polynomial)."""
    terms: list[XorVec] = [[frozenset()] * j + vec for j in range(const.bit_length()) if (const >> j) & 1]
    return _vxor(*terms) if terms else [frozenset()]


def _flat_xor(m: Module, regs: dict[str, Value], vec: XorVec, width: int, name: str) -> Signal:
    """vec's first `width` bits as one flat xor of distinct register bits each: the shared
    partial sums of the written-out formula (C2', Q' + Q, ...) would each become a LUT of
    their own, where a flat xor of up to 6 bits is one LUT6 per output bit."""
    bits: list[Value] = []
    for i in range(width):
        terms: list[Value] = [regs[r][k] for r, k in sorted(vec[i])] if i < len(vec) else []
        terms = terms or [Const(0, 1)]
        while len(terms) > 6:                      # balanced down to a LUT6's worth (a wide F's many terms)
            terms = [terms[j] ^ terms[j + 1] if j + 1 < len(terms) else terms[j] for j in range(0, len(terms), 2)]
        acc = terms[0]
        for t in terms[1:]:
            acc = acc ^ t
        bits.append(acc)
    return _wire(m, width, Cat(*bits), name)


def _reg(width: int, name: str) -> Signal:
    """A datapath register: no reset (hw/pipeline's convention), since the result means
    something only while o.valid, after a load; only the shell's control registers reset."""
    return Signal(width, name=name, reset_less=True)


def _bit_ahead(m: Module, load: Value, step: Value, index: Value, first: Value, sources: list[Value],
               name: str) -> Signal:
    """A register that holds bit `index` of a serial operand during step `index`: `first` at
    load, then chosen a cycle ahead as the xor of bit index + 1 of every source (registers
    loaded once; source[1:] indexed by `index`, no adder). One multiplexer tree (hw.select) per source
    instead of a shift register's load multiplexer on every bit (a LUT per bit), and the bit
    still leaves a register."""
    bit = _reg(1, name)
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
    held = _reg(len(value), name)
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
        b = _reg(n, "b")        # B, static
        r = _reg(n, "R")        # residue, deg < n
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
        a = _reg(n, "a")        # A, static
        _, b_bit = _serial_bits(m, load, step, index, b_in, "b", self.select)   # B, LSB first
        r = _reg(n, "R")        # residue, deg < n
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
        a = _reg(n, "a")        # A, static (both units)
        bh = Cat(b_in >> r, Const(0, r))[:r][::-1]        # BH = B >> r, MSB first
        _, bh_bit = _serial_bits(m, load, step, index, bh, "bh", self.select)
        _, bl_bit = _serial_bits(m, load, step, index, b_in[:r], "bl", self.select)  # BL = B mod t^r, LSB first
        s = _reg(n, "S")        # Blakely residue A*BH mod F
        t = _reg(n, "T")        # Montgomery residue A*BL*t^-j mod F
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

    def karatsuba(self, m: Module, load: Value, step: Value, index: Value, operands: Operands,
                  blakely_unit: bool) -> None:
        """C0 and C1 LSB first from the streams of B0 and B1 (C1's bit of B0 + B1 is their xor, no
        third stream). blakely_unit (FIKO) adds the stream of A1, MSB first, and B1 static for its
        Blakely unit, and C2 runs MSB first on them like that unit (with a monomial F1, as nist,
        type1, type2 have, R1 is C2's low part and Yosys merges them: n=163 nist select 816 -> 679
        LUT on xc7, 752 with C2 LSB first); else (RF-FIKO) C2 runs LSB first on B1's stream and needs no
        stream of A1."""
        r, h = self.r, self.h
        a_in, b_in = self._operands(operands)
        self.a0 = a0 = _reg(r, "a0")        # A0, static
        self.c0 = c0 = _reg(2 * r - 1, "C0")
        self.c1 = c1 = _reg(2 * r - 1, "C1")
        c2 = _reg(2 * r - 1, "C2")          # LSB first: as wide as C0 (exact); A1*B1 < t^(2h-1)
        self.c2 = c2[:max(2 * h - 1, 1)]
        pad = lambda v: Cat(v, Const(0, r))[:r]   # noqa: E731  (r bits, zero-extended)
        _, self.b0_bit = _serial_bits(m, load, step, index, b_in[:r], "b0", self.select)  # LSB first
        b1_held, b1_bit = _serial_bits(m, load, step, index, pad(b_in[r:]), "b1", self.select)  # LSB first
        a1: Value = _reg(r, "a1")           # A1, static
        loads = [a0.eq(a_in[:r]), c0.eq(0), c1.eq(0), c2.eq(0)]
        if blakely_unit:
            a1_held, self.a1_bit = _serial_bits(m, load, step, index, pad(a_in[r:])[::-1], "a1s", self.select)
            self.b1 = b1_held[:h] if self.select else _reg(h, "b1")   # B1, static
            if self.select:                        # the A1 and B1 registers a tree reads are static
                a1 = a1_held[::-1]
            else:
                loads.append(self.b1.eq(b_in[r:]))
        if isinstance(a1, Signal):
            loads.append(a1.eq(a_in[r:]))
        # A0 + A1 is not a register: C1's step LUT reads a0 and a1 (5 inputs with both stream
        # bits, still one LUT a bit), which saves the load xor (a LUT a bit) of an A0 + A1 register
        asum = _wire(m, r, a0 ^ a1, "asum")
        with m.If(load):
            # load: split A and B at t^r, clear C0, C1, C2
            m.d.sync += loads
        with m.Elif(step):
            # step: C <- C/t + b_s*A*t^(r-1) for C0 (A0, B0), C1 (A0 + A1, B0 + B1); C2 = A1*B1
            m.d.sync += [
                c0.eq((c0 >> 1) ^ Mux(self.b0_bit, a0 << (r - 1), 0)),
                c1.eq((c1 >> 1) ^ Mux(self.b0_bit ^ b1_bit, asum << (r - 1), 0)),
                c2.eq((c2 << 1) ^ Mux(self.a1_bit, self.b1, 0)) if blakely_unit
                else c2.eq((c2 >> 1) ^ Mux(b1_bit, a1 << (r - 1), 0)),
            ]

    def final_sum(self, c0p_ur: XorVec, c1p: XorVec, c2p_lr: XorVec) -> XorVec:
        """Sec. 8.2's sum (C0'_UR || C2'_LR) + C1' + (C2'_LR || C0'_UR), n bits (corrections.md#piko-final-sum)."""
        n, r = self.n, self.r
        pad = lambda v, w: (v + [frozenset()] * w)[:w]   # noqa: E731
        ur, lr = pad(c0p_ur, r), pad(c2p_lr, r)
        return _vxor((lr + ur)[:n], pad(c1p, n), (ur + lr)[:n])

    def regs(self) -> dict[str, Value]:
        return {"C0": self.c0, "C1": self.c1, "C2": self.c2}


class Fiko(_Karatsuba):
    """FIKO (Fig. 1-2): r = ceil(n/2) steps; C0, C1, C2 plus the Blakely (R1/Q1, modulo
    F1 = F >> r) and Montgomery (R0/Q0, modulo F0 = F mod t^r) quotient units; the
    reduction terms and the final sum are fixed xor networks on the registers."""

    def build(self, m: Module, load: Value, step: Value, index: Value, operands: Operands) -> Value:
        n, r, h, f = self.n, self.r, self.h, self.f
        f0, f1 = f & mask(r), f >> r
        self.karatsuba(m, load, step, index, operands, blakely_unit=True)
        a0, b1 = self.a0, self.b1
        r1 = _reg(h, "R1")                   # Blakely residue of A1*B1 mod F1
        q1 = _reg(r, "Q1")                   # Blakely quotient Q
        r0 = _reg(max(r - 1, 1), "R0")       # Montgomery residue
        q0 = _reg(r, "Q0")                   # Montgomery quotient Q'
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
        # reduction terms (Fig. 1): C0' = C0 + Q'F0, C2' = C2 + QF1, C1' = C1 + (Q'+Q)(F0+F1),
        # and the final sum (Sec. 8.2's, not Fig. 1's): A*B*t^-r mod F, flat xors of register bits
        c0, c1, c2 = _reg_bits("C0", len(self.c0)), _reg_bits("C1", len(self.c1)), _reg_bits("C2", len(self.c2))
        qq0, qq1 = _reg_bits("Q0", r), _reg_bits("Q1", r)
        c0p_ur = _vxor(c0, _vmul(qq0, f0))[r:]              # the sum reads C0' >> r only
        c2p = _vxor(c2, _vmul(qq1, f1))[:r]
        c1p = _vxor(c1, _vmul(_vxor(qq0, qq1), f0 ^ f1))
        return _flat_xor(m, {**self.regs(), "Q0": q0, "Q1": q1}, self.final_sum(c0p_ur, c1p, c2p), n, "sum")


class RfFiko(_Karatsuba):
    """RF-FIKO (Fig. 4-5, Section 8.2) for F = t^n + t^r + 1, n odd: r steps computing only
    C0, C1, C2; quotients, reduction terms and the final sum are shifts and xors."""

    def build(self, m: Module, load: Value, step: Value, index: Value, operands: Operands) -> Value:
        n, r = self.n, self.r
        self.karatsuba(m, load, step, index, operands, blakely_unit=False)
        c0, c1, c2 = _reg_bits("C0", len(self.c0)), _reg_bits("C1", len(self.c1)), _reg_bits("C2", len(self.c2))
        # quotients without reduction units: Q' = C0_LR, Q = C2 >> (r-1)
        q0, q1 = c0[:r], (c2[r - 1:] + [frozenset()] * r)[:r]
        # C2'_LR = (C2 + Q*t^(r-1) + Q)_LR  (Q*F1, F1 = t^(r-1) + 1)
        c2p = _vxor(c2, [frozenset()] * (r - 1) + q1, q1)[:r]
        # C1' = C1 + (Q' + Q)*t^(r-1)  (F0 + F1 = t^(r-1))
        c1p = _vxor(c1, [frozenset()] * (r - 1) + _vxor(q0, q1))
        # final sum (Sec. 8.2's), C0'_UR = C0_UR: A*B*t^-r mod F, flat xors of register bits
        return _flat_xor(m, self.regs(), self.final_sum(c0[r:], c1p, c2p), n, "sum")
