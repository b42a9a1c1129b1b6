"""Time-domain digit units (FMLM3, Sec. 5.1 and 5.3): numbers as P digits of radix B = 2^u,
streamed low digits first, s digits a cycle (s = 2: the paper's accumulator; 2 or 4 for the
segment units).

Accumulator (eqs. 21-22): recombines digits of any size and sign (the outputs of CT^-1 and
of NCT^-1 after the restriction of eq. 12) into radix-B digits: each cycle
    R0 = sum_k d_k 2^(u k)                  (stage 1, eq. 21)
    r  = R0 + floor(r' / 2^(s u))           (stage 2, eq. 22; r' the register, 0 at `first`)
and gives r mod 2^(s u) as s radix-B digits; after a number's last digits, floor(r / 2^(s u))
(`carry`) is what lies above them: sum d_i 2^(u i) = the digits + carry 2^(u P). No enable:
the results `depth` = 2 cycles after the inputs.

SegmentAddSub (the RCA and the Subtractor, Fig. 6a-b): a + b or a - b of two numbers
streamed as segments (s digits, low first), the carry or borrow passed from segment to
segment; `first` starts a number with the carry-in `cin` (eq. 27's +1). The carry out of
a number's last segment says a + b >= 2^(width) (add) or a < b (sub).

Halver (the Shift Module, Fig. 6c): x / 2 of a number streamed as segments, low first:
segment k of the result is segment k of x shifted right with bit 0 of segment k+1 on top,
so it leaves a cycle later; the last takes `top` (the bit above the number, e.g. the carry
of (w + Q') / 2) instead.
"""

from __future__ import annotations

from typing import Any

from amaranth.hdl import Cat, Const, Elaboratable, Module, Mux, Signal, signed

from .dsp import DEEP_SEGMENT, carry_select_add, extend, fast_sum

SELECT_ABOVE = 128      # deep: wider sums are carry-select (ECP5: a 240-bit chain took 9 ns)


class Accumulator(Elaboratable):
    """d: s digits of `digit_bits` bits (two's complement when `signed_digits`), first: the
    number's first digits (the carry restarts at 0); o: s radix-B digits (s u bits), carry:
    the running carry (signed), both `depth` cycles after their inputs. deep: sums wider than
    SELECT_ABOVE without a carry chain longer than hw.dsp.DEEP_SEGMENT (carry-save and
    carry-select)."""

    depth = 2

    def __init__(self, u: int, digit_bits: int, s: int = 2, signed_digits: bool = False, deep: bool = False) -> None:
        self.u, self.s, self.signed_digits, self.deep = u, s, signed_digits, deep
        shape = signed(digit_bits) if signed_digits else digit_bits
        self.d = [Signal(shape, name=f"acc_d{k}") for k in range(s)]
        self.first = Signal(name="acc_first")
        # |R0| < 2^(digit_bits + u (s-1) + 1) and |r| < 2 max |R0|, with a sign bit
        self.sum_bits = digit_bits + u * (s - 1) + 3
        self.carry_bits = max(1, self.sum_bits - s * u)
        self.o = Signal(s * u, name="acc_o")
        self.carry = Signal(signed(self.carry_bits), name="acc_carry")

    def elaborate(self, platform: Any) -> Module:
        m = Module()
        u, s = self.u, self.s
        width = self.sum_bits
        r0, first1 = Signal(signed(width), name="acc_r0"), Signal(name="acc_first1")
        r = Signal(signed(width), name="acc_r")
        high = r >> (s * u)                                                 # arithmetic: floor
        digits = [d.as_signed() if self.signed_digits else d for d in self.d]
        if self.deep and width > SELECT_ABOVE:
            # no carry chain longer than DEEP_SEGMENT: the digits' sum carry-save, both sums
            # carry-select (l = 7680: eq. (22)'s 313-bit chain was the core's critical path)
            terms = [extend(d.shift_left(u * k), width) for k, d in enumerate(digits)]
            m.d.sync += [r0.eq(fast_sum(m, terms, width, DEEP_SEGMENT, "acc_f")), first1.eq(self.first)]
            m.d.sync += r.eq(carry_select_add(m, r0.as_unsigned(), extend(Mux(first1, 0, high), width), width,
                                              DEEP_SEGMENT, "acc_s"))
        else:
            total = digits[0]
            for k in range(1, s):
                total = total + (digits[k] << (u * k))                      # eq. (21)
            m.d.sync += [r0.eq(total), first1.eq(self.first)]
            m.d.sync += r.eq(r0 + Mux(first1, 0, high))                    # eq. (22)
        m.d.comb += [self.o.eq(r[:s * u]), self.carry.eq(high)]
        return m


