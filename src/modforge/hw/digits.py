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
"""

from __future__ import annotations

from amaranth.hdl import Elaboratable, Module, Mux, Signal, signed


class Accumulator(Elaboratable):
    """d: s digits of `digit_bits` bits (two's complement when `signed_digits`), first: the
    number's first digits (the carry restarts at 0); o: s radix-B digits (s u bits), carry:
    the running carry (signed), both `depth` cycles after their inputs."""

    depth = 2

    def __init__(self, u: int, digit_bits: int, s: int = 2, signed_digits: bool = False):
        self.u, self.s, self.signed_digits = u, s, signed_digits
        shape = signed(digit_bits) if signed_digits else digit_bits
        self.d = [Signal(shape, name=f"acc_d{k}") for k in range(s)]
        self.first = Signal(name="acc_first")
        # |R0| < 2^(digit_bits + u (s-1) + 1) and |r| < 2 max |R0|, with a sign bit
        self.sum_bits = digit_bits + u * (s - 1) + 3
        self.carry_bits = max(1, self.sum_bits - s * u)
        self.o = Signal(s * u, name="acc_o")
        self.carry = Signal(signed(self.carry_bits), name="acc_carry")

    def elaborate(self, platform):
        m = Module()
        u, s = self.u, self.s
        r0, first1 = Signal(signed(self.sum_bits), name="acc_r0"), Signal(name="acc_first1")
        total = self.d[0].as_signed() if self.signed_digits else self.d[0]
        for k in range(1, s):
            total = total + (self.d[k] << (u * k))                          # eq. (21)
        m.d.sync += [r0.eq(total), first1.eq(self.first)]
        r = Signal(signed(self.sum_bits), name="acc_r")
        high = r >> (s * u)                                                 # arithmetic: floor
        m.d.sync += r.eq(r0 + Mux(first1, 0, high))                        # eq. (22)
        m.d.comb += [self.o.eq(r[:s * u]), self.carry.eq(high)]
        return m
