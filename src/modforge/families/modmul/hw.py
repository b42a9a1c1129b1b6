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

from collections.abc import Callable

from amaranth.hdl import Cat, Const, Module, Mux, Shape, Signal, Value, signed, unsigned
from amaranth.lib import data

from ...hw.dsp import accumulate, partial_products, register_products, unsigned_as_signed
from ...hw.layout import Layouts
from ...hw.modarith import reduce_once, reduce_once_split, reduce_signed
from ...hw.pipeline import Datapath, Operands, Stager, build_stages
from .model import barrett_factor, mask, montgomery_factor, plantard_factor
from .plan import ModmulPlan


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
        self.dsp, self.carry_luts, self.reduce_only = plan.gamma, plan.carry_luts, reduce_only
        self.runtime = dict(modulus.runtime)  # run-time modulus fields after the operands: name -> bits
        self.rt: dict[str, Value] = {}        # their registers at the stage being built
        depth = reduction.stages
        super().__init__(*layouts, depth - 2 if reduce_only else depth)

    def start_runtime(self, operands: Operands) -> None:
        self.rt = {name: operands[name] for name in self.runtime}

    def carry_runtime(self, stage: Stager) -> None:
        """Run-time modulus fields move one stage with their operands (call once per stage,
        after the stage's uses of them). q_h keeps its top bit (always set) in the registers:
        only a register that feeds a DSP product whole can be packed into the DSP block."""
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
        """q of the stage being built: the constant, q_h 2^omega + 1, or 2^(beta-1) + q_m 2^omega + 1
        with q_m = 2^l1 - 2^l2 [+ 2^l3] (`ShiftDatapath.decode_modulus`)."""
        if "qh" in self.rt:
            return Cat(Const(1, self.omega), self.rt["qh"])
        if "qm" in self.rt:     # the shift algorithms' q_m, decoded from l1, l2 [, l3] a stage before
            return Cat(Const(1, self.omega), self.rt["qm"], Const(1, 1))
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
        x = stage(accumulate(pp, stage.m, "ab_sum"), "x", 2 * bw)                          # stage 2: x = a*b
        self.carry_runtime(stage)
        stage.next()
        return x

    def correct_sub(self, stage: Stager, t: Value) -> Value:
        """Last stage: t in [0, 2q) -> t - q if t >= q."""
        out = stage(reduce_once(t, self.modulus(), self.beta), "b", self.beta)             # last stage: b = t mod q
        stage.next()
        return out

    def correct_split(self, m: Module, stage: Stager, t: Value, name: str) -> Value:
        """The last two stages for q = q_h 2^omega + 1: t (in [0, 2q), not yet registered) is
        registered with the test t mod 2^omega == 0, which the last stage's `reduce_once_split`
        takes as its high part's borrow (the run-time modulus fields: moved by the caller)."""
        wire = Signal(len(t), name=f"{name}_sum")
        m.d.comb += wire.eq(t)
        t, low_zero = stage(wire, name), stage(wire[:self.omega] == 0, f"{name}_low_zero")
        stage.next()
        q = self.modulus()
        qh = q >> self.omega if isinstance(q, int) else q[self.omega:]
        out = stage(reduce_once_split(t, qh, self.omega, low_zero, self.beta), "b", self.beta)  # b = t mod q
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
            t = (th_r + (accumulate(pp) << delta) + c_r)[:bound.bit_length()]
            self.carry_runtime(stage)
            if i == len(self.words) - 1 and self.carry_luts:
                return self.correct_split(m, stage, t, f"t{i}")   # this stage and the last (t in [0, 2q))
            t = stage(t, f"t{i}")
            stage.next()
        return self.correct_sub(stage, t)  # last stage: t in [0, 2q)


class K2red(ModmulDatapath):
    """Alg 3: 7 stages. a*b*2^(-2 omega) mod q."""

    def qh_times(self, stage: Stager, v: Value, vw: int, sub: Value, name: str) -> Value:
        """q_h v - sub, signed: two stages (partial products, sum)."""
        parts = partial_products(v, vw, self.qh, self.qh_max().bit_length(), self.dsp)
        pp = register_products(stage, parts, name)                                        # q_h v partial products
        sub = stage(sub, f"{name}_sub")
        self.carry_runtime(stage)
        stage.next()
        return stage(unsigned_as_signed(accumulate(pp)) - sub, name, self.width_t(name))  # q_h v - sub

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
        out = stage(reduce_signed(t2, self.modulus(), bw), "b", bw)                  # last stage: one correction
        stage.next()
        return out


