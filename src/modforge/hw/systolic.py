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

Coefficients are mod 2^width (the low bits); the weights may be narrower (`w_width`, e.g. k
bits against a wide accumulator that keeps the exact sum, the lazy prime-q multiplier), and
so may a full x (`x_width`). x is either a full coefficient or, with
`small`, a small signed one in sign-magnitude (|x| <= small): the product is then a
selection among the multiples of w the tap keeps (the odd ones computed once when the
weight arrives, the even ones shifts of them), so no multiplier is built.
All registers move only while `advance` is high.
"""

from __future__ import annotations

from amaranth.hdl import Array, Cat, Elaboratable, Module, Mux, Signal, Value


class NegacyclicFir(Elaboratable):
    def __init__(self, taps: int, width: int, small: int = 0, lookahead: bool = False, name: str = "fir",
                 w_width: int = 0, x_width: int = 0):
        if taps < 2:
            raise ValueError("a systolic multiplier needs at least 2 taps")
        self.taps, self.width, self.small, self.lookahead, self.name = taps, width, small, lookahead, name
        self.w_width = w_width or width
        self.mag_bits = small.bit_length() if small else x_width or width
        self.advance = Signal(name=f"{name}_advance")
        self.fresh = Signal(taps, name=f"{name}_fresh")      # thermometer, bit j: tap j's input is this window's
        self.load = Signal(taps, name=f"{name}_load")        # one-hot, bit j: tap j takes w_in now
        self.w_in = Signal(self.w_width, name=f"{name}_w_in")
        self.x_sign = Signal(name=f"{name}_x_sign")          # small: the sign of x (1: negative)
        self.x_mag = Signal(self.mag_bits, name=f"{name}_x_mag")
        self.y = Signal(width, name=f"{name}_y")
        self.y_next = Signal(width, name=f"{name}_y_next")

    @property
    def table(self) -> bool:
        """|x| <= 4: the product is a choice among 0, w, 2w, 3w, 4w (3w kept with w): one
        adder a tap; larger bounds add one radix-4 digit's 0, w or 2w per adder (`recode`)."""
        return 0 < self.small <= 4

    def stored(self, m: Module, w: Value, name: str) -> list[Value]:
        """What a tap keeps of its weight: w, and 3w for the table."""
        if not self.table:
            return [w]
        w3 = Signal(min(self.width, self.w_width + 2), name=f"{name}_x3")
        m.d.comb += w3.eq((w << 1) + w)
        return [w, w3]

    def digits(self) -> int:
        """Radix-4 signed digits of a magnitude up to `small` (see `recode`)."""
        return max(len(recode(v)) for v in range(self.small + 1))

    def controls(self, m: Module, mag: Value, name: str) -> list[tuple[Value, Value, Value]]:
        """Per digit of |x| (recode): (nonzero, two, negative), as a table on the magnitude."""
        out = []
        for k in range(self.digits()):
            nz, two, neg = (Signal(name=f"{name}_d{k}_{x}") for x in ("nz", "two", "neg"))
            with m.Switch(mag):
                for v in range(self.small + 1):
                    d = (recode(v) + [0] * self.digits())[k]
                    with m.Case(v):
                        m.d.comb += [nz.eq(d != 0), two.eq(abs(d) == 2), neg.eq(d < 0)]
                with m.Default():                 # beyond `small`: no such input (and a complete case)
                    m.d.comb += [nz.eq(0), two.eq(0), neg.eq(0)]
            out.append((nz, two, neg))
        return out

    def terms(self, m: Module, w: Value, ctl, flip: Value, off: Value, name: str) -> list[tuple[Value, Value]]:
        """(negative, term) pairs whose signed sum is +-w*|x| (small: one per digit, the digit's
        0, w or 2w shifted; `flip` negates, `off` zeroes) or (negative, w*x). A digit's three
        controls are signals of their own, so each bit of its term and its adder is one LUT."""
        if not self.small:
            return [(flip, Mux(off, 0, w[0] * ctl))]
        if self.table:
            w1, w3 = w
            return [(flip, Mux(off, 0, Array([0, w1, w1 << 1, w3, w1 << 2, 0, 0, 0])[ctl]))]
        out = []
        for k, (nz, two, neg) in enumerate(ctl):
            on, dbl, sub = (Signal(name=f"{name}_d{k}_{x}") for x in ("on", "two", "sub"))
            m.d.comb += [on.eq(nz & ~off), dbl.eq(two), sub.eq(neg ^ flip)]
            out.append((sub, Mux(on, Mux(dbl, w[0] << 1, w[0]) << (2 * k), 0)))
        return out

    def accumulate(self, m: Module, acc, terms, name: str) -> Value:
        """acc plus the signed terms, one adder each (mod 2^width)."""
        for k, (neg, term) in enumerate(terms):
            acc = add_sub(m, acc, term, neg, self.width, f"{name}_{k}")
        return acc

    def elaborate(self, platform):
        m = Module()
        n, w = self.taps, self.width
        # the x shift register: hist[d] = x of d + 1 advances ago (sign, magnitude)
        hist = [(Signal(name=f"{self.name}_xs{d + 1}"), Signal(self.mag_bits, name=f"{self.name}_xm{d + 1}"))
                for d in range(n)]
        with m.If(self.advance):
            m.d.sync += [hist[0][0].eq(self.x_sign), hist[0][1].eq(self.x_mag)]
            m.d.sync += [h.eq(p) for d in range(1, n) for h, p in zip(hist[d], hist[d - 1], strict=True)]
        old_sign, old_mag = hist[n - 1]
        sign_of = (lambda s: s) if self.small else (lambda s: 0)
        digits = self.small and not self.table
        fresh_ctl = self.controls(m, self.x_mag, f"{self.name}_fresh") if digits else self.x_mag
        old_ctl = self.controls(m, old_mag, f"{self.name}_old") if digits else old_mag
        incoming = self.stored(m, self.w_in, f"{self.name}_w_in")
        # A tap's product in its load cycle (the incoming weight times this window's x) always
        # belongs to slot 0 of the window's frame (p + j = n - 1): one accumulator per array sums
        # them over the window, and the taps add nothing in that cycle (no per-tap weight bypass).
        loads = Signal(w, name=f"{self.name}_loads")
        loads_now = Signal(w, name=f"{self.name}_loads_now")
        m.d.comb += loads_now.eq(self.accumulate(m, Mux(self.load[n - 1], 0, loads),
                                                 self.terms(m, incoming, fresh_ctl, sign_of(self.x_sign), 0,
                                                            f"{self.name}_l"),
                                                 f"{self.name}_l"))
        with m.If(self.advance):
            m.d.sync += loads.eq(loads_now)
        weights = [[Signal.like(v, name=f"{self.name}_t{j}_w{k}") for k, v in enumerate(incoming)] for j in range(n)]
        taps = []
        for j, regs in enumerate(weights):
            with m.If(self.advance & self.load[j]):
                m.d.sync += [r.eq(v) for r, v in zip(regs, incoming, strict=True)]
            fresh = self.fresh[j]
            ctl = ([tuple(Mux(fresh, f, o) for f, o in zip(fc, oc, strict=True))
                    for fc, oc in zip(fresh_ctl, old_ctl, strict=True)] if digits
                   else Mux(fresh, fresh_ctl, old_ctl))
            flip = Mux(fresh, sign_of(self.x_sign), ~old_sign if self.small else 1)
            taps.append(self.terms(m, regs, ctl, flip, self.load[j], f"{self.name}_t{j}"))
        # transpose form: s_j <- s_{j+1} + tap j's terms (s_n = 0); y = s_1 + tap 0's terms
        chain = [Signal(w, name=f"{self.name}_s{j}") for j in range(n + 1)]
        nexts = []
        for j in range(n - 1, 0, -1):
            nxt = Signal(w, name=f"{self.name}_s{j}_next")
            m.d.comb += nxt.eq(self.accumulate(m, chain[j + 1] if j + 1 < n else 0, taps[j], f"{self.name}_t{j}"))
            nexts.append(nxt)
            with m.If(self.advance):
                m.d.sync += chain[j].eq(nxt)
        slot0 = Mux(self.load[0], loads_now, 0)          # the load-cycle products, at slot 0
        m.d.comb += self.y.eq(self.accumulate(m, chain[1], taps[0], f"{self.name}_t0") + slot0)
        if self.lookahead:   # next cycle: s_1's next value, and tap 0 on the frame's x, negated
            ahead_sign, ahead_mag = hist[n - 2]
            ahead_ctl = self.controls(m, ahead_mag, f"{self.name}_ahead") if digits else ahead_mag
            weight = [Mux(self.load[0], v, r) for v, r in zip(incoming, weights[0], strict=True)]
            m.d.comb += self.y_next.eq(self.accumulate(m, nexts[-1], self.terms(
                m, weight, ahead_ctl, ~ahead_sign if self.small else 1, 0, f"{self.name}_ahead"), f"{self.name}_ahead"))
        return m


