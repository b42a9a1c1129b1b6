"""Parameter rules, canonical parameters, names, info and the registry interface."""

import random

import pytest

from modforge.errors import ParameterError
from modforge.families.digitserial import model as M
from modforge.math import poly
from modforge.registry import all_algorithms, lookup

from ._ref import ref_mulmod

NAMES = ["gfpm-mse-horner", "gfpm-mse-shu", "gfpm-mse-digit", "gfpm-mse-pipelined",
         "gfpm-lse-basic", "gfpm-lse-digit", "gfpm-lse-nam", "gfpm-lse-pipelined"]
WITH_D = [n for n in NAMES if n not in ("gfpm-mse-horner", "gfpm-lse-basic")]
WITH_R = ["gfpm-mse-pipelined", "gfpm-lse-nam", "gfpm-lse-pipelined"]


def fields_of(alg):
    return [f[0] for f in alg.param_help()]


def parse(name, **kw):
    alg = lookup(name)
    return alg.parse({k: str(v) for k, v in kw.items() if k in fields_of(alg)})


def test_registered():
    algs = {a.name: a for a in all_algorithms() if a.family == "digitserial"}
    assert sorted(algs) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_rejections(name):
    ok = dict(p=3, m=11, poly="paper", D=3, R=2)
    parse(name, **ok)
    bad = [dict(p=4), dict(p=1), dict(p=9), dict(m=1), dict(poly="x^12+x+1"),
           dict(poly="x^11+1"),            # reducible: a ring
           dict(poly="2x^11+2x^8+2"),      # not monic
           dict(poly="nonsense"), dict(p=3, m=12, poly="paper")]
    if name in WITH_D:
        bad += [dict(D=0), dict(D=12), dict(D=-1)]
    if name in WITH_R:
        bad += [dict(R=0), dict(R=4)]
    if name == "gfpm-lse-nam":
        bad += [dict(R=1), dict(D=1, R=1)]
    for b in bad:
        with pytest.raises(ParameterError) as e:
            parse(name, **{**ok, **b})
        assert name in str(e.value)


@pytest.mark.parametrize("name", NAMES)
def test_reducible_is_refused_with_structure_message(name):
    with pytest.raises(ParameterError) as e:
        parse(name, p=2, m=13, poly="x^13+x+1+x^2+x^3+x^4+x^5+x^6+x^7+x^8+x^9+x^10+x^11+x^12", D=2, R=2)
    msg = str(e.value)
    assert e.value.argument == "poly"
    assert "is reducible over GF(2)" in msg and "a ring, not a field" in msg


def test_canonical_params():
    p = parse("gfpm-mse-digit", p=3, m=97, poly="paper", D=8)
    assert p.poly == "x^97+x^16+2"
    assert parse("gfpm-mse-digit", p=3, m=97, poly="x^97+x^16-1", D=8) == p
    q = parse("gfpm-lse-digit", p=2, m=163, poly="nist", D=16)
    assert q.poly == "x^163+x^7+x^6+x^3+1"
    assert lookup("gfpm-lse-digit").validate(q) == q
    r = parse("gfpm-mse-shu", p=2, m=13, poly="auto", D=3)
    assert poly.degree(poly.parse_poly(r.poly, 2)) == 13


def test_module_names():
    alg = lookup("gfpm-mse-digit")
    p = parse("gfpm-mse-digit", p=2, m=163, poly="paper", D=16)
    name = alg.module_name(p)
    assert name.startswith("mf_gfpm_mse_digit_p2_m163_d16_") and len(name.split("_")[-1]) == 8
    assert name == alg.module_name(parse("gfpm-mse-digit", p=2, m=163, poly="nist", D=16))
    assert name != alg.module_name(parse("gfpm-mse-digit", p=2, m=163, poly="paper", D=8))
    q = parse("gfpm-lse-nam", p=2, m=163, D=32, R=4)
    assert lookup("gfpm-lse-nam").module_name(q).startswith("mf_gfpm_lse_nam_p2_m163_d32_r4_")


@pytest.mark.parametrize("name", NAMES)
def test_interface(name):
    alg = lookup(name)
    assert alg.family == "digitserial" and alg.title and "Survey" in alg.paper
    for cfg in alg.grid():
        params = alg.parse(cfg)
        pp, m = params.p, params.m
        f = alg.derived(params).f
        w = poly.coeff_bits(pp)
        assert [o.width for o in alg.operands(params)] == [m * w, m * w]
        assert alg.result_width(params) == m * w
        assert "mod f(x)" in alg.congruence(params)
        rng = random.Random(0)
        ops = alg.cases(params) + [alg.random_operands(params, rng) for _ in range(3)]
        assert len(alg.cases(params)) >= 10
        if m > 50:
            ops = ops[:6]
        for a, b in ops:
            r = alg.model(params, a, b)
            want = ref_mulmod(poly.unpack(a, pp, m), poly.unpack(b, pp, m), f, pp)
            assert r == poly.pack(want, pp, m)
        info = alg.extra_info(params)
        assert info["kind"] == "field" and info["cycles"] == alg.cycles(params)
        D = getattr(params, "D", 1)
        assert info["reduction_operands"] == M.reduction_operands(f, pp, D)
        n = -(-m // D)
        expect = {"gfpm-mse-horner": m, "gfpm-lse-basic": m, "gfpm-mse-shu": n,
                  "gfpm-mse-digit": n + 1, "gfpm-lse-digit": n + 1, "gfpm-lse-nam": n + 1,
                  "gfpm-mse-pipelined": n + 2, "gfpm-lse-pipelined": n + 2}[name]
        assert alg.cycles(params) == expect


def test_grid_covers_required_configs():
    for name in NAMES:
        grid = lookup(name).grid()
        assert {g["p"] for g in grid} >= {"2", "3"}
        if name in WITH_D:
            assert any(g["m"] in ("163", "233", "283") and g["D"] in ("16", "32") for g in grid)
            assert any(g["p"] == "3" and g["m"] == "97" for g in grid)
            assert {"3"} <= {g["D"] for g in grid}
            assert any(g["D"] == g["m"] for g in grid)
