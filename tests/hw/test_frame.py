"""hw.frame: FrameCounter steps row k of region res in region-major order under a random
enable, flags the last beat and runs its at_end statements once per frame."""

import random

from amaranth.hdl import Module, Signal
from amaranth.sim import Simulator

from modforge.hw.frame import FrameCounter


def test_counts_a_frame():
    rows, regions = 4, 3
    m = Module()
    fc = FrameCounter(rows, regions, "ld")
    en, frames, last, index = Signal(), Signal(4), Signal(), Signal(4)
    m.d.comb += [last.eq(fc.last()), index.eq(fc.index)]
    with m.If(en):
        fc.advance(m, frames.eq(frames + 1))
    rng, seen = random.Random(4), []

    async def bench(ctx):
        for _ in range(100):
            step = rng.random() < 0.7
            ctx.set(en, step)
            seen.append((step, ctx.get(fc.k), ctx.get(fc.res), ctx.get(last), ctx.get(index), ctx.get(frames)))
            await ctx.tick()

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    beat = 0                                              # the model: beats taken so far
    for step, k, res, is_last, idx, nframes in seen:
        pos = beat % (rows * regions)
        assert (k, res) == (pos % rows, pos // rows) and idx == pos == res * rows + k
        assert is_last == (pos == rows * regions - 1)
        assert nframes == beat // (rows * regions)
        beat += step
    assert beat > 2 * rows * regions
    assert fc.k.name == "ld_k" and fc.res.name == "ld_res"
