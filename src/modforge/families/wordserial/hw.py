"""The word-serial Montgomery multiplier (FIOS, model.py) in Amaranth: a chain of pe
processing elements (PEs) that the words of y, N and t stream through, one word a cycle.

Data:
  x, y      RAMs of s words, written by the input frame (beat j: x_j, y_j)
  N, N'     a RAM of s words and a register, reset to the build's modulus, written by cfg
            (sel 0 word 0: N'; sel 1 word j: N_j) while no frame is in the core; fixed: a
            ROM and a constant, no cfg stream, and friendly (N' = 1): no products by N'
  feedback  a RAM of s + 1 words: the t that one round's last PE gives the next round
  result    a RAM of s words of {t_j - N_j (with borrow), t_j}; the final borrow picks the
            half the read-out sends (both are always formed: constant time)

Rounds: round r streams words j = 0..s of (t, y, N) into PE 0 (t: 0 in round 0, else the
feedback RAM; y_s = N_s = 0, cleared as they enter PE 0, as are t, y and N of the idle
slots between rounds), one round every T cycles; PE k handles outer iteration i = r pe + k,
and its output stream (t', y, N) is PE k+1's input, D = 6 cycles later. The last PE's stream
goes to the feedback RAM, or, in the last round, through the subtraction unit to the result
RAM. Each word carries its control flags (first, last,
active, final round) along the chain.

One PE (word j enters at cycle a + j; flags and y, N delay lines of D = 6):
  a        word 0: registered low product t_0 N' (and, on the x bus, x_i (y_0 N') mod 2^w)
  a+1      word 0: m = their sum mod 2^w, x_i latched (held for the round)
  a+2+j    products x_i y_j and m N_j (DSP tiling, registered)
  a+3+j    P = their sum
  a+4+j    (c, S) = P + (t_j + c): S = t'_(j-1) (registered: visible at a+5+j)
  a+5+s    S = t'_s, the carry out of word s (at most 1) added to the next slot: FIOS's step
           j = s+1 (t_(s+1) = y = N = 0) adds only that carry, so a round is s + 1 words and
           the next round's word 0 follows word s (its low word is 0 by the choice of m: S is
           the carry, and the carry out is word 0's own); an idle slot adds 0 (c, S = 0 after)
x_i comes from the x RAM's one read port: its address advances when a PE has latched its
word, and PEs take their words D cycles apart, in order; x_i (y_0 N') is formed once there.

Control (banks = 1): the first beat of a frame starts its rounds: round 0 (t = 0) reads word
j of y from the RAM the cycle after beat j wrote it, and PE k takes x_k D k cycles after PE 0
took x_0, so the load and round 0 overlap. The result's read-out starts when the last word
leaves the subtraction unit, and the next frame loads, and runs its rounds, while the result
leaves. Everything from the feed to the result RAM advances on `run`: it holds while round 0
wants a beat that has not come (an input stall), or while the last round's word at the
chain's end would overtake the read-out (back-pressure on o), and only then.
banks = 2: x and y RAMs of two banks (the next frame's y_0 waits in a register); a frame's rounds start
when its last beat is written and the feed is free, so no input stall ever holds the chain
(a late beat delays only its own frame; a frame that must wait is `pending`), and the next
frame loads into the other bank during the rounds, its first beat taken once the feed is
within s cycles of its end. The x RAM's index runs on across frames, its bank flipping after
each frame's s words. The last round keeps its T cycles, in which its PEs take their x
words: a bank is free when its frame's feed ends.
Without stalls nothing waits on a port, and nothing depends on the operands' values: the
latency is the plan's formula (plan.py).
"""

from __future__ import annotations

from typing import Any

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ...hw.config import ConfigLoader
from ...hw.dsp import accumulate, partial_products
from ...hw.stream import ReadOut
from .model import n_prime, words
from .plan import PE_DELAY, MontgomeryPlan

DspProfile = tuple[int, int] | None     # hw.dsp.DSP_PROFILES' values: a DSP's operand widths, or none

