"""The work of one sweep point and the places it runs.

`run_point(task)` generates, verifies and synthesizes one configuration for a list of
targets, in a worker, and returns one record per target (it never raises: whatever goes
wrong becomes a failed record). Runners hand tasks to workers and give back their
results; only the coordinating process writes to the database.

  InlineRunner   in this process, one at a time (workers = 0; tests, debugging)
  LocalRunner    a pool of local processes (the default, --workers N)
  DaskRunner     a Dask distributed cluster (--scheduler tcp://host:8786)
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import multiprocessing
import os
import shutil
import socket
import tempfile
import time
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

from ..proc import die_with_parent
from ..registry import lookup
from ..sim.runners import SimResult
from ..sim.verify import verify
from ..synth import synthesize
from .store import now

TAIL = 3000

#: the work of one task: its records (run_point, or a test's stand-in)
PointFn = Callable[[dict], list[dict]]


def _verification(results: list[SimResult]) -> dict:
    return {"ok": all(r.ok for r in results) and bool(results),
            "runs": [{k: v for k, v in dataclasses.asdict(r).items() if k != "log"} | {"ok": r.ok}
                     for r in results]}


def run_point(task: dict) -> list[dict]:
    """Generate + verify once, then synthesize for each target. One record per target.

    task: algorithm, params (canonical), param_hash, targets [(target, freq_mhz, tool_versions)],
    vectors, simulators, seed, timeout, sweep, keep (a folder to keep the runs in, or None), cache
    (False: run the synthesis tools even for a result the synthesis cache holds).
    """
    started, t0 = now(), time.perf_counter()
    base = {"algorithm": task["algorithm"], "params": task["params"], "param_hash": task["param_hash"],
            "sweep": task.get("sweep"), "host": socket.gethostname(), "started": started}

    def record(target: str, freq: float | None, tools: Any, **kw: Any) -> dict:
        return base | {"target": target, "freq_mhz": freq, "tool_versions": tools,
                       "seconds": round(time.perf_counter() - t0, 2), "finished": now()} | kw

    keep = task.get("keep")
    tmp = None
    if keep:
        directory = Path(keep) / f"{task['algorithm']}_{task['param_hash'][:12]}"
    else:
        tmp = tempfile.mkdtemp(prefix="modforge-sweep-")
        directory = Path(tmp)
    try:
        try:
            alg = lookup(task["algorithm"])
            base["family"] = alg.family
            params = alg.parse({k: str(v) for k, v in task["params"].items()})
            design, results = verify(alg, params, directory, task["vectors"], list(task["simulators"]),
                                     task.get("seed", 1))
            if design.param_hash != task["param_hash"]:
                raise RuntimeError(f"parameter hash changed in the worker: {design.param_hash} "
                                   f"!= {task['param_hash']}")
        except Exception as exc:  # a generator or simulator crash: the point failed verification
            return [record(t, f, v, status="failed", stage="verify",
                           message=f"verification crashed: {type(exc).__name__}: {str(exc)[:500]}",
                           log_tail=traceback.format_exc()[-TAIL:]) for t, f, v in task["targets"]]
        verification = _verification(results)
        if not verification["ok"]:
            bad = [r for r in results if not r.ok]
            why = "; ".join(f"{r.simulator}: {r.passed}/{r.vectors} pass, {r.failed} fail, "
                            f"latency fail {r.latency_failures}, II fail {r.ii_failures}, "
                            f"timeout {r.timeout}" for r in bad)
            return [record(t, f, v, status="failed", stage="verify", verification=verification,
                           message=f"verification failed: {why}", log_tail=bad[0].log[-TAIL:])
                    for t, f, v in task["targets"]]
        out = []
        for target, freq, tools in task["targets"]:
            try:
                m = synthesize(design, target, freq_mhz=freq or None, timeout=task.get("timeout", 3600),
                               cache=task.get("cache", True))
            except Exception as exc:
                out.append(record(target, freq, tools, status="failed", stage="synth", verification=verification,
                                  message=f"synthesis crashed: {type(exc).__name__}: {str(exc)[:500]}",
                                  log_tail=traceback.format_exc()[-TAIL:]))
                continue
            metrics = m.as_dict()
            if not keep:
                metrics["directory"] = None
            if m.ok:
                out.append(record(target, freq, tools, status="done", verification=verification, metrics=metrics))
            else:
                out.append(record(target, freq, tools, status="failed", stage="synth", verification=verification,
                                  metrics=metrics, message=(m.message or m.status)[:2000], log_tail=m.log_tail))
        return out
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


def failed_records(task: dict, message: str) -> list[dict]:
    """Records of a task whose worker died (a crashed process, a lost Dask worker)."""
    return [{"algorithm": task["algorithm"], "params": task["params"], "param_hash": task["param_hash"],
             "sweep": task.get("sweep"), "target": t, "freq_mhz": f, "tool_versions": v, "status": "failed",
             "stage": "worker", "message": message[:2000], "finished": now()} for t, f, v in task["targets"]]


class Runner(Protocol):
    """What explore.run asks of a runner: `slots` tasks in flight; futures are
    concurrent.futures' or Dask's."""

    slots: int

    def submit(self, task: dict) -> Any: ...

    def wait(self, futures: Iterable[Any], timeout: float | None = None) -> tuple[set[Any], set[Any]]: ...

    def result(self, fut: Any) -> list[dict]: ...

    def close(self) -> None: ...

    def describe(self) -> str: ...


class InlineRunner:
    """Runs each task in this process when it is submitted."""

    slots = 1

    def __init__(self, fn: PointFn | None = None) -> None:
        self.fn = fn or run_point

    def submit(self, task: dict) -> cf.Future:
        fut: cf.Future = cf.Future()
        try:
            fut.set_result(self.fn(task))
        except BaseException as exc:  # noqa: BLE001 - the coordinator records it
            if not isinstance(exc, Exception):
                raise
            fut.set_exception(exc)
        return fut

    def wait(self, futures: Iterable[cf.Future], timeout: float | None = None) -> tuple[set[Any], set[Any]]:
        return cf.wait(futures, timeout=timeout, return_when=cf.FIRST_COMPLETED)

    def result(self, fut: cf.Future) -> list[dict]:
        return fut.result()

    def close(self) -> None:
        pass

    def describe(self) -> str:
        return "in this process"


class LocalRunner(InlineRunner):
    """A pool of `workers` local processes (spawned, so no state leaks from the coordinator)."""

    def __init__(self, workers: int, fn: PointFn | None = None) -> None:
        self.fn = fn or run_point
        self.slots = workers
        self._new_pool()

    def _new_pool(self) -> None:
        self.pool = cf.ProcessPoolExecutor(self.slots, mp_context=multiprocessing.get_context("spawn"),
                                           initializer=die_with_parent, initargs=(os.getpid(),))

    def submit(self, task: dict) -> cf.Future:
        try:
            return self.pool.submit(self.fn, task)
        except cf.process.BrokenProcessPool:  # a worker died hard earlier: start a new pool
            self.pool.shutdown(wait=False, cancel_futures=True)
            self._new_pool()
            return self.pool.submit(self.fn, task)

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)

    def describe(self) -> str:
        return f"on {self.slots} local process{'es' if self.slots != 1 else ''}"


class DaskRunner:
    """Tasks on a Dask distributed cluster; slots = the workers' threads."""

    def __init__(self, address: str, fn: PointFn | None = None) -> None:
        try:
            from distributed import Client
        except ImportError as exc:  # pragma: no cover - a dependency of modforge
            from ..errors import ToolMissing
            raise ToolMissing("dask distributed is not installed: pip install 'dask[distributed]'") from exc
        self.fn = fn or run_point
        self.address = address
        self.client = Client(address, timeout="30s")
        threads = self.client.nthreads()
        self.slots = max(1, sum(threads.values()))

    def submit(self, task: dict) -> Any:
        # pure=False: a re-submitted task runs again instead of returning a cached failure
        return self.client.submit(self.fn, task, pure=False)

    def wait(self, futures: Iterable[Any], timeout: float | None = None) -> tuple[set[Any], set[Any]]:
        from distributed import wait
        try:
            res = wait(list(futures), timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return set(), set(futures)
        return set(res.done), set(res.not_done)

    def result(self, fut: Any) -> list[dict]:
        return fut.result()

    def close(self) -> None:
        self.client.close()

    def describe(self) -> str:
        return f"on the Dask cluster {self.address} ({self.slots} worker threads)"


def make_runner(workers: int | None = None, scheduler: str | None = None, fn: PointFn | None = None) -> Runner:
    from ..errors import ParameterError
    if scheduler:
        if not scheduler.startswith(("tcp://", "tls://", "inproc://", "ucx://", "ws://", "wss://")):
            raise ParameterError("explore", "--scheduler", "must be a Dask scheduler address like tcp://host:8786",
                                 scheduler)
        return DaskRunner(scheduler, fn)
    if workers is None:
        workers = max(1, (multiprocessing.cpu_count() or 1))
    if workers < 0:
        raise ParameterError("explore", "--workers", "must be >= 0 (0: in this process)", workers)
    return InlineRunner(fn) if workers == 0 else LocalRunner(workers, fn)
