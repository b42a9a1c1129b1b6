"""NTT hardware: generated Verilog against the model on Verilator and Icarus (small n,
random input stalls and output back-pressure in the testbench's second half, exact
latency and II in the first), deliberately broken variants that must fail, the export."""

import pytest
from amaranth.back import verilog

from modforge.design import generate
from modforge.families.ntt.algorithms import Forward
from modforge.registry import lookup
from modforge.sim.runners import SIMULATORS
from modforge.sim.verify import verify

CONFIGS = [
    ("ntt-forward", {"q": "0x800a000000000001", "n": "32", "pe": "4", "reduction": "wlm-mixed"}),
    ("ntt-inverse", {"q": "0x80130001", "n": "32", "pe": "2", "reduction": "k2red"}),
    ("ntt-inverse", {"q": "0x80014001", "n": "16", "pe": "1", "reduction": "montgomery", "dsp": "none"}),
    ("ntt-polymul", {"q": "0xfff00001", "n": "32", "pe": "4", "reduction": "barrett", "dsp": "none"}),  # F = 1
    ("ntt-polymul", {"q": "0x9e140001", "n": "16", "pe": "1", "reduction": "plantard", "dsp": "none"}),
    ("ntt-polymul", {"q": "0x80140001", "n": "16", "pe": "8", "reduction": "wlm", "dsp": "none"}),     # P = n/2
    # RNS: k residue polynomials per frame through one core with a run-time modulus
    ("ntt-polymul", {"q": "0xfff00001", "base": "0xffdf0001,0xffd50001", "logqh": "16", "n": "32", "pe": "4",
                     "reduction": "k2red"}),
    ("ntt-forward", {"q": "0x9fc00001", "base": "0x88000001", "logqh": "16", "n": "16", "pe": "2",
                     "reduction": "montgomery-shift", "rho": "A"}),
    ("ntt-inverse", {"q": "0xffe9800000000001", "base": "0xffe6800000000001", "n": "16", "pe": "8",
                     "reduction": "wlm-mixed"}),
    # two buffers: the next frame loads while one computes (polymul: b scaled by a pass)
    ("ntt-forward", {"q": "0x80014001", "n": "32", "pe": "2", "buffers": "2", "dsp": "none"}),
    ("ntt-polymul", {"q": "0x80014001", "n": "16", "pe": "4", "buffers": "2", "dsp": "none"}),
    ("ntt-polymul", {"q": "0xfff00001", "base": "0xffdf0001", "logqh": "16", "n": "16", "pe": "2",
                     "reduction": "k2red", "buffers": "2"}),
]
SETS = 6


def cid(c):
    return c[0] + "-" + "-".join(v.replace(",", "+") for v in c[1].values())


@pytest.mark.sim
@pytest.mark.parametrize("name,cfg", CONFIGS, ids=[cid(c) for c in CONFIGS])
def test_verify_both_simulators(tmp_path, name, cfg):
    alg = lookup(name)
    params = alg.parse(cfg)
    k = len(alg.moduli(params))
    design, results = verify(alg, params, tmp_path, SETS * k * (params.n // params.pe), list(SIMULATORS))
    assert design.frame_beats == k * params.n // params.pe
    for r in results:
        assert r.ok, r.log[-3000:]
        assert r.passed == SETS * design.frame_beats
        assert r.latency == alg.latency(params) and r.initiation_interval == alg.initiation_interval(params)


class WrongTwiddle(Forward):
    """One shared-ROM twiddle off by one: the model stays right, the hardware does not."""

    def build(self, params):
        core = super().build(params)
        core.plan.shared[1] = (core.plan.shared[1] + 1) % params.q
        return core


class WrongLatency(Forward):
    """The hardware claims one cycle more latency than it has."""

    def build(self, params):
        core = super().build(params)
        core.latency += 1
        return core


class EarlyPass(Forward):
    """The second pass starts one cycle before the schedule allows: it reads a stale row."""

    def build(self, params):
        core = super().build(params)
        assert core.plan.waits[0] > 0
        core.plan.waits[0] -= 1
        return core


@pytest.mark.sim
@pytest.mark.parametrize("broken, field", [(WrongTwiddle, "failed"), (WrongLatency, "latency_failures"),
                                           (EarlyPass, "failed")])
def test_broken_variants_fail(tmp_path, broken, field):
    alg = broken()
    params = alg.parse({"q": "0x80014001", "n": "16", "pe": "2", "dsp": "none"})
    _, results = verify(alg, params, tmp_path, 4, list(SIMULATORS))
    for r in results:
        assert not r.ok
        assert getattr(r, field) > 0, r.log[-2000:]


def test_verilog_export_is_deterministic(tmp_path):
    alg = lookup("ntt-polymul")
    params = alg.parse({"q": "0x9fc00001", "n": "16", "pe": "4", "reduction": "k2red-shift"})
    mod = alg.module_name(params)
    text = verilog.convert(alg.build(params), name=mod, strip_internal_attrs=True)
    assert f"module {mod}" in text
    assert text == verilog.convert(alg.build(params), name=mod, strip_internal_attrs=True)
    design = generate(alg, params, tmp_path / "d")
    assert design.frame_beats == 4 and design.input_width == 2 * 4 * 32 and design.output_width == 4 * 32
    assert design.latency == alg.latency(params) and design.cycles == alg.cycles(params)
    assert design.info["twiddle_words"] == alg.plan(params).twiddle_words()
    assert f"{mod}.v" in design.files
