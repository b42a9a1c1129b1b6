"""math/fmlm3.py: Z_M shift-and-fold arithmetic, the constant-geometry transforms against a
plain O(P^2) DFT and against convolutions of Python ints, Algorithms 2 and 3 against
pow(R, -1, N), the spectral modular exponentiation against pow, parameter selection against
the paper's Tables 3, 4 and 6 (with the corrections of docs/corrections.md), and the cycle formulas against Table 5."""

import math
import random
from fractions import Fraction

import flint
import pytest
from hypothesis import given, settings, strategies as st

from modforge.errors import ParameterError
from modforge.math import fmlm3 as F

HALF = Fraction(1, 2)


# ------------------------------------------------------------------ Z_M


@pytest.mark.parametrize("K", [8, 16, 24, 64, 96])
def test_ring_ops_match_plain_modulo(K):
    ring, M = F.Ring(K), 2**K + 1
    rnd = random.Random(K)
    for _ in range(200):
        a, b, k = rnd.randrange(M), rnd.randrange(M), rnd.randrange(-5 * K, 5 * K)
        assert ring.mul_pow2(a, k) == a * pow(2, k, M) % M
        assert ring.add(a, b) == (a + b) % M and ring.sub(a, b) == (a - b) % M
        assert ring.mul(a, b) == a * b % M
        x = rnd.randrange(-(M**3), M**3)
        assert ring.fold(x) == x % M
    assert ring.mul_pow2(M - 1, 1) == M - 2  # -1 * 2 = -2: the value 2^K itself rotates


