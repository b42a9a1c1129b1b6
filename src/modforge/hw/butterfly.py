"""The butterfly lane of NTT-style transforms around a pipelined modular multiplier.

`core` is a modmul core (hw.pipeline.PipelinedCore): only its `datapath` is used, which
computes mul(x, s) = x*s*F mod q in `core.depth` stages (F its scale; store twiddles as s/F
for a plain product). Per operation, with gs selecting the kind:
  CT (gs = 0):  o0 = u + mul(v, s),        o1 = u - mul(v, s)       mod q
  GS (gs = 1):  o0 = half(u + v),          o1 = mul(u - v, s)       mod q
A product alone: CT with u = 0 (o0). Inputs u, v, s in [0, q), q odd. One operation per
cycle, the results `depth` = core.depth + 2 cycles after its inputs (an input stage, the
multiplier, an output stage); the lane has no enable (it never stalls).

ShiftButterfly: the CT butterfly of Z_M, M = 2^K + 1, whose twiddles are powers of two
(FMLM3): the multiplier is a rotation with negation (hw.fermat.PowerMul).
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Elaboratable, Module, Mux, Signal

from .fermat import PowerMul, fermat_add, fermat_sub
from .modarith import add_mod, half_mod, reduce_once, sub_mod
from .pipeline import Stager

Q_INPUTS = ("", "static", "per-op")


class Butterfly(Elaboratable):
    """Ports (Signals): u, v, s (w bits), gs; q (w bits, when q_input is set) and rt (the
    core's run-time modulus fields, `core.runtime` packed, may be 0 bits); outputs o0, o1.
    q_input: "" (q the constant `q`), "static" (the input q holds still while operations
    are in flight) or "per-op" (q may change with every operation: it rides along the
    pipeline). `lane` only names the signals."""

    def __init__(self, q: int, w: int, core, lane: int = 0, q_input: str = ""):
        if q_input not in Q_INPUTS:
            raise ValueError(f"q_input must be one of {Q_INPUTS}")
        self.w, self.core = w, core
        core._MustUse__silence = True                    # only its datapath is used
        self.depth = core.depth + 2
        self.u, self.v, self.s = (Signal(w, name=f"{x}{lane}") for x in ("u", "v", "s"))
        self.gs = Signal(name=f"gs{lane}")
        self.o0, self.o1 = Signal(w, name=f"o0_{lane}"), Signal(w, name=f"o1_{lane}")
        self.q = Signal(w, name=f"q{lane}") if q_input else q
        self.q_rides = q_input == "per-op"
        self.rt = Signal(sum(core.runtime.values()), name=f"rt{lane}")

    def _ride(self, m, value, name):
        """value registered once (the next stage's copy)."""
        reg = Signal.like(value, name=name)
        m.d.sync += reg.eq(value)
        return reg

    def elaborate(self, platform):
        m = Module()
        q, w = self.q, self.w
        u, v = self.u, self.v
        # input stage: x = v (CT) or u - v mod q (GS); a = u (CT) or u + v < 2q (GS)
        x, s, a, gs, rt = Signal(w), Signal(w), Signal(w + 1), Signal(), Signal.like(self.rt)
        m.d.sync += [
            x.eq(Mux(self.gs, sub_mod(u, v, q, w), v)),
            s.eq(self.s),
            a.eq(Mux(self.gs, u + v, u)),
            gs.eq(self.gs),
            rt.eq(self.rt),
        ]
        if self.q_rides:                                 # q rides along to the output stage
            q = self._ride(m, q, "q_d0")
        # the multiplier: p = x*s*F mod q, in [0, q)
        stager = Stager(m, Const(1), self.core.keep)
        p = self.core.datapath(m, stager, Cat(x, s, rt))
        assert stager.count == self.core.stages
        for k in range(self.core.depth):                 # a, gs (and q) ride along
            a, gs = self._ride(m, a, f"a_d{k + 1}"), self._ride(m, gs, f"gs_d{k + 1}")
            if self.q_rides:
                q = self._ride(m, q, f"q_d{k + 1}")
        # output stage: CT sum and difference mod q, or GS half(a mod q) and p
        ct0, ct1 = add_mod(a, p, q, w), sub_mod(a, p, q, w)
        gs0 = half_mod(reduce_once(a, q, w), q, w)
        m.d.sync += [self.o0.eq(Mux(gs, gs0, ct0)), self.o1.eq(Mux(gs, p, ct1))]
        return m


class ShiftButterfly(Elaboratable):
    """The shift-only CT butterfly of Z_M, M = 2^K + 1 (FMLM3's transforms, eqs. 7-9):
    o0 = u + v*A^e, o1 = u - v*A^e mod M, the twiddle a hw.fermat.PowerMul with its
    control word `ctrl` (hw.fermat.power_control); u, v, o0, o1 K+1 bits in [0, M). One
    operation per cycle, the results `depth` = PowerMul's depth + 1 cycles after its inputs
    (the product, then the sum and difference registered); no enable."""

    def __init__(self, K: int, sqrt2: bool = False, lane: int = 0):
        self.K = K
        self.twiddle = PowerMul(K, sqrt2, name=f"tw{lane}")
        self.twiddle._MustUse__silence = True           # elaborated as a submodule of this one
        self.depth = self.twiddle.depth + 1
        self.u, self.v = Signal(K + 1, name=f"u{lane}"), Signal(K + 1, name=f"v{lane}")
        self.ctrl = Signal.like(self.twiddle.ctrl, name=f"ctrl{lane}")
        self.o0, self.o1 = Signal(K + 1, name=f"o0_{lane}"), Signal(K + 1, name=f"o1_{lane}")

    def elaborate(self, platform):
        m = Module()
        m.submodules.twiddle = tw = self.twiddle
        m.d.comb += [tw.a.eq(self.v), tw.ctrl.eq(self.ctrl)]
        u = self.u
        for k in range(tw.depth):                        # u rides beside the product
            reg = Signal.like(u, name=f"{u.name}_d{k + 1}")
            m.d.sync += reg.eq(u)
            u = reg
        m.d.sync += [self.o0.eq(fermat_add(u, tw.o, self.K)), self.o1.eq(fermat_sub(u, tw.o, self.K))]
        return m
