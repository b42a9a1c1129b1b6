"""hw.config: ConfigLoader writes registers (sel 0) and a memory (sel 1) from its stream,
only while `allow`; the registers start at their init values."""

import random

from amaranth.hdl import Module, Value
from amaranth.lib import data
from amaranth.lib.memory import Memory
from amaranth.sim import Simulator

from modforge.hw.config import ConfigLoader

DATA, WORD, SEL = 8, 3, 2


def payload(sel, word, data):
    return data | word << DATA | sel << (DATA + WORD)


def test_loads_registers_and_memory():
    m = Module()
    mem = Memory(shape=6, depth=8, init=[])
    m.submodules.mem = mem
    layout = data.StructLayout({"data": DATA, "word": WORD, "sel": SEL})
    loader = ConfigLoader(layout, [("r0", 8, 5), ("r1", 4, 9), ("r2", 8, 0)], {1: mem.write_port()})
    loader.build(m)
    rd = mem.read_port(domain="comb")
    rng = random.Random(9)
    script = [(0, 1, 0xab), (1, 3, 0x3f), (0, 2, 0x11), (1, 7, 0x41), (0, 1, 0x07), (2, 0, 0xff), (0, 5, 0x99)]
    regs, memory, before = {0: 5, 1: 9, 2: 0}, {}, []

    async def bench(ctx):
        before.extend(ctx.get(r) for r in loader.registers)
        k = 0
        while k < len(script):
            sel, word, data = script[k]
            allow, valid = rng.random() < 0.6, rng.random() < 0.7
            ctx.set(loader.allow, allow)
            ctx.set(loader.cfg.valid, valid)
            ctx.set(Value.cast(loader.cfg.payload), payload(sel, word, data))
            assert ctx.get(loader.cfg.ready) == allow
            if valid and allow:
                if sel == 0 and word < 3:
                    regs[word] = data & ((1 << len(loader.registers[word])) - 1)
                elif sel == 1:
                    memory[word] = data & 0x3f
                k += 1
            await ctx.tick()
        ctx.set(loader.allow, 0)                          # offered but not allowed: no write
        for sel, word in [(0, 0), (0, 1), (1, 3)]:
            ctx.set(Value.cast(loader.cfg.payload), payload(sel, word, 0x5a))
            await ctx.tick()
        ctx.set(loader.cfg.valid, 0)
        assert [ctx.get(r) for r in loader.registers] == [regs[j] for j in range(3)]
        for a, v in memory.items():
            ctx.set(rd.addr, a)
            assert ctx.get(rd.data) == v

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert before == [5, 9, 0]
    assert regs == {0: 5, 1: 0x7, 2: 0x11} and memory == {3: 0x3f, 7: 0x01}
