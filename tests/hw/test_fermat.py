"""hw.fermat and hw.butterfly.ShiftButterfly against math.fmlm3.Ring on random values and
every shift: products by powers of two and of A (c integer and c = 1/2, sqrt(2) the
supplemental path), one operation a cycle through the pipeline."""

import random
from fractions import Fraction

import pytest
from amaranth.back import rtlil
from amaranth.hdl import Module, Signal
from amaranth.sim import Simulator

from modforge.hw import fermat
from modforge.hw.butterfly import ShiftButterfly
from modforge.hw.dsp import DSP_PROFILES, karatsuba_levels
from modforge.hw.fermat import (
    MulAdd,
    PowerMul,
    fermat_add,
    fermat_sub,
    fixed_shift,
    mul_add_depth,
    power_control,
    shift_control,
)
from modforge.math.fmlm3 import Ring


def run_pipeline(dut, inputs, outputs, ops):
    """ops: per cycle {signal name: value}; returns per op the outputs `depth` cycles later."""
    got = []

    async def bench(ctx):
        for t in range(len(ops) + dut.depth):
            if t < len(ops):
                for name, value in ops[t].items():
                    ctx.set(inputs[name], value)
            await ctx.tick()
            if 0 <= t + 1 - dut.depth < len(ops):
                got.append(tuple(ctx.get(o) for o in outputs))

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return got


def values(ring, rng, count):
    corners = [0, 1, ring.M - 1, ring.M - 2, (1 << ring.K) - 1, 1 << (ring.K - 1)]
    return corners + [rng.randrange(ring.M) for _ in range(count)]


def test_fermat_add_sub_every_pair():
    """fermat_add/fermat_sub against Ring.add/sub on every pair of a small ring, K = 4."""
    ring = Ring(4)
    a, b = Signal(5), Signal(5)
    m = Module()
    total, diff = Signal(5), Signal(5)
    m.d.comb += [total.eq(fermat_add(a, b, 4)), diff.eq(fermat_sub(a, b, 4))]

    async def bench(ctx):
        for x in range(ring.M):
            for y in range(ring.M):
                ctx.set(a, x)
                ctx.set(b, y)
                assert (ctx.get(total), ctx.get(diff)) == (ring.add(x, y), ring.sub(x, y)), (x, y)

    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()


