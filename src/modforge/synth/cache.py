"""The synthesis cache: one Metrics record (JSON) per synthesis in the cache folder's synth/,
so `synth` and `explore` (and `best`, which reads what explore stored) run the tools once for
a design, a target and a set of options on a machine.

An entry's name is a hash of everything that decides its figures: every Verilog file Yosys
reads (name and text, in order), the Yosys script (top, target) and the tool command lines
(clock, seed, placer, ...), the liberty file (asic), the design's cycle counts (they enter
the record), the `--version` of each tool that runs (read once per process) and a digest of
modforge's synthesis code (it turns the tools' reports into the record). Only the record is
kept, not the netlists or logs: on a hit the run folder holds the scripts (run.ys, run.sh)
but no log.

A failed or timed-out run is never kept. An entry is written to a temporary file beside it
and renamed into place (os.replace: atomic), so concurrent workers, local or on a cluster
sharing the folder, never read half of one; an entry that cannot be read or parsed is a
miss. $MODFORGE_NO_SYNTH_CACHE=1 turns the cache off (as `synth --no-cache` and `explore
--no-cache` do); `modforge cache clear` empties it, `modforge cache info` counts it.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path

from ..cache import cache_dir
from ..proc import die_with_parent
from .metrics import Metrics

SUB = "synth"
SUFFIX = ".json"
TIMING = "timing"        # synth/timing.py's synth_ecp5 netlists (target_mhz), cleared with the records


def enabled() -> bool:
    return os.environ.get("MODFORGE_NO_SYNTH_CACHE", "") in ("", "0")


@functools.cache
def tool_version(exe: str) -> str | None:
    """The tool's `--version` line(s), once per process; None when it does not answer (then
    nothing is cached: a result must never outlive the tool that made it unnoticed)."""
    try:
        proc = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=120,
                              preexec_fn=die_with_parent)
    except (OSError, subprocess.SubprocessError):
        return None
    text = (proc.stdout + proc.stderr).strip()
    return text if proc.returncode == 0 and text else None


@functools.cache
def code_digest() -> str:
    """A digest of modforge's synthesis code (this package): its scripts and report parsers
    (timing.py, the generator's delay model, decides no record)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in Path(__file__).parent.glob("*.py") if p.name != "timing.py"):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def make_key(parts: Iterable[str | bytes], exes: Iterable[str]) -> str | None:
    """The entry name of a synthesis from what decides it (`parts`) and the tools it runs; None
    when a tool's version cannot be read."""
    digest = hashlib.sha256(b"modforge-synth-cache-1\0" + code_digest().encode())
    for exe in exes:
        version = tool_version(exe)
        if version is None:
            return None
        parts = [*parts, version]
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little") + data)   # length-prefixed: no two splits collide
    return digest.hexdigest()


def folder() -> Path:
    return cache_dir(SUB)


def load(key: str) -> Metrics | None:
    """The cached record of `key`, or None: missing, unreadable or not a whole ok record."""
    try:
        data = json.loads((folder() / f"{key}{SUFFIX}").read_text())
        metrics = Metrics(**data)
    except (OSError, ValueError, TypeError):
        return None
    return metrics if metrics.ok else None


def save(key: str, metrics: Metrics) -> None:
    """Keep a successful record (without its run folder); a cache that cannot be written is
    no error, the result is only not kept."""
    if not metrics.ok:
        return
    record = dataclasses.replace(metrics, directory=None).as_dict()
    write_atomic(folder() / f"{key}{SUFFIX}", json.dumps(record, sort_keys=True).encode())


def write_atomic(path: Path, data: bytes) -> None:
    """Write an entry through a temporary file renamed into place (os.replace: atomic, a reader
    sees no entry or the whole one); a cache that cannot be written is no error."""
    partial = None
    try:
        handle, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name[:16]}.", suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(partial, path)
    except OSError:
        if partial is not None:
            Path(partial).unlink(missing_ok=True)


def entries() -> list[Path]:
    return sorted(folder().glob(f"*{SUFFIX}"))


def info() -> dict:
    files = entries()
    size = 0
    for path in files:
        try:
            size += path.stat().st_size
        except OSError:      # removed meanwhile by another process
            pass
    return {"folder": str(folder()), "entries": len(files), "bytes": size}


def clear() -> dict:
    """Remove every entry (and a writer's leftover temporary file), and target_mhz's netlists
    (synth/timing.py, the cache folder's timing/); what was removed."""
    before = info()
    timing = cache_dir(TIMING)
    for path in [*folder().glob(f"*{SUFFIX}"), *folder().glob(".*.tmp"), *timing.glob("*.json.gz"),
                 *timing.glob(".*.tmp")]:
        path.unlink(missing_ok=True)
    return before
