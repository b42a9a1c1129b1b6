"""hw.iterative: IterativeCore around a plain datapath (a shift-and-add product, one bit of a
a step): the result `steps` + 1 cycles after the handshake, and held while o.ready is low."""

from amaranth.hdl import Mux, Signal
from amaranth.sim import Simulator

from modforge.hw.iterative import Datapath, IterativeCore

W = 4


class ShiftAdd(Datapath):
    def __init__(self):
        super().__init__(2 * W, 2 * W, W)

    def build(self, m, load, step, index, operands):
        a, b, acc = Signal(W), Signal(2 * W), Signal(2 * W)
        with m.If(load):
            m.d.sync += [a.eq(operands[:W]), b.eq(operands[W:]), acc.eq(0)]
        with m.Elif(step):
            m.d.sync += [a.eq(a >> 1), b.eq(b << 1), acc.eq(acc + Mux(a[0], b, 0))]
        return acc


def test_latency_and_hold():
    core = IterativeCore(ShiftAdd())
    assert (core.steps, core.latency, core.initiation_interval) == (W, W + 1, W + 1)
    pairs = [(3, 5), (15, 15), (0, 9), (7, 1)]
    got, handshakes = [], []

    async def bench(ctx):
        cycle = 0
        for n, (a, b) in enumerate(pairs):
            ctx.set(core.i.payload, a | b << W)
            ctx.set(core.i.valid, 1)
            while not ctx.get(core.i.ready):
                await ctx.tick()
                cycle += 1
            handshakes.append(cycle)
            await ctx.tick()
            cycle += 1
            ctx.set(core.i.valid, 0)
            while not ctx.get(core.o.valid):
                await ctx.tick()
                cycle += 1
            assert cycle - handshakes[-1] == core.latency
            if n == 1:                                  # held for two cycles: the result stays
                for _ in range(2):
                    await ctx.tick()
                    cycle += 1
                    assert ctx.get(core.o.valid) and ctx.get(core.o.payload) == a * b
            got.append(ctx.get(core.o.payload))
            ctx.set(core.o.ready, 1)
            await ctx.tick()
            cycle += 1
            ctx.set(core.o.ready, 0)

    sim = Simulator(core)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert got == [a * b for a, b in pairs]