# --- the shift-add reductions (Alg 6, Alg 7): adder trees ordered by arrival ------------------

#: a value with the integers it may take: (value, lo, hi)
Item = tuple[Value, int, int]
#: an addend of a sum: (negated, item, arrival: adder delays after the stage's registers, a
#: barrel shifter counting as one)
Term = tuple[bool, Item, int]


def _shape(lo: int, hi: int) -> Shape:
    """The narrowest shape that holds every integer in [lo, hi]."""
    if lo >= 0:
        return unsigned(max(1, hi.bit_length()))
    return signed(max((-lo - 1).bit_length(), hi.bit_length()) + 1)


def combine(m: Module, x: Term, y: Term, name: str, cap: int | None = None) -> Term:
    """x + y through one two-input adder (a difference where one is negated), its sum a wire
    Yosys keeps: left alone, alumacc merges a chain of additions into one $macc, mapped to LUT
    full adders, about twice the LUTs of carry chains (a 5-term 32-bit sum on xcup: 161 LUT
    against 131). Read as wide as the sum's range (cap: only needed mod 2^cap)."""
    (na, (a, alo, ahi), ta), (nb, (b, blo, bhi), tb) = x, y
    if na == nb:
        v, lo, hi = a + b, alo + blo, ahi + bhi
    elif nb:
        v, lo, hi = a - b, alo - bhi, ahi - blo
    else:
        v, lo, hi = b - a, blo - ahi, bhi - alo
    wire = Signal(v.shape(), name=name, attrs={"keep": 1})      # the adder's own output
    m.d.comb += wire.eq(v)
    shape = _shape(lo, hi)
    if cap is not None and shape.width > cap:
        shape, lo, hi = unsigned(cap), 0, (1 << cap) - 1
    read = wire[:shape.width] if shape.width < len(wire) else wire
    return na and nb, (read.as_signed() if shape.signed else read, lo, hi), max(ta, tb) + 1


def add_tree(m: Module, terms: list[Term], name: str, cap: int | None = None,
             until: int | None = None) -> list[Term]:
    """The terms summed by two-input adders, always the two that arrive first (the sum arrives
    an adder later): the fewest adder levels after the latest arrival (ceil(log2 k) for k
    terms arriving together), and terms without shifters summed while the shifters work.
    until: stop before a sum that would arrive later (rho A: the rest after a register stage)."""
    terms, k = list(terms), 0
    while len(terms) > 1:
        terms.sort(key=lambda term: term[2])
        first, second = terms[0], terms[1]
        if until is not None and max(first[2], second[2]) >= until:
            break
        terms = terms[2:] + [combine(m, first, second, f"{name}_{k}", cap)]
        k += 1
    return terms


def tree_sum(m: Module, terms: list[Term], name: str, cap: int | None = None) -> Item:
    """The sum of the terms (at least one positive), by `add_tree`."""
    negated, item, _ = add_tree(m, terms, name, cap)[0]
    assert not negated
    return item


def lookup(index: Value, width: int, f: Callable[[int], int]) -> Value:
    """f(index) from a constant table (f's values taken mod 2^width): logic Yosys maps to LUTs."""
    return Cat(Const(sum((f(i) >> b & 1) << i for i in range(1 << len(index))), 1 << len(index)).bit_select(index, 1)
               for b in range(width))


