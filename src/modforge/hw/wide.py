"""Wide products for the 128- to 1024-bit field multipliers (issue 37), built on hw.dsp's
Karatsuba tiling: several Karatsuba products side by side over the same KARATSUBA_STAGES
stages (`products`), and the low half of a product, x*y mod 2^n (`low_product`: a truncated
product; Montgomery's t = x q' mod R and Barrett's x - q3 q need only the low bits), split
recursively wherever that needs fewer DSPs than the whole product:

    x*y mod 2^n = x0 y0 + ((x0 y1 + x1 y0) mod 2^(n-h)) 2^h,   x = x1 2^h + x0, n/2 <= h < n,

one whole h-bit product and two low (n-h)-bit ones (`low_pieces`, `low_product_dsps`: the
pieces and their DSPs; the h of the fewest DSPs: at 381 bits on 26x17 a whole 270-bit
product and two low 111-bit halves, 15 pieces, 115 DSPs where the whole product takes 162).
Each whole product is `karatsuba_product`'s, its levels chosen by `karatsuba_levels` for the
profile. A constant operand (q, q', mu) stays an int: its leaves, differences and magnitudes
are constants, no registers; its zero chunks are dropped, and the chunks in `logic` are
built by shift-adds (hw.dsp.constant_product): `low_tiles` and `high_tiles` list a
constant's tiles for the plan that chooses them and counts the DSPs.

The top of a product, x*y from below with an error under 2^n (`high_pieces`,
`high_product`): the bit products x_i y_j with i + j >= n - 1 - g, the others dropped. Read
backwards (bit i as n - 1 - i) that is the low half of an (n + g)-bit product, so its
pieces are `low_pieces(n + g)` mirrored, over the operands padded below by g zero bits (the
padded sum is A 2^(2g)). The dropped bit products sum to at most D = (2^n - 1)^2 - A(2^n -
1, 2^n - 1) (every one a 1), and g is the least with D < 2^(n - slack) (4 at 381 bits on
26x17, slack 0: 119 DSPs). Where the exact low half is known, that is enough to make the top
exact (Montgomery: x + t q = 0 mod 2^n, so (x + t q) / 2^n = ceil((x + A) / 2^n)).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence

from amaranth.hdl import Cat, Const, Signal, Value, ValueLike

from .dsp import (
    DEEP_SEGMENT,
    DspSizes,
    Logic,
    Tree,
    constant_tiles,
    deep_stages,
    fast_sum,
    karatsuba_dsps,
    karatsuba_levels,
    karatsuba_multiply,
    karatsuba_recombine,
    karatsuba_split,
    karatsuba_split_top,
    karatsuba_square_levels,
    karatsuba_square_split,
    karatsuba_sum,
    karatsuba_terms,
    tree_levels,
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
    """(DSPs, pieces) of x*y mod 2^bits: the whole product, or the split at the h (bits/2 <= h <
    bits) that needs the fewest DSPs, then the fewest pieces."""
    best: tuple[int, tuple[Piece, ...]] = (karatsuba_dsps(bits, dsp), ((0, 0, bits),))
    if dsp is None or bits < 2:
        return best
    for h in range(-(-bits // 2), bits):
        cost, sub = _low(bits - h, dsp)
        pieces = ((0, 0, h),) + tuple((xo, yo + h, b) for xo, yo, b in sub)
        pieces += tuple((xo + h, yo, b) for xo, yo, b in sub)
        best = min(best, (karatsuba_dsps(h, dsp) + 2 * cost, pieces), key=lambda c: (c[0], len(c[1])))
    return best


def low_pieces(bits: int, dsp: DspSizes) -> tuple[Piece, ...]:
    """The whole products whose sum is x*y mod 2^bits (see the module docstring)."""
    return _low(bits, dsp)[1]


def low_product_dsps(bits: int, dsp: DspSizes) -> int:
    """The DSP multiplications of `low_product`, the tiling's (the split's criterion; dsp None:
    0, left to the tool): a constant y's zero and one-digit chunks need fewer (`low_tiles`)."""
    return 0 if dsp is None else _low(bits, dsp)[0]


@functools.cache
def high_pieces(bits: int, dsp: DspSizes, slack: int = 0) -> tuple[int, tuple[Piece, ...]]:
    """(g, pieces): the pieces of the top of x*y, x, y < 2^bits, its error under
    2^(bits - slack), over x and y padded below by g zero bits (see the module docstring; the
    pieces' sum is A 2^(2g))."""
    ones = (1 << bits) - 1
    for g in range(bits):
        n = bits + g
        pieces = tuple((n - xo - b, n - yo - b, b) for xo, yo, b in low_pieces(n, dsp))
        if ones * ones - high_sum(ones, ones, g, pieces) < 1 << (bits - slack):
            return g, pieces
    raise AssertionError("unreachable: g = bits - 1 covers every bit product")


