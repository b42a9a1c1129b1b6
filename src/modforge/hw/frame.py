"""Frame position counters: a frame is `regions` x `rows` beats, region-major (e.g. the
residue polynomials of an RNS frame one after another, each `rows` beats); a counter names
the next beat as row k of region res (k, res: registers), its index in the frame
Cat(k, res) = res * rows + k when rows is a power of two.

A helper that builds into the caller's module (like hw.pipeline.Stager): `advance(m, ...)`
steps it in the caller's current condition (e.g. inside `with m.If(take):`)."""

from __future__ import annotations

from typing import Any

from amaranth.hdl import Cat, Module, Signal, Value


class FrameCounter:
    def __init__(self, rows: int, regions: int = 1, name: str = "frame") -> None:
        self.rows, self.regions = rows, regions
        self.k = Signal(range(rows), name=f"{name}_k")
        self.res = Signal(range(regions), name=f"{name}_res")

    @property
    def index(self) -> Value:
        """The beat's index in the frame (rows a power of two)."""
        return Cat(self.k, self.res)

    def last(self) -> Value:
        """The beat is the frame's last."""
        return (self.k == self.rows - 1) & (self.res == self.regions - 1)

    def advance(self, m: Module, *at_end: Any) -> None:
        """Step to the next beat (after the last: row 0 of region 0, and the statements
        at_end, e.g. flags that the frame is complete)."""
        k, res = self.k, self.res
        m.d.sync += k.eq(k + 1)
        with m.If(k == self.rows - 1):
            m.d.sync += k.eq(0)
            with m.If(res == self.regions - 1):
                m.d.sync += [res.eq(0), *at_end]
            with m.Else():
                m.d.sync += res.eq(res + 1)