class ShiftDatapath(ModmulDatapath):
    """What Alg 6 and Alg 7 share: v * 2^l_i as shifted wires (constant l_i) or barrel shifters
    (run-time l_i), the modulus from the shift amounts, the rho A register stage. Each sum is
    an adder tree by arrival (`add_tree`): rho B, the shifters and the tree in one stage; rho A,
    a register stage after the shifters (and the sums of the terms without shifters, in parallel
    with them), then the tree."""

    def lmax(self) -> int:
        """The largest shift amount the shifters must take: log q_h - 2 (run-time), else the l_i."""
        if "l1" in self.rt:
            return self.beta - self.omega - 2
        assert self.shifts is not None
        return max(v for v in self.shifts if v is not None)

    def shifted(self, v: Value, vmax: int, width: int | None = None) -> tuple[Term, Term, Term | None]:
        """v 2^l1, -v 2^l2 and v 2^l3 (or None) as terms, each cut to `width` bits if given (then
        mod 2^width); a barrel shifter arrives one adder delay late, a constant shift at once."""
        top = vmax << self.lmax()
        w = width or top.bit_length()

        def one(amount: Value | int, negated: bool) -> Term:
            return negated, ((v << amount)[:w], 0, min(top, (1 << w) - 1)), int(not isinstance(amount, int))
        l1, l2, l3 = self.shift_amounts()
        return one(l1, False), one(l2, True), None if l3 is None else one(l3, False)

    def decode_modulus(self, stage: Stager) -> None:
        """q_m = 2^l1 - 2^l2 [+ 2^l3] (log q_h - 1 bits) from the run-time l_i, registered in place
        of them (their last use was the stage before): the last stage reads q = 2^(beta-1) +
        q_m 2^omega + 1 as a concatenation."""
        if "l1" not in self.rt:
            return
        l1, l2, l3 = self.shift_amounts()
        w = self.beta - self.omega - 1
        ones = Const((1 << w) - 1, w)
        qm: Value = ((ones << l2)[:w] & ~(ones << l1)[:w])
        if l3 is not None:
            qm = (qm + (Const(1, w) << l3)[:w])[:w]
        self.rt = {"qm": stage(qm, "qm", w)}

    def sum_stages(self, m: Module, stage: Stager, terms: list[Term], name: str, cap: int | None,
                   ride: list[Value]) -> tuple[Item, list[Value]]:
        """The sum of the terms; rho A: the register stage first (the terms and `ride`, the values
        that travel beside them; the run-time fields move), then the rest of the tree."""
        if self.rho == "A":
            terms = add_tree(m, terms, f"{name}a", cap, until=1)
            terms = [(n, (stage(v, f"{name}_r{k}"), lo, hi), 0) for k, (n, (v, lo, hi), _) in enumerate(terms)]
            ride = [stage(v, f"{name}_ride{k}") for k, v in enumerate(ride)]
            self.carry_runtime(stage)
            stage.next()
        return tree_sum(m, terms, name, cap), ride


class K2redShift(ShiftDatapath):
    """Alg 7: rho B 5 stages (a*b, a*b, t, t', b), rho A 7 (t and t' each over two: the shifters,
    then the tree). a*b*2^(-2 omega) mod q. Each of t = q_h a_l - a_h and t' = q_h t_l - t_h is one
    tree of (v << (log q_h - 1)) - sub (no shifter: summed beside them), v 2^l1, -v 2^l2 [, v 2^l3]."""

    def qh_minus(self, m: Module, stage: Stager, v: Value, sub: Item, name: str, cap: int | None) -> Item:
        """q_h v - sub, v omega bits, q_h = 2^(log q_h - 1) + 2^l1 - 2^l2 [+ 2^l3]."""
        lq, vmax = self.beta - self.omega, mask(self.omega)
        p1, p2, p3 = self.shifted(v, vmax)
        terms: list[Term] = [(False, (v << (lq - 1), 0, vmax << (lq - 1)), 0), (True, sub, 0), p1, p2]
        return self.sum_stages(m, stage, terms + ([p3] if p3 is not None else []), name, cap, [])[0]

    def build(self, m: Module, stage: Stager, operands: Operands) -> Value:
        bw, om = self.beta, self.omega
        self.start_runtime(operands)
        x = self.product(stage, operands)
        # a_h = x >> omega < 2^(beta + log q_h) for any 2beta-bit x
        t, tlo, thi = self.qh_minus(m, stage, x[:om], (x[om:], 0, mask(2 * bw - om)), "t", None)
        t = stage(t, "t")                                                               # t = q_h a_l - a_h
        self.carry_runtime(stage)
        stage.next()
        t2, _, _ = self.qh_minus(m, stage, t[:om], (t >> om, tlo >> om, thi >> om), "t2", bw + 2)
        self.decode_modulus(stage)
        t2 = stage(t2, "t2", signed(bw + 2))                                            # t' = q_h t_l - t_h in [-q, 2q)
        stage.next()
        out = stage(reduce_signed(t2, self.modulus(), bw), "b", bw)                  # last stage: one correction
        stage.next()
        return out


