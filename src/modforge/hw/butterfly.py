"""The butterfly lane of NTT-style transforms around a pipelined modular multiplier.

`mul` is a modmul datapath (a hw.pipeline.Datapath, built inside the lane's pipeline, its
operands x, s and the run-time fields viewed through its input layout): it computes
mul(x, s) = x*s*F mod q in `mul.depth` stages (F its scale; store twiddles as s/F
for a plain product). Per operation, with gs selecting the kind:
  CT (gs = 0):  o0 = u + mul(v, s),        o1 = u - mul(v, s)       mod q
  GS (gs = 1):  o0 = half(u + v),          o1 = mul(u - v, s)       mod q
A product alone: CT with u = 0 (o0). Inputs u, v, s in [0, q), q odd. One operation per
cycle, the results `depth` = mul.depth + 2 cycles after its inputs (an input stage, the
multiplier, an output stage); the lane has no enable (it never stalls). A lane that runs one
kind only (`kinds`: a forward transform's CT, an inverse's GS) is built without the other's
adders and multiplexers and has no gs port: in its own module, a constant gs from the core
would not reach them where the flow keeps the hierarchy (Yosys's synth_xilinx: 195 of 573
xcup LUTs on a 32-bit unit; synth_ecp5 flattens and folds them either way).

ShiftButterfly: the CT butterfly of Z_M, M = 2^K + 1, whose twiddles are powers of two
(FMLM3): the multiplier is a rotation with negation (hw.fermat.PowerMul); optionally u
scaled by a second one and o1 by a fixed power of two (an inverse's final stage).
"""

from __future__ import annotations

from typing import Any

from amaranth.hdl import Cat, Const, Elaboratable, Module, Mux, Signal, Value, ValueLike, signed
from amaranth.lib import data

from .fermat import (
    PowerMul,
    control_width,
    fermat_fold_difference,
    fermat_sub,
    fixed_shift,
    modulus,
    power_mul_depth,
)
from .modarith import add_mod, half_mod, reduce_once, sub_mod
from .pipeline import Datapath, Stager, build_stages, register

Q_INPUTS = ("", "static", "per-op")
KINDS = ("ct", "gs")


