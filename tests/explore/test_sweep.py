"""Sweep files: expansion as a product, and every mistake refused before anything runs."""

import pytest

from modforge.cli import main
from modforge.errors import ParameterError
from modforge.explore import load
from tests.math.test_fmlm3 import TABLE6

from .conftest import REPO, write


def test_product_and_ranges(tmp_path):
    sweep = load(write(tmp_path, """
[[sweep]]
algorithm = "gfpm-mse-digit"
targets = ["ecp5", "generic"]
freq = 100
[sweep.params]
p = 2
m = [13, 17]
poly = "auto"
D = {range = [2, 8, 2]}
"""))
    assert len(sweep.points) == 2 * 4
    assert sorted({p.params["D"] for p in sweep.points}) == [2, 4, 6, 8]  # stop included
    assert len(sweep.jobs()) == 16
    assert all(p.simulators == ("verilator",) and p.vectors == 1000 for p in sweep.points)  # defaults
    assert sweep.points[0].params["poly"].startswith("x^13")  # canonical parameters


def test_param_tables_algorithm_lists_and_defaults(tmp_path):
    sweep = load(write(tmp_path, """
[defaults]
targets = ["generic", "xc7"]
simulators = ["icarus"]
[[sweep]]
name = "pairs"
algorithm = ["gf2n-blakely", "gf2n-bmm"]
[[sweep.params]]
n = [9, 16]
poly = "auto"
[[sweep.params]]
n = 17
poly = "type1"
[[sweep]]
algorithm = "gf2n-blakely"
targets = ["generic"]
[sweep.params]
n = 9
poly = "auto"
"""))
    assert len(sweep.points) == 2 * 3 + 1
    assert {p.sweep for p in sweep.points} == {"pairs", "sweep#2"}
    # the last point repeats a (design, target) pair of the first sweep: one job for both
    assert len(sweep.jobs()) == 2 * 3 * 2
    assert all(p.simulators == ("icarus",) for p in sweep.points)


def test_freq_matters_only_for_ecp5(tmp_path):
    sweep = load(write(tmp_path, """
[[sweep]]
algorithm = "gf2n-blakely"
targets = ["ecp5", "generic"]
freq = [100, 200]
[sweep.params]
n = 9
"""))
    jobs = sweep.jobs()
    assert sorted((t, p.freq_for(t)) for p, t in jobs) == [("ecp5", 100.0), ("ecp5", 200.0), ("generic", 0.0)]


@pytest.mark.parametrize("text, argument", [
    ('[[sweep]]\nalgoritm = "gf2n-blakely"\n', "algoritm"),  # typo at the sweep level
    ('[[sweep]]\nalgorithm = "gf2n-blakely"\n[sweep.params]\nN = 9\n', "N"),  # typo'd parameter
    ('[[sweep]]\nalgorithm = "gf2n-blakely"\n[sweep.params]\nn = {range = [12, 9]}\n', "n"),  # empty range
    ('[[sweep]]\nalgorithm = "gf2n-blakely"\n[sweep.params]\nn = {range = [9, 12, 0]}\n', "n"),
    ('[[sweep]]\nalgorithm = "gf2n-blakely"\n[sweep.params]\nn = []\n', "n"),  # empty list
    ('[[sweep]]\nalgorithm = "gf2n-blakely"\n[sweep.params]\nn = {rang = [9, 12]}\n', "n"),
    ('[[sweep]]\nalgorithm = "gf2n-blakely"\ntargets = ["ecp5", "virtex"]\n', "targets"),  # unknown target
    ('[[sweep]]\nalgorithm = "gf2n-blakely"\ntargets = []\n', "targets"),
    ('[[sweep]]\nalgorithm = "gf2n-blakely"\nfreq = 0\n', "freq"),  # frequency <= 0
    ('[[sweep]]\nalgorithm = "gf2n-blakely"\nfreq = -100\n', "freq"),
    ('[[sweep]]\nalgorithm = "gf2n-blakely"\nsimulators = ["modelsim"]\n', "simulators"),
    ('[[sweep]]\nalgorithm = "gf2n-blakely"\nvectors = 0\n', "vectors"),
    ('[[sweep]]\nalgorithm = "gf2n-blakly"\n', "algorithm"),  # unknown algorithm
    ('[[sweep]]\ntargets = ["generic"]\n', "algorithm"),  # missing
    ('[[sweep]]\nalgorithm = "gf2n-rffiko"\n[sweep.params]\nn = 9\npoly = "type2"\n', "poly"),  # refused
    ('[[sweep]]\nalgorithm = "gf2n-blakely"\n[sweep.params]\nn = [9, 1]\n', "n"),  # one bad point of many
    ('[defaults]\ntarget = ["ecp5"]\n[[sweep]]\nalgorithm = "gf2n-blakely"\n', "target"),
    ('[sweeps]\nalgorithm = "gf2n-blakely"\n', "sweeps"),  # unknown top-level table
    ('title = "x"\n', "title"),
    ('', "sweep"),  # no sweep at all
])
def test_bad_sweep_files(tmp_path, text, argument):
    with pytest.raises(ParameterError) as info:
        load(write(tmp_path, text))
    assert info.value.argument == argument
    assert "sweep" in str(info.value) or "gf2n" in str(info.value)


