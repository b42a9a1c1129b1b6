"""NTT hardware: generated Verilog against the model on Verilator and Icarus (small n,
random input stalls and output back-pressure in the testbench's second half, exact
latency and II in the first), deliberately broken variants that must fail, the export."""

import dataclasses
import random
import re

import pytest

from modforge.design import generate
from modforge.families.ntt.algorithms import Forward
from modforge.registry import lookup
from modforge.sim.runners import SIMULATORS
from modforge.sim.verify import verify
from modforge.verilog import to_verilog
from tests.streams import play

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
    # a run-time prime: the testbench loads another prime through cfg before the first frame
    ("ntt-forward", {"q": "0x9fc00001", "logqh": "16", "n": "32", "pe": "4", "reduction": "k2red-shift",
                     "rho": "A", "twiddles": "load"}),
    ("ntt-inverse", {"q": "0x800a000000000001", "n": "16", "pe": "2", "reduction": "wlm-mixed",
                     "twiddles": "load"}),
    ("ntt-polymul", {"q": "0x80140001", "n": "32", "pe": "4", "reduction": "wlm", "dsp": "none",
                     "twiddles": "load"}),                                       # b scaled at load
    ("ntt-polymul", {"q": "0x80130001", "n": "16", "pe": "2", "reduction": "k2red", "buffers": "2",
                     "twiddles": "load"}),                                       # b scaled by a pass
    ("ntt-polymul", {"q": "0xfff00001", "base": "0xffdf0001", "logqh": "16", "n": "16", "pe": "2",
                     "reduction": "k2red", "twiddles": "load"}),                 # an RNS base loaded
    # the standards' rings: ML-KEM's incomplete NTT and FIPS 203's base case (products, basecase)
    ("ntt-polymul", {"profile": "ml-kem", "pe": "2", "reduction": "k2red", "dsp": "none"}),
    ("ntt-polymul", {"profile": "ml-kem", "pe": "8", "reduction": "barrett", "dsp": "none", "buffers": "2"}),
    ("ntt-forward", {"profile": "ml-kem", "pe": "1", "reduction": "montgomery", "dsp": "none"}),
    # one butterfly with the base case: a pair is word i of a set's two banks
    ("ntt-polymul", {"q": "7681", "n": "16", "pe": "1", "incomplete": "1", "reduction": "montgomery", "dsp": "none"}),
    ("ntt-basemul", {"q": "7681", "n": "16", "pe": "1", "incomplete": "1", "reduction": "montgomery", "dsp": "none",
                     "buffers": "2"}),                                           # b scaled by a pass
    # reset=all: the butterflies' registers take rst as well
    ("ntt-forward", {"q": "0x80014001", "n": "16", "pe": "2", "dsp": "none", "reset": "all"}),
]
SETS = 6


def cid(c):
    return c[0] + "-" + "-".join(v.replace(",", "+") for v in c[1].values())


# the default tier runs one case of each behaviour the conformance test's smallest cores do
# not show: an RNS base loaded through cfg, two buffers with a prime loaded, ML-KEM's base
# case, the base case with one butterfly, reset=all; -m slow all
DEFAULT_TIER = {"ntt-polymul-0x80130001-16-2-k2red-2-load", "ntt-polymul-0xfff00001-0xffdf0001-16-16-2-k2red-load",
                "ntt-polymul-ml-kem-2-k2red-none", "ntt-polymul-7681-16-1-1-montgomery-none",
                "ntt-forward-0x80014001-16-2-none-all"}
CASES = [pytest.param(*c, id=cid(c), marks=[] if cid(c) in DEFAULT_TIER else [pytest.mark.slow]) for c in CONFIGS]


def test_the_default_tier_cases_exist():
    assert DEFAULT_TIER <= {cid(c) for c in CONFIGS}


@pytest.mark.sim
@pytest.mark.parametrize("name,cfg", CASES)
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
        prime = core.plan.primes[0]
        shared = (prime.shared[0], (prime.shared[1] + 1) % params.q, *prime.shared[2:])
        core.plan = dataclasses.replace(core.plan, primes=(dataclasses.replace(prime, shared=shared),))
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
        first, second, *rest = core.plan.starts
        assert core.plan.waits[0] > 0
        core.plan = dataclasses.replace(core.plan, starts=(first, second - 1, *rest))
        return core


class StaleConfig(Forward):
    """twiddles=load, but the testbench writes the generation prime's words while the vectors
    follow the loaded prime: what the core computes must depend on what cfg wrote."""

    def verification_config(self, params):
        loaded, _ = super().verification_config(params)
        return loaded, self.config_words(params, self.moduli(params))


LOAD = {"q": "0x9fc00001", "logqh": "16", "reduction": "montgomery-shift", "twiddles": "load"}


@pytest.mark.sim
@pytest.mark.parametrize("broken, field, extra", [(WrongTwiddle, "failed", {}),
                                                  (WrongLatency, "latency_failures", {}),
                                                  (EarlyPass, "failed", {}), (StaleConfig, "failed", LOAD)])
def test_broken_variants_fail(tmp_path, broken, field, extra):
    alg = broken()
    params = alg.parse({"q": "0x80014001", "n": "16", "pe": "2", "dsp": "none", **extra})
    _, results = verify(alg, params, tmp_path, 4, list(SIMULATORS))
    for r in results:
        assert not r.ok
        assert getattr(r, field) > 0, r.log[-2000:]


