"""Generated Verilog is clean under `verilator --lint-only -Wall` (one design of every
registered algorithm's grid; the passes of modforge.verilog make it so)."""

import re
import shutil
import subprocess

import pytest

from modforge.design import generate
from modforge.registry import all_algorithms, lookup

# slow to generate (Amaranth alone takes ~25 s): linted in the slow tier
SLOW = {"poly-saber"}

def lint(directory, design) -> list[str]:
    run = subprocess.run(["verilator", "--lint-only", "-Wall", *design.files, "--top-module", design.top],
                         cwd=directory, capture_output=True, text=True)
    return re.findall(r"%Warning-\w+: .*", run.stderr)


@pytest.mark.sim
@pytest.mark.parametrize("alg", [pytest.param(a, id=a.name, marks=[pytest.mark.slow] if a.name in SLOW else [])
                                 for a in all_algorithms()])
def test_lint_clean(alg, tmp_path):
    if shutil.which("verilator") is None:
        pytest.skip("verilator is not installed")
    design = generate(alg, alg.parse(dict(alg.grid()[0])), tmp_path)
    warnings = lint(tmp_path, design)
    assert not warnings, "\n".join(warnings[:20])


@pytest.mark.sim
def test_lint_clean_datapath_module(tmp_path):
    """A module of datapath registers alone (a prime q's reduction lanes: no register takes
    rst) has its unread rst port waived, not flagged."""
    if shutil.which("verilator") is None:
        pytest.skip("verilator is not installed")
    alg = lookup("poly-fir")
    design = generate(alg, alg.parse({"n": "32", "q": "12289"}), tmp_path)
    assert any("lane0" in f for f in design.files)
    warnings = lint(tmp_path, design)
    assert not warnings, "\n".join(warnings[:20])


@pytest.mark.sim
def test_lint_clean_deep_pipeline(tmp_path):
    """depth=deep's carry-select sums (hw.dsp.fast_sum) leave no wire with bits unread, also
    where the caller reads only a product's top (Montgomery's t q) or leaves the last carry."""
    if shutil.which("verilator") is None:
        pytest.skip("verilator is not installed")
    alg = lookup("modmul-field-montgomery")
    design = generate(alg, alg.parse({"q": hex((1 << 130) - 5), "dsp": "ecp5", "depth": "deep"}), tmp_path)
    warnings = lint(tmp_path, design)
    assert not warnings, "\n".join(warnings[:20])