class SegmentAddSub(Elaboratable):
    """a, b: one segment (`width` bits) each a cycle; a - b if `subtract` (fixed: one carry
    chain), else a + b; first: the number's first segment (the carry restarts at cin); o: the
    result segment, cout: its carry (add) or borrow (subtract), `depth` = 1 cycle later.
    split: the low chain's bits when the segment is carry-select (`select_split`,
    hw.dsp.carry_select_add): the high part summed twice, picked by the low chain's carry."""

    depth = 1

    def __init__(self, width: int, subtract: bool = False, split: int = 0) -> None:
        self.width, self.subtract, self.split = width, subtract, split
        self.a, self.b, self.o = Signal(width, name="as_a"), Signal(width, name="as_b"), Signal(width, name="as_o")
        self.first, self.cin, self.cout = (Signal(name=f"as_{x}") for x in ("first", "cin", "cout"))

    def elaborate(self, platform: Any) -> Module:
        m = Module()
        carry = Mux(self.first, self.cin, self.cout)            # into this segment
        # a - b - borrow = a + ~b + ~borrow - 2^width, ~borrow the carry out of a bit 0: one
        # carry chain and no inverters (a - b - borrow maps to two chains, a + ~b + ~borrow to
        # one with an INV a bit); the borrow out is the complement of the carry out. The carry
        # in enters as a bit below a and b: one chain (a + b + carry maps to two where a unit
        # has two adders of the same a and b, Yosys sharing their a + b)
        a, b, c = (self.a, ~self.b, ~carry) if self.subtract else (self.a, self.b, carry)

        if self.split:          # the carry in as bit 0 of both, the carry out a bit above
            total = carry_select_add(m, Cat(c, a, Const(0, 1)), Cat(Const(1, 1), b, Const(0, 1)), self.width + 2,
                                     self.split + 1, "as_cs")[1:]
        else:
            total = Signal(self.width + 1, name="as_total")
            one = Const(1, 1)           # on either side the same sum (this order: the Verilog before split)
            m.d.comb += total.eq((Cat(one, a) + Cat(c, b) if self.subtract else Cat(c, a) + Cat(one, b))[1:])
        carry_out = total[self.width]
        m.d.sync += [self.o.eq(total[:self.width]), self.cout.eq(~carry_out if self.subtract else carry_out)]
        return m


def select_split(width: int, deep: bool) -> int:
    """SegmentAddSub's split: half the segment when deep and the segment is wider than
    SELECT_ABOVE, else 0 (one chain)."""
    return width // 2 if deep and width > SELECT_ABOVE else 0


class Halver(Elaboratable):
    """d: one segment when `valid`, last: the number's last segment, top: the bit above the
    number (with last); o: segment k of the half, o_valid for one cycle, the cycle after
    segment k+1 came in (the last segment's half: the cycle after the last came in, after
    the one before it)."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.d, self.o = Signal(width, name="hv_d"), Signal(width, name="hv_o")
        self.valid, self.last, self.top, self.o_valid = (Signal(name=f"hv_{x}") for x in ("valid", "last", "top",
                                                                                            "o_valid"))

    def elaborate(self, platform: Any) -> Module:
        m = Module()
        held, has, flush, top = (Signal(self.width, name="hv_held"), Signal(name="hv_has"), Signal(name="hv_flush"),
                                 Signal(name="hv_top"))
        m.d.sync += self.o_valid.eq(0)
        with m.If(flush):                                   # the last segment's half
            m.d.sync += [self.o.eq(Cat(held[1:], top)), self.o_valid.eq(1), flush.eq(0), has.eq(0)]
        with m.If(self.valid):
            with m.If(has & ~flush):                        # the segment before, with this one's bit 0
                m.d.sync += [self.o.eq(Cat(held[1:], self.d[0])), self.o_valid.eq(1)]
            m.d.sync += [held.eq(self.d), has.eq(1), flush.eq(self.last), top.eq(self.top)]
        return m
