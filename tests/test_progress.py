"""Progress bars (on a terminal only), the searches' time limit and Ctrl-C: one line, no traceback."""

import os
import pty
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
CLI = [sys.executable, "-m", "modforge.cli"]
# a search of hours: each degree-100000 trinomial takes a fraction of a second to test
ENDLESS = ["poly", "irreducible", "p=2", "degree=100000"]


def on_a_terminal(*args: str, interrupt_at: str | None = None) -> tuple[int, str, str]:
    """Run the CLI with stderr on a pseudo-terminal: (exit status, stdout, what the terminal
    showed); with interrupt_at, Ctrl-C (SIGINT) once the terminal shows that text."""
    master, slave = pty.openpty()
    # SIGINT back to its default in the child: a run from a background job (`pytest &`, nohup)
    # inherits it ignored, and Python then never raises KeyboardInterrupt (the search runs on)
    proc = subprocess.Popen([*CLI, *args], stdout=subprocess.PIPE, stderr=slave, env={**ENV, "COLUMNS": "120"},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:          # EIO: the child closed the terminal
            break
        if not chunk:
            break
        shown += chunk
        if interrupt_at is not None and interrupt_at.encode() in shown:
            proc.send_signal(signal.SIGINT)
            interrupt_at = None
    os.close(master)
    out = proc.stdout.read().decode() if proc.stdout else ""
    return proc.wait(timeout=30), out, shown.decode(errors="replace")


def test_search_progress_on_a_terminal_only():
    args = ["primes", "list", "family=ntt", "beta=30", "logqh=12", "count=3"]
    code, out, shown = on_a_terminal(*args)
    assert code == 0 and len(out.splitlines()) == 3
    assert "ntt beta=30 logqh=12: candidates" in shown        # the bar's label
    piped = subprocess.run([*CLI, *args], capture_output=True, text=True, env=ENV)
    assert piped.returncode == 0 and piped.stdout == out and piped.stderr == ""


def test_search_time_limit_is_one_line():
    start = time.monotonic()
    proc = subprocess.run([*CLI, *ENDLESS, "--timeout", "1"], capture_output=True, text=True, env=ENV, timeout=60)
    assert time.monotonic() - start < 30
    assert proc.returncode == 2 and proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert line.startswith("error: poly irreducible: stopped by the time limit of 1 s after ") and "--timeout" in line


@pytest.mark.parametrize("args, label", [
    (ENDLESS, "degree-100000 trinomials over GF(2)"),
    (["primes", "count", "family=ntt", "beta=48", "logqh=28", "method=python"], "ntt beta=48 logqh=28: candidates")])
def test_ctrl_c_is_one_line_exit_130(args, label):
    """Ctrl-C inside the search (its progress bar is showing): one line, exit 130."""
    code, out, shown = on_a_terminal(*args, interrupt_at=label)
    assert code == 130 and out == ""
    lines = [line for line in re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown).replace("\r", "\n").split("\n") if line]
    assert lines[-1] == "error: interrupted (Ctrl-C)" and "Traceback" not in shown, shown[-2000:]


def test_negative_timeout_is_refused(capsys):
    from modforge.cli import main
    assert main([*ENDLESS, "--timeout", "-1"]) == 2
    assert "argument '--timeout' must be a number of seconds >= 0" in capsys.readouterr().err


def test_search_progress_counts_candidates():
    from modforge.math import irreducible, primes
    seen: list[tuple[int, int]] = []
    assert next(irreducible.trinomials(2, 233, lambda d, t: seen.append((d, t))))[74] == 1   # x^233+x^74+1
    assert seen[0] == (0, 232) and seen[-1] == (73, 232)
    seen.clear()
    fam = primes.family("ntt", 30, 12)
    count = primes.count_family(fam, method="python", progress=lambda d, t: seen.append((d, t))).count
    assert count == 211 and seen[0] == (0, fam.candidates()) and len(seen) == -(-fam.candidates() // 4096)


@pytest.mark.sim
def test_simulation_reports_results_as_they_are_checked(tmp_path):
    from modforge.registry import lookup
    from modforge.sim.verify import verify
    alg = lookup("gf2n-blakely")
    calls: list[tuple] = []
    _, (result,) = verify(alg, alg.parse({"n": "9"}), tmp_path, 500, ["icarus"],
                          progress=lambda *call: calls.append(call))
    assert result.ok
    assert calls[0] == ("icarus", "build", 0, 0)
    runs = [c for c in calls if c[1] == "run"]
    assert [c[2] for c in runs] == list(range(5, 501, 5)) and all(c[3] == 500 for c in runs)
