"""The fast M-parallel polynomial multiplier in Amaranth (M = 1: FIR.PolyMult): the phase
sums of model.Structure feed K systolic multipliers of n/M taps (hw.systolic), whose
outputs (and, where an output phase needs w Q_k, their one-cycle look-ahead) are summed per
output phase, mod 2^k, into the output register. A prime q (`lazy`, model.Lazy): the same
array on exact integers (wider phase sums and accumulators), each output lane leaving as
c + offset (W bits, non-negative) into one pipelined reduction core a lane (`Reduced`).

Streams: a frame is n/M beats. Input beat p carries M coefficients of a, a_{Mp + l} in lane
l (lowest degree first), then M of b, b_{n - M(p+1) + l} in lane l (highest first); output
beat p carries c_{n - M(p+1) + l} in lane l. Window control: the array advances a cycle when
the output register can take a beat and either this window is a frame (its beat is valid)
or it drains the frame before (zeros in); a window starts at p = 0 with a frame if one is
offered, else with a drain if the frame before still has results to give, else waits. The
frame's first result beat comes with its last input beat (registered: latency n/M), the
others during the next window, so frames stream back to back (initiation interval n/M) and
latency never depends on data.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from amaranth.hdl import C, Cat, Module, Mux, Signal, Value
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ...hw.layout import lanes
from ...hw.pipeline import ParallelCore
from ...hw.systolic import (
    NegacyclicFir,
    accumulate,
    digit_controls,
    digit_signals,
    digit_terms,
    one_hot_load,
    thermometer_step,
)
from .model import Lazy, Structure


class Windows:
    """The window control both cores share: n positions p a window, the array advancing
    (`go`) when the output register has room and either this window carries a frame whose
    beat is offered or it drains; a window starts at p = 0 with a frame if one is offered,
    else drains if one of the `depth` windows before carried a frame whose results are still
    due, else waits. `before[d]`: window d + 1 back carried a frame."""

    def __init__(self, m: Module, i: Any, o: Any, n: int, depth: int):
        self.p = Signal(range(n), name="position")
        real = Signal(name="real")              # this window carries a frame (registered after p = 0)
        self.before = [Signal(name=f"frame_before_{d + 1}") for d in range(depth)]
        room = ~o.valid | o.ready
        self.start, self.last = self.p == 0, self.p == n - 1
        self.real_now = Mux(self.start, i.valid, real)
        self.go = Signal(name="advance")
        pending = self.before[0] if depth == 1 else Cat(*self.before).any()
        m.d.comb += [
            self.go.eq(room & Mux(self.start, i.valid | pending, ~real | i.valid)),
            i.ready.eq(room & (self.start | real)),
        ]
        with m.If(self.go):
            m.d.sync += self.p.eq(Mux(self.last, 0, self.p + 1))
            with m.If(self.start):
                m.d.sync += real.eq(i.valid)
            with m.If(self.last):
                m.d.sync += [self.before[0].eq(self.real_now)]
                m.d.sync += [self.before[d].eq(self.before[d - 1]) for d in range(1, depth)]


class PolyCore(wiring.Component):
    """group > 1: a frame is `group` products whose sum is the result (Saber's A s and b^T s'):
    the result slots of each product but the group's last add into a delay line of n/M beats
    instead of leaving, so the result beats come with the group's last product."""

    def __init__(self, layout: data.StructLayout, n: int, k: int, st: Structure, small: int = 0, mag_bits: int = 0,
                 group: int = 1, lazy: Lazy | None = None):
        """layout: the plan's input layout, two fields of M lanes (a, b; Saber's a, s)."""
        self.n, self.k, self.st, self.small, self.group, self.lazy = n, k, st, small, group, lazy
        self.layout = layout
        self.taps = n // st.M
        mag_bits = mag_bits or small.bit_length()
        self.b_bits = mag_bits + 1 if small else k      # one b lane: sign-magnitude or mod 2^k (or < q)
        self.out_bits = lazy.out_bits if lazy else k    # one result lane: c mod 2^k, or c + offset
        self.latency, self.initiation_interval = self.taps, group * self.taps
        assert layout.size == st.M * (k + self.b_bits), "the plan's operands are not the array's lanes"
        super().__init__({
            "i": In(stream.Signature(layout)),
            "o": Out(stream.Signature(data.ArrayLayout(self.out_bits, st.M))),     # lane l: c_(n-M(p+1)+l)
        })

    def widths(self, j: int) -> tuple[int, int, int]:
        """Product j's a sum, b sum (magnitude when small) and accumulator widths."""
        if self.lazy:
            return self.lazy.a_bits[j], self.lazy.b_bits[j], self.lazy.acc_bits[j]
        return self.k, (len(self.st.pre[j]) * self.small).bit_length() if self.small else self.k, self.k

    def lanes(self) -> tuple[list[Value], list[Value]]:
        """The a and b lanes of the input beat, its layout's two fields (b: (sign, magnitude)
        when small)."""
        a, b = (lanes(self.i.payload[name], self.st.M) for name, _ in self.layout)
        return a, b

    def phase_sums(self, m: Module, a: list[Value], b: list[Value], real: Value) -> list[tuple[Signal, Signal, Signal]]:
        """Per product k: the sum of a's phases mod 2^k (prime q: exact), and of b's (small:
        exact, then back to sign-magnitude); zeros while the window drains."""
        sums = []
        for j, phases in enumerate(self.st.pre):
            a_bits, mag_bits, _ = self.widths(j)
            sa = Signal(a_bits, name=f"a_sum{j}")
            m.d.comb += sa.eq(Mux(real, sum(a[lane] for lane in phases), 0))
            if self.small:
                signed = [Mux(b[lane][-1], -b[lane][:-1], b[lane][:-1]) for lane in phases]   # |b_l| <= small assumed
                total = Signal(range(-len(phases) * self.small, len(phases) * self.small + 1), name=f"b_sum{j}")
                m.d.comb += total.eq(sum(signed))
                sign, mag = Signal(name=f"b_sign{j}"), Signal(mag_bits, name=f"b_mag{j}")
                m.d.comb += [sign.eq(real & (total < 0)), mag.eq(Mux(real, Mux(total < 0, -total, total), 0))]
            else:
                sign, mag = Signal(name=f"b_sign{j}"), Signal(mag_bits, name=f"b_sum{j}")
                m.d.comb += mag.eq(Mux(real, sum(b[lane] for lane in phases), 0))
            sums.append((sa, sign, mag))
        return sums

    def elaborate(self, platform: Any) -> Module:
        m = Module()
        st, taps = self.st, self.taps
        # --- window control: the frame before's results are due in this window (pend) ---
        win = Windows(m, self.i, self.o, taps, 1)
        p, start, last, real_now, go, pend = win.p, win.start, win.last, win.real_now, win.go, win.before[0]
        fresh = Signal(taps, init=1 << (taps - 1), name="fresh")
        with m.If(go):
            m.d.sync += fresh.eq(thermometer_step(fresh, taps, last))
        # --- the K systolic multipliers ----------------------------------------------------
        a, b = self.lanes()
        shifted = st.shifted()
        firs = []
        for j, (sa, sign, mag) in enumerate(self.phase_sums(m, a, b, real_now)):
            small = len(st.pre[j]) * self.small
            a_bits, b_bits, acc_bits = self.widths(j)
            fir = NegacyclicFir(taps, acc_bits, small, lookahead=j in shifted, name=f"p{j}", w_width=a_bits,
                                x_width=b_bits)
            m.submodules[f"p{j}"] = fir
            m.d.comb += [fir.advance.eq(go), fir.fresh.eq(fresh), fir.load.eq(one_hot_load(fresh, taps)),
                         fir.w_in.eq(sa), fir.x_sign.eq(sign), fir.x_mag.eq(mag)]
            firs.append(fir)
        # --- post-processing: w Q_j is the look-ahead, at the frame's last slot -Q_j(slot 0) --
        # (prime q: the accumulators hold exact signed values, sign-extended into the wide lanes)
        exact = (lambda v: v.as_signed()) if self.lazy else (lambda v: v)
        wrap = p == taps - 2                  # slot taps-1 (the last) is given at position taps-2
        shifted_out = {}
        for j in shifted:
            held = Signal(self.widths(j)[2], name=f"p{j}_slot0")
            with m.If(go & last):
                m.d.sync += held.eq(firs[j].y)
            shifted_out[j] = Mux(wrap, -exact(held), exact(firs[j].y_next))
        lanes = []
        for phase, terms in enumerate(st.post):
            acc = self.lazy.offset if self.lazy else 0     # prime q: c + offset >= 0, = c mod q
            for j, coef, e in terms:        # +-1, +-2, +-4: adds and shifts (a product would be a DSP)
                value = (shifted_out[j] if e else exact(firs[j].y)) << (abs(coef).bit_length() - 1)
                acc = acc - value if coef < 0 else acc + value
            out = Signal(self.out_bits, name=f"c{phase}")
            m.d.comb += out.eq(acc)
            lanes.append(out)
        # --- the output register: slot 0 with the frame's last beat, slots 1.. in the next window
        slot = go & Mux(last, real_now, pend)
        result, leaves = self.accumulate(m, go, start, last, real_now, slot, Cat(*lanes))
        with m.If(go):
            m.d.sync += [self.o.valid.eq(slot & leaves), self.o.payload.eq(result)]
        with m.Elif(self.o.ready):
            m.d.sync += self.o.valid.eq(0)
        return m

    def accumulate(self, m: Module, go: Value, start: Value, last: Value, real_now: Value, slot: Value,
                   lanes: Value) -> tuple[Value, Value | int]:
        """group > 1: (the running sum of this slot over the group's products, whether it
        leaves: the group's last product); else (lanes, 1)."""
        if self.group == 1:
            return lanes, 1
        G, k, M = self.group, self.k, self.st.M
        count = Signal(range(G), name="product_count")        # real frames begun, mod G
        cur, prev = Signal(range(G), name="product_cur"), Signal(range(G), name="product_prev")
        with m.If(go & start & real_now):
            m.d.sync += [cur.eq(count), count.eq(Mux(count == G - 1, 0, count + 1))]
        with m.If(go & last):
            m.d.sync += prev.eq(cur)
        index = Mux(last, cur, prev)                           # the product this slot belongs to
        line = [Signal(M * k, name=f"acc{d}") for d in range(self.taps)]
        total = Signal(M * k, name="acc_sum")
        summed = [(Mux(index == 0, 0, line[-1][x * k:(x + 1) * k]) + lanes[x * k:(x + 1) * k])[:k] for x in range(M)]
        m.d.comb += total.eq(Cat(*summed))
        with m.If(slot):
            m.d.sync += [line[0].eq(total)] + [line[d].eq(line[d - 1]) for d in range(1, self.taps)]
        return total, index == G - 1


