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
    RegisteredFir,
    accumulate,
    coded,
    digit_controls,
    digit_signals,
    digit_terms,
    one_hot_load,
    thermometer_step,
    x_copies,
)
from .model import Lazy, Structure


class Windows:
    """The window control both cores share: n positions p a window, the array advancing
    (`go`) when the output register has room and either this window carries a frame whose
    beat is offered or it drains; a window starts at p = 0 with a frame if one is offered,
    else drains if one of the `depth` windows before carried a frame whose results are still
    due, else waits. `before[d]`: window d + 1 back carried a frame. `room` given (a register:
    the output's skid buffer is empty): the same control from registers (p = 0, p = n - 1,
    and `free`, whether the array may advance without a beat), so `go`, which enables nearly
    every register, is one LUT from registers and i.valid, or (`go` given) a register the
    caller sets from the next state (`free_next`); else room is ~o.valid | o.ready."""

    def __init__(self, m: Module, i: Any, o: Any, n: int, depth: int, room: Value | None = None,
                 go: Signal | None = None):
        self.p = Signal(range(n), name="position")
        real = Signal(name="real")              # this window carries a frame (registered after p = 0)
        self.before = [Signal(name=f"frame_before_{d + 1}") for d in range(depth)]
        fast = room is not None
        self.room = room = ~o.valid | o.ready if room is None else room
        if fast:
            self.start, self.last = Signal(name="at_start", init=1), Signal(name="at_last", init=n == 1)
        else:
            self.start, self.last = self.p == 0, self.p == n - 1
        self.real_now = Mux(self.start, i.valid, real)
        self.go = Signal(name="advance") if go is None else go
        pending = self.before[0] if depth == 1 else Cat(*self.before).any()
        if fast:
            free = self.registers(m, n, depth)
        if go is None:
            m.d.comb += self.go.eq(room & (i.valid | free) if fast
                                   else room & Mux(self.start, i.valid | pending, ~real | i.valid))
        m.d.comb += i.ready.eq(room & (self.start | real))
        with m.If(self.go):
            m.d.sync += self.p.eq(Mux(self.last, 0, self.p + 1))
            with m.If(self.start):
                m.d.sync += real.eq(i.valid)
            with m.If(self.last):
                m.d.sync += [self.before[0].eq(self.real_now)]
                m.d.sync += [self.before[d].eq(self.before[d - 1]) for d in range(1, depth)]

    def registers(self, m: Module, n: int, depth: int) -> Signal:
        """fast: at_start, at_last and `free` (the array may advance without a beat: at
        p = 0 a window before is pending, else this window drains), each from the next
        state; free_next, free's."""
        free, self.free_next = Signal(name="advance_free"), Signal(name="advance_free_next")
        pending_next = Cat(self.real_now, *self.before[:depth - 1]).any()     # before, once p wraps
        m.d.comb += self.free_next.eq(Mux(self.go, Mux(self.last, pending_next, ~self.real_now), free))
        m.d.sync += free.eq(self.free_next)
        with m.If(self.go):
            m.d.sync += [self.start.eq(self.last), self.last.eq(~self.last & (self.p == n - 2))]
        return free


class Source:
    """pipeline >= 3: an input beat held in registers (`held`: the given values, taken with
    the beat; one beat, i.ready from registers), as the stream the window control takes:
    valid, ready (driven by it), and valid_next, valid's next value."""

    def __init__(self, m: Module, i: Any, values: list[Value]):
        self.valid, self.ready = Signal(name="in_valid"), Signal(name="in_ready")
        self.valid_next = Signal(name="in_valid_next")
        self.held = [Signal(len(Value.cast(v)), name=f"in_{x}", reset_less=True) for x, v in enumerate(values)]
        taken = self.valid & self.ready
        m.d.comb += [i.ready.eq(~self.valid | taken), self.valid_next.eq((self.valid & ~taken) | i.valid)]
        m.d.sync += self.valid.eq(self.valid_next)
        with m.If(i.valid & i.ready):
            m.d.sync += [r.eq(v) for r, v in zip(self.held, values, strict=True)]


