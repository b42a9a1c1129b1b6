"""hw.banks: every word of every RAM (2 buffers x 2 sets x 2 banks, 3 regions of 3 words:
padded addresses) written through the write ports, then read back through `address` and
`data` (bank and buffer chosen the cycle after the read, as a pipeline does)."""

import random

from amaranth.hdl import Fragment, Module, Signal
from amaranth.sim import Simulator

from modforge.hw.banks import Banks


class Harness:
    def __init__(self):
        self.banks = Banks(8, 3, sets=2, buffers=2, regions=3)
        self.m = Module()
        self.banks.build(self.m)
        self.word, self.region = Signal(2), Signal(2)
        self.bank, self.buf = Signal(), Signal()          # of the read issued the cycle before
        self.out = [Signal(8, name=f"out{s}") for s in range(2)]
        for _, _, _, rd, _ in self.banks.ports():
            self.m.d.comb += rd.addr.eq(self.banks.address(self.word, self.region))
        self.m.d.comb += [self.out[s].eq(self.banks.data(s, self.bank, self.buf)) for s in range(2)]


def test_write_read_round_trip():
    h, rng = Harness(), random.Random(2)
    b = h.banks
    assert b.word_bits == 2 and b.memories["bank1_1_0"].depth == 3 << 2
    places = [(x, s, k, j, a) for x in range(2) for s in range(2) for k in range(2) for j in range(3) for a in range(3)]
    content = {place: rng.randrange(256) for place in places}
    got = {}

    async def bench(ctx):
        for (x, s, k, j, a), value in content.items():
            wr = b.wr[x][s][k]
            ctx.set(wr.en, 1)
            ctx.set(wr.addr, (j << b.word_bits) | a)
            ctx.set(wr.data, value)
            await ctx.tick()
            ctx.set(wr.en, 0)
        for x, s, k, j, a in places:
            ctx.set(h.word, a)
            ctx.set(h.region, j)
            await ctx.tick()                              # synchronous read
            ctx.set(h.bank, k)
            ctx.set(h.buf, x)
            got[(x, s, k, j, a)] = ctx.get(h.out[s])

    sim = Simulator(h.m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert got == content


def test_address_without_regions():
    b = Banks(4, 5)
    w = Signal(3)
    assert b.address(w) is w and b.word_bits == 3 and len(b.ports()) == 2
    m = Module()
    b.build(m)
    assert [sub[1] for sub in Fragment.get(m, None).subfragments] == ["bank0_0_0", "bank0_0_1"]
