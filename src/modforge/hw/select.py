"""Wide multiplexers as AND-OR of decoded selects. Yosys maps a chain or tree of 2:1 Muxes
one LUT3 per level and bit; an AND-OR of up to four one-hot terms fits one LUT6 a bit
(measured on xcup: a 64-bit rotator 352 -> 192 LUT). One bit out of many is the other case:
a balanced tree of 2:1 Muxes (`bit_tree`) needs no decoder, log2 levels deep."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from amaranth.hdl import Const, Mux, Value


def select_or(cases: Iterable[tuple[Value, Value]]) -> Value:
    """The OR of value & cond over (cond, value) pairs: the value whose cond holds, if the
    conds are mutually exclusive (none holds: 0)."""
    cast = [(Value.cast(c), Value.cast(v)) for c, v in cases]
    width = max(len(v) for _, v in cast)
    out: Value = Const(0, width)
    for cond, value in cast:
        out = out | (value & cond.replicate(width))
    return out


def pick(index: Value, values: Sequence[Value]) -> Value:
    """values[index] (index a Value; out of range: 0)."""
    return select_or((index == k, v) for k, v in enumerate(values))


def bit_tree(index: Value, bits: Value) -> Value:
    """bits[index] as a balanced tree of 2:1 multiplexers on index's bits, low bit first (an
    index past the end gives some bit)."""
    level = list(bits) or [Const(0, 1)]
    for k in range(len(index)):
        if len(level) == 1:
            break
        level += [Const(0, 1)] * (len(level) % 2)
        level = [Mux(index[k], level[i + 1], level[i]) for i in range(0, len(level), 2)]
    return level[0]
