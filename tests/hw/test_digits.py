"""hw.digits: the Accumulator (P digits of any size and sign recombined into radix-B digits
and a carry, against math.fmlm3.from_digits, eqs. 21-22), the segment adder/subtractor and
the halver against Python integers, numbers back to back."""

import random

import pytest
from amaranth.sim import Simulator

from modforge.hw.digits import Accumulator, Halver, SegmentAddSub, select_split
from modforge.math.fmlm3 import from_digits


@pytest.mark.parametrize("u, digit_bits, s, signed_digits, deep", [
    (16, 65, 2, False, False), (16, 66, 2, True, False), (8, 20, 4, True, False), (32, 129, 2, False, False),
    (60, 130, 4, True, True), (32, 129, 2, False, True)])          # deep: 313 and 164 bits, carry-select
def test_accumulator(u, digit_bits, s, signed_digits, deep):
    P, rng = 16, random.Random(u + s)
    lo, hi = (-(1 << (digit_bits - 1)), (1 << (digit_bits - 1)) - 1) if signed_digits else (0, (1 << digit_bits) - 1)
    numbers = [[hi] * P, [lo] * P] + [[rng.randint(lo, hi) for _ in range(P)] for _ in range(20)]
    acc = Accumulator(u, digit_bits, s, signed_digits, deep)
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


def run_bench(dut, steps, sample):
    """steps: per cycle [(signal, value)]; sample(ctx) after each edge."""
    async def bench(ctx):
        for step in steps:
            for sig, value in step:
                ctx.set(sig, value)
            await ctx.tick()
            sample(ctx)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()


@pytest.mark.parametrize("width, split", [(32, 0), (64, 0), (32, 13), (64, 32)])
def test_segment_add_sub(width, split):
    """One chain, and carry-select (split: the low chain's bits)."""
    segs, rng = 8, random.Random(width + split)
    bits, top = width * segs, (1 << (width * segs)) - 1
    cases = [(top, top, 0, 1), (0, 1, 1, 0), (top, 0, 0, 1)] + [
        (rng.getrandbits(bits), rng.getrandbits(bits), rng.randrange(2), rng.randrange(2)) for _ in range(30)]
    for subtract in (False, True):                           # the case's third field: a - b
        dut = SegmentAddSub(width, subtract, split)
        mine = [case for case in cases if case[2] == subtract]
        steps = [[(dut.a, (a >> (width * k)) & ((1 << width) - 1)), (dut.b, (b >> (width * k)) & ((1 << width) - 1)),
                  (dut.first, k == 0), (dut.cin, cin)] for a, b, _, cin in mine for k in range(segs)]
        got: list = []
        run_bench(dut, steps, lambda ctx, dut=dut, got=got: got.append((ctx.get(dut.o), ctx.get(dut.cout))))
        for j, (a, b, _, cin) in enumerate(mine):
            chunk = got[j * segs:(j + 1) * segs]
            value = sum(o << (width * k) for k, (o, _) in enumerate(chunk))
            want = a - b - cin if subtract else a + b + cin
            assert value == want % (1 << bits)
            assert chunk[-1][1] == (want < 0 if subtract else want >> bits)


def test_select_split():
    assert select_split(240, deep=True) == 120
    assert select_split(240, deep=False) == select_split(128, deep=True) == 0


def test_halver():
    width, rng = 16, random.Random(9)
    numbers = [(rng.getrandbits(width * segs), rng.randrange(2), segs) for segs in (1, 3, 4, 1, 8) for _ in range(3)]
    dut = Halver(width)
    steps = []
    for x, top, segs in numbers:
        steps += [[(dut.valid, 1), (dut.d, (x >> (width * k)) & 0xFFFF), (dut.last, k == segs - 1), (dut.top, top)]
                  for k in range(segs)]
        if rng.randrange(2):
            steps.append([(dut.valid, 0), (dut.last, 0)])      # a gap between numbers
    steps += [[(dut.valid, 0)]] * 2
    got = []
    run_bench(dut, steps, lambda ctx: got.append(ctx.get(dut.o)) if ctx.get(dut.o_valid) else None)
    for x, top, segs in numbers:
        chunk, got = got[:segs], got[segs:]
        assert sum(o << (width * k) for k, o in enumerate(chunk)) == (x + (top << (width * segs))) >> 1
    assert not got
