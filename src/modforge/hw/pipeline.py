"""The shared shell of every fully pipelined multiplier: valid/ready streams around a
datapath of L register stages that accepts one operand set per cycle.

Timing contract (constant for every operand value):
  Every stage register and a valid bit per stage move together, under one global enable
      advance = ~o.valid | o.ready          (and i.ready = advance)
  so while the output is stalled the whole pipeline (and the input) holds: results are
  never lost, duplicated or reordered, and bubbles (invalid stages) travel with the data.
  The operands accepted at a rising edge (i.valid & i.ready) are in stage 1 after it; with
  no stalls their result is in stage L, o.valid high, L cycles after the handshake:
  latency = L, initiation interval = 1.

A subclass implements `datapath(m, stage, operands) -> result`: it builds the stages in
order with `stage(value, name)`, which returns a register loaded from `value` when the
pipeline advances (`value` may depend on the operands or on registers of the stage
before). The result must be a register (or a function of registers) of stage L, so it
holds while o.ready is low. The shell checks that the number of stages the datapath
declares via `stage.next()` equals the stages it was built for.

Register placement (`keep_stages`): a stage marked False keeps its logic but not its
registers, so it merges with the next one (every value crosses each stage boundary once,
so dropping one boundary's registers for all values keeps the function); latency = the
stages kept.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Elaboratable, Module, Signal, Value
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out


class Stager:
    """`stage(value, name)` -> a register of the current stage (a wire where `keep` drops the
    stage's registers); `stage.next()` closes the current stage (call it once after each
    stage's registers, L times in all)."""

    def __init__(self, m: Module, advance: Value, keep=None):
        self.m = m
        self.advance = advance
        self.keep = keep        # per stage: registered (None: all)
        self.index = 1          # the stage being built (1-based)
        self.count = 0          # stages closed

    def __call__(self, value, name: str, shape=None) -> Signal:
        value = Value.cast(value)
        shape = shape if shape is not None else value.shape()
        if self.keep is not None and not self.keep[self.index - 1]:
            wire = Signal(shape, name=f"s{self.index}_{name}_w")
            self.m.d.comb += wire.eq(value)
            return wire
        reg = Signal(shape, name=f"s{self.index}_{name}")
        with self.m.If(self.advance):
            self.m.d.sync += reg.eq(value)
        return reg

    def next(self) -> None:
        self.count += 1
        self.index += 1


class PipelinedCore(wiring.Component):
    """Subclasses set the depth and implement `datapath(m, stage, operands) -> result`."""

    def __init__(self, in_width: int, out_width: int, depth: int):
        if depth < 1:
            raise ValueError("a pipelined core needs at least one register stage")
        self.stages = depth                 # the stages the datapath builds
        self.keep = None                    # all registered
        self.depth = self.steps = self.latency = depth
        self.initiation_interval = 1
        super().__init__({
            "i": In(stream.Signature(in_width)),
            "o": Out(stream.Signature(out_width)),
        })

    def datapath(self, m: Module, stage: Stager, operands: Value) -> Value:
        raise NotImplementedError

    def keep_stages(self, keep) -> None:
        """Register only the stages marked True (the last must be): latency = their number."""
        keep = [bool(k) for k in keep]
        if len(keep) != self.stages or not keep[-1]:
            raise ValueError(f"keep: {self.stages} flags, the last True, got {keep}")
        self.keep = keep
        self.depth = self.steps = self.latency = sum(keep)

    def elaborate(self, platform):
        m = Module()
        advance = Signal()
        m.d.comb += [
            advance.eq(~self.o.valid | self.o.ready),
            self.i.ready.eq(advance),
        ]
        valid = [Signal(name=f"s{k + 1}_valid") for k in range(self.depth)]
        with m.If(advance):
            m.d.sync += valid[0].eq(self.i.valid)
            m.d.sync += [valid[k].eq(valid[k - 1]) for k in range(1, self.depth)]
        stager = Stager(m, advance, self.keep)
        result = self.datapath(m, stager, self.i.payload)
        if stager.count != self.stages:
            m._MustUse__silence = True
            raise RuntimeError(f"{type(self).__name__}: datapath built {stager.count} stages, "
                               f"declared {self.stages}")
        m.d.comb += [self.o.valid.eq(valid[-1]), self.o.payload.eq(result)]
        return m




class ParallelCore(PipelinedCore):
    """`lanes` copies of a pipelined core side by side under one valid chain: lane l takes
    bits [l in_width, (l+1) in_width) of the payload and gives the low `out_width` bits of
    its result in bits [l out_width, ...). `make_core()` builds one lane's core; only its
    datapath is used, in a submodule of its own per lane (`LaneDatapath`). Latency: the
    core's."""

    def __init__(self, make_core, lanes: int, in_width: int, out_width: int):
        self.cores = [make_core() for _ in range(lanes)]
        for core in self.cores:
            core._MustUse__silence = True
        self.in_lane, self.out_lane = in_width, out_width
        super().__init__(lanes * in_width, lanes * out_width, self.cores[0].depth)

    def datapath(self, m, stage, operands):
        out = []
        for lane, core in enumerate(self.cores):
            dp = LaneDatapath(core, stage.advance, self.in_lane, self.out_lane)
            m.submodules[f"lane{lane}"] = dp
            m.d.comb += dp.x.eq(operands[lane * self.in_lane:(lane + 1) * self.in_lane])
            out.append(dp.y)
        for _ in range(self.stages):       # the lanes' stages are this core's
            stage.next()
        return Cat(*out)


class LaneDatapath(Elaboratable):
    """One lane of ParallelCore: core.datapath from x to y (its low bits), its registers
    moving on `advance`."""

    def __init__(self, core: PipelinedCore, advance: Value, in_width: int, out_width: int):
        self.core, self.advance = core, advance
        self.x, self.y = Signal(in_width, name="x"), Signal(out_width, name="y")

    def elaborate(self, platform):
        m = Module()
        stager = Stager(m, self.advance, self.core.keep)
        m.d.comb += self.y.eq(self.core.datapath(m, stager, self.x))
        if stager.count != self.core.stages:
            raise RuntimeError(f"{type(self.core).__name__}: datapath built {stager.count} stages, "
                               f"declared {self.core.stages}")
        return m
