"""irreducible.py against python-flint, plus the reducible trinomials of the reduction-free paper
(docs/corrections.md#reducible-trinomials)."""

import math

import pytest
from hypothesis import given, settings, strategies as st

from modforge.math import gf2 as G, irreducible as I, poly as P

from ._ref import ref_factor_degrees, ref_is_irreducible

# the reduction-free paper's degrees (ECDSA exponents and Mersenne exponents)
PAPER_DEGREES = [107, 127, 163, 233, 283, 409, 521, 571, 607, 1279, 2203, 2281, 3217]
SMALL = [n for n in PAPER_DEGREES if n < 1279]
LARGE = [n for n in PAPER_DEGREES if n >= 1279]


def tri2(n, k):
    return G.to_tuple((1 << n) | (1 << k) | 1)


def paper_forms(n):
    """RFT, type 1, type 2 trinomials of degree n."""
    return {"rft": tri2(n, math.ceil(n / 2)), "type1": tri2(n, n // 2), "type2": tri2(n, 1)}


@st.composite
def random_poly(draw):
    p = draw(st.sampled_from([2, 3, 5]))
    n = draw(st.integers(1, 60))
    cs = draw(st.lists(st.integers(0, p - 1), min_size=n, max_size=n))
    lead = draw(st.integers(1, p - 1))
    return tuple(cs) + (lead,), p


@st.composite
def poly_with_repeats(draw):
    """Product of random small factors, with repetition (exercises square-free step)."""
    p = draw(st.sampled_from([2, 3, 5]))
    f = (1,)
    for _ in range(draw(st.integers(1, 5))):
        d = draw(st.integers(1, 8))
        g = tuple(draw(st.lists(st.integers(0, p - 1), min_size=d, max_size=d))) + (1,)
        for _ in range(draw(st.integers(1, p + 1))):
            f = P.mul(f, g, p)
    return f, p


@settings(max_examples=150, deadline=None)
@given(random_poly())
def test_random_against_flint(fp):
    f, p = fp
    assert I.is_irreducible(f, p) == ref_is_irreducible(f, p)
    degs = I.factor_degrees(f, p)
    assert degs == ref_factor_degrees(f, p)
    assert sum(degs) == P.degree(f)


@settings(max_examples=80, deadline=None)
@given(poly_with_repeats())
def test_repeated_factors_against_flint(fp):
    f, p = fp
    assert I.factor_degrees(f, p) == ref_factor_degrees(f, p)
    assert I.is_irreducible(f, p) == ref_is_irreducible(f, p)


def test_small_cases():
    assert not I.is_irreducible((), 2) and not I.is_irreducible((1,), 3)
    assert I.is_irreducible((0, 1), 2) and I.is_irreducible((2, 2), 3)
    assert not I.is_irreducible((0, 0, 1), 2)           # x^2
    assert not I.is_irreducible((1, 0, 1), 2)           # (x+1)^2
    assert I.is_irreducible((1, 1, 1), 2)
    assert I.is_irreducible((1, 0, 1), 3)               # x^2+1 over GF(3)
    assert not I.is_irreducible((1, 0, 1), 5)           # 2^2 = -1 mod 5
    assert I.factor_degrees((0, 0, 0, 1), 3) == [1, 1, 1]
    assert I.factor_degrees((1,), 2) == []
    assert I.factor_degrees(0b1011, 2) == [3]           # int form for p = 2
    assert I.is_irreducible("x^4+x+1", 2) and not I.is_irreducible("x^4+x^2+1", 2)
    assert I.factor_degrees("x^4+x^2+1", 2) == [2, 2]
    assert I.factor_degrees("2*x^3+2", 3) == [1, 1, 1]  # 2(x+1)^3
    with pytest.raises(ValueError):
        I.factor_degrees((), 2)
    with pytest.raises(ValueError):
        I.is_irreducible((1, 1), 4)


@pytest.mark.parametrize("n", SMALL)
def test_errata_paper_trinomials(n):
    """Of the paper's degrees only n = 127 makes all three forms irreducible."""
    for name, f in paper_forms(n).items():
        assert I.is_irreducible(f, 2) == (n == 127), (n, name)
        assert ref_is_irreducible(f, 2) == (n == 127), (n, name)


@pytest.mark.slow
@pytest.mark.parametrize("n", LARGE)
def test_errata_paper_trinomials_large(n):
    for name, f in paper_forms(n).items():
        assert I.is_irreducible(f, 2) is False, (n, name)
        assert ref_is_irreducible(f, 2) is False, (n, name)
        degs = I.factor_degrees(f, 2)
        assert sum(degs) == n and len(degs) > 1
        assert degs == ref_factor_degrees(f, 2), (n, name)


@pytest.mark.parametrize("n", [107, 163, 233])
def test_paper_trinomial_factor_degrees(n):
    for f in paper_forms(n).values():
        assert I.factor_degrees(f, 2) == ref_factor_degrees(f, 2)


def test_structure_messages():
    s = I.structure("x^107+x^54+1", 2)
    assert s["irreducible"] is False and s["kind"] == "ring"
    assert s["factor_degrees"] == [4, 7, 14, 82]
    assert s["message"] == ("x^107+x^54+1 is reducible over GF(2) (factor degrees 4, 7, 14, 82): "
                            "Z_2[x]/(f) is a ring, not a field")
    s = I.structure("x^127+x^64+1", 2)
    assert s["irreducible"] is True and s["kind"] == "field" and s["factor_degrees"] == [127]
    assert "is a field" in s["message"]
    s = I.structure("x^97+x^16-1", 3)
    assert s["kind"] == "field" and s["message"].startswith("x^97+x^16+2 is irreducible over GF(3)")
    with pytest.raises(ValueError):
        I.structure((1,), 2)


def test_large_irreducible_known():
    # x^3217 + x^67 + 1 is a known primitive trinomial (Mersenne exponent)
    assert I.is_irreducible(tri2(3217, 67), 2)
    assert I.is_irreducible(tri2(2281, 715), 2)
    assert not I.is_irreducible(tri2(3217, 66), 2)


def test_trinomial_search_small_degrees():
    for n in range(2, 40):
        got = [f for f in I.trinomials(2, n)]
        want = [tri2(n, k) for k in range(1, n) if ref_is_irreducible(tri2(n, k), 2)]
        assert got == want, n
    # Swan: no irreducible trinomial of degree 8 over GF(2)
    assert list(I.trinomials(2, 8)) == []
    for n in (2, 3, 5, 7):
        for f in I.trinomials(3, n):
            assert ref_is_irreducible(f, 3) and sum(1 for c in f if c) == 3


def test_pentanomial_order_and_nist():
    # lexicographically smallest (k3, k2, k1) reproduces the NIST pentanomials
    assert next(I.pentanomials(163)) == P.parse_poly("x^163+x^7+x^6+x^3+1", 2)
    assert next(I.pentanomials(283)) == P.parse_poly("x^283+x^12+x^7+x^5+1", 2)
    first = list(I.pentanomials(8))
    assert first[0] == P.parse_poly("x^8+x^4+x^3+x+1", 2)  # the AES polynomial
    keys = [tuple(k for k in range(7, 0, -1) if f[k]) for f in first]
    assert keys == sorted(keys)
    assert all(ref_is_irreducible(f, 2) for f in first)


def test_lowest_weight():
    assert I.lowest_weight_irreducible(2, 127) == tri2(127, 1)
    assert I.lowest_weight_irreducible(2, 233) == tri2(233, 74)      # NIST B-233
    assert I.lowest_weight_irreducible(2, 409) == tri2(409, 87)      # NIST B-409
    assert I.lowest_weight_irreducible(2, 8) == P.parse_poly("x^8+x^4+x^3+x+1", 2)
    assert I.lowest_weight_irreducible(2, 8, "pentanomial") == P.parse_poly("x^8+x^4+x^3+x+1", 2)
    with pytest.raises(ValueError):
        I.lowest_weight_irreducible(2, 8, "trinomial")
    f = I.lowest_weight_irreducible(3, 97)
    assert ref_is_irreducible(f, 3) and P.degree(f) == 97
    for p in (3, 5, 7):
        for n in range(2, 12):
            f = I.lowest_weight_irreducible(p, n)
            assert P.degree(f) == n and f[-1] == 1 and ref_is_irreducible(f, p)
    with pytest.raises(ValueError):
        I.lowest_weight_irreducible(2, 5, "heptanomial")
