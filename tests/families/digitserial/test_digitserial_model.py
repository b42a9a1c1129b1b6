"""The bit-exact models against python-flint, the eq. (2) operand counts against the
paper's examples and docs/corrections.md, and the printed-wrong Alg 5."""

import random

import pytest
from hypothesis import given, settings, strategies as st

from modforge.families.digitserial import model as M
from modforge.math import poly
from modforge.registry import lookup

from ._ref import flint_irreducible, random_irreducible, ref_mulmod

NIST = {
    163: "x^163+x^7+x^6+x^3+1", 233: "x^233+x^74+1", 283: "x^283+x^12+x^7+x^5+1",
    409: "x^409+x^87+1", 571: "x^571+x^10+x^5+x^2+1",
}
GF3_97 = poly.parse_poly("x^97+x^16-1", 3)


def run_all(p, f, a, b, D, R):
    """Every model at digit size D and R (R clipped to the rules of each figure)."""
    out = {
        "alg1": M.mse_horner(p, f, a, b),
        "alg2": M.mse_shu(p, f, a, b, D),
        "alg3": M.mse_digit(p, f, a, b, D),
        "fig1d": M.mse_pipelined(p, f, a, b, D, R),
        "alg4": M.lse_basic(p, f, a, b),
        "alg5": M.lse_digit(p, f, a, b, D),
        "fig2d": M.lse_pipelined(p, f, a, b, D, R),
    }
    if D >= 2:
        out["fig2c"] = M.lse_nam(p, f, a, b, D, max(2, R))
    return out


def rand_elem(rng, p, m):
    return poly.trim(rng.randrange(p) for _ in range(m))


@settings(max_examples=150, deadline=None)
@given(p=st.sampled_from([2, 3, 5]), m=st.integers(2, 9), fseed=st.integers(0, 2**32),
       seed=st.integers(0, 2**32), data=st.data())
def test_models_match_flint_random_fields(p, m, fseed, seed, data):
    f = random_irreducible(p, m, fseed)
    D = data.draw(st.integers(1, m), label="D")
    R = data.draw(st.integers(1, D), label="R")
    rng = random.Random(seed)
    for _ in range(4):
        a, b = rand_elem(rng, p, m), rand_elem(rng, p, m)
        want = ref_mulmod(a, b, f, p)
        for name, got in run_all(p, f, a, b, D, R).items():
            assert got == want, (name, p, f, D, R, a, b)


@pytest.mark.parametrize("p,m", [(2, 7), (2, 11), (3, 5), (3, 11), (5, 4), (7, 3)])
def test_models_every_D_and_R(p, m):
    """All D in 1..m and all R in 1..D for small fields (and corner operands)."""
    f = random_irreducible(p, m, 1000 * p + m)
    rng = random.Random(m)
    top = (p - 1,) * m
    for D in range(1, m + 1):
        for R in range(1, D + 1):
            pairs = [(top, top), (poly.shift((1,), m - 1), top), (f[:m], f[:m])]
            pairs += [(rand_elem(rng, p, m), rand_elem(rng, p, m)) for _ in range(3)]
            for a, b in pairs:
                a, b = poly.trim(a), poly.trim(b)
                want = ref_mulmod(a, b, f, p)
                for name, got in run_all(p, f, a, b, D, R).items():
                    assert got == want, (name, p, m, D, R)


@pytest.mark.parametrize("m,D,R", [(163, 1, 1), (163, 16, 4), (163, 32, 4), (163, 163, 8),
                                   (233, 32, 4), (283, 32, 4), (409, 32, 4), (571, 24, 3)])
def test_models_nist_fields(m, D, R):
    f = poly.parse_poly(NIST[m], 2)
    rng = random.Random(m * D)
    for _ in range(3):
        a, b = rand_elem(rng, 2, m), rand_elem(rng, 2, m)
        want = ref_mulmod(a, b, f, 2)
        for name, got in run_all(2, f, a, b, D, R).items():
            assert got == want, (name, m, D, R)


