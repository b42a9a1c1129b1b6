"""Time-domain hardware units of rsa-fmlm3 (model.py is their model, multiplier_hw.py the
controller that sequences them around the transform unit). Numbers stream as segments of
s = L digits (s u bits) a cycle, least significant first, as the transform unit reads out.

  Restrict   eq. (12) on an NCT^-1 read-out: coefficient n in [0, M) to the signed z_n
             (z_n - M above 2(n+1)(B-1)^2), L coefficients a beat
  ModRPass   model.pass_m: A + c and A + c + 1 of a stored number A and a carry c
             (hw.digits.SegmentAddSub twice), and the selection (the second's carry out)
"""

from __future__ import annotations

from typing import Any

from amaranth.hdl import Cat, Elaboratable, Module, Mux, Signal, signed

from ...hw.digits import SegmentAddSub
from ...hw.pipeline import register


def restrict_depth(deep: bool = False) -> int:
    """`Restrict`'s pipeline depth (without building one)."""
    return 2 + deep


class Restrict(Elaboratable):
    """d: L coefficients of beat k (lane l: n = Lk + l, K+1 bits, in [0, M)) when `valid`,
    last: beat P/L - 1 (a number's beats come in order, gaps allowed); o: the signed values z_n
    (K+2 bits) `depth` = 2 cycles later (deep: 3), or with `apply` low the coefficients as
    they came (CT^-1's read-out shares the Accumulator behind it). The inputs are registered
    first (they come from the transform's read-out select; with the compare and the decrement
    after it in one cycle, that was ECP5's critical path); deep registers the comparison
    apart from the decrement (at K = 128 the two were the 1-bfs l = 4096 core's critical path
    on ECP5). The bounds 2(n+1)(B-1)^2 of the coming beat wait in registers, stepping by
    2L(B-1)^2 a beat and back to beat 0's after the last (a reset: no multiplexer before the
    comparators, no multiplier)."""

    def __init__(self, P: int, u: int, K: int, lanes: int, deep: bool = False):
        self.P, self.u, self.K, self.lanes, self.deep = P, u, K, lanes, deep
        self.depth = restrict_depth(deep)
        self.d = [Signal(K + 1, name=f"rs_d{lane}") for lane in range(lanes)]
        self.valid, self.last, self.apply = Signal(name="rs_valid"), Signal(name="rs_last"), Signal(name="rs_apply")
        self.o = [Signal(signed(K + 2), name=f"rs_o{lane}") for lane in range(lanes)]

    def elaborate(self, platform: Any) -> Module:
        m = Module()
        unit = 2 * ((1 << self.u) - 1) ** 2
        bound_bits = (unit * (self.P + 1)).bit_length()
        ins = [Signal.like(x, name=f"{x.name}_in") for x in (*self.d, self.valid, self.last, self.apply)]
        m.d.sync += [r.eq(x) for r, x in zip(ins, (*self.d, self.valid, self.last, self.apply), strict=True)]
        *ds, valid, last, apply = ins
        restart = Signal(name="rs_restart")
        m.d.comb += restart.eq(valid & last)
        for lane, (d, o) in enumerate(zip(ds, self.o, strict=True)):
            base = unit * (lane + 1)
            bound = Signal(bound_bits, name=f"rs_bound{lane}", init=base)      # 2(n+1)(B-1)^2 of this beat
            # d > bound, compared on the bound's bits (d's bits above them: not all 0)
            above = apply & ((d[bound_bits:] != 0) | (d[:bound_bits] > bound))
            if self.deep:
                above, d = register(m, above, f"rs_above{lane}"), register(m, d, f"rs_dd{lane}")
            with m.If(restart):                                 # a reset over the enable: FDRE/FDSE pins
                m.d.sync += bound.eq(base)
            with m.Elif(valid):
                m.d.sync += bound.eq(bound + unit * self.lanes)
            # d - M (d >= 1 here) in K+2 bits is Cat(d - 1, 1, 1) and d is Cat(d, d[K], 0):
            # one decrement by `above` (an INV a bit at its carry chain), no multiplexer
            m.d.sync += o.eq(Cat((d[:self.K] - above)[:self.K], d[self.K] | above, above))
        return m


class ModRPass(Elaboratable):
    """a: segment k of A (`width` bits), first: segment 0 (c is read then and held by the
    unit), c: the carry to add (c_bits, unsigned); plain, plus: segment k of A + c and
    A + c + 1, `depth` = 1 cycle later; select: the carry out of A + c + 1 after the last
    segment (A + c >= R = 2^(number's bits) - 1: take plus, else plain). split: the adders'
    (SegmentAddSub)."""

    depth = 1

    def __init__(self, width: int, c_bits: int, split: int = 0):
        self.width, self.c_bits, self.split = width, c_bits, split
        self.a, self.c = Signal(width, name="mr_a"), Signal(c_bits, name="mr_c")
        self.first = Signal(name="mr_first")
        self.plain, self.plus = Signal(width, name="mr_plain"), Signal(width, name="mr_plus")
        self.select = Signal(name="mr_select")

    def elaborate(self, platform: Any) -> Module:
        m = Module()
        w = self.width
        rest = Signal(max(1, self.c_bits - w), name="mr_rest")      # c's segments still to add
        segment = Mux(self.first, self.c[:w], rest[:w])
        m.d.sync += rest.eq(Mux(self.first, self.c >> w, rest >> w))
        for name, cin in (("plain", 0), ("plus", 1)):
            adder = SegmentAddSub(w, split=self.split)
            m.submodules[name] = adder
            m.d.comb += [adder.a.eq(self.a), adder.b.eq(segment), adder.first.eq(self.first),
                         adder.cin.eq(cin), getattr(self, name).eq(adder.o)]
        m.d.comb += self.select.eq(m.submodules["plus"].cout)
        return m
