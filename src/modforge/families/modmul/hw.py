"""Fully pipelined Amaranth datapaths of the modular multipliers (PipelinedCore): the
integer product a*b, the reduction steps of `model.py` (same names), the final
correction, one register stage per step. q is a generation-time constant, so every
product with q, q', q_h is a constant product; products are split into DSP-sized partial
products (the `dsp` profile's Gamma_A x Gamma_B tiling, better orientation), registered
in one stage and summed with the step's other addends in the next, as the paper's
multiply-accumulate architectures (Figs. 1-2) do.

Payload: a in the low beta bits, b in the next beta bits; result: beta bits, in [0, q).
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Mux, Value

from ...hw.pipeline import PipelinedCore, Stager
from .model import (barrett_factor, mask, montgomery_factor, plantard_factor,
                    tiling)


def unsigned_as_signed(v: Value) -> Value:
    """v (unsigned) as a non-negative signed value one bit wider."""
    return Cat(v, Const(0, 1)).as_signed()


def partial_products(x: Value, xw: int, y, yw: int, dsp) -> list[tuple[int, Value]]:
    """x * y as [(shift, partial product)]: x (xw bits) and y (a Value or a constant int,
    yw bits) split into the DSP tiling's chunks (better orientation); dsp None: one product.
    Zero constant chunks are dropped (a constant y)."""
    if dsp is None:
        return [(0, x * y)]
    cx, cy = tiling(xw, yw, *dsp)
    out = []
    for i in range(0, xw, cx):
        xi = x[i:min(i + cx, xw)]
        for j in range(0, yw, cy):
            if isinstance(y, int):
                yj = (y >> j) & mask(min(cy, yw - j))
                if yj == 0:
                    continue
                out.append((i + j, xi * yj))
            else:
                out.append((i + j, xi * y[j:min(j + cy, yw)]))
    return out or [(0, Const(0, 1))]


def register_products(stage: Stager, parts, name: str) -> list[tuple[int, Value]]:
    """One stage: a register per partial product (a DSP's output register)."""
    return [(s, stage(p, f"{name}_pp{k}")) for k, (s, p) in enumerate(parts)]


def accumulate(parts) -> Value:
    """The sum of registered partial products at their offsets."""
    acc = None
    for s, p in parts:
        term = p << s if s else p
        acc = term if acc is None else acc + term
    return acc


class ModmulCore(PipelinedCore):
    """Common part: operands, the two product stages x = a*b, the correction helpers."""

    def __init__(self, q: int, beta: int, depth: int, dsp):
        self.q, self.beta, self.dsp = q, beta, dsp
        super().__init__(2 * beta, beta, depth)

    def product(self, stage: Stager, operands: Value) -> Value:
        """Stages 1-2: partial products of a*b, then their sum x (2 beta bits)."""
        bw = self.beta
        a, b = operands[:bw], operands[bw:2 * bw]
        pp = register_products(stage, partial_products(a, bw, b, bw, self.dsp), "ab")    # stage 1: a*b partial products
        stage.next()
        x = stage(accumulate(pp), "x", 2 * bw)                                             # stage 2: x = a*b
        stage.next()
        return x

    def correct_sub(self, stage: Stager, t: Value) -> Value:
        """Last stage: t in [0, 2q) -> t - q if t >= q."""
        out = stage(Mux(t >= self.q, t - self.q, t), "b", self.beta)                      # last stage: b = t mod q
        stage.next()
        return out


class MontgomeryCore(ModmulCore):
    """Alg 1: 7 stages. a*b*2^-beta mod q."""

    def __init__(self, q, beta, dsp):
        super().__init__(q, beta, 7, dsp)

    def datapath(self, m, stage, operands):
        q, bw, dsp = self.q, self.beta, self.dsp
        x = self.product(stage, operands)
        qp = montgomery_factor(q, bw)
        parts = [(s, p) for s, p in partial_products(x[:bw], bw, qp, bw, dsp) if s < bw]
        pp = register_products(stage, parts, "xq")                                         # stage 3: partial products of q' x_l
        x3 = stage(x, "x")
        stage.next()
        t = stage(accumulate(pp)[:bw], "t", bw)                                            # stage 4: t = q' x mod 2^beta
        x4 = stage(x3, "x")
        stage.next()
        pp = register_products(stage, partial_products(t, bw, q, bw, dsp), "tq")          # stage 5: partial products of t q
        x5 = stage(x4, "x")
        stage.next()
        s = stage((x5 + accumulate(pp)) >> bw, "s", bw + 1)                               # stage 6: (x + tq) >> beta, < 2q
        stage.next()
        return self.correct_sub(stage, s)                                                  # stage 7


class BarrettCore(ModmulCore):
    """Alg 4: 7 stages. a*b mod q."""

    def __init__(self, q, beta, dsp):
        super().__init__(q, beta, 7, dsp)

    def datapath(self, m, stage, operands):
        q, bw, dsp = self.q, self.beta, self.dsp
        x = self.product(stage, operands)
        qp = barrett_factor(q, bw)
        pp = register_products(stage, partial_products(x, 2 * bw, qp, qp.bit_length(), dsp), "xq")  # stage 3: x q' partial products
        x3 = stage(x[:bw + 1], "xl")
        stage.next()
        t = stage(accumulate(pp) >> (2 * bw), "t", bw)                                    # stage 4: t = (x q') >> 2beta < q
        x4 = stage(x3, "xl")
        stage.next()
        parts = [(s, p) for s, p in partial_products(t, bw, q, bw, dsp) if s <= bw]
        pp = register_products(stage, parts, "tq")                                         # stage 5: low partial products of t q
        x5 = stage(x4, "xl")
        stage.next()
        r = stage((x5 - accumulate(pp))[:bw + 1], "r", bw + 1)                           # stage 6: r = x - tq mod 2^(beta+1), < 2q
        stage.next()
        return self.correct_sub(stage, r)                                                  # stage 7


class PlantardCore(ModmulCore):
    """Alg 5: 7 stages. -a*b*2^(-2 beta) mod q."""

    def __init__(self, q, beta, dsp):
        super().__init__(q, beta, 7, dsp)

    def datapath(self, m, stage, operands):
        q, bw, dsp = self.q, self.beta, self.dsp
        x = self.product(stage, operands)
        qp = plantard_factor(q, bw)
        parts = [(s, p) for s, p in partial_products(x, 2 * bw, qp, 2 * bw, dsp) if s < 2 * bw]
        pp = register_products(stage, parts, "xq")                                         # stage 3: partial products of x q' (low 2beta)
        stage.next()
        c1 = stage(accumulate(pp)[bw:2 * bw], "c1", bw)                                  # stage 4: c' = (x q' mod 2^2beta) >> beta
        stage.next()
        pp = register_products(stage, partial_products(c1 + 1, bw + 1, q, bw, dsp), "cq")  # stage 5: partial products of (c'+1) q
        stage.next()
        c = stage(accumulate(pp) >> bw, "c", bw + 1)                                      # stage 6: c = ((c'+1) q) >> beta, <= q
        stage.next()
        out = stage(Mux(c == q, 0, c), "b", bw)                                            # stage 7: c = q -> 0
        stage.next()
        return out


def _wlm_bound(bound: int, w: int, qh: int, shift: int) -> int:
    """Upper bound of t after a WLM step from t <= bound."""
    return (bound >> w) + ((qh * mask(w)) << shift) + 1


class WlmCore(ModmulCore):
    """Alg 2 (corrected) and Alg 8 (corrected, `words` = (omega0, omega1)): 2 + 2*steps + 1
    stages. Each step: t' = -t_l mod 2^w, c = t'[w-1] | t[w-1], t <- t_h + (q_h t' << delta) + c."""

    def __init__(self, q, beta, omega, words, dsp):
        self.omega, self.words = omega, list(words)
        super().__init__(q, beta, 2 + 2 * len(self.words) + 1, dsp)

    def datapath(self, m, stage, operands):
        q, dsp, om = self.q, self.dsp, self.omega
        qh = q >> om
        t = self.product(stage, operands)
        bound = (q - 1) ** 2
        for i, w in enumerate(self.words):
            delta = om - w
            tl, th = t[:w], t[w:]
            tp = (-tl)[:w]
            c = tp[w - 1] | tl[w - 1]
            pp = register_products(stage, partial_products(tp, w, qh, qh.bit_length(), dsp), f"q{i}")  # step i, stage 1: partial products of q_h t'
            th_r, c_r = stage(th, f"th{i}"), stage(c, f"c{i}")
            stage.next()
            bound = _wlm_bound(bound, w, qh, delta)
            t = stage(th_r + (accumulate(pp) << delta) + c_r, f"t{i}", bound.bit_length())  # step i, stage 2: t = t_h + (q_h t' << delta) + c
            stage.next()
        return self.correct_sub(stage, t)                                                  # last stage: t in [0, 2q)


class K2redCore(ModmulCore):
    """Alg 3 (7 stages) and, with `shifts`, Alg 7 (rho B: 5 stages, rho A: 7 stages).
    a*b*2^(-2 omega) mod q."""

    def __init__(self, q, beta, omega, dsp, shifts=None, rho="B"):
        self.omega, self.shifts, self.rho = omega, shifts, rho
        depth = 7 if shifts is None or rho == "A" else 5
        super().__init__(q, beta, depth, dsp)

    def qh_times(self, stage: Stager, v: Value, vw: int, sub: Value, name: str) -> Value:
        """q_h v - sub, signed: two stages (products, sum) for Alg 3 or rho A, one for rho B."""
        qh = self.q >> self.omega
        if self.shifts is None:
            pp = register_products(stage, partial_products(v, vw, qh, qh.bit_length(), self.dsp), name)  # q_h v partial products
            sub = stage(sub, f"{name}_sub")
            stage.next()
            return stage(unsigned_as_signed(accumulate(pp)) - sub, name, self.width_t(name))    # q_h v - sub
        l1, l2, l3 = self.shifts
        pos = [(self.beta - 1 - self.omega, v), (l1, v)] + ([(l3, v)] if l3 is not None else [])
        neg = [(l2, v)]
        if self.rho == "A":                                                                 # rho A: shifted terms registered
            pos = [(0, stage(t << s, f"{name}_p{k}")) for k, (s, t) in enumerate(pos)]
            neg = [(0, stage(t << s, f"{name}_n{k}")) for k, (s, t) in enumerate(neg)]
            sub = stage(sub, f"{name}_sub")
            stage.next()
        total = unsigned_as_signed(accumulate(pos)) - accumulate(neg) - sub
        return stage(total, name, self.width_t(name))                                       # shift-add sum

    def width_t(self, name: str):
        from amaranth.hdl import signed
        return signed(2 * self.beta - self.omega + 3) if name == "t" else signed(self.beta + 3)

    def datapath(self, m, stage, operands):
        q, bw, om = self.q, self.beta, self.omega
        x = self.product(stage, operands)
        t = self.qh_times(stage, x[:om], om, x[om:], "t")                                   # t = q_h a_l - a_h
        stage.next()
        t2 = self.qh_times(stage, t[:om], om, t >> om, "t2")                               # t' = q_h t_l - t_h
        stage.next()
        out = stage(Mux(t2 < 0, t2 + q, Mux(t2 >= q, t2 - q, t2)), "b", bw)              # last stage: one correction
        stage.next()
        return out


class MontgomeryShiftCore(ModmulCore):
    """Alg 6 (line 1 corrected, q' = q - 2): rho B 6 stages, rho A 8 stages. a*b*2^-beta mod q."""

    def __init__(self, q, beta, omega, shifts, rho="B"):
        self.omega, self.shifts, self.rho = omega, shifts, rho
        super().__init__(q, beta, 8 if rho == "A" else 6, None)

    def terms(self, v: Value):
        """v * q - v = v * (q - 1) as (positive, negative) shifted terms: (v<<(beta-1)) +
        ((v<<l1) - (v<<l2) + (v<<l3)) << omega."""
        l1, l2, l3 = self.shifts
        bw, om = self.beta, self.omega
        pos = [(bw - 1, v), (l1 + om, v)] + ([(l3 + om, v)] if l3 is not None else [])
        return pos, [(l2 + om, v)]

    def shifted(self, stage: Stager, v: Value, name: str):
        pos, neg = self.terms(v)
        if self.rho == "A":                                                                 # rho A: shifted terms registered
            pos = [(0, stage(t << s, f"{name}_p{k}")) for k, (s, t) in enumerate(pos)]
            neg = [(0, stage(t << s, f"{name}_n{k}")) for k, (s, t) in enumerate(neg)]
        return pos, neg

    def datapath(self, m, stage, operands):
        bw = self.beta
        x = self.product(stage, operands)
        al, ah = x[:bw], x[bw:]
        pos, neg = self.shifted(stage, al, "t")
        if self.rho == "A":                                                                 # rho A stage: shifted terms of a_l
            al, ah = stage(al, "al"), stage(ah, "ah")
            stage.next()
        t = stage((accumulate(pos) - accumulate(neg) - al)[:bw], "t", bw)                 # t = (q - 2) a_l mod 2^beta
        ah, c = stage(ah, "ah"), stage(al[bw - 1], "al_top")
        stage.next()
        pos, neg = self.shifted(stage, t, "tq")
        if self.rho == "A":                                                                 # rho A stage: shifted terms of t
            t, ah, c = stage(t, "t"), stage(ah, "ah"), stage(c, "al_top")
            stage.next()
        tp = stage(accumulate(pos) - accumulate(neg) + t, "tp", 2 * bw)                  # t' = t q
        ah, c = stage(ah, "ah"), stage(c, "al_top")
        stage.next()
        b1 = stage(ah + tp[bw:] + (tp[bw - 1] | c), "b1", bw + 1)                         # b' = a_h + t'_h + c, < 2q
        stage.next()
        return self.correct_sub(stage, b1)                                                 # last stage: b
