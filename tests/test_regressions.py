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
