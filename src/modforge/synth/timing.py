"""An ECP5 delay model, and the register placement it picks for a target frequency.

The model is a static timing pass over a `synth_ecp5` netlist (Yosys JSON, flat): every cell
arc has its type's delay (LUT4, the CCU2C carry cell with its CIN -> COUT chain, PFUMX and
L6MUX21, MULT18X18D, ALU54B, TRELLIS_FF clock-to-Q and setup, DP16KD clock-to-out), every net
a routing delay (none along a carry chain, a short one from a LUT into the one flip-flop it
feeds: nextpnr packs them into one slice; none from a LUT into its slice's PFUMX or from a
PFUMX into the L6MUX21 above it). The constants (`ECP5`) are nextpnr-ecp5's (speed
grade 6) as its report.json's critical-path segments give them, the routing ones fitted on
modmul designs by

    PYTHONPATH=src python3 benchmarks/timing_calibration.py

which prints the constants and the predicted against achieved Fmax (benchmarks/timing_calibration.md;
the target sweep: benchmarks/target_mhz.md).

Stages: a pipeline of modforge's Stager is layered (every value crosses each stage boundary
once), so a flip-flop's stage is one more than the latest stage among the flip-flops its data
input reaches back to (input ports: stage 0). `Netlist.timing` analyses the FULL pipeline once
and gives the delay of every group of consecutive stages first..last with the registers of
stages first..last-1 as wires (a merged stage's registers are transparent: the net runs
through), so one Yosys run serves every `pipeline` mask; `choose` is the DP over groupings.
Clock enables and resets (the valid chain's `advance`, rst) are one path for every grouping
(`StageTiming.control`). Input ports launch as if from a register outside (clock-to-Q): the
core's first stage group is timed as it will be in a system, although nextpnr's out-of-context
Fmax leaves port paths untimed (`ports=False` predicts that figure); output ports are not timed.
"""

from __future__ import annotations

import copy
import dataclasses
import gzip
import hashlib
import json
import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from ..cache import cache_dir


@dataclasses.dataclass(frozen=True)
class Delays:
    """ns; a net's routing: `route` + `route_fanout` log2(its sinks), `route_local` for a LUT
    output into the one flip-flop it feeds."""
    lut: float          # LUT4 input -> Z; a CCU2C input -> its own sum output
    mux: float          # PFUMX, L6MUX21: any input -> Z
    carry_in: float     # CCU2C A/B/C/D -> COUT (into the carry chain)
    carry: float        # CCU2C CIN -> COUT (a cell: two bits)
    carry_sum: float    # CCU2C CIN -> S0/S1 (out of the chain)
    mult: float         # MULT18X18D A/B -> P (no registers inside)
    alu: float          # ALU54B inputs -> R
    ram: float          # DP16KD clock -> DO
    clk_to_q: float
    setup: float
    route: float
    route_fanout: float
    route_local: float


#: nextpnr-ecp5 (speed grade 6) figures: the logic ones exact from its report.json segments, the
#: routing ones fitted on the critical paths of modmul designs (benchmarks/timing_calibration.py,
#: benchmarks/timing_calibration.md); alu and ram are rough guesses (no modmul design maps to them)
ECP5 = Delays(lut=0.236, mux=0.211, carry_in=0.447, carry=0.071, carry_sum=0.426, mult=3.927, alu=4.0, ram=2.0,
              clk_to_q=0.525, setup=0.0, route=1.106, route_fanout=0.08, route_local=0.123)

FF = "TRELLIS_FF"
#: sequential cells that are never transparent: they launch (clock-to-out) and end paths
RAMS = ("DP16KD", "PDPW16KD", "TRELLIS_DPR16X4", "DPR16X4C")
CONTROL_PINS = ("CE", "LSR", "CLK")
LOGIC = ("LUT4", "LUT2", "CCU2C", "PFUMX", "L6MUX21", "INV")
#: the mux inputs fed inside a slice (no general routing); the selects C0/SD are routed
DEDICATED = {("PFUMX", "ALUT"), ("PFUMX", "BLUT"), ("L6MUX21", "D0"), ("L6MUX21", "D1")}


def arc(d: Delays, kind: str, src: str, dst: str) -> float | None:
    """The delay of a combinational cell's arc src -> dst (None: no such arc)."""
    if kind == "CCU2C":
        if dst == "COUT":
            return d.carry if src == "CIN" else d.carry_in
        if src == "CIN":
            return d.carry_sum
        if src[-1] == dst[-1]:
            return d.lut
        return d.carry_in + d.carry_sum if dst == "S1" else None   # half 0 reaches S1 through the carry
    if kind in ("PFUMX", "L6MUX21"):
        return d.mux
    if kind == "MULT18X18D":
        return d.mult
    if kind == "ALU54B":
        return d.alu
    return d.lut            # LUT4, and any other cell as one LUT level


