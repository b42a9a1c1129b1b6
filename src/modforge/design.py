"""Design: the generated files of one configuration and design.json, the record that
simulation, synthesis and sweeps read instead of re-deriving anything."""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
from pathlib import Path
from typing import Any

from amaranth.hdl import Shape
from amaranth.lib import data
from amaranth.lib.wiring import In

from . import __version__, ip
from .registry import Algorithm, Operand, Plan, canonical, param_hash
from .verilog import split_modules, to_verilog

HANDSHAKE = (
    "valid/ready streams: an operand set moves on i when i__valid & i__ready at a rising clk;\n"
    "a result moves on o when o__valid & o__ready. rst is synchronous, active high.\n"
    "Latency (input handshake to o__valid) is the same for every operand value;\n"
    "an operand set of several beats (a frame) streams its beats in order, as does its result."
)
CONFIG_HANDSHAKE = "cfg is a valid/ready stream of configuration words, taken while no operand set is in the core."
RESET = ("rst: synchronous, active high, at least one cycle; it empties the core (no result is "
         "presented after it) and returns every run-time register to its generation value; datapath "
         "registers need not take it: o__payload means something only while o__valid is high")
LATENCY_FROM = ("cycles from the handshake of an input beat to o__valid of its output beat, without "
                "stalls (a frame: beat k in to beat k out; its first result beat latency cycles after "
                "its first input beat)")


def command_line(algorithm: Algorithm, params: Any) -> str:
    args = " ".join(shlex.quote(f"{k}={v}") for k, v in canonical(params).items())
    return f"modforge generate {algorithm.name} {args}"


#: the streams a core's signature holds, with what their beats carry
STREAMS = {"i": "operand beats", "o": "result beats", "cfg": "configuration words"}


def ports(plan: Plan, core: Any) -> list[dict]:
    """Every port of the top module (clk, rst, then the streams of the built core's
    signature): name, direction, width and meaning. Raises RuntimeError when the core's
    streams are not the plan's or a payload is not as wide as its layout (a family that
    declares one thing and builds another)."""
    layouts = plan.layouts()
    members = core.signature.members
    if set(members) != set(layouts):
        raise RuntimeError(f"{plan.algorithm}: the core has the streams {', '.join(members)}, "
                           f"the plan declares {', '.join(layouts)}")
    out = [{"name": "clk", "direction": "in", "width": 1, "meaning": "clock, rising edge"},
           {"name": "rst", "direction": "in", "width": 1, "meaning": RESET}]
    for name, member in members.items():
        what, stream = STREAMS[name], member.signature.members
        width = Shape.cast(stream["payload"].shape).width
        if width != layouts[name][0].size:
            raise RuntimeError(f"{plan.algorithm}: {name}__payload is {width} bits, its layout "
                               f"{layouts[name][0].size}")
        for port in ("valid", "ready", "payload"):     # the member's signature: flipped for an In stream
            meaning = f"{what}: payload (bit map: payload.{name})" if port == "payload" else f"{what}: {port}"
            out.append({"name": f"{name}__{port}", "direction": "in" if stream[port].flow == In else "out",
                        "width": Shape.cast(stream[port].shape).width, "meaning": meaning})
    return out


def bit_map(layout: data.StructLayout, ops: tuple[Operand, ...], base: int = 0) -> list[dict]:
    """Each field of `layout` (declared by `ops`) from bit `base` on: its bits, encoding and
    domain, its lanes and their width when it has more than one, its parts likewise."""
    by_name = {op.name: op for op in ops}
    out = []
    for name, field in layout:
        op, lsb = by_name[name], base + field.offset
        entry = {"name": name, "lsb": lsb, "msb": lsb + field.width - 1, "width": field.width,
                 "encoding": op.encoding, "domain": op.domain}
        if op.lanes > 1:
            entry |= {"lanes": op.lanes, "lane_width": op.lane_width}
        if op.parts:
            entry["parts"] = bit_map(field.shape, op.parts, lsb)
        out.append(entry)
    return out


def payload(plan: Plan) -> dict[str, list[dict]]:
    """Where each operand, the result and each cfg field sits in its stream's payload (the
    plan's layouts; bit_map)."""
    return {name: bit_map(lay, ops) for name, (lay, ops) in plan.layouts().items()}


def operand_record(plan: Plan, op: Operand) -> dict:
    """design.json's operands: the declaration, its offset in the i payload (parts only when
    it has them)."""
    record = {k: v for k, v in dataclasses.asdict(op).items() if k != "parts" or v}
    return record | {"offset": plan.input_layout[op.name].offset}


