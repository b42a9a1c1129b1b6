"""Cases users of other NTT and reduction generators reported against those tools, kept as
regression tests here."""

import pytest

from modforge.errors import ParameterError
from modforge.registry import lookup
from modforge.sim.verify import verify


@pytest.mark.sim
def test_n1024_with_the_14_bit_prime_and_one_butterfly(tmp_path):
    """q = 12289 (the only 14-bit prime = 1 mod 2048), n = 1024, one butterfly: every
    coefficient right, constant latency, on Icarus."""
    alg = lookup("ntt-polymul")
    params = alg.parse({"q": "12289", "n": "1024", "pe": "1", "reduction": "barrett"})
    design, [result] = verify(alg, params, tmp_path, 1000, ["icarus"])
    assert result.ok and result.passed == result.vectors >= 1000
    assert result.latency == design.latency


def test_n1024_q12289_with_four_butterflies():
    alg = lookup("ntt-polymul")
    params = alg.parse({"q": "12289", "n": "1024"})
    assert alg.frame_beats(params) == 256 and alg.derived(params).moduli == [12289]


def test_kyber_prime_names_the_largest_ntt():
    """3329 - 1 = 13 * 2^8: no negacyclic NTT of n = 256 (it needs q = 1 mod 512); the error
    says why and names n = 128."""
    with pytest.raises(ParameterError) as e:
        lookup("ntt-polymul").parse({"q": "3329", "n": "256"})
    assert e.value.argument == "q" and "q = 1 mod 2n = 512" in str(e.value) and "n = 128" in str(e.value)
    assert lookup("ntt-polymul").parse({"q": "3329", "n": "128", "pe": "4"}).n == 128


# The smallest q each reduction takes (8 bits) and one at its word-size bound (128 bits, or
# the largest its form allows below 2^128: Plantard's q < 2^beta/phi, WLM-Mixed's 17-bit q_h,
# the Proth-l forms), found with modforge.math.primes.is_prime and the algorithms' own rules.
EDGE_PRIMES = {
    "modmul-montgomery": (131, 0xffffffffffffffffffffffffffffff61),
    "modmul-barrett": (131, 0xffffffffffffffffffffffffffffff61),
    "modmul-plantard": (131, 0x9e3779b97f4a77ffffffffffffffffc5),
    "modmul-wlm": (131, 0xffffffffffffffffffffffffffffff61),
    "modmul-wlm-mixed": (193, 0xff318000000000000000000000000001),
    "modmul-k2red": (193, 0xffffffffffffffe40000000000000001),
    "modmul-k2red-shift": (193, 0x80000200000000000000000000000001),
    "modmul-montgomery-shift": (193, 0x80000200000000000000000000000001),
}
EDGES = [pytest.param(name, q, id=f"{name}-{q:#x}") for name, qs in EDGE_PRIMES.items() for q in qs]


@pytest.mark.parametrize("name,q", EDGES)
def test_every_reduction_at_its_smallest_and_largest_q(name, q):
    """Very small operands (0, 1, 2, 3), q - 1 and the other corners, at both ends of the
    q range, against the plain product times the reduction's factor."""
    alg = lookup(name)
    params = alg.parse({"q": str(q)})
    small = [(a, b) for a in range(4) for b in range(4)]
    for a, b in small + alg.cases(params):
        assert alg.model(params, a, b) == a * b * alg.scale(params) % q, (a, b)


# simulated: every reduction at its smallest q, and at the largest for one of them (the
# 128-bit cores take 5 to 27 s each, Amaranth and Icarus); -m slow every largest q
SIMULATED = [pytest.param(name, q, id=f"{name}-{q:#x}",
                          marks=[] if q < 1 << 16 or name == "modmul-k2red" else [pytest.mark.slow])
             for name, qs in EDGE_PRIMES.items() for q in qs]


@pytest.mark.sim
@pytest.mark.parametrize("name,q", SIMULATED)
def test_every_reduction_simulates_at_both_ends(name, q, tmp_path):
    alg = lookup(name)
    params = alg.parse({"q": str(q)})
    design, [result] = verify(alg, params, tmp_path, 200, ["icarus"])
    assert result.ok and result.passed == result.vectors >= 200
    assert result.latency == design.latency
