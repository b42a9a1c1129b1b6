"""The weight-stationary systolic negacyclic multiplier (FIR.PolyMult, Sec. 3 of
fast-filter-polymult-saber.txt): a transpose-form FIR filter of n taps whose switches and
input shift register apply x^n = -1, so products stream back to back with every tap busy.

Per window of n cycles (positions p = 0..n-1) the array takes one coefficient of each
operand a cycle: the stationary operand w (coefficient p, lowest degree first: tap j holds
w_{n-1-j}) and the streaming operand x (coefficient n-1-p, highest first). Tap j works for
the frame whose window this is when p + j >= n - 1 (`fresh`: the thermometer bit j) and for
the frame before otherwise, with that frame's x from the shift register, negated (the
wrap-around), and its weight, which it keeps until p = n - 1 - j (`load`: one-hot bit j).
The output y is c_{n-1-s}, slot s of the frame, at position n-1 (s = 0, the window's last
cycle, the frame's last input) or, for s >= 1, at position s - 1 of the next window: a
product's coefficients leave highest first, the first in the cycle its last input arrives.
`y_next` is the next slot's value one cycle early (the tap-0 term the next cycle adds comes
from the shift register, so it is known): w*y = y shifted negacyclically needs it.

Coefficients are mod 2^width (the low bits). x is either a full coefficient or, with
`small`, a small signed one in sign-magnitude (|x| <= small): the product is then a
selection among the multiples of w the tap keeps (the odd ones computed once when the
weight arrives, the even ones shifts of them), so no multiplier is built.
All registers move only while `advance` is high.
"""

from __future__ import annotations

from amaranth.hdl import Array, Cat, Elaboratable, Module, Mux, Signal, Value


