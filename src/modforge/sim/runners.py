"""Run the generated testbench on Verilator or Icarus and parse the verdict line.

Verilator builds take most of a short run's time, so the built simulator is cached
(modforge.cache, folder verilator/) under a hash of the Verilator version, its flags and
every source byte: the same design and testbench are compiled once per machine, and serve
every vector set (the testbench reads the sizes from vectors/count.hex). Verilator's
run-time library objects, the same for every design, are cached too (verilator-runtime/).
$MODFORGE_NO_SIM_CACHE=1 turns both off.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from ..cache import cache_dir
from ..design import Design
from ..errors import ToolMissing
from ..proc import die_with_parent

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
    build_cached: bool = False
    #: resets the testbench applied mid-run, and the operand sets it offered again after them
    resets: int = 0
    replayed: int = 0

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


def _run(cmd: list[str], cwd: Path, log: list[str], timeout: float,
         on_line: Callable[[str], None] | None = None) -> float:
    """Run a tool, its output (stdout and stderr) into `log` and, line by line as it comes, to `on_line`."""
    start = time.perf_counter()
    with subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          errors="replace", preexec_fn=die_with_parent) as proc:
        expired = threading.Event()

        def stop() -> None:
            expired.set()
            proc.kill()

        timer = threading.Timer(timeout, stop)
        timer.start()
        try:
            lines = []
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.append(line)
                if on_line is not None:
                    on_line(line)
            proc.wait()
        finally:
            timer.cancel()
    log.append("$ " + " ".join(cmd) + "\n" + "".join(lines))
    if expired.is_set():
        raise subprocess.TimeoutExpired(cmd, timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed (exit {proc.returncode}):\n" + "".join(log)[-4000:])
    return time.perf_counter() - start


#: progress(simulator, step, done, total): step "build" (done = total = 0 while unknown) or
#: "run" (results checked of total)
Progress = Callable[[str, str, int, int], None]


def simulate(design: Design, simulator: str, timeout: float = 1800, progress: Progress | None = None,
             netlist: list[str] | None = None) -> SimResult:
    """Simulate design.directory/tb.v (written by verify) with vectors/ beside it: on the
    design's files, or on a post-synthesis netlist and its cell models (paths in the folder);
    `progress` hears of the build and of the results checked (the testbench's
    MODFORGE-PROGRESS lines)."""
    tool_path(simulator)
    root = Path(design.directory).resolve()      # the binary runs from inside it: no relative paths
    sources = ["tb.v", *(netlist or design.files)]
    log: list[str] = []

    def on_line(line: str) -> None:
        if progress is not None and line.startswith("MODFORGE-PROGRESS "):
            done, total = line.split()[1:3]
            progress(simulator, "run", int(done), int(total))

    plusargs = ["+progress"] if progress is not None else []   # the testbench's progress lines
    if progress is not None:
        progress(simulator, "build", 0, 0)
    if simulator == "icarus":
        # the Xilinx cell models are SystemVerilog
        standard = "-g2012" if netlist and any(n.endswith("cells_sim.v") for n in netlist) else "-g2005"
        build = _run(["iverilog", standard, "-s", "tb", "-o", "tb.vvp", *sources], root, log, timeout)
        run = _run(["vvp", "-n", "tb.vvp", *plusargs], root, log, timeout, on_line)
    else:
        binary, build, cached = _verilator_build(root, sources, log, timeout)
        run = _run([str(binary), *plusargs], root, log, timeout, on_line)
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
        build_cached=simulator == "verilator" and cached,
        resets=int(fields.get("resets", 0)),
        replayed=int(fields.get("replayed", 0)),
    )


#: Verilator's flags. -fno-merge-cond: its pass that merges consecutive conditionals is
#: quadratic in a block's statements; it took 151 of 171 s verilating poly-fast n=256 M=4
#: (15.6 s without it) and buys the simulation next to nothing. --binary's parts apart
#: (--cc --exe --main --timing): modforge runs make itself, with the run-time library's
#: objects from the cache.
VERILATOR_FLAGS = ["--cc", "--exe", "--main", "--timing", "-O2", "-fno-merge-cond", "--top-module", "tb",
                   "-Wno-fatal", "-Wno-lint", "-Wno-style"]
#: The C++ of the design unoptimized: g++ -Os took 2 to 4 times as long as -O0 on large designs
#: (poly-fast n=256 M=4: 78 s against 31 s of CPU), a run -O0 makes up to 5 times slower is
#: well under a second for 10,000 vectors of every grid design (benchmarks in the commit).
MAKE_FLAGS = ["OPT_FAST=-O0", "OPT_SLOW=-O0"]
BUILD_JOBS = "2"
#: the environment make reads into the compile lines (the run-time objects' cache key)
MAKE_ENVIRONMENT = ("CXXFLAGS", "CPPFLAGS", "USER_CPPFLAGS", "OPT", "OPT_GLOBAL", "M32", "OBJCACHE")


def _verilator_build(root: Path, sources: list[str], log: list[str], timeout: float) -> tuple[Path, float, bool]:
    """The simulator binary of `sources` (from the cache, or built and cached), build seconds, cached?"""
    version = subprocess.run(["verilator", "--version"], capture_output=True, text=True).stdout
    key = hashlib.sha256("\0".join([version, *VERILATOR_FLAGS, *MAKE_FLAGS]).encode())
    for name in sources:
        key.update(name.encode() + b"\0" + (root / name).read_bytes())
    use_cache = os.environ.get("MODFORGE_NO_SIM_CACHE", "") in ("", "0")
    cached = cache_dir("verilator") / key.hexdigest()[:24] / "Vtb" if use_cache else None
    if cached is not None and cached.is_file():
        os.utime(cached.parent)  # recently used: pruned last
        log.append(f"$ verilator (cached build {cached})\n")
        return cached, 0.0, True
    objdir = "obj_verilator"
    where = root
    if any(c in str(root) for c in " #$:;"):      # GNU make cannot build in such a folder: build elsewhere
        where = Path(tempfile.mkdtemp(prefix="modforge-verilator-"))
        for name in sources:
            shutil.copy2(root / name, where / name)
    start = time.perf_counter()
    _run(["verilator", *VERILATOR_FLAGS, "--Mdir", objdir, "-o", "Vtb", *sources], where, log, timeout)
    runtime = _runtime_objects(where / objdir, version, use_cache)
    _run(["make", "-j", BUILD_JOBS, "-C", objdir, "-f", "Vtb.mk", *MAKE_FLAGS], where, log,
         timeout - (time.perf_counter() - start))
    if not runtime:
        _store_runtime_objects(where / objdir, version, use_cache)
    build = time.perf_counter() - start
    binary = root / objdir / "Vtb"
    if where != root:
        binary.parent.mkdir(exist_ok=True)
        shutil.copy2(where / objdir / "Vtb", binary)
        shutil.rmtree(where, ignore_errors=True)
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_name(f"Vtb.{os.getpid()}.partial")
        shutil.copy2(binary, partial)
        os.replace(partial, cached)  # atomic: concurrent workers never see half a binary
        _prune(cached.parent.parent)
    return binary, build, False


def _runtime_key(objdir: Path, version: str) -> tuple[str, list[str]]:
    """The cache folder name of Verilator's run-time library objects (verilated.o, ...) as the
    generated makefiles compile them, and their names: the same for every design."""
    classes = (objdir / "Vtb_classes.mk").read_text()
    names: list[str] = []
    for kind in ("VM_GLOBAL_FAST", "VM_GLOBAL_SLOW"):
        block = re.search(rf"^{kind} \+= \\\n((?:\t\S+ \\\n)*)", classes, re.M)
        names += [f"{n}.o" for n in (block.group(1).split() if block else []) if n != "\\"]
    settings = re.findall(r"^VM_\w+ = .*$", classes, re.M)
    key = hashlib.sha256("\0".join([version, (objdir / "Vtb.mk").read_text(), *settings, *names,
                                    *(f"{v}={os.environ.get(v, '')}" for v in MAKE_ENVIRONMENT)]).encode())
    return key.hexdigest()[:24], names


def _runtime_objects(objdir: Path, version: str, use_cache: bool) -> bool:
    """Copy the cached run-time objects into `objdir`, newer than its makefile (so make keeps
    them): a small design's build was 7 of its 10 s compiling them. True if they were there."""
    if not use_cache:
        return False
    name, objects = _runtime_key(objdir, version)
    folder = cache_dir("verilator-runtime") / name
    if not objects or not all((folder / o).is_file() for o in objects):
        return False
    for o in objects:
        shutil.copyfile(folder / o, objdir / o)   # copyfile: the copy's time is now
    return True


def _store_runtime_objects(objdir: Path, version: str, use_cache: bool) -> None:
    if not use_cache:
        return
    name, objects = _runtime_key(objdir, version)
    folder = cache_dir("verilator-runtime") / name
    if not objects or folder.is_dir():
        return
    partial = Path(tempfile.mkdtemp(prefix=f"{name}.", dir=folder.parent))
    for o in objects:
        shutil.copyfile(objdir / o, partial / o)
    try:
        partial.rename(folder)      # atomic: another worker's complete copy may have won
    except OSError:
        shutil.rmtree(partial, ignore_errors=True)


CACHE_ENTRIES = 400  # a few hundred kB each


def _prune(folder: Path) -> None:
    """Keep the CACHE_ENTRIES most recently used builds."""
    entries = sorted(folder.iterdir(), key=lambda d: d.stat().st_mtime, reverse=True)
    for old in entries[CACHE_ENTRIES:]:
        shutil.rmtree(old, ignore_errors=True)