def high_sum(x: int, y: int, g: int, pieces: Sequence[Piece]) -> int:
    """A: the sum of the pieces' products of x and y padded by g zero bits, over 2^(2g) (exact:
    every bit product in a piece carries 2^(2g)); the integer side of `high_product`."""
    return sum((((x << g) >> xo) & ((1 << b) - 1)) * (((y << g) >> yo) & ((1 << b) - 1)) << (xo + yo)
               for xo, yo, b in pieces) >> 2 * g


def high_product_dsps(bits: int, dsp: DspSizes, slack: int = 0) -> int:
    """The DSP multiplications of `high_product`, as `low_product_dsps` counts them."""
    return low_product_dsps(bits + high_pieces(bits, dsp, slack)[0], dsp)


def pieces_levels(pieces: Sequence[Piece], dsp: DspSizes) -> list[int]:
    """The Karatsuba levels of each piece's tree (for `deep_stages`)."""
    return [karatsuba_levels(b, dsp) for *_, b in pieces]


def _pieces_tiles(y: int, pieces: Sequence[Piece], dsp: DspSizes) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for _, yo, b in pieces:
        chunk = _slice(y, yo, b)
        assert isinstance(chunk, int)
        out += constant_tiles(chunk, b, dsp)
    return out


def low_tiles(y: int, bits: int, dsp: DspSizes) -> list[tuple[int, int]]:
    """[(bits of x's chunk, constant chunk)]: the tiles of `low_product` by the constant y
    (hw.dsp.constant_tiles over its pieces)."""
    return _pieces_tiles(y, low_pieces(bits, dsp), dsp)


def high_tiles(y: int, bits: int, dsp: DspSizes, slack: int = 0) -> list[tuple[int, int]]:
    """The tiles of `high_product` by the constant y, as `low_tiles`."""
    g, pieces = high_pieces(bits, dsp, slack)
    return _pieces_tiles(y << g, pieces, dsp)


def _operand(v: Value, bits: int) -> Value:
    """v as a Value of at least `bits` bits (zero-extended)."""
    return Cat(v, Const(0, bits - len(v))) if len(v) < bits else v


def _slice(v: Value | int, lo: int, bits: int) -> Value | int:
    """v[lo:lo+bits], zero-extended; an int constant stays an int (hw.dsp keeps its leaves
    constant: no register)."""
    if isinstance(v, int):
        return (v >> lo) & ((1 << bits) - 1)
    return _operand(v, lo + bits)[lo:lo + bits]


def _padded(v: Value | int, bits: int, g: int) -> Value | int:
    """v (< 2^bits) 2^g: g zero bits below (an int constant stays an int)."""
    return v << g if isinstance(v, int) else Cat(Const(0, g), _operand(v, bits)[:bits])


def products(stage: Stager, pairs: Sequence[Pair], dsp: DspSizes, name: str,
             ride: Iterable[ValueLike] = (), logic: Logic = frozenset(),
             deep: bool = False, staged_split: bool = False) -> tuple[list[Tree], list[Signal]]:
    """Karatsuba products x*y (x^2 for y None) side by side: KARATSUBA_STAGES stages of `stage` (this calls
    stage.next() after each), the `ride` values registered beside them; a constant y's tiles
    in `logic` by shift-adds; deep: then one stage a level more, up to the roots' children
    (`deep_stages`), so that `karatsuba_sum` adds one level (give it segment=DEEP_SEGMENT);
    staged_split (with deep; no squares): the top level's split a stage of its own too, when a
    tree has two levels or more (`deep_product_stages`). Returns the trees for `karatsuba_sum`
    (combinational after the last stage) and the riders."""
    def carry(values: Iterable[ValueLike]) -> list[Signal]:
        return [stage(v, f"{name}_r{k}") for k, v in enumerate(values)]

    # the top level's split a stage of its own: Montgomery's t = x q' mod R's middles'
    # differences and the levels below in one stage were its critical path (130 bits, ECP5)
    staged = deep and staged_split and max(pair_levels(pairs, dsp)) >= 2

    def split(k: int, x: Value, y: Value | int | None, bits: int) -> Callable[[], Tree]:
        x, named = _operand(x, bits)[:bits], f"{name}{k}"
        if staged:
            assert y is not None, "a square's split is not staged"
            return karatsuba_split_top(stage, x, _slice(y, 0, bits), bits, dsp, named, wires=True)
        tree = (karatsuba_square_split(stage, x, bits, dsp, named) if y is None else
                karatsuba_split(stage, x, _slice(y, 0, bits), bits, dsp, named, wires=True))
        return lambda: tree

    rests = [split(k, *pair) for k, pair in enumerate(pairs)]
    riders = list(ride)
    if staged:
        riders = carry(riders)
        stage.next()
    trees = [rest() for rest in rests]
    riders = carry(riders)
    stage.next()
    trees = [karatsuba_multiply(stage, t, dsp, f"{name}{k}", logic) for k, t in enumerate(trees)]
    riders = carry(riders)
    stage.next()
    levels = [tree_levels(t) for t in trees]
    for _ in range(1 + (deep_stages(levels) if deep else 0)):
        trees = [karatsuba_recombine(stage, t, f"{name}{k}") for k, t in enumerate(trees)]
        riders = carry(riders)
        stage.next()
    return trees, riders


