"""Vector files made by the bit-exact model: corner cases first, then random operands."""

from __future__ import annotations

import random
from pathlib import Path

from ..registry import Algorithm


def pack_operands(algorithm: Algorithm, params, operands: tuple[int, ...]) -> int:
    """The input payload: each operand at its offset (Plan.operands: operand 0 in the low bits)."""
    word = 0
    for spec, value in zip(algorithm.plan(params).operands, operands, strict=True):
        if not 0 <= value < 1 << spec.width:
            raise ValueError(f"{algorithm.name}: operand {spec.name}={value:#x} exceeds {spec.width} bits")
        word |= value << spec.offset
    return word


def make_vectors(algorithm: Algorithm, params, count: int, seed: int = 1) -> list[tuple[int, int]]:
    """(input payload, expected output) beats of `count` operand sets; corner cases lead."""
    rng = random.Random(seed)
    sets = list(algorithm.cases(params))[:count]
    while len(sets) < count:
        sets.append(algorithm.random_operands(params, rng))
    vectors = []
    for ops in sets:
        ins = algorithm.in_beats(params, ops)
        outs = algorithm.out_beats(params, algorithm.model(params, *ops))
        if len(ins) != len(outs) or len(ins) != algorithm.frame_beats(params):
            raise RuntimeError(f"{algorithm.name}: {len(ins)} input and {len(outs)} output beats, "
                               f"frame of {algorithm.frame_beats(params)}")
        vectors += [(pack_operands(algorithm, params, i), o) for i, o in zip(ins, outs, strict=True)]
    return vectors


def write_hex(path: Path, words, width: int) -> None:
    digits = (width + 3) // 4
    path.write_text("".join(f"{x:0{digits}x}\n" for x in words))


def write_vectors(vectors: list[tuple[int, int]], directory: Path, in_width: int, out_width: int) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    write_hex(directory / "in.hex", (i for i, _ in vectors), in_width)
    write_hex(directory / "out.hex", (o for _, o in vectors), out_width)
