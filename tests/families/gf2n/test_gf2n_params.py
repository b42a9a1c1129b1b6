"""Parameter rules, canonical parameters and the Algorithm interface of the gf2n family."""

import random
import re

import pytest

from modforge.errors import ParameterError
from modforge.families.gf2n import model as M
from modforge.registry import all_algorithms, lookup

from ._reference import ref_mulmod

NAMES = ["gf2n-blakely", "gf2n-montgomery", "gf2n-bmm", "gf2n-fiko", "gf2n-rffiko"]
MONTGOMERY_LIKE = ["gf2n-montgomery", "gf2n-bmm", "gf2n-fiko", "gf2n-rffiko"]


def test_registered():
    algs = {a.name: a for a in all_algorithms()}
    for name in NAMES:
        assert algs[name].family == "gf2n"
        assert algs[name].grid()


@pytest.mark.parametrize("name", NAMES)
def test_n_too_small(name):
    for n in ("1", "0", "-3"):
        with pytest.raises(ParameterError) as e:
            lookup(name).parse({"n": n, "poly": "x^2+x+1"})
        assert e.value.argument == "n" and name in str(e.value)


@pytest.mark.parametrize("name", NAMES)
def test_degree_mismatch_and_garbage(name):
    alg = lookup(name)
    for poly in ("x^10+x^5+1", "t^8+1", "hello", "nist", ""):
        with pytest.raises(ParameterError) as e:
            alg.parse({"n": "9", "poly": poly})
        assert e.value.argument == "poly"


@pytest.mark.parametrize("name", MONTGOMERY_LIKE)
def test_f0_zero_rejected(name):
    with pytest.raises(ParameterError) as e:
        lookup(name).parse({"n": "9", "poly": "x^9+x^5+x"})
    assert e.value.argument == "poly"


def test_blakely_accepts_f0_zero():
    p = lookup("gf2n-blakely").parse({"n": "9", "poly": "x^9+x^5+x"})
    assert p.poly == "x^9+x^5+x"


def test_rffiko_rules():
    alg = lookup("gf2n-rffiko")
    with pytest.raises(ParameterError) as e:
        alg.parse({"n": "10"})
    assert e.value.argument == "n"
    for poly in ("type1", "type2", "x^9+x^4+1", "auto"):
        with pytest.raises(ParameterError) as e:
            alg.parse({"n": "9", "poly": poly})
        assert e.value.argument == "poly" and "x^9+x^5+1" in e.value.rule
    assert alg.parse({"n": "9", "poly": "t^9 + t^5 + 1"}).poly == "x^9+x^5+1"
    assert alg.parse({"n": "163"}).poly == "x^163+x^82+1"


@pytest.mark.parametrize("name", NAMES)
def test_canonical_and_stable(name):
    alg = lookup(name)
    p = alg.parse({"n": "9", "poly": "rft"})
    assert p.poly == "x^9+x^5+1" and p.n == 9
    assert alg.validate(p) == p
    q = alg.parse({"n": "9", "poly": "1 + t^5 + t^9"})
    assert q == p and alg.module_name(q) == alg.module_name(p)
    assert re.fullmatch(r"mf_gf2n_[a-z]+_n9_[0-9a-f]{8}", alg.module_name(p))
    other = alg.parse({"n": "11", "poly": "rft"})
    assert alg.module_name(other) != alg.module_name(p)


def test_module_name_shape():
    alg = lookup("gf2n-rffiko")
    assert alg.module_name(alg.parse({"n": "127"})).startswith("mf_gf2n_rffiko_n127_")


def test_defaults_are_valid():
    for name in NAMES:
        alg = lookup(name)
        p = alg.parse({})
        assert p.n == 163
    assert lookup("gf2n-fiko").parse({}).poly == "x^163+x^7+x^6+x^3+1"


def test_reducible_accepted_and_reported():
    alg = lookup("gf2n-fiko")
    p = alg.parse({"n": "163", "poly": "rft"})
    info = alg.extra_info(p)
    assert info["kind"] == "ring" and not info["irreducible"]
    assert "reducible" in info["structure"]
    p = alg.parse({"n": "127", "poly": "rft"})
    assert alg.extra_info(p)["kind"] == "field"


def test_cycles_and_congruence():
    for n in (9, 16, 163):
        r = (n + 1) // 2
        want = {"gf2n-blakely": (n, "C = A*B mod F(t)"),
                "gf2n-montgomery": (n, f"C = A*B*t^-{n} mod F(t)"),
                "gf2n-bmm": (r, f"C = A*B*t^-{r} mod F(t)"),
                "gf2n-fiko": (r, f"C = A*B*t^-{r} mod F(t)")}
        for name, (cyc, cong) in want.items():
            alg = lookup(name)
            p = alg.parse({"n": str(n), "poly": "auto"})
            assert alg.cycles(p) == cyc
            assert alg.congruence(p).startswith(cong)
    alg = lookup("gf2n-rffiko")
    p = alg.parse({"n": "163"})
    assert alg.cycles(p) == 82 and alg.congruence(p).startswith("C = A*B*t^-82 mod F(t)")


@pytest.mark.parametrize("name", NAMES)
def test_model_matches_congruence_on_cases(name):
    alg = lookup(name)
    exp = {"gf2n-blakely": lambda n: 0, "gf2n-montgomery": lambda n: n}.get(
        name, lambda n: (n + 1) // 2)
    rng = random.Random(1)
    for cfg in alg.grid():
        p = alg.parse(cfg)
        f = sum(1 << int(e) for e in _exponents(p.poly))
        ops = [alg.random_operands(p, rng) for _ in range(20)]
        cases = alg.cases(p)
        assert len(cases) == len(set(cases)) and len(cases) >= 10
        for a, b in cases + ops:
            assert 0 <= a < 1 << p.n and 0 <= b < 1 << p.n
            c = alg.model(p, a, b)
            assert c < 1 << alg.result_width(p)
            assert c == ref_mulmod(f, a, b, exp(p.n))
        assert [o.width for o in alg.operands(p)] == [p.n, p.n]


def _exponents(poly):
    out = []
    for term in poly.split("+"):
        out.append(0 if term == "1" else 1 if term == "x" else int(term.split("^")[1]))
    return out


def test_grid_is_small_and_valid():
    for name in NAMES:
        alg = lookup(name)
        grid = alg.grid()
        assert 2 <= len(grid) <= 4
        for cfg in grid:
            p = alg.parse(cfg)
            assert alg.cycles(p) <= 300
            assert M.deg(sum(1 << e for e in _exponents(p.poly))) == p.n
