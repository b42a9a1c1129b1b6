"""PipelinedCore around a toy datapath: results in order and never lost under random input
stalls and output back-pressure; latency L and one operand set per cycle without stalls."""

import gc
import random
import warnings
from itertools import pairwise

import pytest
from amaranth.hdl import ClockDomain, Module, UnusedElaboratable, Value
from amaranth.sim import Simulator

from modforge.hw.pipeline import Datapath, ParallelCore, PipelinedCore
from modforge.verilog import to_verilog

from ._simutil import run_stream


class Toy(Datapath):
    """f(x) = (3x + 1) ^ 0x5a, over `depth` stages (one step per stage, then delays)."""

    def __init__(self, depth):
        super().__init__(8, 10, depth)

    def build(self, m, stage, x):
        v = stage(x * 3, "x3", 10)
        stage.next()
        for k in range(1, self.stages):
            v = stage(v + 1 if k == 1 else (v ^ 0x5A if k == 2 else v), f"v{k}", 10)
            stage.next()
        return v


def toy(x, depth):
    v = (x * 3) & 0x3FF
    if depth > 1:
        v = (v + 1) & 0x3FF
    if depth > 2:
        v ^= 0x5A
    return v


@pytest.mark.parametrize("depth", [1, 2, 3, 5])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_toy_with_stalls(depth, seed):
    xs = [(i * 37 + seed) & 0xFF for i in range(200)]
    outs, _, _ = run_stream(PipelinedCore(Toy(depth)), xs, seed=seed, stalls=True)
    assert outs == [toy(x, depth) for x in xs]


@pytest.mark.parametrize("depth", [1, 3, 5])
def test_toy_latency_and_ii(depth):
    xs = list(range(50))
    core = PipelinedCore(Toy(depth))
    outs, lats, acc = run_stream(core, xs, stalls=False)
    assert outs == [toy(x, depth) for x in xs]
    assert set(lats) == {depth} == {core.latency}
    assert {b - a for a, b in pairwise(acc)} == {1} and core.initiation_interval == 1


@pytest.mark.parametrize("keep", [[0, 0, 0, 0, 1], [1, 0, 1, 0, 1], [0, 1, 1, 1, 1]])
def test_merged_stages(keep):
    """keep_stages: the same function with the dropped stages' registers gone, latency =
    the stages kept, under stalls too; the last stage must stay."""
    xs = [(i * 37) & 0xFF for i in range(200)]
    toy5 = Toy(5)
    toy5.keep_stages(keep)
    core = PipelinedCore(toy5)
    assert core.latency == core.depth == toy5.depth == sum(keep) and core.stages == 5
    outs, lats, _ = run_stream(core, xs, stalls=False)
    assert outs == [toy(x, 5) for x in xs] and set(lats) == {sum(keep)}
    assert run_stream(PipelinedCore(toy5), xs, seed=3, stalls=True)[0] == [toy(x, 5) for x in xs]
    with pytest.raises(ValueError):
        Toy(5).keep_stages([1, 1, 1, 1, 0])


def test_depth_mismatch_is_caught():
    class Bad(Toy):
        def build(self, m, stage, x):
            v = stage(x, "x")
            stage.next()
            return v

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnusedElaboratable)     # the module the shell gave up on
        with pytest.raises(RuntimeError, match="declared 3"):
            to_verilog(PipelinedCore(Bad(3)), "bad")
        gc.collect()


def test_export():
    text = to_verilog(PipelinedCore(Toy(3)), "toy3")
    # a valid bit a stage; the last is the output's (the back end names a register after the port it drives)
    assert "module toy3" in text and "reg s1_valid" in text and "reg s2_valid" in text and "reg o__valid" in text


@pytest.mark.parametrize("reset", [False, True])
def test_reset_empties_the_pipeline_and_clears_stage_registers_only_with_reset(reset):
    """rst empties the pipeline (o.valid falls) either way; the stage registers keep their
    values (no reset: the tools may build SRLs) unless reset=True, which clears them."""

    class Spy(Toy):
        def build(self, m, stage, x):
            self.first = v = stage(x * 3, "x3", 10)
            stage.next()
            v = stage(v, "v", 10)
            stage.next()
            return v

    core, seen = PipelinedCore(Spy(2), reset=reset), {}
    top = Module()
    top.domains.sync = sync = ClockDomain()
    top.submodules.core = core

    async def bench(ctx):
        ctx.set(core.o.ready, 1)
        ctx.set(core.i.valid, 1)
        ctx.set(Value.cast(core.i.payload), 7)
        await ctx.tick()
        ctx.set(core.i.valid, 0)
        ctx.set(sync.rst, 1)
        seen["before"] = ctx.get(core.datapath.first)
        await ctx.tick()
        ctx.set(sync.rst, 0)
        seen["after"], seen["valid"] = ctx.get(core.datapath.first), ctx.get(core.o.valid)

    sim = Simulator(top)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert seen["before"] == 21 and not seen["valid"]
    assert seen["after"] == (0 if reset else 21)


@pytest.mark.parametrize("seed", [0, 1])
def test_parallel_lanes(seed):
    """ParallelCore: three Toy(3) datapaths side by side (lane l: bits [8l, 8l+8) in, the
    low 9 bits of its result out), one valid chain: in order under stalls, latency 3."""
    rng = random.Random(seed)
    xs = [[rng.randrange(256) for _ in range(3)] for _ in range(120)]
    core = ParallelCore([Toy(3) for _ in range(3)], 9)
    outs, _, _ = run_stream(core, [x[0] | x[1] << 8 | x[2] << 16 for x in xs], seed=seed, stalls=True)
    assert outs == [sum((toy(v, 3) & 0x1FF) << (9 * lane) for lane, v in enumerate(x)) for x in xs]
    assert core.latency == 3 and core.initiation_interval == 1
