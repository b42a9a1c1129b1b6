"""gf2.py (int form) against poly.py with p = 2 and python-flint."""

import pytest
from hypothesis import given, strategies as st

from modforge.math import gf2 as G, poly as P

from ._ref import fl, to_t

ints = st.integers(0, (1 << 700) - 1)
small_ints = st.integers(0, (1 << 80) - 1)
sparse_mod = st.builds(
    lambda n, ks: (1 << n) | 1 | sum(1 << (k % n) for k in ks),
    st.integers(2, 600), st.lists(st.integers(1, 599), max_size=4))


@given(st.one_of(ints, small_ints), st.one_of(ints, small_ints))
def test_clmul_matches(a, b):
    ta, tb = G.to_tuple(a), G.to_tuple(b)
    assert G.to_tuple(G.clmul(a, b)) == to_t(fl(ta, 2) * fl(tb, 2))
    assert G.clmul(a, b) == G.clmul(b, a)
    assert G.sqr(a) == G.clmul(a, a)


@given(ints, st.one_of(st.integers(1, (1 << 300) - 1), sparse_mod))
def test_mod_mulmod_inverse(a, f):
    ta, tf = G.to_tuple(a), G.to_tuple(f)
    assert G.to_tuple(G.mod(a, f)) == P.mod(ta, tf, 2)
    q, r = G.divmod2(a, f)
    assert G.clmul(q, f) ^ r == a and G.deg(r) < G.deg(f)
    b = (a * 0x9E3779B97F4A7C15) & ((1 << 650) - 1)
    assert G.to_tuple(G.mulmod(a, b, f)) == to_t((fl(ta, 2) * fl(G.to_tuple(b), 2)) % fl(tf, 2))
    assert G.to_tuple(G.sqrmod(a, f)) == P.mulmod(ta, ta, tf, 2)
    assert G.to_tuple(G.gcd(a, f)) == P.gcd(ta, tf, 2)
    if G.deg(f) >= 1:
        if G.gcd(a, f) == 1:
            u = G.inverse_mod(a, f)
            assert G.deg(u) < G.deg(f) and G.mulmod(u, a, f) == 1
        else:
            with pytest.raises(ValueError):
                G.inverse_mod(a, f)


@given(small_ints, st.integers(0, 1000), st.integers(2, (1 << 90) - 1))
def test_powmod(a, e, f):
    assert G.to_tuple(G.powmod(a, e, f)) == P.powmod(G.to_tuple(a), e, G.to_tuple(f), 2)


@given(ints)
def test_tuple_round_trip(a):
    t = G.to_tuple(a)
    assert G.from_tuple(t) == a
    assert P.pack(t, 2, max(len(t), 1)) == a
    assert G.deg(a) == P.degree(t)


def test_basics():
    assert G.deg(0) == -1 and G.deg(1) == 0 and G.deg(0b1011) == 3
    assert G.to_tuple(0) == () and G.from_tuple(()) == 0
    assert G.clmul(0b11, 0b11) == 0b101
    with pytest.raises(ZeroDivisionError):
        G.mod(5, 0)
