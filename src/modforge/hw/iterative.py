"""The shared shell of every iterative multiplier: valid/ready streams around a datapath
that loads its operands, takes a fixed number of steps and presents its result.

Timing contract (constant for every operand value):
  cycle 0      operands accepted (i.valid & i.ready); the datapath loads its state
  cycles 1..N  the datapath steps (N = `steps`)
  cycle N+1    o.valid rises and o.payload holds the result until o.ready
So latency = N + 1 cycles from the input handshake to o.valid, and with an output that
is always ready a new operand set is accepted in the cycle the result leaves:
initiation interval N + 1.
"""

from typing import Any

from amaranth.hdl import Module, Shape, ShapeLike, Signal, Value
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

#: a datapath's operands: a data.View of its input layout (a Value when that is a plain width)
Operands = Any


class Datapath:
    """An iterative datapath as a plain builder (no module of its own): operands of
    `in_layout` (the plan's input layout, or a width) to a result of `out_layout` in `steps`
    steps. Subclasses implement `build(m, load, step, index, operands) -> result`:

    `load` is high in the cycle the operands arrive; `step` is high in each of the N step
    cycles; `index` counts the steps 0..N-1 (valid while `step`); `operands` is the input
    payload (a data.View of `in_layout`: its fields by name), valid only while `load`. The
    result must depend only on registered state, so it holds while the output waits for
    o.ready.
    """

    def __init__(self, in_layout: ShapeLike, out_layout: ShapeLike, steps: int) -> None:
        if steps < 1:
            raise ValueError("an iterative core needs at least one step")
        self.in_layout, self.out_layout, self.steps = in_layout, out_layout, steps
        self.in_width, self.out_width = Shape.cast(in_layout).width, Shape.cast(out_layout).width

    def build(self, m: Module, load: Value, step: Value, index: Value, operands: Operands) -> Value:
        raise NotImplementedError


class IterativeCore(wiring.Component):
    """The stream shell around one Datapath: its layouts the payloads' (the datapath reads the
    i payload's View), latency and initiation interval steps + 1."""

    def __init__(self, datapath: Datapath) -> None:
        self.datapath = datapath
        self.steps = datapath.steps
        self.latency = self.steps + 1
        self.initiation_interval = self.steps + 1
        super().__init__({
            "i": In(stream.Signature(datapath.in_layout)),
            "o": Out(stream.Signature(datapath.out_layout)),
        })

    def elaborate(self, platform: Any) -> Module:
        m = Module()
        busy = Signal()
        index = Signal(range(max(self.steps, 2)))
        load = Signal()
        step = Signal()
        m.d.comb += [
            self.i.ready.eq(~busy & (~self.o.valid | self.o.ready)),
            load.eq(self.i.valid & self.i.ready),
            step.eq(busy),
        ]
        with m.If(self.o.valid & self.o.ready):
            m.d.sync += self.o.valid.eq(0)
        with m.If(load):
            m.d.sync += [busy.eq(1), index.eq(0)]
        with m.Elif(busy):
            m.d.sync += index.eq(index + 1)
            with m.If(index == self.steps - 1):
                m.d.sync += [busy.eq(0), self.o.valid.eq(1)]
        result = self.datapath.build(m, load, step, index, self.i.payload)
        m.d.comb += self.o.payload.eq(result)
        return m