class NegacyclicFir(Elaboratable):
    def __init__(self, taps: int, width: int, small: int = 0, lookahead: bool = False, name: str = "fir"):
        if taps < 2:
            raise ValueError("a systolic multiplier needs at least 2 taps")
        self.taps, self.width, self.small, self.lookahead, self.name = taps, width, small, lookahead, name
        self.mag_bits = small.bit_length() if small else width
        self.advance = Signal(name=f"{name}_advance")
        self.fresh = Signal(taps, name=f"{name}_fresh")      # thermometer, bit j: tap j's input is this window's
        self.load = Signal(taps, name=f"{name}_load")        # one-hot, bit j: tap j takes w_in now
        self.w_in = Signal(width, name=f"{name}_w_in")
        self.x_sign = Signal(name=f"{name}_x_sign")          # small: the sign of x (1: negative)
        self.x_mag = Signal(self.mag_bits, name=f"{name}_x_mag")
        self.y = Signal(width, name=f"{name}_y")
        self.y_next = Signal(width, name=f"{name}_y_next")

    @property
    def odd(self) -> list[int]:
        """The odd multiples of w a tap keeps besides w itself."""
        return list(range(3, self.small + 1, 2))

    def multiples(self, m: Module, w: Value) -> list[Value]:
        """w and its odd multiples (mod 2^width), computed from the incoming weight as sums of
        shifts (a `w * o` would become a DSP)."""
        out = [w]
        for o in self.odd:
            sig = Signal(self.width, name=f"{self.name}_w_in_x{o}")
            m.d.comb += sig.eq(sum(w << i for i in range(o.bit_length()) if o >> i & 1))
            out.append(sig)
        return out

    def product(self, m: Module, kept: list[Value], mag: Value, name: str) -> Value:
        """w * |x| mod 2^width from the kept multiples (small) or a multiplier."""
        prod = Signal(self.width, name=name)
        if not self.small:
            m.d.comb += prod.eq(kept[0] * mag)
            return prod
        table = {1: 0}
        table.update({o: k + 1 for k, o in enumerate(self.odd)})
        options = []
        for v in range(1 << self.mag_bits):
            e = (v & -v).bit_length() - 1 if v else 0
            options.append(kept[table[v >> e]] << e if 0 < v <= self.small else 0)
        m.d.comb += prod.eq(Array(options)[mag])
        return prod

    def elaborate(self, platform):
        m = Module()
        n, w = self.taps, self.width
        incoming = self.multiples(m, self.w_in)
        # the x shift register: hist[d] = x of d + 1 advances ago (sign, magnitude)
        hist = [(Signal(name=f"{self.name}_xs{d + 1}"), Signal(self.mag_bits, name=f"{self.name}_xm{d + 1}"))
                for d in range(n)]
        with m.If(self.advance):
            m.d.sync += [hist[0][0].eq(self.x_sign), hist[0][1].eq(self.x_mag)]
            m.d.sync += [h.eq(p) for d in range(1, n) for h, p in zip(hist[d], hist[d - 1], strict=False)]
        old_sign, old_mag = hist[n - 1]
        # A tap's product in its load cycle (the incoming weight times this window's x) always
        # belongs to slot 0 of the window's frame (p + j = n - 1): one accumulator per array sums
        # them over the window, and the taps add nothing in that cycle (no per-tap weight bypass).
        arriving = self.product(m, incoming, self.x_mag, f"{self.name}_arriving_prod")
        loads = Signal(w, name=f"{self.name}_loads")
        loads_now = Signal(w, name=f"{self.name}_loads_now")
        m.d.comb += loads_now.eq(add_sub(m, Mux(self.load[n - 1], 0, loads), arriving,
                                         self.x_sign if self.small else 0, w, f"{self.name}_l"))
        with m.If(self.advance):
            m.d.sync += loads.eq(loads_now)
        terms, regs0 = [], []
        for j in range(n):
            regs = [Signal(w, name=f"{self.name}_t{j}_w{k}") for k in range(len(incoming))]
            regs0 = regs if j == 0 else regs0
            with m.If(self.advance & self.load[j]):
                m.d.sync += [r.eq(v) for r, v in zip(regs, incoming, strict=True)]
            mag = Mux(self.fresh[j], self.x_mag, old_mag)
            neg = Mux(self.fresh[j], self.x_sign if self.small else 0, ~old_sign if self.small else 1)
            kept = self.product(m, regs, mag, f"{self.name}_t{j}_prod")
            terms.append((neg, Mux(self.load[j], 0, kept)))
        # transpose form: s_j <- s_{j+1} +- prod_j (s_n = 0); y = s_1 +- prod_0
        chain = [Signal(w, name=f"{self.name}_s{j}") for j in range(n + 1)]
        nexts = []
        for j in range(n - 1, 0, -1):
            neg, prod = terms[j]
            nxt = Signal(w, name=f"{self.name}_s{j}_next")
            m.d.comb += nxt.eq(add_sub(m, chain[j + 1] if j + 1 < n else 0, prod, neg, w, f"{self.name}_t{j}"))
            nexts.append(nxt)
            with m.If(self.advance):
                m.d.sync += chain[j].eq(nxt)
        neg0, prod0 = terms[0]
        m.d.comb += self.y.eq(add_sub(m, chain[1], prod0, neg0, w, f"{self.name}_t0") + Mux(self.load[0], loads_now, 0))
        if self.lookahead:   # next cycle: s_1's next value, and tap 0 on the frame's x, negated
            ahead_sign, ahead_mag = hist[n - 2]
            weight = [Mux(self.load[0], v, r) for v, r in zip(incoming, regs0, strict=True)]
            prod = self.product(m, weight, ahead_mag, f"{self.name}_ahead_prod")
            m.d.comb += self.y_next.eq(add_sub(m, nexts[-1], prod, ~ahead_sign if self.small else 1, w,
                                               f"{self.name}_ahead"))
        return m


def add_sub(m: Module, acc, term: Value, neg, width: int, name: str) -> Value:
    """acc - term if neg else acc + term, mod 2^width, as one adder: the term inverted and
    the borrow's +1 as the carry into an extra low bit. The operands are named so that Yosys
    puts acc (it takes the first name) on the carry chain's direct input and the term's
    logic into the chain's LUTs."""
    neg = Value.cast(neg)
    a, t = Signal(width + 1, name=f"{name}_acc"), Signal(width + 1, name=f"{name}_term")
    m.d.comb += [a.eq(Cat(neg, acc)), t.eq(Cat(neg, term ^ neg.replicate(width)))]
    total = Signal(width + 2, name=f"{name}_sum")
    m.d.comb += total.eq(a + t)
    return total[1:width + 1]


def thermometer_step(fresh: Value, taps: int, last: Value) -> Value:
    """The next `fresh` thermometer: one more tap (the next lower) takes this window's input;
    after the window's last position, only the top tap."""
    top = 1 << (taps - 1)
    return Mux(last, top, fresh | (fresh >> 1))


def one_hot_load(fresh: Value, taps: int) -> Value:
    """Bit j: tap j is the lowest fresh one, the tap whose weight arrives now."""
    return fresh & ~Cat(0, fresh[:taps - 1])
