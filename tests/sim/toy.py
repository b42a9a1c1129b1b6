"""A toy iterative multiplier (shift-and-add integer product) to test the testbench
itself: a good design must pass, and a wrong one must fail in the way it is wrong."""

import dataclasses
import random

from amaranth.hdl import Mux, Signal

from modforge.hw import iterative, pipeline
from modforge.hw.iterative import IterativeCore
from modforge.hw.pipeline import PipelinedCore
from modforge.registry import Algorithm, Computes, Operand, Timing, param


@dataclasses.dataclass(frozen=True)
class ToyParams:
    w: int = param(8, help="operand width")
    bug: str = param("none", help="none | value | latency")


class ToyDatapath(iterative.Datapath):
    def __init__(self, w, bug):
        self.w, self.bug = w, bug
        super().__init__(2 * w, 2 * w, w)

    def build(self, m, load, step, index, operands):
        w = self.w
        a, b, acc = Signal(w), Signal(2 * w), Signal(2 * w)
        with m.If(load):
            m.d.sync += [a.eq(operands[:w]), b.eq(operands[w:]), acc.eq(0)]
        with m.Elif(step):
            # one bit of a per step, LSB first
            m.d.sync += [a.eq(a >> 1), b.eq(b << 1), acc.eq(acc + Mux(a[0], b, 0))]
        result = acc
        if self.bug == "value":
            result = acc ^ (acc == 6)  # wrong only for one product
        return result


class ToyCore(IterativeCore):
    def __init__(self, w, bug):
        super().__init__(ToyDatapath(w, bug))
        if bug == "latency":
            self.latency -= 1  # claims a latency the hardware does not have


class Toy(Algorithm):
    name = "toy-mul"
    family = "toy"
    title = "toy shift-add integer multiplier"
    paper = "none"
    Params = ToyParams

    def operands(self, p):
        return [Operand("a", p.w), Operand("b", p.w)]

    def result_width(self, p):
        return 2 * p.w

    def model(self, p, a, b):
        return a * b

    def congruence(self, p):
        return "C = A*B"

    def random_operands(self, p, rng: random.Random):
        return (rng.getrandbits(p.w), rng.getrandbits(p.w))

    def cases(self, p):
        return [(0, 0), (2, 3), ((1 << p.w) - 1, (1 << p.w) - 1)]

    def derive(self, p):
        return Timing.iterative(p.w)

    def build(self, p):
        return ToyCore(p.w, p.bug)

    def computes(self, p):
        return Computes("Z_q", 1 << (2 * p.w), is_field=False, defined_by=("w",))

    def tag(self, p):
        return f"w{p.w}"

    def module_name(self, p):
        return f"mf_toy_w{p.w}_{p.bug}"


@dataclasses.dataclass(frozen=True)
class ToyFrameParams:
    beats: int = param(4, help="beats per frame")
    bug: str = param("none", help="none | ii (claims one cycle more between frames)")


class ToyFrameDatapath(pipeline.Datapath):
    """Two stages, one beat per cycle: each beat comes out plus one."""

    def __init__(self):
        super().__init__(8, 8, 2)

    def build(self, m, stage, operands):
        x = stage(operands + 1, "x", 8)
        stage.next()
        y = stage(x, "y")
        stage.next()
        return y


class ToyFrame(Algorithm):
    """A frame of `beats` bytes streams through a pipeline: the frame logic of the testbench."""
    frames = True
    name = "toy-frame"
    family = "toy"
    title = "toy framed stream: every byte plus one"
    paper = "none"
    Params = ToyFrameParams

    def operands(self, p):
        return [Operand("x", 8)]

    def result_width(self, p):
        return 8

    def in_beats(self, p, ops):
        return [(x,) for x in ops[0]]

    def out_beats(self, p, result):
        return list(result)

    def model(self, p, frame):
        return [(x + 1) % 256 for x in frame]

    def congruence(self, p):
        return "C_i = X_i + 1 mod 256"

    def random_operands(self, p, rng: random.Random):
        return ([rng.getrandbits(8) for _ in range(p.beats)],)

    def derive(self, p):
        return Timing(cycles=2, latency=3, initiation_interval=3, frame_beats=p.beats)

    def build(self, p):
        core = PipelinedCore(ToyFrameDatapath())
        core.initiation_interval = p.beats + (p.bug == "ii")
        return core

    def computes(self, p):
        return Computes("Z_q", 256, is_field=False)

    def tag(self, p):
        return f"b{p.beats}"

    def module_name(self, p):
        return f"mf_toyframe_b{p.beats}_{p.bug}"
