"""The OSU 0.18 um standard-cell library and a critical-path estimate on its cells.

`ensure_liberty()` fetches Debian's `qflow-tech-osu018` package with `apt-get download`
and unpacks it with `dpkg -x` into a cache folder (no qflow dependencies are installed).

Yosys 0.70 as shipped by yowasp reports no delay for a liberty mapping: ABC's `stime`
output does not reach the log, and `sta` only knows cells with Verilog `specify`
timing. So the critical path is estimated here from the mapped netlist (Yosys
`write_json`) and the liberty tables: each arc's delay is the `cell_rise`/`cell_fall`
table interpolated at the net's load (sum of the fan-out pins' capacitance, plus
OUTPUT_LOAD on a port) and a fixed input slew (SLEW); paths start at input ports
(time 0) and flip-flop outputs (clock-to-Q) and end at output ports and flip-flop
inputs (plus setup). Wires and clock skew are ignored: a synthesis-level estimate,
not sign-off timing.
"""

from __future__ import annotations

import bisect
import os
import re
import shutil
import subprocess
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from ..cache import cache_dir
from ..errors import ToolMissing

PACKAGE = "qflow-tech-osu018"
LIB_IN_PACKAGE = "usr/share/qflow/tech/osu018/osu018_stdcells.lib"
SLEW = 0.1          # ns, input transition used for every arc
OUTPUT_LOAD = 0.01  # pF on every output port

INSTALL_HINT = (f"the OSU 0.18 um liberty file is missing: on Debian/Ubuntu run "
                f"`apt-get download {PACKAGE} && dpkg -x {PACKAGE}_*.deb DIR` and set "
                f"MODFORGE_LIBERTY=DIR/{LIB_IN_PACKAGE} (modforge does this itself into "
                f"~/.cache/modforge/osu018 when apt-get and dpkg are present)")


def ensure_liberty() -> Path:
    """The path of osu018_stdcells.lib: $MODFORGE_LIBERTY, the cache, or fetched into the cache."""
    if os.environ.get("MODFORGE_LIBERTY"):
        path = Path(os.environ["MODFORGE_LIBERTY"])
        if not path.is_file():
            raise ToolMissing(f"MODFORGE_LIBERTY={path} is not a file; " + INSTALL_HINT)
        return path
    target = cache_dir("osu018") / LIB_IN_PACKAGE
    if target.is_file():
        return target
    if not (shutil.which("apt-get") and shutil.which("dpkg")):
        raise ToolMissing(INSTALL_HINT)
    with tempfile.TemporaryDirectory(prefix="modforge-osu-") as tmp:
        os.chmod(tmp, 0o755)  # apt's _apt user writes the download here

        def run(*cmd: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=600)

        proc = run("apt-get", "download", PACKAGE)
        if proc.returncode != 0 and os.geteuid() == 0:  # a fresh machine has no package lists yet
            run("apt-get", "update", "-qq")
            proc = run("apt-get", "download", PACKAGE)
        debs = sorted(Path(tmp).glob(f"{PACKAGE}_*.deb"))
        if proc.returncode != 0 or not debs:
            raise ToolMissing(f"`apt-get download {PACKAGE}` failed ({proc.stderr.strip()[-300:]}); " + INSTALL_HINT)
        unpacked = Path(tmp) / "x"
        proc = run("dpkg", "-x", str(debs[-1]), str(unpacked))
        if proc.returncode != 0 or not (unpacked / LIB_IN_PACKAGE).is_file():
            raise ToolMissing(f"`dpkg -x` of {debs[-1].name} gave no liberty file; " + INSTALL_HINT)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".partial")
        shutil.copyfile(unpacked / LIB_IN_PACKAGE, partial)
        partial.replace(target)
    return target


# ---- liberty parsing -------------------------------------------------------------

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[A-Za-z0-9_.+\-!\[\]]+|[(){}:;,]')


