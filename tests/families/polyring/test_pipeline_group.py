"""hw.PolyCore's pipeline with a group of products a frame (poly-saber's running sum): the
Amaranth simulator on small cores (n = 16, M = 1, 2, 4, three products a frame), frames with
gaps and back-pressure, every result against the sum of the model's products."""

import random

import pytest
from amaranth.lib import data
from amaranth.sim import Simulator

from modforge.families.polyring import hw, model as M
from modforge.families.polyring.algorithms import pack_product, pack_result

N, K, SMALL, BITS, GROUP = 16, 13, 4, 4, 3


@pytest.mark.parametrize("PAR, stages", [(2, 0), (2, 2), (2, 3), (2, 6), (1, 4), (4, 5)])
def test_group_sums_under_stalls(PAR, stages):
    rng = random.Random(stages)
    st = M.structure(PAR)
    layout = data.StructLayout({"a": data.ArrayLayout(K, PAR), "s": data.ArrayLayout(BITS, PAR)})
    core = hw.PolyCore(layout, N, K, st, SMALL, BITS - 1, GROUP, pipeline=stages)
    frames = [[([rng.randrange(1 << K) for _ in range(N)], [rng.randint(-SMALL, SMALL) for _ in range(N)])
               for _ in range(GROUP)] for _ in range(4)]
    beats = [a | (s << PAR * K) for frame in frames for a_j, s_j in frame
             for a, s in pack_product(a_j, s_j, PAR, K, BITS, SMALL)]
    want = [beat for frame in frames for beat in pack_result(
        [sum(col) % (1 << K) for col in zip(*(M.flat(a, s, 1 << K, st) for a, s in frame), strict=True)], PAR, K)]
    got = []

    async def sender(ctx):
        for beat in beats:
            while rng.random() < 0.1:
                await ctx.tick()
            ctx.set(core.i.valid, 1)
            ctx.set(core.i.payload.as_value(), beat)
            await ctx.tick().until(core.i.ready)
            ctx.set(core.i.valid, 0)

    async def receiver(ctx):
        while len(got) < len(want):
            ctx.set(core.o.ready, rng.random() < 0.7)
            *_, valid, ready, payload = await ctx.tick().sample(core.o.valid, core.o.ready, core.o.payload.as_value())
            if valid and ready:
                got.append(payload)

    sim = Simulator(core)
    sim.add_clock(1e-6)
    sim.add_testbench(sender)
    sim.add_testbench(receiver)
    sim.run()
    assert got == want
