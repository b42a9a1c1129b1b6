"""verify --netlist: the post-synthesis netlist of one small design of every family simulates
right with the same testbench and vectors (Yosys cell models); Icarus for all, Verilator and
the Xilinx flow once each (their builds cost most)."""

import re

import pytest

from modforge.cli import main
from modforge.registry import lookup
from modforge.sim.verify import verify

SMALLEST = {
    "gf2n": ("gf2n-blakely", {"n": "9", "poly": "x^9+x^5+1"}),
    "digitserial": ("gfpm-mse-digit", {"p": "3", "m": "11", "poly": "paper", "D": "3"}),
    "modmul": ("modmul-barrett", {"q": "251"}),
    "ntt": ("ntt-forward", {"q": "0x80014001", "n": "16", "pe": "1", "reduction": "montgomery", "dsp": "none"}),
    "polyring": ("poly-fir", {"n": "16", "q": "8192", "small": "4"}),
    "wordserial": ("rsa-montgomery", {"l": "64", "w": "16", "pe": "2"}),
    "fmlm3": ("fmlm3-transform", {"P": "8", "c": "1", "kind": "ct", "bfs": "1"}),
}


def test_every_family_has_a_netlist_case():
    from modforge.families import FAMILIES
    assert set(SMALLEST) == set(FAMILIES)


@pytest.mark.sim
@pytest.mark.synth
@pytest.mark.parametrize("family", sorted(SMALLEST))
def test_netlist_of_every_family_simulates_right(tmp_path, family):
    name, args = SMALLEST[family]
    algorithm = lookup(name)
    design, results = verify(algorithm, algorithm.parse(args), tmp_path, 40, ["icarus"], netlist="generic")
    assert results[0].ok, results[0].log[-2000:]
    assert (tmp_path / "netlist" / "generic" / "netlist.v").exists()
    netlist = (tmp_path / "netlist" / "generic" / "netlist.v").read_text()
    assert re.search(r"^\s*\\\$_(S?DFF|AND|XOR)\w*_ ", netlist, re.M)      # Yosys gate cells, not the RTL


@pytest.mark.sim
@pytest.mark.synth
@pytest.mark.parametrize("target", ["generic", "xc7"])
def test_verify_netlist_cli(tmp_path, capsys, target):
    sims = ["--sim", "icarus"] if target == "xc7" else []    # Verilator runs a netlist in the generic case
    code = main(["verify", "gf2n-blakely", "n=9", "poly=x^9+x^5+1", "--vectors", "30", "--netlist",
                 "--target", target, *sims, "-o", str(tmp_path / "run")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"post-synthesis netlist ({target})" in out and "PASS" in out and "FAIL" not in out
    if target == "xc7":
        assert "LUT" in (tmp_path / "run" / "netlist" / "xc7" / "netlist.v").read_text()


def test_netlist_target_needs_netlist(capsys):
    assert main(["verify", "gf2n-blakely", "n=9", "--target", "xc7"]) == 2
    assert "needs --netlist" in capsys.readouterr().err