def recode(v: int) -> list[int]:
    """v >= 0 as radix-4 digits in {-1, 0, 1, 2}, least significant first: v = sum d_k 4^k
    (each digit selects 0, w or 2w, negated or not: the product is a few adds, no table of
    multiples)."""
    out = []
    while v:
        d = v % 4
        d = d - 4 if d == 3 else d
        out.append(d)
        v = (v - d) // 4
    return out


def add_sub(m: Module, acc, term: Value, neg, width: int, name: str) -> Value:
    """acc - term if neg else acc + term, mod 2^width, as one adder: the term inverted and
    the borrow's +1 as the carry into an extra low bit. The operands are named so that Yosys
    puts acc (it takes the first name) on the carry chain's direct input and the term's
    logic into the chain's LUTs."""
    neg = Value.cast(neg)
    a, t = Signal(width + 1, name=f"{name}_acc"), Signal(width + 1, name=f"{name}_term")
    m.d.comb += [a.eq(Cat(neg, acc)), t.eq(Cat(neg, term ^ neg.replicate(width)))]
    total = Signal(width + 2, name=f"{name}_sum")
    m.d.comb += total.eq(t + a)
    return total[1:width + 1]


def thermometer_step(fresh: Value, taps: int, last: Value) -> Value:
    """The next `fresh` thermometer: one more tap (the next lower) takes this window's input;
    after the window's last position, only the top tap."""
    top = 1 << (taps - 1)
    return Mux(last, top, fresh | (fresh >> 1))


def one_hot_load(fresh: Value, taps: int) -> Value:
    """Bit j: tap j is the lowest fresh one, the tap whose weight arrives now."""
    return fresh & ~Cat(0, fresh[:taps - 1])
