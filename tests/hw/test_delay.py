"""hw.delay: DelayLine gives each field's value k cycles later, registers made on demand
(a chain as long as the longest use)."""

import random

from amaranth.hdl import Module
from amaranth.sim import Simulator

from modforge.hw.delay import DelayLine


def test_fields_delayed():
    m = Module()
    line = DelayLine(m, {"a": 4, "b": range(3)})
    taps = {("a", 0): line.at("a", 0), ("a", 1): line.at("a", 1), ("a", 3): line.at("a", 3),
            ("b", 2): line.at("b", 2)}
    assert taps[("a", 0)] is line["a"] and line.at("a", 2).name == "op_a_d2"
    assert len(line._chains["a"]) == 4 and len(line._chains["b"]) == 3
    rng, driven, seen = random.Random(6), [], []

    async def bench(ctx):
        for _t in range(40):
            values = {"a": rng.randrange(16), "b": rng.randrange(3)}
            for name, v in values.items():
                ctx.set(line[name], v)
            driven.append(values)
            seen.append({key: ctx.get(sig) for key, sig in taps.items()})
            await ctx.tick()

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    for t, row in enumerate(seen):
        for (name, k), v in row.items():
            assert v == (driven[t - k][name] if t >= k else 0), (t, name, k)
