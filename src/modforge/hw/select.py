"""Wide multiplexers as AND-OR of decoded selects. Yosys maps a chain or tree of 2:1 Muxes
one LUT3 per level and bit; an AND-OR of up to four one-hot terms fits one LUT6 a bit
(measured on xcup: a 64-bit rotator 352 -> 192 LUT)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from amaranth.hdl import Const, Value


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
