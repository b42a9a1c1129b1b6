"""The export pipeline: Amaranth's RTLIL to lint-clean Verilog, every step a named pass.

    amaranth.back.rtlil.convert          the design's RTLIL (public API)
    Yosys: proc_clean, share             YOSYS_PASSES
    Python: ranges ... wires             passes.PASSES (and the optimisations of `trim`)
    Yosys: memory_collect, attrmap,      WRITE_SCRIPT (Amaranth's own Verilog export,
           write_verilog                 amaranth.back.verilog, without its `proc`)
    waivers.waive_unused                 the lint waivers, one place

`skip` names passes or optimisations to leave out (benchmarks/verilog_passes.py measures
each; the snapshot guard runs without `share`). `steps` gives the RTLIL after every pass,
for proof.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from amaranth.back import rtlil

from . import passes as P
from .rtlil import Netlist
from .waivers import waive_unused
from .yosys import run_yosys

#: Yosys passes on Amaranth's RTLIL, before the Python ones: name -> its Yosys command
YOSYS_PASSES = {
    # a switch on a zero-width value (`switch {}`) has cases write_verilog drops: resolved here
    "proc_clean": "proc_clean",
    # Amaranth lowers an expression used several times once per use (a condition replicated
    # over every bit of a select_or: 7,164 cells of the rsa-fmlm3 l=32 P=8 transform, 465
    # merged): opt_merge keeps one of identical cells, the others' wires become aliases of it.
    # It leaves processes alone (they only read wires); the aliases nothing reads go (dead,
    # wires). Not flip-flops (each register of the design stays one in the Verilog, where a
    # waveform shows it) nor memory ports.
    "share": "opt_merge t:$*dff* t:$mem* %u %n",
}

# Amaranth's own Verilog export (amaranth.back.verilog, 0.5) on the cleaned RTLIL, with only
# proc_clean of its `proc -nomux`: Amaranth's processes are combinational already, and the rest
# of proc would mark the switches full_case (proc_rmdead) and turn `x == 0` into `!x`, a
# multi-bit logical not (opt_expr); proc_clean, after the passes, would drop their default cases.
INTERNAL_ATTRS = "-remove generator -remove top -remove src -remove amaranth.hierarchy -remove amaranth.decoding"
WRITE_SCRIPT = ["memory_collect", f"attrmap {INTERNAL_ATTRS}", f"attrmap -modattr {INTERNAL_ATTRS}"]

NAMES = frozenset(YOSYS_PASSES) | {p.name for p in P.PASSES} | frozenset(P.OPTIMISATIONS)


def _check(skip: Iterable[str]) -> frozenset[str]:
    skip = frozenset(skip)
    unknown = skip - NAMES
    if unknown:
        raise ValueError(f"verilog: no pass or optimisation named {', '.join(sorted(unknown))}; "
                         f"known: {', '.join(sorted(NAMES))}")
    return skip


def yosys_passes(text: str, names: list[str]) -> list[str]:
    """The RTLIL after each of the Yosys passes `names` (one Yosys run)."""
    script = ["read_rtlil in.il"]
    for k, name in enumerate(names):
        script += [YOSYS_PASSES[name], f"write_rtlil out{k}.il"]
    out = run_yosys("\n".join(script) + "\n", {"in.il": text}, [f"out{k}.il" for k in range(len(names))],
                    what=f"verilog ({', '.join(names)})")
    return [out[f"out{k}.il"] for k in range(len(names))]


def steps(text: str, top: str, skip: Iterable[str] = (), *, write: bool = True) -> list[tuple[str, str]]:
    """(pass name, RTLIL after it) for every pass that runs, after ("amaranth", the input)."""
    skip = _check(skip)
    names = [n for n in YOSYS_PASSES if n not in skip]
    out = [("amaranth", text)]
    if names:
        out += zip(names, yosys_passes(text, names), strict=True)
    ctx = P.Context(top=top, optimisations=P.DEFAULT_OPTIMISATIONS - skip)
    net = Netlist(out[-1][1])
    for p in P.PASSES:
        if p.name not in skip:
            p.run(net, ctx)
            if write:
                out.append((p.name, net.text()))
    if not write:
        out.append(("passes", net.text()))
    return out


def run_passes(text: str, top: str, skip: Iterable[str] = ()) -> str:
    """The Python passes alone (PASSES, not Yosys's) on RTLIL text."""
    return steps(text, top, frozenset(skip) | frozenset(YOSYS_PASSES), write=False)[-1][1]


def write_verilog(text: str) -> str:
    """The Verilog of cleaned RTLIL (WRITE_SCRIPT), with its lint waivers."""
    script = "\n".join(["read_rtlil in.il", *WRITE_SCRIPT, "write_verilog -norename out.v"]) + "\n"
    return waive_unused(run_yosys(script, {"in.il": text}, ["out.v"], what="verilog (write_verilog)")["out.v"])


def rtlil_to_verilog(text: str, top: str, skip: Iterable[str] = ()) -> str:
    """Amaranth's RTLIL of a design whose top module is `top`, as lint-clean Verilog."""
    return write_verilog(steps(text, top, skip, write=False)[-1][1])


def to_verilog(core: Any, module: str, skip: Iterable[str] = (), ports: list[Any] | None = None) -> str:
    """The Verilog of an Amaranth component (or an elaboratable with its `ports`), top module
    `module`: clean under verilator -Wall."""
    return rtlil_to_verilog(rtlil.convert(core, name=module, ports=ports, emit_src=False), module, skip)


def split_modules(text: str) -> dict[str, str]:
    """Yosys writes every module into one text; one file per module, named after it."""
    modules = {}
    for match in re.finditer(r"(?:\(\*[^*]*\*\)\s*)*module\s+(\S+?)\s*\(.*?\nendmodule\n", text, re.S):
        modules[match.group(1).lstrip("\\")] = match.group(0)
    return modules
