"""Banked memories: buffers x sets x banks RAMs of equal shape, one synchronous read port
and one write port each, addressed as (region, word).

  buffer  a copy of the whole storage (two: ping-pong, one fills while the other works)
  set     an independent group of banks within a buffer (e.g. one per operand)
  bank    the RAMs a set's rows are spread over so that several rows are read and written
          per cycle (e.g. row r in bank parity(popcount(r)): rows r and r ^ 2^j never share one)
  region  `regions` blocks of `words` words each in every RAM (e.g. one per residue of an
          RNS frame): word a of region j is at address Cat(a, j), a padded to word_bits
          (each region takes 2^word_bits addresses)

A plain builder: `build(m)` puts its RAMs into the caller's module m (no module of its own).
rd[x][s][b] and wr[x][s][b] are the ports (amaranth.lib.memory: addr, data, en); drive
their addresses with `address(word, region)`. `data(s, bank, buf)` picks the read data of
set s by a bank and a buffer index (Values, those of the read issued the cycle before; with
`registered`, of the read two cycles before, through a register after each RAM that a block
RAM takes in as its output register: its clock-to-output delay then leaves the path).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from amaranth.hdl import Cat, Module, Mux, Signal, Value, ValueLike
from amaranth.lib.memory import Memory


class Banks:
    def __init__(self, width: int, words: int, *, banks: int = 2, sets: int = 1, buffers: int = 1,
                 regions: int = 1, names: Callable[[int, int, int], str] | None = None,
                 registered: bool = False) -> None:
        """names(buf, set, bank): each RAM's name (default bank{buf}_{set}_{bank})."""
        self.width, self.words, self.regions, self.registered = width, words, regions, registered
        self.banks, self.sets, self.buffers = banks, sets, buffers
        self.word_bits = max(1, (words - 1).bit_length())
        depth = words if regions == 1 else regions << self.word_bits
        names = names or (lambda x, s, b: f"bank{x}_{s}_{b}")
        self.memories = {names(x, s, b): Memory(shape=width, depth=depth, init=[])
                         for x in range(buffers) for s in range(sets) for b in range(banks)}
        mems = list(self.memories.values())

        # [buf][set][bank] of each RAM's port, in the order made above
        def grid(port: Callable[[Memory], Any]) -> list[list[list[Any]]]:
            return [[[port(mems[(x * sets + s) * banks + b]) for b in range(banks)] for s in range(sets)]
                    for x in range(buffers)]
        self.rd = grid(lambda mem: mem.read_port())
        self.wr = grid(lambda mem: mem.write_port())
        self.read_data = [[[Signal(width, name=f"{names(x, s, b)}_q") if registered else self.rd[x][s][b].data
                            for b in range(banks)] for s in range(sets)] for x in range(buffers)]

    def ports(self) -> list[tuple[int, int, int, Any, Any]]:
        """(buf, set, bank, read port, write port) of every RAM."""
        return [(x, s, b, self.rd[x][s][b], self.wr[x][s][b])
                for x in range(self.buffers) for s in range(self.sets) for b in range(self.banks)]

    def address(self, word: Value, region: ValueLike = 0) -> Value:
        """The address of word `word` of region `region`."""
        return word if self.regions == 1 else Cat(word[:self.word_bits], region)

    def data(self, s: int, bank: ValueLike, buf: ValueLike = 0) -> Value:
        """The read data of set s's bank `bank` in buffer `buf`."""
        rows = [_pick(bank, self.read_data[x][s]) for x in range(self.buffers)]
        return _pick(buf, rows)

    def build(self, m: Module) -> None:
        """The RAMs as submodules of m."""
        for name, mem in self.memories.items():
            m.submodules[name] = mem
        if self.registered:
            m.d.sync += [self.read_data[x][s][b].eq(self.rd[x][s][b].data) for x, s, b, *_ in self.ports()]


def _pick(index: ValueLike, values: Sequence[Value]) -> Value:
    """values[index] as a Mux chain (index: a Value; one value: itself)."""
    if len(values) == 1:
        return values[0]
    if len(values) == 2:
        return Mux(index, values[1], values[0])
    return Mux(index == len(values) - 1, values[-1], _pick(index, values[:-1]))