class SchoolbookCore(wiring.Component):
    """The MAC-array schoolbook multiplier (Roy & Basso's high-speed Saber multiplier), on
    PolyCore's M = 1 streams; with a small b each MAC is an adder per radix-4 digit of the
    broadcast |b| (decoded once, hw.systolic), no multiplier.

    Windows of n positions p, all stages advancing together on `go`:
      window W    frame f streams in: a_p into the capture register, b_{n-1-p} into a
                  delay line of n stages (it leaves in window W+1 as it came, highest first);
                  at p = n-1 the capture register and the incoming a_{n-1} load the
                  rotating register with x^-1 a
      window W+1  step p: the broadcast b_{n-1-p} and the rotating register x^{-1-p} a:
                  acc_k -= b_{n-1-p} (x^{-1-p} a)_k  (x^{n-1-p} = -x^{-1-p} mod x^n + 1),
                  then the register rotates by x^-1 (shift down, the bottom coefficient
                  negated into the top); at p = n-1 the last sums give c: c_{n-1} to the
                  output register, c_0..c_{n-2} to the output shift register, acc to 0
      window W+2  positions 0..n-2 stream c_{n-2}, ..., c_0 (output beats 1..n-1)
    Cycles: latency (input beat p to output beat p) 2n, initiation interval n, one
    multiplication (first input beat to last output beat) 3n - 1. Window control as in
    PolyCore: a window starts with a frame if one is offered, else drains if a frame is
    computing or streaming out, else waits; output back-pressure freezes everything.

    A prime q (`prime`): the rotating register holds residues in [0, q] (the wrap's
    negation is q - x), the products are exact and the accumulators (`acc_bits`) start each
    window at `offset` (a multiple of q above the bound of the sum), so a result leaves as
    a non-negative value congruent to c mod q (below 2 offset; offset + 1 without small),
    reduced after the core (`Reduced`).
    """

    def __init__(self, layout: data.StructLayout, n: int, k: int, small: int = 0, prime: int = 0, acc_bits: int = 0,
                 offset: int = 0):
        """layout: the plan's input layout, a then b (one lane each)."""
        self.n, self.k, self.small, self.prime, self.offset = n, k, small, prime, offset
        self.layout = layout
        self.b_bits = small.bit_length() + 1 if small else k      # sign-magnitude or mod 2^k (or < q)
        self.mag_bits = small.bit_length() if small else k
        self.out_bits = acc_bits or k                             # c mod 2^k, or c + offset
        self.prod_bits = 2 * k if prime else k                   # a full b: the product, exact for a prime q
        self.latency, self.initiation_interval = 2 * n, n
        assert layout.size == k + self.b_bits, "the plan's operands are not the array's a and b"
        super().__init__({"i": In(stream.Signature(layout)), "o": Out(stream.Signature(self.out_bits))})

    def control(self, m: Module) -> tuple[Value, Value, Value, Value]:
        """The shared window control (Windows, two windows back); returns (go, last, computing,
        streaming): computing/streaming, windows W+1 and W+2 of a frame."""
        win = Windows(m, self.i, self.o, self.n, 2)
        return win.go, win.last, win.before[0], win.before[1]

    def elaborate(self, platform: Any) -> Module:
        m = Module()
        n, k = self.n, self.k
        go, last, computing, streaming = self.control(m)
        a_in, b_in = (Value.cast(self.i.payload[name]) for name, _ in self.layout)
        # --- capture: a_0..a_{n-2} (shift down, the newest on top); b through a delay line
        cap = [Signal(k, name=f"cap{j}", reset_less=True) for j in range(n - 1)]
        bline = [Signal(self.b_bits, name=f"bline{j}", reset_less=True) for j in range(n)]
        with m.If(go):
            m.d.sync += [cap[j].eq(cap[j + 1]) for j in range(n - 2)] + [cap[n - 2].eq(a_in)]
            m.d.sync += [bline[0].eq(b_in)] + [bline[j].eq(bline[j - 1]) for j in range(1, n)]
        b = bline[n - 1]                                        # b_{n-1-p} of the frame before
        # the broadcast: subtract b * rot; small: b's radix-4 digits decoded once (hw.systolic),
        # each MAC one adder a digit adding or subtracting 0, rot or 2 rot (a LUT a bit)
        if self.small:
            shared = digit_signals(m, digit_controls(m, b[:-1], self.small, "b"), ~b[-1], 0, "b")
        # --- the rotating register: x^-1 a at the load, then x^-1 per step ---------------
        rot = [Signal(k, name=f"rot{j}", reset_less=True) for j in range(n)]
        neg = C(self.prime or 0, k)                             # -x: mod 2^k, or q - x (in [0, q])
        load = cap[1:] + [a_in, neg - cap[0]]                   # x^-1 a: a_{k+1}, top -a_0
        turn = rot[1:] + [neg - rot[0]]
        with m.If(go):
            m.d.sync += [r.eq(Mux(last, ld, t)) for r, ld, t in zip(rot, load, turn, strict=False)]
        # --- n MACs: acc_k -= b rot_k ------------------------------------------------------
        sums, W = [], self.out_bits
        for j in range(n):
            # cleared (prime q: set to the offset) at every window's end
            acc = Signal(W, name=f"acc{j}", reset_less=True, init=self.offset)
            if self.small:
                s = accumulate(m, acc, digit_terms(rot[j], shared, W), W, f"mac{j}")
            else:
                total = Signal(W + 1, name=f"total{j}")
                m.d.comb += total.eq(acc - (rot[j] * b)[:self.prod_bits])   # prime q: exact
                s = total[:W]
            with m.If(go):
                m.d.sync += acc.eq(Mux(last, self.offset, s))   # the next frame starts from 0 (the offset)
            sums.append(s)                                      # c at the last step
        # --- read-out: c_{n-1} at once, c_{n-2}..c_0 from the shift register -------------
        out = [Signal(W, name=f"out{j}", reset_less=True) for j in range(n - 1)]
        with m.If(go):
            m.d.sync += [o.eq(Mux(last, sums[j], out[j - 1] if j else 0)) for j, o in enumerate(out)]
            m.d.sync += [self.o.valid.eq(Mux(last, computing, streaming)),
                         self.o.payload.eq(Mux(last, sums[n - 1], out[n - 2]))]
        with m.Elif(self.o.ready):
            m.d.sync += self.o.valid.eq(0)
        return m


