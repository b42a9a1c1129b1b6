"""Reading a stream payload by the plan's layout (registry.Plan.input_layout): a field of
`lanes` lanes is an ArrayLayout, a field of one lane a plain unsigned value."""

from __future__ import annotations

from typing import Any

from amaranth.hdl import Value
from amaranth.lib import data

#: a plan's (input, output) payload layouts (registry.Plan.input_layout, output_layout)
Layouts = tuple[data.StructLayout, data.StructLayout]


def lanes(field: Any, count: int) -> list[Value]:
    """The lanes of a payload field read through a data.View, lane 0 first: its ArrayLayout's
    elements, or the field itself when it is one lane (an unsigned field: indexing it would
    pick bits)."""
    if count == 1:
        return [Value.cast(field)]
    return [Value.cast(field[lane]) for lane in range(count)]
