"""hw.wide: truncated (low-half) products and Karatsuba products side by side, in
amaranth.sim against Python integers, every DSP profile, variable and constant y."""

import random

import pytest
from amaranth.back import rtlil
from amaranth.hdl import Const, Module, Signal, signed
from amaranth.sim import Simulator

from modforge.hw.dsp import (
    DEEP_SEGMENT,
    KARATSUBA_STAGES,
    SQUARE,
    SQUARE_SUM,
    _recombine_fast,
    carry_select_add,
    cheapest_logic,
    karatsuba_dsps,
    karatsuba_sum,
    naf,
)
from modforge.hw.pipeline import Stager
from modforge.hw.wide import (
    deep_product_stages,
    high_pieces,
    high_product,
    high_product_dsps,
    high_sum,
    high_tiles,
    low_pieces,
    low_product,
    low_product_dsps,
    low_tiles,
    pair_levels,
    pieces_levels,
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


def run(m, inputs, outputs, vectors, expect, stages=KARATSUBA_STAGES):
    async def bench(ctx):
        for k in range(len(vectors) + stages):
            if k < len(vectors):
                for sig, v in zip(inputs, vectors[k], strict=True):
                    ctx.set(sig, v)
            await ctx.tick()
            done = k + 1 - stages
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


@pytest.mark.parametrize("bits, dsp, slack, deep", [(53, (26, 17), 1, False), (90, (18, 18), 0, False),
                                                   (160, (18, 18), 1, False), (160, (18, 18), 1, True)])
def test_high_product(bits, dsp, slack, deep):
    """The hardware's A is high_sum's (the integer side whose bound the test above checks),
    KARATSUBA_STAGES cycles later, y a constant; at 160 bits with Montgomery's addends (a
    riding value and a constant, shifted: the sum one bit wider); deep: the top level's split
    and a level above two a stage more each, every piece's root terms and the addends in one
    fast_sum."""
    m = Module()
    x, h = Signal(bits), Signal(bits + 2)
    rng, ones = random.Random(bits), (1 << bits) - 1
    c = rng.getrandbits(bits) | 1 << (bits - 1)
    stage = Stager(m, Const(1, 1))
    addends = [(h, bits - 2), (3, bits - 2)] if bits == 160 else []
    top, _ = high_product(stage, x, c, bits, dsp, "hi", slack=slack, deep=deep, addends=addends)
    g, pieces = high_pieces(bits, dsp, slack)
    assert g > 0 and len(pieces) > 1 and len(top) == 2 * bits + bool(addends)
    latency = KARATSUBA_STAGES + (deep_product_stages(pieces_levels(pieces, dsp)) if deep else 0)
    assert stage.count == latency and latency > KARATSUBA_STAGES or not deep
    vectors = [(a, rng.getrandbits(bits + 2)) for a in [0, 1, ones, 1 << (bits - 1)] +
               [rng.getrandbits(bits) for _ in range(40)]]
    run(m, (x, h), (top,), vectors, lambda a, b: (high_sum(a, c, g, pieces) + (b + 3 << (bits - 2)) * bool(addends),),
        latency)


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


@pytest.mark.parametrize("part, bits, dsp", [("low", 53, (26, 17)), ("high", 90, (18, 18))])
def test_constant_tiles_in_logic(part, bits, dsp):
    """low_tiles/high_tiles list the tiles the hardware builds (one $mul each in the RTLIL;
    none once all are in logic), signed middles' tiles among them; with the cheaper half
    of the chunks in logic (shift-adds, hw.dsp.constant_product) the product is unchanged."""
    rng = random.Random(bits)
    c = rng.getrandbits(bits) | 1 | 1 << (bits - 1)
    tiles = low_tiles(c, bits, dsp) if part == "low" else high_tiles(c, bits, dsp, 1)
    assert any(t < 0 for _, t in tiles) and all(t for _, t in tiles)

    def build(logic):
        m, x = Module(), Signal(bits)
        stage = Stager(m, Const(1, 1))
        if part == "low":
            out, _ = low_product(stage, x, c, bits, dsp, "p", logic=logic)
        else:
            out, _ = high_product(stage, x, c, bits, dsp, "p", slack=1, logic=logic)
        return m, x, out

    for logic, muls in [(frozenset(), len(tiles)), (frozenset(t for _, t in tiles), 0)]:
        m, x, out = build(logic)
        assert rtlil.convert(m, ports=[x, out]).count("cell $mul") == muls
    logic = cheapest_logic(tiles, len(tiles) // 2)
    assert len(tiles) // 2 - 3 <= sum(t not in logic for _, t in tiles) <= len(tiles) // 2
    m, x, out = build(logic)
    ones = (1 << bits) - 1
    g, pieces = high_pieces(bits, dsp, 1)
    expect = (lambda a: (a * c & ones,)) if part == "low" else (lambda a: (high_sum(a, c, g, pieces),))
    vectors = [(a,) for a in [0, 1, ones, 1 << (bits - 1)] + [rng.getrandbits(bits) for _ in range(40)]]
    run(m, (x,), (out,), vectors, expect)


def test_cheapest_logic_and_naf():
    """naf: the fewest signed digits, negative constants too; cheapest_logic: one-digit chunks
    always (shifts), then the fewest adder bits a tile until the budget holds."""
    for c in [1, 3, 7, 0x2345677, -5, -(1 << 20) + 1]:
        digits = naf(c)
        assert sum(s << e for s, e in digits) == c
        assert all(b[1] - a[1] >= 2 for a, b in zip(digits, digits[1:], strict=False))
    tiles = [(17, 1 << 5), (17, 0b1011), (17, 0b1011), (26, 0x2345677), (17, -3)]
    assert cheapest_logic(tiles, None) == {1 << 5}
    assert cheapest_logic(tiles, 3) == {1 << 5, -3}                       # 1 adder of 19 bits
    assert cheapest_logic(tiles, 1) == {1 << 5, -3, 0b1011}               # 2 adders of 21 bits a tile
    assert cheapest_logic(tiles, 0) == {c for _, c in tiles}


def test_deep_products():
    """deep=True: a stage a Karatsuba level above the first two of the deepest tree (a
    truncated product's top level's split a stage of its own too); a shallower tree (the low
    half's plain-tiled pieces) rides; the products unchanged (the roots' tops by fast_sum,
    segment=DEEP_SEGMENT)."""
    dsp, rng = (18, 18), random.Random(6)
    m = Module()
    x, y = Signal(160), Signal(256)
    stage = Stager(m, Const(1, 1))
    c = rng.getrandbits(160) | 1
    lo, _ = low_product(stage, x, c, 160, dsp, "lo", deep=True)
    extra = deep_product_stages(pieces_levels(low_pieces(160, dsp), dsp))
    assert extra == 2 and stage.count == KARATSUBA_STAGES + extra
    m2 = Module()
    stage2 = Stager(m2, Const(1, 1))
    trees, _ = products(stage2, [(y, None, 256)], dsp, "sq", deep=True)      # 3 levels: one more stage
    assert stage2.count == KARATSUBA_STAGES + 1
    square = karatsuba_sum(m2, trees[0], "sq", segment=DEEP_SEGMENT)[:512]
    vectors = [(a,) for a in [0, 1, (1 << 160) - 1] + [rng.getrandbits(160) for _ in range(30)]]
    run(m, (x,), (lo,), vectors, lambda a: (a * c % (1 << 160),), KARATSUBA_STAGES + 2)
    vectors = [(a,) for a in [0, 1, (1 << 256) - 1] + [rng.getrandbits(256) for _ in range(30)]]
    run(m2, (y,), (square,), vectors, lambda a: (a * a,), KARATSUBA_STAGES + 1)


@pytest.mark.parametrize("bits, dsp", [(55, (18, 18)), (69, (18, 18))])
def test_staged_split(bits, dsp):
    """deep's staged top split of two-level trees, both middle kinds (signed, magnitude), beside
    a one-level product that rides the extra stage: the products against Python's."""
    rng = random.Random(bits)
    m = Module()
    x, y, z = Signal(bits), Signal(bits), Signal(30)
    stage = Stager(m, Const(1, 1))
    trees, _ = products(stage, [(x, y, bits), (z, z, 30)], dsp, "p", deep=True, staged_split=True)
    assert pair_levels([(x, y, bits)], dsp) == [2] and stage.count == KARATSUBA_STAGES + 1
    outs = [karatsuba_sum(m, t, f"p{k}")[:2 * b] for k, (t, b) in enumerate(zip(trees, (bits, 30), strict=True))]
    top = (1 << bits) - 1
    vectors = [(a, b, rng.getrandbits(30)) for a, b in [(0, 0), (top, top), (top, 1)]] + \
        [(rng.getrandbits(bits), rng.getrandbits(bits), rng.getrandbits(30)) for _ in range(30)]
    run(m, (x, y, z), tuple(outs), vectors, lambda a, b, c: (a * b, c * c), KARATSUBA_STAGES + 1)


def test_carry_select_add_and_fast_root():
    """carry_select_add against +, every split position; the fast root (`karatsuba_sum`'s
    segment: carry-save then carry-select) of every middle kind (signed, magnitude, square
    by difference and by sum) against the product, in amaranth.sim."""
    rng = random.Random(8)
    m = Module()
    a, b = Signal(23), Signal(23)
    outs = [Signal(23, name=f"s{seg}") for seg in (1, 5, 8, 23)]
    for seg, o in zip((1, 5, 8, 23), outs, strict=True):
        m.d.comb += o.eq(carry_select_add(m, a, b, 23, seg, f"a{seg}"))
    m.d.sync += Signal(name="tick").eq(1)               # a clock for run's ticks
    vectors = [(x, y) for x in (0, 1, (1 << 23) - 1) for y in (0, 1, (1 << 23) - 1)]
    vectors += [(rng.getrandbits(23), rng.getrandbits(23)) for _ in range(60)]
    run(m, (a, b), outs, vectors, lambda x, y: ((x + y) % (1 << 23),) * 4, 1)     # combinational: read after a tick
    for bits, h, kind in [(40, 20, None), (40, 20, SQUARE), (40, 20, SQUARE_SUM), (41, 21, "magnitude")]:
        m = Module()
        z0, z2, s = Signal(2 * h), Signal(2 * (bits - h)), Signal()
        zm = Signal(signed(2 * h + 4)) if kind is None else Signal(2 * h + 2)
        sign = s if kind == "magnitude" else kind
        out = Signal(2 * bits)
        m.d.comb += out.eq(_recombine_fast(m, bits, h, sign, z0, z2, zm, 7, "r"))
        m.d.sync += Signal(name="tick").eq(1)
        vectors, expect = [], {}
        for _ in range(80):
            x0, x1, y0, y1 = (rng.getrandbits(n) for n in (h, bits - h, h, bits - h))
            if kind in (SQUARE, SQUARE_SUM):
                y0, y1 = x0, x1
            mid = {None: (x0 - x1) * (y1 - y0), SQUARE: (x0 - x1) ** 2, SQUARE_SUM: (x0 + x1) ** 2,
                   "magnitude": abs((x0 - x1) * (y1 - y0))}[kind]
            v = (x0 * y0, x1 * y1, mid, int(kind == "magnitude" and (x0 - x1) * (y1 - y0) < 0))
            vectors.append(v)
            expect[v] = (x0 + (x1 << h)) * (y0 + (y1 << h))
        run(m, (z0, z2, zm, s), (out,), vectors, lambda *v, e=expect: (e[v],), 1)
