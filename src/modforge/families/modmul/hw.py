"""Fully pipelined Amaranth datapaths of the modular multipliers, plain builders
(hw.pipeline.Datapath) that hw.pipeline.PipelinedCore wraps (and ntt's butterflies and
polyring's output lanes build in their own pipelines): the integer product a*b, the
reduction steps of `model.py` (same names), the final correction, one register stage per
step. q is a generation-time constant, so every
product with q, q', q_h is a constant product; products are split into DSP-sized partial
products (the `dsp` profile's Gamma_A x Gamma_B tiling, better orientation), registered
in one stage and summed with the step's other addends in the next, as the paper's
multiply-accumulate architectures (Figs. 1-2) do.

Payload: the plan's input layout, read by name: a and b (beta bits each); result: beta
bits, in [0, q). With reduce_only the payload is x (2 beta bits, x <= (q-1)^2) and the two
product stages are left out: the reduction alone, as the paper's Tables 3 and 4 measure it.
Run-time moduli (`runtime`): q_h (WLM, WLM-Mixed, K2RED; q = q_h 2^omega + 1) or the shift
amounts l1, l2 [, l3] (K2RED-Shift, Montgomery-Shift; barrel shifters) are fields after the
operands and travel down the pipeline with them (a register per stage), so every product
may have its own modulus.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Mux, Shape, Signal, Value, signed
from amaranth.lib import data

from ...hw.dsp import accumulate, partial_products, register_products, unsigned_as_signed
from ...hw.layout import Layouts
from ...hw.pipeline import Datapath, Operands, Stager, build_stages
from .model import barrett_factor, mask, montgomery_factor, plantard_factor
from .plan import ModmulPlan

#: shifted terms of a shift-add sum: (shift, value)
Terms = list[tuple[int, Value]]


class ModmulDatapath(Datapath):
    """Common part: operands, the two product stages x = a*b, the correction helpers. The
    plan gives q's shape, the reduction's words and rho, the DSP profile, and the stages
    (with the product stages; reduce_only leaves them out; `build_stages` checks a build
    closes exactly those). `rt` holds the run-time modulus fields' registers of the stage
    being built (a build's state, reset by start_runtime). layouts: the payloads' (the plan's;
    the fields a, b or x, then the run-time ones, in, c out)."""

    def __init__(self, plan: ModmulPlan, reduce_only: bool, layouts: Layouts):
        modulus, reduction = plan.modulus, plan.reduction
        self.q, self.beta, self.omega, self.shifts = modulus.q, modulus.beta, modulus.omega, modulus.shifts
        self.words, self.rho = list(reduction.words), reduction.rho
        self.dsp, self.reduce_only = plan.gamma, reduce_only
        self.runtime = dict(modulus.runtime)  # run-time modulus fields after the operands: name -> bits
        self.rt: dict[str, Value] = {}        # their registers at the stage being built
        depth = reduction.stages
        super().__init__(*layouts, depth - 2 if reduce_only else depth)

    def start_runtime(self, operands: Operands) -> None:
        self.rt = {name: operands[name] for name in self.runtime}

    def carry_runtime(self, stage: Stager) -> None:
        """Run-time modulus fields move one stage with their operands (call once per stage,
        after the stage's uses of them)."""
        for name in self.rt:
            self.rt[name] = stage(self.rt[name], name)

    @property
    def qh(self) -> Value | int:
        return self.rt.get("qh", self.q >> self.omega)

    def qh_max(self) -> int:
        return (1 << self.runtime["qh"]) - 1 if "qh" in self.runtime else self.q >> self.omega

    def shift_amounts(self) -> tuple[Value | int, Value | int, Value | int | None]:
        """(l1, l2, l3): constants, or the run-time fields (l3 None for Proth-2l)."""
        if "l1" not in self.rt:
            assert self.shifts is not None
            return self.shifts
        return self.rt["l1"], self.rt["l2"], self.rt.get("l3")

    def modulus(self) -> Value | int:
        """q of the stage being built: the constant, q_h 2^omega + 1, or
        2^(beta-1) + (2^l1 - 2^l2 [+ 2^l3]) 2^omega + 1."""
        if "qh" in self.rt:
            return Cat(Const(1, self.omega), self.rt["qh"])
        if "l1" in self.rt:
            l1, l2, l3 = self.shift_amounts()
            one = Const(1, 1)
            qh = (one << l1) - (one << l2) + ((one << l3) if l3 is not None else 0)
            return (Const((1 << (self.beta - 1)) + 1, self.beta) + (qh << self.omega))[:self.beta]
        return self.q

    def product(self, stage: Stager, operands: Operands) -> Value:
        """Stages 1-2: partial products of a*b, then their sum x (2 beta bits); reduce_only:
        x is the payload's."""
        bw = self.beta
        if self.reduce_only:
            return operands.x
        a, b = operands.a, operands.b
        pp = register_products(stage, partial_products(a, bw, b, bw, self.dsp), "ab")    # stage 1: a*b partial products
        self.carry_runtime(stage)
        stage.next()
        x = stage(accumulate(pp), "x", 2 * bw)                                             # stage 2: x = a*b
        self.carry_runtime(stage)
        stage.next()
        return x

    def correct_sub(self, stage: Stager, t: Value) -> Value:
        """Last stage: t in [0, 2q) -> t - q if t >= q."""
        q = self.modulus()
        out = stage(Mux(t >= q, t - q, t), "b", self.beta)                                # last stage: b = t mod q
        stage.next()
        return out


class Plain(Datapath):
    """plain=1: a*b mod q from a datapath of congruence a*b*F: its result r, then r * F^-2
    through the full multiplier (r F^-2 F = a*b). Stages: the two datapaths'."""

    def __init__(self, first: ModmulDatapath, full: ModmulDatapath, constant: int):
        self.first, self.full, self.constant = first, full, constant
        self.runtime = first.runtime
        super().__init__(first.in_layout, full.out_layout, first.stages + full.stages)

    def build(self, m: Module, stage: Stager, operands: Operands) -> Value:
        r = build_stages(self.first, m, stage, operands)
        factors = data.View(self.full.in_layout, Cat(r, Const(self.constant, self.full.beta)))     # a = r, b = F^-2
        return build_stages(self.full, m, stage, factors)


class Montgomery(ModmulDatapath):
    """Alg 1: 7 stages. a*b*2^-beta mod q."""

    def build(self, m: Module, stage: Stager, operands: Operands) -> Value:
        q, bw, dsp = self.q, self.beta, self.dsp
        x = self.product(stage, operands)
        qp = montgomery_factor(q, bw)
        parts = [(s, p) for s, p in partial_products(x[:bw], bw, qp, bw, dsp) if s < bw]
        pp = register_products(stage, parts, "xq")                                # stage 3: partial products of q' x_l
        x3 = stage(x, "x")
        stage.next()
        t = stage(accumulate(pp)[:bw], "t", bw)                                   # stage 4: t = q' x mod 2^beta
        x4 = stage(x3, "x")
        stage.next()
        pp = register_products(stage, partial_products(t, bw, q, bw, dsp), "tq")  # stage 5: partial products of t q
        x5 = stage(x4, "x")
        stage.next()
        s = stage((x5 + accumulate(pp)) >> bw, "s", bw + 1)                       # stage 6: (x + tq) >> beta, < 2q
        stage.next()
        return self.correct_sub(stage, s)                                         # stage 7


class Barrett(ModmulDatapath):
    """Alg 4: 7 stages. a*b mod q."""

    def build(self, m: Module, stage: Stager, operands: Operands) -> Value:
        q, bw, dsp = self.q, self.beta, self.dsp
        x = self.product(stage, operands)
        qp = barrett_factor(q, bw)
        # stage 3: x q' partial products
        pp = register_products(stage, partial_products(x, 2 * bw, qp, qp.bit_length(), dsp), "xq")
        x3 = stage(x[:bw + 1], "xl")
        stage.next()
        t = stage(accumulate(pp) >> (2 * bw), "t", bw)          # stage 4: t = (x q') >> 2beta < q
        x4 = stage(x3, "xl")
        stage.next()
        parts = [(s, p) for s, p in partial_products(t, bw, q, bw, dsp) if s <= bw]
        pp = register_products(stage, parts, "tq")              # stage 5: low partial products of t q
        x5 = stage(x4, "xl")
        stage.next()
        r = stage((x5 - accumulate(pp))[:bw + 1], "r", bw + 1)  # stage 6: r = x - tq mod 2^(beta+1), < 2q
        stage.next()
        return self.correct_sub(stage, r)                       # stage 7


class Plantard(ModmulDatapath):
    """Alg 5: 7 stages. -a*b*2^(-2 beta) mod q."""

    def build(self, m: Module, stage: Stager, operands: Operands) -> Value:
        q, bw, dsp = self.q, self.beta, self.dsp
        x = self.product(stage, operands)
        qp = plantard_factor(q, bw)
        parts = [(s, p) for s, p in partial_products(x, 2 * bw, qp, 2 * bw, dsp) if s < 2 * bw]
        pp = register_products(stage, parts, "xq")       # stage 3: partial products of x q' (low 2beta)
        stage.next()
        c1 = stage(accumulate(pp)[bw:2 * bw], "c1", bw)  # stage 4: c' = (x q' mod 2^2beta) >> beta
        stage.next()
        # stage 5: partial products of (c'+1) q
        pp = register_products(stage, partial_products(c1 + 1, bw + 1, q, bw, dsp), "cq")
        stage.next()
        c = stage(accumulate(pp) >> bw, "c", bw + 1)     # stage 6: c = ((c'+1) q) >> beta, <= q
        stage.next()
        out = stage(Mux(c == q, 0, c), "b", bw)          # stage 7: c = q -> 0
        stage.next()
        return out


def _wlm_bound(bound: int, w: int, qh: int, shift: int) -> int:
    """Upper bound of t after a WLM step from t <= bound."""
    return (bound >> w) + ((qh * mask(w)) << shift) + 1


class Wlm(ModmulDatapath):
    """Alg 2 (corrected) and Alg 8 (corrected, `words` = (omega0, omega1)): 2 + 2*steps + 1
    stages. Each step: t' = -t_l mod 2^w, c = t'[w-1] | t[w-1], t <- t_h + (q_h t' << delta) + c."""

    def build(self, m: Module, stage: Stager, operands: Operands) -> Value:
        dsp, om = self.dsp, self.omega
        self.start_runtime(operands)
        qh_max = self.qh_max()
        t = self.product(stage, operands)
        bound = (qh_max << om) ** 2        # (q - 1)^2
        for i, w in enumerate(self.words):
            delta = om - w
            tl, th = t[:w], t[w:]
            tp = Signal(w, name=f"tp{i}")        # one negation for both uses (no half-used copy)
            m.d.comb += tp.eq(-tl)
            c = tp[w - 1] | tl[w - 1]
            # step i, stage 1: partial products of q_h t'
            pp = register_products(stage, partial_products(tp, w, self.qh, qh_max.bit_length(), dsp), f"q{i}")
            th_r, c_r = stage(th, f"th{i}"), stage(c, f"c{i}")
            self.carry_runtime(stage)
            stage.next()
            bound = _wlm_bound(bound, w, qh_max, delta)
            # step i, stage 2: t = t_h + (q_h t' << delta) + c
            t = stage(th_r + (accumulate(pp) << delta) + c_r, f"t{i}", bound.bit_length())
            self.carry_runtime(stage)
            stage.next()
        return self.correct_sub(stage, t)  # last stage: t in [0, 2q)


class K2red(ModmulDatapath):
    """Alg 3 (7 stages) and, with `shifts`, Alg 7 (rho B: 5 stages, rho A: 7 stages).
    a*b*2^(-2 omega) mod q."""

    def qh_times(self, stage: Stager, v: Value, vw: int, sub: Value, name: str) -> Value:
        """q_h v - sub, signed: two stages (products, sum) for Alg 3 or rho A, one for rho B."""
        if self.shifts is None:
            parts = partial_products(v, vw, self.qh, self.qh_max().bit_length(), self.dsp)
            pp = register_products(stage, parts, name)                                        # q_h v partial products
            sub = stage(sub, f"{name}_sub")
            self.carry_runtime(stage)
            stage.next()
            return stage(unsigned_as_signed(accumulate(pp)) - sub, name, self.width_t(name))  # q_h v - sub
        l1, l2, l3 = self.shift_amounts()
        if isinstance(l1, int):
            pos = [(self.beta - 1 - self.omega, v), (l1, v)] + ([(l3, v)] if l3 is not None else [])
            neg = [(l2, v)]
        else:  # run-time l_i: barrel shifts
            pos = [(self.beta - 1 - self.omega, v), (0, v << l1)] + ([(0, v << l3)] if l3 is not None else [])
            neg = [(0, v << l2)]
        if self.rho == "A":  # rho A: shifted terms registered
            pos = [(0, stage(t << s, f"{name}_p{k}")) for k, (s, t) in enumerate(pos)]
            neg = [(0, stage(t << s, f"{name}_n{k}")) for k, (s, t) in enumerate(neg)]
            sub = stage(sub, f"{name}_sub")
            self.carry_runtime(stage)
            stage.next()
        total = unsigned_as_signed(accumulate(pos)) - accumulate(neg) - sub
        return stage(total, name, self.width_t(name))                                         # shift-add sum

    def width_t(self, name: str) -> Shape:
        return signed(2 * self.beta - self.omega + 3) if name == "t" else signed(self.beta + 3)

    def build(self, m: Module, stage: Stager, operands: Operands) -> Value:
        bw, om = self.beta, self.omega
        self.start_runtime(operands)
        x = self.product(stage, operands)
        t = self.qh_times(stage, x[:om], om, x[om:], "t")                                   # t = q_h a_l - a_h
        self.carry_runtime(stage)
        stage.next()
        t2 = self.qh_times(stage, t[:om], om, t >> om, "t2")                               # t' = q_h t_l - t_h
        self.carry_runtime(stage)
        stage.next()
        q = self.modulus()
        out = stage(Mux(t2 < 0, t2 + q, Mux(t2 >= q, t2 - q, t2)), "b", bw)              # last stage: one correction
        stage.next()
        return out


class MontgomeryShift(ModmulDatapath):
    """Alg 6 (line 1 corrected, q' = q - 2): rho B 6 stages, rho A 8 stages. a*b*2^-beta mod q."""

    def terms(self, v: Value) -> tuple[Terms, Terms]:
        """v * q - v = v * (q - 1) as (positive, negative) shifted terms: (v<<(beta-1)) +
        ((v<<l1) - (v<<l2) + (v<<l3)) << omega (run-time l_i: barrel shifts, then << omega)."""
        l1, l2, l3 = self.shift_amounts()
        bw, om = self.beta, self.omega
        if isinstance(l1, int):
            pos = [(bw - 1, v), (l1 + om, v)] + ([(l3 + om, v)] if l3 is not None else [])
            return pos, [(l2 + om, v)]
        pos = [(bw - 1, v), (om, v << l1)] + ([(om, v << l3)] if l3 is not None else [])
        return pos, [(om, v << l2)]

    def shifted(self, stage: Stager, v: Value, name: str) -> tuple[Terms, Terms]:
        pos, neg = self.terms(v)
        if self.rho == "A":  # rho A: shifted terms registered
            pos = [(0, stage(t << s, f"{name}_p{k}")) for k, (s, t) in enumerate(pos)]
            neg = [(0, stage(t << s, f"{name}_n{k}")) for k, (s, t) in enumerate(neg)]
        return pos, neg

    def build(self, m: Module, stage: Stager, operands: Operands) -> Value:
        bw = self.beta
        self.start_runtime(operands)
        x = self.product(stage, operands)
        al, ah = x[:bw], x[bw:]
        pos, neg = self.shifted(stage, al, "t")
        if self.rho == "A":                                                # rho A stage: shifted terms of a_l
            al, ah = stage(al, "al"), stage(ah, "ah")
            self.carry_runtime(stage)
            stage.next()
        t = stage((accumulate(pos) - accumulate(neg) - al)[:bw], "t", bw)  # t = (q - 2) a_l mod 2^beta
        ah, c = stage(ah, "ah"), stage(al[bw - 1], "al_top")
        self.carry_runtime(stage)
        stage.next()
        pos, neg = self.shifted(stage, t, "tq")
        if self.rho == "A":                                                # rho A stage: shifted terms of t
            t, ah, c = stage(t, "t"), stage(ah, "ah"), stage(c, "al_top")
            self.carry_runtime(stage)
            stage.next()
        tp = stage(accumulate(pos) - accumulate(neg) + t, "tp", 2 * bw)    # t' = t q
        ah, c = stage(ah, "ah"), stage(c, "al_top")
        self.carry_runtime(stage)
        stage.next()
        b1 = stage(ah + tp[bw:] + (tp[bw - 1] | c), "b1", bw + 1)          # b' = a_h + t'_h + c, < 2q
        self.carry_runtime(stage)
        stage.next()
        return self.correct_sub(stage, b1)                                 # last stage: b
