"""Run the generated testbench on Verilator or Icarus and parse the verdict line."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
import time
from pathlib import Path

from ..design import Design
from ..errors import ToolMissing

SIMULATORS = ("verilator", "icarus")
INSTALL = {
    "verilator": "install Verilator (Debian/Ubuntu: apt-get install verilator; >= 5.0 for --binary)",
    "icarus": "install Icarus Verilog (Debian/Ubuntu: apt-get install iverilog)",
}
VERDICT = re.compile(r"MODFORGE-VERDICT (.*)")


@dataclasses.dataclass
class SimResult:
    simulator: str
    vectors: int
    passed: int
    failed: int
    latency_failures: int
    ii_failures: int
    latency: int
    initiation_interval: int
    timeout: bool
    build_seconds: float
    run_seconds: float
    log: str

    @property
    def ok(self) -> bool:
        return (self.failed == 0 and self.latency_failures == 0 and self.ii_failures == 0
                and not self.timeout and self.passed == self.vectors)


def tool_path(simulator: str) -> str:
    exe = {"verilator": "verilator", "icarus": "iverilog"}[simulator]
    path = shutil.which(exe)
    if path is None:
        raise ToolMissing(f"simulator '{simulator}' not found on PATH: {INSTALL[simulator]}")
    return path


def _run(cmd: list[str], cwd: Path, log: list[str], timeout: float) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    log.append("$ " + " ".join(cmd) + "\n" + proc.stdout + proc.stderr)
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed (exit {proc.returncode}):\n" + "".join(log)[-4000:])
    return time.perf_counter() - start


def simulate(design: Design, simulator: str, timeout: float = 1800) -> SimResult:
    """Simulate design.directory/tb.v (written by verify) with vectors/ beside it."""
    tool_path(simulator)
    root = design.directory
    sources = ["tb.v", *design.files]
    log: list[str] = []
    if simulator == "icarus":
        build = _run(["iverilog", "-g2005", "-s", "tb", "-o", "tb.vvp", *sources], root, log, timeout)
        run = _run(["vvp", "-n", "tb.vvp"], root, log, timeout)
    else:
        objdir = "obj_verilator"
        build = _run(["verilator", "--binary", "-j", "2", "-O2", "--top-module", "tb", "-Wno-fatal",
                      "-Wno-lint", "-Wno-style", "--Mdir", objdir, "-o", "Vtb", *sources], root, log, timeout)
        run = _run([f"{objdir}/Vtb"], root, log, timeout)
    text = "".join(log)
    match = VERDICT.search(text)
    if not match:
        raise RuntimeError(f"{simulator}: no verdict line in the simulation log:\n{text[-4000:]}")
    fields = dict(item.split("=") for item in match.group(1).split())
    return SimResult(
        simulator=simulator,
        vectors=int(fields["vectors"]),
        passed=int(fields["pass"]),
        failed=int(fields["fail"]),
        latency_failures=int(fields["latency_fail"]),
        ii_failures=int(fields["ii_fail"]),
        latency=int(fields["latency"]),
        initiation_interval=int(fields["ii"]),
        timeout=fields["timeout"] != "0",
        build_seconds=build,
        run_seconds=run,
        log=text,
    )
