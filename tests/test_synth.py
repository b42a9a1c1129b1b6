"""Generic synthesis: gates, flip-flops and depth parsed from a real Yosys run."""

import pytest

from modforge.design import generate
from modforge.synth.yosys import parse_stat, synthesize

from .sim.toy import Toy


def test_parse_stat():
    text = "      23   $_AND_\n       2   $_SDFF_PP0_\n      43   $_SDFFE_PP0P_\n       6   $_NOT_\n"
    assert parse_stat(text) == {"AND": 23, "SDFF_PP0": 2, "SDFFE_PP0P": 43, "NOT": 6}


@pytest.mark.synth
def test_generic_synthesis(tmp_path):
    alg = Toy()
    design = generate(alg, alg.parse({"w": "8"}), tmp_path)
    metrics = synthesize(design, "generic")
    # 8-bit a, 16-bit b and accumulator, a 3-bit step counter, busy and o.valid
    assert metrics["flip_flops"] == 8 + 16 + 16 + 3 + 2
    assert metrics["gates"] > 30 and metrics["depth"] > 5
    assert (tmp_path / "synth" / "generic" / "run.ys").exists()
