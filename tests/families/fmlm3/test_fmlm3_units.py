"""rsa-fmlm3's time-domain pieces (families/fmlm3/units.py) in amaranth.sim against the
multiplier model: Restrict against math.fmlm3.restrict, ModRPass against pass_m."""

import random

import pytest
from amaranth.sim import Simulator

from modforge.families.fmlm3 import model
from modforge.families.fmlm3.plan import MultiplierPlan
from modforge.families.fmlm3.units import ModRPass, Restrict
from modforge.math import fmlm3


def run(dut, steps, outputs):
    """steps: per cycle [(signal, value)]; the outputs' values after each edge."""
    got = []

    async def bench(ctx):
        for step in steps:
            for sig, value in step:
                ctx.set(sig, value)
            await ctx.tick()
            got.append(tuple(ctx.get(o) for o in outputs))

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return got


@pytest.mark.parametrize("apply", [1, 0])
@pytest.mark.parametrize("bits, P, lanes, deep", [(32, 16, 2, False), (64, 32, 4, False), (128, 16, 4, False),
                                                  (64, 32, 4, True)])
def test_restrict(bits, P, lanes, apply, deep):
    """eq. (12) with apply high; with it low the coefficients pass as they are (CT^-1's
    read-out); deep: a cycle later."""
    rng = random.Random(bits + lanes)
    for params in fmlm3.parameter_sets(bits, P):
        M, K, u = params.M, params.ring.K, params.u
        frames = [[M - 1] * P, [0] * P] + [[rng.randrange(M) for _ in range(P)] for _ in range(6)]
        # the values at and beside each bound
        frames.append([min(M - 1, 2 * (n + 1) * ((1 << u) - 1) ** 2 + (n % 3) - 1) for n in range(P)])
        dut = Restrict(P, u, K, lanes, deep)
        assert dut.depth == 2 + deep
        H, steps, beats = P // lanes, [], []
        for z in frames:
            for k in range(H):
                if rng.random() < 0.2:                      # a gap: nothing valid, junk on d
                    junk = [(d, rng.randrange(M)) for d in dut.d]
                    steps.append([(dut.valid, 0), (dut.last, rng.randrange(2))] + junk)
                beats.append(len(steps))
                steps.append([(dut.valid, 1), (dut.last, k == H - 1), (dut.apply, apply)]
                             + [(d, z[lanes * k + lane]) for lane, d in enumerate(dut.d)])
        steps += [[(dut.valid, 0)]] * (dut.depth - 1)
        out = run(dut, steps, dut.o)
        got = [value for t in beats for value in out[t + dut.depth - 1]]
        assert [got[i:i + P] for i in range(0, len(got), P)] == [
            fmlm3.restrict(z, P, u, M) if apply else z for z in frames]


@pytest.mark.parametrize("bits, P, bfs", [(32, 16, 1), (64, 32, 2), (128, 16, 2)])
def test_mod_r_pass(bits, P, bfs):
    rng = random.Random(bits * bfs)
    params = next(s for s in fmlm3.parameter_sets(bits, P) if s.algorithm == 3)
    plan = MultiplierPlan(params, bfs)
    w, segments, R = plan.lanes * params.u, plan.H, (1 << plan.width) - 1
    c_bits = 2 * params.u + 2 * params.v + 2                 # g < P^2 B^3 B^P: c < P^2 B^2 (Alg 3)
    cases = [(R, 0), (R - 1, 1), (R - 5, 5), (R, (1 << c_bits) - 1), (0, 0), (R - 1, 0)] + [
        (rng.randrange(R + 1), rng.randrange(1 << c_bits)) for _ in range(30)]
    dut = ModRPass(w, c_bits)
    mask = (1 << w) - 1
    steps = [[(dut.a, (A >> (w * k)) & mask), (dut.first, k == 0), (dut.c, c)] for A, c in cases
             for k in range(segments)]
    got = run(dut, steps, (dut.plain, dut.plus, dut.select))
    for j, (A, c) in enumerate(cases):
        chunk = got[j * segments:(j + 1) * segments]
        plain = sum(p << (w * k) for k, (p, _, _) in enumerate(chunk))
        plus = sum(p << (w * k) for k, (_, p, _) in enumerate(chunk))
        assert (plus if chunk[-1][2] else plain) == model.pass_m(plan, A, c) == (A + c) % R