def deep_product_stages(levels: Sequence[int]) -> int:
    """The stages `products(deep=True, staged_split=True)` (the truncated products',
    `low_product` and `high_product`) adds for trees of these levels: the top level's split
    (two levels or more) and one a level above the first two (hw.dsp.deep_stages)."""
    return (max(levels, default=0) >= 2) + deep_stages(levels)


def pair_levels(pairs: Sequence[Pair], dsp: DspSizes) -> list[int]:
    """The Karatsuba levels of each product's tree (a square's: y None)."""
    return [karatsuba_square_levels(bits, dsp) if y is None else karatsuba_levels(bits, dsp) for _, y, bits in pairs]


def _pieces_sum(stage: Stager, x: Value | int, y: Value | int, pieces: Sequence[Piece], width: int,
                dsp: DspSizes, name: str, ride: Iterable[ValueLike], logic: Logic, deep: bool,
                addends: Sequence[tuple[ValueLike, int]] = ()) -> tuple[Value, list[Signal]]:
    """The pieces' products x[xo:xo+b] y[yo:yo+b] side by side (`products`), summed at their
    offsets with the addends (value, offset; a value rides along from the first stage) mod
    2^width: (the sum, combinational from the last stage's registers, the riders)."""
    pairs: list[Pair] = [(_slice(x, xo, b), _slice(y, yo, b), b) for xo, yo, b in pieces]
    ride = list(ride)
    values = [v for v, _ in addends if not isinstance(v, int)]          # an int stays a constant
    trees, riders = products(stage, pairs, dsp, name, [*ride, *values], logic, deep, staged_split=True)
    riders, registered = riders[:len(ride)], iter(riders[len(ride):])
    extra = [Cat(Const(0, at), Const(v, width - at) if isinstance(v, int) else next(registered))[:width]
             for v, at in addends]
    if deep:            # every piece's root terms and the addends in one carry-save sum
        terms = [Cat(Const(0, xo + yo), term)
                 for k, ((xo, yo, b), tree) in enumerate(zip(pieces, trees, strict=True)) if xo + yo < width
                 for term in karatsuba_terms(stage.m, tree, f"{name}{k}", width - xo - yo)]   # exact to the top
        return fast_sum(stage.m, [_operand(t, width) for t in terms + extra], width, DEEP_SEGMENT, f"{name}_f"), riders
    parts = [karatsuba_sum(stage.m, tree, f"{name}{k}")[:min(2 * b, width - xo - yo)] << (xo + yo)
             for k, ((xo, yo, b), tree) in enumerate(zip(pieces, trees, strict=True))]
    total = sum(parts[1:], parts[0])
    if not addends:
        return total, riders
    low = min(at for _, at in addends)          # below it the addends are zeros: no adder there
    return Cat(total[:low], sum((v[low:] for v in extra), total[low:])), riders


def low_product(stage: Stager, x: Value, y: Value | int, bits: int, dsp: DspSizes, name: str,
                ride: Iterable[ValueLike] = (), logic: Logic = frozenset(),
                deep: bool = False) -> tuple[Value, list[Signal]]:
    """x*y mod 2^bits (x, y zero-extended to `bits`; y may be an int constant, its tiles in
    `logic` by shift-adds) after KARATSUBA_STAGES stages (deep: more, see `products`): (the
    `bits`-bit product, combinational from the last stage's registers, the riders)."""
    total, riders = _pieces_sum(stage, _operand(x, bits), y, low_pieces(bits, dsp), bits, dsp, name, ride,
                                 logic, deep)
    wire = Signal(bits, name=f"{name}_lo")
    stage.m.d.comb += wire.eq(total[:bits])
    return wire, riders


def high_product(stage: Stager, x: Value, y: Value | int, bits: int, dsp: DspSizes, name: str,
                 ride: Iterable[ValueLike] = (), slack: int = 0, logic: Logic = frozenset(), deep: bool = False,
                 addends: Sequence[tuple[ValueLike, int]] = ()) -> tuple[Value, list[Signal]]:
    """A, x*y - 2^(bits - slack) < A <= x*y (x, y < 2^bits; y may be an int constant, as
    `low_product`'s; the module docstring) after KARATSUBA_STAGES stages (deep: more, see
    `products`): (the 2*bits-bit A, combinational from the last stage's registers, the riders).
    addends: (value, shift) pairs added to A in its own sum (deep: in its carry-save terms, no
    chain after it), each value riding from the first stage; the result then 2*bits + 1 bits,
    the caller keeping the sum below 2^(2*bits + 1)."""
    g, pieces = high_pieces(bits, dsp, slack)
    out = 2 * bits + (1 if addends else 0)
    total, riders = _pieces_sum(stage, _padded(x, bits, g), _padded(y, bits, g), pieces, 2 * g + out, dsp, name,
                                 ride, logic, deep, [(v, 2 * g + at) for v, at in addends])
    wire = Signal(out, name=f"{name}_hi")
    stage.m.d.comb += wire.eq(total[2 * g:2 * g + out])
    return wire, riders
