"""Synthesis: every target on the toy design (w=8), the metrics record, the CLI's errors,
and a failing tool run recorded with its log tail. The figures come from real tool runs."""

import json

import pytest

from modforge.cli import main
from modforge.design import generate
from modforge.errors import ToolMissing
from modforge.synth import TARGETS, Metrics, synthesize as _synthesize
from modforge.synth.liberty import Table, parse_liberty
from modforge.synth.metrics import lut_equivalent
from modforge.synth.yosys import dsp_registers, ecp5_device, parse_area, parse_stat

from .sim.toy import Toy

TOY_FF = 8 + 16 + 16 + 3 + 2  # a, b, accumulator, 3-bit step counter, busy and o.valid


def synthesize(*args, **kwargs):
    try:
        return _synthesize(*args, **kwargs)
    except ToolMissing as exc:  # CI installs every tool (.ci/run), so it never skips
        pytest.skip(str(exc))


@pytest.fixture(autouse=True)
def _no_synth_cache(monkeypatch):
    """These tests look at what the tools write: every synthesis runs them (test_synth_cache.py
    tests the cache)."""
    monkeypatch.setenv("MODFORGE_NO_SYNTH_CACHE", "1")


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    alg = Toy()
    return generate(alg, alg.parse({"w": "8"}), tmp_path_factory.mktemp("toy"))


def test_parse_stat():
    text = "      23   $_AND_\n       2   $_SDFF_PP0_\n      43   $_SDFFE_PP0P_\n       6   $_NOT_\n"
    assert parse_stat(text) == {"AND": 23, "SDFF_PP0": 2, "SDFFE_PP0P": 43, "NOT": 6}
    lib = "      263    11189 cells\n        4      128   AND2X1\n       45     4320   DFFPOSX1\n" \
          "   Chip area for module '\\mf_toy': 11189.000000\n"
    assert parse_stat(lib) == {"AND2X1": 4, "DFFPOSX1": 45}
    assert parse_area(lib) == 11189.0


def test_parse_stat_counts_a_hierarchy_once():
    """Several modules: the per-module sections and the hierarchy totals must not add up
    (an NTT core with two butterflies of 6 DSPs has 12, not 24)."""
    text = """
=== top ===
      300   LUT3
        5   FDRE
        1   top.bf0
        1   top.bf1
=== top.bf0 ===
        6   DSP48E2
       20   FDRE
=== top.bf1 ===
        6   DSP48E2
       20   FDRE
=== design hierarchy ===
      320   top
       26   top.bf0
       26   top.bf1
       12   DSP48E2
      300   LUT3
       45   FDRE
      385 submodules
"""
    assert parse_stat(text) == {"DSP48E2": 12, "LUT3": 300, "FDRE": 45}


def test_liberty_table_interpolates():
    group = parse_liberty('library(x) { cell(A) { t(tmpl) { index_1 ("0.1, 0.2"); index_2 ("1, 3"); '
                          'values ( "1, 2", \\\n "3, 4"); } } }').groups[0].groups[0].groups[0]
    table = Table(group)
    assert table.at(0.1, 1) == pytest.approx(1)
    assert table.at(0.15, 2) == pytest.approx(2.5)
    assert table.at(0.3, 3) == pytest.approx(6)  # extrapolates past the last index


def test_metrics_derived_figures():
    m = Metrics(target="ecp5", top="t", latency_cycles=9, initiation_interval=9,
                lut=100, ff=45, dsp=1, bram=0, fmax_mhz=200.0).finish()
    assert m.latency_ns == pytest.approx(45.0)
    assert m.throughput_mops == pytest.approx(200 / 9)
    assert m.area == lut_equivalent(100, 45, 1, 0) == 100 + 22.5 + 100
    assert m.atp == pytest.approx(0.045 * 222.5)
    g = Metrics(target="generic", top="t", latency_cycles=9, gates=50, ff=45).finish()
    assert g.fmax_mhz is None and g.latency_ns is None and g.atp is None and g.area == 95


def _check_timing(m):
    assert m.fmax_mhz > 0
    assert m.latency_ns == pytest.approx(m.latency_cycles * 1000 / m.fmax_mhz)
    assert m.throughput_mops == pytest.approx(m.fmax_mhz / m.initiation_interval)


@pytest.mark.synth
def test_generic(toy):
    m = synthesize(toy, "generic")
    assert m.ok, m.message
    assert m.ff == TOY_FF
    assert 30 < m.gates < 1000 and 5 < m.depth < 100
    assert m.gates == sum(m.gates_by_type.values())
    assert m.fmax_mhz is None and m.atp is None and m.area == m.gates + m.ff
    assert (m.latency_cycles, m.initiation_interval, m.cycles) == (toy.latency, toy.initiation_interval, toy.cycles)
    for name in ("run.ys", "run.sh", "yosys.log", "stat.txt", "ltp.txt"):
        assert (toy.directory / "synth" / "generic" / name).exists()


@pytest.mark.synth
def test_asic(toy):
    m = synthesize(toy, "asic")
    assert m.ok, m.message
    assert m.ff == TOY_FF and m.gates_by_type["DFFPOSX1"] == TOY_FF
    assert 50 < m.cells < 2000 and m.cells == sum(m.gates_by_type.values())
    # a DFFPOSX1 is 96 um^2 in OSU 0.18 um; the rest is the adder, muxes and counter
    assert TOY_FF * 96 < m.cell_area_um2 < 100_000
    assert 0.5 < m.critical_path_ns < 20  # an 8-bit add and a mux: a few ns in 0.18 um
    assert m.fmax_mhz == pytest.approx(1000 / m.critical_path_ns, rel=1e-3)
    _check_timing(m)
    assert m.area == m.cell_area_um2 and m.area_time == pytest.approx(m.area * m.latency_ns / 1000)
    assert m.atp is None


