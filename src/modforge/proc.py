"""Processes that die with their parent: sweep workers and the tools they run (simulators,
Yosys, nextpnr) get SIGKILL when the process that started them ends, however it ends (a
`kill -9` of `modforge explore` leaves nothing running)."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int | None = None) -> None:
    """Ask the kernel to SIGKILL this process when its parent ends (Linux; elsewhere a no-op).
    Use as a worker pool's initializer or a subprocess' preexec_fn; `parent`, the pid that
    started it, closes the race of a parent that ended before the request was made."""
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if parent is not None and os.getppid() != parent:
        os._exit(1)
