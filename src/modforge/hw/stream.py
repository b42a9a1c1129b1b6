"""Stream adapters.

ReadOut: words read from a synchronous RAM (address in one cycle, data the next) out
through a FIFO as a valid/ready stream, none lost to back-pressure: a read is issued (`go`)
only while one is available (`avail`) and the FIFO has room for it and the read in flight.
With the output always ready, a word read in cycle t is on `o` at t + 3 (RAM, FIFO write,
FIFO read); a FIFO of 4 words sustains one read per cycle. Use it as a submodule, or
`build(m)` its logic into the caller's module m (no hierarchy).

HeldReadOut: the same without a FIFO, for a RAM whose read port has an enable and whose read
data goes straight to `o`: under back-pressure the RAM holds its word (`hold`: drive the read
port's en with ~hold). A word read in cycle t is on `o` at t + 1; one read per cycle.
"""

from __future__ import annotations

from amaranth.hdl import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.wiring import In, Out


class ReadOut(wiring.Component):
    """avail: a word can be read; go: read it now (drive the RAM's address with it this
    cycle); data: the RAM's read data, the cycle after go; o: the words in read order."""

    def __init__(self, width: int, depth: int = 4):
        self.depth = depth
        super().__init__({
            "avail": In(1),
            "go": Out(1),
            "data": In(width),
            "o": Out(stream.Signature(width)),
        })

    def elaborate(self, platform):
        m = Module()
        self.build(m)
        return m

    def build(self, m):
        """The block's logic into module m (flat: no module of its own, the FIFO a
        submodule of m)."""
        self._MustUse__silence = True
        fifo = SyncFIFOBuffered(width=len(self.data), depth=self.depth)
        m.submodules.fifo = fifo
        inflight = Signal()
        m.d.comb += self.go.eq(self.avail & (fifo.level + inflight < self.depth))
        m.d.sync += inflight.eq(self.go)
        m.d.comb += [
            fifo.w_en.eq(inflight),
            fifo.w_data.eq(self.data),
            self.o.valid.eq(fifo.r_rdy),
            self.o.payload.eq(fifo.r_data),
            fifo.r_en.eq(self.o.ready),
        ]


class HeldReadOut(wiring.Component):
    """avail: a word can be read; go: read it now; hold: the RAM keeps its read data this cycle
    (its read port's en = ~hold); data: the RAM's read data; o: the words in read order. A
    word is on `data` (o.valid) from the cycle after its go until taken; hold is low while
    nothing is on `data`, so the RAM is free for other reads then."""

    def __init__(self, width: int):
        super().__init__({
            "avail": In(1),
            "go": Out(1),
            "hold": Out(1),
            "data": In(width),
            "o": Out(stream.Signature(width)),
        })

    def elaborate(self, platform):
        m = Module()
        self.build(m)
        return m

    def build(self, m):
        """The block's logic into module m (flat: data goes to o as wiring, no module whose
        ports only pass it through)."""
        self._MustUse__silence = True
        valid = Signal(name="held_valid")       # a word on data
        m.d.comb += [self.go.eq(self.avail & (~valid | self.o.ready)), self.hold.eq(valid & ~self.o.ready),
                     self.o.valid.eq(valid), self.o.payload.eq(self.data)]
        m.d.sync += valid.eq(self.go | self.hold)