class Butterfly(Elaboratable):
    """Ports (Signals): u, v, s (w bits), gs (with both kinds); q (w bits, when q_input is set) and rt (the
    datapath's run-time modulus fields, `mul.runtime` packed, may be 0 bits); outputs o0, o1.
    q_input: "" (q the constant `q`), "static" (the input q holds still while operations
    are in flight) or "per-op" (q may change with every operation: it rides along the
    pipeline). kinds: the operations it runs, a non-empty subset of KINDS. `lane` only names the
    signals. Its registers hold data only (the core's control says when o0, o1 are meant): no
    reset unless `reset` (reset=all)."""

    def __init__(self, q: int, w: int, mul: Datapath, lane: int = 0, q_input: str = "", reset: bool = False,
                 kinds: tuple[str, ...] = KINDS) -> None:
        if q_input not in Q_INPUTS:
            raise ValueError(f"q_input must be one of {Q_INPUTS}")
        if not kinds or not set(kinds) <= set(KINDS):
            raise ValueError(f"kinds must be a non-empty subset of {KINDS}")
        self.w, self.mul, self.reset = w, mul, reset
        self.kinds = tuple(k for k in KINDS if k in kinds)
        self.depth = mul.depth + 2
        self.u, self.v, self.s = (Signal(w, name=f"{x}{lane}") for x in ("u", "v", "s"))
        self.gs = Signal(name=f"gs{lane}") if len(self.kinds) == 2 else None
        self.o0, self.o1 = (Signal(w, name=f"o{k}_{lane}", reset_less=not reset) for k in (0, 1))
        self.q: ValueLike = Signal(w, name=f"q{lane}") if q_input else q
        self.q_rides = q_input == "per-op"
        self.rt = Signal(sum(mul.runtime.values()), name=f"rt{lane}")

    def _ride(self, m: Module, value: Value, name: str) -> Signal:
        """value registered once (the next stage's copy)."""
        reg = Signal.like(value, name=name, reset_less=not self.reset)
        m.d.sync += reg.eq(value)
        return reg

    def _pick(self, gs: Value | None, gs_value: Value, ct_value: Value) -> Value:
        """The GS or the CT value: by gs with both kinds, else the lane's one."""
        if gs is not None:
            return Mux(gs, gs_value, ct_value)
        return gs_value if self.kinds == ("gs",) else ct_value

    def elaborate(self, platform: Any) -> Module:
        m = Module()
        q, w, free = self.q, self.w, not self.reset
        u, v = self.u, self.v
        # input stage: x = v (CT) or u - v mod q (GS); a = u (CT) or u + v < 2q (GS)
        x, s = Signal(w, reset_less=free), Signal(w, reset_less=free)
        a = Signal(w + ("gs" in self.kinds), reset_less=free)
        rt = Signal.like(self.rt, reset_less=free)
        m.d.sync += [x.eq(self._pick(self.gs, sub_mod(u, v, q, w), v)), s.eq(self.s),
                     a.eq(self._pick(self.gs, u + v, u)), rt.eq(self.rt)]
        gs = None if self.gs is None else self._ride(m, self.gs, "gs")
        if self.q_rides:                                 # q rides along to the output stage
            q = self._ride(m, q, "q_d0")
        # the multiplier: p = x*s*F mod q, in [0, q)
        p = build_stages(self.mul, m, Stager(m, Const(1), self.mul.keep, self.reset),
                         data.View(self.mul.in_layout, Cat(x, s, rt)))
        for k in range(self.mul.depth):                  # a, gs (and q) ride along
            a = self._ride(m, a, f"a_d{k + 1}")
            if gs is not None:
                gs = self._ride(m, gs, f"gs_d{k + 1}")
            if self.q_rides:
                q = self._ride(m, q, f"q_d{k + 1}")
        # output stage: CT sum and difference mod q, or GS half(a mod q) and p
        gs0 = half_mod(reduce_once(a, q, w), q, w)
        m.d.sync += [self.o0.eq(self._pick(gs, gs0, add_mod(a, p, q, w))),
                     self.o1.eq(self._pick(gs, p, sub_mod(a, p, q, w)))]
        return m


def shift_butterfly_depth(sqrt2: bool, scale_sqrt2: bool | None = None, fixed: bool = False,
                          deep: bool = False) -> int:
    """ShiftButterfly's depth (without building one): the products, the sum and difference,
    their folds, the fixed shift of o1 (deep: two stages, its subtraction and fold apart)."""
    products = max(power_mul_depth(sqrt2, deep), 0 if scale_sqrt2 is None else power_mul_depth(scale_sqrt2, deep))
    return products + 2 + fixed * (1 + deep)


