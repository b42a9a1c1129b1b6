"""A `kill -9` of `modforge explore` takes its workers (and the tools they run) with it."""

import os
import signal
import subprocess
import time
from pathlib import Path

from .conftest import TINY, cli, env, need_tools, write


def descendants(pid: int) -> set[int]:
    """Every live process below pid (from /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.add(child)
            todo.append(child)
    return out


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_workers_die_with_the_sweep(tmp_path):
    need_tools()
    sweep = write(tmp_path, TINY)
    proc = subprocess.Popen(cli("explore", sweep, "--db", tmp_path / "r.sqlite", "--workers", "1"), env=env(),
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline, workers = time.time() + 60, set()
        while time.time() < deadline and not workers:
            time.sleep(0.5)
            workers = descendants(proc.pid)
        assert workers, "the sweep started no worker"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        deadline = time.time() + 20
        while time.time() < deadline and any(alive(p) for p in workers):
            time.sleep(0.5)
        left = [Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" ")[:200] for p in workers if alive(p)]
        assert not left, f"outlived the sweep: {left}"
    finally:
        if proc.poll() is None:
            proc.kill()
