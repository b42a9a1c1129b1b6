"""The FFT/FFT^-1 unit of FMLM3 in Amaranth (paper Fig. 4 and Fig. 8; the memory map, ROMs
and schedule: plan.TransformPlan).

One frame in the unit at a time, in three phases:
  LOAD  H = P/L beats (L = 2 bfs coefficients each, natural order) written to RAM group 0
        at bit-reversed positions (i.ready high only here)
  RUN   C = (v-1) G + H + Dw cycles: v stages, one issue a cycle, stage j+1 G cycles after
        stage j; an issue flows
          t         read addresses to group j mod 2 (and the twiddle ROMs)
          t+1       the words through the channel switcher (registered)
          t+2 ..    the butterfly structures (hw.butterfly.ShiftButterfly) with the
                    final-stage operators folded in (units that run an inverse): u
                    through a second PowerMul (the identity before the final stage), the
                    twiddle times the scale (its ROM words), o1 through a fixed shift by
                    2^(-K/2) (NCT^-1's final stage); plan.py derives them
          t+Dw      written through the channel switcher to the other group
  READ  H words of L coefficients from group v mod 2 in natural order, through
        a held hw.stream.ReadOut (back-pressure holds the group's read ports and the bank
        picks, nothing is lost); READ ends as the last word is taken
Nothing in RUN waits on a port, so the latency never depends on the data.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ...hw.banks import Banks
from ...hw.butterfly import ShiftButterfly
from ...hw.delay import DelayLine
from ...hw.frame import FrameCounter
from ...hw.layout import lanes
from ...hw.pipeline import register
from ...hw.select import pick, select_or
from ...hw.stream import ReadOut
from .plan import KIND_CODES, TransformPlan

LOAD, RUN, READ = 0, 1, 2
BLOCK_ROM_BITS = 4096       # a ROM of at least this many bits is marked rom_style = block (as stores are)


class TransformCore(wiring.Component):
    """i: one beat of L coefficients (lane l of beat k: x_(Lk+l), K+1 bits each; kind = any:
    the frame's kind code above them, read with its first beat); o: one beat of the
    transform, the same layout. latency and initiation_interval: algorithms.py."""

    def __init__(self, plan: TransformPlan, layouts: tuple[data.StructLayout, data.StructLayout],
                 forward_bits: int | None = None):
        """layouts: the input beat's (algorithms.transform_beat: x, L lanes, then kind when
        kind = any) and the output beat's (transform_result: c, L lanes). forward_bits: a
        forward transform's coefficients are that narrow (the multiplier's digits, kind =
        any): a lane's bits above them are ignored for ct and nct frames, so the source may
        leave other data there (no AND gate a bit outside)."""
        assert forward_bits is None or plan.kind_bits, "forward_bits needs the per-frame kind field"
        assert all(code >> 1 == kind.endswith("_inv") for kind, code in KIND_CODES.items())     # bit 1: inverse
        self.plan, self.forward_bits = plan, forward_bits
        self.w = plan.K + 1
        self.steps = plan.cycles
        self.latency = plan.latency
        self.initiation_interval = plan.initiation_interval
        i, o = layouts
        assert (i.size, o.size) == (plan.lanes * self.w + plan.kind_bits, plan.lanes * self.w), "not the unit's beats"
        super().__init__({"i": In(stream.Signature(i)), "o": Out(stream.Signature(o))})

    def elaborate(self, platform: Any) -> Module:
        return _Build(self).m


class _Build:
    """One elaboration of a TransformCore: the RAM groups, the controller (phase, positions,
    stage and issue counters), the issue's fields down a delay line, the read side (stage
    reads and the read-out), the channel switcher, ROMs and butterfly structures, and the
    write side. Statement order matters where two of them write one signal: the later wins."""

    def __init__(self, core: TransformCore):
        plan = self.plan = core.plan
        self.core, self.w, self.m = core, core.w, Module()
        self.L, self.H, self.v, self.Dw = plan.lanes, plan.H, plan.v, plan.write_delay
        self.banks = Banks(self.w, self.H, banks=self.L, buffers=2, names=lambda x, s, b: f"ram{x}_{b}")
        self.banks.build(self.m)
        self.controller()
        self.issue()
        self.read_side()
        self.butterflies()
        self.write_side()

    def switch_to_banks(self, indices: Sequence[Value], values: Sequence[Value],
                        registered: bool = False) -> list[tuple[Value, Value]]:
        """Per bank, the word and the value of the lane whose coefficient lives there (one
        lane a bank: the plan is conflict free, so the selects are one-hot). registered: the
        selects and the word from the indices a cycle before (the values' cycle's)."""
        plan, out = self.plan, []
        for b in range(self.L):
            here: Sequence[Value] = [plan.bank(i) == b for i in indices]
            word = select_or(zip(here, [plan.word(i) for i in indices], strict=True))
            if registered:
                word = register(self.m, word, f"bank{b}_word")
                here = register(self.m, Cat(*here), f"bank{b}_lane")
            out.append((word, select_or(zip(here, values, strict=True))))
        return out

    def pairs(self, n: Value) -> list[Value]:
        return [Cat(n, Const(b, 1)) if self.plan.bfs == 2 else n for b in range(self.plan.bfs)]

    # --- controller: phase, load and read-out positions, stage and issue counters ---------
    def controller(self) -> None:
        m, plan, core, H, v = self.m, self.plan, self.core, self.H, self.v
        phase = self.phase = Signal(range(3), name="phase")
        self.ld, self.ul = FrameCounter(H, name="ld"), FrameCounter(H, name="ul")
        stage = self.stage = Signal(range(v), name="stage")
        cnt = self.cnt = Signal(range(max(plan.gap, H + self.Dw)), name="cnt")
        take = self.take = Signal(name="take")
        m.d.comb += [core.i.ready.eq(phase == LOAD), take.eq(core.i.valid & core.i.ready)]
        # the write of a taken beat (plan.deep: a cycle later, from registers; the first issue
        # waits for the last one)
        self.load, running = take, phase == RUN
        if plan.deep:
            self.load = Signal(name="load")                 # control: reset
            m.d.sync += self.load.eq(take)
            running = running & ~self.load
        self.running = running
        with m.If(take):
            self.ld.advance(m, phase.eq(RUN))
        # kind = any: the frame's transform (KIND_CODES), from its first beat; else the one
        kind = self.kind = Signal(2, name="kind", init=KIND_CODES[plan.kinds[0]])
        if plan.kind_bits:
            with m.If(take & (self.ld.k == 0)):
                m.d.sync += kind.eq(core.i.payload.kind)
        self.region = [kind] if plan.kind_bits else []
        with m.If(running):
            m.d.sync += cnt.eq(cnt + 1)
            with m.If((stage != v - 1) & (cnt == plan.gap - 1)):
                m.d.sync += [cnt.eq(0), stage.eq(stage + 1)]
            with m.If((stage == v - 1) & (cnt == H + self.Dw - 1)):
                m.d.sync += [cnt.eq(0), stage.eq(0), phase.eq(READ)]

    # --- the issue and its fields down the pipeline ----------------------------------------
    def issue(self) -> None:
        """A lane's reads come from a few banks only (two in every plan): its bank field is the
        index among those, so its channel switch picks among 2 x that many words, not 2L."""
        m, plan, H, L, v = self.m, self.plan, self.H, self.L, self.v
        lane_banks = self.lane_banks = [sorted({plan.bank(plan.reads(n)[k]) for n in range(H)}) for k in range(L)]
        op = self.op = DelayLine(m, {"valid": 1, "n": range(H), "group": 1, "final": 1}
                                 | {f"bank{k}": range(max(2, len(lane_banks[k]))) for k in range(L)})
        n = self.n = self.cnt[:max(1, (H - 1).bit_length())] if H > 1 else Const(0, 1)
        reads = self.reads = [i for p in self.pairs(n) for i in (Cat(Const(0, 1), p), Cat(Const(1, 1), p))]
        m.d.comb += [op["valid"].eq(self.running & (self.cnt < H)), op["n"].eq(n),
                     op["group"].eq(self.stage[0]), op["final"].eq(self.stage == v - 1)]
        m.d.comb += [op[f"bank{k}"].eq(select_or((plan.bank(i) == b, Const(j, 2)) for j, b in enumerate(lane_banks[k])))
                     for k, i in enumerate(reads)]

    # --- read side: stage reads and the read-out -------------------------------------------
    def read_side(self) -> None:
        m, plan, L, banks = self.m, self.plan, self.L, self.banks
        phase, ul = self.phase, self.ul
        ro = self.ro = ReadOut(L * self.w, 0)            # held: no FIFO
        ro.build(m)
        wiring.connect(m, ro.o, wiring.flipped(self.core.o))
        read_all = Signal(name="read_all")              # the last read issued, its word not yet taken
        m.d.comb += ro.avail.eq((phase == READ) & ~read_all)
        with m.If(ro.go):
            ul.advance(m, read_all.eq(1))
        with m.If(read_all & ro.o.valid & ro.o.ready):
            m.d.sync += [read_all.eq(0), phase.eq(LOAD)]
        outs = [Cat(Const(k, (L - 1).bit_length()), ul.k) for k in range(L)]
        stage_words = self.switch_to_banks(self.reads, self.reads)
        out_words = self.switch_to_banks(outs, outs)
        out_group = self.v % 2
        for x, _, b, rd, _ in banks.ports():
            addr = stage_words[b][0]
            if x == out_group:
                addr = Mux(phase == READ, out_words[b][0], addr)
            m.d.comb += rd.addr.eq(addr)
            if x == out_group:
                m.d.comb += rd.en.eq(~ro.hold)
        out_banks = [Signal(range(L), name=f"out_bank{k}") for k in range(L)]
        with m.If(~ro.hold):
            m.d.sync += [ob.eq(plan.bank(i)) for ob, i in zip(out_banks, outs, strict=True)]
        out_data = [port.data for port in (banks.rd[out_group][0][b] for b in range(L))]
        m.d.comb += ro.data.eq(Cat(*(pick(ob, out_data) for ob in out_banks)))

    # --- the channel switcher (registered), the ROMs and the butterfly structures ---------
    def butterflies(self) -> None:
        m, plan, op, L, w = self.m, self.plan, self.op, self.L, self.w
        group1 = op.at("group", 1)
        switched = [Signal(w, name=f"cs{k}") for k in range(L)]
        for k, s in enumerate(switched):
            words = [self.banks.rd[x][0][b].data for x in range(2) for b in self.lane_banks[k]]
            m.d.sync += s.eq(pick(op.at(f"bank{k}", 1) + group1 * len(self.lane_banks[k]), words))
        self.results = []
        for b in range(plan.bfs):
            bf = ShiftButterfly(plan.K, plan.butterfly_sqrt2, lane=b,     # with the FSOs if an inverse runs
                                scale_sqrt2=plan.scale_sqrt2 if plan.inverse else None,
                                fixed_shift=plan.fixed_shift, step=plan.shift_amounts[0],
                                offset=plan.shift_amounts[1], deep=plan.deep)
            m.submodules[f"bfs{b}"] = bf
            m.d.comb += [bf.u.eq(switched[2 * b]), bf.v.eq(switched[2 * b + 1])]
            self.roms(b, bf)
            if plan.fixed_shift is not None:                       # o1 by 2^(-K/2): NCT^-1's final stage
                m.d.comb += bf.fixed.eq(op.at("final", 2) & (self.kind == KIND_CODES["nct_inv"]))
            self.results += [bf.o0, bf.o1]

    def roms(self, b: int, bf: ShiftButterfly) -> None:
        """Butterfly structure b's ROM words: addressed at the issue, read at issue + 1,
        registered to issue + 2."""
        m, plan, n, region = self.m, self.plan, self.n, self.region
        roms = [("twiddle", plan.twiddle_rom(b), Cat(n, self.stage[:plan.stage_bits], *region), bf.ctrl)]
        if bf.scale is not None:
            roms.append(("scale", plan.scale_rom(b), Cat(n, *region), bf.scale))
        for name, words, address, target in roms:
            # block ROM from BLOCK_ROM_BITS on (Yosys would spread a narrow one over LUTs)
            attrs = {"rom_style": "block"} if len(target) * len(words) >= BLOCK_ROM_BITS else {}
            rom = Memory(shape=len(target), depth=len(words), init=words, attrs=attrs)
            m.submodules[f"{name}_rom{b}"] = rom
            port = rom.read_port()
            m.d.comb += port.addr.eq(address)
            if name == "scale":                                # s in an inverse's final stage, else 1
                word = Mux(self.op.at("final", 1) & self.kind[1], port.data, plan.scale_identity())
            else:
                word = port.data
            m.d.sync += target.eq(word)

    # --- write side: the loaded beat (LOAD) or the stage results (RUN) through one crossbar
    # for both groups (a load and a stage write never fall in the same cycle) ---------------
    def write_side(self) -> None:
        m, core, op, L, w, load, deep = self.m, self.core, self.op, self.L, self.w, self.load, self.plan.deep
        # deep: the banks' selects and words registered, from the write indices of the cycle
        # before (the taken beat's, the stage's issued Dw - 1 ago): `load`'s and the index's
        # decode crossed the die to every bank's write data (rsa-fmlm3 l = 4096: 15 ns routing)
        n_w = op.at("n", self.Dw - deep)
        writes = [i for p in self.pairs(n_w) for i in (p, Cat(p, Const(1, 1)))]
        beat = self.ld.k
        loads = [Cat(*reversed(list(Cat(Const(k, (L - 1).bit_length()), beat)[:self.v]))) for k in range(L)]
        loaded = lanes(core.i.payload.x, L)
        if core.forward_bits is not None:              # the kind code's bit 1: an inverse
            inverse, fb = Value.cast(core.i.payload.kind)[1], core.forward_bits
            loaded = [Cat(x[:fb], x[fb:] & inverse.replicate(w - fb)) for x in loaded]
        if self.plan.deep:
            loaded = [register(m, x, f"load_x{k}") for k, x in enumerate(loaded)]
        # each lane's word once, a kept net: else Yosys's LUT mapping may merge this 2:1 select
        # into every bank's select and so copy it L times (rsa-fmlm3 P = 32, K = 96 on xcup: the
        # unit's own logic 2,956 -> 1,863 LUT; P = 128, K = 64: 1,098 either way)
        lane_words = [Signal(w, name=f"lane_word{k}", attrs={"keep": 1}) for k in range(L)]
        m.d.comb += [word.eq(Mux(load, x, r)) for word, x, r in zip(lane_words, loaded, self.results, strict=True)]
        bank_writes = self.switch_to_banks([Mux(self.take if deep else load, a, s) for a, s in
                                            zip(loads, writes, strict=True)], lane_words, registered=deep)
        valid_w, group_w = op.at("valid", self.Dw), op.at("group", self.Dw)
        for x, _, b, _, wr in self.banks.ports():
            stage_en = valid_w & (group_w != x)
            m.d.comb += [wr.en.eq(load | stage_en if x == 0 else stage_en), wr.addr.eq(bank_writes[b][0]),
                         wr.data.eq(bank_writes[b][1])]
