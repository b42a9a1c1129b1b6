"""The weight-stationary systolic negacyclic multiplier (FIR.PolyMult, Sec. 3 of
Tan et al.: docs/references.md#tan-fast-filter): a transpose-form FIR filter of n taps whose switches and
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
`small`, a small signed one in sign-magnitude (|x| <= small): the product is then one
adder per radix-4 signed digit of |x| (`recode`), each adding 0, w or 2w or subtracting
them, one LUT a bit (`add_sub`); the digits are decoded once per array for this window's
x and for the shift register's (`digit_controls`), each tap picks its controls by `fresh`.
No multiplier is built.
All registers move only while `advance` is high.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from amaranth.hdl import C, Cat, Elaboratable, Module, Mux, Signal, Value, ValueLike

#: a product's digit controls, (nonzero, two, negative) or (on, two, subtract) per digit
DigitControls = list[tuple[Value, Value, Value]]
#: (negative, term, shift): a signed term times 2^shift
SignedTerm = tuple[ValueLike, Value, int]


class FirPorts(Elaboratable):
    """The ports both systolic arrays share: the advance, the windows' `fresh` thermometer and
    one-hot `load`, the weight in, x (sign, magnitude) and y."""

    def __init__(self, taps: int, width: int, small: int, name: str, w_width: int, x_width: int) -> None:
        if taps < 2:
            raise ValueError("a systolic multiplier needs at least 2 taps")
        self.taps, self.width, self.small, self.name = taps, width, small, name
        self.w_width = w_width or width
        self.mag_bits = small.bit_length() if small else x_width or width
        self.advance = Signal(name=f"{name}_advance")
        self.fresh = Signal(taps, name=f"{name}_fresh")      # thermometer, bit j: tap j's input is this window's
        self.load = Signal(taps, name=f"{name}_load")        # one-hot, bit j: tap j takes w_in now
        self.w_in = Signal(self.w_width, name=f"{name}_w_in")
        self.x_sign = Signal(name=f"{name}_x_sign")          # small: the sign of x (1: negative)
        self.x_mag = Signal(self.mag_bits, name=f"{name}_x_mag")
        self.y = Signal(width, name=f"{name}_y")

    def x_history(self, m: Module, sign: ValueLike) -> list[tuple[Signal, Signal]]:
        """The x shift register, moving on the advance: entry d is (sign, magnitude) of the x
        d + 1 advances ago (`sign`: x_sign, or 0 where it is unread)."""
        hist = [(Signal(name=f"{self.name}_xs{d + 1}"), Signal(self.mag_bits, name=f"{self.name}_xm{d + 1}"))
                for d in range(self.taps)]
        with m.If(self.advance):
            m.d.sync += [hist[0][0].eq(sign), hist[0][1].eq(self.x_mag)]
            m.d.sync += [h.eq(p) for d in range(1, self.taps) for h, p in zip(hist[d], hist[d - 1], strict=True)]
        return hist


class NegacyclicFir(FirPorts):
    def __init__(self, taps: int, width: int, small: int = 0, lookahead: bool = False, name: str = "fir",
                 w_width: int = 0, x_width: int = 0) -> None:
        super().__init__(taps, width, small, name, w_width, x_width)
        self.lookahead = lookahead
        self.y_next = Signal(width, name=f"{name}_y_next")

    def controls(self, m: Module, mag: Value, name: str) -> DigitControls:
        return digit_controls(m, mag, self.small, name)

    def terms(self, m: Module, w: Value, ctl: Value | Sequence[tuple[Value, Value, Value]], flip: ValueLike,
              off: ValueLike, name: str) -> list[SignedTerm]:
        """(negative, term, shift) triples whose signed sum is +-w*|x| (small: one per digit)
        or (negative, w*x, 0); `flip` negates, `off` zeroes."""
        if not self.small:
            return [(flip, Mux(off, 0, (w * ctl)[:self.width]), 0)]
        return digit_terms(w, digit_signals(m, ctl, flip, off, name), self.width)

    def accumulate(self, m: Module, acc: ValueLike, terms: Iterable[SignedTerm], name: str) -> Value:
        return accumulate(m, acc, terms, self.width, name)

    def elaborate(self, platform: Any) -> Module:
        m = Module()
        n, w = self.taps, self.width
        hist = self.x_history(m, self.x_sign)
        old_sign, old_mag = hist[n - 1]
        sign_of = (lambda s: s) if self.small else (lambda s: 0)
        fresh_ctl = self.controls(m, self.x_mag, f"{self.name}_fresh") if self.small else self.x_mag
        old_ctl = self.controls(m, old_mag, f"{self.name}_old") if self.small else old_mag
        # A tap's product in its load cycle (the incoming weight times this window's x) always
        # belongs to slot 0 of the window's frame (p + j = n - 1): one accumulator per array sums
        # them over the window, and the taps add nothing in that cycle (no per-tap weight bypass).
        loads = Signal(w, name=f"{self.name}_loads")
        loads_now = Signal(w, name=f"{self.name}_loads_now")
        m.d.comb += loads_now.eq(self.accumulate(m, Mux(self.load[n - 1], 0, loads),
                                                 self.terms(m, self.w_in, fresh_ctl, sign_of(self.x_sign), 0,
                                                            f"{self.name}_l"),
                                                 f"{self.name}_l"))
        with m.If(self.advance):
            m.d.sync += loads.eq(loads_now)
        weights = [Signal(self.w_width, name=f"{self.name}_t{j}_w") for j in range(n)]
        taps = []
        for j, reg in enumerate(weights):
            with m.If(self.advance & self.load[j]):
                m.d.sync += reg.eq(self.w_in)
            fresh = self.fresh[j]
            ctl = ([tuple(Mux(fresh, f, o) for f, o in zip(fc, oc, strict=True))
                    for fc, oc in zip(fresh_ctl, old_ctl, strict=True)] if self.small
                   else Mux(fresh, fresh_ctl, old_ctl))
            flip = Mux(fresh, sign_of(self.x_sign), ~old_sign if self.small else 1)
            taps.append(self.terms(m, reg, ctl, flip, self.load[j], f"{self.name}_t{j}"))
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
            ahead_ctl = self.controls(m, ahead_mag, f"{self.name}_ahead") if self.small else ahead_mag
            weight = Mux(self.load[0], self.w_in, weights[0])
            m.d.comb += self.y_next.eq(self.accumulate(m, nexts[-1], self.terms(
                m, weight, ahead_ctl, ~ahead_sign if self.small else 1, 0, f"{self.name}_ahead"), f"{self.name}_ahead"))
        return m


def digit_count(small: int) -> int:
    """Radix-4 signed digits of a magnitude up to `small` (see `recode`)."""
    return max(len(recode(v)) for v in range(small + 1))


def digit_controls(m: Module, mag: Value, small: int, name: str) -> DigitControls:
    """Per digit of a magnitude |x| <= small (recode): (nonzero, two, negative), as a table
    on the magnitude: decoded once and shared by every product with that x."""
    count, out = digit_count(small), []
    for k in range(count):
        nz, two, neg = (Signal(name=f"{name}_d{k}_{x}") for x in ("nz", "two", "neg"))
        with m.Switch(mag):
            for v in range(small + 1):
                d = (recode(v) + [0] * count)[k]
                with m.Case(v):
                    m.d.comb += [nz.eq(d != 0), two.eq(abs(d) == 2), neg.eq(d < 0)]
            with m.Default():                 # beyond `small`: no such input (and a complete case)
                m.d.comb += [nz.eq(0), two.eq(0), neg.eq(0)]
        out.append((nz, two, neg))
    return out


def digit_signals(m: Module, ctl: Iterable[tuple[Value, Value, Value]], flip: ValueLike, off: ValueLike,
                  name: str) -> DigitControls:
    """A product's controls from the digit controls (`digit_controls`): per digit (on, two,
    subtract), `flip` negating, `off` zeroing them all; each a signal of its own, so each bit
    of a digit's term and its adder (`accumulate`) is one LUT: acc, two bits of w and these."""
    out = []
    for k, (nz, two, neg) in enumerate(ctl):
        on, dbl, sub = (Signal(name=f"{name}_d{k}_{x}") for x in ("on", "two", "sub"))
        m.d.comb += [on.eq(nz & ~off), dbl.eq(two), sub.eq(neg ^ flip)]
        out.append((on, dbl, sub))
    return out


