"""generate -> vectors -> testbench -> simulate: the verdict of one configuration."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .. import ip
from ..design import Design, generate
from ..registry import Algorithm
from .netlist import write_netlist
from .runners import Progress, SimResult, simulate
from .testbench import write_command_testbench, write_testbench
from .vectors import make_vectors, write_hex, write_vectors


def operand_sets(algorithm: Algorithm, params: Any, vectors: int) -> int:
    """Operand sets that make at least `vectors` result vectors (beats): a multiplier's
    vector is one set; a polynomial result of F beats makes F, and at least 3 run (the calm
    frames and the stalled ones)."""
    frame = algorithm.result_beats(params)
    return vectors if algorithm.frame_beats(params) == 1 else max(3, math.ceil(vectors / frame))


def prepare(algorithm: Algorithm, params: Any, directory: Path, count: int, seed: int = 1) -> Design:
    """Write the design, at least `count` model vectors and the testbench into `directory`."""
    design = generate(algorithm, params, directory)
    if algorithm.commands:
        return prepare_commands(algorithm, params, design, count, seed)
    sets = operand_sets(algorithm, params, count)
    loaded, config = algorithm.verification_config(params)     # a cfg stream loads `loaded`
    vectors = make_vectors(algorithm, loaded, sets, seed)
    write_vectors(vectors, design.directory / "vectors", design.input_width, design.output_width)
    if config:
        write_hex(design.directory / "vectors" / "cfg.hex", config, design.config_width)
    write_testbench(design, sets, len(config))   # tb.v holds no count: vectors/count.hex does
    ip.write(design.directory)   # the FuseSoC core gains its sim target
    return design


def prepare_commands(algorithm: Algorithm, params: Any, design: Design, count: int, seed: int) -> Design:
    """A command core's vectors (Algorithm.command_vectors: programs storing `count` rows at
    least; the first `calm` commands run without stalls) and its testbench."""
    beats, gaps, rows, calm = algorithm.command_vectors(params, count, seed)
    folder = design.directory / "vectors"
    write_vectors((beats, rows), folder, design.input_width, design.output_width)
    write_hex(folder / "gap.hex", gaps, 64)
    calm_rows = sum(g >> 32 & 1 for g in gaps[:calm]) * design.result_beats
    write_command_testbench(design, len(beats), len(rows), calm, calm_rows, sum(g & 0xFFFFFFFF for g in gaps))
    ip.write(design.directory)
    return design


def verify(algorithm: Algorithm, params: Any, directory: Path, count: int, simulators: list[str],
           seed: int = 1, progress: Progress | None = None,
           netlist: str | None = None) -> tuple[Design, list[SimResult]]:
    """Simulate the design (or, with `netlist` a synthesis target, its post-synthesis netlist)."""
    design = prepare(algorithm, params, directory, count, seed)
    sources = write_netlist(design, netlist) if netlist else None
    # the simulators are independent processes writing different files: run them side by side
    with ThreadPoolExecutor(max_workers=len(simulators) or 1) as pool:
        results = list(pool.map(lambda sim: simulate(design, sim, progress=progress, netlist=sources), simulators))
    return design, results
