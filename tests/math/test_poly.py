"""poly.py arithmetic against python-flint, parse/format and pack/unpack."""

import pytest
from hypothesis import given, strategies as st

from modforge.math import poly as P

from ._ref import fl, to_t

PRIMES = [2, 3, 5, 7, 251]


@st.composite
def poly_p(draw, max_len=40, nonzero=False, p=None):
    if p is None:
        p = draw(st.sampled_from(PRIMES))
    cs = draw(st.lists(st.integers(0, p - 1), min_size=1 if nonzero else 0, max_size=max_len))
    a = P.trim(cs)
    if nonzero and not a:
        a = (draw(st.integers(1, p - 1)),)
    return a, p


@st.composite
def two_polys(draw, max_len=40):
    p = draw(st.sampled_from(PRIMES))
    a, _ = draw(poly_p(max_len=max_len, p=p))
    b, _ = draw(poly_p(max_len=max_len, nonzero=True, p=p))
    return a, b, p


@given(two_polys(max_len=70))
def test_mul_add_sub_match_flint(abp):
    a, b, p = abp
    assert P.mul(a, b, p) == to_t(fl(a, p) * fl(b, p))
    assert P.add(a, b, p) == to_t(fl(a, p) + fl(b, p))
    assert P.sub(a, b, p) == to_t(fl(a, p) - fl(b, p))
    assert P.neg(a, p) == to_t(-fl(a, p))
    assert P.add(P.neg(a, p), a, p) == ()


@given(two_polys())
def test_divmod_matches_flint(abp):
    a, b, p = abp
    q, r = P.divmod_poly(a, b, p)
    fq, fr = divmod(fl(a, p), fl(b, p))
    assert (q, r) == (to_t(fq), to_t(fr))
    assert P.degree(r) < P.degree(b)
    assert P.add(P.mul(q, b, p), r, p) == a
    assert P.mod(a, b, p) == r


@given(two_polys(), st.data())
def test_mulmod_powmod_gcd(abp, data):
    a, f, p = abp
    b, _ = data.draw(poly_p(p=p))
    if P.degree(f) < 1:
        return
    assert P.mulmod(a, b, f, p) == to_t((fl(a, p) * fl(b, p)) % fl(f, p))
    e = data.draw(st.integers(0, 300))
    assert P.powmod(a, e, f, p) == to_t(fl(a, p).pow_mod(e, fl(f, p)))
    g = P.gcd(a, f, p)
    assert g == to_t(fl(a, p).gcd(fl(f, p)))
    assert g[-1] == 1


@given(two_polys())
def test_inverse_mod(afp):
    a, f, p = afp
    if P.degree(f) < 1:
        return
    if P.gcd(a, f, p) == (1,):
        u = P.inverse_mod(a, f, p)
        assert P.degree(u) < P.degree(f)
        assert P.mulmod(u, a, f, p) == (1,)
    else:
        with pytest.raises(ValueError):
            P.inverse_mod(a, f, p)


def test_small_helpers():
    assert P.trim((1, 0, 2, 0, 0)) == (1, 0, 2)
    assert P.trim([0, 0]) == ()
    assert P.degree(()) == -1 and P.degree((5,)) == 0 and P.degree((0, 1)) == 1
    assert P.scale((1, 2), 2, 3) == (2, 1)
    assert P.scale((1, 2), 3, 3) == ()
    assert P.shift((1, 1), 3) == (0, 0, 0, 1, 1)
    assert P.shift((), 3) == ()
    with pytest.raises(ZeroDivisionError):
        P.divmod_poly((1, 1), (), 2)
    assert [q for q in range(30) if P.is_prime_small(q)] == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]


@pytest.mark.parametrize("text,p,expected", [
    ("x^163+x^7+x^6+x^3+1", 2, {163: 1, 7: 1, 6: 1, 3: 1, 0: 1}),
    ("x^97+x^16-1", 3, {97: 1, 16: 1, 0: 2}),
    ("x^11+2x^8+1", 3, {11: 1, 8: 2, 0: 1}),
    ("x^11 + 2*x^8 + 1", 3, {11: 1, 8: 2, 0: 1}),
    ("2x^8", 3, {8: 2}),
    ("2*x^8", 3, {8: 2}),
    ("x", 5, {1: 1}),
    ("t^9+t^5+1", 2, {9: 1, 5: 1, 0: 1}),
    (" x ^ 3 - x ", 5, {3: 1, 1: 4}),
    ("-1", 7, {0: 6}),
    ("x^2+x^2", 2, {}),
    ("x^2+x^2", 3, {2: 2}),
    ("0", 2, {}),
])
def test_parse_examples(text, p, expected):
    a = P.parse_poly(text, p)
    want = [0] * (max(expected, default=-1) + 1)
    for e, c in expected.items():
        want[e] = c
    assert a == tuple(want)


@pytest.mark.parametrize("bad", ["", "   ", "x^", "x++1", "y^2", "x t", "*x", "x^2 x", "2^x",
                                 "x^1.5", "x+t", "x^3+", "3 4"])
def test_parse_errors(bad):
    with pytest.raises(ValueError, match="parse_poly"):
        P.parse_poly(bad, 3)


def test_format_examples():
    assert P.format_poly(P.parse_poly("x^163+x^7+x^6+x^3+1", 2), 2) == "x^163+x^7+x^6+x^3+1"
    assert P.format_poly(P.parse_poly("x^11+2x^8+1", 3), 3) == "x^11+2*x^8+1"
    assert P.format_poly(P.parse_poly("x^97+x^16-1", 3), 3) == "x^97+x^16+2"
    assert P.format_poly((0, 1), 2) == "x"
    assert P.format_poly((), 2) == "0"


@given(poly_p(max_len=60))
def test_parse_format_round_trip(ap):
    a, p = ap
    s = P.format_poly(a, p)
    assert P.parse_poly(s, p) == a
    assert P.parse_poly(s.replace("x", "t"), p) == a


def test_pack_encoding():
    assert P.coeff_bits(2) == 1 and P.coeff_bits(3) == 2 and P.coeff_bits(5) == 3
    assert P.coeff_bits(7) == 3 and P.coeff_bits(251) == 8
    assert P.pack((1, 0, 1, 1), 2, 4) == 0b1101
    # GF(3): coefficient i in bits [2i+1:2i], 2 encoded 0b10
    assert P.pack((2, 1, 0, 2), 3, 4) == 0b10_00_01_10
    assert P.unpack(0b10_00_01_10, 3, 4) == (2, 1, 0, 2)
    with pytest.raises(ValueError):
        P.unpack(0b11, 3, 1)  # 3 is not a GF(3) digit
    with pytest.raises(ValueError):
        P.pack((1, 1, 1), 2, 2)  # does not fit
    with pytest.raises(ValueError):
        P.unpack(1 << 4, 3, 2)


@given(poly_p(max_len=50), st.integers(0, 10))
def test_pack_unpack_round_trip(ap, extra):
    a, p = ap
    m = len(a) + extra
    x = P.pack(a, p, m)
    assert 0 <= x < 1 << (P.coeff_bits(p) * max(m, 1))
    assert P.unpack(x, p, m) == a
    w = P.coeff_bits(p)
    for i, c in enumerate(a):
        assert (x >> (w * i)) & ((1 << w) - 1) == c