@dataclasses.dataclass(frozen=True)
class StageTiming:
    """The predicted delays of a pipeline's stage groups: `groups[(first, last)]` (1-based) the
    longest path into the registers of stage `last` with stages first..last-1 merged; `control`
    the clock-enable and reset paths (every grouping has them); `bits[k]` the flip-flops of
    stage k (index 0 unused)."""
    stages: int
    groups: dict[tuple[int, int], float]
    control: float
    bits: tuple[int, ...]

    def group(self, first: int, last: int) -> float:
        return max(self.groups.get((first, last), 0.0), self.control)

    def period(self, keep: tuple[bool, ...] | list[bool]) -> float:
        """The predicted clock period (ns) of a register placement (one flag a stage, the last True)."""
        worst, first = self.control, 1
        for k, kept in enumerate(keep, 1):
            if kept:
                worst, first = max(worst, self.group(first, k)), k + 1
        return worst


class Netlist:
    """A flat Yosys JSON module as a timing graph: drivers and sinks of every bit, the cells in
    an order where a cell follows the drivers of its data inputs (a flip-flop's data input only:
    its Q may be transparent), and each flip-flop's stage."""

    def __init__(self, netlist: dict, top: str, delays: Delays = ECP5) -> None:
        module = netlist["modules"][top]
        self.d = delays
        self.cells: dict[str, dict] = module["cells"]
        self.driver: dict[int, tuple[str, str]] = {}
        self.sinks: dict[int, list[tuple[str, str]]] = defaultdict(list)
        self.inputs = [b for p in module["ports"].values() if p["direction"] == "input"
                       for b in p["bits"] if isinstance(b, int)]
        for name, cell in self.cells.items():
            for pin, bits in cell["connections"].items():
                out = cell["port_directions"].get(pin) == "output"
                for bit in bits:
                    if isinstance(bit, int):
                        if out:
                            self.driver[bit] = (name, pin)
                        else:
                            self.sinks[bit].append((name, pin))
        self.routes: dict[int, float] = {}
        self.order = self._order()
        self.stage = self._stages()

    def data_inputs(self, name: str) -> Iterator[tuple[str, int]]:
        cell = self.cells[name]
        for pin, bits in cell["connections"].items():
            if cell["port_directions"].get(pin) == "output":
                continue
            if cell["type"] == FF and pin != "DI":
                continue
            for bit in bits:
                if isinstance(bit, int):
                    yield pin, bit

    def _order(self) -> list[str]:
        pending: dict[str, int] = {}
        users: dict[str, list[str]] = defaultdict(list)
        for name, cell in self.cells.items():
            deps = set()
            if cell["type"] not in RAMS:
                deps = {self.driver[b][0] for _, b in self.data_inputs(name) if b in self.driver}
            pending[name] = len(deps)
            for dep in deps:
                users[dep].append(name)
        ready = [n for n, k in pending.items() if k == 0]
        order = []
        while ready:
            name = ready.pop()
            order.append(name)
            for user in users[name]:
                pending[user] -= 1
                if pending[user] == 0:
                    ready.append(user)
        if len(order) != len(self.cells):
            raise ValueError("the netlist has a loop through flip-flop data inputs: not a layered pipeline")
        return order

    def _stages(self) -> dict[str, int]:
        level: dict[int, int] = dict.fromkeys(self.inputs, 0)
        stage: dict[str, int] = {}
        for name in self.order:
            cell = self.cells[name]
            before = max((level.get(b, 0) for _, b in self.data_inputs(name)), default=0)
            if cell["type"] == FF:
                stage[name] = before + 1
            out = stage.get(name, before)
            for pin, bits in cell["connections"].items():
                if cell["port_directions"].get(pin) == "output":
                    level.update((b, out) for b in bits if isinstance(b, int))
        return stage

    def with_delays(self, delays: Delays) -> Netlist:
        """The same graph under other delays (the calibration's fit)."""
        other = copy.copy(self)
        other.d, other.routes = delays, {}
        return other

    def route(self, bit: int) -> float:
        if bit not in self.routes:
            self.routes[bit] = self._route(bit)
        return self.routes[bit]

    def _route(self, bit: int) -> float:
        source = self.driver.get(bit)
        if source is None:
            return self.d.route
        name, pin = source
        if pin == "COUT":
            return 0.0      # the carry chain's dedicated wire
        sinks = self.sinks.get(bit, [])
        if len(sinks) == 1 and (self.cells[sinks[0][0]]["type"], sinks[0][1]) in DEDICATED:
            return 0.0      # a LUT into its slice's PFUMX, a PFUMX into the L6MUX21: inside the slice
        if (self.cells[name]["type"] in LOGIC and len(sinks) == 1
                and self.cells[sinks[0][0]]["type"] == FF and sinks[0][1] == "DI"):
            return self.d.route_local
        return self.d.route + self.d.route_fanout * math.log2(max(len(sinks), 1))

    def propagate(self, first: int | None, ports: bool = True) -> tuple[dict[int, float], float]:
        """Arrival times from every register of a stage before `first` (and the input ports:
        `ports`), through the flip-flops of stage `first` and later as wires (None: every
        flip-flop launches). Returns (the latest arrival at the data inputs of each stage's
        flip-flops, setup included; the latest at the clock enables and resets)."""
        d = self.d
        arrival: dict[int, float] = dict.fromkeys(self.inputs, d.clk_to_q) if ports else {}
        ends: dict[int, float] = defaultdict(float)
        control = 0.0
        self.via: dict[int, tuple[str, int | None]] = {}      # a bit's latest source: (cell, its input bit)
        self.ends: dict[int, int] = {}                        # each stage's latest data input bit

        def at(bit: int) -> float | None:
            t = arrival.get(bit)
            return None if t is None else t + self.route(bit)

        for name in self.order:
            cell = self.cells[name]
            kind, conn = cell["type"], cell["connections"]
            if kind == FF or kind in RAMS:
                q = conn.get("Q", [])
                if kind in RAMS:
                    for pin, bits in conn.items():
                        if cell["port_directions"].get(pin) == "output":
                            arrival.update((b, d.ram) for b in bits if isinstance(b, int))
                    continue
                k = self.stage[name]
                if first is None or k < first:
                    arrival.update((b, d.clk_to_q) for b in q if isinstance(b, int))
                    self.via.update((b, (name, None)) for b in q if isinstance(b, int))
                    continue
                di = conn["DI"][0]
                t = at(di) if isinstance(di, int) else None
                if t is not None:
                    if t + d.setup > ends[k]:
                        ends[k], self.ends[k] = t + d.setup, di
                    arrival.update((b, arrival[di]) for b in q if isinstance(b, int))   # transparent
                    self.via.update((b, (name, di)) for b in q if isinstance(b, int))
                continue
            for out, obits in conn.items():
                if cell["port_directions"].get(out) != "output":
                    continue
                latest, source = None, None
                for pin, bit in self.data_inputs(name):
                    t, delay = at(bit), arc(d, kind, pin, out)
                    if t is not None and delay is not None and (latest is None or t + delay > latest):
                        latest, source = t + delay, bit
                if latest is not None:
                    arrival.update((b, latest) for b in obits if isinstance(b, int))
                    self.via.update((b, (name, source)) for b in obits if isinstance(b, int))
        for name in self.stage:      # the enables and resets: their drivers need not come before
            for pin in CONTROL_PINS[:2]:
                for bit in self.cells[name]["connections"].get(pin, []):
                    t = at(bit) if isinstance(bit, int) else None
                    if t is not None:
                        control = max(control, t + d.setup)
        return dict(ends), control

    def path(self, first: int, last: int, ports: bool = True) -> list[str]:
        """The cells of the longest path into stage `last`'s registers with stages first..last-1
        merged, from its start (a register, or none for a port): to read what the model counts."""
        self.propagate(first, ports)
        bit: int | None = self.ends.get(last)
        cells: list[str] = []
        while bit is not None and bit in self.via:
            name, bit = self.via[bit]
            cells.append(f"{self.cells[name]['type']} {name}")
        return cells[::-1]

    def timing(self, stages: int | None = None, ports: bool = True) -> StageTiming:
        """Every stage group's delay; `stages`: the pipeline's stage count, checked; ports=False
        leaves the paths from input ports untimed (as nextpnr's out-of-context Fmax does)."""
        found = max(self.stage.values(), default=0)
        if stages is not None and found != stages:
            raise ValueError(f"the netlist has {found} register stages, the pipeline {stages}")
        groups: dict[tuple[int, int], float] = {}
        for first in range(1, found + 1):
            ends, _ = self.propagate(first, ports)
            groups.update(((first, last), t) for last, t in ends.items() if last >= first)
        _, control = self.propagate(None, ports)
        bits = [0] * (found + 1)
        for k in self.stage.values():
            bits[k] += 1
        return StageTiming(found, groups, control, tuple(bits))


