"""Every registered algorithm: the generated Verilog against the bit-exact model on Verilator
and Icarus, with corner cases, random vectors, stalls and back-pressure, and the cycle count
its formula claims. A vector is a beat: an algorithm whose operand set streams as a frame of
several beats (an NTT polynomial) runs enough frames for at least VECTORS beats
(sim.verify.operand_sets).

Tiers: the default run simulates the smallest configuration of every algorithm (the first
of its grid()) on both simulators; the rest of the grid and the extended_grid() run with
`-m slow` (test_extended_configurations), and every grid configuration with 100,000 vectors
(test_extended_100k)."""

import os
import re

import pytest

from modforge.design import generate
from modforge.registry import all_algorithms
from modforge.sim.runners import SIMULATORS
from modforge.sim.verify import verify

VECTORS = int(os.environ.get("MODFORGE_VECTORS", "1000"))

SMALLEST = [(alg, alg.grid()[0]) for alg in all_algorithms() if alg.grid()]
CONFIGS = [(alg, cfg) for alg in all_algorithms() for cfg in alg.grid()]
EXTENDED = [(alg, cfg) for alg in all_algorithms() for cfg in [*alg.grid()[1:], *alg.extended_grid()]]


def config_id(item):
    alg, cfg = item
    return alg.name + "[" + ",".join(f"{k}={v}" for k, v in cfg.items()) + "]"


def test_every_algorithm_has_a_smallest_configuration():
    """Every algorithm has a grid; its first configuration is the one the default tier runs."""
    assert all(alg.grid() for alg in all_algorithms())
    assert len(SMALLEST) == len(all_algorithms())


def verilog_bytes(directory, design) -> int:
    """The size of a design's Verilog without its comments (the header grows with the parameters)."""
    return sum(len(re.sub(r"//[^\n]*", "", (directory / name).read_text())) for name in design.files)


@pytest.mark.slow
@pytest.mark.parametrize("alg", [alg for alg in all_algorithms() if len(alg.grid()) > 1], ids=lambda alg: alg.name)
def test_the_first_configuration_is_the_smallest(tmp_path, alg):
    """The default tier's configuration is the grid's smallest Verilog, within 10 % (sizes a
    few hundred bytes apart may trade places when the back end changes; generating them all
    takes minutes: the slow tier checks it)."""
    sizes = [verilog_bytes(tmp_path / str(k), generate(alg, alg.parse(cfg), tmp_path / str(k)))
             for k, cfg in enumerate(alg.grid())]
    assert sizes[0] <= 1.1 * min(sizes), f"put {alg.grid()[sizes.index(min(sizes))]} first: {sizes}"


def check(tmp_path, item, simulator):
    alg, cfg = item
    params = alg.parse(cfg)
    design, [result] = verify(alg, params, tmp_path, VECTORS, [simulator])
    assert result.ok, result.log[-3000:]
    assert result.passed == result.vectors >= VECTORS
    # the cycle counts the algorithm's formulas claim are the ones the hardware takes
    assert design.cycles == alg.cycles(params)
    assert result.latency == design.latency == alg.latency(params)
    assert result.initiation_interval == design.initiation_interval == alg.initiation_interval(params)


@pytest.mark.sim
@pytest.mark.parametrize("simulator", SIMULATORS)
@pytest.mark.parametrize("item", SMALLEST, ids=[config_id(c) for c in SMALLEST])
def test_model_vs_simulation(tmp_path, item, simulator):
    """The smallest configuration of every algorithm, on both simulators."""
    check(tmp_path, item, simulator)


@pytest.mark.slow
@pytest.mark.sim
@pytest.mark.parametrize("simulator", SIMULATORS)
@pytest.mark.parametrize("item", EXTENDED, ids=[config_id(c) for c in EXTENDED])
def test_extended_configurations(tmp_path, item, simulator):
    """The rest of every grid and the large configurations (n = 512, 1024, ...), checked as
    the default tier checks the smallest."""
    check(tmp_path, item, simulator)


@pytest.mark.slow
@pytest.mark.sim
@pytest.mark.parametrize("simulator", SIMULATORS)
@pytest.mark.parametrize("item", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_extended_100k(tmp_path, item, simulator):
    """The extended run: 100,000 vectors (beats) with another seed (`pytest -m slow`)."""
    alg, cfg = item
    params = alg.parse(cfg)
    _, [result] = verify(alg, params, tmp_path, 100_000, [simulator], seed=2)
    assert result.ok, result.log[-3000:]
    assert result.passed == result.vectors >= 100_000
