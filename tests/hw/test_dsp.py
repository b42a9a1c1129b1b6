"""hw.dsp: the DSP tiling's integer rules, and partial products that sum to x*y in
amaranth.sim for random widths, variable and constant y, every DSP profile."""

import random

import pytest
from amaranth.hdl import Const, Module, Signal
from amaranth.sim import Simulator

from modforge.hw.dsp import (
    DSP_PROFILES,
    KARATSUBA_STAGES,
    accumulate,
    dsp_tiles,
    karatsuba_dsps,
    karatsuba_levels,
    karatsuba_multiply,
    karatsuba_product,
    karatsuba_recombine,
    karatsuba_sum,
    partial_products,
    register_products,
    signed_fits,
    tiling,
    unsigned_as_signed,
)
from modforge.hw.pipeline import Stager

PROFILES = list(DSP_PROFILES.values())


def ceil_div(a, b):
    return -(-a // b)


def test_tiling_is_the_better_orientation():
    rng = random.Random(1)
    for dsp in [d for d in PROFILES if d]:
        for _ in range(200):
            a, b = rng.randint(1, 130), rng.randint(1, 130)
            cx, cy = tiling(a, b, *dsp)
            assert sorted((cx, cy)) == sorted(dsp)
            tiles = ceil_div(a, cx) * ceil_div(b, cy)
            assert tiles == dsp_tiles(a, b, *dsp)
            assert tiles <= ceil_div(a, cy) * ceil_div(b, cx)


def test_dsp_tiles_examples():
    """corrections.md#wlm-mixed-iterations: WLM-Mixed 64-bit, 26x17: a 17x38 product takes 2 DSPs, 17x26 one."""
    assert dsp_tiles(17, 38, 26, 17) == 2 and dsp_tiles(17, 26, 26, 17) == 1
    assert dsp_tiles(64, 64, 26, 17) == 12                  # 3 x 4 either way
    assert dsp_tiles(26, 34, 26, 17) == 2 and tiling(26, 34, 26, 17) == (26, 17)
    assert dsp_tiles(34, 26, 26, 17) == 2 and tiling(34, 26, 26, 17) == (17, 26)
    assert dsp_tiles(0, 10, 18, 18) == 0


def _cases(rng, constant):
    """(xw, yw, y) with y None for a variable operand; the constant ones include 0, 1 and
    a sparse constant whose zero chunks are dropped."""
    cases = []
    for _ in range(8):
        xw, yw = rng.randint(1, 70), rng.randint(1, 70)
        cases.append((xw, yw, rng.getrandbits(yw) if constant else None))
    if constant:
        cases += [(40, 60, 0), (33, 1, 1), (50, 64, (1 << 63) | 5)]
    return cases


@pytest.mark.parametrize("constant", [False, True], ids=["variable", "constant"])
@pytest.mark.parametrize("dsp", PROFILES, ids=list(DSP_PROFILES))
def test_partial_products_sum_to_the_product(dsp, constant):
    rng = random.Random(f"{dsp} {constant}")
    m = Module()
    ports = []
    for k, (xw, yw, y) in enumerate(_cases(rng, constant)):
        x = Signal(xw, name=f"x{k}")
        yv = y if constant else Signal(yw, name=f"y{k}")
        parts = partial_products(x, xw, yv, yw, dsp)
        if dsp is not None and constant:
            assert len(parts) <= dsp_tiles(xw, yw, *dsp)      # zero constant chunks dropped
        elif dsp is not None:
            assert len(parts) == dsp_tiles(xw, yw, *dsp)
            cx, cy = tiling(xw, yw, *dsp)
            assert all(len(p) <= cx + cy for _, p in parts)   # each fits one DSP
        out = Signal(xw + yw + 8, name=f"out{k}")
        m.d.comb += out.eq(accumulate(parts))
        ports.append((x, xw, yv, yw, out))

    async def bench(ctx):
        for trial in range(40):
            for x, xw, yv, yw, out in ports:
                xv = (1 << xw) - 1 if trial == 0 else rng.getrandbits(xw)   # all ones first
                ctx.set(x, xv)
                if isinstance(yv, int):
                    want = xv * yv
                else:
                    yi = (1 << yw) - 1 if trial == 0 else rng.getrandbits(yw)
                    ctx.set(yv, yi)
                    want = xv * yi
                assert ctx.get(out) == want, (xw, yw)

    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()


def test_register_products_is_one_stage():
    """Registered partial products, summed the next stage: x*y two cycles after x, y."""
    m = Module()
    x, y = Signal(40), Signal(30)
    stage = Stager(m, Const(1, 1))
    parts = register_products(stage, partial_products(x, 40, y, 30, DSP_PROFILES["dsp48e1"]), "xy")
    assert [p.name for _, p in parts] == [f"s1_xy_pp{k}" for k in range(len(parts))]
    stage.next()
    out = stage(accumulate(parts), "x", 70)
    rng = random.Random(3)
    pairs = [(rng.getrandbits(40), rng.getrandbits(30)) for _ in range(20)]

    async def bench(ctx):
        for k, (a, b) in enumerate(pairs + [(0, 0)]):
            ctx.set(x, a)
            ctx.set(y, b)
            await ctx.tick()                     # after edge k: stage 1 holds pair k, stage 2 pair k-1
            if k >= 1:
                pa, pb = pairs[k - 1]
                assert ctx.get(out) == pa * pb

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()


def test_unsigned_as_signed():
    m = Module()
    v = Signal(8)
    s = Signal(range(-600, 600))
    m.d.comb += s.eq(unsigned_as_signed(v) - 300)
    assert unsigned_as_signed(v).shape().signed and len(unsigned_as_signed(v)) == 9

    async def bench(ctx):
        for value in (0, 1, 127, 128, 255):
            ctx.set(v, value)
            assert ctx.get(s) == value - 300

    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()


def test_karatsuba_dsps():
    """FMLM3's Multiply Adder (paper Table 6/7): 9 DSPs for a 64-bit product, 27 for 128, on
    every profile (16-bit leaves); small products stay plain tilings."""
    for name in ("dsp48e2", "dsp48e1", "ecp5"):
        dsp = DSP_PROFILES[name]
        assert (karatsuba_levels(64, dsp), karatsuba_dsps(64, dsp)) == (2, 9), name
        assert (karatsuba_levels(128, dsp), karatsuba_dsps(128, dsp)) == (3, 27), name
        assert karatsuba_levels(16, dsp) == 0 and karatsuba_dsps(16, dsp) == 1
    assert karatsuba_dsps(64, None) == 0 and karatsuba_levels(64, None) == 0
    assert karatsuba_dsps(32, (26, 17)) == 3 < dsp_tiles(32, 32, 26, 17)


def test_karatsuba_signed_middles():
    """K = 64: every middle signed (33 bits, then 17- and 18-bit signed leaves, one DSP each
    on every profile): no magnitude logic. A 19-bit signed leaf is not one DSP, so for K = 128
    on dsp48e2 the middle under the signed first-level middle (65 bits) takes its magnitude
    (33 bits unsigned: 3 DSPs; signed, 34 bits over an 18-bit magnitude leaf: 4)."""
    from modforge.hw.dsp import _cost
    for name in ("dsp48e2", "dsp48e1", "ecp5"):
        dsp = DSP_PROFILES[name]
        assert signed_fits(18, dsp) and not signed_fits(19, dsp), name
        assert _cost(64, False, 2, dsp) == (9, True) and _cost(33, True, 1, dsp) == (3, True), name
    assert _cost(65, True, 2, DSP_PROFILES["dsp48e2"]) == (9, False)
    assert _cost(34, True, 1, DSP_PROFILES["dsp48e2"]) == (4, False)
    assert not signed_fits(2, None)


@pytest.mark.parametrize("bits, dsp, staged", [
    (64, DSP_PROFILES["dsp48e2"], False), (128, DSP_PROFILES["dsp48e1"], False), (33, DSP_PROFILES["ecp5"], False),
    (45, DSP_PROFILES["dsp48e2"], False), (20, None, False),
    (64, DSP_PROFILES["ecp5"], True),           # staged: the top middle signed
    (192, DSP_PROFILES["ecp5"], True),          # its magnitude and sign
    (96, DSP_PROFILES["ecp5"], True)])          # one level: not staged
def test_karatsuba_product(bits, dsp, staged):
    """x*y KARATSUBA_STAGES cycles after x, y (staged: one more with two levels or more),
    one pair a cycle, a rider beside it; corners (0, 1, all ones, one half all ones: the
    middle differences' signs) and random pairs."""
    m = Module()
    x, y, tag = Signal(bits), Signal(bits), Signal(8)
    stage = Stager(m, Const(1, 1))
    product, (tag_out,) = karatsuba_product(stage, x, y, bits, dsp, "k", ride=(tag,), staged=staged)
    depth = KARATSUBA_STAGES + (staged and karatsuba_levels(bits, dsp) >= 2)
    assert stage.count == depth and len(product) == 2 * bits
    rng, ones, h = random.Random(bits), (1 << bits) - 1, -(-bits // 2)
    corners = [0, 1, ones, (1 << h) - 1, ones ^ ((1 << h) - 1), 1 << (bits - 1)]
    pairs = [(a, b) for a in corners for b in corners]
    pairs += [(rng.getrandbits(bits), rng.getrandbits(bits)) for _ in range(150)]

    async def bench(ctx):
        for k in range(len(pairs) + depth):
            if k < len(pairs):
                ctx.set(x, pairs[k][0])
                ctx.set(y, pairs[k][1])
                ctx.set(tag, k % 256)
            await ctx.tick()
            done = k + 1 - depth
            if 0 <= done < len(pairs):
                a, b = pairs[done]
                assert (ctx.get(product), ctx.get(tag_out)) == (a * b, done % 256), (hex(a), hex(b))

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()



@pytest.mark.parametrize("dsp", PROFILES)
def test_square_products_sum_to_the_square(dsp):
    """The symmetric tiling: x_i^2 and each x_i x_j (i < j) once, doubled by its shift; taken
    only when it needs fewer DSPs than the plain tiling (32 bits on 26x17: 3, plain 4; 26 bits:
    the plain tiling's 2, not 3)."""
    from modforge.hw.dsp import square_products, square_tiles
    rng = random.Random(7)
    for bits in (5, 17, 26, 32, 35, 51, 64, 90):
        m, x = Module(), Signal(bits)
        parts = square_products(x, bits, dsp)
        if dsp is not None:
            assert len(parts) == square_tiles(bits, dsp) <= dsp_tiles(bits, bits, *dsp), (bits, dsp)
        out = Signal(2 * bits)
        m.d.comb += out.eq(accumulate(parts))
        ones = (1 << bits) - 1
        values = [0, 1, ones, ones >> 1, 1 << (bits - 1)] + [rng.getrandbits(bits) for _ in range(30)]

        async def bench(ctx, x=x, out=out, values=values, bits=bits):
            for v in values:
                ctx.set(x, v)
                assert ctx.get(out) == v * v, (bits, dsp, hex(v))

        sim = Simulator(m)
        sim.add_testbench(bench)
        sim.run()
    if dsp == (26, 17):
        assert square_tiles(32, dsp) == 3 < dsp_tiles(32, 32, *dsp) and square_tiles(26, dsp) == 2


def test_karatsuba_square_dsps():
    """A square never needs more DSPs than the product; fewer where the product's leaves are
    several tiles (381 bits on ECP5: 162, the product 243); where the product's tree ends in
    one-DSP leaves the counts are equal, the square with fewer levels (256 bits on 26x17: 3
    levels of 32- to 34-bit symmetric leaves, 81; the product 4 levels, 81). The middles:
    signed when that is no dearer (34 bits, one level: 18-bit signed), else the sum (64: 33
    bits, 3 DSPs as 32), else the magnitude (51: the sum's 27 bits need 3, 26 bits 2)."""
    from modforge.hw.dsp import _square_cost, karatsuba_square_dsps, karatsuba_square_levels
    for dsp in PROFILES:
        for bits in (17, 32, 64, 100, 128, 255, 256, 381, 448, 521):
            assert karatsuba_square_dsps(bits, dsp) <= karatsuba_dsps(bits, dsp), (bits, dsp)
    ecp5, xilinx = DSP_PROFILES["ecp5"], DSP_PROFILES["dsp48e2"]
    assert (karatsuba_square_dsps(381, ecp5), karatsuba_dsps(381, ecp5)) == (162, 243)
    assert (karatsuba_square_levels(256, xilinx), karatsuba_square_dsps(256, xilinx)) == (3, 81)
    assert karatsuba_levels(256, xilinx) == 4
    assert _square_cost(34, False, 1, xilinx) == (3, "signed") and _square_cost(64, False, 1, xilinx) == (9, "sum")
    assert _square_cost(51, False, 1, xilinx) == (6, "magnitude")
    assert _square_cost(36, True, 1, xilinx)[1] == "magnitude"             # under 69's signed middle
    assert karatsuba_square_dsps(64, None) == 0


@pytest.mark.parametrize("bits, dsp, levels", [(64, DSP_PROFILES["dsp48e2"], None), (34, DSP_PROFILES["dsp48e2"], 1),
                                               (69, DSP_PROFILES["dsp48e2"], 2), (51, DSP_PROFILES["dsp48e2"], 1),
                                               (100, DSP_PROFILES["ecp5"], None), (45, DSP_PROFILES["dsp48e1"], 2),
                                               (20, None, None)])
def test_karatsuba_square(bits, dsp, levels):
    """x^2 from the square tree KARATSUBA_STAGES cycles after x, one a cycle: signed middles
    (34; 69, with a magnitude under a signed one), sum middles (64, 69, 100), magnitude
    middles (51), symmetric leaves, the tool's product (dsp None); corners (0, 1, all ones,
    one half all ones: the middles' extremes) and random x."""
    from modforge.hw.dsp import karatsuba_square_split
    m = Module()
    x = Signal(bits)
    stage = Stager(m, Const(1, 1))
    tree = karatsuba_square_split(stage, x, bits, dsp, "s", levels=levels)
    stage.next()
    tree = karatsuba_multiply(stage, tree, dsp, "s")
    stage.next()
    tree = karatsuba_recombine(stage, tree, "s")
    stage.next()
    square = karatsuba_sum(m, tree, "s")[:2 * bits]
    rng, ones, h = random.Random(bits), (1 << bits) - 1, -(-bits // 2)
    values = [0, 1, ones, (1 << h) - 1, ones ^ ((1 << h) - 1), 1 << (bits - 1)]
    values += [rng.getrandbits(bits) for _ in range(150)]

    async def bench(ctx):
        for k in range(len(values) + KARATSUBA_STAGES):
            if k < len(values):
                ctx.set(x, values[k])
            await ctx.tick()
            done = k + 1 - KARATSUBA_STAGES
            if 0 <= done < len(values):
                assert ctx.get(square) == values[done] ** 2, hex(values[done])

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