class MontgomeryShift(ShiftDatapath):
    """Alg 6 (line 1 corrected, q' = q - 2): rho B 6 stages (a*b, a*b, t, t', b', b), rho A 8
    (t and t' each over two: the shifters, then the sums). a*b*2^-beta mod q.
    With L = log q_h, q = 2^(beta-1) + q_m 2^omega + 1, A = a_l mod 2^L:
      t = (q - 2) a_l mod 2^beta = ((q_m A + a_l[0] 2^(L-1)) mod 2^L) 2^omega - a_l mod 2^beta
        (L-bit shifters and sums, one beta-bit subtraction);
      Y = floor(t q / 2^omega) = (t >> omega) + t 2^(L-1) + q_m t, so t' >> beta = Y >> L
        (no 2beta-bit t' is formed, `high_product`);
      b' = a_h + (Y >> L) + c, c = a_l != 0 (the paper's t'[beta-1] | a_l[beta-1]: a_l + (t'
        mod 2^beta) is 0 or 2^beta);  b = b' - q if b' >= q."""

    def low_product(self, m: Module, stage: Stager, al: Value, ride: list[Value]) -> tuple[Value, list[Value]]:
        """t = (q - 2) a_l mod 2^beta: H = Q1 + Q3, G = Q2 + (a_l >> omega) mod 2^L (Q_i = A 2^l_i
        mod 2^L; Q1's top bit XOR a_l[0] adds a_l[0] 2^(L-1)), then t = H 2^omega - (G 2^omega +
        a_l mod 2^omega), one beta-bit subtraction."""
        bw, om = self.beta, self.omega
        lq = bw - om
        (_, (q1, lo, hi), arrival), q2, q3 = self.shifted(al[:lq], mask(lq), lq)
        q1t: Term = (False, (Cat(q1[:lq - 1], q1[lq - 1] ^ al[0]), lo, hi), arrival)
        hg = [combine(m, q1t, q3, "h", lq)] if q3 is not None else [q1t]
        hg.append(combine(m, (False, q2[1], q2[2]), (False, (al[om:], 0, mask(lq)), 0), "g", lq))
        if self.rho == "A":         # the register stage: H, G, a_l mod 2^omega and `ride`
            hg = [(n, (stage(v, f"hg_r{k}"), lo, hi), 0) for k, (n, (v, lo, hi), _) in enumerate(hg)]
            ride = [stage(v, f"hg_ride{k}") for k, v in enumerate([al[:om], *ride])]
            self.carry_runtime(stage)
            stage.next()
            al, ride = ride[0], ride[1:]
        (h, _, _), (g, _, _) = hg[0][1], hg[1][1]
        return (Cat(Const(0, om), h[:lq]) - Cat(al[:om], g[:lq]))[:bw], ride

    @staticmethod
    def low_facts(al: Value) -> Value:
        """Cat(z, c) from a_l: z = bits beta-2, beta-1 of -a_l mod 2^beta (the top two bits of
        Y mod 2^L, as t q = -a_l mod 2^beta), c = a_l != 0."""
        bw = len(al)
        zero = al[:bw - 2] == 0
        return Cat((~al[bw - 2:] + zero)[:2], ~zero | al[bw - 2:].any())

    def truncated(self) -> bool:
        """Run-time Proth-2l shifts: `high_product` forms only the terms' high bits."""
        return "l1" in self.runtime and "l3" not in self.runtime

    def high_product(self, m: Module, stage: Stager, t: Value, facts: Value,
                     ride: list[Value]) -> tuple[Value, Value, list[Value]]:
        """(S, s, ride) with S + s = (Y >> L) + c (S beta bits, s one bit), Y = (t >> omega) +
        t 2^(L-1) + q_m t = E + q_m t, E = Cat(t[omega:beta-1], e) (e = t + t[beta-1], an incrementer
        beside the shifters). facts: `low_facts` if `truncated`, else a_l[beta-1].

        Constant shifts (the terms are wires, the full sum is cheap) and run-time Proth-3l: Y[L-1:]
        from one tree mod 2^(beta + L) (Y < 2^(beta + L)); c = Y[L-1] | a_l[beta-1]; s = c.

        `truncated` (run-time Proth-2l, barrel shifters): the terms' bits L-2 and up only, V_E =
        E >> (L-2) = Cat(t[beta-2], e), V_i = (t 2^l_i) >> (L-2), so the shifters, the registers
        (rho A) and the tree are L-2 bits narrower. The sum V_1 - V_2 + V_E of their parts above
        bit 1 misses the carry d out of the dropped low bits, which Y mod 2^L pins down (z, its top
        two bits): d = (the low two bits' sum - z + 1) >> 2, in {-1, 0, 1}. d + 1 enters as the
        carry-ins of the tree's second adder and, as s, of b'; the first adder takes c (ready at
        once). (Proth-3l's d + 1 in 0..3 would need the carry-in of a first adder: the lookup of d
        ahead of it costs ECP5 11-19 % of its clock.)"""
        bw, om = self.beta, self.omega
        lq = bw - om
        e = Signal(bw + 1, name="e", attrs={"keep": 1})
        m.d.comb += e.eq(t + t[bw - 1])
        if not self.truncated():
            p1, p2, p3 = self.shifted(t, mask(bw))
            e_term: Term = (False, (Cat(t[om:bw - 1], e), 0, (1 << (bw + lq)) - 1), 1)
            full = [p1, p2, *([p3] if p3 is not None else []), e_term]
            (y, _, _), (top, *ride) = self.sum_stages(m, stage, full, "y", bw + lq, [facts, *ride])
            return y[lq:bw + lq], y[lq - 1] | top, ride
        z, c = facts[:2], facts[2]
        l1, l2, _ = self.shift_amounts()
        v1, v2 = (t << l1)[lq - 2:], (t << l2)[lq - 2:]
        # the low bits' part without shifters, V_E's low bits (t[beta-2], e[0] read from t) - z + 3,
        # and d + 1 from it: small functions, read from tables (as arithmetic, Yosys builds carry
        # chains, slow on ECP5)
        known = lookup(Cat(t[bw - 2], t[0] ^ t[bw - 1], z), 3, lambda i: (i & 3) - (i >> 2) + 3)
        lows, terms = Cat(v1[:2], v2[:2]), [v1[2:], v2[2:], e[1:]]
        if self.rho == "A":         # the register stage: the terms' high parts, the low bits, c, `ride`
            terms = [stage(v, f"y_r{k}") for k, v in enumerate(terms)]
            lows, known, c, *ride = (stage(v, f"y_ride{k}") for k, v in enumerate([lows, known, c, *ride]))
            self.carry_runtime(stage)
            stage.next()

        def ones(i: int) -> int:    # d + 1 bits set, from Cat(lows, known) = i (any if it cannot occur)
            d = ((i & 3) - (i >> 2 & 3) + (i >> 4) - 3 + 1) >> 2
            return (1 << max(0, d + 1)) - 1
        carries = lookup(Cat(lows, known), 2, ones)
        v1h, v2h, eh = (Cat(v, Const(0, bw))[:bw] for v in terms)
        y0, y1 = Signal(bw, name="y_0", attrs={"keep": 1}), Signal(bw, name="y_1", attrs={"keep": 1})
        m.d.comb += [y0.eq(v1h + ~v2h + c), y1.eq(y0 + eh + carries[0])]   # one adder each (see `combine`)
        return y1, carries[1], ride

    def build(self, m: Module, stage: Stager, operands: Operands) -> Value:
        bw = self.beta
        self.start_runtime(operands)
        x = self.product(stage, operands)
        facts = self.low_facts(x[:bw]) if self.truncated() else x[bw - 1]
        t, (ah, facts) = self.low_product(m, stage, x[:bw], [x[bw:], facts])
        t = stage(t, "t", bw)                                                # t = (q - 2) a_l mod 2^beta
        ah, facts = stage(ah, "ah"), stage(facts, "facts")
        self.carry_runtime(stage)
        stage.next()
        y, s, (ah,) = self.high_product(m, stage, t, facts, [ah])
        y = stage(y, "y", bw)                                                # y + s = (t' >> beta) + c
        ah, s = stage(ah, "ah2"), stage(s, "s")
        self.carry_runtime(stage)
        stage.next()
        self.decode_modulus(stage)
        b1 = stage(ah + y + s, "b1", bw + 1)                                 # b' = a_h + (t' >> beta) + c, < 2q
        stage.next()
        return self.correct_sub(stage, b1)                                   # last stage: b