@pytest.mark.synth
@pytest.mark.parametrize("family", ["xc7", "xcup"])
def test_xilinx(toy, family):
    m = synthesize(toy, family)
    assert m.ok, m.message
    assert m.ff == TOY_FF
    assert 10 < m.lut < 300 and m.lut == sum(m.lut_by_size.values())
    assert all(k.startswith("LUT") or k == "INV" for k in m.lut_by_size)
    assert m.carry >= 1  # the 16-bit accumulator adder uses the carry chain
    assert m.dsp == 0 and m.bram == 0 and m.dsp_registers == 0 and m.srl == 0
    assert m.area == m.lut + m.ff / 2 and m.fmax_mhz is None


def test_dsp_registers_counts_the_stages_packed_into_dsp_cells():
    """Yosys `dump t:DSP48*`: AREG 1 and BREG 2 and PREG 1'1 are four register stages; the
    cascade and mode registers are not data registers of the product."""
    dump = """
  cell \\DSP48E1 $mul.a
    parameter \\ACASCREG 1
    parameter signed \\ADREG 0
    parameter \\AREG 1
    parameter \\BREG 2
    parameter signed \\OPMODEREG 1
    parameter \\PREG 1'1
  end
  cell \\DSP48E1 $mul.b
    parameter signed \\MREG 0
  end
"""
    assert dsp_registers(dump) == 4 and dsp_registers("") == 0


@pytest.mark.synth
@pytest.mark.parametrize("target, device", [("ecp5", None), ("ecp5-static", "45k")])
def test_ecp5(toy, target, device):
    m = synthesize(toy, target, freq_mhz=50, device=device)
    assert m.ok, m.message
    # the toy fills the smallest part least; a part asked for is the one placed on
    assert m.freq_mhz == 50 and m.device == f"LFE5U-{(device or '25k').upper()}F"
    run_sh = (toy.directory / "synth" / target / "run.sh").read_text()
    assert ("--placer static" in run_sh) == (target == "ecp5-static")
    assert f"--{device or '25k'} " in run_sh
    assert m.ff == TOY_FF
    assert 20 < m.lut < 300 and m.lut_by_size["LUT4"] > 10
    assert m.dsp == 0 and m.bram == 0
    report = json.loads((toy.directory / "synth" / target / "report.json").read_text())
    assert m.fmax_mhz == pytest.approx(report["fmax"]["clk"]["achieved"], rel=1e-3)
    assert 50 < m.fmax_mhz < 1000
    _check_timing(m)
    assert m.atp == pytest.approx(m.latency_ns / 1000 * (m.lut + m.ff / 2 + 100 * m.dsp + 300 * m.bram))


def test_ecp5_device_leaves_headroom():
    assert ecp5_device({"LUT4": 500, "TRELLIS_FF": 900}) == "25k"
    # 64 multipliers fit the 45k's 72 but fill 89% of them: the 85k
    assert ecp5_device({"LUT4": 15327, "CCU2C": 3608, "MULT18X18D": 64, "DP16KD": 47}) == "85k"
    assert ecp5_device({"LUT4": 3652, "CCU2C": 927, "MULT18X18D": 16, "DP16KD": 18}) == "25k"
    # 20,453 LUT4 slots hold on the 25k (24,288) but fill 84%: the 45k
    assert ecp5_device({"LUT4": 20453}) == "45k"
    assert ecp5_device({"DP16KD": 57}) == "45k" and ecp5_device({"MULT18X18D": 200}) == "85k"


@pytest.mark.synth
def test_failed_tool_run_is_recorded(toy, tmp_path):
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / toy.files[0]).write_text("module broken(input a;\nendmodule\n")
    design = type(toy)(**{**vars(toy), "directory": broken, "top": "broken"})
    m = synthesize(design, "generic")
    assert m.status == "failed" and not m.ok
    assert "ERROR" in m.log_tail and "ERROR" in m.message
    assert m.gates is None and m.fmax_mhz is None
    assert (broken / "synth" / "generic" / "yosys.log").exists()


@pytest.mark.synth
def test_timeout_is_recorded(toy):
    m = synthesize(toy, "xc7", timeout=0.5)
    assert m.status == "timeout" and "timed out" in m.message


@pytest.mark.parametrize("args", [["--target", "vivado"], ["--target", "ecp5", "--freq", "0"],
                                  ["--target", "ecp5", "--freq", "-5"], ["--timeout", "0"],
                                  ["--target", "ecp5", "--device", "12k"], ["--target", "xcup", "--device", "85k"]])
def test_cli_rejects_bad_input(args, capsys):
    assert main(["synth", "gf2n-rffiko", "n=163", *args]) == 2
    err = capsys.readouterr().err
    assert "synth: argument '--" in err and "Traceback" not in err


@pytest.mark.synth
def test_cli_json_and_failure_exit(tmp_path, capsys, monkeypatch):
    assert main(["synth", "gf2n-rffiko", "n=7", "--target", "xc7", "--json", "-o", str(tmp_path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == set(Metrics.__dataclass_fields__) and data["status"] == "ok" and data["ff"] > 7
    import modforge.synth.yosys as yosys
    monkeypatch.setattr(yosys, "script", lambda *a, **k: "read_verilog no_such_file.v\n")
    try:
        code = main(["synth", "gf2n-rffiko", "n=7", "--target", "generic", "-o", str(tmp_path)])
    except SystemExit as exc:  # how the synth command leaves with status 1
        code = exc.code
    assert code == 1
    assert "no_such_file.v" in capsys.readouterr().err


def test_targets():
    assert set(TARGETS) == {"generic", "asic", "xc7", "xcup", "ecp5", "ecp5-static"}
