"""Stream adapters.

ReadOut: words read from a synchronous RAM (address in one cycle, data the next) out as a
valid/ready stream, none lost to back-pressure: a read is issued (`go`) only while one is
available (`avail`) and there is room for it. A plain builder: `build(m)` puts its logic into
the caller's module m (no module of its own).

- depth > 0: through a FIFO of that many words; a read is issued only while the FIFO has room
  for it and the reads in flight. With the output always ready, a word read in cycle t is on
  `o` at t + 2 + latency (RAM and its registers, FIFO write, FIFO read); 3 + latency words
  sustain one read per cycle. latency: cycles from go to data (1: the RAM alone).
- depth = 0 (held): no FIFO, for a RAM whose read port has an enable and whose read data goes
  straight to `o`: under back-pressure the RAM keeps its word (`hold`: drive the read port's
  en with ~hold). A word read in cycle t is on `o` at t + 1; one read per cycle. hold is low
  while no word waits, so the RAM is free for other reads then.
"""

from __future__ import annotations

from amaranth.hdl import Module, Signal
from amaranth.lib import stream
from amaranth.lib.fifo import SyncFIFOBuffered


class ReadOut:
    """avail: a word can be read (drive it); go: read it now (drive the RAM's address with it
    this cycle); data: the RAM's read data, `latency` cycles after go (drive it); o: the words in
    read order (a stream source); hold (depth 0 only): the RAM keeps its read data this
    cycle."""

    def __init__(self, width: int, depth: int = 4, latency: int = 1):
        self.depth, self.latency = depth, latency
        self.avail, self.go, self.data = Signal(name="avail"), Signal(name="go"), Signal(width, name="data")
        self.o = stream.Signature(width).create(path=("o",))
        if depth == 0:
            self.hold = Signal(name="hold")

    def build(self, m: Module) -> None:
        """The block's logic into module m (the FIFO a submodule of m; held, data goes to o
        as wiring)."""
        if self.depth == 0:
            valid = Signal(name="held_valid")       # a word on data
            m.d.comb += [self.go.eq(self.avail & (~valid | self.o.ready)), self.hold.eq(valid & ~self.o.ready),
                         self.o.valid.eq(valid), self.o.payload.eq(self.data)]
            m.d.sync += valid.eq(self.go | self.hold)
            return
        fifo = SyncFIFOBuffered(width=len(self.data), depth=self.depth)
        m.submodules.fifo = fifo
        inflight = [Signal(name=f"inflight{k}" if k else "inflight") for k in range(self.latency)]
        flying = inflight[0] if self.latency == 1 else sum(inflight[1:], inflight[0])
        m.d.comb += self.go.eq(self.avail & (fifo.level + flying < self.depth))
        m.d.sync += [reg.eq(prev) for reg, prev in zip(inflight, [self.go, *inflight], strict=False)]
        m.d.comb += [
            fifo.w_en.eq(inflight[-1]),
            fifo.w_data.eq(self.data),
            self.o.valid.eq(fifo.r_rdy),
            self.o.payload.eq(fifo.r_data),
            fifo.r_en.eq(self.o.ready),
        ]
