"""Design: the generated files of one configuration and design.json, the record that
simulation, synthesis and sweeps read instead of re-deriving anything."""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
from pathlib import Path

from amaranth.back import verilog

from . import __version__
from .registry import Algorithm, canonical, param_hash

HANDSHAKE = (
    "valid/ready streams: an operand set moves on i when i__valid & i__ready at a rising clk;\n"
    "a result moves on o when o__valid & o__ready. rst is synchronous, active high.\n"
    "Latency (input handshake to o__valid) is the same for every operand value;\n"
    "an operand set of several beats (a frame) streams its beats in order, as does its result."
)
CONFIG_HANDSHAKE = "cfg is a valid/ready stream of configuration words, taken while no operand set is in the core."


def command_line(algorithm: Algorithm, params) -> str:
    args = " ".join(shlex.quote(f"{k}={v}") for k, v in canonical(params).items())
    return f"modforge generate {algorithm.name} {args}"


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
    computes: dict = dataclasses.field(default_factory=dict)  # registry.Computes.record()

    def record(self) -> dict:
        rec = dataclasses.asdict(self)
        rec.pop("directory")
        rec["modforge_version"] = __version__
        rec["ports"] = {"clk": 1, "rst": 1, "i__valid": 1, "i__ready": 1, "i__payload": self.input_width,
                        "o__valid": 1, "o__ready": 1, "o__payload": self.output_width}
        if self.config_width:
            rec["ports"] |= {"cfg__valid": 1, "cfg__ready": 1, "cfg__payload": self.config_width}
        return rec

    @property
    def operation_latency(self) -> int:
        """First input beat to last output beat of one operand set, without stalls."""
        return self.latency + self.frame_beats - 1

    @classmethod
    def load(cls, directory: Path) -> "Design":
        rec = json.loads((Path(directory) / "design.json").read_text())
        fields = {f.name for f in dataclasses.fields(cls)}
        return cls(directory=Path(directory), **{k: v for k, v in rec.items() if k in fields})


def _header(algorithm: Algorithm, params, core, top: str) -> str:
    lines = [
        f"modforge {__version__}: {algorithm.name} ({algorithm.title})",
        f"command: {command_line(algorithm, params)}",
        "parameters: " + ", ".join(f"{k}={v}" for k, v in canonical(params).items()),
        f"paper: {algorithm.paper}",
        f"output: {algorithm.congruence(params)}",
        f"cycles: {algorithm.cycles(params)} step cycles; latency {core.latency} cycles;"
        f" initiation interval {core.initiation_interval} cycles"
        + (f"; frames of {algorithm.frame_beats(params)} beats" if algorithm.frame_beats(params) > 1 else ""),
        *HANDSHAKE.splitlines(),
        *([CONFIG_HANDSHAKE] if algorithm.config_width(params) else []),
    ]
    return "".join(f"// {line}\n" for line in lines)


def split_modules(text: str) -> dict[str, str]:
    """Amaranth writes every module into one text; one file per module, named after it."""
    modules = {}
    for match in re.finditer(r"(?:\(\*[^*]*\*\)\s*)*module\s+(\S+?)\s*\(.*?\nendmodule\n", text, re.S):
        modules[match.group(1).lstrip("\\")] = match.group(0)
    return modules


def generate(algorithm: Algorithm, params, directory: Path) -> Design:
    """Write the Verilog files and design.json of a validated configuration."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    core = algorithm.build(params)
    top = algorithm.module_name(params)
    text = verilog.convert(core, name=top, strip_internal_attrs=True)
    header = _header(algorithm, params, core, top)
    files = []
    for name, body in split_modules(text).items():
        path = directory / f"{name}.v"
        path.write_text(header + body)
        files.append(path.name)
    operands = algorithm.operands(params)
    design = Design(
        directory=directory,
        algorithm=algorithm.name,
        params=canonical(params),
        param_hash=param_hash(algorithm, params),
        top=top,
        files=sorted(files),
        cycles=algorithm.cycles(params),
        latency=core.latency,
        initiation_interval=core.initiation_interval,
        frame_beats=algorithm.frame_beats(params),
        input_width=sum(op.width for op in operands),
        output_width=algorithm.result_width(params),
        operands=[dataclasses.asdict(op) for op in operands],
        congruence=algorithm.congruence(params),
        paper=algorithm.paper,
        info=algorithm.extra_info(params),
        config_width=algorithm.config_width(params),
        computes=algorithm.computes(params).record(),
    )
    (directory / "design.json").write_text(json.dumps(design.record(), indent=2, sort_keys=True) + "\n")
    return design