@pytest.mark.parametrize("D,R", [(1, 1), (5, 2), (8, 2), (16, 4), (97, 5)])
def test_models_gf3_97(D, R):
    rng = random.Random(D)
    for _ in range(3):
        a, b = rand_elem(rng, 3, 97), rand_elem(rng, 3, 97)
        want = ref_mulmod(a, b, GF3_97, 3)
        for name, got in run_all(3, GF3_97, a, b, D, R).items():
            assert got == want, (name, D, R)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), D=st.integers(1, 40))
def test_models_gf2_163_hypothesis(seed, D):
    f = poly.parse_poly(NIST[163], 2)
    rng = random.Random(seed)
    a, b = rand_elem(rng, 2, 163), rand_elem(rng, 2, 163)
    want = ref_mulmod(a, b, f, 2)
    assert M.mse_digit(2, f, a, b, D) == want
    assert M.lse_digit(2, f, a, b, D) == want
    assert M.mse_shu(2, f, a, b, D) == want


def test_printed_alg5_is_wrong():
    """Alg 5 as printed (loop read as ceil(m/D) iterations, s mod x^m taken without the
    extra reducing iteration) returns wrong results; the corrected ceil(m/D)+1 is right.
    The printed form only fails when the last digit holds >= 2 coefficients of a, i.e.
    m mod D not in {0 -> D >= 2 counts, 1}: with m = 1 (mod D) the last t(x) has degree
    < m and s is already reduced (163 at D = 2, 3; 97 at D = 2, 3, 4, 8, 16, 32)."""
    for p, f in [(2, poly.parse_poly(NIST[163], 2)), (3, GF3_97), (3, poly.parse_poly("x^11+2x^8+1", 3))]:
        m = len(f) - 1
        rng = random.Random(p)
        for D in (2, 3, 5, 7, 8, 16):
            wrong = 0
            for _ in range(20):
                a, b = rand_elem(rng, p, m), rand_elem(rng, p, m)
                want = ref_mulmod(a, b, f, p)
                assert M.lse_digit(p, f, a, b, D) == want
                n = M.n_digits(m, D)
                assert M.lse_digit(p, f, a, b, D, iterations=n + 1) == want
                if M.lse_digit(p, f, a, b, D, iterations=n) != want:
                    wrong += 1
            if m % D == 1:
                assert wrong == 0, (p, m, D)
            else:
                assert wrong > 0, (p, m, D)


def test_alg5_accumulator_degree_is_m_plus_d_minus_2():
    """Alg 5's s(x) = (s mod f) + t(x) has degree at most m+D-2 (t: D partial products of
    degree m-1, shifted by at most D-1), not the m+D+2 the text prints: m+D-1 coefficients
    (docs/corrections.md#survey-alg5)."""
    f = poly.parse_poly(NIST[163], 2)
    m, rng = len(f) - 1, random.Random(9)
    for D in (2, 5, 16):
        widest = 0
        for _ in range(10):
            trace = []
            M.lse_digit(2, f, rand_elem(rng, 2, m), rand_elem(rng, 2, m), D, trace)
            widest = max(widest, *(len(poly.trim(step["s"])) for step in trace))
        assert widest == m + D - 1


def test_model_steps_equal_cycles():
    """Each model takes exactly cycles(params) steps (its trace has one entry per step)."""
    runs = {
        "gfpm-mse-horner": lambda p, f, a, b, D, R, t: M.mse_horner(p, f, a, b, t),
        "gfpm-mse-shu": lambda p, f, a, b, D, R, t: M.mse_shu(p, f, a, b, D, t),
        "gfpm-mse-digit": lambda p, f, a, b, D, R, t: M.mse_digit(p, f, a, b, D, t),
        "gfpm-mse-pipelined": lambda p, f, a, b, D, R, t: M.mse_pipelined(p, f, a, b, D, R, t),
        "gfpm-lse-basic": lambda p, f, a, b, D, R, t: M.lse_basic(p, f, a, b, t),
        "gfpm-lse-digit": lambda p, f, a, b, D, R, t: M.lse_digit(p, f, a, b, D, t),
        "gfpm-lse-nam": lambda p, f, a, b, D, R, t: M.lse_nam(p, f, a, b, D, R, t),
        "gfpm-lse-pipelined": lambda p, f, a, b, D, R, t: M.lse_pipelined(p, f, a, b, D, R, t),
    }
    for name, run in runs.items():
        alg = lookup(name)
        for m, D, R in [(13, 2, 2), (13, 4, 3), (13, 13, 2), (12, 3, 2)]:
            cfg = {"p": "2", "m": str(m), "poly": "auto", "D": str(D), "R": str(R)}
            fields = [x[0] for x in alg.param_help()]
            params = alg.parse({k: v for k, v in cfg.items() if k in fields})
            f = alg.derived(params).f
            trace = []
            run(2, f, (1, 1), (0, 1), D, R, trace)
            assert len(trace) == alg.cycles(params), (name, m, D, R)


