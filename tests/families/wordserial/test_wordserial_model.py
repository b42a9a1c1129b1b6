"""The FIOS model against the Montgomery definition x*y*R^-1 mod N (Python's pow), with
hypothesis: random odd N of exactly l bits, N = 2^l - 1, 2^(l-1) + 1, small operands."""

import random

import pytest
from hypothesis import given, settings, strategies as st

from modforge.families.wordserial import model as M
from modforge.families.wordserial.plan import MontgomeryPlan
from modforge.math import fields
from modforge.registry import lookup

SIZES = [(64, 16), (64, 32), (96, 24), (68, 17), (256, 32), (128, 8), (192, 64), (8, 4), (8, 8), (16, 4)]


def reference(x, y, modulus, bits):
    return x * y * pow(1 << bits, -1, modulus) % modulus


@st.composite
def instances(draw):
    bits, w = draw(st.sampled_from(SIZES))
    modulus = draw(st.one_of(st.integers(1 << (bits - 1), (1 << bits) - 1).map(lambda v: v | 1),
                             st.sampled_from([(1 << bits) - 1, (1 << (bits - 1)) + 1])))
    operand = st.one_of(st.integers(0, modulus - 1), st.integers(0, 3), st.sampled_from([modulus - 1, modulus - 2]))
    return bits, w, modulus, draw(operand), draw(operand)


@settings(max_examples=400, deadline=None)
@given(instances())
def test_fios_is_montgomery(case):
    bits, w, modulus, x, y = case
    t, result = M.fios(x, y, modulus, w, bits // w)
    assert result == reference(x, y, modulus, bits)
    assert 0 <= result < modulus
    assert t < 2 * modulus and t % modulus == result       # the bound before the final subtraction


@pytest.mark.parametrize("bits", [1024, 2048])
def test_rsa_sizes(bits):
    modulus = M.default_modulus(bits, salt=5)
    x, y = modulus - 1, modulus // 3
    for w in (16, 32):
        assert M.montgomery(x, y, modulus, w, bits // w) == reference(x, y, modulus, bits)


def test_n_prime_and_default_modulus():
    for bits in (64, 1000, 4096):
        for salt in (0, 1):
            n = M.default_modulus(bits, salt)
            assert n.bit_length() == bits and n & 1
            for w in (16, 17, 32):
                assert (n * M.n_prime(n, w)) % (1 << w) == (1 << w) - 1      # N N' = -1 mod 2^w
    assert M.default_modulus(512) != M.default_modulus(512, 1)


def test_cases_agree_with_reference():
    alg = lookup("rsa-montgomery")
    params = alg.parse({"l": "256", "w": "32", "pe": "4"})
    for x, y in alg.cases(params):
        assert alg.model(params, x, y) == reference(x, y, params.modulus, 256)


def test_schedule_formula():
    """U = (R-1) T + pe D + s + 3, T = max(s+1, pe D + 2); latency U + 3, II U, cycles U + s + 2."""
    sch = MontgomeryPlan.of(1024, 16, 16)                      # s = 64, R = 4, T = 98
    assert (sch.s, sch.rounds, sch.round_cycles) == (64, 4, 98)
    assert sch.initiation_interval == 3 * 98 + 96 + 64 + 3
    assert sch.latency == sch.initiation_interval + 3 and sch.cycles == sch.latency + 63
    one = MontgomeryPlan.of(1024, 32, 1)                       # one PE: rounds of s + 1 words
    assert one.round_cycles == 33 and one.initiation_interval == 31 * 33 + 6 + 32 + 3
    single = MontgomeryPlan.of(64, 16, 4)                      # R = 1: round 0 is the last
    assert single.initiation_interval == 6 * 4 + 4 + 3
    banked = MontgomeryPlan.of(256, 32, 1, banks=2)            # s = 8, R = 8, T = 9: II = R T
    assert banked.initiation_interval == 72 and banked.first_read == 7 * 9 + 6 + 2 * 8 + 2
    assert banked.latency == MontgomeryPlan.of(256, 32, 1).latency + 7


@st.composite
def short_moduli(draw):
    """N of fewer than l bits (the named primes' case: 2^255 - 19 in l = 256, P-521 in 528)."""
    bits, w = draw(st.sampled_from(SIZES))
    top = draw(st.integers(2, bits - 1))
    modulus = draw(st.integers(1 << (top - 1), (1 << top) - 1)) | 1
    modulus = max(modulus, 3)
    operand = st.one_of(st.integers(0, modulus - 1), st.sampled_from([0, 1, modulus - 1]))
    return bits, w, modulus, draw(operand), draw(operand)


@settings(max_examples=400, deadline=None)
@given(short_moduli())
def test_fios_below_l_bits(case):
    """3 <= N < 2^l is all FIOS needs: t < 2N before the subtraction, the result < N."""
    bits, w, modulus, x, y = case
    t, result = M.fios(x, y, modulus, w, bits // w)
    assert result == reference(x, y, modulus, bits) and 0 <= result < modulus
    assert t < 2 * modulus


@pytest.mark.parametrize("name", list(fields.NAMED))
def test_named_primes(name):
    """Every named prime at w = 16, 32, 64 (l its bits rounded up to w), corners and random
    operands, against Python; the friendly ones' N' is 1 (the fast path's m = t_0 + x_i y_0)."""
    q, rng = fields.NAMED[name].q, random.Random(name)
    for w in (16, 32, 64):
        s = -(-q.bit_length() // w)
        pairs = [(0, 0), (1, 1), (q - 1, q - 1), (q - 1, 1), ((1 << (q.bit_length() - 1)) - 1, q - 2)]
        pairs += [(rng.randrange(q), rng.randrange(q)) for _ in range(20)]
        for x, y in pairs:
            assert M.montgomery(x, y, q, w, s) == reference(x, y, q, w * s)
        assert (M.n_prime(q, w) == 1) == (fields.montgomery_constants(q, w)[1] == 1)