FLAGS = ("first", "last", "active", "final")


def product(m: Module, a: Value, b: Value, w: int, dsp: DspProfile, name: str, low: bool = False) -> Value:
    """a * b (w x w bits) from the DSP tiling's partial products, each registered (the DSP's
    output register): their sum, one cycle after a and b. low: only a*b mod 2^w is needed,
    so the partial products at offsets >= w are left out and the others cut to w bits."""
    parts = partial_products(a, w, b, w, dsp)
    regs = []
    for k, (shift, p) in enumerate(parts):
        if low and shift >= w:
            continue
        value = p[:w - shift] if low else p
        reg = Signal(len(value), name=f"{name}_pp{k}", reset_less=True)
        m.d.sync += reg.eq(value)
        regs.append((shift, reg))
    total = accumulate(regs)
    return total[:w] if low else total


def delayed(m: Module, value: Value, cycles: int, name: str, reset_less: bool = True,
            clear: Value | None = None) -> Value:
    """value `cycles` cycles ago (a plain register chain, no reset for data: a shift register
    LUT; with a reset for control flags); clear: the first register takes 0 instead (the
    flip-flop's synchronous reset: no LUT)."""
    for k in range(cycles):
        reg = Signal(len(value), name=f"{name}_d{k + 1}", reset_less=reset_less)
        m.d.sync += reg.eq(Mux(clear, 0, value) if k == 0 and clear is not None else value)
        value = reg
    return value


class MontgomeryCore(wiring.Component):
    def __init__(self, plan: MontgomeryPlan, dsp: DspProfile, modulus: int, layouts: dict[str, data.StructLayout],
                 fixed: bool = False, friendly: bool = False):
        """layouts: the streams' payloads (the plan's i: x, y words; o: t's; cfg: data, word, sel);
        fixed: the modulus is `modulus` for good (no cfg); friendly: also N' = 1 (m from t_0 + x_i y_0)."""
        self.plan, self.dsp, self.modulus, self.fixed, self.friendly = plan, dsp, modulus, fixed, friendly
        assert fixed or not friendly
        self.latency = plan.latency
        self.initiation_interval = plan.initiation_interval
        assert layouts["i"].size == 2 * plan.w and layouts["o"].size == plan.w
        assert fixed or layouts["cfg"].size == plan.cfg_width
        super().__init__({
            "i": In(stream.Signature(layouts["i"])),
            "o": Out(stream.Signature(layouts["o"])),
        } | ({} if fixed else {"cfg": In(stream.Signature(layouts["cfg"]))}))

    def elaborate(self, platform: Any) -> Module:
        return _Build(self).m


