"""hw.gf2: const_mul is the carry-less product (math.gf2.clmul) in amaranth.sim."""

import random

from amaranth.hdl import Module, Signal
from amaranth.sim import Simulator

from modforge.hw.gf2 import const_mul
from modforge.math.gf2 import clmul


def test_const_mul_is_clmul():
    rng = random.Random(2)
    m = Module()
    cases = []
    for k, (width, const) in enumerate([(1, 1), (8, 0), (8, 1), (13, 0b1011), (33, rng.getrandbits(40)),
                                        (64, (1 << 63) | 1), (17, rng.getrandbits(17))]):
        x = Signal(width, name=f"x{k}")
        product = const_mul(x, const)
        assert len(product) >= (width + const.bit_length() - 1 if const else 1)
        out = Signal(width + 64, name=f"out{k}")
        m.d.comb += out.eq(product)
        cases.append((x, width, const, out))

    async def bench(ctx):
        for trial in range(50):
            for x, width, const, out in cases:
                value = (1 << width) - 1 if trial == 0 else rng.getrandbits(width)
                ctx.set(x, value)
                assert ctx.get(out) == clmul(value, const), (width, const)

    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()
