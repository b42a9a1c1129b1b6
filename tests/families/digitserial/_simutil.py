"""amaranth.sim driver for the digit-serial cores: feeds operand pairs through the
valid/ready handshake, checks every result against the model and the exact latency."""

from __future__ import annotations

from amaranth.hdl import Value
from amaranth.sim import Simulator


def simulate(core, pairs, model, stall_every: int = 0):
    """Run `pairs` (packed a, b) through `core`; return the list of (result, latency).

    Each result is checked against `model(a, b)`; latency = cycles from the input
    handshake to the first cycle o.valid is seen high (must be core.steps + 1).
    With stall_every = k, o.ready is held low for 2 extra cycles on every k-th result,
    checking that the payload holds.
    """
    results = []
    w = len(Value.cast(core.o.payload))                   # a and b: as wide as the result

    async def bench(ctx):
        for n, (a, b) in enumerate(pairs):
            ctx.set(Value.cast(core.i.payload), a | (b << w))
            ctx.set(core.i.valid, 1)
            ctx.set(core.o.ready, 0)
            # wait for the handshake
            while True:
                ready = ctx.get(core.i.ready)
                await ctx.tick()
                if ready:
                    break
            ctx.set(core.i.valid, 0)
            ctx.set(Value.cast(core.i.payload), 0)
            cycles = 1
            while not ctx.get(core.o.valid):
                await ctx.tick()
                cycles += 1
                assert cycles < 10 * core.latency + 10, "no result"
            got = ctx.get(Value.cast(core.o.payload))
            if stall_every and n % stall_every == 0:
                for _ in range(2):
                    await ctx.tick()
                    assert ctx.get(core.o.valid) and ctx.get(Value.cast(core.o.payload)) == got, "output not held"
            ctx.set(core.o.ready, 1)
            await ctx.tick()
            ctx.set(core.o.ready, 0)
            want = model(a, b)
            assert got == want, f"pair {n}: a={a:#x} b={b:#x}: got {got:#x}, want {want:#x}"
            results.append((got, cycles))

    sim = Simulator(core)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return results