def test_cli_refuses_before_running(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = write(tmp_path, '[[sweep]]\nalgorithm = "gf2n-blakely"\n[sweep.params]\nn = 9\nD = 4\n')
    assert main(["explore", str(path), "--db", "x.sqlite"]) == 2
    err = capsys.readouterr().err
    assert "'D' is not a parameter of gf2n-blakely" in err and "Traceback" not in err
    assert not (tmp_path / "x.sqlite").exists()  # nothing ran, no database made
    assert main(["explore", str(tmp_path / "missing.toml")]) == 2
    assert main(["explore", str(write(tmp_path, 'x = ')), "--db", "x.sqlite"]) == 2
    assert "valid TOML" in capsys.readouterr().err
    good = write(tmp_path, '[[sweep]]\nalgorithm = "gf2n-blakely"\n[sweep.params]\nn = 9\n', "good.toml")
    assert main(["explore", str(good), "--workers", "-1", "--db", "x.sqlite"]) == 2
    assert main(["explore", str(good), "--scheduler", "localhost:8786", "--db", "x.sqlite"]) == 2
    assert not (tmp_path / "x.sqlite").exists()


def test_shipped_sweeps_expand():
    paper = load(REPO / "sweeps" / "rffiko_paper.toml")
    # Blakely, Montgomery, BMM, FIKO on F1..F4' and RF-FIKO on F1, F2; four targets
    assert len(paper.points) == 4 * 4 + 2 and len(paper.jobs()) == 18 * 4
    assert {p.params["poly"] for p in paper.points if p.params["n"] == 571} == {"x^571+x+1"}
    survey = load(REPO / "sweeps" / "survey_tables.toml")
    # Table 1: 2 algorithms; Tables 2-3: 3 algorithms x 8 digit sizes; Table 4: 3; five fields each
    assert len(survey.points) == 5 * (2 + 3 * 8 + 3) and len(survey.jobs()) == 145 * 3
    assert {p.params["m"] for p in survey.points} == {163, 233, 283, 409, 571}
    assert {p.params["D"] for p in survey.points if p.sweep == "survey-tables2-3"} == set(range(4, 33, 4))


def test_dry_run(tmp_path, capsys):
    assert main(["explore", str(REPO / "sweeps" / "survey_tables.toml"), "--dry-run", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"jobs": 435' in out and '"points": 145' in out


def test_only_named_sweeps(tmp_path, capsys):
    path = REPO / "sweeps" / "ntt_paper.toml"
    sweep = load(path, only=["table5-6-xcup-pingpong", "table5-ecp5"])
    assert sorted(p.sweep for p in sweep.points) == ["table5-6-xcup-pingpong", "table5-ecp5", "table5-ecp5"]
    assert len(load(path).points) > len(sweep.points)
    with pytest.raises(ParameterError, match=r"'--only' must name a sweep of .*table5-ecp5.*got --only=table9"):
        load(path, only=["table5-ecp5", "table9"])
    assert main(["explore", str(path), "--only", "table9", "--dry-run"]) == 2
    assert "table5-6-xcup" in capsys.readouterr().err


def test_fmlm3_sweep_has_every_table6_row():
    """sweeps/fmlm3_paper.toml: each Table 6 set on xcup and xc7, twice (bfs 2 and the gray
    bfs 1) where the paper lists it twice, and rsa-montgomery at every l."""
    sweep = load(REPO / "sweeps" / "fmlm3_paper.toml")
    xilinx = [p.params for p in sweep.points if p.algorithm == "rsa-fmlm3" and p.targets == ("xcup", "xc7")]
    rows = {(p["l"], p["algorithm"], p["P"], p["u"]): p for p in xilinx}
    assert len(xilinx) == 18 and set(rows) == {(bits, alg, P, u) for bits, alg, _, P, u in TABLE6}
    for bits, alg, K, P, u in TABLE6:
        c = rows[(bits, alg, P, u)]["c"]
        assert (P // 2 if c == "1/2" else int(c) * P) == K
    assert {p.params["l"] for p in sweep.points if p.algorithm == "rsa-montgomery"} == {bits for bits, *_ in TABLE6}


def test_summary_line_reads(tmp_path, capsys, monkeypatch):
    """'1 job in this process', not '1 jobs on in this process'; '1 point' in a dry run."""
    from modforge import explore
    from modforge.explore.run import Summary
    from modforge.explore.runners import InlineRunner
    path = write(tmp_path, '[defaults]\nsimulators = ["icarus"]\ntargets = ["generic"]\n'
                           '[[sweep]]\nalgorithm = "gf2n-blakely"\n[sweep.params]\nn = 9\n')
    assert main(["explore", str(path), "--dry-run"]) == 0
    assert "1 point, 1 (point, target) job;" in capsys.readouterr().out
    monkeypatch.setattr(explore, "run_sweep", lambda sweep, store, runner, **kw: Summary(
        jobs=1, done=1, seconds=1.0, runner=runner.describe()))
    monkeypatch.setattr("modforge.sim.runners.tool_path", lambda sim: sim)
    monkeypatch.setattr("modforge.synth.check", lambda target, freq=None: None)
    assert main(["explore", str(path), "--workers", "0", "--db", str(tmp_path / "x.sqlite")]) == 0
    assert f"{path}: 1 job in this process: 1 done, 0 failed" in capsys.readouterr().out
    assert InlineRunner().describe() == "in this process"


def test_db_that_cannot_be_written(tmp_path, capsys):
    path = write(tmp_path, '[[sweep]]\nalgorithm = "gf2n-blakely"\n[sweep.params]\nn = 9\n')
    assert main(["explore", str(path), "--db", "/proc/modforge.sqlite"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: explore: argument '--db' must be a folder that can be created and written"), err
