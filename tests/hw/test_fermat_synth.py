"""The Multiply Adder's DSPs after synthesis: a Karatsuba product of the 64-bit parts takes 9
DSP48E2 (xcup), as the plan (hw.dsp.karatsuba_dsps) and the paper (Table 6) say; the other
profiles in the slow tier. DSP counts are deterministic."""

import tempfile
from pathlib import Path

import pytest

from modforge.errors import ToolMissing
from modforge.hw.dsp import DSP_PROFILES, karatsuba_dsps
from modforge.hw.fermat import MulAdd
from modforge.synth.yosys import block_cells
from modforge.verilog import to_verilog

CELL = {"xcup": "DSP48E2", "xc7": "DSP48E1", "ecp5": "MULT18X18D"}


def dsps(profile: str, target: str, K: int = 64) -> int:
    ma = MulAdd(K, DSP_PROFILES[profile])
    text = to_verilog(ma, "top", ports=[ma.a, ma.b, ma.c, ma.o])
    with tempfile.TemporaryDirectory() as tmp:
        try:
            cells = block_cells(text, target, Path(tmp))
        except ToolMissing as exc:      # CI installs every tool, so it never skips
            pytest.skip(str(exc))
    return cells.get(CELL[target], 0)


@pytest.mark.synth
def test_mul_add_dsps_xcup():
    assert karatsuba_dsps(64, DSP_PROFILES["dsp48e2"]) == 9
    assert dsps("dsp48e2", "xcup") == 9


@pytest.mark.synth
@pytest.mark.slow
@pytest.mark.parametrize("profile, target", [("dsp48e1", "xc7"), ("ecp5", "ecp5")])
def test_mul_add_dsps_other_profiles(profile, target):
    assert dsps(profile, target) == karatsuba_dsps(64, DSP_PROFILES[profile]) == 9
