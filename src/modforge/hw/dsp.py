"""DSP-aware multiplication: a product split into the partial products that fit a device's
DSP multipliers, one register per partial product, then their sum.

Contract: `partial_products(x, xw, y, yw, dsp)` returns [(shift, product)] whose sum
`accumulate` (each product shifted left by its offset) equals x * y for every x < 2^xw,
y < 2^yw, with y a Value or a constant int (zero constant chunks are dropped, so a sparse
constant costs fewer DSPs). `dsp` is a (Gamma_A, Gamma_B) pair of `DSP_PROFILES` or None
(one product, left to the synthesis tool). All operands are unsigned. `tiling` and
`dsp_tiles` are the integer side: the chunk sizes and the DSP count of the better
orientation, which plans and cost reports read.

Karatsuba (`karatsuba_levels`, `karatsuba_dsps`, `karatsuba_product`): a square unsigned
product split recursively, x = x1 2^h + x0, y = y1 2^h + y0 (h = ceil(n/2)):
    x*y = z2 2^(2h) + (z0 + z2 + s |x0 - x1| |y1 - y0|) 2^h + z0,  z0 = x0 y0, z2 = x1 y1,
s the sign of (x0 - x1)(y1 - y0). Sign and magnitude keep every leaf product unsigned and
h bits wide, so it fits the profile like any tile; three products a level instead of four.
"""

from __future__ import annotations

from typing import Literal

from amaranth.hdl import Cat, Const, Signal, Value

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


# ---- Karatsuba ---------------------------------------------------------------------------

KARATSUBA_STAGES = 3    # the operands' differences, the leaf products, their recombination


def _karatsuba_cost(bits: int, levels: int, dsp) -> int:
    if levels == 0 or bits < 2:
        return dsp_tiles(bits, bits, *dsp)
    h = _ceil_div(bits, 2)
    return 2 * _karatsuba_cost(h, levels - 1, dsp) + _karatsuba_cost(bits - h, levels - 1, dsp)


def karatsuba_levels(bits: int, dsp) -> int:
    """Recursion levels of a bits x bits unsigned product that need the fewest DSPs (the
    fewest levels among equals: each level costs adders); 0: plain tiling; dsp None: 0."""
    if dsp is None:
        return 0
    best = 0
    for levels in range(1, max(1, bits.bit_length())):
        if _karatsuba_cost(bits, levels, dsp) < _karatsuba_cost(bits, best, dsp):
            best = levels
    return best


def karatsuba_dsps(bits: int, dsp) -> int:
    """The DSP multiplications of `karatsuba_product` (dsp None: 0, left to the tool)."""
    return 0 if dsp is None else _karatsuba_cost(bits, karatsuba_levels(bits, dsp), dsp)


def _magnitude(m, d: Value, bits: int, name: str) -> tuple[Value, Value]:
    """(|d|, d < 0) of a signed d with |d| < 2^bits: (d ^ s) + s, one carry chain (a wire:
    the next level reads it several times)."""
    sign = d[-1]
    wire = Signal(bits, name=name)
    m.d.comb += wire.eq((d[:bits] ^ sign.replicate(bits)) + sign)
    return wire, sign


def _split(stage: Stager, x: Value, y: Value, bits: int, levels: int, name: str):
    """Stage 1: the tree of leaf operands (registered) and middle signs (registered)."""
    if levels == 0 or bits < 2:
        return ("leaf", stage(x[:bits], f"{name}_x"), stage(y[:bits], f"{name}_y"), bits)
    h = _ceil_div(bits, 2)
    x0, x1, y0, y1 = x[:h], x[h:bits], y[:h], y[h:bits]
    dx, sx = _magnitude(stage.m, x0 - x1, h, f"{name}_dx")
    dy, sy = _magnitude(stage.m, y1 - y0, h, f"{name}_dy")
    return ("node", bits, h, stage(sx ^ sy, f"{name}_s"),
            _split(stage, x0, y0, h, levels - 1, f"{name}0"),
            _split(stage, x1, y1, bits - h, levels - 1, f"{name}2"),
            _split(stage, dx, dy, h, levels - 1, f"{name}m"))


def _multiply(stage: Stager, tree, dsp, name: str):
    """Stage 2: each leaf's tiles registered (a DSP's own register); the signs ride along."""
    if tree[0] == "leaf":
        _, x, y, bits = tree
        return ("leaf", register_products(stage, partial_products(x, bits, y, bits, dsp), name), bits)
    kind, bits, h, sign, low, high, mid = tree
    return (kind, bits, h, stage(sign, f"{name}_s"), _multiply(stage, low, dsp, f"{name}0"),
            _multiply(stage, high, dsp, f"{name}2"), _multiply(stage, mid, dsp, f"{name}m"))


def _combine(m, tree, name: str) -> Value:
    """Stage 3's logic: the product of a (sub)tree, a 2*bits-bit wire (each used twice)."""
    if tree[0] == "leaf":
        _, parts, bits = tree
        product = accumulate(parts)
    else:
        _, bits, h, sign, low, high, mid = tree
        product = _recombine(bits, h, sign, _combine(m, low, f"{name}0"), _combine(m, high, f"{name}2"),
                             _combine(m, mid, f"{name}m"))
    wire = Signal(2 * bits, name=f"{name}_z")
    m.d.comb += wire.eq(product)
    return wire


def _recombine(bits: int, h: int, sign: Value, z0: Value, z2: Value, zm: Value) -> Value:
    """z2 2^(2h) + (z0 + z2 -+ zm) 2^h + z0, the middle sum non-negative (x0 y1 + x1 y0)."""
    w = bits + 1                                    # x0 y1 + x1 y0 < 2^(bits + 1)
    zm = Cat(zm, Const(0, w - len(zm)))
    middle = (z0 + z2 + (zm ^ sign.replicate(w)) + sign)[:w]     # z0 + z2 -+ zm, mod 2^w
    return (Cat(z0, z2) + (middle << h))[:2 * bits]


def karatsuba_product(stage: Stager, x: Value, y: Value, bits: int, dsp, name: str, ride=()):
    """x * y (bits-bit unsigned Values) in KARATSUBA_STAGES stages of `stage` (this calls
    stage.next() after each): (the 2*bits-bit product register, the `ride` values registered
    beside it). karatsuba_levels(bits, dsp) levels, karatsuba_dsps(bits, dsp) DSPs."""
    def carry(values):
        return [stage(v, f"{name}_r{k}") for k, v in enumerate(values)]

    tree = _split(stage, x, y, bits, karatsuba_levels(bits, dsp), name)    # stage 1: differences
    ride = carry(ride)
    stage.next()
    tree = _multiply(stage, tree, dsp, name)                                # stage 2: leaf products
    ride = carry(ride)
    stage.next()
    product = stage(_combine(stage.m, tree, name), f"{name}_p", 2 * bits)                  # stage 3: recombination
    ride = carry(ride)
    stage.next()
    return product, ride
