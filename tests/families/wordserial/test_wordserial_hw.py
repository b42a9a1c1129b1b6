"""rsa-montgomery hardware beyond the conformance grid: deliberately broken variants that
the generated testbench must catch (a cfg load that does not take effect, a wrong latency
claim, a core that never subtracts N), the reset modulus and loads between frames
(amaranth.sim), and a deterministic export."""

import dataclasses
import random

import pytest
from amaranth.hdl import ClockDomain, Module, ResetSignal, Signal, Value
from amaranth.sim import Simulator

from modforge.families.wordserial.algorithms import RsaMontgomery
from modforge.registry import lookup
from modforge.sim.runners import SIMULATORS
from modforge.sim.verify import verify
from modforge.verilog import to_verilog
from tests.streams import play

SMALL = {"l": "64", "w": "16", "pe": "2"}


class StaleConfig(RsaMontgomery):
    """The testbench writes the build modulus' words while the vectors follow the loaded one:
    what the core computes must depend on what cfg wrote."""

    def verification_config(self, params):
        loaded, _ = super().verification_config(params)
        return loaded, self.config_words(params, [params.modulus])


class WrongLatency(RsaMontgomery):
    """The hardware claims one cycle more latency than it has."""

    def build(self, params):
        core = super().build(params)
        core.latency += 1
        return core


