"""DSP-aware multiplication: a product split into the partial products that fit a device's
DSP multipliers, one register per partial product, then their sum.

Contract: `partial_products(x, xw, y, yw, dsp)` returns [(shift, product)] whose sum
`accumulate` (each product shifted left by its offset) equals x * y for every x < 2^xw,
y < 2^yw, with y a Value or a constant int (zero constant chunks are dropped, so a sparse
constant costs fewer DSPs). `dsp` is a (Gamma_A, Gamma_B) pair of `DSP_PROFILES` or None
(one product, left to the synthesis tool). All operands are unsigned. `tiling` and
`dsp_tiles` are the integer side: the chunk sizes and the DSP count of the better
orientation, which plans and cost reports read.
"""

from __future__ import annotations

from typing import Literal

from amaranth.hdl import Cat, Const, Value

from .pipeline import Stager

#: the device profiles (a parameter's type: its choices) and their DSP operand sizes
#: (Gamma_A >= Gamma_B, unsigned); none: one product, left to the synthesis tool
Dsp = Literal["dsp48e2", "dsp48e1", "ecp5", "none"]
DSP_PROFILES: dict[str, tuple[int, int] | None] = {"dsp48e2": (26, 17), "dsp48e1": (25, 18), "ecp5": (18, 18),
                                                   "none": None}
DSP_HELP = "DSP profile for the product tiling: dsp48e2 (26x17, the paper), dsp48e1 (25x18), ecp5 (18x18), none"


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def dsp_tiles(a_bits: int, b_bits: int, gamma_a: int, gamma_b: int) -> int:
    """DSP multiplications of an a_bits x b_bits product with standard tiling, the better
    orientation: min(ceil(a/GA) ceil(b/GB), ceil(a/GB) ceil(b/GA)) (errata)."""
    if a_bits <= 0 or b_bits <= 0:
        return 0
    return min(_ceil_div(a_bits, gamma_a) * _ceil_div(b_bits, gamma_b),
               _ceil_div(a_bits, gamma_b) * _ceil_div(b_bits, gamma_a))


def tiling(a_bits: int, b_bits: int, gamma_a: int, gamma_b: int) -> tuple[int, int]:
    """(chunk of a, chunk of b) of the better orientation of `dsp_tiles`."""
    one = _ceil_div(a_bits, gamma_a) * _ceil_div(b_bits, gamma_b)
    two = _ceil_div(a_bits, gamma_b) * _ceil_div(b_bits, gamma_a)
    return (gamma_a, gamma_b) if one <= two else (gamma_b, gamma_a)


def unsigned_as_signed(v: Value) -> Value:
    """v (unsigned) as a non-negative signed value one bit wider."""
    return Cat(v, Const(0, 1)).as_signed()


def partial_products(x: Value, xw: int, y, yw: int, dsp) -> list[tuple[int, Value]]:
    """x * y as [(shift, partial product)]: x (xw bits) and y (a Value or a constant int,
    yw bits) split into the DSP tiling's chunks (better orientation); dsp None: one product.
    Zero constant chunks are dropped (a constant y)."""
    if dsp is None:
        return [(0, x * y)]
    cx, cy = tiling(xw, yw, *dsp)
    out = []
    for i in range(0, xw, cx):
        xi = x[i:min(i + cx, xw)]
        for j in range(0, yw, cy):
            if isinstance(y, int):
                yj = (y >> j) & ((1 << min(cy, yw - j)) - 1)
                if yj == 0:
                    continue
                out.append((i + j, xi * yj))
            else:
                out.append((i + j, xi * y[j:min(j + cy, yw)]))
    return out or [(0, Const(0, 1))]


def register_products(stage: Stager, parts, name: str) -> list[tuple[int, Value]]:
    """One stage: a register per partial product (a DSP's output register)."""
    return [(s, stage(p, f"{name}_pp{k}")) for k, (s, p) in enumerate(parts)]


def accumulate(parts) -> Value:
    """The sum of (registered) partial products at their offsets."""
    acc = None
    for s, p in parts:
        term = p << s if s else p
        acc = term if acc is None else acc + term
    return acc
