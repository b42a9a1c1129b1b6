"""Drive a PipelinedCore in amaranth.sim with random input stalls and output back-pressure."""

import random

from amaranth.hdl import Value
from amaranth.sim import Simulator


def run_stream(core, payloads, seed=0, stalls=True, max_cycles=None):
    """Feed `payloads` through `core`; return (outputs in order, latencies of the results
    taken with no stall in flight, input acceptance cycles). i.valid drops randomly; o.ready
    drops randomly; a raised i.valid stays up until taken."""
    rng = random.Random(seed)
    outs, accepted, seen = [], [], []
    limit = max_cycles or (len(payloads) + core.latency) * 8 + 100

    async def bench(ctx):
        sent = 0
        cycle = 0
        pending_valid = False
        while len(outs) < len(payloads) and cycle < limit:
            if not pending_valid and sent < len(payloads):
                pending_valid = (not stalls) or rng.random() < 0.7
            ctx.set(core.i.valid, pending_valid and sent < len(payloads))
            if sent < len(payloads):
                ctx.set(Value.cast(core.i.payload), payloads[sent])
            o_ready = (not stalls) or rng.random() < 0.6
            ctx.set(core.o.ready, o_ready)
            # sample the handshakes of this cycle (before the edge)
            took_in = ctx.get(core.i.valid) and ctx.get(core.i.ready)
            if ctx.get(core.o.valid):
                if not seen or seen[-1][1] != len(outs):
                    seen.append((cycle, len(outs)))
                if o_ready:
                    outs.append(ctx.get(Value.cast(core.o.payload)))
            if took_in:
                accepted.append(cycle)
                sent += 1
                pending_valid = False
            await ctx.tick()
            cycle += 1
        ctx.set(core.i.valid, 0)

    sim = Simulator(core)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    latencies = [c - accepted[k] for c, k in seen if k < len(accepted)]
    return outs, latencies, accepted