class ShiftButterfly(Elaboratable):
    """The shift-only CT butterfly of Z_M, M = 2^K + 1 (FMLM3's transforms, eqs. 7-9):
      o0 = s u + v A^e,   o1 = f (s u - v A^e)   mod M,
    the twiddle a hw.fermat.PowerMul with its control word `ctrl` (hw.fermat.power_control);
    u, v, o0, o1 K+1 bits in [0, M). Options:
      scale_sqrt2  None: s = 1 (u rides on delay registers); else u goes through a second
                   PowerMul (with the sqrt(2) path if True), its control word `scale`
      fixed_shift  None: f = 1; else a constant k: f = 2^k when the input `fixed` is high
                   (hw.fermat.fixed_shift, one stage more), 1 when it is low
      step, offset both control words' amounts are step j or step j + offset: their
                   PowerMuls' (hw.fermat.rotation_step, power_control)
      deep         no stage with two carry chains in series (ECP5): the PowerMuls deep, o0 =
                   s or s - M (s = u + t < 2M), picked by the sign of s - M, the fixed
                   shift's subtraction registered before its fold (a stage more)
    One operation per cycle, the results `depth` cycles after its inputs (the products, the
    sum and difference, their folds mod M, the fixed shift: each registered); no enable."""

    def __init__(self, K: int, sqrt2: bool = False, lane: int = 0, scale_sqrt2: bool | None = None,
                 fixed_shift: int | None = None, step: int = 1, offset: int = 0, deep: bool = False) -> None:
        self.K, self.sqrt2, self.scale_sqrt2, self.fixed_k, self.lane = K, sqrt2, scale_sqrt2, fixed_shift, lane
        self.step, self.offset, self.deep = step, offset, deep
        self.depth = shift_butterfly_depth(sqrt2, scale_sqrt2, fixed_shift is not None, deep)
        self.u, self.v = Signal(K + 1, name=f"u{lane}"), Signal(K + 1, name=f"v{lane}")
        self.ctrl = Signal(control_width(K, sqrt2, step, offset), name=f"ctrl{lane}")
        self.scale = (None if scale_sqrt2 is None else
                      Signal(control_width(K, scale_sqrt2, step, offset), name=f"scale{lane}"))
        self.fixed = Signal(name=f"fixed{lane}")
        self.o0, self.o1 = Signal(K + 1, name=f"o0_{lane}"), Signal(K + 1, name=f"o1_{lane}")

    @staticmethod
    def _delay(m: Module, value: Signal, k: int) -> Signal:
        for _ in range(k):
            value = register(m, value, f"{value.name}_d")
        return value

    def elaborate(self, platform: Any) -> Module:
        m, K = Module(), self.K
        m.submodules.twiddle = tw = PowerMul(K, self.sqrt2, f"tw{self.lane}", self.step, self.offset, self.deep)
        m.d.comb += [tw.a.eq(self.v), tw.ctrl.eq(self.ctrl)]
        products = tw.depth if self.scale_sqrt2 is None else max(tw.depth, power_mul_depth(self.scale_sqrt2, self.deep))
        u = self.u
        if self.scale_sqrt2 is not None:      # self.scale is its control word
            m.submodules.scaler = su = PowerMul(K, self.scale_sqrt2, f"su{self.lane}", self.step, self.offset,
                                                self.deep)
            m.d.comb += [su.a.eq(u), su.ctrl.eq(self.scale)]
            u = self._delay(m, su.o, products - su.depth)
        else:
            u = self._delay(m, u, products)                 # u rides beside the product
        t = self._delay(m, tw.o, products - tw.depth)
        # the sum and difference, then their folds: fermat_add's three carry chains in one
        # cycle were ECP5's critical path
        total = Signal(K + 2, name=f"{self.o0.name}_sum")
        difference = Signal(signed(K + 2), name=f"{self.o1.name}_diff")
        m.d.sync += [total.eq(u + t), difference.eq(u - t)]
        o1 = fermat_fold_difference(difference, K)
        if self.deep:       # s - M beside s, picked by its sign: one carry chain, not two in series
            over = total - modulus(K)
            o0 = Mux(over[-1], total, over)[:K + 1]
        else:
            o0 = fermat_sub(total[:K], total[K:], K)
        if self.fixed_k is None:
            m.d.sync += [self.o0.eq(o0), self.o1.eq(o1)]
            return m
        o0_s, o1_s = Signal(K + 1, name=f"{self.o0.name}_s"), Signal(K + 1, name=f"{self.o1.name}_s")
        m.d.sync += [o0_s.eq(o0), o1_s.eq(o1)]
        fixed = self._delay(m, self.fixed, self.depth - 1 - self.deep)
        between = (lambda d: register(m, d, f"{self.o1.name}_shift")) if self.deep else None
        m.d.sync += [self.o0.eq(self._delay(m, o0_s, self.deep)),
                     self.o1.eq(fixed_shift(o1_s, self.fixed_k, K, fixed, between))]
        return m
