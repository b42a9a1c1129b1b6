"""IP a project can drop in: an instantiation template, a VHDL component, a filelist and a
FuseSoC core, written from design.json alone (its port contract is the one truth, so these
files can never disagree with the Verilog the way a second derivation could)."""

from __future__ import annotations

import json
import re
from pathlib import Path

# VHDL basic identifiers: a letter, then letters/digits, single underscores, none at the end;
# anything else (i__valid) is written as an extended identifier, which keeps the Verilog name
BASIC_VHDL = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")


def names(top: str) -> list[str]:
    """The IP files of a design, in the order design.json lists them."""
    return [f"{top}_inst.v", f"{top}_component.vhd", f"{top}.f", f"{top}.core"]


def write(directory: Path) -> list[str]:
    """Write the IP files of the design in `directory` from its design.json; the core's sim
    target appears once tb.v is there, so call again after writing the testbench."""
    directory = Path(directory)
    rec = json.loads((directory / "design.json").read_text())
    top = rec["top"]
    texts = [instantiation(rec), vhdl_component(rec), filelist(rec), fusesoc_core(rec, _sim_files(directory))]
    for name, text in zip(names(top), texts, strict=True):
        (directory / name).write_text(text)
    return names(top)


def _header(rec: dict, what: str, mark: str) -> list[str]:
    params = ", ".join(f"{k}={v}" for k, v in rec["params"].items())
    lines = [f"modforge {rec['modforge_version']}: {what} of {rec['top']} ({rec['algorithm']}), from its design.json",
             f"parameters: {params}",
             f"output: {rec['congruence']}",
             f"latency {rec['latency']} cycles ({rec['latency_from']}); "
             f"initiation interval {rec['initiation_interval']} cycles"]
    return [f"{mark} {line}" for line in lines]


def _range(width: int) -> str:
    return f"[{width - 1}:0]" if width > 1 else ""


def bit_map_lines(fields: list[dict], prefix: str, indent: str = "") -> list[str]:
    """A payload's bit map (design.json's payload records): a line a field, `prefix` before its
    bit range, its lanes, its parts below it (indented): the Verilog header's and the IP's."""
    lines = []
    for f in fields:
        bits = "bit" if f.get("lane_width") == 1 else "bits"
        lanes = f" ({f['lanes']} lanes of {f['lane_width']} {bits})" if "lanes" in f else ""
        lines.append(f"{indent}{prefix}[{f['msb']}:{f['lsb']}] {f['name']}: {f['encoding']}; {f['domain']}{lanes}")
        lines += bit_map_lines(f.get("parts", []), prefix, indent + "  ")
    return lines


def _bit_map(rec: dict, port: dict, mark: str, indent: str) -> list[str]:
    """The payload fields of a *__payload port, one comment line each (parts below their field)."""
    stream = port["name"].removesuffix("__payload")
    if stream == port["name"]:
        return []
    return [f"{indent}{mark} {line}" for line in bit_map_lines(rec["payload"].get(stream, []), "", "  ")]


def instantiation(rec: dict) -> str:
    """A paste-ready fragment for a parent module that has clk and rst: a wire per stream
    signal, the instance with every port, its width and meaning, the payload bit maps."""
    top, ports = rec["top"], rec["ports"]
    lines = _header(rec, "instantiation template", "//")
    lines += ["// Paste into a module that has clk and rst; rename the instance and the wires as you like.", ""]
    wide = max(len(_range(p["width"])) for p in ports)
    for p in ports:
        if p["name"] not in ("clk", "rst"):
            lines.append(f"wire {_range(p['width']):<{wide}} {p['name']};")
    lines += ["", f"{top} u_{top} ("]
    name_w = max(len(p["name"]) for p in ports)
    for k, p in enumerate(ports):
        comma = "," if k < len(ports) - 1 else " "
        conn = f".{p['name']:<{name_w}} ({p['name']}){comma}"
        lines.append(f"    {conn:<{2 * name_w + 5}}  // {p['direction']:<3} {p['width']:>4} bits: {p['meaning']}")
        lines += _bit_map(rec, p, "//", "    ")
    lines.append(");")
    return "\n".join(lines) + "\n"