def digit_terms(w: Value, signals: Iterable[tuple[Value, Value, Value]], width: int) -> list[SignedTerm]:
    """w times a small signed x as (negative, term, shift) triples, one per digit of |x|:
    the digit's 0, w or 2w at shift 2k (`signals`: `digit_signals`)."""
    return [(sub, Mux(on, Mux(dbl, w << 1, w)[:width - 2 * k], 0), 2 * k)
            for k, (on, dbl, sub) in enumerate(signals) if 2 * k < width]   # higher: 0 mod 2^width


def accumulate(m: Module, acc: ValueLike, terms: Iterable[SignedTerm], width: int, name: str) -> Value:
    """acc plus the signed terms (negative, term, shift), each times 2^shift, mod 2^width:
    one adder each, over the bits above its shift (the bits below pass through)."""
    acc = C(acc, width) if isinstance(acc, int) else Value.cast(acc)
    for k, (neg, term, shift) in enumerate(terms):
        acc = Cat(acc[:shift], add_sub(m, acc[shift:width], term, neg, width - shift, f"{name}_{k}"))
    return acc


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


def add_sub(m: Module, acc: Value, term: Value, neg: ValueLike, width: int, name: str) -> Value:
    """acc - term if neg else acc + term, mod 2^width, as one subtraction whose minuend is
    acc: acc + (term ^ neg) + neg = acc - (term ^ ~neg) - ~neg, the ~neg as the borrow into
    an extra low bit. Yosys (alumacc) keeps a subtraction's minuend on the carry chain's
    direct input, so each bit's term logic, sign and sum bit fit the chain's one LUT (an
    addition's operands it may swap, and then the term needs a LUT of its own)."""
    pos = ~Value.cast(neg)
    total = Signal(width + 1, name=f"{name}_sum", attrs={"lint_unused": "bit 0 only takes the borrow in"})
    m.d.comb += total.eq(Cat(C(0, 1), acc) - Cat(pos, term ^ pos.replicate(width)))
    return total[1:width + 1]


