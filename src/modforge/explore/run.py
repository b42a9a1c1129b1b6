"""The coordinator of a sweep: skip what the database has, hand the rest to a runner, store
each result as it arrives (so a sweep killed at any moment loses only the points in flight).
"""

from __future__ import annotations

import collections
import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .runners import Runner, failed_records
from .store import Key, Store, tool_versions
from .sweep import Point, Sweep


@dataclasses.dataclass
class Summary:
    jobs: int = 0  # (point, target) pairs in the sweep
    skipped: int = 0  # already in the database (done, or failed without --retry-failed)
    done: int = 0
    failed: int = 0
    seconds: float = 0.0
    runner: str = ""
    failures: list = dataclasses.field(default_factory=list)  # (algorithm, params, target, message)

    @property
    def remaining(self) -> int:
        return self.jobs - self.skipped - self.done - self.failed


def _task(point: Point, targets: list[tuple[str, float, str]], keep: str | Path | None, cache: bool = True) -> dict:
    return {"cache": cache, "algorithm": point.algorithm, "params": point.params, "param_hash": point.param_hash,
            "targets": targets, "vectors": point.vectors, "simulators": list(point.simulators),
            "seed": point.seed, "timeout": point.timeout, "sweep": point.sweep,
            "keep": str(keep) if keep else None}


def run_sweep(sweep: Sweep, store: Store, runner: Runner, retry_failed: bool = False, keep: str | Path | None = None,
              on_progress: Callable[[Summary], None] | None = None, poll: float = 1.0,
              on_record: Callable[[dict, Summary], None] | None = None, synth_cache: bool = True) -> Summary:
    """Run every job of `sweep` not yet in `store`. Returns the counts. on_progress(summary) is
    told whenever the counts change, on_record(record, summary) of each result as it is stored.
    synth_cache=False: the workers run the synthesis tools even for a result the cache holds."""
    start = time.perf_counter()
    summary = Summary(runner=runner.describe())
    versions = {(p.algorithm, t): tool_versions(t, p.algorithm) for p in sweep.points for t in p.targets}
    stored = store.statuses()

    def key(point: Point, target: str) -> Key:
        return (point.param_hash, target, point.freq_for(target), versions[point.algorithm, target])

    def settled(status: str | None) -> bool:
        return status == "done" or (status == "failed" and not retry_failed)

    jobs = sweep.jobs()
    summary.jobs = len(jobs)
    by_point: dict[int, tuple[Point, list[str]]] = {}
    for point, target in jobs:
        if settled(stored.get(key(point, target))):
            summary.skipped += 1
        else:
            by_point.setdefault(id(point), (point, []))[1].append(target)
    queue = collections.deque(by_point.values())
    deferred: list[tuple[Point, list[str]]] = []
    in_flight: dict = {}  # future -> (task, keys)
    if on_progress:
        on_progress(summary)

    def take(point: Point, targets: list[str]) -> None:
        """Claim the point's targets; submit the claimed ones, defer those another sweep runs."""
        mine, busy = [], []
        for target in targets:
            k = key(point, target)
            status = store.status(k)
            if settled(status) and status is not None:
                summary.skipped += 1
                continue
            got = store.claim(k, stale_after=point.timeout * 4 + 600)
            if got == "stored":
                summary.skipped += 1
            elif got == "busy":
                busy.append(target)
            else:
                mine.append(target)
        if busy:
            deferred.append((point, busy))
        if mine:
            task = _task(point, [(t, point.freq_for(t), versions[point.algorithm, t]) for t in mine], keep,
                         synth_cache)
            fut = runner.submit(task)
            in_flight[fut] = (task, [key(point, t) for t in mine])
        elif on_progress:
            on_progress(summary)

    def finish(fut: Any) -> None:
        task, keys = in_flight.pop(fut)
        try:
            records = runner.result(fut)
        except Exception as exc:  # the worker died (a crash, a lost Dask worker): record and go on
            records = failed_records(task, f"worker failed: {type(exc).__name__}: {exc}")
        for rec in records:
            store.put(rec)
            if rec["status"] == "done":
                summary.done += 1
            else:
                summary.failed += 1
                summary.failures.append((rec["algorithm"], rec["params"], rec["target"], rec.get("message")))
            if on_record:
                on_record(rec, summary)
        for k in keys:
            store.release(k)
        if on_progress:
            on_progress(summary)

    try:
        while queue or in_flight or deferred:
            while queue and len(in_flight) < runner.slots:
                take(*queue.popleft())
            if in_flight:
                done, _ = runner.wait(list(in_flight), timeout=poll if deferred else None)
                for fut in done:
                    finish(fut)
            elif deferred and not queue:
                time.sleep(poll)  # another sweep runs these: look again when it may have stored them
                queue.extend(deferred)
                deferred.clear()
    finally:
        store.release_all()
        runner.close()
    summary.seconds = round(time.perf_counter() - start, 2)
    return summary
