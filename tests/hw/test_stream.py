"""hw.stream: ReadOut and HeldReadOut move words from a synchronous RAM to their output stream,
in order and none lost under random back-pressure, a word every cycle with the output always
ready (first word on o three cycles after its read through ReadOut's FIFO, one cycle through
HeldReadOut, which holds the RAM's read port instead)."""

import random

import pytest
from amaranth.hdl import Module, Signal
from amaranth.lib.memory import Memory
from amaranth.sim import Simulator

from modforge.hw.stream import HeldReadOut, ReadOut

WORDS = list(range(100, 140))


def harness(block):
    m = Module()
    mem = Memory(shape=8, depth=len(WORDS), init=WORDS)
    ro = block(8)
    m.submodules.mem, m.submodules.ro = mem, ro
    rd = mem.read_port()
    addr = Signal(range(len(WORDS) + 1))
    m.d.comb += [ro.avail.eq(addr < len(WORDS)), rd.addr.eq(addr), ro.data.eq(rd.data)]
    if block is HeldReadOut:
        m.d.comb += rd.en.eq(~ro.hold)
    with m.If(ro.go):
        m.d.sync += addr.eq(addr + 1)
    return m, ro


def run(block, ready_prob, seed=8):
    m, ro = harness(block)
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


BLOCKS = pytest.mark.parametrize("block, delay", [(ReadOut, 3), (HeldReadOut, 1)])


@BLOCKS
def test_back_pressure_loses_nothing(block, delay):
    outs, _ = run(block, 0.4)
    assert outs == WORDS


@BLOCKS
def test_full_rate(block, delay):
    outs, times = run(block, 1.0)
    assert outs == WORDS
    assert times == list(range(delay, delay + len(WORDS)))        # read at 0, 1, ...: out at delay, ...
