"""target_mhz= on the pipelined modular multipliers: its rules (before anything is generated),
the chosen mask as the canonical pipeline (the timing model stubbed), and one 32-bit core whose
chosen pipeline verifies on both simulators with the latency design.json claims."""

import json
import subprocess
import sys

import pytest

from modforge.design import generate
from modforge.errors import ParameterError
from modforge.registry import lookup
from modforge.synth import timing

K2RED = {"q": "0x80130001", "logqh": "16", "dsp": "ecp5"}       # 7 stages with the product


@pytest.mark.parametrize("name, args, rule", [
    ("modmul-k2red", {**K2RED, "dsp": "dsp48e2"}, "needs dsp=ecp5"),
    ("modmul-montgomery", {"q": "0x80014001", "dsp": "none"}, "needs dsp=ecp5"),
])
def test_rules(monkeypatch, name, args, rule):
    monkeypatch.setattr(timing, "pipeline_for", lambda *a: pytest.fail("the model ran before the rules"))
    with pytest.raises(ParameterError) as e:
        lookup(name).parse({**args, "target_mhz": "100"})
    assert e.value.argument == "target_mhz" and rule in e.value.rule and e.value.algorithm == name


@pytest.mark.parametrize("value, rule", [("-5", "at least 0"), ("fast", "must be a number"), ("inf", "at least 0")])
def test_bad_values(value, rule):
    with pytest.raises(ParameterError) as e:
        lookup("modmul-k2red").parse({**K2RED, "target_mhz": value})
    assert e.value.argument == "target_mhz" and rule in e.value.rule


def test_cli_error_is_one_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "modforge.cli", "generate", "modmul-k2red", "q=0x80130001",
                           "logqh=16", "target_mhz=100", "-o", str(tmp_path / "out")], capture_output=True, text=True)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: modmul-k2red: argument 'target_mhz' needs dsp=ecp5")
    assert not (tmp_path / "out").exists()


def stub(monkeypatch, mask, period, met=True, reg_period=0.0):
    seen = []

    def pipeline_for(core, top, stages, target_mhz):
        core._MustUse__silence = True          # not elaborated: no Yosys here
        seen.append((stages, target_mhz))
        return timing.Choice(tuple(c == "1" for c in mask), period, met, reg_period)
    monkeypatch.setattr(timing, "pipeline_for", pipeline_for)
    return seen


def test_the_choice_is_the_canonical_pipeline(monkeypatch, tmp_path):
    seen = stub(monkeypatch, "0101011", 8.0)
    alg = lookup("modmul-k2red")
    params = alg.parse({**K2RED, "target_mhz": "110"})
    assert seen == [(7, 110.0)]
    assert params.pipeline == "0101011" and params.target_mhz == 110
    # the canonical params (both named) parse to themselves; another explicit mask is refused
    assert alg.parse({**K2RED, "target_mhz": "110", "pipeline": "0101011"}) == params
    with pytest.raises(ParameterError) as e:
        alg.parse({**K2RED, "target_mhz": "110", "pipeline": "1111111"})
    assert e.value.argument == "target_mhz" and "chooses pipeline=0101011, not the pipeline=1111111" in e.value.rule
    design = generate(alg, params, tmp_path)
    assert design.latency == 4
    info = json.loads((tmp_path / "design.json").read_text())["info"]
    assert info["target_mhz"] == 110 and info["predicted_mhz"] == 125.0 and info["target_met"]


def test_synth_prints_predicted_beside_achieved(monkeypatch, tmp_path, capsys):
    from modforge.cli.design import print_metrics
    from modforge.synth import Metrics
    stub(monkeypatch, "1001011", 8.0, reg_period=5.0)
    alg = lookup("modmul-k2red")
    design = generate(alg, alg.parse({**K2RED, "target_mhz": "120"}), tmp_path)
    capsys.readouterr()
    print_metrics(design, "ecp5", Metrics(target="ecp5", top=design.top, fmax_mhz=118.5, freq_mhz=100.0).finish())
    out = " ".join(capsys.readouterr().out.split())
    assert ("Fmax 118.5 MHz (asked 100.0, predicted 125.0 MHz for target_mhz=120, 200.0 MHz without the input "
            "ports' paths") in out


def test_a_missed_target_keeps_every_stage_and_says_so(monkeypatch):
    stub(monkeypatch, "11111", 10.0, met=False)
    alg = lookup("modmul-wlm-mixed")
    params = alg.parse({"q": "0x800a000000000001", "logqh": "17", "reduce_only": "1", "dsp": "ecp5",
                        "target_mhz": "400"})
    assert params.pipeline == ""                               # every stage: the default design
    info = alg.plan(params).info
    assert not info["target_met"] and "misses 400 MHz" in info["target_note"]


@pytest.mark.synth
@pytest.mark.sim
def test_chosen_pipeline_verifies_on_both_simulators(tmp_path):
    """One synth_ecp5 run (cached) of the full pipeline, the model's choice, then the core on
    Verilator and Icarus: the results and the latency design.json states."""
    from modforge.sim.runners import SIMULATORS
    from modforge.sim.verify import verify
    alg = lookup("modmul-k2red")
    params = alg.parse({**K2RED, "target_mhz": "100"})
    full = alg.parse(K2RED)
    assert 0 < sum(alg.derived(params).keep) < alg.derived(full).stage_count    # registers merged
    design, results = verify(alg, params, tmp_path, 300, list(SIMULATORS))
    claimed = json.loads((tmp_path / "design.json").read_text())
    assert claimed["latency"] == design.latency == claimed["info"]["pipeline"].count("1")
    assert claimed["info"]["predicted_mhz"] >= 100 and claimed["info"]["target_met"]
    for result in results:
        assert result.ok and result.passed == result.vectors >= 300, result.log[-3000:]
        assert result.latency == design.latency and result.initiation_interval == 1


@pytest.mark.synth
@pytest.mark.sim
def test_an_ntt_core_hands_the_target_to_its_reduction(tmp_path):
    """ntt-* target_mhz: the reduction's stages as modmul's target_mhz chooses them (the
    butterfly's depth follows), the core right on both simulators at its claimed latency."""
    from modforge.sim.runners import SIMULATORS
    from modforge.sim.verify import verify
    alg = lookup("ntt-forward")
    params = alg.parse({"q": "0x80130001", "n": "16", "pe": "2", "reduction": "k2red", "dsp": "ecp5",
                        "target_mhz": "100"})
    reduction = alg.derived(params).reduction
    assert reduction.target_mhz == 100 and 0 < reduction.pipeline.count("1") < len(reduction.pipeline)
    assert "target_mhz100" in alg.module_name(params)
    design, results = verify(alg, params, tmp_path, 3 * 8, list(SIMULATORS))
    assert json.loads((tmp_path / "design.json").read_text())["info"]["reduction_predicted_mhz"] >= 100
    for result in results:
        assert result.ok, result.log[-3000:]
        assert result.latency == alg.latency(params)
