"""hw.gfp: the bit-sliced GF(p) vector arithmetic against modforge.math.poly in
amaranth.sim, p = 2, 3, 5: add, sum, scale, mul_coef, reduce, through the packed ports."""

import random

import pytest
from amaranth.hdl import Module, Signal
from amaranth.sim import Simulator

from modforge.hw.gfp import GF
from modforge.math import poly

M = 5          # degree of f: reduce takes 2m-1 coefficients (a product) down to m


def random_poly(rng, p, n):
    return poly.trim(tuple(rng.randrange(p) for _ in range(n)))


def monic(rng, p, m):
    """A monic f of degree m with f_0 != 0 (reduction needs no irreducibility)."""
    return (rng.randrange(1, p),) + tuple(rng.randrange(p) for _ in range(m - 1)) + (1,)


def build(p, f):
    """The circuit under test: u, v (m coefficients), c (one coefficient), a high-degree w;
    outputs u+v, sum(u, v, u), k*u for every constant k, c*v, and w mod f, all packed."""
    gf = GF(p)
    m = Module()
    gf.bind(m)
    w = gf.w
    ins = {"u": Signal(M * w), "v": Signal(M * w), "c": Signal(w), "big": Signal((2 * M - 1) * w)}
    u, v = gf.from_packed(ins["u"], M), gf.from_packed(ins["v"], M)
    big = gf.from_packed(ins["big"], 2 * M - 1)
    coef = [ins["c"][k] for k in range(w)]
    exprs = {
        "add": gf.add(u, v),
        "sum": gf.sum([u, v, u]),
        "mul_coef": gf.mul_coef(coef, v),
        "reduce": gf.reduce(big, f),
        **{f"scale{k}": gf.scale(u, k) for k in range(p)},
    }
    outs = {}
    for name, vec in exprs.items():
        outs[name] = (Signal(vec.n * w, name=name), vec.n)
        m.d.comb += outs[name][0].eq(gf.to_packed(vec))
    return m, ins, outs


def expected(p, f, u, v, c, big):
    return {
        "add": poly.add(u, v, p),
        "sum": poly.add(poly.add(u, v, p), u, p),
        "mul_coef": poly.scale(v, c, p),
        "reduce": poly.mod(big, f, p),
        **{f"scale{k}": poly.scale(u, k, p) for k in range(p)},
    }


@pytest.mark.parametrize("p", [2, 3, 5])
def test_gf_ops_match_poly(p):
    rng = random.Random(p)
    for _ in range(2):                       # two moduli per p
        f = monic(rng, p, M)
        m, ins, outs = build(p, f)

        async def bench(ctx, f=f, ins=ins, outs=outs):  # bound now: runs within this iteration
            for trial in range(60):
                top = (p - 1,) * M                # all coefficients p-1 first: the carries
                u = top if trial == 0 else random_poly(rng, p, M)
                v = top if trial == 0 else random_poly(rng, p, M)
                big = (p - 1,) * (2 * M - 1) if trial == 0 else random_poly(rng, p, 2 * M - 1)
                c = rng.randrange(p)
                for name, value, n in (("u", u, M), ("v", v, M), ("big", big, 2 * M - 1)):
                    ctx.set(ins[name], poly.pack(value, p, n))
                ctx.set(ins["c"], c)
                for name, want in expected(p, f, u, v, c, big).items():
                    sig, n = outs[name]
                    assert poly.unpack(ctx.get(sig), p, n) == want, (name, f, u, v, c, big)

        sim = Simulator(m)
        sim.add_testbench(bench)
        sim.run()


@pytest.mark.parametrize("p", [2, 3, 5])
def test_reduce_rows_is_a_single_level(p):
    """The rows of eq. (2) sum to w mod f for every high part, and row 0 is w's low part."""
    rng = random.Random(10 + p)
    f = monic(rng, p, M)
    gf = GF(p)
    for extra in range(1, M + 2):
        n = M + extra
        m = Module()
        gf.bind(m)
        w_in = Signal(n * gf.w)
        rows = gf.reduce_rows(gf.from_packed(w_in, n), f)
        assert all(r.n == M for r in rows)
        outs = [Signal(M * gf.w, name=f"row{k}") for k in range(len(rows))]
        m.d.comb += [o.eq(gf.to_packed(r)) for o, r in zip(outs, rows, strict=True)]

        async def bench(ctx, n=n, w_in=w_in, outs=outs):  # bound now: runs within this iteration
            for _ in range(20):
                w = random_poly(rng, p, n)
                ctx.set(w_in, poly.pack(w, p, n))
                got = [poly.unpack(ctx.get(o), p, M) for o in outs]
                total = ()
                for r in got:
                    total = poly.add(total, r, p)
                assert total == poly.mod(w, f, p)
                assert got[0] == poly.trim(w[:M])

        sim = Simulator(m)
        sim.add_testbench(bench)
        sim.run()
