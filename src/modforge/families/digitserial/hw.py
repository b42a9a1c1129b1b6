"""Amaranth hardware of the digit-serial GF(p^m) multipliers (see model.py for the maths).

The datapaths (plain builders, hw.iterative.Datapath, that hw.iterative.IterativeCore
wraps) compose the bit-sliced GF(p) vector arithmetic of `modforge.hw.gfp` (p = 3 in
the paper's 2-bit encoding 0, 1, 2 = 00, 01, 10).  Ports use the packed encoding:
coefficient i in bits [w*i+w-1 : w*i]; the input payload is the plan's layout, a then b
(read by name).
"""

from __future__ import annotations

from amaranth.hdl import Module, Value

from modforge.hw.gfp import GF, Vec
from modforge.hw.iterative import Datapath, Operands
from modforge.hw.layout import Layouts

from .plan import DigitPlan

__all__ = [
    "DigitDatapath", "MseShu", "MseDigit", "LseBasic", "LseDigit", "LseNam",
]


#: a register, its value at load and its value at each step (None: it holds)
Update = tuple[Vec, Vec, Vec | None]


class DigitDatapath(Datapath):
    """Common part: GF(p)[x]/f, digit size D, R group registers (0: none), packed a/b in,
    packed m coefficients out (layouts: the plan's), `steps` step cycles: the plan's.

    Subclasses describe their registers as (register, value at load, value at each step);
    all combinational logic is built first, then one load/step block updates the state.
    """

    def __init__(self, plan: DigitPlan, layouts: Layouts):
        self.p, self.f, self.D, self.R = plan.p, plan.f, plan.D, plan.R
        self.m, self.n, self.groups = plan.m, plan.digits, plan.groups
        self.gf = GF(plan.p)
        super().__init__(*layouts, plan.steps)

    def operands_in(self, module: Module, operands: Operands) -> tuple[Vec, Vec]:
        """Bind the GF helper to the module and read a and b from the payload (wiring)."""
        self.gf.bind(module)
        return (self.gf.from_packed(Value.cast(operands.a), self.m),
                self.gf.from_packed(Value.cast(operands.b), self.m))

    def update(self, m: Module, load: Value, step: Value, regs: list[Update]) -> None:
        """regs: (register Vec, value on load, value on each step or None to hold)."""
        gf = self.gf
        with m.If(load):
            for r, at_load, _ in regs:
                m.d.sync += gf.eq(r, at_load)
        with m.Elif(step):
            for r, _, at_step in regs:
                if at_step is not None:
                    m.d.sync += gf.eq(r, at_step)

    def pps(self, digit: list[list[Value]], base: Vec, js: range) -> list[Vec]:
        """Partial products a_{Di+j} x^j base(x), j in js (not reduced)."""
        return [self.gf.mul_coef(digit[j], self.gf.shift(base, j)) for j in js]

    def a_register(self, msb_first: bool) -> tuple[Vec, Vec, list[list[Value]]]:
        """The a register (n*D coefficients, a zero-padded), shifted by D per step, zeros in:
        MSE first shifts up and reads its top D coefficients, LSE first shifts down and reads
        its low D. Returns (register, next value, digit coefficients' bits)."""
        gf, D, nd = self.gf, self.D, self.n * self.D
        areg = gf.reg(nd, "a")
        if nd == D:
            nxt = gf.zero(nd)
        elif msb_first:
            nxt = gf.shift(gf.slice(areg, 0, nd - D), D)
        else:
            nxt = gf.ext(gf.slice(areg, D, nd), nd)
        base = (self.n - 1) * D if msb_first else 0
        return areg, nxt, [areg.bits(base + j) for j in range(D)]


class MseShu(DigitDatapath):
    """Algorithm 2 (Algorithm 1 for D = 1): ceil(m/D) steps, result in register p."""


    def build(self, m: Module, load: Value, step: Value, index: Value, operands: Operands) -> Value:
        gf, D = self.gf, self.D
        a_in, b_in = self.operands_in(m, operands)
        areg, a_next, digit = self.a_register(msb_first=True)
        b = gf.reg(self.m, "b")
        acc = gf.reg(self.m, "p")
        # x^j b mod f, j < D: b is constant during a multiplication; eq. (2) networks
        bj = [b] + [gf.reduce(gf.shift(b, j), self.f) for j in range(1, D)]
        # stage: p <- sum_j a_{Di+j} (x^j b mod f) + (x^D p mod f), one balanced tree
        t = [gf.mul_coef(digit[j], bj[j]) for j in range(D)]
        nxt = gf.sum(t + gf.reduce_rows(gf.shift(acc, D), self.f))
        self.update(m, load, step, [(areg, a_in, a_next), (b, b_in, None),
                                    (acc, gf.zero(self.m), nxt)])
        return gf.to_packed(acc)


