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
Over the leaves the middle product is signed instead, (x0 - x1)(y1 - y0) of h+1-bit signed
operands, when that is one DSP (`signed_fits`: 17 x 17 signed for 16-bit leaves on every
profile): no magnitude, no sign. Stage 2 recombines the nodes over the leaves right after
their DSPs, so only their products are registered; `karatsuba_sum` is the rest.
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

KARATSUBA_STAGES = 2    # the operands' differences, the leaf products with their parents' recombination


def signed_fits(bits: int, dsp) -> bool:
    """A signed bits x bits product is one DSP: the profile's sizes bound the signed operands
    too (DSP48E2 27x18 and DSP48E1 25x18 signed, ECP5 18x18 signed)."""
    return dsp is not None and dsp_tiles(bits, bits, *dsp) == 1


def _karatsuba_cost(bits: int, levels: int, dsp) -> int:
    if levels == 0 or bits < 2:
        return dsp_tiles(bits, bits, *dsp)
    h = _ceil_div(bits, 2)
    middle = 1 if levels == 1 and signed_fits(h + 1, dsp) else _karatsuba_cost(h, levels - 1, dsp)
    return _karatsuba_cost(h, levels - 1, dsp) + _karatsuba_cost(bits - h, levels - 1, dsp) + middle


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


def _split(stage: Stager, x: Value, y: Value, bits: int, levels: int, dsp, name: str):
    """Stage 1: the tree of leaf operands (registered) and middle signs (registered). A node
    over leaves keeps its middle operands signed (x0 - x1, y1 - y0: h+1 bits) when that
    product is one DSP: no magnitude, no sign."""
    if levels == 0 or bits < 2:
        return ("leaf", stage(x[:bits], f"{name}_x"), stage(y[:bits], f"{name}_y"), bits)
    h = _ceil_div(bits, 2)
    x0, x1, y0, y1 = x[:h], x[h:bits], y[:h], y[h:bits]
    low = _split(stage, x0, y0, h, levels - 1, dsp, f"{name}0")
    high = _split(stage, x1, y1, bits - h, levels - 1, dsp, f"{name}2")
    if levels == 1 and signed_fits(h + 1, dsp):
        mid = ("signed", stage(x0 - x1, f"{name}m_x"), stage(y1 - y0, f"{name}m_y"), h + 1)
        return ("node", bits, h, None, low, high, mid)
    dx, sx = _magnitude(stage.m, x0 - x1, h, f"{name}_dx")
    dy, sy = _magnitude(stage.m, y1 - y0, h, f"{name}_dy")
    return ("node", bits, h, stage(sx ^ sy, f"{name}_s"), low, high,
            _split(stage, dx, dy, h, levels - 1, dsp, f"{name}m"))


def _leaf_product(tree, dsp) -> Value:
    kind, x, y, bits = tree
    if kind == "signed":
        return x.as_signed() * y.as_signed()
    return accumulate(partial_products(x, bits, y, bits, dsp))[:2 * bits]


def _multiply(stage: Stager, tree, dsp, name: str):
    """Stage 2: the DSP products, each node over leaves recombined and registered (a leaf
    alone: its product registered); the signs above ride along."""
    if tree[0] != "node":
        return ("product", stage(_leaf_product(tree, dsp), f"{name}_z", 2 * tree[3]))
    kind, bits, h, sign, low, high, mid = tree
    if all(t[0] != "node" for t in (low, high, mid)):
        product = _recombine(bits, h, sign, *(_leaf_product(t, dsp) for t in (low, high, mid)))
        return ("product", stage(product, f"{name}_z", 2 * bits))
    return (kind, bits, h, stage(sign, f"{name}_s"), _multiply(stage, low, dsp, f"{name}0"),
            _multiply(stage, high, dsp, f"{name}2"), _multiply(stage, mid, dsp, f"{name}m"))


def _combine(m, tree, name: str, overlay=None) -> Value:
    """Stage 3's logic: the product of a (sub)tree, a 2*bits-bit wire (each used twice);
    overlay: ORed into the root's z2 2^(2h) + z0 (see `karatsuba_sum`)."""
    if tree[0] == "product":
        product = tree[1] if overlay is None else tree[1] | overlay
    else:
        _, bits, h, sign, low, high, mid = tree
        product = _recombine(bits, h, sign, _combine(m, low, f"{name}0"), _combine(m, high, f"{name}2"),
                             _combine(m, mid, f"{name}m"), overlay)
    wire = Signal(len(product), name=f"{name}_z")
    m.d.comb += wire.eq(product)
    return wire


def _recombine(bits: int, h: int, sign, z0: Value, z2: Value, zm: Value, overlay=None) -> Value:
    """z2 2^(2h) + (z0 + z2 + zm) 2^h + z0, zm signed (sign None) or a magnitude with its
    sign; the middle sum x0 y1 + x1 y0 is non-negative."""
    w = bits + 1                                    # x0 y1 + x1 y0 < 2^(bits + 1)
    if sign is None:
        middle = (z0 + z2 + zm)[:w]
    else:
        zm = Cat(zm, Const(0, w - len(zm)))
        middle = (z0 + z2 + (zm ^ sign.replicate(w)) + sign)[:w]     # z0 + z2 -+ zm, mod 2^w
    outer = Cat(z0[:2 * h], z2)
    if overlay is not None:
        outer = outer | overlay
    return (outer + (middle << h))[:2 * bits]


def karatsuba_products(stage: Stager, x: Value, y: Value, bits: int, dsp, name: str, ride=()):
    """Stages 1-2 of x * y (bits-bit unsigned Values; this calls stage.next() after each):
    (the registered tree `karatsuba_sum` finishes, the `ride` values registered beside it).
    karatsuba_levels(bits, dsp) levels, karatsuba_dsps(bits, dsp) DSPs."""
    def carry(values):
        return [stage(v, f"{name}_r{k}") for k, v in enumerate(values)]

    tree = _split(stage, x, y, bits, karatsuba_levels(bits, dsp), dsp, name)   # stage 1: differences
    ride = carry(ride)
    stage.next()
    tree = _multiply(stage, tree, dsp, name)                                    # stage 2: products
    ride = carry(ride)
    stage.next()
    return tree, ride


def karatsuba_sum(m, tree, name: str, overlay=None) -> Value:
    """The rest of the recombination (combinational, after stage 2): the 2*bits-bit product.
    overlay (2*bits bits): ORed into the root's z2 2^(2h) + z0, which joins the adder's LUTs;
    the caller makes sure the two never overlap (e.g. overlay nonzero only when x*y = 0)."""
    return _combine(m, tree, name, overlay)


def karatsuba_product(stage: Stager, x: Value, y: Value, bits: int, dsp, name: str, ride=()):
    """x * y (bits-bit unsigned Values) after KARATSUBA_STAGES stages of `stage`: (the
    2*bits-bit product, combinational from stage-2 registers, the `ride` values registered
    beside them)."""
    tree, ride = karatsuba_products(stage, x, y, bits, dsp, name, ride)
    return karatsuba_sum(stage.m, tree, name)[:2 * bits], ride
