"""Generated Verilog is clean under `verilator --lint-only -Wall` (one design of every
registered algorithm's grid; tidy.py and design.to_verilog make it so)."""

import re
import shutil
import subprocess

import pytest

from modforge.design import generate
from modforge.registry import all_algorithms
from modforge.tidy import tidy

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


def test_tidy_narrows_extends_and_renames():
    rtlil = "\n".join([
        "module \\top", "  wire width 4 input 0 \\a", "  wire width 8 input 1 \\b", "  wire width 4 output 2 \\y",
        "  wire width 9 $1", "  wire width 3 \\unread", "  wire width 0 \\empty",
        "  cell $sub $2", "    parameter \\A_SIGNED 0", "    parameter \\B_SIGNED 0", "    parameter \\A_WIDTH 4",
        "    parameter \\B_WIDTH 8", "    parameter \\Y_WIDTH 9", "    connect \\A \\a [3:0]",
        "    connect \\B \\b [7:0]", "    connect \\Y $1", "  end",
        "  cell \\top.sub $3", "    connect \\x $1 [3:0]", "    connect \\o \\y", "  end",
        "end", "module \\top.sub", "  wire width 4 input 0 \\x", "  wire width 4 output 1 \\o",
        "connect \\o \\x", "end", ""])
    out = tidy(rtlil, "top")
    assert "wire width 4 $1" in out and "parameter \\Y_WIDTH 4" in out     # only the read bits
    assert "connect \\A { 4'0000 \\a [3:0] }" not in out                      # narrowed first: A fits
    assert "connect \\B \\b [3:0]" in out and "parameter \\B_WIDTH 4" in out
    assert "\\empty" not in out and "module \\top__sub" in out and "cell \\top__sub $3" in out
    assert "unread" not in out                                                # an alias nothing reads


def test_tidy_shifts_slices_and_defaults():
    rtlil = "\n".join([
        "module \\top", "  wire width 8 input 0 \\a", "  wire width 8 input 1 \\b", "  wire width 5 output 2 \\y",
        "  wire width 2 output 3 \\z", "  wire width 1 output 4 \\w", "  wire width 4 $1", "  wire width 1 $2",
        "  cell $shr $3", "    parameter \\A_SIGNED 0", "    parameter \\B_SIGNED 0", "    parameter \\A_WIDTH 8",
        "    parameter \\B_WIDTH 2", "    parameter \\Y_WIDTH 5", "    connect \\A \\a [7:0]",
        "    connect \\B 2'11", "    connect \\Y \\y", "  end",
        "  cell $xor $4", "    parameter \\A_SIGNED 0", "    parameter \\B_SIGNED 0", "    parameter \\A_WIDTH 4",
        "    parameter \\B_WIDTH 4", "    parameter \\Y_WIDTH 4", "    connect \\A \\a [3:0]",
        "    connect \\B \\b [3:0]", "    connect \\Y $1", "  end",
        "  process $5", "    assign $2 [0] 1'0", "    switch \\a [1:0]", "      case 2'01",
        "        assign $2 [0] 1'1", "    end", "  end",
        "connect \\z $1 [3:2]", "connect \\w $2 [0]", "end", ""])
    out = tidy(rtlil, "top")
    assert "$shr" not in out and "connect \\y [4:0] \\a [7:3]" in out               # a >> 3: a slice
    assert "wire width 2 $1" in out and "connect \\A \\a [3:2]" in out          # only the xor's read bits
    assert "connect \\z [1:0] $1 [1:0]" in out
    assert "      case 2'01\n        assign $2 [0] 1'1\n      case\n    end" in out   # a default case
