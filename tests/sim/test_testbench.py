"""The generated testbench must fail designs that are wrong, on both simulators."""

import pytest

from modforge.sim.runners import SIMULATORS
from modforge.sim.verify import verify

from .toy import Toy, ToyFrame

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


@pytest.mark.parametrize("simulator", SIMULATORS)
@pytest.mark.parametrize("bug", ["none", "ii"])
def test_frames(tmp_path, simulator, bug):
    """Operand sets of several beats: every beat checked, frame spacing checked."""
    alg = ToyFrame()
    params = alg.parse({"beats": "4", "bug": bug})
    design, [result] = verify(alg, params, tmp_path, 200, [simulator])  # 50 frames of 4 beats
    assert result.vectors == 200
    assert result.passed == 200 and result.failed == 0 and result.latency == 2
    if bug == "none":
        assert result.ok and result.initiation_interval == 4
    else:
        assert not result.ok and result.ii_failures > 0


def test_verilator_build_cache(tmp_path, monkeypatch):
    """The second verification of the same design runs the cached build, and passes."""
    monkeypatch.setenv("MODFORGE_CACHE", str(tmp_path / "cache"))
    alg = Toy()
    params = alg.parse({"w": "5"})
    runs = [verify(alg, params, tmp_path / f"run{k}", 100, ["verilator"])[1][0] for k in range(2)]
    assert [r.build_cached for r in runs] == [False, True]
    assert all(r.ok for r in runs)
    assert len(list((tmp_path / "cache" / "verilator").iterdir())) == 1
