"""hw.modarith: add, subtract, reduce once and halve mod q, against Python's %, with q a
constant and a run-time Value (exhaustive for a small q, random for a 32-bit one)."""

import random

from amaranth.hdl import Module, Signal
from amaranth.sim import Simulator

from modforge.hw.modarith import add_mod, half_mod, reduce_once, reduce_once_split, reduce_signed, sub_mod


def circuit(w, q=None):
    """add, sub (a, b < q), reduce_once (a + b < 2q) and half (a) as outputs; q: a constant,
    or None for an input signal."""
    m = Module()
    a, b = Signal(w), Signal(w)
    qs = q if q is not None else Signal(w)
    outs = [Signal(w) for _ in range(4)]
    m.d.comb += [outs[0].eq(add_mod(a, b, qs, w)), outs[1].eq(sub_mod(a, b, qs, w)),
                 outs[2].eq(reduce_once(a + b, qs, w)), outs[3].eq(half_mod(a, qs, w))]
    return m, a, b, qs, outs


def expected(a, b, q):
    return [(a + b) % q, (a - b) % q, (a + b) % q, a * pow(2, -1, q) % q]


def run(w, cases, q=None):
    m, a, b, qs, outs = circuit(w, q)
    bad = []

    async def bench(ctx):
        for qv, x, y in cases:
            ctx.set(a, x)
            ctx.set(b, y)
            if q is None:
                ctx.set(qs, qv)
            got = [ctx.get(o) for o in outs]
            if got != expected(x, y, qv):
                bad.append((qv, x, y, got))

    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()
    assert not bad, bad[:5]


def test_small_constant_q_exhaustive():
    for q in (13, 41, 11):
        w = q.bit_length()
        run(w, [(q, x, y) for x in range(q) for y in range(q)], q)


def test_constant_and_runtime_q_random():
    rng = random.Random(1)
    q = 0x80014001
    cases = [(q, rng.randrange(q), rng.randrange(q)) for _ in range(300)]
    cases += [(q, q - 1, q - 1), (q, 0, q - 1), (q, q - 1, 0), (q, 0, 0)]
    run(32, cases, q)
    primes = [0x80014001, 0x80130001, 0xfff00001, 0x9fc00001]
    runtime = [(p, rng.randrange(p), rng.randrange(p)) for p in primes for _ in range(100)]
    runtime += [(p, x, y) for p in primes for x, y in ((p - 1, p - 1), (0, 0), (p - 1, 1), (1 << 14, p - (1 << 14)))]
    run(32, runtime)


def signed_cases(q, xs, constant=True):
    """reduce_signed(x, q) for x in [-q, 2q), against x % q; q a constant or an input."""
    w = q.bit_length()
    m = Module()
    x, qs, out = Signal(range(-q, 2 * q)), Signal(w), Signal(w)
    m.d.comb += out.eq(reduce_signed(x, q if constant else qs, w))
    bad = []

    async def bench(ctx):
        ctx.set(qs, q)
        for v in xs:
            ctx.set(x, v)
            if ctx.get(out) != v % q:
                bad.append((v, ctx.get(out)))

    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()
    assert not bad, (q, bad[:5])


def test_reduce_signed():
    for q in (13, 41, 11):
        signed_cases(q, range(-q, 2 * q))
    rng = random.Random(2)
    q = 0x9fc00001
    xs = [rng.randrange(-q, 2 * q) for _ in range(300)] + [-q, -1, 0, q - 1, q, 2 * q - 1, (1 << 22) - 1, -(1 << 22)]
    signed_cases(q, xs)
    signed_cases(q, xs, constant=False)


def split_errors(k, qh_value):
    """reduce_once_split for q = q_h 2^k + 1 over every x in [0, 2q), q_h a constant and a Value."""
    q, xw = (qh_value << k) + 1, ((qh_value << k) * 2 + 2).bit_length()
    m = Module()
    x, qh, low_zero = Signal(xw), Signal(qh_value.bit_length()), Signal()
    outs = [Signal(xw), Signal(xw)]
    m.d.comb += [outs[0].eq(reduce_once_split(x, qh_value, k, low_zero)),
                 outs[1].eq(reduce_once_split(x, qh, k, low_zero))]
    bad = []

    async def bench(ctx):
        for v in range(2 * q):
            ctx.set(x, v)
            ctx.set(qh, qh_value)
            ctx.set(low_zero, v % (1 << k) == 0)
            got = [ctx.get(o) for o in outs]
            if got != [v % q] * 2:
                bad.append((q, v, got))

    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()
    return bad


def test_reduce_once_split():
    for k, qh_value in ((3, 5), (4, 1), (2, 7), (1, 3), (5, 6)):
        assert not split_errors(k, qh_value)


def test_wrong_formula_is_caught():
    """The check can fail: a - b without the correction is wrong for a < b."""
    m, a, b, qs, outs = circuit(4, 13)
    got = []

    async def bench(ctx):
        ctx.set(a, 2)
        ctx.set(b, 5)
        got.append(ctx.get(outs[1]))

    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()
    assert got == [(2 - 5) % 13] and got[0] != (2 - 5) % 16