class PolyCore(wiring.Component):
    """group > 1: a frame is `group` products whose sum is the result (Saber's A s and b^T s'):
    the result slots of each product but the group's last add into a delay line of n/M beats
    instead of leaving, so the result beats come with the group's last product.

    pipeline = S >= 2 (poly-fast's `pipeline`): S register stages, latency n/M + S, for a fast
    clock. Stage 1 holds the phase sums: the sub-multipliers (hw.systolic.RegisteredFir: tap
    controls in registers, at most two adders between registers) run one advance behind the
    window, their last position the window's first. Stage 2: a result slot s is taken at
    the array's position s, one later than the look-ahead would (`emission`): Q_j(s) from a
    register, w Q_j(s) = Q_j(s + 1) this position's. Stage 3 registers those products, each
    further stage cuts the post-addition trees (a balanced tree of adders a phase, its levels
    split evenly). From the emission on the stages advance whenever the output register has
    room, each with a valid bit (and the product index, group > 1), so they drain on their
    own; the group's delay line moves with the valid slots at the end. The last slot of a
    frame falls on the next window's first position, where the window may wait: it is taken
    when the output has room, so the windows and their drain stay as they are."""

    def __init__(self, layout: data.StructLayout, n: int, k: int, st: Structure, small: int = 0, mag_bits: int = 0,
                 group: int = 1, lazy: Lazy | None = None, pipeline: int = 0):
        """layout: the plan's input layout, two fields of M lanes (a, b; Saber's a, s)."""
        self.n, self.k, self.st, self.small, self.group, self.lazy = n, k, st, small, group, lazy
        self.layout, self.pipeline = layout, pipeline
        self.taps = n // st.M
        mag_bits = mag_bits or small.bit_length()
        self.b_bits = mag_bits + 1 if small else k      # one b lane: sign-magnitude or mod 2^k (or < q)
        self.out_bits = lazy.out_bits if lazy else k    # one result lane: c mod 2^k, or c + offset
        self.latency, self.initiation_interval = self.taps + pipeline, group * self.taps
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

    def lanes(self, payload: Any) -> tuple[list[Value], list[Value]]:
        """The a and b lanes of an input beat, its layout's two fields (b: (sign, magnitude)
        when small)."""
        a, b = (lanes(payload[name], self.st.M) for name, _ in self.layout)
        return a, b

    def phase_sums(self, m: Module, a: list[Value], b: list[Value], real: Value) -> list[tuple[Signal, Signal, Signal]]:
        """Per product k: the sum of a's phases mod 2^k (prime q: exact), and of b's (small:
        exact, then back to sign-magnitude); zeros while the window drains."""
        return [(self.a_sum(m, j, a, real), *self.b_sum(m, j, b, real)) for j in range(self.st.K)]

    def a_sum(self, m: Module, j: int, a: list[Value], real: Value) -> Signal:
        """Product j's sum of a's phases, zero while the window drains."""
        sa = Signal(self.widths(j)[0], name=f"a_sum{j}")
        m.d.comb += sa.eq(Mux(real, sum(a[lane] for lane in self.st.pre[j]), 0))
        return sa

    def b_sum(self, m: Module, j: int, b: list[Value], real: Value | None) -> tuple[Signal, Signal]:
        """Product j's sum of b's phases (sign, magnitude; a full b: 0 and the sum mod 2^k),
        zero while the window drains (real None: never; the zero a sums zero every product
        as well, and the window's control stays off b's decoding)."""
        phases, mag_bits = self.st.pre[j], self.widths(j)[1]

        def gated(v: Value) -> Value:
            return v if real is None else Mux(real, v, 0)
        if self.small:
            signed = [Mux(b[lane][-1], -b[lane][:-1], b[lane][:-1]) for lane in phases]   # |b_l| <= small assumed
            total = Signal(range(-len(phases) * self.small, len(phases) * self.small + 1), name=f"b_sum{j}")
            m.d.comb += total.eq(sum(signed))
            sign, mag = Signal(name=f"b_sign{j}"), Signal(mag_bits, name=f"b_mag{j}")
            m.d.comb += [sign.eq(total < 0 if real is None else real & (total < 0)),
                         mag.eq(gated(Mux(total < 0, -total, total)))]
        else:
            sign, mag = Signal(name=f"b_sign{j}"), Signal(mag_bits, name=f"b_sum{j}")
            m.d.comb += mag.eq(gated(sum(b[lane] for lane in phases)))
        return sign, mag

    def registered_array(self, m: Module, controls: list[tuple[Value, Value]],
                         sums: list[tuple[Value, Value, Value]],
                         copies: list[list[tuple[Value, Value]]]) -> list[RegisteredFir]:
        """pipeline > 0, stage 1: the phase sums registered (already zero while draining),
        the K sub-multipliers (hw.systolic.RegisteredFir) one advance behind the window on
        them, each taking its next w and x from the sums before the register (and the copies
        of that x for its tap groups); sub-multiplier j and its registers on controls[j], its
        copy of (the advance, `fresh`)."""
        firs = []
        for j, (sa, sign, mag) in enumerate(sums):
            go, fresh = controls[j]
            regs = [Signal.like(x, name=f"{x.name}_r") for x in (sa, sign, mag)]
            with m.If(go):
                m.d.sync += [r.eq(x) for r, x in zip(regs, (sa, sign, mag), strict=True)]
            a_bits, b_bits, acc_bits = self.widths(j)
            fir = RegisteredFir(self.taps, acc_bits, len(self.st.pre[j]) * self.small, name=f"p{j}", w_width=a_bits,
                                x_width=b_bits, x_copies=1 + len(copies[j]))
            m.submodules[f"p{j}"] = fir
            m.d.comb += [fir.advance.eq(go), fir.fresh.eq(fresh), fir.load.eq(one_hot_load(fresh, self.taps)),
                         fir.w_in.eq(regs[0]), fir.x_sign.eq(regs[1]), fir.x_mag.eq(regs[2]),
                         fir.w_next.eq(sa), fir.x_sign_next.eq(sign), fir.x_mag_next.eq(mag)]
            m.d.comb += [port.eq(v) for ports, vs in zip(fir.x_next_copies, copies[j], strict=True)
                         for port, v in zip(ports, vs, strict=True)]
            firs.append(fir)
        return firs

    def elaborate(self, platform: Any) -> Module:
        m = Module()
        if self.pipeline:
            self.fast(m)
            return m
        st, taps = self.st, self.taps
        # --- window control: the frame before's results are due in this window (pend) ---
        win = Windows(m, self.i, self.o, taps, 1)
        p, start, last, real_now, go, pend = win.p, win.start, win.last, win.real_now, win.go, win.before[0]
        fresh = Signal(taps, init=1 << (taps - 1), name="fresh")
        with m.If(go):
            m.d.sync += fresh.eq(thermometer_step(fresh, taps, last))
        # --- the K systolic multipliers ----------------------------------------------------
        a, b = self.lanes(self.i.payload)
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

    # --- pipeline > 0 ---------------------------------------------------------------------------
    def fast(self, m: Module) -> None:
        """The pipelined core: (S >= 3) the input beat registered and the advance a register
        set from the next state; the window control from registers; the registered array
        one advance behind the window (its last position the window's first); the stages
        after it, into the output's skid buffer (its emptiness the `room` every stage moves
        on, a register, so o.ready reaches no enable)."""
        taps, skid, K = self.taps, Signal(name="skid_valid"), self.st.K
        a, b = self.lanes(self.i.payload)
        copies = x_copies(taps)
        # b's phase sums, each in `copies` copies (the sub-multiplier's tap groups' next x)
        b_sums = [[self.b_sum(m, j, b, None)] * copies for j in range(K)]
        src: Any = self.i
        if self.pipeline >= 3:      # the beat's a lanes and b's phase sums in registers, the copies coded
            def code(sign: Value, mag: Value, g: int) -> list[Value]:
                return [coded(sign, g >> len(mag)), coded(mag, g)]
            src = Source(m, self.i, [*a, *(v for sums in b_sums for g, sm in enumerate(sums) for v in code(*sm, g))])
            a, held = src.held[:len(a)], iter(src.held[len(a):])
            b_sums = [[tuple(code(next(held), next(held), g)) for g in range(copies)] for _ in range(K)]
        win = Windows(m, src, self.o, taps, 1, ~skid, Signal(name="advance") if self.pipeline >= 3 else None)
        fresh = Signal(taps, init=(1 << taps) - 1, name="fresh")
        fresh_next = Mux(win.go, thermometer_step(fresh, taps, win.start), fresh)
        m.d.sync += fresh.eq(fresh_next)
        go_next = Signal(name="advance_next")
        controls = ([self.control_copy(m, j, go_next, fresh, fresh_next) for j in range(K)] if self.pipeline >= 3
                    else [(win.go, fresh)] * K)
        sums = [(self.a_sum(m, j, a, win.real_now), *b_sums[j][0]) for j in range(K)]
        firs = self.registered_array(m, controls, sums, [nexts[1:] for nexts in b_sums])
        skid_next = self.pipelined(m, win, firs, fresh, skid)
        if self.pipeline >= 3:
            m.d.comb += go_next.eq(~skid_next & (src.valid_next | win.free_next))
            m.d.sync += win.go.eq(go_next)

    def control_copy(self, m: Module, j: int, go_next: Value, fresh: Signal,
                     fresh_next: Value) -> tuple[Signal, Signal]:
        """Sub-multiplier j's own copy of the advance and of `fresh` (registers each, so each
        drives only its multiplier's registers and no control net spans the chip), each set
        from the next state. Yosys merges equal registers into one, so the copies are kept
        coded: the advance XOR bit j of `fresh` (mod taps, complemented every other round),
        `fresh` XOR j, each XORed back (a LUT input)."""
        taps, bit, flip = self.taps, j % self.taps, (j // self.taps) % 2
        mask = j % (1 << taps)
        code = Signal(name=f"p{j}_advance_code", init=1 ^ flip)      # fresh starts all ones, the advance 0
        thermometer = Signal(taps, name=f"p{j}_fresh_code", init=((1 << taps) - 1) ^ mask)
        m.d.sync += [code.eq(go_next ^ fresh_next[bit] ^ flip), thermometer.eq(fresh_next ^ mask)]
        advance, own = Signal(name=f"p{j}_advance"), Signal(taps, name=f"p{j}_fresh")
        m.d.comb += [advance.eq(code ^ fresh[bit] ^ flip), own.eq(thermometer ^ mask)]
        return advance, own

    # --- pipeline > 0: the stages after the array ----------------------------------------------
    def stage(self, m: Module, room: Value, values: list[Value], valid: Value, index: Value | None,
              name: str) -> tuple[list[Value], Value, Value | None]:
        """One register stage (moving whenever the output has room): the values (out_bits
        each, mod 2^out_bits), their valid bit and product index."""
        regs = [Signal(self.out_bits, name=f"{name}_{x}", reset_less=True) for x in range(len(values))]
        v = Signal(name=f"{name}_valid")
        with m.If(room):
            m.d.sync += [r.eq(x) for r, x in zip(regs, values, strict=True)] + [v.eq(valid)]
        if index is None:
            return list(regs), v, None
        idx = Signal(range(self.group), name=f"{name}_index", reset_less=True)
        with m.If(room):
            m.d.sync += idx.eq(index)
        return list(regs), v, idx

    def emission(self, m: Module, win: Windows, firs: list[RegisteredFir],
                 fresh: Value) -> tuple[dict[tuple[int, int], Value], Value, Value | None]:
        """The products of a result slot s, taken at the array's position s (one later than
        the look-ahead): Q_j(s) is y_part of the position before plus (s = 0) the load
        products, w Q_j(s) this position's y_part, Q_j(s + 1), or at the last slot -Q_j(0),
        held; each one adder from registers. Returns ({(j, e): value}, valid, product index).
        The last slot's position (taps - 1) is the next window's first, where the window may
        wait: it is taken there as soon as the output has room (`tail`), not with an advance."""
        go, start, last, pend, G = win.go, win.start, win.last, win.before[0], self.group
        exact = (lambda v: v.as_signed()) if self.lazy else (lambda v: v)
        # the array's positions 0 and taps-1: bits taps-1 and 0 of one_hot_load(fresh), alone (the
        # whole vector would leave its other bits unread)
        first, wrap = fresh[self.taps - 1] & ~fresh[self.taps - 2], fresh[0]
        products: dict[tuple[int, int], Value] = {}
        for j, fir in enumerate(firs):
            width = self.widths(j)[2]
            before, q = Signal(width, name=f"p{j}_before"), Signal(width, name=f"p{j}_q")
            with m.If(fir.advance):             # the advance, sub-multiplier j's copy
                m.d.sync += before.eq(fir.y_part)
            m.d.comb += q.eq(before + Mux(first, fir.load_sum, 0))
            products[(j, 0)] = exact(q)
            if j in self.st.shifted():
                held = Signal(width, name=f"p{j}_slot0")
                with m.If(fir.advance & first):
                    m.d.sync += held.eq(q)
                products[(j, 1)] = Mux(wrap, -exact(held), exact(fir.y_part))
        prev = self.counters(m, go, start, last, win.real_now)[1] if G > 1 else None
        tail = Signal(name="tail")              # the last slot of a frame is due at the array's position taps-1
        tail_index = Signal(range(G), name="tail_index") if prev is not None else None
        with m.If(go & last):
            m.d.sync += tail.eq(pend)
            if prev is not None and tail_index is not None:
                m.d.sync += tail_index.eq(prev)
        with m.Elif(win.room & start):
            m.d.sync += tail.eq(0)
        index = Mux(start, tail_index, prev) if prev is not None else None
        return products, Mux(start, tail, go & pend), index

    def pipelined(self, m: Module, win: Windows, firs: list[RegisteredFir], fresh: Value, skid: Signal) -> Signal:
        """The stages after the emission: its products registered (S >= 4), then per output
        phase a balanced tree of adders over its terms (+-1, +-2 times a product; prime q: the
        offset a term too), cut by the S - 4 further stages evenly over its levels; the roots
        (and the group's running sum) into the output's skid buffer (skid_buffer: returns
        its next state)."""
        S, W, room = self.pipeline, self.out_bits, win.room
        products, valid, index = self.emission(m, win, firs, fresh)
        keys = sorted({(j, e) for terms in self.st.post for j, _, e in terms})
        values = [products[key] for key in keys]
        if S >= 4:
            values, valid, index = self.stage(m, room, values, valid, index, "product")
        by_key = dict(zip(keys, values, strict=True))
        trees: list[list[tuple[Value, bool]]] = []
        for terms in self.st.post:      # (value, negative): +-2 Q is Q shifted
            trees.append([(by_key[(j, e)] << (abs(coef).bit_length() - 1), coef < 0) for j, coef, e in terms]
                         + ([(C(self.lazy.offset, W), False)] if self.lazy else []))
        depth = max((len(t) - 1).bit_length() for t in trees)
        segments = max(S - 3, 1)
        cuts = [-(-depth * (x + 1) // segments) for x in range(segments - 1)]
        for level in range(depth + 1):      # cuts at level 0 only when there is no tree (M = 1)
            if level:
                trees = [combine(m, t, W, f"c{phase}_l{level}") for phase, t in enumerate(trees)]
            for cut in range(cuts.count(level)):
                flat, valid, index = self.stage(m, room, [v for t in trees for v, _ in t], valid, index,
                                                f"post{level}_{cut}")
                it = iter(flat)
                trees = [[(next(it), neg) for _, neg in t] for t in trees]
        lanes = []
        for phase, [(root, neg)] in enumerate(trees):
            out = Signal(W, name=f"c{phase}")
            m.d.comb += out.eq(-root if neg else root)
            lanes.append(out)
        if index is None:
            result, leaves = Cat(*lanes), C(1, 1)
        else:
            result, leaves = self.line_sum(m, room & valid, index, Cat(*lanes))
        return self.skid_buffer(m, skid, room & valid & leaves, result)

    def skid_buffer(self, m: Module, skid: Signal, push: Value, result: Value) -> Signal:
        """The output register and a second one behind it: the stages move on `room`, the
        skid register empty, a register, so o.ready reaches no enable; a result pushed while
        the output waits goes to the skid register, which refills the output first. Returns
        skid's next value."""
        held, skid_next = Signal(len(result), name="skid", reset_less=True), Signal(name="skid_valid_next")
        free = ~self.o.valid | self.o.ready
        m.d.comb += skid_next.eq(~free & (skid | push))
        m.d.sync += skid.eq(skid_next)
        with m.If(free):
            m.d.sync += [self.o.valid.eq(skid | push), self.o.payload.eq(Mux(skid, held, result))]
        with m.Elif(push):
            m.d.sync += held.eq(result)
        return skid_next

    # --- group > 1: the running sum over the group's products ---------------------------------
    def counters(self, m: Module, go: Value, start: Value, last: Value, real_now: Value) -> tuple[Signal, Signal]:
        """(cur, prev): the product index (mod group) of this window's frame and of the window
        before's."""
        G = self.group
        count = Signal(range(G), name="product_count")        # real frames begun, mod G
        cur, prev = Signal(range(G), name="product_cur"), Signal(range(G), name="product_prev")
        with m.If(go & start & real_now):
            m.d.sync += [cur.eq(count), count.eq(Mux(count == G - 1, 0, count + 1))]
        with m.If(go & last):
            m.d.sync += prev.eq(cur)
        return cur, prev

    def line_sum(self, m: Module, shift: Value, index: Value, lanes: Value) -> tuple[Value, Value]:
        """The running sum of a slot over the group's products (a delay line of n/M slots,
        moving with each slot, `shift`) and whether it leaves: product `index` is the last."""
        k, M = self.k, self.st.M
        line = [Signal(M * k, name=f"acc{d}") for d in range(self.taps)]
        total = Signal(M * k, name="acc_sum")
        summed = [(Mux(index == 0, 0, line[-1][x * k:(x + 1) * k]) + lanes[x * k:(x + 1) * k])[:k] for x in range(M)]
        m.d.comb += total.eq(Cat(*summed))
        with m.If(shift):
            m.d.sync += [line[0].eq(total)] + [line[d].eq(line[d - 1]) for d in range(1, self.taps)]
        return total, index == self.group - 1

    def accumulate(self, m: Module, go: Value, start: Value, last: Value, real_now: Value, slot: Value,
                   lanes: Value) -> tuple[Value, Value | int]:
        """group > 1: (the running sum of this slot over the group's products, whether it
        leaves: the group's last product); else (lanes, 1)."""
        if self.group == 1:
            return lanes, 1
        cur, prev = self.counters(m, go, start, last, real_now)
        return self.line_sum(m, slot, Mux(last, cur, prev), lanes)   # the product this slot belongs to


def combine(m: Module, nodes: list[tuple[Value, bool]], width: int, name: str) -> list[tuple[Value, bool]]:
    """One level of an adder tree over signed terms (value, negative): neighbours pair into
    one adder each, a difference where the signs differ (the positive one the minuend), so
    only a tree of negative terms ends negative; the sums mod 2^width."""
    out = []
    for x in range(0, len(nodes) - 1, 2):
        (u, nu), (v, nv) = nodes[x], nodes[x + 1]
        s = Signal(width, name=f"{name}_{x // 2}")
        m.d.comb += s.eq(u + v if nu == nv else v - u if nu else u - v)
        out.append((s, nu and nv))
    return out + nodes[len(nodes) & ~1:]


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