class Group:
    def __init__(self, kind: str, args: list[str]):
        self.kind, self.args = kind, args
        self.attrs: dict[str, Any] = {}  # a simple attribute: str; a complex one: list[str]
        self.groups: list[Group] = []

    def sub(self, kind: str) -> list[Group]:
        return [g for g in self.groups if g.kind == kind]


def parse_liberty(text: str) -> Group:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S).replace("\\\n", " ")
    tokens = _TOKEN.findall(text)
    pos = 0
    root = Group("root", [])
    stack = [root]
    while pos < len(tokens):
        tok = tokens[pos]
        if tok == "}":
            stack.pop()
            pos += 1
            continue
        name, nxt = tok, tokens[pos + 1]
        if nxt == ":":  # simple attribute: name : value ;
            end = tokens.index(";", pos)
            stack[-1].attrs[name] = " ".join(tokens[pos + 2:end]).strip('"')
            pos = end + 1
        elif nxt == "(":  # group or complex attribute
            end = tokens.index(")", pos)
            args = [t.strip('"') for t in tokens[pos + 2:end] if t != ","]
            pos = end + 1
            if pos < len(tokens) and tokens[pos] == "{":
                group = Group(name, args)
                stack[-1].groups.append(group)
                stack.append(group)
                pos += 1
            else:
                stack[-1].attrs[name] = args
                if pos < len(tokens) and tokens[pos] == ";":
                    pos += 1
        else:
            pos += 1
    return root


def _floats(text: str | list[str]) -> list[float]:
    return [float(x) for x in re.split(r"[ ,]+", " ".join(text) if isinstance(text, list) else text) if x]


class Table:
    """A 1- or 2-D lookup table: index_1 = output load, index_2 = input slew (OSU's templates)."""

    def __init__(self, group: Group) -> None:
        self.i1 = _floats(group.attrs.get("index_1", ["0"]))
        self.i2 = _floats(group.attrs.get("index_2", ["0"]))
        rows = group.attrs["values"]
        self.values = [_floats(r) for r in rows]

    @staticmethod
    def _interp(xs: list[float], x: float) -> tuple[int, int, float]:
        if len(xs) == 1:
            return 0, 0, 0.0
        k = min(max(bisect.bisect_left(xs, x) - 1, 0), len(xs) - 2)
        return k, k + 1, (x - xs[k]) / (xs[k + 1] - xs[k])

    def at(self, load: float, slew: float = SLEW) -> float:
        a0, a1, fa = self._interp(self.i1, load)
        if len(self.values) == 1:  # one row: a 1-D table over index_1
            row = self.values[0]
            return row[a0] + fa * (row[a1] - row[a0])
        b0, b1, fb = self._interp(self.i2, slew)
        v = self.values
        lo = v[a0][b0] + fb * (v[a0][b1] - v[a0][b0])
        hi = v[a1][b0] + fb * (v[a1][b1] - v[a1][b0])
        return lo + fa * (hi - lo)


class Cell:
    def __init__(self, group: Group):
        self.name = group.args[0]
        self.area = float(group.attrs.get("area", 0))
        self.sequential = bool(group.sub("ff") or group.sub("latch"))
        self.cap: dict[str, float] = {}
        self.outputs: list[str] = []
        self.arcs: dict[tuple[str, str], list[Table]] = defaultdict(list)  # (from, to) -> delay tables
        self.setup: dict[str, float] = {}  # data pin -> setup time
        for pin in group.sub("pin"):
            name = pin.args[0]
            if pin.attrs.get("direction") == "output":
                self.outputs.append(name)
            else:
                self.cap[name] = float(pin.attrs.get("capacitance", 0))
            for timing in pin.sub("timing"):
                related = timing.attrs.get("related_pin", "").strip('"')
                kind = timing.attrs.get("timing_type", "combinational")
                if kind.startswith("setup"):
                    tables = [Table(t) for t in timing.groups if t.kind in ("rise_constraint", "fall_constraint")]
                    self.setup[name] = max((t.values[0][0] for t in tables), default=0.0)
                elif kind in ("combinational", "rising_edge", "falling_edge"):
                    self.arcs[(related, name)] += [Table(t) for t in timing.groups
                                                   if t.kind in ("cell_rise", "cell_fall")]


