"""Sweep files: TOML that names algorithms, parameter ranges and targets.

    [defaults]                      # optional: any sweep key, for every [[sweep]] below
    simulators = ["verilator"]

    [[sweep]]
    name = "table3"                 # optional label, stored with each result
    algorithm = "gfpm-mse-digit"    # one name or a list (a product with the parameters)
    targets = ["ecp5", "generic"]   # generic, asic, xc7, xcup, ecp5, ecp5-static (default ["generic"])
    freq = 100                      # MHz, the ecp5 place-and-route clock; a list is a product
    vectors = 1000                  # model vectors of the verification (default 1000)
    simulators = ["verilator"]      # verilator and/or icarus (default ["verilator"])
    seed = 1                        # seed of the random vectors
    timeout = 3600                  # seconds per tool run (a run past it is recorded "timeout")
    [sweep.params]                  # a value, a list, or {range = [start, stop, step]}
    p = 2                           #   (stop included: {range = [4, 32, 4]} is 4, 8, ..., 32)
    m = [163, 233]
    poly = "nist"
    D = {range = [4, 32, 4]}

Lists and ranges are expanded as a product. `params` may also be an array of tables
(`[[sweep.params]]`): each is expanded as a product and the results are joined, for
configurations that go in pairs (n=521 with poly=type1, n=571 with poly=type2).

Every point is parsed and validated (Algorithm.parse) when the file is loaded, before
anything runs: an unknown key, an empty range, an unknown target, a frequency <= 0 or a
parameter an algorithm refuses is a ParameterError naming the file, the sweep and the key.
"""

from __future__ import annotations

import dataclasses
import itertools
import tomllib
from pathlib import Path
from typing import Any, overload

from ..errors import ParameterError
from ..registry import canonical, lookup, param_hash
from ..sim.runners import SIMULATORS
from ..synth.metrics import ECP5_TARGETS
from ..synth.yosys import DEFAULT_FREQ_MHZ, TARGETS

SWEEP_KEYS = ("name", "algorithm", "targets", "freq", "vectors", "simulators", "seed", "timeout", "params")
TOP_KEYS = ("defaults", "sweep")
DEFAULTS: dict[str, Any] = {"targets": ["generic"], "freq": DEFAULT_FREQ_MHZ, "vectors": 1000,
                            "simulators": ["verilator"], "seed": 1, "timeout": 3600.0}


@dataclasses.dataclass(frozen=True)
class Point:
    """One configuration of one algorithm, validated, with what to do with it."""

    sweep: str  # label: the sweep's name, or file:index
    algorithm: str
    params: dict  # canonical parameters (Algorithm.validate's output, as a dict)
    param_hash: str
    targets: tuple[str, ...]
    freq: float
    vectors: int
    simulators: tuple[str, ...]
    seed: int
    timeout: float

    def freq_for(self, target: str) -> float:
        """The clock a target's result depends on (0 for targets without a requested clock)."""
        return float(self.freq) if target in ECP5_TARGETS else 0.0


@dataclasses.dataclass
class Sweep:
    path: str
    points: list[Point]

    def jobs(self) -> list[tuple[Point, str]]:
        """(point, target) pairs, each stored as one row; duplicates dropped in order."""
        seen, out = set(), []
        for point in self.points:
            for target in point.targets:
                key = (point.param_hash, target, point.freq_for(target))
                if key not in seen:
                    seen.add(key)
                    out.append((point, target))
        return out


def _values(where: str, key: str, value: Any) -> list:
    """A parameter value as the list of values it stands for."""
    if isinstance(value, dict):
        if set(value) != {"range"}:
            extra = ", ".join(sorted(set(value) - {"range"})) or "<none>"
            raise ParameterError(where, key, "must be a value, a list or {range = [start, stop, step]} "
                                 f"(unknown key {extra})", value)
        r = value["range"]
        if (not isinstance(r, list) or len(r) not in (2, 3)
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in r)):
            raise ParameterError(where, key, "range must be [start, stop] or [start, stop, step] of integers", r)
        start, stop, step = (*r, 1) if len(r) == 2 else r
        if step == 0:
            raise ParameterError(where, key, "range step must not be 0", r)
        out = list(range(start, stop + (1 if step > 0 else -1), step))
        if not out:
            raise ParameterError(where, key, "range is empty (stop is included: [start, stop, step])", r)
        return out
    if isinstance(value, list):
        if not value:
            raise ParameterError(where, key, "list is empty", value)
        for v in value:
            if isinstance(v, (dict, list)):
                raise ParameterError(where, key, "list items must be plain values", v)
        return value
    return [value]


def _text(v: Any) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    return str(v)


def _str_list(where: str, key: str, value: Any, allowed: tuple[str, ...]) -> tuple[str, ...]:
    items = value if isinstance(value, list) else [value]
    if not items:
        raise ParameterError(where, key, "list is empty", value)
    for item in items:
        if item not in allowed:
            raise ParameterError(where, key, f"must name one of {', '.join(allowed)}", item)
    return tuple(dict.fromkeys(items))