@dataclasses.dataclass
class Design:
    directory: Path
    algorithm: str
    params: dict
    param_hash: str
    top: str
    files: list[str]
    cycles: int
    latency: int
    initiation_interval: int
    frame_beats: int
    input_width: int
    output_width: int
    operands: list[dict]
    congruence: str
    paper: str
    info: dict
    config_width: int = 0   # a cfg stream's payload bits (0: none)
    computes: dict = dataclasses.field(default_factory=dict)    # registry.Computes.record()
    ports: list[dict] = dataclasses.field(default_factory=list)  # the port contract (ports())
    payload: dict = dataclasses.field(default_factory=dict)      # bit maps (payload())
    reset: str = RESET
    latency_from: str = LATENCY_FROM
    result_beats: int = 0   # beats of a result; 0 (older design.json): frame_beats
    family: str = ""        # the algorithm's family (the FuseSoC core's library)
    ip_files: list[str] = dataclasses.field(default_factory=list)   # ip.names(): not Verilog sources

    def record(self) -> dict:
        rec = dataclasses.asdict(self)
        rec.pop("directory")
        rec["modforge_version"] = __version__
        return rec

    @property
    def operation_latency(self) -> int:
        """First input beat to last output beat of one operand set, without stalls."""
        return self.latency + self.frame_beats - 1

    @classmethod
    def load(cls, directory: Path) -> Design:
        rec = json.loads((Path(directory) / "design.json").read_text())
        fields = {f.name for f in dataclasses.fields(cls)}
        return cls(directory=Path(directory), **{k: v for k, v in rec.items() if k in fields})


def timing_text(cycles: int, latency: int, initiation_interval: int, frame_beats: int = 1) -> str:
    """A design's cycle figures under the names the port contract gives them (LATENCY_FROM,
    Design.operation_latency): the header, generate, verify and synth say them alike."""
    parts = [f"cycles {cycles} (the algorithm's formula)"]
    if frame_beats > 1:
        parts += [f"latency {latency} cycles (an input beat to its output beat)",
                  f"operation latency {latency + frame_beats - 1} cycles (first input beat to last output beat)"]
    else:
        parts.append(f"latency {latency} cycles (input handshake to o__valid)")
    parts.append(f"initiation interval {initiation_interval} cycles (between operand sets)")
    return ", ".join(parts)


def payload_lines(stream: str, fields: list[dict], indent: str = "  ") -> list[str]:
    """The header's bit map of a stream: a line a field, its parts below it (ip.bit_map_lines,
    as the IP files write it)."""
    return ip.bit_map_lines(fields, f"{stream}__payload", indent)


def _header(algorithm: Algorithm, plan: Plan, core: Any) -> str:
    frames = f"; frames of {plan.frame_beats} beats" if plan.frame_beats > 1 else ""
    if plan.result_beats != plan.frame_beats:
        frames += f", results of {plan.result_beats} (with the frame's last {plan.result_beats})"
    lines = [
        f"modforge {__version__}: {algorithm.name} ({algorithm.title})",
        f"command: {command_line(algorithm, plan.params)}",
        "parameters: " + ", ".join(f"{k}={v}" for k, v in canonical(plan.params).items()),
        f"paper: {algorithm.paper}",
        f"computes in: {plan.computes.label}" + ("" if plan.computes.is_field else " (a ring, not a field)"),
        f"output: {plan.congruence}",
        "timing: " + timing_text(plan.cycles, core.latency, core.initiation_interval, plan.frame_beats) + frames,
        f"latency: {LATENCY_FROM}",
        *HANDSHAKE.splitlines(),
        *([CONFIG_HANDSHAKE] if plan.config_width else []),
        "ports:",
        *(f"  {p['direction']:<3} {p['name']}[{p['width'] - 1}:0]  {p['meaning']}" for p in ports(plan, core)),
        *(line for stream, fields in payload(plan).items() for line in payload_lines(stream, fields)),
    ]
    return "".join(f"// {line}\n" for line in lines)


def generate(algorithm: Algorithm, params: Any, directory: Path) -> Design:
    """Write the Verilog files, design.json and the IP files made from it (ip.py)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    plan = algorithm.plan(params)
    core = algorithm.build(params)
    text = to_verilog(core, plan.module)
    text = re.sub(r'\(\* src = "[^"]*" \*\)\s*', "", text)   # memories keep them: no install path in the files
    header = _header(algorithm, plan, core)
    files = []
    for name, body in split_modules(text).items():
        path = directory / f"{name}.v"
        path.write_text(header + body)
        files.append(path.name)
    design = Design(
        directory=directory,
        algorithm=algorithm.name,
        family=algorithm.family,
        params=canonical(params),
        param_hash=param_hash(algorithm, params),
        top=plan.module,
        files=sorted(files),
        cycles=plan.cycles,
        latency=core.latency,
        initiation_interval=core.initiation_interval,
        frame_beats=plan.frame_beats,
        result_beats=plan.result_beats,
        input_width=plan.input_width,
        output_width=plan.output_width,
        operands=[operand_record(plan, op) for op in plan.operands],
        congruence=plan.congruence,
        paper=algorithm.paper,
        info=plan.info,
        config_width=plan.config_width,
        computes=plan.computes.record(),
        ports=ports(plan, core),
        payload=payload(plan),
        ip_files=ip.names(plan.module),
    )
    (directory / "design.json").write_text(json.dumps(design.record(), indent=2, sort_keys=True) + "\n")
    ip.write(directory)
    return design