def thermometer_step(fresh: Value, taps: int, last: Value) -> Value:
    """The next `fresh` thermometer: one more tap (the next lower) takes this window's input;
    after the window's last position, only the top tap."""
    top = 1 << (taps - 1)
    return Mux(last, top, fresh | (fresh >> 1))


def one_hot_load(fresh: Value, taps: int) -> Value:
    """Bit j: tap j is the lowest fresh one, the tap whose weight arrives now."""
    return fresh & ~Cat(0, fresh[:taps - 1])


#: digits a chain of a registered array adds per tap: two adders between registers
PER_CHAIN = 2
#: taps one copy of the decoded x controls drives (RegisteredFir's x_copies): a copy a group
#: keeps the broadcast to the taps' control registers short
TAPS_PER_X_COPY = 16


def x_copies(taps: int) -> int:
    """How many copies of x RegisteredFir's taps 1..taps-1 take: one per TAPS_PER_X_COPY."""
    return max(1, -(-(taps - 1) // TAPS_PER_X_COPY))


def coded(v: ValueLike, g: int) -> Value:
    """Copy g's code of a register's value (XOR with g, which XOR undoes). Yosys's opt_merge
    makes equal registers one, so equal copies would be one register and one decoder: coded,
    the bits where g has ones stay apart, and so does each copy's decoding (a function of
    its own bits), which is what drives the taps."""
    v = Value.cast(v)
    g %= 1 << len(v)
    return v ^ C(g, len(v)) if g else v


class RegisteredFir(FirPorts):
    """NegacyclicFir's array (the same windows, `fresh`, `load`, weights and x shift
    register, all moving on `advance`) built for a fast clock: every adder's operands are
    registers or one LUT from them, and no path crosses more than two adders.

    - x comes one advance early as well (`x_sign_next`, `x_mag_next`: the x the next advance
      brings; `x_sign`, `x_mag`: this one, into the shift register). Each tap's controls
      (small: per digit on, two, subtract; else the multiplier's x, its sign and the load
      cycle's zero) are registers of the tap, set one advance early from the decoded next x
      or the shift register's: the broadcast to the taps ends in registers. With x_copies = c
      the taps fall in c groups, each decoding its own copy of the next x (the parent's
      registers, `x_next_copies`: the same value as x_sign_next, x_mag_next) and of the
      shift register's last x (coded copies here), so no decoded control fans out to more
      than TAPS_PER_X_COPY taps.
    - a tap's digits add in chains of at most PER_CHAIN (one register a tap each), summed
      at the end: |x| up to 10 has two radix-4 digits, up to 42 three (Fast.4's four-lane
      sums, 16: two chains).
    - tap 0's terms are computed one advance early (outside its load cycle it only ever
      works on the shift register's x) into a register a chain, from registers of its next
      weight (w_next, the w the next advance brings, in its load cycle) and of its controls
      (one more advance ahead); `y_part`, the chains' s_1 plus those registers, is y without
      the load cycle's products.
    - the load cycle's products, one running sum a chain (marked at each window's last
      position); `load_sum`, the last two marks' difference, holds slot 0's once the
      window's last position has advanced.
    So slot 0 is y_part at the window's last position plus load_sum at the next position,
    and every other slot is y_part (`y`, y_part plus this position's load products, is
    NegacyclicFir's output, for tests).
    """

    def __init__(self, taps: int, width: int, small: int = 0, name: str = "fir", w_width: int = 0,
                 x_width: int = 0, x_copies: int = 1) -> None:
        super().__init__(taps, width, small, name, w_width, x_width)
        self.w_next = Signal(self.w_width, name=f"{name}_w_next")
        self.x_sign_next = Signal(name=f"{name}_x_sign_next")
        self.x_mag_next = Signal(self.mag_bits, name=f"{name}_x_mag_next")
        self.x_next_copies = [(Signal(name=f"{name}_x_sign_next{g}"),
                               Signal(self.mag_bits, name=f"{name}_x_mag_next{g}")) for g in range(1, x_copies)]
        self.y_part = Signal(width, name=f"{name}_y_part")
        self.load_sum = Signal(width, name=f"{name}_load_sum")

    def chains(self) -> list[range]:
        """The digits each chain adds (a full x: one chain, its product)."""
        count = digit_count(self.small) if self.small else 1
        return [range(c, min(c + PER_CHAIN, count)) for c in range(0, count, PER_CHAIN)]

    def terms(self, w: Value, ctl: Sequence[Value]) -> list[SignedTerm]:
        """w times x as one term a digit (small: ctl the digits' (on, two, subtract)) or
        the product (ctl: x, negative, zero)."""
        if self.small:
            return digit_terms(w, [tuple(ctl[3 * k:3 * k + 3]) for k in range(len(ctl) // 3)], self.width)
        mag, neg, off = ctl
        return [(neg, Mux(off, 0, (w * mag)[:self.width]), 0)]

    def decoded(self, m: Module, sign: Value, mag: Value, flip: int, name: str) -> list[Value]:
        """The controls of x (sign, mag), negated if flip: small, per digit (on, two,
        subtract); a full x (unsigned): (x, flip, 0)."""
        if not self.small:
            return [mag, C(flip, 1), C(0, 1)]
        out: list[Value] = []
        for on, dbl, sub in digit_signals(m, digit_controls(m, mag, self.small, name), sign ^ flip, 0, name):
            out += [on, dbl, sub]
        return out

    def tap_controls(self, m: Module, fresh: Value, load: Value, new: list[Value], old: list[Value],
                     name: str) -> list[Signal]:
        """A tap's control registers: the next advance's, from the next x (fresh) or the
        shift register's (old), zero in the tap's load cycle."""
        return self.registered(m, self.off([Mux(fresh, f, o) for f, o in zip(new, old, strict=True)], load), name)

    def registered(self, m: Module, ctl: list[Value], name: str) -> list[Signal]:
        """Controls in registers, set with the advance (the next advance's)."""
        regs = [Signal(len(Value.cast(v)), name=f"{name}_c{x}") for x, v in enumerate(ctl)]
        with m.If(self.advance):
            m.d.sync += [r.eq(v) for r, v in zip(regs, ctl, strict=True)]
        return regs

    def off(self, ctl: list[Value], off: Value) -> list[Value]:
        """Controls zeroed where `off`: each digit's on, or the product's zero flag."""
        if not self.small:
            return [ctl[0], ctl[1], off]
        return [v & ~off if x % 3 == 0 else v for x, v in enumerate(ctl)]

    def last_copies(self, m: Module, hist: list[tuple[Signal, Signal]], groups: int) -> list[tuple[Value, Value]]:
        """The shift register's last x the taps wrap (hist[n-2]) and coded copies of it, set
        with it on the advance."""
        n = self.taps
        copies: list[tuple[Value, Value]] = [hist[n - 2]]
        before = hist[n - 3] if n > 2 else (self.x_sign if self.small else C(0, 1), self.x_mag)
        for g in range(1, groups):
            sign = Signal(name=f"{self.name}_xs{n - 1}_copy{g}")
            mag = Signal(self.mag_bits, name=f"{self.name}_xm{n - 1}_copy{g}")
            with m.If(self.advance):
                m.d.sync += [sign.eq(coded(before[0], g >> self.mag_bits)), mag.eq(coded(before[1], g))]
            copies.append((coded(sign, g >> self.mag_bits), coded(mag, g)))
        return copies

    def elaborate(self, platform: Any) -> Module:
        m = Module()
        n, name = self.taps, self.name
        hist = self.x_history(m, self.x_sign if self.small else 0)   # a full x is unsigned: x_sign unread
        # the next advance's thermometer and loads; the decoded next x and the shift register's
        fresh_next = thermometer_step(self.fresh, n, self.fresh[0])       # fresh[0]: the last position
        load_next = one_hot_load(fresh_next, n)
        groups = 1 + len(self.x_next_copies)
        news = [self.decoded(m, sign, mag, 0, f"{name}_new{g or ''}")
                for g, (sign, mag) in enumerate([(self.x_sign_next, self.x_mag_next), *self.x_next_copies])]
        olds = [self.decoded(m, sign, mag, 1, f"{name}_old{g or ''}")     # the wrap: negated
                for g, (sign, mag) in enumerate(self.last_copies(m, hist, groups))]
        weights = [Signal(self.w_width, name=f"{name}_t{j}_w") for j in range(n)]
        for j, reg in enumerate(weights):
            with m.If(self.advance & self.load[j]):
                m.d.sync += reg.eq(self.w_in)
        group = [(j - 1) * groups // (n - 1) for j in range(n)]
        taps = [self.terms(weights[j], self.tap_controls(m, fresh_next[j], load_next[j], news[group[j]],
                                                         olds[group[j]], f"{name}_t{j}"))
                for j in range(1, n)]
        # the load cycles' products (this window's x, its controls registered one advance early)
        loading = self.terms(self.w_in, self.registered(m, news[0], f"{name}_l"))
        # tap 0's next terms: its weight then, and the controls of the x hist[n-2] then holds
        # (hist[n-3] now, or x with two taps), 0 in its load cycle (the position after tap 1's)
        weight0 = Signal(self.w_width, name=f"{name}_t0_w_next")
        with m.If(self.advance):
            m.d.sync += weight0.eq(Mux(load_next[0], self.w_next, weight0))
        sign, mag = hist[n - 3] if n > 2 else (self.x_sign, self.x_mag)
        ahead = self.terms(weight0, self.registered(m, self.off(self.decoded(m, sign, mag, 1, f"{name}_ahead"),
                                                                load_next[1]), f"{name}_a"))
        parts, loads, slot0 = [], [], []
        for c, digits in enumerate(self.chains()):
            first, acc, load_acc, term0 = self.chain(m, c, [[t[d] for d in digits if d < len(t)] for t in taps],
                                                     [loading[d] for d in digits if d < len(loading)],
                                                     [ahead[d] for d in digits if d < len(ahead)])
            parts += [first, term0]
            loads.append(load_acc)
            slot0.append(acc)
        m.d.comb += [self.y_part.eq(sum(parts)), self.load_sum.eq(sum(loads)),
                     self.y.eq(self.y_part + Mux(self.load[0], sum(slot0), 0))]
        return m

    def chain(self, m: Module, c: int, taps: list[list[SignedTerm]], loading: list[SignedTerm],
              ahead: list[SignedTerm]) -> tuple[Signal, Value, Value, Signal]:
        """Chain c: s_1 (taps 1..n-1 in transpose form), this window's load products so far
        with this position's, those of the window before, and tap 0's register. The load
        products accumulate without a restart (no control on that adder's path): the running
        sum is marked at each window's last position, and a window's is the difference."""
        n, w, name = self.taps, self.width, f"{self.name}_ch{c}"
        chain = [Signal(w, name=f"{name}_s{j}") for j in range(n)]           # chain[0] unused
        for j in range(n - 1, 0, -1):
            nxt = Signal(w, name=f"{name}_s{j}_next")
            m.d.comb += nxt.eq(accumulate(m, chain[j + 1] if j + 1 < n else 0, taps[j - 1], w, f"{name}_t{j}"))
            with m.If(self.advance):
                m.d.sync += chain[j].eq(nxt)
        loads, loads_now = Signal(w, name=f"{name}_loads"), Signal(w, name=f"{name}_loads_now")
        m.d.comb += loads_now.eq(accumulate(m, loads, loading, w, f"{name}_l"))
        mark, mark_before = Signal(w, name=f"{name}_mark"), Signal(w, name=f"{name}_mark_before")
        term0 = Signal(w, name=f"{name}_t0_term")
        with m.If(self.advance):
            m.d.sync += [loads.eq(loads_now), term0.eq(accumulate(m, 0, ahead, w, f"{name}_a"))]
        with m.If(self.advance & self.load[0]):
            m.d.sync += [mark.eq(loads_now), mark_before.eq(mark)]
        return chain[1], loads_now - mark, mark - mark_before, term0
