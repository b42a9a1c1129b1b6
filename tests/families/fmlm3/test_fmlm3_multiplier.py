"""rsa-fmlm3's hardware-facing model (families/fmlm3/model.py) and plan (plan.py): the cfg words load
N's spectra and digits, the frames carry digits, and the passes' selections give
math.fmlm3.montgomery_multiply and x y R^-1 mod N by pow, for every feasible small set."""

import random

import pytest

from modforge.families.fmlm3 import model
from modforge.families.fmlm3.plan import MultiplierPlan
from modforge.math import fmlm3

SMALL = [(32, 8), (32, 16), (64, 32), (96, 32), (128, 16)]


def _moduli(params, rng, count):
    R = (1 << params.l_max) - 1
    out = [R - 2, 3, (1 << (params.operand_bits - 1)) + 1]
    while len(out) < count + 3:
        out.append(rng.randrange(3, min(R, 1 << params.operand_bits)) | 1)
    return [N for N in out if N < R and fmlm3.math.gcd(N, R) == 1]


def _check(plan, N, pairs):
    ctx = fmlm3.montgomery(plan.params, N)
    loaded = model.load_cfg(plan, model.cfg_words(plan, N))
    assert (loaded.N, loaded.T_N_prime, loaded.Tn_N) == (N, ctx.T_N_prime, ctx.Tn_N)
    R_inv = pow(ctx.R, -1, N)
    for x, y in pairs:
        t = model.multiply(plan, loaded, x, y)
        assert t == fmlm3.montgomery_multiply(ctx, x, y) == x * y * R_inv % N, (plan, N, x, y)


@pytest.mark.parametrize("bfs", [1, 2])
@pytest.mark.parametrize("bits, P", SMALL)
def test_against_pow(bits, P, bfs):
    rng = random.Random(bits * P + bfs)
    for params in fmlm3.parameter_sets(bits, P):
        plan = MultiplierPlan(params, bfs)
        for N in _moduli(params, rng, 4):
            corners = [(0, 0), (1, 1), (N - 1, N - 1), (0, N - 1), (N - 1, 1), (1, N - 2)]
            _check(plan, N, corners + [(rng.randrange(N), rng.randrange(N)) for _ in range(12)])


@pytest.mark.parametrize("bits, P, bfs", [(1024, 64, 2), pytest.param(2048, 128, 2, marks=pytest.mark.slow)])
def test_table6_sizes(bits, P, bfs):
    rng = random.Random(bits)
    for params in fmlm3.parameter_sets(bits, P):
        plan = MultiplierPlan(params, bfs)
        N = next(N for N in iter(lambda: rng.randrange(1 << (bits - 1), 1 << bits) | 1, 0)
                 if fmlm3.math.gcd(N, (1 << params.l_max) - 1) == 1)
        _check(plan, N, [(N - 1, N - 1)] + [(rng.randrange(N), rng.randrange(N)) for _ in range(2)])


def test_frames_and_cfg_layout():
    plan = MultiplierPlan(fmlm3.check_set(32, 16, 2, fmlm3.Fraction(1), 3), 2)
    assert (plan.lanes, plan.H, plan.K) == (4, 4, 16)
    x = 0x89ABCDEF
    beats = model.frame(plan, x)
    assert beats[0] == 0b11_10_11_11 and model.from_frame(plan, beats) == x   # digits 3, 3, 2, 3 of 0xF, 0xE
    words = model.cfg_words(plan, 0x8000_000B)
    assert len(words) == 3 * plan.H and plan.cfg_width == 4 * 17 + 2 + 2
    assert [w >> (4 * 17 + 2) for w in words] == [1] * 4 + [2] * 4 + [3] * 4
    assert [(w >> (4 * 17)) & 3 for w in words] == [0, 1, 2, 3] * 3


def test_selections_matter(monkeypatch):
    """A pass that ignores its selection (t without - N, the wrong parity) gives a wrong t
    for some operands."""
    params = fmlm3.check_set(64, 32, 2, fmlm3.HALF, 3)
    rng = random.Random(5)
    N = rng.randrange(1 << 63, 1 << 64) | 1
    ctx, plan = fmlm3.montgomery(params, N), MultiplierPlan(params, 1)
    loaded = model.load_cfg(plan, model.cfg_words(plan, N))
    pairs = [(rng.randrange(N), rng.randrange(N)) for _ in range(60)]
    good = [model.multiply(plan, loaded, x, y) for x, y in pairs]
    assert good == [fmlm3.montgomery_multiply(ctx, x, y) for x, y in pairs]
    pass_t = model.pass_t

    def no_minus_n(plan, D, j0, parity, N):
        Q = (1 << plan.width) + 1
        j = j0 + (2 * parity - D - j0) % 4
        return (D + j * Q) >> 1

    def wrong_parity(plan, D, j0, parity, N):
        return pass_t(plan, D, j0, parity ^ 1, N) if D % 5 else pass_t(plan, D, j0, parity, N)

    for broken in (no_minus_n, wrong_parity):
        monkeypatch.setattr(model, "pass_t", broken)
        got = []
        for x, y in pairs:
            try:
                got.append(model.multiply(plan, loaded, x, y))
            except AssertionError:
                got.append(None)
        assert got != good


def test_schedule():
    """Alg 3 runs 7 transforms (CT x2, NCT x3, CT^-1, NCT^-1), Alg 2 nine; the latency is
    the steps' sum."""
    for algorithm, count in ((3, 7), (2, 9)):
        params = next(s for s in fmlm3.parameter_sets(2048, 128) if s.algorithm == algorithm)
        plan = MultiplierPlan(params, 2)
        assert len(plan.transforms) == count and sum(plan.paper_kinds().values()) == count
        assert plan.latency == sum(plan.schedule().values())
        assert plan.cycles == plan.latency + plan.H - 1
    assert MultiplierPlan(next(s for s in fmlm3.parameter_sets(2048, 128) if s.algorithm == 3), 2).paper_kinds() == \
        {"CT": 2, "NCT": 3, "CT^-1": 1, "NCT^-1": 1}