def test_sqrt2_step_pieces_every_value():
    """fermat_sub_minus_one on every pair of K-bit values, and sqrt2_step on every w = z - 1
    (odd: -z (2^(K/2) - 1), even: z), K = 4."""
    K, ring = 4, Ring(4)
    a, b, w, odd = Signal(K), Signal(K), Signal(K + 1), Signal()
    m = Module()
    diff, step = Signal(K + 1), Signal(K + 1)
    m.d.comb += [diff.eq(fermat.fermat_sub_minus_one(a, b, K)), step.eq(fermat.sqrt2_step(w, K, odd))]

    async def bench(ctx):
        for x in range(1 << K):
            for y in range(1 << K):
                ctx.set(a, x)
                ctx.set(b, y)
                assert ctx.get(diff) == (x - y - 1) % ring.M, (x, y)
        for z in range(ring.M):
            ctx.set(w, (z - 1) % ring.M)
            for o in (0, 1):
                ctx.set(odd, o)
                want = (-z * ((1 << K // 2) - 1)) % ring.M if o else z
                assert ctx.get(step) == want, (z, o)

    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()


def test_shift_control():
    ring = Ring(12)
    for k in range(-30, 30):
        neg, amount = shift_control(12, k)
        assert 0 <= amount < 12
        assert ring.mul_pow2(1, k) == ring.mul_pow2(ring.neg(1) if neg else 1, amount)


@pytest.mark.parametrize("K, c, deep", [(16, Fraction(1), False), (40, Fraction(5), False), (8, Fraction(1, 2), False),
                                        (32, Fraction(1, 2), False), (40, Fraction(5), True)])
def test_power_mul(K, c, deep):
    """a * A^e * 2^k for random a, e, k (both signs, beyond the period; deep: the lo/hi mask
    registered beside the rotation)."""
    ring, rng = Ring(K, c), random.Random(K)
    sqrt2 = c.denominator == 2
    pm = PowerMul(K, sqrt2, deep=deep)
    ops, want = [], []
    for a in values(ring, rng, 300):
        e, k = rng.randrange(-4 * K, 4 * K), rng.randrange(-2 * K, 2 * K)
        ops.append({"a": a, "ctrl": power_control(K, c, e, k, sqrt2)})
        want.append((ring.mul_pow2(ring.mul_A_pow(a, e), k),))
    assert run_pipeline(pm, {"a": pm.a, "ctrl": pm.ctrl}, [pm.o], ops) == want


@pytest.mark.parametrize("K, c, v, deep", [(24, 3, 3, False), (32, 4, 3, False), (40, 5, 3, False), (32, 2, 4, False),
                                           (40, 5, 3, True)])
def test_power_mul_stepped_rotator(K, c, v, deep):
    """The rotator of amounts c j and c j + (-v mod c) (FMLM3's twiddles, an inverse's final
    stage with its 2^-v; offsets 0, 1, 2, 0; 2 levels where the amount's bits take 3): every
    such shift A^e 2^k, both signs, on random a."""
    ring, rng = Ring(K, Fraction(c)), random.Random(K + c)
    offset = -v % c
    pm = PowerMul(K, step=c, offset=offset, deep=deep)
    ops, want = [], []
    for e in range(2 * K // c):
        for k in (0, -v):
            for a in values(ring, rng, 3):
                ops.append({"a": a, "ctrl": power_control(K, c, e, k, step=c, offset=offset)})
                want.append((ring.mul_pow2(ring.mul_A_pow(a, e), k),))
    assert run_pipeline(pm, {"a": pm.a, "ctrl": pm.ctrl}, [pm.o], ops) == want


@pytest.mark.parametrize("K, deep", [(4, False), (8, False), (8, True)])
def test_power_mul_every_value_and_control(K, deep):
    """Every a in [0, M) (2^K included) under every control word of the sqrt(2) path: e in
    [0, 4K) gives each shift in [0, 2K) for both an even and an odd power (deep: each
    subtraction's chains in two stages, 5 in all)."""
    ring = Ring(K, Fraction(1, 2))
    pm = PowerMul(K, sqrt2=True, deep=deep)
    assert pm.depth == (5 if deep else 3)
    controls = {power_control(K, ring.c, e, 0, True): e for e in range(4 * K)}
    assert len(controls) == 4 * K
    ops = [{"a": a, "ctrl": ctrl} for ctrl in controls for a in range(ring.M)]
    want = [(ring.mul_A_pow(op["a"], controls[op["ctrl"]]),) for op in ops]
    assert run_pipeline(pm, {"a": pm.a, "ctrl": pm.ctrl}, [pm.o], ops) == want


def test_odd_sqrt2_power_needs_the_supplemental_path():
    with pytest.raises(ValueError):
        power_control(16, Fraction(1, 2), 3)


def test_power_mul_netlist_grows_linearly():
    """The rotator's steps are signals: Amaranth lowers an expression once per use, so with
    nested step expressions PowerMul(128) had 1,213 cells a bit of K (K = 288 took over 20 GB
    to generate); now about 23."""
    for K in (32, 128):
        pm = PowerMul(K, sqrt2=True)
        cells = rtlil.convert(pm, ports=[pm.a, pm.ctrl, pm.o]).count("\n  cell ")
        assert cells < 30 * K, (K, cells)


@pytest.mark.parametrize("K, c", [(32, Fraction(1)), (16, Fraction(1, 2))])
def test_shift_butterfly(K, c):
    """o0, o1 = u +- v A^e mod M against Ring.add/sub/mul_A_pow."""
    ring, rng = Ring(K, c), random.Random(7 + K)
    bf = ShiftButterfly(K, c.denominator == 2)
    ops, want = [], []
    us = values(ring, rng, 200)
    for u, v in zip(us, reversed(us), strict=True):
        e = rng.randrange(-2 * K, 2 * K)
        t = ring.mul_A_pow(v, e)
        ops.append({"u": u, "v": v, "ctrl": power_control(K, c, e, 0, bf.sqrt2)})
        want.append((ring.add(u, t), ring.sub(u, t)))
    got = run_pipeline(bf, {"u": bf.u, "v": bf.v, "ctrl": bf.ctrl}, [bf.o0, bf.o1], ops)
    assert got == want


@pytest.mark.parametrize("K, c, scale_sqrt2, deep", [(32, Fraction(1), False, False), (16, Fraction(1, 2), True, False),
                                                      (16, Fraction(1, 2), False, False),
                                                      (16, Fraction(1, 2), False, True)])
def test_scaled_shift_butterfly(K, c, scale_sqrt2, deep):
    """The final-stage form: o0 = s u + v A^e, o1 = f (s u - v A^e), s = A^d 2^-3 from the
    `scale` word, f = 2^(-K/2) when `fixed` is high (the twiddle and the scaler of unequal
    depths with sqrt(2) in one only; deep: PowerMuls of 5 and 3 stages)."""
    ring, rng = Ring(K, c), random.Random(11 + K)
    bf = ShiftButterfly(K, c.denominator == 2, scale_sqrt2=scale_sqrt2, fixed_shift=-(K // 2), deep=deep)
    ops, want = [], []
    us = values(ring, rng, 200)
    for u, v in zip(us, reversed(us), strict=True):
        e, d, fixed = rng.randrange(-2 * K, 2 * K), rng.randrange(-2 * K, 2 * K), rng.randrange(2)
        if c.denominator == 2 and not scale_sqrt2:
            d -= d % 2                                  # an even power: no sqrt(2) path needed
        su, t = ring.mul_pow2(ring.mul_A_pow(u, d), -3), ring.mul_A_pow(v, e)
        ops.append({"u": u, "v": v, "ctrl": power_control(K, c, e, 0, bf.sqrt2),
                    "scale": power_control(K, c, d, -3, scale_sqrt2), "fixed": fixed})
        want.append((ring.add(su, t), ring.mul_pow2(ring.sub(su, t), -(K // 2) if fixed else 0)))
    got = run_pipeline(bf, {"u": bf.u, "v": bf.v, "ctrl": bf.ctrl, "scale": bf.scale, "fixed": bf.fixed},
                       [bf.o0, bf.o1], ops)
    assert got == want


@pytest.mark.parametrize("K", [4, 8])
def test_fixed_shift_every_amount(K):
    """fixed_shift(a, k) = a 2^k for every constant k in [-K, 2K] and every a, and a when not
    enabled."""
    ring = Ring(K)
    a, enable = Signal(K + 1), Signal()
    shifts = range(-K, 2 * K + 1)
    outs = [Signal(K + 1, name=f"o{i}") for i in range(len(shifts))]
    m = Module()
    m.d.comb += [o.eq(fixed_shift(a, k, K, enable)) for o, k in zip(outs, shifts, strict=True)]

    async def bench(ctx):
        for x in range(ring.M):
            for en in (0, 1):
                ctx.set(a, x)
                ctx.set(enable, en)
                assert [ctx.get(o) for o in outs] == [ring.mul_pow2(x, k) if en else x for k in shifts], (x, en)

    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()


@pytest.mark.parametrize("K, dsp, deep", [
    (16, None, False), (64, DSP_PROFILES["dsp48e2"], False), (64, DSP_PROFILES["dsp48e1"], False),
    (64, DSP_PROFILES["ecp5"], False), (32, DSP_PROFILES["ecp5"], False), (128, DSP_PROFILES["dsp48e2"], False),
    (40, DSP_PROFILES["dsp48e1"], False),
    (64, DSP_PROFILES["ecp5"], True),           # two levels: the root by fast_sum, the addend in it
    (128, DSP_PROFILES["ecp5"], True),          # three: a stage more (depth 11 with the four below)
    (224, DSP_PROFILES["ecp5"], True)])         # four, the middles signed and magnitudes: two more
def test_mul_add(K, dsp, deep):
    """a*b + c mod M against Ring.mul/add, the corners (0, 1, M-1 = 2^K = -1: the 65th bit,
    2^K * 2^K = 1) included; run_pipeline checks the depth."""
    ring, rng = Ring(K), random.Random(K + 3)
    ma = MulAdd(K, dsp, deep=deep)
    # deep: the inputs registered twice, the split's top level a stage, a stage a level above
    # two, the root's carry-save terms and the fold's difference registered
    levels = karatsuba_levels(K, dsp)
    assert ma.depth == mul_add_depth(K, dsp, deep) == 6 + (deep and 3 + (levels >= 2) + max(0, levels - 2))
    xs = values(ring, rng, 200)
    ops, want = [], []
    for a in xs:
        for b in (a, rng.choice(xs)):
            c = rng.choice(xs)
            ops.append({"a": a, "b": b, "c": c})
            want.append((ring.add(ring.mul(a, b), c),))
    assert run_pipeline(ma, {"a": ma.a, "b": ma.b, "c": ma.c}, [ma.o], ops) == want
