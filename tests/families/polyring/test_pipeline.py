"""poly-fast's `pipeline` (hw.PolyCore on hw.systolic.RegisteredFir): the registered array
against the model on Verilator and Icarus for each kind of stage count (none; the array
alone, its results into the output register; the products registered; cuts of the trees,
deeper than a tree of M = 2 and a tree of M = 8), a prime q's wide lanes into the reduction,
and the simulated latency n/M + S (+ R) the plan states; S = 1 is refused."""

import pytest

from modforge.errors import ParameterError
from modforge.registry import lookup
from modforge.sim.runners import SIMULATORS
from modforge.sim.verify import verify

CASES = [({"n": "16", "q": "8192", "small": "4", "M": "2"}, stages) for stages in (0, 2, 3)] + [
    ({"n": "64", "q": "8192", "small": "4", "M": "2"}, 6),     # 32 taps: two tap groups, each its copy of x
    ({"n": "32", "q": "4096", "small": "3", "M": "8"}, 5),     # four-lane sums: |x| <= 12, two digit chains
    ({"n": "24", "q": "65536", "M": "3"}, 4),                  # a full b: the products are multipliers
    ({"n": "64", "q": "3329", "M": "2"}, 3)]                   # a prime q: lazy lanes, then Barrett; two groups


@pytest.mark.sim
@pytest.mark.parametrize("cfg, stages", CASES, ids=[f"M{c['M']}-n{c['n']}-S{s}" for c, s in CASES])
def test_pipelined_against_model(tmp_path, cfg, stages):
    alg = lookup("poly-fast")
    params = alg.parse(cfg | {"pipeline": str(stages)})
    plan = alg.derived(params)
    design, results = verify(alg, params, tmp_path, 200, list(SIMULATORS))
    for result in results:
        assert result.ok, result.log[-3000:]
        assert result.latency == design.latency == alg.latency(params) == plan.beats + stages + plan.R
        assert result.initiation_interval == alg.initiation_interval(params) == plan.beats


def test_cycle_formula():
    """One multiplication 2n/M - 1 + S, the response n/M + S, the initiation interval n/M
    whatever S; the design's info states the same."""
    alg = lookup("poly-fast")
    for stages in (0, 2, 4, 8):
        p = alg.parse({"n": "256", "M": "4", "small": "4", "pipeline": str(stages)})
        assert (alg.latency(p), alg.cycles(p), alg.initiation_interval(p)) == (64 + stages, 127 + stages, 64)
        info = alg.extra_info(p)
        assert (info["response_cycles"], info["one_multiplication_cycles"]) == (64 + stages, 127 + stages)


def test_one_stage_is_refused():
    with pytest.raises(ParameterError) as e:
        lookup("poly-fast").parse({"n": "64", "M": "4", "pipeline": "1"})
    assert e.value.argument == "pipeline" and "0 or at least 2" in str(e.value)
    with pytest.raises(ParameterError):
        lookup("poly-fast").parse({"n": "64", "M": "4", "pipeline": "9"})
