"""hw.stream: ReadOut moves words from a synchronous RAM to its output stream, in order and none
lost under random back-pressure, a word every cycle with the output always ready (first word
on o three cycles after its read through a FIFO, one cycle held: depth 0, holding the RAM's
read port instead)."""

import random

import pytest
from amaranth.hdl import Module, Signal
from amaranth.lib.memory import Memory
from amaranth.sim import Simulator

from modforge.hw.stream import ReadOut

WORDS = list(range(100, 140))


def harness(depth):
    m = Module()
    mem = Memory(shape=8, depth=len(WORDS), init=WORDS)
    ro = ReadOut(8, depth)
    m.submodules.mem = mem
    ro.build(m)
    rd = mem.read_port()
    addr = Signal(range(len(WORDS) + 1))
    m.d.comb += [ro.avail.eq(addr < len(WORDS)), rd.addr.eq(addr), ro.data.eq(rd.data)]
    if depth == 0:
        m.d.comb += rd.en.eq(~ro.hold)
    with m.If(ro.go):
        m.d.sync += addr.eq(addr + 1)
    return m, ro


def run(depth, ready_prob, seed=8):
    m, ro = harness(depth)
    rng, outs, times = random.Random(seed), [], []

    async def bench(ctx):
        for t in range(400):
            ready = rng.random() < ready_prob
            ctx.set(ro.o.ready, ready)
            if ctx.get(ro.o.valid) and ready:
                outs.append(ctx.get(ro.o.payload))
                times.append(t)
            await ctx.tick()

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return outs, times


DEPTHS = pytest.mark.parametrize("depth, delay", [(4, 3), (0, 1)])


@DEPTHS
def test_back_pressure_loses_nothing(depth, delay):
    outs, _ = run(depth, 0.4)
    assert outs == WORDS


@DEPTHS
def test_full_rate(depth, delay):
    outs, times = run(depth, 1.0)
    assert outs == WORDS
    assert times == list(range(delay, delay + len(WORDS)))        # read at 0, 1, ...: out at delay, ...