# --------------------------------------------------------------- eq. (2) operand counts

def test_reduction_paper_examples():
    f1 = poly.parse_poly("x^11+2x^8+1", 3)
    assert M.reduction_operands(f1, 3, 3) == 2          # a single addition
    assert M.reduction_cost(f1, 3, 3)["alpha"] == 1
    f2 = poly.parse_poly("x^11+x^10+x^8+2x^7+x+1", 3)
    assert M.reduction_operands(f2, 3, 3) == 4          # D+1 operands
    assert M.reduction_cost(f2, 3, 3)["per_coefficient"][10] == 4  # the degree-(m-1) coefficient
    # the paper's table of x^11, x^12, x^13 mod f2
    assert poly.xpow_table(f2, 3, 3) == [
        poly.parse_poly("2x^10+2x^8+x^7+2x+2", 3),
        poly.parse_poly("x^10+2x^9+2x^8+2x^7+2x^2+1", 3),
        poly.parse_poly("x^10+2x^9+x^8+x^7+2x^3+2", 3),
    ]
    assert poly.xpow_table(f1, 3, 3) == [poly.parse_poly(e, 3) for e in ("x^8+2", "x^9+2x", "x^10+2x^2")]


def test_reduction_errata_nist_d32():
    ops = {m: M.reduction_operands(poly.parse_poly(e, 2), 2, 32) for m, e in NIST.items()}
    assert ops[233] == 2 and ops[409] == 2            # trinomials: a single addition
    assert ops[283] == 5                              # not one addition (corrections.md#survey-283)
    assert ops[163] == 5 and ops[571] == 5


def test_reduction_operands_range_and_hw_rows():
    """2 <= operands <= D+1 for m >= 2D-ish sparse moduli, and the hardware builds exactly
    that many rows for eq. (2)."""
    from amaranth.hdl import Signal

    from modforge.hw.gfp import GF, Vec
    for p, m, seed in [(2, 13, 1), (3, 11, 2), (5, 7, 3)]:
        f = random_irreducible(p, m, seed)
        gf = GF(p)
        for D in range(1, m + 1):
            ops = M.reduction_operands(f, p, D)
            assert 2 <= ops <= D + 1
            v = Vec([Signal(m + D) for _ in range(gf.w)], m + D)
            assert len(gf.reduce_rows(v, f)) == ops


def test_random_irreducible_helper():
    assert flint_irreducible(poly.parse_poly(NIST[163], 2), 2)
    assert not flint_irreducible(poly.parse_poly("x^4+1", 3), 3)


def test_reduction_operands_nist_table():
    """Operands of eq. (2) for the five NIST fields at the paper's D = 4, 8, ..., 32."""
    table = {
        163: [3, 5, 5, 5, 5, 5, 5, 5],
        233: [2, 2, 2, 2, 2, 2, 2, 2],
        283: [3, 4, 4, 5, 5, 5, 5, 5],
        409: [2, 2, 2, 2, 2, 2, 2, 2],
        571: [3, 4, 5, 5, 5, 5, 5, 5],
    }
    for m, want in table.items():
        f = poly.parse_poly(NIST[m], 2)
        assert [M.reduction_operands(f, 2, D) for D in range(4, 33, 4)] == want, m