@pytest.mark.parametrize("P", [8, 16, 32, 64, 128, 256, 512])
def test_sqrt2_for_half(P):
    """c = 1/2: M = 2^(P/2)+1, sqrt(2) = 2^(3P/8) - 2^(P/8); eq. (14) read with M = 2^P+1 is not."""
    ring = F.Ring(P // 2, HALF)
    M = ring.M
    assert ring.sqrt2() == 2 ** (3 * P // 8) - 2 ** (P // 8)
    assert pow(ring.sqrt2(), 2, M) == 2
    assert ring.mul_sqrt2(ring.mul_sqrt2(12345)) == 2 * 12345 % M
    v = P.bit_length() - 1
    printed = 2 ** (2 ** (v - 3)) * (2 ** (2 ** (v - 2)) - 1)      # eq. (14) as printed, for 2^P + 1
    assert pow(printed % (2**P + 1), 2, 2**P + 1) != 2


def test_sqrt2_needs_P_8():
    with pytest.raises(ParameterError, match="P >= 8"):
        F.Ring(2, HALF).mul_sqrt2(1)


# ------------------------------------------------------------------ transforms


def ref_roots(P, c):
    """omega, A as plain integers mod M, from the paper's Table 4 forms."""
    M = 2 ** int(c * P) + 1
    if c == HALF:
        return M, 2, 2 ** (3 * P // 8) - 2 ** (P // 8)
    return M, 2 ** (2 * int(c)), 2 ** int(c)


def ref_dft(x, P, c, weighted, inverse=False):
    """Eq. (5) term by term with pow: forward sum x_k A^k omega^(-kn); inverse (A^n P)^-1 sum X_k omega^(kn)."""
    M, w, A = ref_roots(P, c)
    a = A if weighted else 1
    if not inverse:
        return [sum(x[k] * pow(a, k, M) * pow(w, -k * n, M) for k in range(P)) % M for n in range(P)]
    return [pow(pow(a, n, M) * P, -1, M) * sum(x[k] * pow(w, k * n, M) for k in range(P)) % M for n in range(P)]


RINGS = [(8, Fraction(2)), (16, Fraction(1)), (16, HALF), (32, Fraction(3)), (32, HALF), (64, HALF), (64, Fraction(1))]


@pytest.mark.parametrize("P, c", RINGS)
def test_transforms_match_dft(P, c):
    ring = F.Ring(int(c * P), c)
    rnd = random.Random(P)
    for _ in range(3):
        x = [rnd.randrange(ring.M) for _ in range(P)]
        assert F.ct(x, ring) == ref_dft(x, P, c, False)
        assert F.nct(x, ring) == ref_dft(x, P, c, True)
        assert F.ct_inv(x, ring) == ref_dft(x, P, c, False, inverse=True)
        assert F.nct_inv(x, ring) == ref_dft(x, P, c, True, inverse=True)
        assert F.ct_inv(F.ct(x, ring), ring) == x and F.nct_inv(F.nct(x, ring), ring) == x


def test_stages_need_bit_reversed_input():
    """Eqs. (7)-(9) on natural-order input are not the DFT (corrections.md#fmlm3-bit-reversed)."""
    P, c = 16, Fraction(1)
    ring = F.Ring(16, c)
    x = list(range(1, P + 1))
    y = x
    for j in range(4):
        y = F.cg_stage(y, ring, "CT", j)
    assert y != ref_dft(x, P, c, False)
    assert F.bit_reverse(list(range(8))) == [0, 4, 2, 6, 1, 5, 3, 7]


def cyclic(x, y):
    P = len(x)
    return [sum(x[i] * y[(n - i) % P] for i in range(P)) for n in range(P)]


def negacyclic(x, y):
    """Eq. (11) corrected: z_n = sum_{i<=n} x_i y_(n-i) - sum_{i>n} x_i y_(n+P-i)."""
    P = len(x)
    return [sum(x[i] * y[n - i] for i in range(n + 1)) - sum(x[i] * y[n + P - i] for i in range(n + 1, P))
            for n in range(P)]


def test_eq11_printed_index_is_not_the_negacyclic_convolution():
    """Eq. (11) prints y_(n+P-1) in its second sum: outside 0..P-1 for every n >= 1, and for
    n = 0 (y_(P-1) in every term) not z_0. The wrapped terms are x_i y_(n+P-i)
    (docs/corrections.md#fmlm3-step12-eq11)."""
    rnd, P = random.Random(11), 8
    x, y = [rnd.randrange(1, 50) for _ in range(P)], [rnd.randrange(1, 50) for _ in range(P)]
    full = [sum(x[i] * y[j] for i in range(P) for j in range(P) if i + j == n)
            - sum(x[i] * y[j] for i in range(P) for j in range(P) if i + j == n + P) for n in range(P)]
    assert negacyclic(x, y) == full
    assert all(n + P - 1 >= P for n in range(1, P))
    assert x[0] * y[0] - sum(x[i] * y[P - 1] for i in range(1, P)) != full[0]


@pytest.mark.parametrize("P, c", RINGS)
def test_convolutions_via_transforms(P, c):
    ring = F.Ring(int(c * P), c)
    rnd = random.Random(7 * P)
    bound = math.isqrt(ring.M // P)     # products small enough that the sums stay below M
    for _ in range(3):
        x = [rnd.randrange(bound) for _ in range(P)]
        y = [rnd.randrange(bound) for _ in range(P)]
        cc = F.ct_inv(F.pointwise(F.ct(x, ring), F.ct(y, ring), ring), ring)
        assert cc == cyclic(x, y)
        ncc = F.nct_inv(F.pointwise(F.nct(x, ring), F.nct(y, ring), ring), ring)
        assert ncc == [z % ring.M for z in negacyclic(x, y)]
        assert any(z < 0 for z in negacyclic(x, y))   # the case eq. (12) is for


# ------------------------------------------------------------------ Montgomery (Algorithms 2, 3)


def modulus(rnd, bits):
    """A random odd N of exactly l bits with gcd(N, 2^l - 1) = 1."""
    while True:
        N = rnd.randrange(2 ** (bits - 1), 2**bits - 1) | 1
        if N < 2**bits - 1 and math.gcd(N, 2**bits - 1) == 1:
            return N


SMALL_SETS = [s for bits in (64, 128, 256) for s in F.parameter_sets(bits) if 8 <= s.P <= 64]


def check_product(ctx, x, y):
    t = F.montgomery_multiply(ctx, x, y)
    assert t == x * y * pow(ctx.R, -1, ctx.N) % ctx.N
    assert 0 <= t < ctx.N


def moduli(bits):
    """Odd N of exactly `bits` bits, coprime to R = 2^bits - 1 (so N <= 2^bits - 3)."""
    odd = st.integers(2 ** (bits - 1), 2**bits - 3).map(lambda n: n | 1)
    return odd.filter(lambda n: math.gcd(n, 2**bits - 1) == 1)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(SMALL_SETS), st.data())
def test_montgomery_product_hypothesis(params, data):
    N = data.draw(moduli(params.operand_bits))
    ctx = F.montgomery(params, N)
    x = data.draw(st.one_of(st.integers(0, N - 1), st.sampled_from([0, 1, 2, N - 1, N - 2])))
    y = data.draw(st.one_of(st.integers(0, N - 1), st.integers(0, 3)))
    check_product(ctx, x, y)


@pytest.mark.parametrize("params", SMALL_SETS, ids=lambda p: f"l{p.operand_bits}-P{p.P}-alg{p.algorithm}")
def test_montgomery_product_extremes(params):
    """The largest N (2^l - 3; 2^l - 1 = R is refused), digits all B-1, and both branches
    of step 16 (t = s + Q' when V/R > Q') and of step 17."""
    bits = params.operand_bits
    smallest = next(n for n in range(2 ** (bits - 1) + 1, 2**bits, 2) if math.gcd(n, 2**bits - 1) == 1)
    for N in (2**bits - 3, smallest):
        ctx = F.montgomery(params, N)
        for x, y in ((N - 1, N - 1), (N - 2, N - 1), (0, N - 1), (1, 1), (2**bits - 2**(bits // 2) - 3, N - 1)):
            check_product(ctx, x, y)
    rnd, branches = random.Random(bits), set()
    for N in (2**bits - 3, smallest):
        ctx = F.montgomery(params, N)
        for _ in range(30):
            x, y = rnd.randrange(N // 2, N), rnd.randrange(N // 2, N)
            t = (x * y + (x * y * ctx.N_prime % ctx.R) * N) // ctx.R     # V/R before steps 16-17
            branches.add((t > ctx.Q, t >= N))
            check_product(ctx, x, y)
    assert {(True, True), (False, True), (False, False)} <= branches


@pytest.mark.parametrize("algorithm", [2, 3])
def test_product_that_is_zero_mod_n(algorithm):
    """An RSA modulus N = p*q and x*y = 0 mod N, xy != 0: V/R is exactly N, step 17 must give 0."""
    params = next(s for s in F.parameter_sets(64, 16) if s.algorithm == algorithm)
    p = next(n for n in range(2**31 + 1, 2**32, 2) if flint.fmpz(n).is_prime())
    q = next(n for n in range(2**32 - 1, 2**31, -2) if flint.fmpz(n).is_prime() and math.gcd(p * n, 2**64 - 1) == 1)
    ctx = F.montgomery(params, p * q)
    for x, y in ((p, q), (3 * p, 5 * q), (p * (q - 1), q)):
        assert F.montgomery_multiply(ctx, x, y) == 0


def test_second_modulus_is_r_plus_2():
    """Algorithm 4 step 3 prints Q' = B^P - 1, which is R: m makes V = xy + mN = 0 mod R, so
    V mod R carries nothing. Q' = B^P + 1 = R + 2 (coprime to the odd R) gives V/R mod Q'
    (docs/corrections.md#fmlm3-q-prime)."""
    params = next(s for s in F.parameter_sets(64, 8) if s.algorithm == 2)
    ctx = F.montgomery(params, 2**64 - 3)
    assert ctx.Q == ctx.R + 2 == 2**params.l_max + 1 and math.gcd(ctx.Q, ctx.R) == 1
    rnd = random.Random(12)
    for _ in range(20):
        x, y = rnd.randrange(ctx.N), rnd.randrange(ctx.N)
        V = x * y + (x * y * ctx.N_prime % ctx.R) * ctx.N
        assert V % ctx.R == 0                                      # what B^P - 1 would see
        assert V // ctx.R % ctx.Q == V * pow(ctx.R, -1, ctx.Q) % ctx.Q


def test_n_must_be_coprime_to_r():
    params = F.parameter_sets(64, 16)[0]
    for N in (2**64 - 1, 2**64 + 1, 10, 1, 3 * 5 * 17 * 257 * 641):
        with pytest.raises(ParameterError, match="argument 'N'"):
            F.montgomery(params, N)


@pytest.mark.parametrize("bits, P", [(1024, 64), (2048, 128)])
def test_montgomery_product_rsa_sizes(bits, P):
    rnd = random.Random(bits)
    for params in F.parameter_sets(bits, P):
        ctx = F.montgomery(params, modulus(rnd, bits))
        for _ in range(2):
            check_product(ctx, rnd.randrange(ctx.N), rnd.randrange(ctx.N))
        check_product(ctx, ctx.N - 1, ctx.N - 1)


def test_redundant_mod_r_and_restrict():
    u, P = 8, 16
    R = 2 ** (u * P) - 1
    rnd = random.Random(3)
    for _ in range(100):
        g = rnd.randrange(2 ** (u * P + u + 5))
        d = F.redundant_mod_r(g, u, P)
        assert all(0 <= a <= 2 * (2**u - 1) for a in d)
        assert F.from_digits(d, u) % R == g % R and F.from_digits(d, u) < 2 * R
        assert F.mod_r(g, u * P) == g % R
    M = 2**40 + 1
    top = [2 * (n + 1) * 255**2 for n in range(2)]           # eq. (12)'s upper bounds, n = 0, 1
    assert F.restrict([top[0] + 1, top[1]], 2, u, M) == [top[0] + 1 - M, top[1]]
    assert F.restrict([top[0], top[1] + 1], 2, u, M) == [top[0], top[1] + 1 - M]


def test_ceiling_of_eq20_matters():
    """Alg 3 with eq. (20)'s printed floor (c = 3 instead of 4 for l = 64, P = 8) is refused,
    and the model run with it anyway gives wrong products."""
    bits, P, u = 64, 8, 8
    assert F.smallest_c(2 * 3 + 3 * u, P) == 4
    with pytest.raises(ParameterError, match=r"eq\. \(19\)"):
        F.check_set(bits, P, u, Fraction(3), 3)
    ctx = F.montgomery(F.Fmlm3Params(bits, P, u, Fraction(3), 3), 2**bits - 3)
    x = y = ctx.N - 1
    assert F.montgomery_multiply(ctx, x, y) != x * y * pow(ctx.R, -1, ctx.N) % ctx.N


def test_eq13_bound_matters():
    """Alg 2 with a ring one size too small for eq. (13): refused, and wrong when forced."""
    bits, P, u = 64, 8, 8                        # eq. (15): c = ceil(20/8) = 3; c = 2 gives M = 2^16+1
    with pytest.raises(ParameterError, match=r"eq\. \(13\).*eq\. \(12\)"):
        F.check_set(bits, P, u, Fraction(2), 2)
    ctx = F.montgomery(F.Fmlm3Params(bits, P, u, Fraction(2), 2), 2**bits - 3)
    x = y = ctx.N - 1
    assert F.montgomery_multiply(ctx, x, y) != x * y * pow(ctx.R, -1, ctx.N) % ctx.N


# ------------------------------------------------------------------ exponentiation


@settings(max_examples=15, deadline=None)
@given(st.sampled_from([s for s in SMALL_SETS if s.operand_bits == 64]), st.data())
def test_modexp_hypothesis(params, data):
    ctx = F.montgomery(params, data.draw(moduli(params.operand_bits)))
    x, e = data.draw(st.integers(0, ctx.N - 1)), data.draw(st.integers(0, 2**64 - 1))
    assert F.modexp(ctx, x, e, bits=64) == pow(x, e, ctx.N)


def test_modexp_edges_and_constant_sequence(monkeypatch):
    params = F.parameter_sets(128, 16)[1]
    ctx = F.montgomery(params, modulus(random.Random(5), 128))
    N = ctx.N
    for x, e in ((0, 0), (0, 5), (1, 2**20 - 1), (N - 1, 2), (N - 1, 3), (2, 2**127 + 1), (12345, 1)):
        assert F.modexp(ctx, x, e) == pow(x, e, N)
    calls = []
    real = F.montgomery_product
    monkeypatch.setattr(F, "montgomery_product", lambda *a: calls.append(1) or real(*a))
    counts = []
    for e in (2**16, 2**17 - 1, 0b10110011_01010101_1):
        calls.clear()
        assert F.modexp(ctx, 7, e, bits=17) == pow(7, e, N)
        counts.append(len(calls))
    assert counts == [2 * 17 + 2] * 3
    with pytest.raises(ParameterError, match="argument 'e'"):
        F.modexp(ctx, 7, 2**17, bits=17)


def test_modexp_2048():
    params = next(s for s in F.parameter_sets(2048, 128) if s.selected)
    ctx = F.montgomery(params, modulus(random.Random(11), 2048))
    x, e = 0xC0FFEE ** 90 % ctx.N, 65537
    assert F.modexp(ctx, x, e) == pow(x, e, ctx.N)


# ------------------------------------------------------------------ parameter selection

TABLE4 = [  # l = 2048: u, P, c, M exponent, omega, A (Alg 2's c)
    (128, 16, 17, 272, "2^34", "2^17"), (64, 32, 5, 160, "2^10", "2^5"), (32, 64, 2, 128, "2^4", "2^2"),
    (16, 128, HALF, 64, "2", "2^48 - 2^16"), (8, 256, HALF, 128, "2", "2^96 - 2^32"),
    (4, 512, HALF, 256, "2", "2^192 - 2^64")]


@pytest.mark.parametrize("u, P, c, K, omega, A", TABLE4)
def test_table4_sets(u, P, c, K, omega, A):
    sets = {s.algorithm: s for s in F.parameter_sets(2048, P)}
    s = sets[2]
    assert (s.u, s.P, s.c, s.M, s.omega_text(), s.A_text()) == (u, P, c, 2**K + 1, omega, A)
    assert s.l_max == 2048 and s.rule.startswith("eq. (13)")
    assert pow(s.omega, P // 2, s.M) == s.M - 1 and pow(s.A, P, s.M) == s.M - 1
    # Sets 3-6 serve Alg 3 unchanged; Set 1 needs c = 25, M = 2^400+1 (ceiling of eq. 20), Set 2 c = 7
    assert sets[3].c == {16: 25, 32: 7}.get(P, c)


TABLE6 = [  # l, algorithm, M exponent, P, u ("3*" rows: Alg 3 with the same M as Alg 2)
    (1024, 3, 128, 32, 32), (1024, 2, 96, 32, 32), (1024, 3, 64, 64, 16),
    (2048, 3, 224, 32, 64), (2048, 2, 160, 32, 64), (2048, 3, 128, 64, 32), (2048, 3, 64, 128, 16),
    (3072, 2, 224, 32, 96), (3072, 2, 128, 64, 48), (3072, 2, 64, 128, 24),
    (4096, 2, 288, 32, 128), (4096, 2, 192, 64, 64), (4096, 3, 128, 128, 32), (7680, 2, 128, 128, 60)]


@pytest.mark.parametrize("bits, alg, K, P, u", TABLE6)
def test_table6_sets(bits, alg, K, P, u):
    found = [s for s in F.parameter_sets(bits) if (s.algorithm, s.P, s.u, s.M) == (alg, P, u, 2**K + 1)]
    assert len(found) == 1 and found[0].l_max == bits
    assert F.check_set(bits, P, u, found[0].c, alg) == found[0]


def test_starred_rows_are_algorithm_4s_choice():
    """Table 6's 3* rows: Alg 2's and Alg 3's c agree, so corrected Algorithm 4 picks Alg 3;
    l = 3072, P = 128 has c = 1/2 for Alg 2 but 1 for Alg 3: Alg 2 (the bare ceilings, both 1,
    would pick Alg 3 with c = 1/2, which fails eq. (19))."""
    for bits, P in ((1024, 64), (2048, 64), (2048, 128), (4096, 128)):
        assert [s.algorithm for s in F.parameter_sets(bits, P) if s.selected] == [3]
    assert [s.algorithm for s in F.parameter_sets(3072, 128) if s.selected] == [2]
    with pytest.raises(ParameterError, match=r"eq\. \(19\)"):
        F.check_set(3072, 128, 24, HALF, 3)


def test_algorithm4_stops_after_first_half():
    sel = [(s.P, s.algorithm) for s in F.parameter_sets(2048) if s.selected]
    assert sel == [(2, 2), (4, 2), (8, 2), (16, 2), (32, 2), (64, 3), (128, 3)]
    assert max(s.P for s in F.parameter_sets(2048)) == 2048


@pytest.mark.parametrize("bits", [64, 100, 1024, 3000])
def test_every_set_is_admitted(bits):
    for s in F.parameter_sets(bits):
        assert s.M > F.dynamic_range(s.P, s.u, s.algorithm) and s.u * s.P >= bits > (s.u - 1) * s.P
        need = s.v + 2 * s.u + 1 if s.algorithm == 2 else 2 * s.v + 3 * s.u   # eqs. (15), (20)
        assert s.c * s.P >= need and (s.c == HALF or (s.c - 1) * s.P < need and not 2 * need <= s.P)


TABLE3 = [(6, 1792, 64, 64, "4", "2", 28), (6, 3584, 64, 128, "2", "sqrt2", 28),
          (7, 7680, 128, 128, "4", "2", 60), (7, 15104, 128, 256, "2", "sqrt2", 59)]


@pytest.mark.parametrize("k, bits, K, P, w, A, u", TABLE3)
def test_table3_fermat(k, bits, K, P, w, A, u):
    s = next(s for s in F.fermat_sets(k) if s.P == P)
    assert (s.l_max, s.ring.K, s.u, s.omega) == (bits, K, u, int(w))
    assert s.A == (2 if A == "2" else s.ring.sqrt2())
    assert F.check_set(s.l_max, P, u, s.c, 2) is not None
    with pytest.raises(ParameterError, match=r"eq\. \(13\)"):
        F.check_set(s.l_max + P, P, u + 1, s.c, 2)


@pytest.mark.parametrize("kwargs, needle", [
    ({"operand_bits": 0, "P": 2, "u": 1, "c": 1, "algorithm": 2}, "argument 'l'"),
    ({"operand_bits": 64, "P": 12, "u": 8, "c": 4, "algorithm": 2}, "argument 'P'"),
    ({"operand_bits": 64, "P": 128, "u": 1, "c": 4, "algorithm": 2}, "argument 'P'"),
    ({"operand_bits": 64, "P": 8, "u": 7, "c": 4, "algorithm": 2}, "u\\*P >= l"),
    ({"operand_bits": 64, "P": 8, "u": 8, "c": Fraction(3, 2), "algorithm": 2}, "1/2 or a positive integer"),
    ({"operand_bits": 64, "P": 4, "u": 16, "c": HALF, "algorithm": 2}, "P >= 8"),
    ({"operand_bits": 64, "P": 8, "u": 8, "c": 4, "algorithm": 4}, "argument 'algorithm'"),
])
def test_check_set_rejects(kwargs, needle):
    with pytest.raises(ParameterError, match=needle):
        F.check_set(**kwargs)


# ------------------------------------------------------------------ cycles (Table 5)

TABLE5 = {  # (P, butterflies): {operation: (A != sqrt2, A = sqrt2)}
    (32, 1): {"CT": (104, None), "CT^-1": (None, 107), "NCT": (104, 106), "NCT^-1": (109, 111)},
    (64, 1): {"CT": (203, None), "CT^-1": (None, 206), "NCT": (203, 205), "NCT^-1": (208, 210)},
    (128, 1): {"CT": (459, None), "CT^-1": (None, 462), "NCT": (459, 461), "NCT^-1": (464, 466)},
    (32, 2): {"CT": (79, None), "CT^-1": (None, 90), "NCT": (79, 81), "NCT^-1": (92, 94)},
    (64, 2): {"CT": (122, None), "CT^-1": (None, 141), "NCT": (122, 124), "NCT^-1": (143, 145)},
    (128, 2): {"CT": (235, None), "CT^-1": (None, 270), "NCT": (235, 237), "NCT^-1": (272, 274)},
    (32, 4): {"CT": (67, None)}, (64, 4): {"CT": (94, None)}, (128, 4): {"CT": (141, None)},
    (32, 16): {"CT": (60, None)}, (64, 32): {"CT": (72, None)}, (128, 64): {"CT": (84, None)},
}


@pytest.mark.parametrize("P, n", list(TABLE5))
def test_table5_cycles(P, n):
    for kind, pair in TABLE5[(P, n)].items():
        for sqrt2, table in zip((False, True), pair, strict=True):
            if table is None:
                continue
            extra = 1 if (P, n) == (32, 1) else 0          # corrections.md#fmlm3-table5: one cycle above
            assert F.transform_cycles(kind, P, n, sqrt2) + extra == table, (kind, sqrt2)


def test_multiplication_cycles():
    s2 = next(s for s in F.parameter_sets(1024, 32) if s.algorithm == 2)
    s3 = next(s for s in F.parameter_sets(1024, 32) if s.algorithm == 3)
    # Alg 2, P = 32, n = 2, 2u-bit segments: 2*79 + 2*90 + 2*79 + 92 transforms, 4*(d+35), 7*22 + 21
    assert F.multiplication_cycles(s2, 2, delta_ma=10) == 588 + 4 * 45 + 7 * 22 + 21
    assert F.multiplication_cycles(s3, 2, delta_ma=10) == 79 + 90 + 2 * 79 + 92 + 4 * 45 + 6 * 14 + 13
    assert F.segment_digits(s2) == 2 and F.segment_digits(s3) == 4
