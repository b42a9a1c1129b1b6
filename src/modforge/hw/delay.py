"""A delay line of named control fields: the fields of the operation issued this cycle
(`line[name]`, signals the caller drives, combinationally) and their values k cycles later
(`line.at(name, k)`), so an operation's control travels beside its data through a
pipeline. Registers are made on demand, one chain per field, as long as its longest use
(no enable: the pipeline it follows never stalls). Builds into the caller's module."""

from __future__ import annotations

from collections.abc import Mapping

from amaranth.hdl import Module, ShapeLike, Signal


class DelayLine:
    def __init__(self, m: Module, shapes: Mapping[str, ShapeLike], prefix: str = "op") -> None:
        """shapes: field name -> shape (as for Signal)."""
        self.m, self.prefix = m, prefix
        self.now = {name: Signal(shape, name=f"{prefix}_{name}") for name, shape in shapes.items()}
        self._chains = {name: [sig] for name, sig in self.now.items()}

    def __getitem__(self, name: str) -> Signal:
        return self.now[name]

    def at(self, name: str, k: int) -> Signal:
        """Field `name` of the operation issued k cycles ago."""
        chain = self._chains[name]
        while len(chain) <= k:
            reg = Signal.like(chain[0], name=f"{self.prefix}_{name}_d{len(chain)}")
            self.m.d.sync += reg.eq(chain[-1])
            chain.append(reg)
        return chain[k]
