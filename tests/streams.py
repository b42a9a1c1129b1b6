"""amaranth.sim helper shared by the family tests: play a script of beats into a core's i and
cfg streams with random input stalls and output back-pressure, and collect what leaves o."""

from amaranth.hdl import Value
from amaranth.sim import Simulator


def play(core, script: list[tuple[str, int]], expected_beats: int, rng, cycles: int) -> list[int]:
    """Offer each (port, payload) of `script` in order ("i" or "cfg"; a beat is offered 80 % of
    cycles, o is ready 70 %) until `expected_beats` results are out or `cycles` have passed."""
    outs: list[int] = []

    async def bench(ctx):
        k = 0
        for _ in range(cycles):
            if len(outs) == expected_beats:
                return
            port, payload = script[k] if k < len(script) else (None, 0)
            offer = port is not None and rng.random() < 0.8
            ctx.set(core.i.valid, offer and port == "i")
            if hasattr(core, "cfg"):
                ctx.set(core.cfg.valid, offer and port == "cfg")
            if port is not None:
                ctx.set(Value.cast(core.i.payload if port == "i" else core.cfg.payload), payload)
            o_ready = rng.random() < 0.7
            ctx.set(core.o.ready, o_ready)
            if ctx.get(core.o.valid) and o_ready:
                outs.append(ctx.get(Value.cast(core.o.payload)))
            if offer and ctx.get(core.i.ready if port == "i" else core.cfg.ready):
                k += 1
            await ctx.tick()

    sim = Simulator(core)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return outs
