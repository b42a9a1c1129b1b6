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

A datapath is a plain builder (`Datapath`, no module of its own): `build(m, stage,
operands) -> result` builds the stages in order into the caller's module with `stage(value,
name)`, which returns a register loaded from `value` when the pipeline advances (`value` may
depend on the operands or on registers of the stage before). The operands come as its input
layout says (`in_layout`: the plan's, a data.View whose fields it reads by name; a plain
width gives a Value); a caller that builds one in its own pipeline views its bits the same
way (`data.View(datapath.in_layout, bits)`). The result must be a register
(or a function of registers) of stage L, so it holds while o.ready is low. `build_stages`
checks that the stages the datapath closes with `stage.next()` are those it declares. The
shells wrap one: `PipelinedCore(datapath)`, `ParallelCore(datapaths, ...)` (lanes side by
side); hw.butterfly.Butterfly builds one inside its own pipeline.

Reset: only the valid bits reset; the stage registers have none (their initial value 0 at
configuration), so the tools may build a chain of them as a shift register in LUTs (SRL) and
pack them into DSP blocks. rst still empties the pipeline (o.valid falls); o.payload means
something only while o.valid is high. `reset=True` gives every stage register the reset.

Register placement (`Datapath.keep_stages`): a stage marked False keeps its logic but not
its registers, so it merges with the next one (every value crosses each stage boundary once,
so dropping one boundary's registers for all values keeps the function); latency = the
stages kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from amaranth.hdl import Cat, Elaboratable, Module, Shape, ShapeLike, Signal, Value, ValueLike
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

RESET_HELP = ("control: only the control registers (the valid bits) take rst, the datapath's stage registers "
              "have none (the tools may then build shift registers in LUTs and pack registers into DSP blocks); "
              "all: every register takes rst")

#: a datapath's operands: a data.View of its input layout (a Value when that is a plain width)
Operands = Any


def register(m: Module, value: ValueLike, name: str) -> Signal:
    """value registered a cycle (no enable, no reset: a pipeline that never stalls)."""
    value = Value.cast(value)
    reg = Signal(value.shape(), name=name)
    m.d.sync += reg.eq(value)
    return reg


def delay(m: Module, value: ValueLike, cycles: int, name: str) -> Value:
    """value `cycles` cycles later: a chain of `register`s named name, name_2, ... (cycles = 0:
    value itself)."""
    value = Value.cast(value)
    for k in range(cycles):
        value = register(m, value, name if k == 0 else f"{name}_{k + 1}")
    return value


class Stager:
    """`stage(value, name)` -> a register of the current stage (a wire where `keep` drops the
    stage's registers); `stage.next()` closes the current stage (call it once after each
    stage's registers, L times in all); reset: the registers take rst (default: none)."""

    def __init__(self, m: Module, advance: Value, keep: Sequence[bool] | None = None, reset: bool = False) -> None:
        self.m = m
        self.advance = advance
        self.keep = keep        # per stage: registered (None: all)
        self.reset = reset
        self.index = 1          # the stage being built (1-based)
        self.count = 0          # stages closed

    def __call__(self, value: ValueLike, name: str, shape: ShapeLike | None = None) -> Signal:
        value = Value.cast(value)
        shape = shape if shape is not None else value.shape()
        if self.keep is not None and not self.keep[self.index - 1]:
            wire = Signal(shape, name=f"s{self.index}_{name}_w")
            self.m.d.comb += wire.eq(value)
            return wire
        reg = Signal(shape, name=f"s{self.index}_{name}", reset_less=not self.reset)
        with self.m.If(self.advance):
            self.m.d.sync += reg.eq(value)
        return reg

    def next(self) -> None:
        self.count += 1
        self.index += 1


class Datapath:
    """A pipelined datapath as a plain builder: operands of `in_layout` (the plan's input
    layout, or a width) to a result of `out_layout` (`in_width`, `out_width`: their bits) over
    `stages` stages; `keep` (None: all) the stages registered, `depth` their number (the
    latency). Subclasses implement `build(m, stage, operands) -> result`."""

    #: run-time inputs packed after the operands, name -> bits (a modular datapath with a
    #: run-time modulus sets its own; hw.butterfly.Butterfly sizes its `rt` port by it)
    runtime: Mapping[str, int] = MappingProxyType({})

    def __init__(self, in_layout: ShapeLike, out_layout: ShapeLike, stages: int) -> None:
        if stages < 1:
            raise ValueError("a pipelined datapath needs at least one register stage")
        self.in_layout, self.out_layout = in_layout, out_layout
        self.in_width, self.out_width = Shape.cast(in_layout).width, Shape.cast(out_layout).width
        self.stages = self.depth = stages
        self.keep: list[bool] | None = None

    def keep_stages(self, keep: Iterable[object]) -> None:
        """Register only the stages marked True (the last must be): latency = their number."""
        flags = [bool(k) for k in keep]
        if len(flags) != self.stages or not flags[-1]:
            raise ValueError(f"keep: {self.stages} flags, the last True, got {flags}")
        self.keep = flags
        self.depth = sum(flags)

    def build(self, m: Module, stage: Stager, operands: Operands) -> Value:
        raise NotImplementedError


def build_stages(datapath: Datapath, m: Module, stage: Stager, operands: Operands) -> Value:
    """datapath.build, checked: it closed the stages it declares."""
    first = stage.count
    result = datapath.build(m, stage, operands)
    if stage.count - first != datapath.stages:
        raise RuntimeError(f"{type(datapath).__name__}: datapath built {stage.count - first} stages, "
                           f"declared {datapath.stages}")
    return result


class PipelinedCore(wiring.Component):
    """The stream shell around one Datapath: its layouts the payloads' (the datapath reads the
    i payload's View), latency = its stages kept, one operand set a cycle; reset: the stage
    registers take rst too (default: only the valid bits)."""

    def __init__(self, datapath: Datapath, reset: bool = False) -> None:
        self.datapath, self.reset = datapath, reset
        self.stages = datapath.stages
        self.depth = self.steps = self.latency = datapath.depth
        self.initiation_interval = 1
        super().__init__({
            "i": In(stream.Signature(datapath.in_layout)),
            "o": Out(stream.Signature(datapath.out_layout)),
        })

    def elaborate(self, platform: Any) -> Module:
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
        result = build_stages(self.datapath, m, Stager(m, advance, self.datapath.keep, self.reset),
                              self.i.payload)
        m.d.comb += [self.o.valid.eq(valid[-1]), self.o.payload.eq(result)]
        return m


class Lanes(Datapath):
    """Datapaths side by side, one a lane: the operands are an ArrayLayout of the lanes' input
    layout (lane 0 lowest), lane l takes element l and gives its result, cut to `out_lane`,
    as element l of the result's ArrayLayout, each in a submodule of its own
    (`LaneDatapath`) whose registers move with the stages'. Its stages are the lanes'
    registered ones (the first lane's depth)."""

    def __init__(self, datapaths: Iterable[Datapath], out_lane: ShapeLike) -> None:
        self.datapaths = list(datapaths)
        self.out_lane = out_lane
        lanes = len(self.datapaths)
        super().__init__(data.ArrayLayout(self.datapaths[0].in_layout, lanes), data.ArrayLayout(out_lane, lanes),
                         self.datapaths[0].depth)

    def build(self, m: Module, stage: Stager, operands: Operands) -> Value:
        out = []
        for lane, datapath in enumerate(self.datapaths):
            dp = LaneDatapath(datapath, stage.advance, self.out_lane, stage.reset)
            m.submodules[f"lane{lane}"] = dp
            m.d.comb += dp.x.eq(operands[lane])
            out.append(dp.y)
        for _ in range(self.stages):       # the lanes' stages are this datapath's
            stage.next()
        return Cat(*out)


class ParallelCore(PipelinedCore):
    """PipelinedCore around `Lanes(datapaths, out_lane)`: the lanes under one valid chain, its
    payloads their ArrayLayouts. Latency: the lanes' (the first's depth)."""

    def __init__(self, datapaths: Iterable[Datapath], out_lane: ShapeLike, reset: bool = False) -> None:
        super().__init__(Lanes(datapaths, out_lane), reset)


class LaneDatapath(Elaboratable):
    """One lane of Lanes: datapath from x (its input layout) to y (its result cut to `out_lane`),
    its registers moving on `advance` (reset: as Stager's)."""

    def __init__(self, datapath: Datapath, advance: Value, out_lane: ShapeLike, reset: bool = False) -> None:
        self.datapath, self.advance, self.reset = datapath, advance, reset
        self.x, self.y = Signal(datapath.in_layout, name="x"), Signal(out_lane, name="y")

    def elaborate(self, platform: Any) -> Module:
        m = Module()
        stager = Stager(m, self.advance, self.datapath.keep, self.reset)
        m.d.comb += self.y.eq(build_stages(self.datapath, m, stager, self.x))
        return m
