"""The polynomial-ring models: the fast-filter identities (recursive) and the flattened
structure the hardware builds, against the schoolbook negacyclic product and an independent
reference (python-flint's nmod_poly mod x^n + 1 where q is prime, plain integer arithmetic
otherwise)."""

import random

import pytest
from hypothesis import given, settings, strategies as st

from modforge.families.polyring import model as M

PARALLEL = (1, 2, 3, 4, 6, 8, 9, 12, 16)


def reference(a, b, q):
    """Full product as integers, then x^n = -1 by hand."""
    n = len(a)
    full = [0] * (2 * n)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            full[i + j] += x * y
    return [(full[k] - full[k + n]) % q for k in range(n)]


def test_schoolbook_against_flint():
    flint = pytest.importorskip("flint")
    rng, q, n = random.Random(3), 12289, 64
    a, b = [rng.randrange(q) for _ in range(n)], [rng.randrange(q) for _ in range(n)]
    mod = flint.nmod_poly([1] + [0] * (n - 1) + [1], q)
    c = (flint.nmod_poly(a, q) * flint.nmod_poly(b, q)) % mod
    assert M.negacyclic(a, b, q) == [int(x) for x in c.coeffs()] + [0] * (n - len(c.coeffs()))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(PARALLEL), st.integers(1, 3), st.integers(2, 16), st.integers(0, 7), st.randoms())
def test_fast_and_flat_equal_schoolbook(par, blocks, k, small, rng):
    n, q = par * 2 * blocks, 1 << k
    a = [rng.randrange(q) for _ in range(n)]
    b = [rng.randint(-small, small) for _ in range(n)] if small else [rng.randrange(q) for _ in range(n)]
    ref = reference(a, b, q)
    assert M.negacyclic(a, b, q) == ref
    assert M.fast(a, b, q, M.factors(par)) == ref
    assert M.flat(a, b, q, M.structure(par)) == ref


def test_structures():
    """K = 3^a 6^b products, w at most once per term, every product used, and the paper's
    counts of sub-multipliers: 3 for M = 2, 6 for M = 3, 9 for M = 4."""
    for par in PARALLEL:
        s = M.structure(par)
        twos, threes = M.factors(par).count(2), M.factors(par).count(3)
        assert s.K == 3 ** twos * 6 ** threes < par * par or par == 1
        assert all(e in (0, 1) for terms in s.post for _, _, e in terms)
        assert {k for terms in s.post for k, _, _ in terms} == set(range(s.K))
        assert len(s.post) == par and all(0 <= lane < par for pre in s.pre for lane in pre)
    assert [M.structure(m).K for m in (2, 3, 4)] == [3, 6, 9]
    with pytest.raises(ValueError):
        M.factors(10)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(PARALLEL), st.integers(1, 3), st.sampled_from([257, 3329, 12289, 8380417]),
       st.integers(0, 5), st.randoms())
def test_lazy_prime_q(par, blocks, q, small, rng):
    """A prime q: model.wide (exact phase sums, products, post-processing) is the integer
    negacyclic product; every lane value lies within model.lazy's bound, the offset makes it
    non-negative, and the registered model (the reduction's own) gives the product mod q."""
    from modforge.registry import lookup
    n = par * 2 * blocks
    s = M.structure(par)
    a = rng.choice([[rng.randrange(q) for _ in range(n)], [q - 1] * n])
    b = ([rng.choice([small, -small, rng.randint(-small, small)]) for _ in range(n)] if small
         else rng.choice([[rng.randrange(q) for _ in range(n)], [q - 1] * n]))
    c = M.wide(a, b, s)
    assert c == M.negacyclic_int(a, b)
    lz = M.lazy(s, n, q, small)
    assert lz.offset % q == 0 and all(abs(x) <= lz.bound for x in c) and lz.top < 1 << lz.out_bits
    if n >= 16 and n // par >= 2:
        alg = lookup("poly-fir" if par == 1 else "poly-fast")
        p = alg.parse({"n": str(n), "q": str(q), "small": str(small)} | ({"M": str(par)} if par > 1 else {}))
        assert alg.model(p, a, b) == M.negacyclic(a, b, q)


def test_lazy_bound_is_reached():
    """FIR (M = 1): c_(n-1) of all q - 1 times all q - 1 is n (q - 1)^2, the bound itself."""
    n, q = 32, 12289
    lz = M.lazy(M.structure(1), n, q)
    assert M.wide([q - 1] * n, [q - 1] * n, M.structure(1))[n - 1] == lz.bound == n * (q - 1) ** 2