def load_cells(path: Path) -> dict[str, Cell]:
    root = parse_liberty(Path(path).read_text())
    library = root.groups[0]
    return {c.args[0]: Cell(c) for c in library.sub("cell")}


def critical_path(netlist: dict, top: str, cells: dict[str, Cell]) -> float | None:
    """Longest register-to-register / port path in ns of a flat mapped netlist (Yosys JSON)."""
    module = netlist["modules"][top]
    loads: dict[int, float] = defaultdict(float)
    driver: dict[int, tuple[str, str]] = {}
    sinks: dict[int, list[tuple[str, str]]] = defaultdict(list)
    insts = module["cells"]
    for name, inst in insts.items():
        lib = cells.get(inst["type"])
        if lib is None:
            continue
        for pin, bits in inst["connections"].items():
            for bit in bits:
                if isinstance(bit, str):
                    continue
                if pin in lib.outputs:
                    driver[bit] = (name, pin)
                else:
                    loads[bit] += lib.cap.get(pin, 0.0)
                    sinks[bit].append((name, pin))
    outputs = [b for p in module["ports"].values() if p["direction"] == "output"
               for b in p["bits"] if not isinstance(b, str)]
    for bit in outputs:
        loads[bit] += OUTPUT_LOAD

    def arc_delay(lib: Cell, src: str, dst: str, bit: int) -> float:
        return max((t.at(loads[bit]) for t in lib.arcs.get((src, dst), [])), default=0.0)

    arrival: dict[int, float] = {}
    pending: dict[str, int] = {}
    ready: list[str] = []
    for inst in insts.values():
        lib = cells.get(inst["type"])
        if lib is None:
            continue
        if lib.sequential:  # launch: clock-to-Q
            for pin in lib.outputs:
                for bit in inst["connections"].get(pin, []):
                    if not isinstance(bit, str):
                        arrival[bit] = max((arc_delay(lib, s, d, bit) for (s, d) in lib.arcs if d == pin), default=0.0)
    for name, inst in insts.items():
        lib = cells.get(inst["type"])
        if lib is None or lib.sequential:
            continue
        n = sum(1 for pin, bits in inst["connections"].items() if pin not in lib.outputs
                for b in bits if not isinstance(b, str) and b in driver
                and not cells[insts[driver[b][0]]["type"]].sequential)
        pending[name] = n
        if n == 0:
            ready.append(name)
    while ready:
        name = ready.pop()
        inst = insts[name]
        lib = cells[inst["type"]]
        conn = inst["connections"]
        for out in lib.outputs:
            for obit in conn.get(out, []):
                if isinstance(obit, str):
                    continue
                t = 0.0
                for pin, bits in conn.items():
                    if pin in lib.outputs:
                        continue
                    for b in bits:
                        start = 0.0 if isinstance(b, str) else arrival.get(b, 0.0)
                        t = max(t, start + arc_delay(lib, pin, out, obit))
                arrival[obit] = t
                for sink, _ in sinks.get(obit, []):
                    if sink in pending:
                        pending[sink] -= 1
                        if pending[sink] == 0:
                            ready.append(sink)
    if any(n > 0 for n in pending.values()):
        return None  # a combinational loop: no estimate
    worst = max((arrival.get(b, 0.0) for b in outputs), default=0.0)
    for inst in insts.values():
        lib = cells.get(inst["type"])
        if lib is not None and lib.sequential:
            for pin, setup in lib.setup.items():
                for b in inst["connections"].get(pin, []):
                    if not isinstance(b, str):
                        worst = max(worst, arrival.get(b, 0.0) + setup)
    return worst
