"""gf2n models against python-flint, the paper's Example 1, and the printed-wrong forms
of docs/corrections.md (each has a test that the printed form fails)."""

import random

import pytest
from hypothesis import given, settings, strategies as st

from modforge.families.gf2n import model as M

from ._reference import ref_mul, ref_mulmod

# ---------------------------------------------------------------- strategies

PAPER_N = [107, 127, 163, 233, 283, 409, 521, 571]
NIST = {163: (1 << 163) | 0b11001001, 233: (1 << 233) | (1 << 74) | 1,
        283: (1 << 283) | (1 << 12) | (1 << 7) | (1 << 5) | 1,
        409: (1 << 409) | (1 << 87) | 1, 571: (1 << 571) | (1 << 10) | (1 << 5) | (1 << 2) | 1}


def trinomial(n, k):
    return (1 << n) | (1 << k) | 1


def paper_fields():
    out = []
    for n in PAPER_N:
        out += [trinomial(n, (n + 1) // 2), trinomial(n, n // 2), trinomial(n, 1)]
        if n in NIST:
            out.append(NIST[n])
    return out


@st.composite
def modulus(draw, min_n=2, max_n=70, f0=True):
    """Random monic F of degree n (f_0 = 1 when f0), or a paper field."""
    if draw(st.integers(0, 4)) == 0:
        f = draw(st.sampled_from(paper_fields()))
    else:
        n = draw(st.integers(min_n, max_n))
        f = (1 << n) | draw(st.integers(0, (1 << n) - 1))
        if f0:
            f |= 1
    return f


@st.composite
def field_and_operands(draw, f0=True, min_n=2):
    f = draw(modulus(f0=f0, min_n=min_n))
    n = M.deg(f)
    a = draw(st.integers(0, (1 << n) - 1))
    b = draw(st.integers(0, (1 << n) - 1))
    return f, a, b


# ---------------------------------------------------------------- Example 1

EX_F = (1 << 9) | (1 << 5) | 1                                    # t^9 + t^5 + 1
EX_A = (1 << 8) | (1 << 7) | (1 << 6) | (1 << 5) | (1 << 2) | 1     # t^8+t^7+t^6+t^5+t^2+1
EX_B = (1 << 8) | (1 << 5) | (1 << 3) | (1 << 1) | 1                # t^8+t^5+t^3+t+1
EX_RESULT = 0b0000110101                                          # reduced A*B*t^-5 mod F
EX_PRINTED = 0b1000010100                                         # the paper's printed value


def test_example1_reduced_residue():
    assert M.split_point(9) == 5
    assert ref_mulmod(EX_F, EX_A, EX_B, 5) == EX_RESULT
    assert M.bmm(EX_F, EX_A, EX_B) == EX_RESULT
    assert M.fiko(EX_F, EX_A, EX_B) == EX_RESULT
    assert M.rffiko(9, EX_A, EX_B) == EX_RESULT


def test_example1_table1_halves():
    r = 5
    assert (EX_F >> r, EX_F & 31) == (0b10001, 0b00001)
    assert (EX_A >> r, EX_A & 31) == (0b01111, 0b00101)
    assert (EX_B >> r, EX_B & 31) == (0b01001, 0b01011)


def test_example1_printed_value_is_the_unreduced_representative():
    # corrections.md#bmm-output: 1000010100 = reduced residue + F (degree n), not a reduced residue
    assert EX_PRINTED == EX_RESULT ^ EX_F
    assert M.deg(EX_PRINTED) == 9


# ---------------------------------------------------------------- Alg 1-3 (finished product)

@settings(max_examples=300, deadline=None)
@given(field_and_operands(f0=False))
def test_alg1_blakely_reduce(x):
    f, a, b = x
    c = ref_mul(a, b)
    assert M.blakely_reduce(c, f) == ref_mulmod(f, a, b)


@settings(max_examples=300, deadline=None)
@given(field_and_operands(), st.integers(0, 3))
def test_alg2_montgomery_reduce(x, extra):
    f, a, b = x
    n = M.deg(f)
    c = ref_mul(a, b)
    k = (n - 1) + extra                    # k = m - (n-1) for m = 2n-2, or more
    s = M.montgomery_reduce(c, f, k)
    assert s == ref_mulmod(f, a, b, k)     # C*t^-k, not C (corrections.md#reduction-congruences)
    assert M.deg(s) < n


@settings(max_examples=300, deadline=None)
@given(field_and_operands())
def test_alg3_bipartite_reduce(x):
    f, a, b = x
    n = M.deg(f)
    rho = M.bipartite_rho(n)
    assert rho == n // 2
    s = M.bipartite_reduce(ref_mul(a, b), f)
    assert s == ref_mulmod(f, a, b, rho)
    assert M.deg(s) < n


def test_alg2_alg3_printed_ensure_lines_are_wrong():
    # "Ensure: S = C mod F" without the t^-k factor fails for almost every input
    rng = random.Random(2)
    wrong2 = wrong3 = 0
    for _ in range(200):
        f = M.rft(17)
        a, b = rng.getrandbits(17), rng.getrandbits(17)
        c = ref_mul(a, b)
        wrong2 += M.montgomery_reduce(c, f, 16) != ref_mulmod(f, a, b)
        wrong3 += M.bipartite_reduce(c, f) != ref_mulmod(f, a, b)
    assert wrong2 > 190 and wrong3 > 190


def _bipartite_same_s(c, f):
    """Alg 3 with both quotients read from the same S (lines 4-5 as printed)."""
    n = M.deg(f)
    m = 2 * n - 2
    rho = M.bipartite_rho(n)
    s = c
    for i in range(rho):
        q, qp = (s >> (m - i)) & 1, (s >> i) & 1
        if q:
            s ^= f << (m - i - n)
        if qp:
            s ^= f << i
    return s


def test_alg3_quotients_from_same_s_fail_for_even_n():
    rng = random.Random(3)
    for n, expect_ok in [(16, False), (17, True)]:
        f = (1 << n) | rng.getrandbits(n) | 1
        bad = 0
        for _ in range(200):
            a, b = rng.getrandbits(n), rng.getrandbits(n)
            s = _bipartite_same_s(ref_mul(a, b), f)
            good = s & M.mask(n // 2) == 0 and (s >> (n // 2)) == ref_mulmod(f, a, b, n // 2)
            bad += not good
        assert (bad == 0) == expect_ok


# ---------------------------------------------------------------- Alg 4-8 interleaved

@settings(max_examples=300, deadline=None)
@given(field_and_operands(f0=False))
def test_interleaved_blakely(x):
    f, a, b = x
    assert M.interleaved_blakely(f, a, b) == ref_mulmod(f, a, b)


@settings(max_examples=300, deadline=None)
@given(field_and_operands())
def test_interleaved_montgomery(x):
    f, a, b = x
    assert M.interleaved_montgomery(f, a, b) == ref_mulmod(f, a, b, M.deg(f))


@settings(max_examples=300, deadline=None)
@given(field_and_operands())
def test_bmm(x):
    f, a, b = x
    n = M.deg(f)
    r = M.split_point(n)
    assert r == -(-((n + 1) - 1) // 2)         # r = ceil((k-1)/2), k = n+1
    assert M.bmm(f, a, b) == ref_mulmod(f, a, b, r)
    # the two units: S = A*BH mod F, T = A*BL*t^-r mod F
    st_ = M.bmm_load(f, a, b)
    for _ in range(r):
        st_ = M.bmm_step(st_, f, a)
    assert st_.s == ref_mulmod(f, a, b >> r)
    assert st_.t == ref_mulmod(f, a, b & M.mask(r), r)


def test_bmm_printed_line3_gives_unreduced_result():
    st_ = M.bmm_load(EX_F, EX_A, EX_B)
    for _ in range(5):
        st_ = M.bmm_step(st_, EX_F, EX_A)
    assert st_.s ^ st_.t ^ EX_F == EX_PRINTED         # Alg 8 line 3 as printed
    assert M.bmm_result(st_) == EX_RESULT
    # S xor T is always reduced, so S xor T xor F always has degree n: never reduced
    rng = random.Random(4)
    f = M.rft(31)
    for _ in range(100):
        a, b = rng.getrandbits(31), rng.getrandbits(31)
        st_ = M.bmm_load(f, a, b)
        for _ in range(16):
            st_ = M.bmm_step(st_, f, a)
        assert M.deg(st_.s ^ st_.t) < 31 and M.deg(st_.s ^ st_.t ^ f) == 31


# ---------------------------------------------------------------- FIKO

def _fiko_state(f, a, b, units=True):
    st_ = M.fiko_load(f, a, b)
    for _ in range(M.split_point(M.deg(f))):
        st_ = M.fiko_step(st_, f, units)
    return st_


@settings(max_examples=400, deadline=None)
@given(field_and_operands())
def test_fiko(x):
    f, a, b = x
    n = M.deg(f)
    r = M.split_point(n)
    assert M.fiko(f, a, b) == ref_mulmod(f, a, b, r)


@settings(max_examples=200, deadline=None)
@given(field_and_operands())
def test_fiko_internal_terms(x):
    """The registers hold what Fig. 1 says: the three Karatsuba-Ofman products, the
    Blakely quotient of C2 by F1 and the Montgomery quotient of C0 by F0; the reduced
    products agree with the residues of the quotient units."""
    f, a, b = x
    n = M.deg(f)
    r = M.split_point(n)
    a0, a1, b0, b1 = a & M.mask(r), a >> r, b & M.mask(r), b >> r
    s = _fiko_state(f, a, b)
    assert s.c0 == ref_mul(a0, b0)
    assert s.c1 == ref_mul(a0 ^ a1, b0 ^ b1)
    assert s.c2 == ref_mul(a1, b1)
    f0, f1 = f & M.mask(r), f >> r
    # Q = C2 div F1 (polynomial division) and Q' = C0 * F0^-1 mod t^r
    q, rem = _divmod(s.c2, f1)
    assert s.q1 == q and s.r1 == rem
    assert ref_mul(s.q0, f0) & M.mask(r) == s.c0 & M.mask(r)
    t = M.fiko_terms(s, f)
    assert t["c0p"] & M.mask(r) == 0 and t["c0p"] >> r == s.r0
    assert t["c2p"] == s.r1
    # the full bipartite identity: (C + Q'F + QFt^r) / t^r
    c = ref_mul(a, b)
    total = c ^ ref_mul(s.q0, f) ^ (ref_mul(s.q1, f) << r)
    assert total & M.mask(r) == 0 and M.deg(total) < n + r
    assert total >> r == M.fiko_result(s, f)


def _divmod(a, f):
    q, d = 0, M.deg(f)
    while M.deg(a) >= d:
        s = M.deg(a) - d
        q |= 1 << s
        a ^= f << s
    return q, a


def test_piko_printed_final_sum_cancels():
    """Fig. 1's sum repeats C2'_LR || C0'_UR twice, leaving only C1'."""
    rng = random.Random(6)
    cases = [(EX_F, EX_A, EX_B)] + [(M.rft(23), rng.getrandbits(23), rng.getrandbits(23))
                                    for _ in range(50)]
    wrong = 0
    for f, a, b in cases:
        n = M.deg(f)
        r = M.split_point(n)
        s = _fiko_state(f, a, b)
        t = M.fiko_terms(s, f)
        ur, lr = t["c0p"] >> r, t["c2p"] & M.mask(r)
        printed = ((lr << r) | ur) ^ t["c1p"] ^ ((lr << r) | ur)
        assert printed == t["c1p"]
        wrong += printed != ref_mulmod(f, a, b, r)
        assert M.fiko_result(s, f) == ref_mulmod(f, a, b, r)
    assert wrong >= 45


def test_fiko_split_at_t_r_not_t_d():
    """Section 5.2 as printed splits at t^d, d = r - 1; the same datapath then does not
    give A*B*t^-r (nor A*B*t^-d) mod F: the split is at t^r."""
    rng = random.Random(7)
    n, f = 17, M.rft(17)
    r = M.split_point(n)
    d = r - 1
    wrong = 0
    for _ in range(50):
        a, b = rng.getrandbits(n), rng.getrandbits(n)
        a0, a1, b0, b1 = a & M.mask(d), a >> d, b & M.mask(d), b >> d
        c0, c2 = ref_mul(a0, b0), ref_mul(a1, b1)
        c1 = ref_mul(a0 ^ a1, b0 ^ b1)
        # the corrected sum, with the reduced products taken at the t^d split
        q0 = c0 & M.mask(d)
        q1 = c2 >> (d - 1)
        c0p_ur = c0 >> d
        c2p_lr = (c2 ^ (q1 << (d - 1)) ^ q1) & M.mask(d)
        c1p = c1 ^ ((q0 ^ q1) << (d - 1))
        got = M.final_sum(c0p_ur, c1p, c2p_lr, d)
        wrong += got not in (ref_mulmod(f, a, b, r), ref_mulmod(f, a, b, d))
    assert wrong >= 45


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_fiko_bmm_small_n_exhaustive(n):
    for low in range(1 << n):
        f = (1 << n) | low
        if not f & 1:
            continue
        for a in range(1 << n):
            for b in range(1 << n):
                r = M.split_point(n)
                want = ref_mulmod(f, a, b, r)
                assert M.fiko(f, a, b) == want
                assert M.bmm(f, a, b) == want


def test_fiko_rejects_f0_zero():
    with pytest.raises(ValueError):
        M.fiko((1 << 9) | (1 << 5), 1, 1)


# ---------------------------------------------------------------- RF-FIKO

@settings(max_examples=400, deadline=None)
@given(st.one_of(st.integers(1, 60).map(lambda j: 2 * j + 1), st.sampled_from(PAPER_N)),
       st.data())
def test_rffiko(n, data):
    a = data.draw(st.integers(0, (1 << n) - 1))
    b = data.draw(st.integers(0, (1 << n) - 1))
    r = M.split_point(n)
    f = M.rft(n)
    assert M.rffiko(n, a, b) == ref_mulmod(f, a, b, r)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 60).map(lambda j: 2 * j + 1), st.data())
def test_rffiko_quotients_equal_fiko_quotients(n, data):
    """Fig. 3: with an RFT, Q' = C0_LR and Q = C2 >> (r-1) are the quotients the
    Montgomery and Blakely units of FIKO compute."""
    a = data.draw(st.integers(0, (1 << n) - 1))
    b = data.draw(st.integers(0, (1 << n) - 1))
    f = M.rft(n)
    s = _fiko_state(f, a, b)
    t = M.rffiko_terms(s, n)
    assert (t["q0"], t["q1"]) == (s.q0, s.q1)


def test_rffiko_is_exact_only_for_the_rft():
    """The RF-FIKO shortcuts applied to other trinomials give wrong residues."""
    rng = random.Random(8)
    for n in (17, 23, 163):
        r = M.split_point(n)
        for f in (trinomial(n, n // 2), trinomial(n, 1)):
            wrong = 0
            for _ in range(30):
                a, b = rng.getrandbits(n), rng.getrandbits(n)
                s = _fiko_state(f, a, b, units=False)
                wrong += M.rffiko_result(s, n) != ref_mulmod(f, a, b, r)
            assert wrong >= 25
    with pytest.raises(ValueError):
        M.rffiko(16, 1, 1)
