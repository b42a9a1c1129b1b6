"""The fast M-parallel polynomial multiplier in Amaranth (M = 1: FIR.PolyMult): the phase
sums of model.Structure feed K systolic multipliers of n/M taps (hw.systolic), whose
outputs (and, where an output phase needs w Q_k, their one-cycle look-ahead) are summed per
output phase, mod 2^k, into the output register.

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

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ...hw.systolic import NegacyclicFir, one_hot_load, thermometer_step
from .model import Structure


class PolyCore(wiring.Component):
    """group > 1: a frame is `group` products whose sum is the result (Saber's A s and b^T s'):
    the result slots of each product but the group's last add into a delay line of n/M beats
    instead of leaving, so the result beats come with the group's last product."""

    def __init__(self, n: int, k: int, st: Structure, small: int = 0, mag_bits: int = 0, group: int = 1):
        self.n, self.k, self.st, self.small, self.group = n, k, st, small, group
        self.taps = n // st.M
        mag_bits = mag_bits or small.bit_length()
        self.b_bits = mag_bits + 1 if small else k      # one b lane: sign-magnitude or mod 2^k
        self.latency, self.initiation_interval = self.taps, group * self.taps
        super().__init__({
            "i": In(stream.Signature(st.M * (k + self.b_bits))),
            "o": Out(stream.Signature(st.M * k)),
        })

    def lanes(self):
        """The a and b lanes of the input beat (b: (sign, magnitude) when small)."""
        M, k, bb = self.st.M, self.k, self.b_bits
        a = [self.i.payload[lane * k:(lane + 1) * k] for lane in range(M)]
        b = [self.i.payload[M * k + lane * bb:M * k + (lane + 1) * bb] for lane in range(M)]
        return a, b

    def phase_sums(self, m: Module, a, b, real):
        """Per product k: the sum of a's phases mod 2^k, and of b's (small: exact, then back to
        sign-magnitude); zeros while the window drains."""
        sums = []
        for j, phases in enumerate(self.st.pre):
            sa = Signal(self.k, name=f"a_sum{j}")
            m.d.comb += sa.eq(Mux(real, sum(a[lane] for lane in phases), 0))
            if self.small:
                mag_bits = (len(phases) * self.small).bit_length()
                signed = [Mux(b[lane][-1], -b[lane][:-1], b[lane][:-1]) for lane in phases]   # |b_l| <= small assumed
                total = Signal(range(-len(phases) * self.small, len(phases) * self.small + 1), name=f"b_sum{j}")
                m.d.comb += total.eq(sum(signed))
                sign, mag = Signal(name=f"b_sign{j}"), Signal(mag_bits, name=f"b_mag{j}")
                m.d.comb += [sign.eq(real & (total < 0)), mag.eq(Mux(real, Mux(total < 0, -total, total), 0))]
            else:
                sign, mag = Signal(name=f"b_sign{j}"), Signal(self.k, name=f"b_sum{j}")
                m.d.comb += mag.eq(Mux(real, sum(b[lane] for lane in phases), 0))
            sums.append((sa, sign, mag))
        return sums

    def elaborate(self, platform):
        m = Module()
        _n, k, st, taps = self.n, self.k, self.st, self.taps
        # --- window control ------------------------------------------------------------
        p = Signal(range(taps), name="position")
        real = Signal(name="real")            # this window carries a frame (registered after p = 0)
        pend = Signal(name="pending")         # the window before carried one: its results are due now
        fresh = Signal(taps, init=1 << (taps - 1), name="fresh")
        room = ~self.o.valid | self.o.ready
        start = p == 0
        real_now = Mux(start, self.i.valid, real)
        go = Signal(name="advance")
        m.d.comb += [
            go.eq(room & Mux(start, self.i.valid | pend, ~real | self.i.valid)),
            self.i.ready.eq(room & (start | real)),
        ]
        last = p == taps - 1
        with m.If(go):
            m.d.sync += [p.eq(Mux(last, 0, p + 1)), fresh.eq(thermometer_step(fresh, taps, last))]
            with m.If(start):
                m.d.sync += real.eq(self.i.valid)
            with m.If(last):
                m.d.sync += pend.eq(real_now)
        # --- the K systolic multipliers ----------------------------------------------------
        a, b = self.lanes()
        shifted = st.shifted()
        firs = []
        for j, (sa, sign, mag) in enumerate(self.phase_sums(m, a, b, real_now)):
            small = len(st.pre[j]) * self.small
            fir = NegacyclicFir(taps, k, small, lookahead=j in shifted, name=f"p{j}")
            m.submodules[f"p{j}"] = fir
            m.d.comb += [fir.advance.eq(go), fir.fresh.eq(fresh), fir.load.eq(one_hot_load(fresh, taps)),
                         fir.w_in.eq(sa), fir.x_sign.eq(sign), fir.x_mag.eq(mag)]
            firs.append(fir)
        # --- post-processing: w Q_j is the look-ahead, at the frame's last slot -Q_j(slot 0) --
        wrap = p == taps - 2                  # slot taps-1 (the last) is given at position taps-2
        shifted_out = {}
        for j in shifted:
            held = Signal(k, name=f"p{j}_slot0")
            with m.If(go & last):
                m.d.sync += held.eq(firs[j].y)
            shifted_out[j] = Mux(wrap, -held, firs[j].y_next)
        lanes = []
        for phase, terms in enumerate(st.post):
            acc = 0
            for j, coef, e in terms:
                acc = acc + coef * (shifted_out[j] if e else firs[j].y)
            out = Signal(k, name=f"c{phase}")
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

    def accumulate(self, m: Module, go, start, last, real_now, slot, lanes):
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
