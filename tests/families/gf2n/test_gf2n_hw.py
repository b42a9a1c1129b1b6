"""gf2n hardware against the models with amaranth.sim (random input stalls and output
back-pressure, exact latency), and Verilog export at a paper size."""

import random

import pytest
from amaranth.hdl import Value
from amaranth.sim import Simulator

from modforge.registry import lookup
from modforge.verilog import to_verilog

NAMES = ["gf2n-blakely", "gf2n-montgomery", "gf2n-bmm", "gf2n-fiko", "gf2n-rffiko"]


def simulate(alg, params, vectors, seed=0, stalls=True):
    """Drive the core with `vectors`; return [(a, b, result, cycles)] where cycles counts
    from the handshake cycle (0) to the first cycle with o.valid."""
    core = alg.build(params)
    n = params.n
    rng = random.Random(seed)
    out = []

    async def bench(ctx):
        for a, b in vectors:
            if stalls:                                  # random input stall
                for _ in range(rng.choice([0, 0, 1, 2])):
                    await ctx.tick()
            ctx.set(Value.cast(core.i.payload), a | (b << n))
            ctx.set(core.i.valid, 1)
            while not ctx.get(core.i.ready):
                await ctx.tick()
            await ctx.tick()                            # the handshake cycle ends
            ctx.set(core.i.valid, 0)
            ctx.set(Value.cast(core.i.payload), rng.getrandbits(2 * n))   # garbage after load
            cycles = 1
            while not ctx.get(core.o.valid):
                assert not ctx.get(core.i.ready)        # busy: no new operands
                await ctx.tick()
                cycles += 1
            result = ctx.get(Value.cast(core.o.payload))
            if stalls:                                  # back-pressure: result must hold
                for _ in range(rng.choice([0, 1, 3])):
                    await ctx.tick()
                    assert ctx.get(core.o.valid) and ctx.get(Value.cast(core.o.payload)) == result
            ctx.set(core.o.ready, 1)
            await ctx.tick()
            ctx.set(core.o.ready, 0)
            out.append((a, b, result, cycles))

    sim = Simulator(core)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return core, out


def check(alg, params, vectors, **kw):
    core, out = simulate(alg, params, vectors, **kw)
    assert core.steps == alg.cycles(params)
    assert core.latency == core.steps + 1
    assert len(out) == len(vectors)
    for a, b, got, cycles in out:
        assert got == alg.model(params, a, b), (hex(a), hex(b))
        assert cycles == core.steps + 1


SMALL = [
    ("gf2n-blakely", {"n": "9", "poly": "rft"}),
    ("gf2n-blakely", {"n": "8", "poly": "x^8+x^7+x^2"}),          # f_0 = 0, a ring
    ("gf2n-montgomery", {"n": "9", "poly": "rft"}),
    ("gf2n-montgomery", {"n": "12", "poly": "type1"}),
    ("gf2n-bmm", {"n": "9", "poly": "rft"}),
    ("gf2n-bmm", {"n": "12", "poly": "x^12+x^11+x^5+x^2+1"}),
    ("gf2n-fiko", {"n": "9", "poly": "rft"}),
    ("gf2n-fiko", {"n": "13", "poly": "x^13+x^12+x^10+x^9+x^4+x+1"}),   # general F
    ("gf2n-fiko", {"n": "12", "poly": "type2"}),
    ("gf2n-rffiko", {"n": "9"}),
    ("gf2n-rffiko", {"n": "15"}),
    ("gf2n-blakely", {"n": "9", "poly": "rft", "serial": "select"}),
    ("gf2n-montgomery", {"n": "12", "poly": "type1", "serial": "select"}),
    ("gf2n-bmm", {"n": "12", "poly": "x^12+x^11+x^5+x^2+1", "serial": "select"}),
    ("gf2n-fiko", {"n": "13", "poly": "x^13+x^12+x^10+x^9+x^4+x+1", "serial": "select"}),
    ("gf2n-rffiko", {"n": "15", "serial": "select"}),
]


@pytest.mark.parametrize("name,cfg", SMALL, ids=[f"{n}-{c['n']}" + "-select" * ("serial" in c) for n, c in SMALL])
def test_hw_matches_model(name, cfg):
    alg = lookup(name)
    params = alg.parse(cfg)
    rng = random.Random(11)
    vectors = alg.cases(params) + [alg.random_operands(params, rng) for _ in range(300)]
    check(alg, params, vectors)


@pytest.mark.parametrize("serial", ["shift", "select"])
@pytest.mark.parametrize("name", NAMES)
def test_hw_tiny_degrees(name, serial):
    alg = lookup(name)
    for n in ((3, 5) if name == "gf2n-rffiko" else (2, 3, 4)):
        params = alg.parse({"n": str(n), "poly": "rft" if name == "gf2n-rffiko" else "auto", "serial": serial})
        vectors = [(a, b) for a in range(1 << n) for b in range(1 << n)]
        check(alg, params, vectors, stalls=False)


@pytest.mark.parametrize("name", NAMES)
def test_hw_paper_size(name):
    alg = lookup(name)
    params = alg.parse({"n": "163", "poly": "rft" if name == "gf2n-rffiko" else "nist"})
    rng = random.Random(12)
    vectors = alg.cases(params)[:6] + [alg.random_operands(params, rng) for _ in range(6)]
    check(alg, params, vectors, stalls=False)


@pytest.mark.parametrize("name", NAMES)
def test_verilog_export_163(name):
    alg = lookup(name)
    params = alg.parse({"n": "163", "poly": "rft" if name == "gf2n-rffiko" else "nist"})
    core = alg.build(params)
    mod = alg.module_name(params)
    text = to_verilog(core, mod)
    assert f"module {mod}" in text
    assert text == to_verilog(alg.build(params), mod)
