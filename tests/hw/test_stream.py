"""hw.stream: ReadOut moves words from a synchronous RAM to its output stream, in order and
none lost under random back-pressure, a word every cycle with the output always ready
(first word on o three cycles after its read)."""

import random

from amaranth.hdl import Module, Signal
from amaranth.lib.memory import Memory
from amaranth.sim import Simulator

from modforge.hw.stream import ReadOut

WORDS = list(range(100, 140))


def harness():
    m = Module()
    mem = Memory(shape=8, depth=len(WORDS), init=WORDS)
    ro = ReadOut(8)
    m.submodules.mem, m.submodules.ro = mem, ro
    rd = mem.read_port()
    addr = Signal(range(len(WORDS) + 1))
    m.d.comb += [ro.avail.eq(addr < len(WORDS)), rd.addr.eq(addr), ro.data.eq(rd.data)]
    with m.If(ro.go):
        m.d.sync += addr.eq(addr + 1)
    return m, ro


def run(ready_prob, seed=8):
    m, ro = harness()
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


def test_back_pressure_loses_nothing():
    outs, _ = run(0.4)
    assert outs == WORDS


def test_full_rate():
    outs, times = run(1.0)
    assert outs == WORDS
    assert times == list(range(3, 3 + len(WORDS)))        # read at 0, 1, ...: out at 3, 4, ...