@dataclasses.dataclass(frozen=True)
class Choice:
    """A register placement for a period: `keep` one flag a stage; `period` its predicted
    clock period (ns); `met`: it fits the period asked (else: every stage kept, the fastest);
    `reg_period`: the same without the input ports' paths (nextpnr's out-of-context figure;
    0: not computed)."""
    keep: tuple[bool, ...]
    period: float
    met: bool
    reg_period: float = 0.0

    @property
    def mask(self) -> str:
        return "".join("1" if k else "0" for k in self.keep)

    @property
    def mhz(self) -> float:
        return 1000.0 / self.period if self.period > 0 else float("inf")

    @property
    def reg_mhz(self) -> float | None:
        return 1000.0 / self.reg_period if self.reg_period > 0 else None


def choose(timing: StageTiming, period: float) -> Choice:
    """The fewest kept stages (the latency) whose every group's predicted delay fits `period`,
    ties broken by fewer stage-register bits; every stage when even that misses."""
    n = timing.stages
    best: list[tuple[int, int, int] | None] = [None] * (n + 1)   # (kept, bits, previous kept stage)
    best[0] = (0, 0, -1)
    for last in range(1, n + 1):
        for prev in range(last):
            here = best[prev]
            if here is None or timing.group(prev + 1, last) > period:
                continue
            cand = (here[0] + 1, here[1] + timing.bits[last], prev)
            current = best[last]
            if current is None or cand[:2] < current[:2]:
                best[last] = cand
    if best[n] is None:
        keep = (True,) * n
        return Choice(keep, timing.period(keep), False)
    flags = [False] * n
    k = n
    while k > 0:
        flags[k - 1] = True
        entry = best[k]
        assert entry is not None
        k = entry[2]
    return Choice(tuple(flags), timing.period(flags), True)


