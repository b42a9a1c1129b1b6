"""hw.digits.Accumulator: P digits of any size and sign recombined into radix-B digits and a
carry, against math.fmlm3.from_digits (eqs. 21-22), numbers back to back."""

import random

import pytest
from amaranth.sim import Simulator

from modforge.hw.digits import Accumulator
from modforge.math.fmlm3 import from_digits


@pytest.mark.parametrize("u, digit_bits, s, signed_digits", [(16, 65, 2, False), (16, 66, 2, True),
                                                             (8, 20, 4, True), (32, 129, 2, False)])
def test_accumulator(u, digit_bits, s, signed_digits):
    P, rng = 16, random.Random(u + s)
    lo, hi = (-(1 << (digit_bits - 1)), (1 << (digit_bits - 1)) - 1) if signed_digits else (0, (1 << digit_bits) - 1)
    numbers = [[hi] * P, [lo] * P] + [[rng.randint(lo, hi) for _ in range(P)] for _ in range(20)]
    acc = Accumulator(u, digit_bits, s, signed_digits)
    beats = [(k == 0, number[k:k + s]) for number in numbers for k in range(0, P, s)]
    outs = []

    async def bench(ctx):
        for t in range(len(beats) + acc.depth):
            if t < len(beats):
                first, digits = beats[t]
                ctx.set(acc.first, first)
                for sig, d in zip(acc.d, digits, strict=True):
                    ctx.set(sig, d)
            await ctx.tick()
            if t + 1 >= acc.depth and t + 1 - acc.depth < len(beats):
                outs.append((ctx.get(acc.o), ctx.get(acc.carry)))

    sim = Simulator(acc)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    per = P // s
    for j, number in enumerate(numbers):
        chunk = outs[j * per:(j + 1) * per]
        low = sum(o << (s * u * k) for k, (o, _) in enumerate(chunk))
        assert low + (chunk[-1][1] << (u * P)) == from_digits(number, u)
