"""hw.wide: truncated (low-half) products and Karatsuba products side by side, in
amaranth.sim against Python integers, every DSP profile, variable and constant y."""

import random

import pytest
from amaranth.hdl import Const, Module, Signal
from amaranth.sim import Simulator

from modforge.hw.dsp import KARATSUBA_STAGES, karatsuba_dsps, karatsuba_sum
from modforge.hw.pipeline import Stager
from modforge.hw.wide import (
    high_pieces,
    high_product,
    high_product_dsps,
    high_sum,
    low_pieces,
    low_product,
    low_product_dsps,
    products,
)


def test_low_pieces_sum_to_the_low_half():
    """The pieces' products sum to x*y mod 2^n; the split is taken only when it needs fewer
    DSPs than the whole product (35 bits on 26x17: 4 instead of 5; 381 bits: 115, not 162)."""
    rng = random.Random(3)
    for dsp in [(26, 17), (18, 18), (25, 18), None]:
        for bits in (17, 35, 53, 69, 105, 130, 256, 381, 521):
            pieces = low_pieces(bits, dsp)
            assert low_product_dsps(bits, dsp) <= karatsuba_dsps(bits, dsp)
            for _ in range(50):
                x, y = rng.getrandbits(bits), rng.getrandbits(bits)
                total = sum((((x >> xo) & ((1 << b) - 1)) * ((y >> yo) & ((1 << b) - 1))) << (xo + yo)
                            for xo, yo, b in pieces)
                assert total % (1 << bits) == x * y % (1 << bits)
    assert len(low_pieces(35, (26, 17))) == 3 and low_product_dsps(35, (26, 17)) == 4 < karatsuba_dsps(35, (26, 17))
    assert low_product_dsps(381, (26, 17)) == 115


def test_high_pieces_bound_the_top():
    """The top of x*y from the mirrored pieces: x*y - 2^(n - slack) < A <= x*y, at the
    largest error (all ones) and random operands; fewer DSPs than the whole product."""
    rng = random.Random(4)
    for dsp in [(26, 17), (18, 18), (25, 18), None]:
        for bits in (17, 53, 130, 256, 381):
            for slack in (0, 1):
                g, pieces = high_pieces(bits, dsp, slack)
                ones = (1 << bits) - 1
                for x, y in [(ones, ones), (ones, 1), (1 << (bits - 1), ones)] + \
                        [(rng.getrandbits(bits), rng.getrandbits(bits)) for _ in range(30)]:
                    assert x * y - (1 << (bits - slack)) < high_sum(x, y, g, pieces) <= x * y
    assert high_product_dsps(381, (26, 17), 1) == 119 < karatsuba_dsps(381, (26, 17))


def run(m, inputs, outputs, vectors, expect):
    async def bench(ctx):
        for k in range(len(vectors) + KARATSUBA_STAGES):
            if k < len(vectors):
                for sig, v in zip(inputs, vectors[k], strict=True):
                    ctx.set(sig, v)
            await ctx.tick()
            done = k + 1 - KARATSUBA_STAGES
            if 0 <= done < len(vectors):
                got = tuple(ctx.get(o) for o in outputs)
                assert got == expect(*vectors[done]), [hex(v) for v in vectors[done]]

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()


@pytest.mark.parametrize("bits, dsp", [(35, (26, 17)), (53, (26, 17)), (70, (18, 18)), (40, None)])
@pytest.mark.parametrize("constant", [False, True])
def test_low_product(bits, dsp, constant):
    """x*y mod 2^bits KARATSUBA_STAGES cycles later (a rider beside it), y a Value or a constant."""
    m = Module()
    x, y, tag = Signal(bits), Signal(bits), Signal(8)
    rng, ones = random.Random(bits), (1 << bits) - 1
    c = rng.getrandbits(bits) | 1
    stage = Stager(m, Const(1, 1))
    lo, (tag_out,) = low_product(stage, x, c if constant else y, bits, dsp, "lo", ride=(tag,))
    assert stage.count == KARATSUBA_STAGES and len(lo) == bits
    corners = [0, 1, ones, ones >> 1, 1 << (bits - 1)]
    vectors = [(a, b, k % 256) for k, (a, b) in enumerate([(a, b) for a in corners for b in corners]
                                                          + [(rng.getrandbits(bits), rng.getrandbits(bits))
                                                             for _ in range(60)])]
    run(m, (x, y, tag), (lo, tag_out), vectors,
        lambda a, b, t: (a * (c if constant else b) & ones, t))


@pytest.mark.parametrize("bits, dsp, slack", [(53, (26, 17), 1), (90, (18, 18), 0)])
def test_high_product(bits, dsp, slack):
    """The hardware's A is high_sum's (the integer side whose bound the test above checks),
    KARATSUBA_STAGES cycles later, y a constant."""
    m = Module()
    x = Signal(bits)
    rng, ones = random.Random(bits), (1 << bits) - 1
    c = rng.getrandbits(bits) | 1 << (bits - 1)
    stage = Stager(m, Const(1, 1))
    top, _ = high_product(stage, x, c, bits, dsp, "hi", slack=slack)
    g, pieces = high_pieces(bits, dsp, slack)
    assert g > 0 and len(pieces) > 1
    vectors = [(a,) for a in [0, 1, ones, 1 << (bits - 1)] + [rng.getrandbits(bits) for _ in range(40)]]
    run(m, (x,), (top,), vectors, lambda a: (high_sum(a, c, g, pieces),))


def test_products_side_by_side():
    """Two Karatsuba products of different widths over the same stages."""
    m = Module()
    x, y, u = Signal(64), Signal(64), Signal(30)
    stage = Stager(m, Const(1, 1))
    trees, _ = products(stage, [(x, y, 64), (u, 0x2345677, 30)], (26, 17), "p")
    p0, p1 = karatsuba_sum(m, trees[0], "p0")[:128], karatsuba_sum(m, trees[1], "p1")[:60]
    rng = random.Random(5)
    vectors = [(rng.getrandbits(64), rng.getrandbits(64), rng.getrandbits(30)) for _ in range(40)]
    run(m, (x, y, u), (p0, p1), vectors, lambda a, b, v: (a * b, v * 0x2345677))
