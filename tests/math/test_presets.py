"""presets.py: the NIST and survey moduli, the paper's families, resolve_modulus."""

import pytest

from modforge.math import irreducible as I, poly as P, presets as S

from ._ref import ref_is_irreducible


@pytest.mark.parametrize("n", sorted(S.NIST_BINARY))
def test_nist_irreducible(n):
    f = S.resolve_modulus(2, n, "nist")
    assert f == S.resolve_modulus(2, n, "paper")
    assert P.degree(f) == n and f[-1] == 1
    assert I.is_irreducible(f, 2) and ref_is_irreducible(f, 2)
    assert I.lowest_weight_irreducible(2, n) == f  # NIST picked the lowest weight


@pytest.mark.parametrize("n", sorted(S.GF3_PAPER))
def test_gf3_paper_irreducible(n):
    f = S.resolve_modulus(3, n, "paper")
    assert P.degree(f) == n and f[-1] == 1 and f[0] == 2  # "-1" is 2 in GF(3)
    assert I.is_irreducible(f, 3) and ref_is_irreducible(f, 3)


def test_gf3_example():
    f = S.resolve_modulus(3, 11, "paper")
    assert f == (1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 1)
    assert ref_is_irreducible(f, 3) and I.is_irreducible(f, 3)
    # the survey: x^11 mod f = x^8 + 2, x^12 mod f = x^9 + 2x, x^13 mod f = x^10 + 2x^2
    assert P.mod(P.shift((1,), 11), f, 3) == P.parse_poly("x^8+2", 3)
    assert P.mod(P.shift((1,), 12), f, 3) == P.parse_poly("x^9+2x", 3)
    assert P.mod(P.shift((1,), 13), f, 3) == P.parse_poly("x^10+2x^2", 3)


def test_paper_families():
    assert P.format_poly(S.resolve_modulus(2, 163, "rft"), 2) == "x^163+x^82+1"
    assert P.format_poly(S.resolve_modulus(2, 571, "rft"), 2) == "x^571+x^286+1"
    assert P.format_poly(S.resolve_modulus(2, 163, "type1"), 2) == "x^163+x^81+1"
    assert P.format_poly(S.resolve_modulus(2, 163, "type2"), 2) == "x^163+x+1"
    assert P.format_poly(S.resolve_modulus(2, 10, "rft"), 2) == "x^10+x^5+1"
    assert S.rft(127) == S.resolve_modulus(2, 127, "RFT")


def test_auto_and_explicit():
    assert S.resolve_modulus(2, 163, "auto") == S.resolve_modulus(2, 163, "nist")
    assert S.resolve_modulus(3, 11, "x^11+2x^8+1") == S.resolve_modulus(3, 11, "paper")
    assert S.resolve_modulus(3, 97, "x^97 + x^16 - 1") == S.resolve_modulus(3, 97, "paper")
    assert S.resolve_modulus(2, 9, "t^9+t^5+1") == P.parse_poly("x^9+x^5+1", 2)
    # reducible explicit moduli are allowed (rings); structure() reports them
    assert S.resolve_modulus(2, 4, "x^4+x^2+1") == (1, 0, 1, 0, 1)
    f = S.resolve_modulus(5, 6, "auto")
    assert P.degree(f) == 6 and ref_is_irreducible(f, 5)


@pytest.mark.parametrize("p,n,spec,match", [
    (2, 160, "nist", r"'nist'.*degree 160.*163, 233, 283, 409, 571"),
    (3, 163, "nist", r"'nist'.*only defined for p = 2"),
    (3, 98, "paper", r"'paper'.*degree 98.*11, 97, 167, 193, 239"),
    (5, 97, "paper", r"'paper'.*p = 2 or 3"),
    (3, 97, "rft", r"'rft'.*only defined for p = 2"),
    (3, 11, "type2", r"'type2'.*only defined for p = 2"),
    (2, 1, "rft", r"'rft'"),
    (2, 12, "x^11+x^2+1", r"degree 11, expected degree 12"),
    (3, 11, "2x^11+x^8+1", r"not monic"),
    (2, 5, "banana", r"'banana'.*nist, paper, rft, type1, type2, auto"),
    (2, 5, "", r"spec"),
    (4, 5, "auto", r"prime"),
    (2, 0, "auto", r"degree"),
])
def test_resolve_errors(p, n, spec, match):
    with pytest.raises(ValueError, match=match):
        S.resolve_modulus(p, n, spec)
