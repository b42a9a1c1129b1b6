"""modmul hardware against the models in amaranth.sim (random input stalls, output
back-pressure, in-order results; latency = cycles and II = 1 without stalls), and the
Verilog export."""

import random
from itertools import pairwise

import pytest

from modforge.registry import lookup
from modforge.verilog import to_verilog

from ._simutil import run_stream

CONFIGS = [
    ("modmul-montgomery", {"q": "0x80014001"}),
    ("modmul-montgomery", {"q": "0xffffffffffe40001", "dsp": "none"}),
    ("modmul-montgomery", {"q": "0xFFFFFFFB", "beta": "35", "dsp": "ecp5"}),
    ("modmul-barrett", {"q": "0xfff00001"}),
    ("modmul-barrett", {"q": "0xffffffffffe40001", "dsp": "ecp5"}),
    ("modmul-barrett", {"q": str((1 << 127) - 1), "dsp": "dsp48e1"}),
    ("modmul-plantard", {"q": "0x9e140001"}),
    ("modmul-plantard", {"q": "0xffffffffffe40001", "beta": "65"}),
    ("modmul-wlm", {"q": "0x80140001", "logqh": "16"}),
    ("modmul-wlm", {"q": "0xfffde001", "logqh": "19"}),              # lambda = 3
    ("modmul-wlm", {"q": "0x8000000000080001", "logqh": "47"}),
    ("modmul-wlm", {"q": "0xffffffffffe40001", "dsp": "none"}),
    ("modmul-wlm-mixed", {"q": "0x80140001", "logqh": "15"}),
    ("modmul-wlm-mixed", {"q": "0x800a000000000001", "logqh": "17"}),
    ("modmul-wlm-mixed", {"q": "0x800a000000000001", "logqh": "17", "dsp": "ecp5"}),
    ("modmul-wlm-mixed", {"q": "0x8000002500000001", "logqh": "32", "dsp": "none"}),
    ("modmul-k2red", {"q": "0x80130001", "logqh": "16"}),
    ("modmul-k2red", {"q": "0x8000118000000001", "logqh": "26"}),
    ("modmul-k2red", {"q": "0xffffffff00000001", "dsp": "dsp48e1"}),
    ("modmul-k2red-shift", {"q": "0x9fc00001", "logqh": "16"}),
    ("modmul-k2red-shift", {"q": "0x9fc00001", "logqh": "16", "rho": "A"}),
    ("modmul-k2red-shift", {"q": "0x800a000000000001", "logqh": "17", "rho": "A"}),
    ("modmul-montgomery-shift", {"q": "0x9fc00001", "logqh": "16"}),
    ("modmul-montgomery-shift", {"q": "0x9fc00001", "logqh": "16", "rho": "A"}),
    ("modmul-montgomery-shift", {"q": "0x800a000000000001", "logqh": "17", "rho": "A"}),
    # the reduction alone (input x <= (q-1)^2, two stages fewer)
    ("modmul-montgomery", {"q": "0x80014001", "reduce_only": "1"}),
    ("modmul-barrett", {"q": "0xffffffffffe40001", "dsp": "ecp5", "reduce_only": "1"}),
    ("modmul-plantard", {"q": "0x9e140001", "reduce_only": "1"}),
    ("modmul-wlm", {"q": "0xfffde001", "logqh": "19", "reduce_only": "1"}),
    ("modmul-wlm-mixed", {"q": "0x800a000000000001", "logqh": "17", "reduce_only": "1"}),
    ("modmul-k2red", {"q": "0x8000118000000001", "logqh": "26", "reduce_only": "1"}),
    ("modmul-k2red-shift", {"q": "0x9fc00001", "logqh": "16", "rho": "A", "reduce_only": "1"}),
    ("modmul-montgomery-shift", {"q": "0x800a000000000001", "logqh": "17", "reduce_only": "1"}),
    # a run-time q_h beside the operands
    ("modmul-wlm", {"q": "0xfffde001", "logqh": "19", "qh_input": "1"}),
    ("modmul-wlm", {"q": "0x8000000000080001", "logqh": "47", "dsp": "ecp5", "qh_input": "1"}),
    ("modmul-wlm-mixed", {"q": "0x800a000000000001", "logqh": "17", "qh_input": "1"}),
    ("modmul-wlm-mixed", {"q": "0x80140001", "logqh": "15", "reduce_only": "1", "qh_input": "1"}),
    ("modmul-k2red", {"q": "0x8000118000000001", "logqh": "26", "qh_input": "1"}),
    ("modmul-k2red", {"q": "0x80130001", "logqh": "16", "dsp": "none", "qh_input": "1"}),
    # run-time shift amounts (Proth-2l: l1, l2; Proth-3l: l1, l2, l3)
    ("modmul-k2red-shift", {"q": "0x9fc00001", "logqh": "16", "shift_input": "1"}),
    ("modmul-k2red-shift", {"q": "0xd800000000000001", "logqh": "17", "rho": "A", "shift_input": "1"}),
    ("modmul-montgomery-shift", {"q": "0x9fc00001", "logqh": "16", "rho": "A", "shift_input": "1"}),
    ("modmul-montgomery-shift", {"q": "0xd800000000000001", "logqh": "17", "shift_input": "1"}),
    ("modmul-montgomery-shift", {"q": "0xfff00001", "logqh": "16", "reduce_only": "1", "shift_input": "1"}),
]


def cid(c):
    return c[0] + "-" + "-".join(f"{v}" for v in c[1].values())


@pytest.mark.parametrize("name,cfg", CONFIGS, ids=[cid(c) for c in CONFIGS])
def test_hw_matches_model(name, cfg):
    alg = lookup(name)
    params = alg.parse(cfg)
    rng = random.Random(7)
    vectors = alg.cases(params) + [alg.random_operands(params, rng) for _ in range(150)]
    widths = [o.width for o in alg.operands(params)]
    offsets = [sum(widths[:k]) for k in range(len(widths))]
    payloads = [sum(v << off for v, off in zip(vec, offsets, strict=True)) for vec in vectors]
    expect = [alg.model(params, *vec) for vec in vectors]
    core = alg.build(params)
    assert core.latency == alg.latency(params) == alg.cycles(params) and core.initiation_interval == 1
    assert alg.cycles(params) == alg.derived(params).reduction.stages - 2 * params.reduce_only
    outs, _, _ = run_stream(core, payloads, seed=3, stalls=True)
    assert outs == expect
    outs, lats, acc = run_stream(alg.build(params), payloads[:60], stalls=False)
    assert outs == expect[:60]
    assert set(lats) == {alg.latency(params)}
    assert {b - a for a, b in pairwise(acc)} == {1}


@pytest.mark.parametrize("name", sorted({c[0] for c in CONFIGS}))
def test_verilog_export(name):
    alg = lookup(name)
    params = alg.parse(alg.grid()[-1])
    mod = alg.module_name(params)
    text = to_verilog(alg.build(params), mod)
    assert f"module {mod}" in text
    assert text == to_verilog(alg.build(params), mod)