class NoSubtraction(RsaMontgomery):
    """The model skips the final subtraction (t < 2N): the hardware's results differ."""

    def model(self, params, x, y):
        from modforge.families.wordserial.model import fios
        return fios(x, y, params.modulus, params.w, params.l // params.w)[0] % (1 << params.l)


@pytest.mark.sim
@pytest.mark.parametrize("broken, field", [(StaleConfig, "failed"), (WrongLatency, "latency_failures"),
                                           (NoSubtraction, "failed")])
def test_broken_variants_fail(tmp_path, broken, field):
    alg = broken()
    params = alg.parse(SMALL)
    _, results = verify(alg, params, tmp_path, 40, list(SIMULATORS))
    for r in results:
        assert not r.ok
        assert getattr(r, field) > 0, r.log[-2000:]


def test_verilog_export_is_deterministic():
    alg = lookup("rsa-montgomery")
    params = alg.parse({"l": "256", "w": "32", "pe": "4"})
    mod = alg.module_name(params)
    text = to_verilog(alg.build(params), mod)
    assert f"module {mod}" in text
    assert text == to_verilog(alg.build(params), mod)


@pytest.mark.sim
@pytest.mark.parametrize("banks", ["1", "2"])
def test_load_between_frames(banks):
    """amaranth.sim: frames of the reset modulus (the build's: no cfg yet), then another
    loaded, then the reset one loaded back, each cfg write offered right behind the last beat
    of a frame (the core holds it off until that frame's rounds are done; with two banks,
    until the frame before it is done too), with input stalls and back-pressure."""
    alg = lookup("rsa-montgomery")
    p = alg.parse({**SMALL, "banks": banks})
    other, ones, low = (dataclasses.replace(p, modulus=v) for v in ((1 << 64) - 59, (1 << 64) - 1, (1 << 63) + 1))
    rng = random.Random(7)
    script, expected = [], []
    frames = [(p, False), (p, False), (other, True), (other, False), (ones, True), (ones, False), (low, True),
              (low, False), (p, True)]
    for k, (pq, load) in enumerate(frames):
        x, y = alg.random_operands(pq, rng) if k % 2 else (pq.modulus - 1, pq.modulus - 1)
        script += [("cfg", w) for w in (alg.config_words(p, [pq.modulus]) if load else [])]
        script += [("i", xj | yj << p.w) for xj, yj in alg.in_beats(pq, (x, y))]
        expected += alg.out_beats(pq, alg.model(pq, x, y))
    core = alg.build(p)
    outs = play(core, script, len(expected), rng, len(script) * 8 + 20 * alg.latency(p))
    assert outs == expected


def stream_frames(cfg, seed, offer_p, ready_of, cut=None):
    """amaranth.sim: three random frames through rsa-montgomery, a beat offered offer_p of
    the cycles, o ready when ready_of(cycle, rng); with `cut`, rst for one cycle at that cycle
    (the first frame cut short by it, then the other two). (results, the model's)."""
    alg = lookup("rsa-montgomery")
    p = alg.parse(cfg)
    rng = random.Random(seed)
    ops = [alg.random_operands(p, rng) for _ in range(3)]
    frames = [[xj | yj << p.w for xj, yj in alg.in_beats(p, (x, y))] for x, y in ops]
    expected = [b for x, y in ops[cut is not None:] for b in alg.out_beats(p, alg.model(p, x, y))]
    core, outs = alg.build(p), []
    m = Module()
    m.submodules.core = core
    m.domains.sync = ClockDomain()
    rst = Signal()
    m.d.comb += ResetSignal().eq(rst)

    async def bench(ctx):
        beats, k = (frames[0] if cut is not None else sum(frames, [])), 0
        for cycle in range(2000):
            if cycle == cut:
                ctx.set(rst, 1)
                await ctx.tick()
                ctx.set(rst, 0)
                beats, k = frames[1] + frames[2], 0
                outs.clear()
            if len(outs) == len(expected) and (cut is None or cycle > cut):
                return
            offer = k < len(beats) and rng.random() < offer_p
            ctx.set(core.i.valid, offer)
            ctx.set(Value.cast(core.i.payload), beats[min(k, len(beats) - 1)])
            ready = ready_of(cycle, rng)
            ctx.set(core.o.ready, ready)
            if ctx.get(core.o.valid) and ready:
                outs.append(ctx.get(Value.cast(core.o.payload)))
            k += offer and ctx.get(core.i.ready)
            await ctx.tick()

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return outs, expected


@pytest.mark.sim
@pytest.mark.parametrize("cfg", [{"l": "64", "w": "8", "pe": "1"}, {"l": "64", "w": "16", "pe": "4"},
                                 {"l": "64", "w": "8", "pe": "1", "banks": "2"},
                                 {"l": "64", "w": "16", "pe": "4", "banks": "2"}])
def test_read_out_held_back(cfg):
    """amaranth.sim: o not ready for 300 cycles while the next frames load and run (their
    rounds overlap the read-out): the last round of the next frame (pe=1: s = 8 words, more
    than the read-out's FIFO holds; pe=4: R = 1, round 0 is the last) waits at the chain's
    end for the read-out; input stalls too. Two banks: the frame after it loads meanwhile
    and waits for the feed."""
    outs, expected = stream_frames(cfg, 3, 0.9, lambda cycle, rng: cycle > 300 and rng.random() < 0.5)
    assert outs == expected


@pytest.mark.sim
@pytest.mark.parametrize("cut, banks", [(3, "1"), (10, "1"), (25, "1"), (3, "2"), (10, "2"), (25, "2")])
def test_reset_mid_frame(cut, banks):
    """amaranth.sim: rst for one cycle while a frame loads or runs (cycle `cut`), then two
    frames: both right, the first beat taken the cycle after rst. Round 0 starts at a frame's
    first beat, so a flag left in flight by the reset must not latch x or move the x RAM's
    address (cut 10 failed so); two banks: nor leave a bank, a pending start or the x index
    of the frame cut short."""
    outs, expected = stream_frames({**SMALL, "banks": banks}, cut, 0.8, lambda cycle, rng: rng.random() < 0.7, cut)
    assert outs == expected


@pytest.mark.sim
@pytest.mark.parametrize("pe, banks", [("4", "1"), ("2", "2")])
def test_p256_fast_path_on_both_simulators(tmp_path, pe, banks):
    """Issue 37's iterative multiplier: P-256 itself (fixed=1: no cfg, the Montgomery-friendly
    m = t_0 + x_i y_0) against the model on Verilator and Icarus, with the cycle claims (two
    banks: II = R T, y_0 a register a bank). The grid adds 2^255 - 19 through cfg
    (N < 2^(l-1)); the extended grid P-521 and BLS12-381."""
    alg = lookup("rsa-montgomery")
    params = alg.parse({"modulus": "p256", "w": "32", "pe": pe, "fixed": "1", "banks": banks})
    assert alg.friendly(params)
    design, results = verify(alg, params, tmp_path, 200, list(SIMULATORS))
    for r in results:
        assert r.ok and r.passed == r.vectors >= 200, r.log[-2000:]
        assert r.latency == design.latency and r.initiation_interval == design.initiation_interval