@overload
def _number(where: str, key: str, value: Any, kind: type[int], positive: bool = True) -> int: ...


@overload
def _number(where: str, key: str, value: Any, kind: type[float] = float, positive: bool = True) -> float: ...


def _number(where: str, key: str, value: Any, kind: type[float] = float, positive: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and not isinstance(value, int)):
        raise ParameterError(where, key, f"must be {'an integer' if kind is int else 'a number'}", value)
    if positive and not value > 0:
        raise ParameterError(where, key, "must be > 0" if key != "freq" else "must be a frequency in MHz > 0", value)
    return kind(value)


def expand(data: dict, source: str = "<sweep>") -> Sweep:
    """A parsed sweep document -> every validated point. Raises ParameterError."""
    for key in data:
        if key not in TOP_KEYS:
            raise ParameterError(f"sweep {source}", key, f"is not a sweep-file key (known: {', '.join(TOP_KEYS)})",
                                 data[key])
    defaults = dict(DEFAULTS)
    user_defaults = data.get("defaults", {})
    if not isinstance(user_defaults, dict):
        raise ParameterError(f"sweep {source}", "defaults", "must be a table", user_defaults)
    for key, value in user_defaults.items():
        if key not in SWEEP_KEYS or key in ("algorithm", "params", "name"):
            raise ParameterError(f"sweep {source} [defaults]", key, "is not a default a sweep takes (known: "
                                 f"{', '.join(k for k in SWEEP_KEYS if k not in ('algorithm', 'params', 'name'))})",
                                 value)
        defaults[key] = value
    sweeps = data.get("sweep")
    if not isinstance(sweeps, list) or not sweeps:
        raise ParameterError(f"sweep {source}", "sweep", "must hold at least one [[sweep]] table", sweeps)
    points: list[Point] = []
    for index, entry in enumerate(sweeps):
        where = f"sweep {source} [[sweep]] #{index + 1}"
        for key in entry:
            if key not in SWEEP_KEYS:
                raise ParameterError(where, key, f"is not a sweep key (known: {', '.join(SWEEP_KEYS)})", entry[key])
        conf = defaults | entry
        label = str(conf.get("name") or f"{Path(source).stem}#{index + 1}")
        if "algorithm" not in conf:
            raise ParameterError(where, "algorithm", "is required", "<missing>")
        names = _values(where, "algorithm", conf["algorithm"])
        algorithms = []
        for name in names:
            try:
                algorithms.append(lookup(str(name)))
            except ParameterError as exc:
                raise ParameterError(where, "algorithm", exc.rule, name) from None
        targets = _str_list(where, "targets", conf["targets"], TARGETS)
        freqs = [_number(where, "freq", f) for f in _values(where, "freq", conf["freq"])]
        vectors = _number(where, "vectors", conf["vectors"], int)
        simulators = _str_list(where, "simulators", conf["simulators"], SIMULATORS)
        seed = _number(where, "seed", conf["seed"], int, positive=False)
        timeout = _number(where, "timeout", conf["timeout"])
        tables = conf.get("params", {})
        tables = tables if isinstance(tables, list) else [tables]
        if not tables:
            raise ParameterError(where, "params", "list of parameter tables is empty", [])
        for table in tables:
            if not isinstance(table, dict):
                raise ParameterError(where, "params", "must be a table of key = value(s)", table)
            keys = list(table)
            axes = [_values(where, k, table[k]) for k in keys]
            for alg in algorithms:
                known = {f.name for f in dataclasses.fields(alg.Params)}
                for k in keys:
                    if k not in known:
                        raise ParameterError(where, k, f"is not a parameter of {alg.name} "
                                             f"(known: {', '.join(sorted(known))})", table[k])
                for combo in itertools.product(*axes):
                    args = {k: _text(v) for k, v in zip(keys, combo, strict=True)}
                    try:
                        params = alg.parse(args)
                    except ParameterError as exc:
                        raise ParameterError(f"{where} ({alg.name})", exc.argument, exc.rule, exc.value) from None
                    for freq in freqs:
                        points.append(Point(sweep=label, algorithm=alg.name, params=canonical(params),
                                            param_hash=param_hash(alg, params), targets=targets, freq=freq,
                                            vectors=vectors, simulators=simulators, seed=seed, timeout=timeout))
    return Sweep(path=source, points=points)


def load(path: str | Path, only: list[str] | None = None) -> Sweep:
    """Read and expand a sweep file (ParameterError on any mistake, before anything runs);
    `only`: keep the points of the sweeps with these names (labels)."""
    path = Path(path)
    if not path.is_file():
        raise ParameterError("explore", "SWEEP", "must be a readable TOML file", str(path))
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise ParameterError("explore", "SWEEP", f"must be valid TOML ({exc})", str(path)) from None
    sweep = expand(data, str(path))
    if only:
        labels = sorted({p.sweep for p in sweep.points})
        for name in only:
            if name not in labels:
                raise ParameterError("explore", "--only", f"must name a sweep of {path} ({', '.join(labels)})", name)
        sweep.points = [p for p in sweep.points if p.sweep in only]
    return sweep
