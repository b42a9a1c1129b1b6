"""Vector files made by the bit-exact model: one random operand set, the corner cases, then
random operands."""

from __future__ import annotations

import random
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from amaranth.lib import data

from ..registry import Algorithm


def pack_operands(algorithm: Algorithm, params: Any, operands: tuple[Any, ...]) -> int:
    """The input payload through the plan's input layout (operand 0 in the low bits): each
    operand one int, or (an operand of lanes) a sequence of its lanes, lane 0 lowest."""
    plan = algorithm.plan(params)
    fields: dict[str, Any] = {}
    for spec, value in zip(plan.operands, operands, strict=True):
        shape = plan.input_layout[spec.name].shape
        if isinstance(value, int):
            if not 0 <= value < 1 << spec.width:
                raise ValueError(f"{algorithm.name}: operand {spec.name}={value:#x} exceeds {spec.width} bits")
            fields[spec.name] = shape.from_bits(value) if isinstance(shape, data.Layout) else value
            continue
        lanes = list(value)
        if len(lanes) != spec.lanes or not all(0 <= x < 1 << spec.lane_width for x in lanes):
            raise ValueError(f"{algorithm.name}: operand {spec.name}={lanes} is not {spec.lanes} lanes of "
                             f"{spec.lane_width} bits")
        fields[spec.name] = lanes
    return int(plan.input_layout.const(fields).as_bits())


def make_vectors(algorithm: Algorithm, params: Any, count: int, seed: int = 1) -> tuple[list[int], list[int]]:
    """The input payloads and the expected result beats of `count` operand sets: a random
    set first (a core that gets its first set after reset wrong would pass on a corner such as
    all zeros: registers still hold their initial zeros), then the corner cases, then random
    ones."""
    rng = random.Random(seed)
    sets = [algorithm.random_operands(params, rng), *algorithm.cases(params)][:count]
    while len(sets) < count:
        sets.append(algorithm.random_operands(params, rng))
    plan = algorithm.plan(params)
    ins_all: list[int] = []
    outs_all: list[int] = []
    for ops in sets:
        ins = algorithm.in_beats(params, ops)
        outs = algorithm.out_beats(params, algorithm.model(params, *ops))
        if len(ins) != plan.frame_beats or len(outs) != plan.result_beats:
            raise RuntimeError(f"{algorithm.name}: {len(ins)} input and {len(outs)} output beats, "
                               f"frames of {plan.frame_beats} and {plan.result_beats}")
        ins_all += [pack_operands(algorithm, params, i) for i in ins]
        outs_all += outs
    return ins_all, outs_all


def write_hex(path: Path, words: Iterable[int], width: int) -> None:
    digits = (width + 3) // 4
    path.write_text("".join(f"{x:0{digits}x}\n" for x in words))


def write_vectors(vectors: tuple[list[int], list[int]], directory: Path, in_width: int, out_width: int) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    write_hex(directory / "in.hex", vectors[0], in_width)
    write_hex(directory / "out.hex", vectors[1], out_width)