def test_verilog_export_is_deterministic(tmp_path):
    alg = lookup("ntt-polymul")
    params = alg.parse({"q": "0x9fc00001", "n": "16", "pe": "4", "reduction": "k2red-shift"})
    mod = alg.module_name(params)
    text = to_verilog(alg.build(params), mod)
    assert f"module {mod}" in text
    assert text == to_verilog(alg.build(params), mod)
    design = generate(alg, params, tmp_path / "d")
    assert design.frame_beats == 4 and design.input_width == 2 * 4 * 32 and design.output_width == 4 * 32
    assert design.latency == alg.latency(params) and design.cycles == alg.cycles(params)
    assert design.info["twiddle_words"] == alg.derived(params).twiddle_words
    assert f"{mod}.v" in design.files


ROM_Q = {"q": "7681", "n": "16", "pe": "2"}
RAM_Q = {"q": "0x80140001", "n": "16", "pe": "2", "reduction": "wlm", "twiddles": "load"}     # run-time q


@pytest.mark.parametrize("memory, read_register, ring, style, info",
                         [("auto", "0", ROM_Q, None, "any"), ("auto", "1", ROM_Q, "block", "block"),
                          ("block", "0", ROM_Q, "block", "block"), ("any", "1", ROM_Q, None, "any"),
                          ("lut", "1", ROM_Q, "logic", "lut"), ("lut", "0", RAM_Q, "distributed", "lut")])
def test_twiddle_memory_marks_the_roms(memory, read_register, ring, style, info):
    """twiddle_memory: the ROMs carry ram_style = "block" (block, or auto with read_register=1),
    "logic" (lut; RAMs with twiddles=load "distributed": LUT RAM) or none; design.json says
    which."""
    alg = lookup("ntt-forward")
    params = alg.parse(ring | {"twiddle_memory": memory, "read_register": read_register})
    text = to_verilog(alg.build(params), alg.module_name(params))
    roms = len(re.findall(r"reg \[\d+:0\] tw_\w+ \[", text))
    assert roms > 0 and len(re.findall(r'ram_style = "\w+"', text)) == (roms if style else 0)
    assert text.count(f'(* ram_style = "{style}" *)') == (roms if style else 0)
    assert alg.extra_info(params)["twiddle_memory"] == info


@pytest.mark.sim
@pytest.mark.parametrize("name, buffers, base", [("ntt-polymul", "1", ""), ("ntt-forward", "2", ""),
                                                 ("ntt-inverse", "1", "0xfff00001")])
def test_load_between_frames(name, buffers, base):
    """amaranth.sim: frames of the reset moduli, then others loaded, then the reset ones
    again, each cfg write offered right behind the last beat of a frame (the core must hold
    it off until that frame is out of its pipeline), with input stalls and back-pressure."""
    alg = lookup(name)
    p = alg.parse({"q": "0x80130001", "base": base, "n": "16", "pe": "2", "reduction": "k2red",
                   "buffers": buffers, "twiddles": "load"})
    own, other, rng = alg.moduli(p), alg.runtime_primes(p), random.Random(7)
    script, expected = [], []
    for primes, load in [(own, False), (own, False), (other, True), (other, False), (own, True)]:
        pq = alg.with_moduli(p, primes)
        ops = alg.random_operands(pq, rng)
        script += [("cfg", w) for w in (alg.config_words(p, primes) if load else [])]
        script += [("i", b) for b in alg.in_beats(pq, ops)]
        expected += alg.out_beats(pq, alg.model(pq, *ops))
    core = alg.build(p)

    def beat(ops):
        return sum(x << (k * core.plan.P * alg.width(p)) for k, x in enumerate(ops))

    script = [(port, beat(payload) if port == "i" else payload) for port, payload in script]
    outs = play(core, script, len(expected), rng, len(script) * 8 + 20 * alg.latency(p))
    assert outs == expected


@pytest.mark.sim
@pytest.mark.parametrize("registers", [("0", "0"), ("1", "1")], ids=["plain", "registered"])
@pytest.mark.parametrize("name, cfg", [
    ("ntt-polymul", {"q": "0x80140001", "n": "16", "pe": "4", "reduction": "wlm", "dsp": "none"}),
    ("ntt-basemul", {"q": "7681", "n": "16", "pe": "1", "incomplete": "1", "reduction": "montgomery", "dsp": "none",
                     "buffers": "2"}),
    ("ntt-inverse", {"q": "0xfff00001", "base": "0xffdf0001", "logqh": "16", "n": "16", "pe": "2",
                     "reduction": "k2red"}),
], ids=["polymul", "basemul-pe1", "rns"])
def test_random_frames_from_reset(name, cfg, registers):
    """Random frames from the first after reset on, under stalls (a core that computes its
    first frame wrong passed the testbench while its vectors opened with a frame of zeros:
    the pass controller's registers one cycle ahead, issue 38), with and without
    read_register and unit_register."""
    alg = lookup(name)
    p = alg.parse({**cfg, "read_register": registers[0], "unit_register": registers[1]})
    rng = random.Random(5)
    ops = [alg.random_operands(p, rng) for _ in range(3)]
    core = alg.build(p)
    width = core.plan.P * alg.width(p)
    beats = [sum(x << (k * width) for k, x in enumerate(b)) for o in ops for b in alg.in_beats(p, o)]
    expected = [b for o in ops for b in alg.out_beats(p, alg.model(p, *o))]
    cycles = 8 * (3 * alg.initiation_interval(p) + 2 * alg.latency(p))
    assert play(core, [("i", b) for b in beats], len(expected), rng, cycles) == expected
