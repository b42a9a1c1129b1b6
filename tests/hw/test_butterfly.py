"""hw.butterfly: one lane around a real modmul datapath, random CT and GS operations every
cycle against the formulas (mul = the reduction's bit-exact model): a constant q
(Montgomery), and a q that changes with every operation (k2red with a run-time modulus)."""

import dataclasses
import random

import pytest
from amaranth.hdl import ClockDomain, Module
from amaranth.sim import Simulator

from modforge.families.ntt.model import half, pack_fields
from modforge.hw.butterfly import Butterfly
from modforge.registry import lookup


def expected(mul, q, gs, u, v, s):
    if gs:
        return half((u + v) % q, q), mul((u - v) % q, s)
    p = mul(v, s)
    return (u + p) % q, (u - p) % q


def drive(bf, ops, check):
    """ops: (q, rt, gs, u, v, s) per cycle; check(k, o0, o1) for op k, depth cycles later.
    Returns the number of results checked."""
    checked = []

    async def bench(ctx):
        for t in range(len(ops) + bf.depth):
            if t < len(ops):
                q, rt, gs, u, v, s = ops[t]
                for sig, val in ((bf.gs, gs), (bf.u, u), (bf.v, v), (bf.s, s)):
                    if sig is not None:
                        ctx.set(sig, val)
                if not isinstance(bf.q, int):
                    ctx.set(bf.q, q)
                    ctx.set(bf.rt, rt)
            await ctx.tick()
            if 0 <= t + 1 - bf.depth < len(ops):
                check(t + 1 - bf.depth, ctx.get(bf.o0), ctx.get(bf.o1))
                checked.append(t)

    sim = Simulator(bf)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return len(checked)


def corners(q):
    return [0, 1, q - 1, q - 2]


def test_constant_q_montgomery():
    alg = lookup("modmul-montgomery")
    p = alg.parse({"q": "0x80014001", "dsp": "none"})
    q, w = p.q, alg.result_width(p)
    mul = alg.datapath(p)
    bf = Butterfly(q, w, mul)
    assert bf.depth == mul.depth + 2
    rng = random.Random(3)
    ops = [(q, 0, rng.randrange(2), rng.choice(corners(q)) if k % 5 == 0 else rng.randrange(q),
            rng.randrange(q), rng.randrange(q)) for k in range(150)]
    bad = []
    def mul(x, s):
        return alg.model(p, x, s)

    def check(k, o0, o1):
        q_, _, gs, u, v, s = ops[k]
        if (o0, o1) != expected(mul, q_, gs, u, v, s):
            bad.append((k, ops[k], o0, o1))

    assert drive(bf, ops, check) == len(ops)
    assert not bad, bad[:3]


@pytest.mark.parametrize("kind", ["ct", "gs"])
def test_one_kind(kind):
    """A lane built for one kind (a forward or an inverse transform's) has no gs port and
    gives that kind's results for every operation."""
    alg = lookup("modmul-montgomery")
    p = alg.parse({"q": "0x80014001", "dsp": "none"})
    q, w = p.q, alg.result_width(p)
    bf = Butterfly(q, w, alg.datapath(p), kinds=(kind,))
    assert bf.gs is None and bf.kinds == (kind,)
    rng = random.Random(7)
    ops = [(q, 0, kind == "gs", rng.choice(corners(q)) if k % 5 == 0 else rng.randrange(q),
            rng.randrange(q), rng.randrange(q)) for k in range(100)]
    bad = []

    def check(k, o0, o1):
        _, _, gs, u, v, s = ops[k]
        if (o0, o1) != expected(lambda x, y: alg.model(p, x, y), q, gs, u, v, s):
            bad.append((k, ops[k], o0, o1))

    assert drive(bf, ops, check) == len(ops)
    assert not bad, bad[:3]
    with pytest.raises(ValueError, match="kinds"):
        Butterfly(q, w, alg.datapath(p), kinds=("dit",))


def test_per_op_q_k2red():
    alg = lookup("modmul-k2red")
    rp = alg.parse({"q": "0x80130001", "qh_input": "1", "dsp": "none"})   # run-time modulus
    mul = alg.datapath(rp)
    primes = [0x80130001, 0x80140001]
    mp = alg.parse({"q": "0x80130001", "dsp": "none"})                    # log q_h = 16 for both
    mps = [alg.validate(dataclasses.replace(mp, q=qj)) for qj in primes]
    rts = [pack_fields(mul.runtime, alg.runtime_of(alg.validate(dataclasses.replace(rp, q=qj)), qj))
           for qj in primes]
    bf = Butterfly(primes[0], alg.result_width(rp), mul, 0, "per-op")
    rng = random.Random(5)
    ops = []
    for _k in range(150):
        j = rng.randrange(2)
        qj = primes[j]
        ops.append((j, rts[j], rng.randrange(2), rng.randrange(qj), rng.randrange(qj), rng.randrange(qj)))
    bad = []

    def check(k, o0, o1):
        j, _, gs, u, v, s = ops[k]
        def mul(x, y):
            return alg.model(mps[j], x, y)
        if (o0, o1) != expected(mul, primes[j], gs, u, v, s):
            bad.append((k, ops[k], o0, o1))

    assert drive(bf, [(primes[j], *rest) for j, *rest in ops], check) == len(ops)
    assert not bad, bad[:3]


@pytest.mark.parametrize("reset", [False, True])
def test_registers_take_rst_only_with_reset(reset):
    """The butterfly's registers hold data only: rst leaves them (the tools may build SRLs)
    unless reset (the cores' reset=all), which clears every one, the output too."""
    alg = lookup("modmul-montgomery")
    p = alg.parse({"q": "0x80014001", "dsp": "none"})
    bf = Butterfly(p.q, alg.result_width(p), alg.datapath(p), reset=reset)
    top = Module()
    top.domains.sync = sync = ClockDomain()
    top.submodules.bf = bf
    seen = {}

    async def bench(ctx):
        for sig, val in ((bf.gs, 0), (bf.u, 5), (bf.v, 7), (bf.s, 1)):
            ctx.set(sig, val)
        for _ in range(bf.depth):
            await ctx.tick()
        seen["before"] = ctx.get(bf.o0)
        ctx.set(sync.rst, 1)
        await ctx.tick()
        seen["after"] = ctx.get(bf.o0)

    sim = Simulator(top)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert seen["before"] != 0
    assert (seen["after"] == 0) == reset