class _Build:
    """One elaboration of a MontgomeryCore: the RAMs, the cfg loader, the load, the feed of
    rounds, the chain of PEs, the chain's end (feedback or result) and the read-out."""

    def __init__(self, core: MontgomeryCore):
        self.core, self.m = core, Module()
        self.plan, self.dsp = core.plan, core.dsp
        self.w, self.s, self.pe, self.banks = core.plan.w, core.plan.s, core.plan.pe, core.plan.banks
        # two banks: word j of bank b at Cat(j, b), a bank 2^k words
        self.k = (self.s - 1).bit_length()
        self.run = Signal(name="run")
        self.x_bank = Signal(name="x_bank")           # the bank the x RAM's address reads
        self.feed_free = Signal(name="feed_free")     # two banks: the feed can start a frame this cycle
        self.feed_near_end = Signal(name="feed_near_end")  # two banks: the feed is through within s cycles
        self.memories()
        self.config()
        self.load()
        self.feed()
        self.chain()
        self.chain_end()
        self.read_out()
        self.m.d.comb += self.run.eq(~Cat(*self.stalls).any())

    def memories(self) -> None:
        m, w, s = self.m, self.w, self.s
        depth = s if self.banks == 1 else 2 << self.k
        mems = {
            "x_ram": Memory(shape=w, depth=depth, init=[]),
            "y_ram": Memory(shape=w, depth=depth, init=[]),
            "n_ram": Memory(shape=w, depth=s, init=words(self.core.modulus, w, s)),
            "feedback_ram": Memory(shape=w, depth=s + 1, init=[]),
            "result_ram": Memory(shape=2 * w, depth=s, init=[]),
        }
        for name, mem in mems.items():
            m.submodules[name] = mem
        # the ports take their names from these variables (x_rd__addr, ...)
        x_wr, x_rd = mems["x_ram"].write_port(), mems["x_ram"].read_port()
        y_wr, y_rd = mems["y_ram"].write_port(), mems["y_ram"].read_port()
        n_wr, n_rd = (None if self.core.fixed else mems["n_ram"].write_port()), mems["n_ram"].read_port()  # fixed: ROM
        fb_wr, fb_rd = mems["feedback_ram"].write_port(), mems["feedback_ram"].read_port()
        res_wr, res_rd = mems["result_ram"].write_port(), mems["result_ram"].read_port()
        self.x_wr, self.x_rd, self.y_wr, self.y_rd, self.n_wr, self.n_rd = x_wr, x_rd, y_wr, y_rd, n_wr, n_rd
        self.fb_wr, self.fb_rd, self.res_wr, self.res_rd = fb_wr, fb_rd, res_wr, res_rd

    def address(self, index: Value, bank: Value) -> Value:
        """An x or y RAM address: word `index` (of the bank, with two)."""
        return index if self.banks == 1 else Cat(index[:self.k], bank)

    def config(self) -> None:
        """cfg: N' (register 0) and N's words (RAM) while no frame is in the core; fixed: N' a
        constant."""
        m, w, core = self.m, self.w, self.core
        if core.fixed:
            self.np_reg: Value = Const(n_prime(core.modulus, w), w)
            return
        self.loader = ConfigLoader(core.cfg.payload.shape(), [("n_prime", w, n_prime(core.modulus, w))],
                                   {1: self.n_wr})
        self.loader.build(m)
        wiring.connect(m, wiring.flipped(core.cfg), self.loader.cfg)
        self.np_reg = self.loader.registers[0]

    def load(self) -> None:
        """Beat j writes x_j and y_j; the first beat `begin`s the frame (`in_flight` counts the
        frames from their first beat to their decision). One bank: the first beat also starts
        the rounds (round 0 runs while the frame loads) and `loaded` counts the frame's beats,
        s until the subtraction is decided (the next frame's first beat is taken then, while
        the result leaves). Two banks: the last beat completes the frame, which starts when the
        feed is free (`pending` until then); the next frame's first beat is taken once the feed
        is within s cycles of its end, into the other bank. y_0 N' mod 2^w for the PEs' m."""
        m, s, core = self.m, self.s, self.core
        count = self.count = Signal(range(s + 1), name="loaded")
        self.in_flight, self.unloading = Signal(range(3), name="in_flight"), Signal(name="unloading")
        take = core.i.valid & core.i.ready
        self.begin = take & (count == 0)
        x, y = core.i.payload.x, core.i.payload.y
        if self.banks == 1:
            m.d.comb += core.i.ready.eq(count != s)
            with m.If(take):
                m.d.sync += count.eq(count + 1)
            self.start, bank = self.begin, Const(0)
        else:
            bank, pending = Signal(name="load_bank"), Signal(name="pending")
            last = take & (count == s - 1)
            m.d.comb += core.i.ready.eq((count != 0) | (~pending & self.feed_near_end))
            with m.If(take):
                m.d.sync += count.eq(Mux(last, 0, count + 1))
            with m.If(last):
                m.d.sync += bank.eq(~bank)
            self.start = (last | pending) & self.feed_free
            self.start_bank = Mux(pending, ~bank, bank)        # the completed frame's
            with m.If(self.start):
                m.d.sync += pending.eq(0)
            with m.Elif(last):
                m.d.sync += pending.eq(1)
        self.decided = Signal(name="decided")
        m.d.sync += self.in_flight.eq(self.in_flight + self.begin - self.decided)
        if not core.fixed:
            m.d.comb += self.loader.allow.eq((self.in_flight == 0) & (count == 0))
        m.d.comb += [self.x_wr.addr.eq(self.address(count, bank)), self.x_wr.data.eq(x), self.x_wr.en.eq(take),
                     self.y_wr.addr.eq(self.address(count, bank)), self.y_wr.data.eq(y), self.y_wr.en.eq(take)]
        self.y0np = self.first_word_product(y)

    def first_word_product(self, y: Value) -> Value:
        """y_0 N' mod 2^w from the first beat's y, for the x bus's x_i (y_0 N'), from two cycles
        after the frame's start (N' = 1: y_0 itself). Two banks: the next frame's y_0 waits in
        its register while this frame's rounds run, and y_0 N' is taken over a cycle after the
        next frame starts (this frame's PEs took their x words before its feed ended)."""
        m, w, core = self.m, self.w, self.core
        y0 = Signal(w, name="y0", reset_less=True)
        with m.If(self.begin):
            m.d.sync += y0.eq(y)
        # N' = 1: y_0 itself; else the product's registers' sum (cfg writes N' only while no frame is in)
        y0np = y0 if core.friendly else product(m, y0, self.np_reg, w, self.dsp, "y0np", True)
        if self.banks == 1:
            return y0np
        current = Signal(w, name="y0np_current", reset_less=True)
        with m.If(delayed(m, self.start, 1, "started", reset_less=False)):
            m.d.sync += current.eq(y0np)
        return current

    def feed(self) -> None:
        """Rounds of s + 1 words, one every T cycles, into PE 0 (`word`), from the frame's
        `start`. `run`: the rounds advance (everything from here to the result RAM holds
        while it is low): low (one bank) while round 0 wants word j of y and beat j has not
        come (`loaded` == j: the feed is never ahead of the load), or (read_out) while the last
        round's word at the chain's end would overtake the read-out of the last result. Two
        banks: the last round keeps its T cycles (its PEs take their x words in them), and a
        frame starts in the cycle the last one's feed ends."""
        m, s, plan = self.m, self.s, self.plan
        feeding = Signal(name="feeding")
        j = Signal(range(plan.round_cycles), name="feed_word")
        r = Signal(range(plan.rounds), name="feed_round")
        self.xi = Signal(range(s), name="x_index")
        final = r == plan.rounds - 1
        end = s if self.banks == 1 else plan.round_cycles - 1
        run = self.run
        self.stalls = [feeding & (self.count == j) & (self.count != s)] if self.banks == 1 else []
        feed_bank = Signal(name="feed_bank")
        if self.banks == 2:
            m.d.comb += [self.feed_free.eq(~feeding | (run & final & (j == end))),
                         self.feed_near_end.eq(~feeding | (final & (j >= plan.round_cycles - s)))]
        with m.If(run & feeding):
            m.d.sync += j.eq(Mux(j == plan.round_cycles - 1, 0, j + 1))
            with m.If(j == plan.round_cycles - 1):
                m.d.sync += r.eq(r + 1)
            with m.If(final & (j == end)):
                m.d.sync += feeding.eq(0)
        with m.If(self.start):
            m.d.sync += [feeding.eq(1), j.eq(0), r.eq(0)]
            if self.banks == 1:
                m.d.sync += self.xi.eq(0)
            else:                       # the x index runs on across frames
                m.d.sync += feed_bank.eq(self.start_bank)
        m.d.comb += [self.y_rd.addr.eq(self.address(j, feed_bank)), self.n_rd.addr.eq(j), self.fb_rd.addr.eq(j)]
        m.d.comb += [port.en.eq(run) for port in (self.y_rd, self.n_rd, self.fb_rd)]
        issued = {"first": feeding & (j == 0), "last": feeding & (j == s), "active": feeding & (j <= s),
                  "final": final}
        with m.If(run):
            flags = {name: delayed(m, value, 1, f"feed_{name}", reset_less=False) for name, value in issued.items()}
            # y_j = N_j = 0 at the top word and in idle slots, t = 0 in round 0 and idle slots:
            # an idle slot adds nothing to a PE's carry (processing_element)
            # (reset, not only at power-on: a simulator's unknown RAM word in no product)
            self.high = ~delayed(m, feeding & (j < s), 1, "feed_low", reset_less=False)
            round0 = delayed(m, r == 0, 1, "feed_round0")
        self.word = {"t": Mux(round0 | ~flags["active"], 0, self.fb_rd.data), "y": self.y_rd.data,
                     "n": self.n_rd.data, **flags}

    def chain(self) -> None:
        """The chain of PEs; x_i from the x RAM, and x_i (y_0 N') mod 2^w for its m, formed
        once on the bus (a cycle later, as each PE's t_0 N')."""
        m = self.m
        m.d.comb += [self.x_rd.addr.eq(self.address(self.xi, self.x_bank)), self.x_rd.en.eq(self.run)]
        with m.If(self.run):
            x_y0np = product(m, self.x_rd.data, self.y0np, self.w, self.dsp, "x_y0np", low=True)
            latched = []
            for k in range(self.pe):
                self.word, took = self.processing_element(k, self.word, x_y0np, self.high if k == 0 else None)
                latched.append(took)
            with m.If(Cat(*latched).any()):
                if self.banks == 1:
                    m.d.sync += self.xi.eq(self.xi + 1)
                else:                   # a frame's s words, then the next frame's, in the other bank
                    wrap = self.xi == self.s - 1
                    m.d.sync += [self.xi.eq(Mux(wrap, 0, self.xi + 1)), self.x_bank.eq(self.x_bank ^ wrap)]

    def chain_end(self) -> None:
        """Feedback, or t - N (always formed) into the result RAM; the decision ends the
        frame's rounds (`loaded` back to 0: the next frame's first beat is taken)."""
        m, w, s, word = self.m, self.w, self.s, self.word
        index = self.index = Signal(range(s + 1), name="out_word")    # 0 when a round's first word arrives
        writing = word["active"] & self.run
        with m.If(writing):
            m.d.sync += index.eq(Mux(word["last"], 0, index + 1))
        borrow, self.use_diff = Signal(name="borrow"), Signal(name="use_difference")
        diff = Signal(w + 1, name="difference")
        m.d.comb += diff.eq(word["t"] - word["n"] - Mux(word["first"], 0, borrow))
        m.d.comb += [self.fb_wr.addr.eq(index), self.fb_wr.data.eq(word["t"]),
                     self.fb_wr.en.eq(writing & ~word["final"]),
                     self.res_wr.addr.eq(index), self.res_wr.data.eq(Cat(word["t"], diff[:w])),
                     self.res_wr.en.eq(writing & word["final"] & (index < s))]
        with m.If(writing & word["final"]):
            m.d.sync += borrow.eq(diff[w])
            with m.If(index == s):              # t >= N: no borrow out of the top word
                m.d.comb += self.decided.eq(1)
                m.d.sync += [self.use_diff.eq(~diff[w]), self.unloading.eq(1)]
                if self.banks == 1:
                    m.d.sync += self.count.eq(0)

    def read_out(self) -> None:
        """s words of the chosen half. The next frame runs meanwhile: its last round's word j
        waits at the chain's end until word j has been read (back-pressure on o; without it
        the read-out is always ahead), and the decision, which picks the half, until all
        have."""
        m, w, s, word = self.m, self.w, self.s, self.word
        ro = ReadOut(w, 4)
        ro.build(m)
        wiring.connect(m, ro.o, wiring.flipped(self.core.o))
        rd = Signal(range(s), name="read_word")
        self.stalls.append(word["active"] & word["final"] & self.unloading & (self.index >= rd))
        m.d.comb += [ro.avail.eq(self.unloading), self.res_rd.addr.eq(rd),
                     ro.data.eq(Mux(self.use_diff, self.res_rd.data[w:], self.res_rd.data[:w]))]
        with m.If(ro.go):
            m.d.sync += rd.eq(Mux(rd == s - 1, 0, rd + 1))
            with m.If(rd == s - 1):
                m.d.sync += self.unloading.eq(0)

    def processing_element(self, k: int, word: dict[str, Value], x_y0np: Value,
                           high: Value | None = None) -> tuple[dict[str, Value], Value]:
        """PE k: the stream `word` (t, y, n and the flags) in, the stream of t' out D cycles
        later; also whether it latches its x word this cycle (the x RAM's address advances).
        high (PE 0, from the feed): y and N are 0 at the last word (j = s) and in idle slots,
        cleared as they enter (t is 0 there too). Its registers advance with the caller's
        `run` (built under m.If(run))."""
        m, w, dsp, x_bus, np_reg = self.m, self.w, self.dsp, self.x_rd.data, self.np_reg
        name = f"pe{k}"
        first = word["first"]
        t_in = word["t"]
        # `first` is not reset (a shift register): only an active word's counts, and first1 is
        # reset, so a flag in flight at a reset neither latches x nor advances the x RAM's address
        first1 = delayed(m, first & word["active"], 1, f"{name}_first", reset_less=False)
        # a, a+1: m = (t_0 N' + x_i (y_0 N')) mod 2^w; x_i held for the round
        t_np = (delayed(m, t_in, 1, f"{name}_tnp") if self.core.friendly       # N' = 1: t_0, as late
                else product(m, t_in, np_reg, w, dsp, f"{name}_tnp", low=True))
        m_low = t_np + x_y0np
        quotient, x = Signal(w, name=f"{name}_m", reset_less=True), Signal(w, name=f"{name}_x", reset_less=True)
        with m.If(first1):
            m.d.sync += [quotient.eq(m_low[:w]), x.eq(x_bus)]
        # a+2+j: the products; a+3+j: their sum with t_j; a+4+j: the carry add
        y2, n2 = delayed(m, word["y"], 2, f"{name}_y", clear=high), delayed(m, word["n"], 2, f"{name}_n", clear=high)
        t4 = delayed(m, t_in, 4, f"{name}_t")
        total_p = Signal(2 * w + 1, name=f"{name}_p", reset_less=True)
        m.d.sync += total_p.eq(product(m, x, y2, w, dsp, f"{name}_xy") + product(m, quotient, n2, w, dsp, f"{name}_mn"))
        # the slot after word s adds the carry alone (t'_s, at most 1), to the next round's word 0
        # (whose low word is 0: S = t'_s, its carry unchanged) or to an idle slot (S = t'_s);
        # S of word j+1 is word j of t'. Only a word of a round passes its carry on: an idle
        # slot's sum, stale data after a reset included, never reaches the next word
        # (`active` is reset: a frame right after a reset sees a clean carry)
        active4 = delayed(m, word["active"], 4, f"{name}_active", reset_less=False)
        carry = Signal(w + 2, name=f"{name}_carry", reset_less=True)
        out_t = Signal(w, name=f"{name}_t_out", reset_less=True)
        total = total_p + (t4 + carry)      # t joins the (w+1)-bit carry: a short adder
        m.d.sync += [carry.eq(Mux(active4, total[w:], 0)), out_t.eq(total[:w])]
        out = {"t": out_t,
               "y": delayed(m, word["y"], PE_DELAY, f"{name}_y_out", clear=high),
               "n": delayed(m, word["n"], PE_DELAY, f"{name}_n_out", clear=high)}
        for flag in FLAGS:
            # only `active` (it enables the RAM writes) is reset: after a reset nothing in flight writes
            src, delay = (active4, PE_DELAY - 4) if flag == "active" else (word[flag], PE_DELAY)
            out[flag] = delayed(m, src, delay, f"{name}_{flag}", reset_less=flag != "active")
        return out, first1