class MseDigit(DigitDatapath):
    """Algorithm 3 (R = 0) and Figure 1d (R >= 1 group registers): ceil(m/D)+1 (+1 with
    the pipeline level) steps; result = s / x^D from register s."""


    def build(self, m: Module, load: Value, step: Value, index: Value, operands: Operands) -> Value:
        gf, D = self.gf, self.D
        a_in, b_in = self.operands_in(m, operands)
        areg, a_next, digit = self.a_register(msb_first=True)
        b = gf.reg(self.m, "b")
        s = gf.reg(self.m + D, "s")
        regs = [(areg, a_in, a_next), (b, b_in, None)]
        # x^D (s mod f): eq. (2) rows shifted by D (wiring)
        loop = [gf.shift(r, D) for r in gf.reduce_rows(s, self.f)]
        if not self.R:
            # stage: s <- sum_j a_{Di+j} x^j b + x^D (s mod f), one balanced tree
            regs.append((s, gf.zero(s.n), gf.sum(self.pps(digit, b, range(D)) + loop)))
        else:
            T = [gf.reg(self.m + g[-1], f"t{r}") for r, g in enumerate(self.groups)]
            # pipeline stage 1: T_r <- sum over group r of a_{Di+j} x^j b (a tree per group)
            for Tr, g in zip(T, self.groups, strict=True):
                regs.append((Tr, gf.zero(Tr.n), gf.sum(self.pps(digit, b, g))))
            # pipeline stage 2: s <- sum_r T_r + x^D (s mod f) (R+1 polynomials)
            regs.append((s, gf.zero(s.n), gf.sum(list(T) + loop)))
        self.update(m, load, step, regs)
        return gf.to_packed(gf.slice(s, D, D + self.m))


class _Lse(DigitDatapath):
    """LSE first: register q holds x^(Di) b mod f, updated by eq. (2) each step."""

    def q_register(self, b_in: Vec) -> tuple[Vec, Update]:
        gf = self.gf
        q = gf.reg(self.m, "q")
        # q <- x^D q mod f (eq. (2), table x^m .. x^(m+D-1))
        return q, (q, b_in, gf.reduce(gf.shift(q, self.D), self.f))


class LseBasic(_Lse):
    """Algorithm 4: m steps, result in register p."""


    def build(self, m: Module, load: Value, step: Value, index: Value, operands: Operands) -> Value:
        gf = self.gf
        a_in, b_in = self.operands_in(m, operands)
        areg, a_next, digit = self.a_register(msb_first=False)
        q, q_upd = self.q_register(b_in)
        acc = gf.reg(self.m, "p")
        # stage: p <- p + a_i q
        nxt = gf.add(acc, gf.mul_coef(digit[0], q))
        self.update(m, load, step, [(areg, a_in, a_next), q_upd, (acc, gf.zero(self.m), nxt)])
        return gf.to_packed(acc)


class LseDigit(_Lse):
    """Algorithm 5 (R = 0) and Figure 2d (R >= 1 group registers): ceil(m/D)+1 (+1 with
    the pipeline level) steps; result = s mod x^m from register s."""


    def build(self, m: Module, load: Value, step: Value, index: Value, operands: Operands) -> Value:
        gf, D = self.gf, self.D
        a_in, b_in = self.operands_in(m, operands)
        areg, a_next, digit = self.a_register(msb_first=False)
        q, q_upd = self.q_register(b_in)
        s = gf.reg(self.m + D - 1, "s")
        regs = [(areg, a_in, a_next), q_upd]
        # s mod f: eq. (2) rows (table x^m .. x^(m+D-2))
        loop = gf.reduce_rows(s, self.f)
        if not self.R:
            # stage: s <- (s mod f) + sum_j a_{Di+j} x^j q, one balanced tree
            regs.append((s, gf.zero(s.n), gf.sum(loop + self.pps(digit, q, range(D)))))
        else:
            T = [gf.reg(self.m + g[-1], f"t{r}") for r, g in enumerate(self.groups)]
            # pipeline stage 1: T_r <- sum over group r of a_{Dk+j} x^j q
            for Tr, g in zip(T, self.groups, strict=True):
                regs.append((Tr, gf.zero(Tr.n), gf.sum(self.pps(digit, q, g))))
            # pipeline stage 2: s <- (s mod f) + sum_r T_r (R+1 polynomials)
            regs.append((s, gf.zero(s.n), gf.sum(loop + list(T))))
        self.update(m, load, step, regs)
        return gf.to_packed(gf.slice(s, 0, self.m))


class LseNam(_Lse):
    """Figure 2c (DAM/NAM, R accumulators): ceil(m/D)+1 steps; the last step adds the
    accumulators, reduces mod f and loads the output register."""


    def build(self, m: Module, load: Value, step: Value, index: Value, operands: Operands) -> Value:
        gf = self.gf
        a_in, b_in = self.operands_in(m, operands)
        areg, a_next, digit = self.a_register(msb_first=False)
        q, q_upd = self.q_register(b_in)
        regs = [(areg, a_in, a_next), q_upd]
        acc = []
        for r, g in enumerate(self.groups):
            c = gf.reg(self.m + g[-1], f"c{r}")
            acc.append(c)
            # accumulate: c_r <- c_r + sum over group r of a_{Di+j} x^j q (digit n is zero)
            regs.append((c, gf.zero(c.n), gf.sum([c] + self.pps(digit, q, g))))
        out = gf.reg(self.m, "out")
        # output stage (last step only): out <- (sum_r c_r) mod f, adder tree + eq. (2)
        final = gf.reduce(gf.sum(acc), self.f)
        self.update(m, load, step, regs)
        with m.If(step & (index == self.n)):
            m.d.sync += gf.eq(out, final)
        return gf.to_packed(out)