# ---- the one Yosys run a core needs ----------------------------------------------------

SCRIPT = "read_verilog core.v\nsynth_ecp5 -top {top} -json synth.json\n"

#: progress(done, total) of the Yosys run (a caller such as the CLI sets it: `reporting`)
_reporting: ContextVar[Callable[[int, int], None] | None] = ContextVar("timing_progress", default=None)


@contextmanager
def reporting(progress: Callable[[int, int], None] | None) -> Iterator[None]:
    """The Yosys runs inside (`ecp5_netlist`) report to `progress`: 0 of 1 before, 1 of 1 after
    (a cached netlist reports nothing)."""
    token = _reporting.set(progress)
    try:
        yield
    finally:
        _reporting.reset(token)


def ecp5_netlist(verilog: str, top: str, timeout: float = 3600) -> dict:
    """The synth_ecp5 netlist (Yosys JSON) of a Verilog text, from the cache folder's timing/
    when the same text was synthesized so before with the same Yosys."""
    from ..verilog.yosys import run_yosys, yosys_command
    from .cache import TIMING, tool_version, write_atomic
    script = SCRIPT.format(top=top)
    version = tool_version(yosys_command()) or ""
    key = hashlib.sha256("\0".join([script, version, verilog]).encode()).hexdigest()
    path = cache_dir(TIMING) / f"{key}.json.gz"
    try:
        return json.loads(gzip.decompress(path.read_bytes()))
    except (OSError, ValueError):
        pass
    progress = _reporting.get()
    if progress is not None:
        progress(0, 1)
    text = run_yosys(script, {"core.v": verilog}, ["synth.json"], timeout, what="synth_ecp5 (target_mhz)")["synth.json"]
    if progress is not None:
        progress(1, 1)
    if version:         # an unknown Yosys: nothing kept
        write_atomic(path, gzip.compress(text.encode()))
    return json.loads(text)


def core_netlist(core: Any, top: str) -> Netlist:
    """The timing graph of an Amaranth core's synth_ecp5 netlist (cached), its module named `top`."""
    from ..verilog import to_verilog
    text = re.sub(r'\(\* src = "[^"]*" \*\)\s*', "", to_verilog(core, top))   # no install paths in the key
    return Netlist(ecp5_netlist(text, top), top)


def pipeline_for(core: Any, top: str, stages: int, target_mhz: float) -> Choice:
    """The register placement of an Amaranth pipelined core (built with every stage kept, `stages`
    of them) for `target_mhz` on ECP5: one synth_ecp5 run (cached), the model, the DP."""
    netlist = core_netlist(core, top)
    choice = choose(netlist.timing(stages), 1000.0 / target_mhz)
    return dataclasses.replace(choice, reg_period=netlist.timing(stages, ports=False).period(choice.keep))
