"""DSP-aware multiplication: a product split into the partial products that fit a device's
DSP multipliers, one register per partial product, then their sum.

Contract: `partial_products(x, xw, y, yw, dsp)` returns [(shift, product)] whose sum
`accumulate` (each product shifted left by its offset) equals x * y for every x < 2^xw,
y < 2^yw, with y a Value or a constant int (zero constant chunks are dropped, so a sparse
constant costs fewer DSPs). `dsp` is a (Gamma_A, Gamma_B) pair of `DSP_PROFILES` or None
(one product, left to the synthesis tool). All operands are unsigned. `tiling` and
`dsp_tiles` are the integer side: the chunk sizes and the DSP count of the better
orientation, which plans and cost reports read. A constant chunk in `logic` (a set the plan
chooses) is built in logic instead of a DSP: shift-adds of its signed digits
(`constant_product`; `constant_tiles` lists a Karatsuba product's constant tiles for the
choice).

Karatsuba (`karatsuba_levels`, `karatsuba_dsps`, `karatsuba_product`): a square product
split recursively, x = x1 2^h + x0, y = y1 2^h + y0:
    x*y = z2 2^(2h) + (z0 + z2 + (x0 - x1)(y1 - y0)) 2^h + z0,  z0 = x0 y0, z2 = x1 y1;
three products a level instead of four. The middle product is taken signed, its operands
the differences themselves, whenever that needs no more DSPs than their magnitudes
(`_cost`; the multipliers are signed: SIGNED_SIZES): no absolute value, no sign logic. A
signed operand splits at h = floor(n/2), x0 unsigned and x1 signed (for K = 64: 64 -> 33
signed -> 16 unsigned, 17 and 18 signed leaves, one DSP each on every profile). Else the
middle is s |x0 - x1| |y1 - y0| (s the sign of the product), every leaf unsigned and tiled
like any product (K = 128: the second level's middles). Stage 1 registers the leaf
operands, stage 2 the DSP products (an ECP5 multiplier and the adders after it in one
cycle were a path of 14 ns), stage 3 the nodes over the leaves recombined, and
`karatsuba_sum` is the rest, combinational (with a segment, the root's top by `fast_sum`:
carry-save to two terms, then `carry_select_add`, no chain longer than the segment). A deep
pipeline registers every level: `karatsuba_recombine` again for each of `deep_stages`, then
`karatsuba_sum` with segment=DEEP_SEGMENT adds the root alone (or `karatsuba_terms` hands its
terms to a caller's own `fast_sum`).

Squares (`karatsuba_square_levels`, `karatsuba_square_dsps`, `karatsuba_square_split`): x^2 =
z2 2^(2h) + (z0 + z2 - (x0 - x1)^2) 2^h + z0 = z2 2^(2h) + ((x0 + x1)^2 - z0 - z2) 2^h + z0,
three squares a level; the middle the square of the signed difference, else of the sum (an
unsigned node, one bit wider: one adder), else of the difference's magnitude (the square
needs no sign), the first of these that needs the fewest DSPs (`_square_cost`); the leaves
are squared symmetrically (`square_products`: each x_i x_j, i < j, once, doubled by its
shift). The stages are the product's (a node carries SQUARE or SQUARE_SUM as its sign).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any, Literal

from amaranth.hdl import Cat, Const, Module, Mux, Shape, ShapeLike, Signal, Value, ValueLike, signed, unsigned

from .pipeline import Stager

#: the device profiles (a parameter's type: its choices) and their DSP operand sizes
#: (Gamma_A >= Gamma_B, unsigned); none: one product, left to the synthesis tool
Dsp = Literal["dsp48e2", "dsp48e1", "ecp5", "none"]
DSP_PROFILES: dict[str, tuple[int, int] | None] = {"dsp48e2": (26, 17), "dsp48e1": (25, 18), "ecp5": (18, 18),
                                                   "none": None}
DspSizes = tuple[int, int] | None   # a profile's (Gamma_A, Gamma_B), None: no tiling
#: the profiles of devices whose carry chains take a LUT per bit ahead of them (Xilinx CARRY4,
#: CARRY8; ECP5's CCU2 holds its own): where logic instead of a short chain is cheaper
CARRY_LUTS = {"dsp48e2", "dsp48e1"}
#: a Karatsuba (sub)tree: ("leaf" | "product" | "node", bits, signed, ...), see `_split`
Tree = tuple[Any, ...]
DSP_HELP = "DSP profile for the product tiling: dsp48e2 (26x17, the paper), dsp48e1 (25x18), ecp5 (18x18), none"


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def dsp_tiles(a_bits: int, b_bits: int, gamma_a: int, gamma_b: int) -> int:
    """DSP multiplications of an a_bits x b_bits product with standard tiling, the better
    orientation: min(ceil(a/GA) ceil(b/GB), ceil(a/GB) ceil(b/GA)) (docs/corrections.md#dsp-and-atp)."""
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


def naf(c: int) -> list[tuple[int, int]]:
    """c in non-adjacent form: [(sign, shift)], the fewest signed powers of two (c < 0: -c's
    digits negated)."""
    if c < 0:
        return [(-s, e) for s, e in naf(-c)]
    out, e = [], 0
    while c:
        if c & 1:
            d = 2 - (c & 3)          # 1 or -1
            out.append((d, e))
            c -= d
        c >>= 1
        e += 1
    return out


def _balanced_sum(terms: list[Value], m: Module | None = None, name: str = "sum") -> Value:
    """The terms' sum as a tree of adders, log2(len) deep. With m, each adder's sum but the
    last is a wire Yosys keeps (`accumulate`); the last stays an expression: kept, it stopped
    Yosys from building SRLs of registers downstream (Montgomery-Shift's riding a_h: 32 SRLs
    became 96 FFs)."""
    k = 0
    while len(terms) > 1:
        sums = []
        for a, b in zip(terms[::2], terms[1::2], strict=False):
            total = a + b
            if m is not None and len(terms) > 2:
                kept = Signal(total.shape(), name=f"{name}_{k}", attrs={"keep": 1})
                m.d.comb += kept.eq(total)
                total, k = kept, k + 1
            sums.append(total)
        terms = sums + terms[len(terms) & ~1:]
    return terms[0]


def constant_product(x: Value, c: int) -> Value:
    """x * c (x unsigned or signed, c an int constant) in logic: the shifted x of c's positive
    signed digits (`naf`) summed, those of its negative ones subtracted, len(naf(c)) - 1
    adders; exact (the result's shape holds x * c)."""
    pos = [x << e for s, e in naf(c) if s > 0]
    neg = [x << e for s, e in naf(c) if s < 0]
    if not pos and not neg:
        return Const(0, 1)
    if not neg:
        return _balanced_sum(pos)
    return _balanced_sum(pos) - _balanced_sum(neg) if pos else -_balanced_sum(neg)


#: the constant chunks a product builds in logic (`constant_product`) instead of a DSP
Logic = frozenset[int]


def partial_products(x: Value, xw: int, y: Value | int, yw: int, dsp: DspSizes,
                     logic: Logic = frozenset()) -> list[tuple[int, Value]]:
    """x * y as [(shift, partial product)]: x (xw bits) and y (a Value or a constant int,
    yw bits) split into the DSP tiling's chunks (better orientation); dsp None: one product.
    Zero constant chunks are dropped (a constant y); a constant chunk in `logic` is built by
    shift-adds (`constant_product`)."""
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
                out.append((i + j, constant_product(xi, yj) if yj in logic else xi * yj))
            else:
                out.append((i + j, xi * y[j:min(j + cy, yw)]))
    return out or [(0, Const(0, 1))]


def register_products(stage: Stager, parts: Iterable[tuple[int, Value]], name: str) -> list[tuple[int, Value]]:
    """One stage: a register per partial product (a DSP's output register)."""
    return [(s, stage(p, f"{name}_pp{k}")) for k, (s, p) in enumerate(parts)]


def accumulate(parts: Iterable[tuple[int, Value]], m: Module | None = None, name: str = "acc") -> Value:
    """The sum of (registered) partial products at their offsets: unsigned products whose
    bit ranges do not overlap share a row (concatenated: no adder; a 64x64 product's twelve
    26x17 tiles make six rows), the rows (and any signed product) summed by a balanced tree
    of two-input adders. With m, each adder's sum is a wire Yosys keeps: left alone,
    alumacc merges the tree into one $macc mapped to LUT full adders (the 64-bit NTT
    butterfly's product: 201 of its 1,136 xcup LUTs more than carry chains)."""
    rows: list[list[tuple[int, Value]]] = []
    terms: list[Value] = []
    for s, p in sorted(parts, key=lambda part: part[0]):
        p = Value.cast(p)
        if p.shape().signed:
            terms.append(p << s if s else p)
            continue
        row = next((row for row in rows if row[-1][0] + len(row[-1][1]) <= s), None)
        if row is None:
            rows.append([(s, p)])
        else:
            row.append((s, p))
    for row in rows:
        pieces, end = [], 0
        for s, p in row:
            pieces += [Const(0, s - end), p] if s > end else [p]
            end = s + len(p)
        terms.append(Cat(*pieces))
    return _balanced_sum(terms, m, name)


def _square_chunks(bits: int, dsp: tuple[int, int]) -> int:
    """Chunks of a symmetric square tiling: Gamma_B bits at most (each chunk on either port);
    0 when the plain tiling needs no more DSPs than the m (m + 1) / 2 of m chunks."""
    m = _ceil_div(bits, min(dsp))
    return m if m * (m + 1) // 2 < dsp_tiles(bits, bits, *dsp) else 0


def square_tiles(bits: int, dsp: tuple[int, int]) -> int:
    """DSP multiplications of `square_products`: m (m + 1) / 2 for m chunks, or the plain tiling."""
    m = _square_chunks(bits, dsp)
    return m * (m + 1) // 2 if m else dsp_tiles(bits, bits, *dsp)


def square_products(x: Value, bits: int, dsp: DspSizes) -> list[tuple[int, Value]]:
    """x^2 as [(shift, partial product)] (x unsigned, `bits` bits): m balanced chunks x_i,
    x_i^2 at 2ci and each x_i x_j (i < j) once at ci + cj + 1 (doubled by the shift), or the
    plain tiling when that needs no more DSPs; dsp None: one product, left to the tool."""
    m = 0 if dsp is None else _square_chunks(bits, dsp)
    if not m:
        return partial_products(x, bits, x, bits, dsp)
    c = _ceil_div(bits, m)
    chunks = [x[c * i:min(c * (i + 1), bits)] for i in range(m)]
    return [(c * (i + j) + (i != j), chunks[i] * chunks[j]) for i in range(m) for j in range(i, m)]


# ---- Karatsuba ---------------------------------------------------------------------------

KARATSUBA_STAGES = 3    # the operands' differences; the DSPs; the recombination over them


#: the multipliers' signed operand sizes per profile (DSP48E2 27x18, DSP48E1 25x18, ECP5 18x18)
SIGNED_SIZES: dict[tuple[int, ...], tuple[int, int]] = {(26, 17): (27, 18), (25, 18): (25, 18), (18, 18): (18, 18)}
_NO_FIT = 1 << 20       # a signed leaf that is not one DSP: never chosen


def signed_fits(bits: int, dsp: DspSizes) -> bool:
    """A signed bits x bits product is one DSP of the profile."""
    if dsp is None:
        return False
    return bits <= min(SIGNED_SIZES.get(tuple(dsp), dsp))


def _halves(bits: int, is_signed: bool) -> tuple[int, int]:
    """(h, width of the middle difference x0 - x1): x0 = x[:h] unsigned, x1 = x[h:] (signed
    if x is); a signed x splits below the middle, so its high half carries the sign bit."""
    h = bits // 2 if is_signed else _ceil_div(bits, 2)
    return h, (max(h + 1, bits - h) + 1 if is_signed else h + 1)


@functools.cache      # pure, and the level search asks the same nodes again and again
def _cost(bits: int, is_signed: bool, levels: int, dsp: tuple[int, int]) -> tuple[int, bool]:
    """(DSPs, the middle signed) of a bits x bits product (signed operands or unsigned) with
    `levels` levels: each middle signed when that needs no more DSPs than its magnitude."""
    if levels == 0 or bits < 2:
        if is_signed:
            return (1 if signed_fits(bits, dsp) else _NO_FIT), False
        return dsp_tiles(bits, bits, *dsp), False
    h, dw = _halves(bits, is_signed)
    outer = _cost(h, False, levels - 1, dsp)[0] + _cost(bits - h, is_signed, levels - 1, dsp)[0]
    as_signed, as_magnitude = _cost(dw, True, levels - 1, dsp)[0], _cost(dw - 1, False, levels - 1, dsp)[0]
    return outer + min(as_signed, as_magnitude), as_signed <= as_magnitude


def _fewest_levels(bits: int, dsp: DspSizes, cost: Callable[[int, bool, int, tuple[int, int]], tuple]) -> int:
    """The recursion levels whose `cost` counts the fewest DSPs (the fewest levels among
    equals: each level costs adders); dsp None: 0."""
    if dsp is None:
        return 0
    best = 0
    for levels in range(1, max(1, bits.bit_length())):
        if cost(bits, False, levels, dsp)[0] < cost(bits, False, best, dsp)[0]:
            best = levels
    return best


def karatsuba_levels(bits: int, dsp: DspSizes) -> int:
    """Recursion levels of a bits x bits unsigned product that need the fewest DSPs (the
    fewest levels among equals: each level costs adders); 0: plain tiling; dsp None: 0."""
    return _fewest_levels(bits, dsp, _cost)


def karatsuba_dsps(bits: int, dsp: DspSizes) -> int:
    """The DSP multiplications of `karatsuba_product` (dsp None: 0, left to the tool)."""
    return 0 if dsp is None else _cost(bits, False, karatsuba_levels(bits, dsp), dsp)[0]


#: a square node's middle sign (constants, no register): SQUARE, the middle (x0 - x1)^2 is
#: subtracted, z0 + z2 - zm; SQUARE_SUM, it is (x0 + x1)^2, zm - z0 - z2
SQUARE, SQUARE_SUM = -1, 1
#: a square node's middle, in the order of preference among equal DSP counts (the logic
#: before the DSPs: one subtraction; one addition; a subtraction and its magnitude)
MIDDLES = ("signed", "sum", "magnitude")


@functools.cache
def _square_cost(bits: int, is_signed: bool, levels: int, dsp: tuple[int, int]) -> tuple[int, str]:
    """`_cost` of a square x^2: three squares a level, the middle (MIDDLES) the square of
    x0 - x1 (signed), of x0 + x1 (an unsigned node's: h + 1 bits) or of |x0 - x1|, the first
    of the cheapest; the leaves `square_tiles` (signed: one DSP, if it fits)."""
    if levels == 0 or bits < 2:
        if is_signed:
            return (1 if signed_fits(bits, dsp) else _NO_FIT), ""
        return square_tiles(bits, dsp), ""
    h, dw = _halves(bits, is_signed)
    outer = _square_cost(h, False, levels - 1, dsp)[0] + _square_cost(bits - h, is_signed, levels - 1, dsp)[0]
    costs = {"signed": _square_cost(dw, True, levels - 1, dsp)[0],
             "sum": _NO_FIT if is_signed else _square_cost(h + 1, False, levels - 1, dsp)[0],
             "magnitude": _square_cost(dw - 1, False, levels - 1, dsp)[0]}
    middle = min(MIDDLES, key=lambda kind: costs[kind])          # the first of the cheapest
    return outer + costs[middle], middle


def karatsuba_square_levels(bits: int, dsp: DspSizes) -> int:
    """`karatsuba_levels` of a bits-bit square x^2 (0: the symmetric tiling alone)."""
    return _fewest_levels(bits, dsp, _square_cost)


def karatsuba_square_dsps(bits: int, dsp: DspSizes) -> int:
    """The DSP multiplications of a square's tree (`karatsuba_square_split`; dsp None: 0)."""
    return 0 if dsp is None else _square_cost(bits, False, karatsuba_square_levels(bits, dsp), dsp)[0]


def _magnitude(m: Module, d: Value, bits: int, name: str) -> tuple[Value, Value]:
    """(|d|, d < 0) of a signed d with |d| < 2^bits: (d ^ s) + s, one carry chain (a wire:
    the next level reads it several times)."""
    sign = d[-1]
    mag = Signal(bits, name=name)
    m.d.comb += mag.eq((d[:bits] ^ sign.replicate(bits)) + sign)
    return mag, sign


def _halve(y: Value | int, h: int, bits: int, is_signed: bool) -> tuple[Value | int, Value | int]:
    """(y0, y1) = (y[:h], y[h:bits]), y1 signed if y is; an int constant stays an int (Python's
    >> is the signed slice)."""
    if isinstance(y, int):
        return y & ((1 << h) - 1), y >> h
    return y[:h], (y[h:bits].as_signed() if is_signed else y[h:bits])


def _split(stage: Stager, x: Value, y: Value | int, bits: int, is_signed: bool, levels: int, dsp: DspSizes,
           name: str, wires: bool = False) -> Tree:
    """Stage 1: the tree of leaf operands (registered) and middle signs (registered). A
    middle stays signed, (x0 - x1)(y1 - y0) of signed operands, when that needs no more DSPs
    than its magnitude (`_cost`): no magnitude, no sign. wires: each signed middle's
    differences in a wire (else an expression each leaf below re-emits: slow to elaborate
    at hundreds of bits). y may be an int constant: its leaves, differences and magnitudes
    are constants, no register."""
    if levels == 0 or bits < 2:
        x = stage(x[:bits], f"{name}_x")
        y = y if isinstance(y, int) else stage(y[:bits], f"{name}_y")
        signed_y = y if isinstance(y, int) else y.as_signed()
        return ("leaf", bits, is_signed, x.as_signed() if is_signed else x, signed_y if is_signed else y)
    assert dsp is not None          # levels > 0: karatsuba_levels found a profile
    h, dw = _halves(bits, is_signed)
    (x0, x1), (y0, y1) = _halve(x, h, bits, is_signed), _halve(y, h, bits, is_signed)
    low = _split(stage, x0, y0, h, False, levels - 1, dsp, f"{name}0", wires)
    high = _split(stage, x1, y1, bits - h, is_signed, levels - 1, dsp, f"{name}2", wires)
    dx, dy = x0 - x1, y1 - y0
    if _cost(bits, is_signed, levels, dsp)[1]:
        if wires:
            dx = Signal(signed(dw), name=f"{name}_mx")
            stage.m.d.comb += dx.eq(x0 - x1)
        if wires and not isinstance(dy, int):
            dy = Signal(signed(dw), name=f"{name}_my")
            stage.m.d.comb += dy.eq(y1 - y0)
        mid = _split(stage, dx, dy, dw, True, levels - 1, dsp, f"{name}m", wires)
        return ("node", bits, is_signed, h, None, low, high, mid)
    dx, sx = _magnitude(stage.m, dx, dw - 1, f"{name}_dx")
    dy, sy = (abs(dy), Const(dy < 0, 1)) if isinstance(dy, int) else _magnitude(stage.m, dy, dw - 1, f"{name}_dy")
    return ("node", bits, is_signed, h, stage(sx ^ sy, f"{name}_s"), low, high,
            _split(stage, dx, dy, dw - 1, False, levels - 1, dsp, f"{name}m", wires))


def _split_square(stage: Stager, x: Value, bits: int, is_signed: bool, levels: int, dsp: DspSizes,
                  name: str) -> Tree:
    """`_split` of x^2: a leaf ("square", bits, signed, x); a node's middle the square of
    x0 - x1 (signed), of x0 + x1 (sign SQUARE_SUM) or of |x0 - x1| (`_square_cost`), each
    in a wire (`_split`'s wires=True)."""
    if levels == 0 or bits < 2:
        x = stage(x[:bits], f"{name}_x")
        return ("square", bits, is_signed, x.as_signed() if is_signed else x)
    assert dsp is not None
    h, dw = _halves(bits, is_signed)
    x0, x1 = _halve(x, h, bits, is_signed)
    assert isinstance(x0, Value) and isinstance(x1, Value)
    low = _split_square(stage, x0, h, False, levels - 1, dsp, f"{name}0")
    high = _split_square(stage, x1, bits - h, is_signed, levels - 1, dsp, f"{name}2")
    middle = _square_cost(bits, is_signed, levels, dsp)[1]
    if middle == "magnitude":
        d, _ = _magnitude(stage.m, x0 - x1, dw - 1, f"{name}_dx")
        mid = _split_square(stage, d, dw - 1, False, levels - 1, dsp, f"{name}m")
        return ("node", bits, is_signed, h, SQUARE, low, high, mid)
    total, width = (x0 - x1, signed(dw)) if middle == "signed" else (x0 + x1, unsigned(h + 1))
    d = Signal(width, name=f"{name}_mx")            # a wire: the leaves below read it
    stage.m.d.comb += d.eq(total)
    mid = _split_square(stage, d, width.width, middle == "signed", levels - 1, dsp, f"{name}m")
    return ("node", bits, is_signed, h, SQUARE if middle == "signed" else SQUARE_SUM, low, high, mid)


def constant_tiles(y: int, bits: int, dsp: DspSizes) -> list[tuple[int, int]]:
    """[(bits of x's chunk, the constant chunk)]: the nonzero tiles of `karatsuba_split`'s
    x * y for a constant y, as `_split` and `_leaf_product` build them (a signed leaf: one
    tile, its signed constant); the integer side of a `logic` choice."""
    out: list[tuple[int, int]] = []

    def walk(y: int, bits: int, is_signed: bool, levels: int) -> None:
        if levels == 0 or bits < 2:
            if is_signed:
                out.extend([(bits, y)] if y else [])
                return
            assert dsp is not None
            cx, cy = tiling(bits, bits, *dsp)
            out.extend((min(cx, bits - i), c) for i in range(0, bits, cx) for j in range(0, bits, cy)
                       if (c := (y >> j) & ((1 << min(cy, bits - j)) - 1)))
            return
        h, dw = _halves(bits, is_signed)
        y0, y1 = _halve(y, h, bits, is_signed)
        assert isinstance(y0, int) and isinstance(y1, int)
        walk(y0, h, False, levels - 1)
        walk(y1, bits - h, is_signed, levels - 1)
        signed_middle = _cost(bits, is_signed, levels, dsp)[1]
        walk(y1 - y0 if signed_middle else abs(y1 - y0), dw if signed_middle else dw - 1, signed_middle,
             levels - 1)

    walk(y, bits, False, karatsuba_levels(bits, dsp))
    return out


def cheapest_logic(tiles: list[tuple[int, int]], dsps: int | None) -> Logic:
    """The constant chunks of `tiles` (`constant_tiles`) to build in logic: every one-digit
    chunk (a shift), then, while more than `dsps` tiles are left on DSPs (None: no limit),
    the chunk whose tiles cost the fewest adder bits a tile ((digits - 1) adders, each the
    x chunk's bits plus the constant's)."""
    count: dict[int, int] = {}
    cost: dict[int, int] = {}
    for xbits, c in tiles:
        count[c] = count.get(c, 0) + 1
        cost[c] = cost.get(c, 0) + (len(naf(c)) - 1) * (xbits + abs(c).bit_length())
    chosen = {c for c in count if cost[c] == 0}
    left = sum(n for c, n in count.items() if c not in chosen)
    for c in sorted(set(count) - chosen, key=lambda c: (cost[c] / count[c], c)):
        if dsps is None or left <= dsps:
            break
        chosen.add(c)
        left -= count[c]
    return frozenset(chosen)


def _shape(tree: Tree) -> Shape:
    """A (sub)tree's product: 2*bits bits, signed if its operands are."""
    return signed(2 * tree[1]) if tree[2] else unsigned(2 * tree[1])


def _leaf_product(tree: Tree, dsp: DspSizes, logic: Logic) -> Value:
    if tree[0] == "square":
        _, bits, is_signed, x = tree
        return x * x if is_signed else accumulate(square_products(x, bits, dsp))[:2 * bits]
    _, bits, is_signed, x, y = tree
    if is_signed:
        return constant_product(x, y) if isinstance(y, int) and y in logic else x * y
    return accumulate(partial_products(x, bits, y, bits, dsp, logic))[:2 * bits]


def _multiply(stage: Stager, tree: Tree, dsp: DspSizes, name: str, logic: Logic) -> Tree:
    """Stage 2: the DSP products registered (the constant tiles in `logic`: shift-adds); the
    signs ride."""
    if tree[0] in ("leaf", "square"):
        return ("product", tree[1], tree[2], stage(_leaf_product(tree, dsp, logic), f"{name}_p", _shape(tree)))
    _, bits, is_signed, h, sign, low, high, mid = tree
    sign = stage(sign, f"{name}_s") if isinstance(sign, Value) else sign
    return ("node", bits, is_signed, h, sign, _multiply(stage, low, dsp, f"{name}0", logic),
            _multiply(stage, high, dsp, f"{name}2", logic), _multiply(stage, mid, dsp, f"{name}m", logic))


def _recombine_leaves(stage: Stager, tree: Tree, name: str) -> Tree:
    """Stage 3: each node over products recombined and registered (a product alone rides)."""
    if tree[0] == "product":
        return ("product", tree[1], tree[2], stage(tree[3], f"{name}_z"))
    _, bits, is_signed, h, sign, low, high, mid = tree
    if all(t[0] == "product" for t in (low, high, mid)):
        product = _recombine(bits, is_signed, h, sign, low[3], high[3], mid[3])
        return ("product", bits, is_signed, stage(product, f"{name}_z", _shape(tree)))
    sign = stage(sign, f"{name}_s") if isinstance(sign, Value) else sign
    return ("node", bits, is_signed, h, sign, _recombine_leaves(stage, low, f"{name}0"),
            _recombine_leaves(stage, high, f"{name}2"), _recombine_leaves(stage, mid, f"{name}m"))


def _combine(m: Module, tree: Tree, name: str, overlay: Value | None = None,
             addend: ValueLike | None = None, segment: int = 0) -> Value:
    """Stage 4's logic: the product of a (sub)tree, a wire (each used twice); overlay,
    addend: the root's (see `karatsuba_sum`)."""
    if tree[0] == "product":
        product = tree[3] if overlay is None else tree[3] | overlay
        product = product if addend is None else product + addend
    else:
        _, bits, is_signed, h, sign, low, high, mid = tree
        z0, z2, zm = (_combine(m, t, f"{name}{k}") for t, k in ((low, "0"), (high, "2"), (mid, "m")))
        if segment and not is_signed:
            product = _recombine_fast(m, bits, h, sign, z0, z2, zm, segment, f"{name}_f", overlay, addend)
        else:
            product = _recombine(bits, is_signed, h, sign, z0, z2, zm, overlay, addend)
    return wire(m, product, f"{name}_z")


def _recombine(bits: int, is_signed: bool, h: int, sign: Value | int | None, z0: Value, z2: Value, zm: Value,
               overlay: Value | None = None, addend: ValueLike | None = None) -> Value:
    """z2 2^(2h) + (z0 + z2 + zm) 2^h + z0 (+ addend), zm signed (sign None) or a magnitude
    with its sign, or a square's (x0 -+ x1)^2 (sign SQUARE: z0 + z2 - zm; SQUARE_SUM:
    zm - z0 - z2); the middle sum x0 y1 + x1 y0 is non-negative for unsigned operands, and
    |x0 y1 + x1 y0| < 2^bits for signed ones."""
    w = bits + 1
    if sign is None:
        middle = (z0 + z2 + zm)[:w]
    elif isinstance(sign, int):                                      # 2 x0 x1, mod 2^w
        middle = (z0 + z2 - zm if sign == SQUARE else zm - z0 - z2)[:w]
    else:
        zm = Cat(zm[:w], Const(0, max(0, w - len(zm))))              # mod 2^w
        middle = (z0 + z2 + (zm ^ sign.replicate(w)) + sign)[:w]     # z0 + z2 -+ zm, mod 2^w
    outer = Cat(z0[:2 * h], z2)
    if is_signed:
        middle, outer = middle.as_signed(), outer.as_signed()
    if overlay is not None:
        outer = outer | overlay
    product = (outer + (middle << h))[:2 * bits]
    product = product.as_signed() if is_signed else product
    return product if addend is None else product + addend


def wire(m: Module, value: Value, name: str) -> Signal:
    """value in a wire: an expression read more than once is built (and simulated) once, and
    Amaranth checks its bits once (wide arithmetic elaborates slowly otherwise)."""
    w = Signal(value.shape(), name=name)
    m.d.comb += w.eq(value)
    return w


def carry_select_add(m: Module, a: Value, b: Value, width: int, segment: int, name: str) -> Value:
    """(a + b) mod 2^width (unsigned): each `segment`-bit slice added twice side by side (carry
    in 0 and 1: the operands with a 1 appended below, one chain each), the slice below's
    carry choosing: a segment's chain and a multiplexer a segment on the path."""
    out: list[Value] = []
    carry: Value | None = None
    for lo in range(0, width, segment):
        n = min(segment, width - lo)
        x, y = a[lo:lo + n], b[lo:lo + n]
        top = n + (lo + n < width)                  # the last segment's carry out is not read
        s0 = wire(m, (x + y)[:top], f"{name}_s0_{lo}")
        if carry is None:
            out.append(s0[:n])
            carry = s0[n] if top > n else None
            continue
        s1 = wire(m, (Cat(Const(1, 1), x) + Cat(Const(1, 1), y))[1:top + 1], f"{name}_s1_{lo}")       # x + y + 1
        out.append(Mux(carry, s1[:n], s0[:n]))      # no wire: a caller may leave its bits unread
        carry = wire(m, Mux(carry, s1[n], s0[n]), f"{name}_c_{lo}") if top > n else None
    return Cat(*out)


def carry_save(m: Module, terms: list[Value], width: int, name: str) -> list[Value]:
    """The terms (each at least `width` bits, taken mod 2^width) reduced to two (or the one)
    of the same sum mod 2^width: 3:2 compressors, a LUT level each."""
    terms = [t[:width] for t in terms]
    k = 0
    while len(terms) > 2:
        x, y, z, *terms = terms
        terms += [wire(m, x ^ y ^ z, f"{name}_cs{k}"),
                  wire(m, Cat(Const(0, 1), ((x & y) | (x & z) | (y & z))[:width - 1]), f"{name}_cc{k}")]
        k += 1
    return terms


def fast_sum(m: Module, terms: list[Value], width: int, segment: int, name: str) -> Value:
    """The terms' sum mod 2^width (each at least `width` bits, taken mod 2^width): `carry_save`
    to two, then `carry_select_add`: no carry chain longer than a segment."""
    terms = carry_save(m, terms, width, name)
    return carry_select_add(m, terms[0], terms[1], width, segment, name) if len(terms) == 2 else terms[0]


def extend(v: Value, width: int) -> Value:
    """v (signed or unsigned) mod 2^width."""
    if len(v) >= width:
        return v[:width]
    return Cat(v, (v[-1] if v.shape().signed else Const(0, 1)).replicate(width - len(v)))


def _root_terms(bits: int, h: int, sign: Value | int | None, z0: Value, z2: Value, zm: Value, low: int, width: int,
                overlay: Value | None = None) -> list[Value]:
    """The terms whose sum mod 2^(width - h + low) is bits h - low and up of an unsigned
    product's `_recombine` (width: at least 2 bits): outer (overlay ORed in), z0, z2 and the
    middle's term (zm; complemented, and the carries that make it a negation) at 2^low."""
    t = width - h + low
    outer = Cat(z0[:2 * h], z2)
    outer = outer if overlay is None else outer | overlay

    def at(v: Value) -> Value:
        return Cat(Const(0, low), extend(v, t - low))

    terms = [extend(outer, width)[h - low:], at(z0), at(z2)]
    if sign is None:
        return terms + [at(zm)]
    if isinstance(sign, int) and sign == SQUARE:                     # z0 + z2 - zm
        return terms + [at(~extend(zm, t - low)), Const(1 << low, t)]
    if isinstance(sign, int):                                        # zm - z0 - z2
        return [terms[0], at(~extend(z0, t - low)), at(~extend(z2, t - low)), at(zm), Const(2 << low, t)]
    return terms + [at(extend(zm, t - low) ^ sign.replicate(t - low)),  # z0 + z2 -+ zm
                    Cat(Const(0, low), sign, Const(0, t - low - 1))]


def _recombine_fast(m: Module, bits: int, h: int, sign: Value | int | None, z0: Value, z2: Value, zm: Value,
                    segment: int, name: str, overlay: Value | None = None, addend: ValueLike | None = None) -> Value:
    """`_recombine` of an unsigned product by `fast_sum`: without an addend only the top (bits
    h and up: outer's low h bits pass), with one the whole sum."""
    if addend is None:
        terms = _root_terms(bits, h, sign, z0, z2, zm, 0, 2 * bits, overlay)
        below = z0[:h] if overlay is None else z0[:h] | overlay[:h]
        return Cat(below, fast_sum(m, terms, 2 * bits - h, segment, name))
    addend = Value.cast(addend)
    width = max(2 * bits, len(addend)) + 1
    return fast_sum(m, _root_terms(bits, h, sign, z0, z2, zm, h, width, overlay) + [extend(addend, width)], width,
                    segment, name)


def split_stages(bits: int, dsp: DspSizes, staged: bool = False) -> int:
    """The stages `karatsuba_split` takes: 2 when staged with two levels or more, else 1."""
    return 2 if staged and karatsuba_levels(bits, dsp) >= 2 else 1


def karatsuba_split(stage: Stager, x: Value, y: Value | int, bits: int, dsp: DspSizes, name: str,
                    wires: bool = False, staged: bool = False) -> Tree:
    """Stage 1 of x * y (bits-bit unsigned Values; y may be an int constant): the differences;
    the registered tree (karatsuba_levels(bits, dsp) levels) for `karatsuba_multiply`. No
    stage.next() after it. wires: see `_split` (hw.wide's products set it). staged (deep
    pipelines): the top level's halves and middle differences registered in a stage of their
    own, the levels below in the next (`split_stages`; one stage.next() here): the middles'
    differences are carry chains in series, 65, 34 and 18 bits at K = 128 on ECP5's 18x18."""
    if split_stages(bits, dsp, staged) == 1:
        return _split(stage, x, y, bits, False, karatsuba_levels(bits, dsp), dsp, name, wires)
    rest = karatsuba_split_top(stage, x, y, bits, dsp, name, wires)
    stage.next()
    return rest()


def _kept(stage: Stager, value: Value | int, name: str, shape: ShapeLike | None = None) -> Value | int:
    return value if isinstance(value, int) else stage(value, name, shape)


def karatsuba_split_top(stage: Stager, x: Value, y: Value | int, bits: int, dsp: DspSizes, name: str,
                        wires: bool = False) -> Callable[[], Tree]:
    """The first stage of a staged split (`karatsuba_split`'s; for products side by side that
    each call stage.next() once): the top level's halves and middle differences registered
    (with fewer than two levels, x and y). Returns what builds the levels below: call it in
    the next stage."""
    levels = karatsuba_levels(bits, dsp)
    if levels < 2:
        x, y = _kept(stage, x[:bits], f"{name}_xt"), _kept(stage, y if isinstance(y, int) else y[:bits], f"{name}_yt")
        return lambda: _split(stage, x, y, bits, False, levels, dsp, name, wires)
    h, dw = _halves(bits, False)
    (x0, x1), (y0, y1) = _halve(x, h, bits, False), _halve(y, h, bits, False)
    signed_middle = _cost(bits, False, levels, dsp)[1]
    if signed_middle:
        dx, dy = _kept(stage, x0 - x1, f"{name}_mx", signed(dw)), _kept(stage, y1 - y0, f"{name}_my", signed(dw))
    else:
        mx, sx = _magnitude(stage.m, x0 - x1, dw - 1, f"{name}_dx")
        my, sy = (abs(y1 - y0), Const(y1 < y0, 1)) if isinstance(y1 - y0, int) else \
            _magnitude(stage.m, y1 - y0, dw - 1, f"{name}_dy")
        dx, dy, sign = _kept(stage, mx, f"{name}_mx"), _kept(stage, my, f"{name}_my"), stage(sx ^ sy, f"{name}_s1")
    x0, x1, y0, y1 = (_kept(stage, v, f"{name}_{n}") for v, n in ((x0, "x0"), (x1, "x1"), (y0, "y0"), (y1, "y1")))

    def rest() -> Tree:
        low = _split(stage, x0, y0, h, False, levels - 1, dsp, f"{name}0", wires)
        high = _split(stage, x1, y1, bits - h, False, levels - 1, dsp, f"{name}2", wires)
        if signed_middle:
            return ("node", bits, False, h, None, low, high, _split(stage, dx, dy, dw, True, levels - 1, dsp,
                                                                    f"{name}m", wires))
        return ("node", bits, False, h, stage(sign, f"{name}_s"), low, high,
                _split(stage, dx, dy, dw - 1, False, levels - 1, dsp, f"{name}m", wires))
    return rest


def karatsuba_square_split(stage: Stager, x: Value, bits: int, dsp: DspSizes, name: str,
                           levels: int | None = None) -> Tree:
    """Stage 1 of x^2 (a bits-bit unsigned Value; levels: karatsuba_square_levels(bits, dsp)
    unless given): the registered tree for `karatsuba_multiply`, as `karatsuba_split`'s. No
    stage.next()."""
    levels = karatsuba_square_levels(bits, dsp) if levels is None else levels
    return _split_square(stage, x, bits, False, levels, dsp, name)


def karatsuba_operands(tree: Tree) -> tuple[Value, Value]:
    """x and y as stage 1 registered them (the leaves outside the middles: their digits)."""
    if tree[0] in ("leaf", "square"):
        return tree[3], tree[-1]
    low, high = tree[5], tree[6]
    (x0, y0), (x1, y1) = karatsuba_operands(low), karatsuba_operands(high)
    return Cat(x0, x1), Cat(y0, y1)


def karatsuba_multiply(stage: Stager, tree: Tree, dsp: DspSizes, name: str, logic: Logic = frozenset()) -> Tree:
    """Stage 2: the karatsuba_dsps(bits, dsp) DSP products (a constant y's tiles in `logic`:
    shift-adds); the registered tree for `karatsuba_recombine`. No stage.next()."""
    return _multiply(stage, tree, dsp, name, logic)


def karatsuba_recombine(stage: Stager, tree: Tree, name: str) -> Tree:
    """Stage 3: the nodes over the leaves recombined; the registered tree for
    `karatsuba_sum`. No stage.next()."""
    return _recombine_leaves(stage, tree, name)


#: a deep pipeline's roots: their sums by `fast_sum`, no carry chain longer than this (on ECP5
#: a 96-bit chain is about 3.5 ns)
DEEP_SEGMENT = 96


def deep_stages(levels: Iterable[int]) -> int:
    """The stages a deep pipeline adds: one a Karatsuba level of the deepest tree (levels: each
    tree's, `tree_levels`) above its first two (`karatsuba_recombine` recombines the first,
    `karatsuba_sum` the root)."""
    return max(0, max(levels, default=0) - 2)


def tree_levels(tree: Tree) -> int:
    """The Karatsuba levels over a tree's leaves (0: one leaf product)."""
    return 1 + max(tree_levels(t) for t in tree[5:8]) if tree[0] == "node" else 0


def karatsuba_sum(m: Module, tree: Tree, name: str, overlay: Value | None = None,
                  addend: ValueLike | None = None, segment: int = 0) -> Value:
    """The rest of the recombination (combinational, after stage 3): the 2*bits-bit product,
    + addend if given (one more operand of the root's sum, not a chain after it: the result
    is then 2*bits+1 bits or wider). overlay (2*bits bits): ORed into the root's
    z2 2^(2h) + z0, which joins the adder's LUTs; the caller makes sure the two never overlap
    (e.g. overlay nonzero only when x*y = 0). segment (an unsigned product): the root by
    `fast_sum`, no carry chain longer than `segment` bits (its top alone without an addend)."""
    return _combine(m, tree, name, overlay, addend, segment)


def karatsuba_terms(m: Module, tree: Tree, name: str, width: int, overlay: Value | None = None) -> list[Value]:
    """An unsigned product as terms of `width` bits whose sum mod 2^width is the product's: the
    root's as `karatsuba_sum` with a segment adds them (complements taken over the whole
    width), for a caller that adds them with others in one `fast_sum` or `carry_save` (a
    truncated product's pieces, a registered carry-save root). overlay: as karatsuba_sum's."""
    assert not tree[2]
    if tree[0] == "product":
        return [extend(tree[3] if overlay is None else tree[3] | overlay, width)]
    _, bits, _, h, sign, low, high, mid = tree
    z0, z2, zm = (_combine(m, t, f"{name}{k}") for t, k in ((low, "0"), (high, "2"), (mid, "m")))
    if width <= h:                                                   # below the middle: z0 alone
        return [extend(z0 if overlay is None else z0 | overlay[:len(z0)], width)]
    return _root_terms(bits, h, sign, z0, z2, zm, h, width, overlay)


def karatsuba_product(stage: Stager, x: Value, y: Value, bits: int, dsp: DspSizes, name: str,
                      ride: Iterable[ValueLike] = (), staged: bool = False) -> tuple[Value, list[Signal]]:
    """x * y (bits-bit unsigned Values) after KARATSUBA_STAGES stages of `stage` (this calls
    stage.next() after each; staged: the split over `split_stages` of them, see
    `karatsuba_split`): (the 2*bits-bit product, combinational from the last stage's
    registers, the `ride` values registered beside them)."""
    def carry(values: Iterable[ValueLike]) -> list[Signal]:
        return [stage(v, f"{name}_r{k}") for k, v in enumerate(values)]

    tree = karatsuba_split(stage, x, y, bits, dsp, name, staged=staged)
    for _ in range(split_stages(bits, dsp, staged)):
        ride = carry(ride)
    stage.next()
    tree = karatsuba_multiply(stage, tree, dsp, name)
    ride = carry(ride)
    stage.next()
    tree = karatsuba_recombine(stage, tree, name)
    ride = carry(ride)
    stage.next()
    return karatsuba_sum(stage.m, tree, name)[:2 * bits], ride
