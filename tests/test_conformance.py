"""Every registered algorithm, every configuration of its grid: the generated Verilog
against the bit-exact model on Verilator and Icarus, with corner cases, random vectors,
stalls and back-pressure, and the cycle count its formula claims. A vector is a beat: an
algorithm whose operand set streams as a frame of several beats (an NTT polynomial) runs
enough frames for at least VECTORS beats (sim.verify.operand_sets)."""

import os

import pytest

from modforge.registry import all_algorithms
from modforge.sim.runners import SIMULATORS
from modforge.sim.verify import verify

VECTORS = int(os.environ.get("MODFORGE_VECTORS", "1000"))

CONFIGS = [(alg, cfg) for alg in all_algorithms() for cfg in alg.grid()]


def config_id(item):
    alg, cfg = item
    return alg.name + "[" + ",".join(f"{k}={v}" for k, v in cfg.items()) + "]"


def test_every_algorithm_has_a_grid():
    assert all(alg.grid() for alg in all_algorithms())


@pytest.mark.sim
@pytest.mark.parametrize("simulator", SIMULATORS)
@pytest.mark.parametrize("item", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_model_vs_simulation(tmp_path, item, simulator):
    alg, cfg = item
    params = alg.parse(cfg)
    design, [result] = verify(alg, params, tmp_path, VECTORS, [simulator])
    assert result.ok, result.log[-3000:]
    assert result.passed == result.vectors >= VECTORS
    # the cycle counts the algorithm's formulas claim are the ones the hardware takes
    assert design.cycles == alg.cycles(params)
    assert result.latency == design.latency == alg.latency(params)
    assert result.initiation_interval == design.initiation_interval == alg.initiation_interval(params)


EXTENDED = [(alg, cfg) for alg in all_algorithms() for cfg in alg.extended_grid()]


@pytest.mark.slow
@pytest.mark.sim
@pytest.mark.parametrize("simulator", SIMULATORS)
@pytest.mark.parametrize("item", EXTENDED, ids=[config_id(c) for c in EXTENDED])
def test_extended_configurations(tmp_path, item, simulator):
    """The large configurations (n = 512, 1024, ...), as the default set checks its grid."""
    test_model_vs_simulation(tmp_path, item, simulator)


@pytest.mark.slow
@pytest.mark.parametrize("simulator", SIMULATORS)
@pytest.mark.parametrize("item", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_extended_100k(tmp_path, item, simulator):
    """The extended run: 100,000 vectors (beats) with another seed (`pytest -m slow`)."""
    alg, cfg = item
    params = alg.parse(cfg)
    _, [result] = verify(alg, params, tmp_path, 100_000, [simulator], seed=2)
    assert result.ok, result.log[-3000:]
    assert result.passed == result.vectors >= 100_000
