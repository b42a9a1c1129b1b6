"""The Amaranth cores against the models in amaranth.sim (random vectors, corner cases,
exact latency steps+1, output held under back-pressure), and Verilog export."""

import random

import pytest

from modforge.registry import lookup
from modforge.verilog import to_verilog

from ._simutil import simulate

VECTORS = 200

CONFIGS = [
    ("gfpm-mse-horner", dict(p=2, m=13, poly="auto")),
    ("gfpm-mse-horner", dict(p=3, m=11, poly="paper")),
    ("gfpm-mse-horner", dict(p=5, m=5, poly="auto")),
    ("gfpm-lse-basic", dict(p=2, m=13, poly="auto")),
    ("gfpm-lse-basic", dict(p=3, m=11, poly="x^11+x^10+x^8+2*x^7+x+1")),
    ("gfpm-lse-basic", dict(p=7, m=4, poly="auto")),
]
for _name in ("gfpm-mse-shu", "gfpm-mse-digit", "gfpm-lse-digit"):
    CONFIGS += [
        (_name, dict(p=2, m=13, poly="auto", D=1)),
        (_name, dict(p=2, m=13, poly="auto", D=4)),
        (_name, dict(p=2, m=13, poly="auto", D=13)),
        (_name, dict(p=3, m=11, poly="paper", D=3)),
        (_name, dict(p=3, m=11, poly="x^11+x^10+x^8+2*x^7+x+1", D=5)),
        (_name, dict(p=3, m=11, poly="paper", D=11)),
        (_name, dict(p=5, m=5, poly="auto", D=2)),
    ]
for _name in ("gfpm-mse-pipelined", "gfpm-lse-pipelined", "gfpm-lse-nam"):
    r1 = 2 if _name.endswith("nam") else 1
    CONFIGS += [
        (_name, dict(p=2, m=13, poly="auto", D=2, R=2)),
        (_name, dict(p=2, m=13, poly="auto", D=5, R=r1)),
        (_name, dict(p=2, m=13, poly="auto", D=13, R=4)),
        (_name, dict(p=3, m=11, poly="paper", D=3, R=3)),
        (_name, dict(p=3, m=11, poly="x^11+x^10+x^8+2*x^7+x+1", D=4, R=2)),
        (_name, dict(p=3, m=11, poly="paper", D=11, R=r1)),
        (_name, dict(p=5, m=5, poly="auto", D=3, R=2)),
    ]


def _id(c):
    name, cfg = c
    return name + "[" + ",".join(f"{k}={v}" for k, v in cfg.items()) + "]"


@pytest.mark.parametrize("config", CONFIGS, ids=[_id(c) for c in CONFIGS])
def test_core_matches_model(config):
    name, cfg = config
    alg = lookup(name)
    params = alg.parse({k: str(v) for k, v in cfg.items()})
    core = alg.build(params)
    assert core.steps == alg.cycles(params)
    assert core.latency == core.steps + 1
    rng = random.Random(hash(_id(config)) & 0xffff)
    pairs = alg.cases(params) + [alg.random_operands(params, rng) for _ in range(VECTORS)]
    results = simulate(core, pairs, lambda a, b: alg.model(params, a, b), stall_every=9)
    assert len(results) == len(pairs)
    assert {lat for _, lat in results} == {core.steps + 1}


@pytest.mark.parametrize("name", ["gfpm-mse-shu", "gfpm-mse-digit", "gfpm-lse-digit"])
def test_paper_size_core_gf3_97(name):
    """GF(3^97) = F_3[x]/(x^97+x^16-1) at D = 8: a few vectors through the simulator."""
    alg = lookup(name)
    params = alg.parse({"p": "3", "m": "97", "poly": "paper", "D": "8"})
    rng = random.Random(97)
    pairs = alg.cases(params)[:6] + [alg.random_operands(params, rng) for _ in range(10)]
    results = simulate(alg.build(params), pairs, lambda a, b: alg.model(params, a, b))
    assert {lat for _, lat in results} == {alg.cycles(params) + 1}


@pytest.mark.parametrize("name", ["gfpm-mse-horner", "gfpm-mse-shu", "gfpm-mse-digit",
                                  "gfpm-mse-pipelined", "gfpm-lse-basic", "gfpm-lse-digit",
                                  "gfpm-lse-nam", "gfpm-lse-pipelined"])
def test_verilog_gf2_163(name):
    """GF(2^163) (NIST) at D = 16, R = 4 converts to Verilog; GF(2^163) D = 16 also
    simulates a few vectors."""
    alg = lookup(name)
    fields = [f[0] for f in alg.param_help()]
    cfg = {k: v for k, v in dict(p="2", m="163", poly="paper", D="16", R="4").items() if k in fields}
    params = alg.parse(cfg)
    core = alg.build(params)
    text = to_verilog(core, alg.module_name(params))
    assert f"module {alg.module_name(params)}" in text
    rng = random.Random(163)
    pairs = alg.cases(params)[:4] + [alg.random_operands(params, rng) for _ in range(4)]
    results = simulate(alg.build(params), pairs, lambda a, b: alg.model(params, a, b))
    assert {lat for _, lat in results} == {alg.cycles(params) + 1}
