"""The clean-up passes and optimisations of modforge.verilog on small RTLIL texts."""

import pytest

from modforge.verilog.export import run_passes
from modforge.verilog.passes import OPTIMISATIONS, PASSES
from modforge.verilog.rtlil import Netlist
from modforge.verilog.waivers import WAIVERS


def test_passes_narrow_extend_and_rename():
    rtlil = "\n".join([
        "module \\top", "  wire width 4 input 0 \\a", "  wire width 8 input 1 \\b", "  wire width 4 output 2 \\y",
        "  wire width 9 $1", "  wire width 3 \\unread", "  wire width 0 \\empty",
        "  cell $sub $2", "    parameter \\A_SIGNED 0", "    parameter \\B_SIGNED 0", "    parameter \\A_WIDTH 4",
        "    parameter \\B_WIDTH 8", "    parameter \\Y_WIDTH 9", "    connect \\A \\a [3:0]",
        "    connect \\B \\b [7:0]", "    connect \\Y $1", "  end",
        "  cell \\top.sub $3", "    connect \\x $1 [3:0]", "    connect \\o \\y", "  end",
        "end", "module \\top.sub", "  wire width 4 input 0 \\x", "  wire width 4 output 1 \\o",
        "connect \\o \\x", "end", ""])
    out = run_passes(rtlil, "top")
    assert "wire width 4 $1" in out and "parameter \\Y_WIDTH 4" in out     # only the read bits
    assert "connect \\A { 4'0000 \\a [3:0] }" not in out                      # narrowed first: A fits
    assert "connect \\B \\b [3:0]" in out and "parameter \\B_WIDTH 4" in out
    assert "\\empty" not in out and "module \\top__sub" in out and "cell \\top__sub $3" in out
    assert "unread" not in out                                                # an alias nothing reads


def test_passes_shift_slices_and_defaults():
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
    out = run_passes(rtlil, "top")
    assert "$shr" not in out and "connect \\y [4:0] \\a [7:3]" in out               # a >> 3: a slice
    assert "wire width 2 $1" in out and "connect \\A \\a [3:2]" in out          # only the xor's read bits
    assert "connect \\z [1:0] $1 [1:0]" in out
    assert "      case 2'01\n        assign $2 [0] 1'1\n      case\n    end" in out   # a default case


ADD = "\n".join([
    "module \\top", "  wire width 8 input 0 \\a", "  wire width 8 input 1 \\b", "  wire width 4 output 2 \\y",
    "  wire width 4 output 3 \\z", "  wire width 9 $1", "  wire width 8 $2",
    "  cell $add $3", "    parameter \\A_SIGNED 0", "    parameter \\B_SIGNED 0", "    parameter \\A_WIDTH 8",
    "    parameter \\B_WIDTH 8", "    parameter \\Y_WIDTH 9", "    connect \\A \\a", "    connect \\B \\b",
    "    connect \\Y $1", "  end",
    "  cell $xor $4", "    parameter \\A_SIGNED 0", "    parameter \\B_SIGNED 0", "    parameter \\A_WIDTH 8",
    "    parameter \\B_WIDTH 8", "    parameter \\Y_WIDTH 8", "    connect \\A \\a", "    connect \\B \\b",
    "    connect \\Y $2", "  end",
    "  connect \\y $1 [3:0]", "  connect \\z $2 [7:4]", "end", ""])


def test_optimisations_one_by_one():
    full = run_passes(ADD, "top")
    assert "parameter \\Y_WIDTH 9" in full                           # keep_add_width: the sum keeps its bits
    assert "attribute \\lint_unused" in full                           # ... and its unread ones are waived
    assert "wire width 4 $2" in full                                   # drop_low: the xor from bit 4 up
    narrowed = run_passes(ADD, "top", skip={"keep_add_width"})
    assert "wire width 4 $1" in narrowed and "lint_unused" not in narrowed
    no_low = run_passes(ADD, "top", skip={"drop_low"})
    assert "wire width 8 $2" in no_low and "connect \\z [3:0] $2 [7:4]" in no_low
    nothing = run_passes(ADD, "top", skip={"narrow", "drop_low"})
    assert "wire width 8 $2" in nothing and "wire width 9 $1" in nothing


def test_unknown_pass_is_refused():
    with pytest.raises(ValueError, match="no pass or optimisation named nope"):
        run_passes(ADD, "top", skip={"nope"})


def test_short_constants_read_whole():
    m = Netlist("module \\top\n  wire width 4 output 0 \\y\n  connect \\y 4'x\nend\n").modules[0]
    assert m.bits(["4'x"]) == ["x"] * 4 and m.bits(["4'1"]) == ["1", "0", "0", "0"]
    assert m.bits(["3'sx0"]) == ["0", "x", "x"]


def test_every_pass_is_documented():
    for p in PASSES:
        assert p.doc and p.kind in ("lint", "optimisation", "waiver"), p.name
    assert {"narrow", "drop_low", "keep_add_width"} == set(OPTIMISATIONS)
    assert all(w.rule and w.applies_to and w.reason for w in WAIVERS)
