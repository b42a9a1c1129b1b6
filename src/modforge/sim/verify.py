"""generate -> vectors -> testbench -> simulate: the verdict of one configuration."""

from __future__ import annotations

from pathlib import Path

from ..design import Design, generate
from ..registry import Algorithm
from .runners import SimResult, simulate
from .testbench import testbench
from .vectors import make_vectors, write_vectors


def prepare(algorithm: Algorithm, params, directory: Path, count: int, seed: int = 1) -> Design:
    """Write the design, `count` model vectors and the testbench into `directory`."""
    design = generate(algorithm, params, directory)
    vectors = make_vectors(algorithm, params, count, seed)
    write_vectors(vectors, design.directory / "vectors", design.input_width, design.output_width)
    (design.directory / "tb.v").write_text(testbench(design, count))
    return design


def verify(algorithm: Algorithm, params, directory: Path, count: int, simulators: list[str],
           seed: int = 1) -> tuple[Design, list[SimResult]]:
    design = prepare(algorithm, params, directory, count, seed)
    return design, [simulate(design, sim) for sim in simulators]