#: the arrays: their lanes (c mod 2^k, or c + offset for a prime q) leave as they are or into Reduced
Array = PolyCore | SchoolbookCore


class Reduced(wiring.Component):
    """A prime q: the lazy array (`core`, lanes of c + offset, W bits) into M pipelined
    reduction lanes (hw.pipeline.ParallelCore of `make_reducer()`, a modmul datapath taking
    x < 2^W, in `x_bits` >= W bits, to x mod q), k bits a lane out. Latency: the array's
    plus the reduction's stages; the reduction stalls with the output, so nothing is lost
    under back-pressure."""

    def __init__(self, core: Array, make_reducer: Callable[[], Any], x_bits: int, lanes: int,
                 layout: data.StructLayout):
        """layout: the plan's output layout (the result's `lanes` lanes of k bits)."""
        self.core, self.lanes = core, lanes
        self.reduce, self.x_bits = ParallelCore([make_reducer() for _ in range(lanes)], core.k), x_bits
        self.latency = core.latency + self.reduce.latency
        self.initiation_interval = core.initiation_interval
        super().__init__({"i": In(stream.Signature(core.layout)),
                          "o": Out(stream.Signature(layout))})
        assert layout.size == lanes * core.k, "the plan's result is not the reduction's lanes"

    def elaborate(self, platform: Any) -> Module:
        m = Module()
        m.submodules.array, m.submodules.reduce = self.core, self.reduce
        W, x_bits = self.core.out_bits, self.x_bits
        wide = lanes(self.core.o.payload, self.lanes)             # the array's lanes, c + offset
        # one Cat, not an assignment a lane through the View: the lanes' ports keep only the bits used
        m.d.comb += [self.reduce.i.valid.eq(self.core.o.valid), self.core.o.ready.eq(self.reduce.i.ready),
                     self.reduce.i.payload.eq(Cat(*(Cat(x, C(0, x_bits - W)) for x in wide)))]   # zero-extended
        wiring.connect(m, wiring.flipped(self.i), self.core.i)
        wiring.connect(m, self.reduce.o, wiring.flipped(self.o))
        return m
