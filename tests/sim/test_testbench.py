"""The generated testbench must fail designs that are wrong, on both simulators."""

import pytest

from modforge.sim.runners import SIMULATORS
from modforge.sim.verify import verify
from .toy import Toy

pytestmark = pytest.mark.sim


@pytest.mark.parametrize("simulator", SIMULATORS)
@pytest.mark.parametrize("bug", ["none", "value", "latency"])
def test_testbench_catches(tmp_path, simulator, bug):
    alg = Toy()
    params = alg.parse({"w": "6", "bug": bug})
    design, [result] = verify(alg, params, tmp_path, 300, [simulator])
    assert result.vectors == 300
    if bug == "none":
        assert result.ok, result.log[-2000:]
        assert result.latency == design.latency == 7
        assert result.initiation_interval == design.initiation_interval == 7
    elif bug == "value":
        # the corner case (2, 3) and every random product equal to 6 come out wrong
        assert not result.ok and result.failed >= 1 and result.latency_failures == 0
    else:
        assert not result.ok and result.latency_failures == result.vectors and result.failed == 0
