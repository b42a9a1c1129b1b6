"""Wide products for the 128- to 1024-bit field multipliers (issue 37), built on hw.dsp's
Karatsuba tiling: several Karatsuba products side by side over the same KARATSUBA_STAGES
stages (`products`), and the low half of a product, x*y mod 2^n (`low_product`: a truncated
product; Montgomery's t = x q' mod R and Barrett's x - q3 q need only the low bits), split
recursively wherever that needs fewer DSPs than the whole product:

    x*y mod 2^n = x0 y0 + ((x0 y1 + x1 y0) mod 2^(n-h)) 2^h,   x = x1 2^h + x0, h = ceil(n/2),

one whole h-bit product and two low (n-h)-bit ones (`low_pieces`, `low_product_dsps`: the
pieces and their DSPs; each whole product is `karatsuba_product`'s, its levels chosen by
`karatsuba_levels` for the profile). A constant operand (q, q', mu) stays an int: its
leaves, differences and magnitudes are constants, no registers; the DSPs counted are the
tiling's (an upper bound: zero constant chunks are dropped).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

from amaranth.hdl import Cat, Const, Signal, Value, ValueLike

from .dsp import (
    DspSizes,
    Tree,
    karatsuba_dsps,
    karatsuba_multiply,
    karatsuba_recombine,
    karatsuba_split,
    karatsuba_square_split,
    karatsuba_sum,
)
from .pipeline import Stager

#: one whole product of a truncated one: (x offset, y offset, bits), x[xo:xo+bits] * y[yo:yo+bits]
#: at 2^(xo+yo)
Piece = tuple[int, int, int]
#: a product of `products`: x, y (Values of at least `bits` bits, or an int constant; None:
#: the square x^2, hw.dsp's square tree), bits
Pair = tuple[Value, "Value | int | None", int]


@functools.cache
def _low(bits: int, dsp: DspSizes) -> tuple[int, tuple[Piece, ...]]:
    """(DSPs, pieces) of x*y mod 2^bits: the whole product, or the recursive split when cheaper."""
    best: tuple[int, tuple[Piece, ...]] = (karatsuba_dsps(bits, dsp), ((0, 0, bits),))
    if dsp is None or bits < 2:
        return best
    h = -(-bits // 2)
    cost, sub = _low(bits - h, dsp)
    if karatsuba_dsps(h, dsp) + 2 * cost < best[0]:
        pieces = ((0, 0, h),) + tuple((xo, yo + h, b) for xo, yo, b in sub)
        pieces += tuple((xo + h, yo, b) for xo, yo, b in sub)
        best = (karatsuba_dsps(h, dsp) + 2 * cost, pieces)
    return best


def low_pieces(bits: int, dsp: DspSizes) -> tuple[Piece, ...]:
    """The whole products whose sum is x*y mod 2^bits (see the module docstring)."""
    return _low(bits, dsp)[1]


def low_product_dsps(bits: int, dsp: DspSizes) -> int:
    """The DSP multiplications of `low_product` (dsp None: 0, left to the tool)."""
    return 0 if dsp is None else _low(bits, dsp)[0]


def _operand(v: Value, bits: int) -> Value:
    """v as a Value of at least `bits` bits (zero-extended)."""
    return Cat(v, Const(0, bits - len(v))) if len(v) < bits else v


def _slice(v: Value | int, lo: int, bits: int) -> Value | int:
    """v[lo:lo+bits], zero-extended; an int constant stays an int (hw.dsp keeps its leaves
    constant: no register)."""
    if isinstance(v, int):
        return (v >> lo) & ((1 << bits) - 1)
    return _operand(v, lo + bits)[lo:lo + bits]


def products(stage: Stager, pairs: Sequence[Pair], dsp: DspSizes, name: str,
             ride: Iterable[ValueLike] = ()) -> tuple[list[Tree], list[Signal]]:
    """Karatsuba products x*y (x^2 for y None) side by side: KARATSUBA_STAGES stages of `stage` (this calls
    stage.next() after each), the `ride` values registered beside them. Returns the trees
    for `karatsuba_sum` (combinational after the last stage) and the riders."""
    def carry(values: Iterable[ValueLike]) -> list[Signal]:
        return [stage(v, f"{name}_r{k}") for k, v in enumerate(values)]

    trees = [karatsuba_square_split(stage, _operand(x, bits)[:bits], bits, dsp, f"{name}{k}")
             if y is None else
             karatsuba_split(stage, _operand(x, bits)[:bits], _slice(y, 0, bits), bits, dsp, f"{name}{k}", wires=True)
             for k, (x, y, bits) in enumerate(pairs)]
    riders = carry(ride)
    stage.next()
    trees = [karatsuba_multiply(stage, t, dsp, f"{name}{k}") for k, t in enumerate(trees)]
    riders = carry(riders)
    stage.next()
    trees = [karatsuba_recombine(stage, t, f"{name}{k}") for k, t in enumerate(trees)]
    riders = carry(riders)
    stage.next()
    return trees, riders


def low_product(stage: Stager, x: Value, y: Value | int, bits: int, dsp: DspSizes, name: str,
                ride: Iterable[ValueLike] = ()) -> tuple[Value, list[Signal]]:
    """x*y mod 2^bits (x, y zero-extended to `bits`; y may be an int constant) after
    KARATSUBA_STAGES stages (see `products`): (the `bits`-bit product, combinational from the
    last stage's registers, the riders)."""
    pieces = low_pieces(bits, dsp)
    pairs: list[Pair] = [(_operand(x, bits)[xo:xo + b], _slice(y, yo, b), b) for xo, yo, b in pieces]
    trees, riders = products(stage, pairs, dsp, name, ride)
    total: Value | None = None
    for k, ((xo, yo, b), tree) in enumerate(zip(pieces, trees, strict=True)):
        part = karatsuba_sum(stage.m, tree, f"{name}{k}")[:min(2 * b, bits - xo - yo)] << (xo + yo)
        total = part if total is None else total + part
    assert total is not None
    wire = Signal(bits, name=f"{name}_lo")
    stage.m.d.comb += wire.eq(total[:bits])
    return wire, riders