def vhdl_name(name: str) -> str:
    """The VHDL spelling of a Verilog name: a basic identifier where one is allowed, else an
    extended identifier (\\i__valid\\), which mixed-language tools match to the Verilog name."""
    return name if BASIC_VHDL.fullmatch(name) else f"\\{name}\\"


def vhdl_component(rec: dict) -> str:
    """A package holding the component declaration of the Verilog top (std_logic for a
    1-bit port, std_logic_vector(N-1 downto 0) otherwise), so VHDL can instantiate it."""
    top, ports = rec["top"], rec["ports"]
    lines = _header(rec, "VHDL component", "--")
    lines += ["-- The entity is the Verilog module (files in the .f list): bind it with your tools' mixed-language",
              "-- flow. Names with a double underscore are VHDL extended identifiers: they keep the Verilog names.",
              "library ieee;", "use ieee.std_logic_1164.all;", "",
              f"package {vhdl_name(top + '_pkg')} is", f"  component {vhdl_name(top)} is", "    port ("]
    name_w = max(len(vhdl_name(p["name"])) for p in ports)
    for k, p in enumerate(ports):
        kind = "std_logic" if p["width"] == 1 else f"std_logic_vector({p['width'] - 1} downto 0)"
        decl = f"{vhdl_name(p['name']):<{name_w}} : {p['direction']:<3} {kind}{';' if k < len(ports) - 1 else ''}"
        lines.append(f"      {decl}  -- {p['meaning']}")
        lines += _bit_map(rec, p, "--", "      ")
    lines += ["    );", "  end component;", "end package;"]
    return "\n".join(lines) + "\n"


def filelist(rec: dict) -> str:
    """The design's Verilog files, relative to its folder (`-f` for Icarus, Verilator, Vivado)."""
    return "".join(f"{name}\n" for name in rec["files"])


def _sim_files(directory: Path) -> list[str]:
    """tb.v and its vector files, when the testbench has been written."""
    if not (directory / "tb.v").is_file():
        return []
    return ["tb.v", *sorted(f"vectors/{p.name}" for p in (directory / "vectors").glob("*.hex"))]


def _q(text: str) -> str:
    """A YAML double-quoted scalar (JSON's string syntax is valid YAML)."""
    return json.dumps(text)


def fusesoc_core(rec: dict, sim_files: list[str]) -> str:
    """A FuseSoC CAPI2 core: the Verilog as one fileset, a default target with the top, and a
    sim target that runs tb.v on Icarus (the vectors copied beside it) when tb.v exists."""
    top = rec["top"]
    vlnv = f"modforge:{rec.get('family') or 'modforge'}:{top}:{rec['modforge_version']}"
    lines = ["CAPI=2:", *_header(rec, "FuseSoC core", "#"), f"name: {_q(vlnv)}",
             f"description: {_q(rec['congruence'])}", "", "filesets:", "  rtl:", "    file_type: verilogSource",
             "    files:", *(f"      - {_q(name)}" for name in rec["files"])]
    if sim_files:
        lines += ["  tb:", "    file_type: verilogSource", "    files:", f"      - {_q(sim_files[0])}"]
        lines += [f"      - {_q(name)}: {{file_type: user, copyto: {_q(name)}}}" for name in sim_files[1:]]
    lines += ["", "targets:", "  default:", "    filesets: [rtl]", f"    toplevel: {_q(top)}"]
    if sim_files:
        lines += ["  sim:", "    flow: sim", "    flow_options:", "      tool: icarus",
                  "      iverilog_options: [-g2005]", "    filesets: [rtl, tb]", "    toplevel: tb"]
    return "\n".join(lines) + "\n"
