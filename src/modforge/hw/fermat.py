"""Arithmetic in Z_M, M = 2^K + 1 (Fermat and pseudo-Fermat rings, FMLM3's transforms),
without multipliers.

Representation: K+1-bit unsigned values in [0, M), canonical (2^K = -1 is the only value
with bit K set), as math.fmlm3.Ring keeps them, so every block here is bit-exact to it.
Addition and subtraction (`fermat_add`, `fermat_sub`) use M's shape: a negative difference
d in [-2^K, 0) plus M is d mod 2^K + 1, an increment by the sign (two carry chains, no
comparator, no multiplexer).

A product by a power of two is a rotation with negation: 2^K = -1, so a*2^k with k in
[0, 2K) is -(a*2^(k-K)) for k >= K, and a*2^k with k < K is hi*2^K + lo = lo - hi (fold,
eq. 18). The shift control is (neg, amount): a barrel shift by amount < K, then lo - hi,
or hi - lo when neg (the negation costs nothing: the subtraction's operands swap before it).

A product by A^e (the twiddles, A = 2^c) is one such shift for an integer c; for c = 1/2
(A = sqrt(2) = 2^(3K/4) - 2^(K/4) = 2^(K/4) (2^(K/2) - 1), eq. 14 corrected) and e odd it
is -z*(2^(K/2) - 1) for the shift z = -a*2^(h + K/4), h = floor(e/2): the paper's
Supplemental Block (two shifts of a*2^h, by 3K/4 and K/4, and their difference) as one
shift and one subtraction. The shift yields z - 1 mod M (the same chains as z), and from
w = z - 1 = Cat(L, H) the product is w - Cat(~H, L) with no constant left over.

  shift_control(K, k)          (neg, amount) of a*2^k, any integer k
  power_control(K, c, e, k)    the packed control word of a*A^e*2^k (PowerMul.ctrl)
  fixed_shift(a, k, K)         a*2^k mod M for a constant k: wiring and one subtraction
  fermat_fold_difference(d, K) d mod M for a difference d of two values in [0, M)
  fermat_sub_minus_one(a, b, K) a - b - 1 mod M: fermat_sub's chains without the carry in
  sqrt2_step(w, K, odd)        -z*(2^(K/2) - 1) mod M from w = z - 1: one subtraction
  PowerMul                     a*A^e*2^k mod M, pipelined: 2 stages (3 with sqrt(2),
                               power_mul_depth)
  MulAdd                       a*b + c mod M, the component-wise Multiply Adder (Sec. 5.2):
                               a Karatsuba product of the K-bit parts (hw.dsp) + c with the
                               65th bit's correction, then one fold; 6 stages (deep: a
                               stage more a Karatsuba level above two, mul_add_depth)
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from amaranth.hdl import Cat, Const, Elaboratable, Module, Mux, Signal, Value, ValueLike

from .dsp import (
    DEEP_SEGMENT,
    DSP_PROFILES,
    KARATSUBA_STAGES,
    DspSizes,
    carry_save,
    carry_select_add,
    deep_stages,
    karatsuba_levels,
    karatsuba_multiply,
    karatsuba_operands,
    karatsuba_recombine,
    karatsuba_split,
    karatsuba_sum,
    karatsuba_terms,
    split_stages,
)
from .pipeline import Stager, register
from .select import pick

Between = Callable[[Value], Value] | None     # what comes between two carry chains (a register)


def modulus(K: int) -> int:
    return (1 << K) + 1


def fermat_sub(a: ValueLike, b: ValueLike, K: int, between: Between = None) -> Value:
    """a - b mod M, a and b in [0, M) (K+1 bits): d = a - b, and if d < 0, d + M = d mod 2^K + 1.
    between: applied to d, between the two carry chains (a register: `PowerMul` deep)."""
    a = Value.cast(a)
    d = Cat(a, Const(0, max(0, K + 1 - len(a)))) - b
    return fermat_fold_difference(between(d) if between else d, K)


def fermat_fold_difference(d: ValueLike, K: int) -> Value:
    """d mod M for a signed d in (-M, M) (K+2 bits or more): d + M = d mod 2^K + 1 if d < 0."""
    d = Value.cast(d)
    negative = d[-1]
    return (Cat(d[:K], d[K] & ~negative) + negative)[:K + 1]


def fermat_add(a: Value, b: ValueLike, K: int) -> Value:
    """a + b mod M, a and b in [0, M): s = a + b = s1 2^K + s0 = s0 - s1 (s1 <= 2)."""
    s = a + b
    return fermat_sub(s[:K], s[K:K + 2], K)


def shift_control(K: int, k: int) -> tuple[int, int]:
    """a*2^k = (-1)^neg a*2^amount mod 2^K + 1, amount in [0, K)."""
    k %= 2 * K
    return (1, k - K) if k >= K else (0, k)


def amount_bits(K: int) -> int:
    return max(1, (K - 1).bit_length())


def control_width(K: int, sqrt2: bool, step: int = 1, offset: int = 0) -> int:
    """Bits of a PowerMul control word: (amount, neg), odd with sqrt(2), and the rotation index
    with a step (`rotation_step`)."""
    index = 0 if step == 1 else (K // step - 1).bit_length() + (offset != 0)
    return amount_bits(K) + 1 + sqrt2 + index


def power_control(K: int, c: Fraction | int, e: int, k: int = 0, sqrt2: bool = False, step: int = 1,
                  offset: int = 0) -> int:
    """The control word of a product by A^e * 2^k, A = 2^c (c a positive integer or 1/2):
    Cat(amount, neg[, odd][, index]), the shift z = a*2^s of PowerMul's first two stages; an
    odd power of sqrt(2) = 2^(K/4) (2^(K/2) - 1) is -z*(2^(K/2) - 1) (stage 3), z =
    -a*2^(h + K/4). sqrt2: the block has the supplemental path (needed only if c = 1/2 and
    some e is odd). step, offset: the block's (`rotation_step`; index: `rotation_index`)."""
    c = Fraction(c)
    if c.denominator == 1:
        shift, odd = int(c) * e + k, 0
    else:
        half, odd = divmod(e, 2)
        shift = half + k + (K + K // 4 if odd else 0)
        if odd and not sqrt2:
            raise ValueError("an odd power of sqrt(2) needs the supplemental path (sqrt2=True)")
    neg, amount = shift_control(K, shift)
    word = amount | neg << amount_bits(K) | (odd << amount_bits(K) + 1 if sqrt2 else 0)
    if step > 1:
        word |= rotation_index(amount, step, offset) << amount_bits(K) + 1 + sqrt2
    return word


def fermat_sub_minus_one(a: Value, b: ValueLike, K: int, between: Between = None) -> Value:
    """a - b - 1 mod M, a and b K-bit: e = a + ~b = a - b - 1 + 2^K (no carry in), and without
    its carry (a - b - 1 < 0) the residue is e mod 2^K + 1: fermat_sub's two carry chains
    (between: applied to e, as there)."""
    e = a + (~Value.cast(b))[:K]
    if between:
        e = between(e)
    return (e[:K] + ~e[K])[:K + 1]


def sqrt2_step(w: ValueLike, K: int, odd: ValueLike, between: Between = None) -> Value:
    """-z*(2^(K/2) - 1) mod M when odd is high, else z, from w = z - 1 mod M (z in [0, M)):
    one fermat_sub. With w = Cat(L, H) < 2^K, w*2^(K/2) = L 2^(K/2) - H, so
    -(w + 1)(2^(K/2) - 1) = w - (L 2^(K/2) + 2^(K/2) - 1 - H) = w - Cat(~H, L): no constant
    left over (z - 1 in is what makes it so). z = 0 (w = 2^K): 0. Even: z = w + 1 = w - 2^K."""
    w = Value.cast(w)
    half = K // 2
    w0, w1 = w[:K], w[K]
    low, high = w0[:half], w0[half:]
    odd_y = Cat(~high & ~w1.replicate(half), low, Const(0, 1))
    return fermat_sub(w0, Mux(odd, odd_y, Cat(Const(0, K), ~w1)), K, between)


def rotate_left(m: Module, x: ValueLike, index: Value, K: int, name: str, step: int = 1, offset: int = 0) -> Value:
    """x (K bits) rotated left: a log rotator of 4:1 steps, each written as hw.select.pick (one
    LUT6 a bit and step), index two bits a step (`rotation_levels`): the amount (< K), or
    with a step (`rotation_step`) the amount's `rotation_index`. Each step is a signal:
    Amaranth lowers an expression once per use, and a step reads the one before four times,
    so nested expressions would make the netlist grow as K^2 (K = 288: over 20 GB to
    generate)."""
    rotated = Value.cast(x)
    for level, rotations in enumerate(rotation_levels(K, step, offset)):
        stage = Signal(K, name=f"{name}_r{2 * level}")
        m.d.comb += stage.eq(pick(index[2 * level:2 * level + 2], [rotated.rotate_left(r % K) for r in rotations]))
        rotated = stage
    return rotated


def rotation_levels(K: int, step: int = 1, offset: int = 0) -> list[tuple[int, ...]]:
    """The rotations each 4:1 (or 2:1) step of `rotate_left` picks among, for the amounts
    step j + {0, offset}, j < K / step: (0, offset, step, step + offset) first when there is
    an offset, then two bits of j a level (step 1: two bits of the amount a level)."""
    bits = (K // step - 1).bit_length()
    levels: list[tuple[int, ...]] = []
    k = 0
    if offset:
        levels.append((0, offset, step, step + offset))
        k = 1
    while k < bits:
        width = min(2, bits - k)
        levels.append(tuple((t << k) * step for t in range(1 << width)))
        k += width
    return levels


def rotation_step(K: int, step: int, offset: int) -> tuple[int, int]:
    """(step, offset) when every amount is step j or step j + offset (FMLM3's twiddles: step
    c, K = cP) and the rotator of those alone has fewer levels; else (1, 0): the amount's bits."""
    if step > 1 and len(rotation_levels(K, step, offset)) < len(rotation_levels(K)):
        return step, offset
    return 1, 0


def rotation_index(amount: int, step: int, offset: int) -> int:
    """The index of `rotate_left` for an amount: Cat(plus, j) (amount = step j + plus offset),
    j without an offset."""
    j, rest = divmod(amount, step)
    if rest not in (0, offset):
        raise ValueError(f"amount {amount} is not {step} j or {step} j + {offset}")
    return j << 1 | (rest != 0) if offset else j


def fixed_shift(a: ValueLike, k: int, K: int, enable: ValueLike = 1, between: Between = None) -> Value:
    """a*2^k mod M for a constant k when enable is high, else a (a in [0, M)): the rotation is
    wiring, one fermat_sub (PowerMul's second stage with a fixed split; between: as there). x =
    a0 2^amount = lo - hi (lo: a0's low K - amount bits moved up, hi: its top bits wrapped
    around), negated by swapping the operands; a = 2^K = -1 (a1 = 1, a0 = 0) gives 2^amount on
    the side that negates it, so the result needs no multiplexer on a1."""
    neg, amount = shift_control(K, k)
    a = Value.cast(a)
    a0, a1 = a[:K], a[K]
    lo = Cat(Const(0, amount), a0[:K - amount])
    hi = Cat(a0[K - amount:], a1)                       # a1: a0 = 0, hi = 2^amount
    x, y = (hi, lo) if neg else (lo, hi)
    return fermat_sub(Mux(enable, x, a), Mux(enable, y, 0), K, between)


def low_mask(amount: Value, K: int) -> Value:
    """The bits of a rotation by amount that belong to lo (bits >= amount)."""
    top = (1 << len(amount)) - 1
    return Cat(*(amount <= j if j < top else Const(1) for j in range(K)))


def power_mul_depth(sqrt2: bool, deep: bool = False) -> int:
    """PowerMul's pipeline depth (without building one): deep, a stage more a subtraction."""
    return 2 + sqrt2 + (1 + sqrt2 if deep else 0)


class PowerMul(Elaboratable):
    """a (K+1 bits, in [0, M)) and ctrl (power_control) in; o = a*A^e*2^k mod M `depth`
    cycles later (no enable: one product a cycle, the pipeline never stalls).
    A shift by amount < K is a K-bit rotation: a0 2^amount = hi 2^K + lo, and the rotation
    holds lo in bits >= amount, hi below, so lo - hi needs no 2K-bit shifter; a = 2^K = -1
    (a1 = 1, a0 = 0) rotates 1 with the sign flipped. An odd power of sqrt(2) =
    2^(K/4) (2^(K/2) - 1) is one more subtraction on the shifted z (sqrt2_step).
      stage 1: the rotation of a0 | a1 (registered with the amount and the sign)
      stage 2: z = lo - hi or hi - lo mod M (the split at `amount` is a mask); with sqrt(2)
               z - 1 mod M (fermat_sub_minus_one: the same chains)
      stage 3 (sqrt2): -z*(2^(K/2) - 1) for an odd power, else z (sqrt2_step)
    deep: each subtraction's two carry chains (the difference, its fold mod M) in stages of
    their own, for devices whose carry chains are slow (ECP5: at K = 128 the two chains
    after the mask were a whole core's critical path).
    step, offset: every amount is step j or step j + offset: the rotator takes those alone (the
    caller's choice, `rotation_step`; the control word carries their rotation_index)."""

    def __init__(self, K: int, sqrt2: bool = False, name: str = "pm", step: int = 1, offset: int = 0,
                 deep: bool = False) -> None:
        self.K, self.sqrt2, self.step, self.offset, self.deep = K, sqrt2, step, offset, deep
        self.depth = power_mul_depth(sqrt2, deep)
        self.a = Signal(K + 1, name=f"{name}_a")
        self.ctrl = Signal(control_width(K, sqrt2, step, offset), name=f"{name}_ctrl")
        self.o = Signal(K + 1, name=f"{name}_o")
        self.name = name

    def elaborate(self, platform: Any) -> Module:
        m = Module()
        K, ab, name = self.K, amount_bits(self.K), self.name
        neg = self.ctrl[ab] ^ self.a[K]
        if self.deep:
            # x's bits (lo's, or hi's when negated) registered beside the rotation: the
            # amount's decode before the subtraction's chain was a K = 128 core's critical path
            x_mask = register(m, low_mask(self.ctrl[:ab], K) ^ neg.replicate(K), f"{name}_xm")
        else:
            amount1, neg1 = Signal(ab, name=f"{name}_k1"), Signal(name=f"{name}_n1")
            m.d.sync += [amount1.eq(self.ctrl[:ab]), neg1.eq(neg)]
        # registered inverted: the subtraction's carry chain propagates on ~rot (its operands
        # are rot's complementary masks), so no inverter a bit after it
        rot_n = Signal(K, name=f"{name}_rot_n")
        index = self.ctrl[:ab] if self.step == 1 else self.ctrl[ab + 1 + self.sqrt2:]
        m.d.sync += rot_n.eq(~rotate_left(m, self.a[:K] | self.a[K], index, K, name, self.step, self.offset))
        rot = ~rot_n
        if self.deep:
            x, y = rot & x_mask, rot & ~x_mask
        else:
            low = low_mask(amount1, K)
            lo, hi = rot & low, rot & ~low
            x, y = Mux(neg1, hi, lo), Mux(neg1, lo, hi)

        def kept(suffix: str) -> Between:            # deep: a register between the two chains
            return (lambda d: register(m, d, f"{name}_{suffix}")) if self.deep else None

        out = Signal(K + 1, name=f"{name}_out")
        if self.sqrt2:
            odd = self.ctrl[ab + 1]
            for k in range(2 + self.deep):                          # to w's stage
                odd = register(m, odd, f"{name}_odd{k + 1}")
            w = register(m, fermat_sub_minus_one(x, y, K, kept("e")), f"{name}_w")     # z - 1 mod M
            m.d.sync += out.eq(sqrt2_step(w, K, odd, kept("d")))
        else:
            m.d.sync += out.eq(fermat_sub(x, y, K, kept("d")))
        m.d.comb += self.o.eq(out)
        return m


def mul_add_depth(K: int, dsp: DspSizes = DSP_PROFILES["dsp48e2"], deep: bool = False) -> int:
    """A MulAdd's stages (`MulAdd`): 6; deep one more a Karatsuba level above the first two,
    one more for the split's top level (two levels or more), one each for the inputs, the
    root's carry-save terms and the fold."""
    if not deep:
        return 1 + KARATSUBA_STAGES + 2
    return 2 + split_stages(K, dsp, True) + KARATSUBA_STAGES + 3 + deep_stages([karatsuba_levels(K, dsp)])


class MulAdd(Elaboratable):
    """a, b, c (K+1 bits, in [0, M)) in; o = a*b + c mod M `depth` cycles later
    (`mul_add_depth`), one operation a cycle, no enable. dsp: a hw.dsp profile (Gamma_A,
    Gamma_B), default the paper's DSP48E2; None: one K x K product left to the synthesis tool.
    a = a1 2^K + a0 with a1 = 1 only for a = 2^K = -1 (then a0 = 0), b alike, so
      a*b = a0 b0 - a1 b0 - b1 a0 + a1 b1 (mod M),
    and a0 b0 = 0 whenever a correction term is not: the corrections OR into the product
    (a1 b1 at bit 0, a1 b0 | b1 a0 at bit K: -x = x 2^K mod M).
      stage 1: a, b, c registered: they come from block RAM through a store select, whose
               clock-to-out (5.8 ns on ECP5) before stage 2's chained differences was the
               critical path (deep: registered twice, the second beside the multipliers: the
               stores' block RAMs and their select sit across the die from them)
      stage 2: hw.dsp.karatsuba_split (the differences; deep: the top level's in a stage of
               its own, they are chains in series); a1, b1, c ride along
      stage 3: hw.dsp.karatsuba_multiply (the DSPs); the correction word from the leaves'
               registers (a0, b0 digits), c rides
      stage 4: hw.dsp.karatsuba_recombine (the nodes over the leaves); the rest rides
               (deep: again, a stage a level up to the root's children, hw.dsp.deep_stages)
      stage 5: r = a0 b0 | corrections + c (the rest of the recombination; deep: the root
               alone, its carry-save terms registered (hw.dsp.carry_save), then their
               carry-select sum in a stage of its own), < 2^(2K+1)
      stage 6: the fold r0 - r1 mod M (K-bit digits, r1 <= 2^K, eq. 18; deep: the difference
               and its fold mod M in two, the whole K = 128 MulAdd's critical path before)
    deep: for a device whose carry chains are slow (ECP5): no stage sums more than one level."""

    def __init__(self, K: int, dsp: DspSizes = DSP_PROFILES["dsp48e2"], name: str = "ma", deep: bool = False) -> None:
        self.K, self.dsp, self.name, self.deep = K, dsp, name, deep
        self.depth = mul_add_depth(K, dsp, deep)
        self.a, self.b, self.c = (Signal(K + 1, name=f"{name}_{x}") for x in "abc")
        self.o = Signal(K + 1, name=f"{name}_o")

    def elaborate(self, platform: Any) -> Module:
        m = Module()
        K, name = self.K, self.name
        # datapath registers, no reset (a module of its own: its unread rst port is waived,
        # verilog.waivers.mark_unread_reset)
        stage = Stager(m, Const(1))
        a, b, c = self.a, self.b, self.c
        for k in range(1 + self.deep):                                                # stage 1
            a, b, c = (stage(x, f"{name}_{n}_in{k}") for x, n in zip((a, b, c), "abc", strict=True))
            stage.next()
        tree = karatsuba_split(stage, a[:K], b[:K], K, self.dsp, name, staged=self.deep)   # stage 2
        a1, b1 = a[K], b[K]
        for k in range(split_stages(K, self.dsp, self.deep)):                          # riding along
            a1, b1, c = stage(a1, f"{name}_a1_{k}"), stage(b1, f"{name}_b1_{k}"), stage(c, f"{name}_c2_{k}")
        stage.next()
        a0, b0 = karatsuba_operands(tree)       # stage 3: a0 and b0 are the leaves' registers
        correction = stage(Mux(a1, b0, 0) | Mux(b1, a0, 0), f"{name}_corr")
        both, c = stage(a1 & b1, f"{name}_both"), stage(c, f"{name}_c3")
        tree = karatsuba_multiply(stage, tree, self.dsp, name)
        stage.next()
        extra = deep_stages([karatsuba_levels(K, self.dsp)]) if self.deep else 0    # deep's recombinations
        riders = (f"{name}_corr", f"{name}_both", f"{name}_c3")
        for k in range(1 + extra):                                                     # stage 4 (and deep's)
            correction, both, c = (stage(x, f"{n}_{4 + k}") for x, n in zip((correction, both, c), riders, strict=True))
            tree = karatsuba_recombine(stage, tree, name)
            stage.next()
        # both and correction are nonzero only when a0 b0 = 0: ORed into the product (free)
        overlay = Cat(both, Const(0, K - 1), correction)
        if self.deep:                       # the root's carry-save terms registered before their sum
            width = 2 * K + 1
            terms = carry_save(m, karatsuba_terms(m, tree, name, width, overlay) + [Cat(c, Const(0, K))], width,
                               f"{name}_f")
            terms = [stage(t, f"{name}_cs{k}") for k, t in enumerate(terms)]
            stage.next()
            r = carry_select_add(m, terms[0], terms[1], width, DEEP_SEGMENT, f"{name}_f")
        else:
            r = karatsuba_sum(m, tree, name, overlay=overlay, addend=c)
        r = stage(r, f"{name}_r", 2 * K + 1)                                            # stage 5
        stage.next()

        def kept(d: Value) -> Value:            # deep: the difference registered before its fold
            d = stage(d, f"{name}_d")
            stage.next()
            return d
        m.d.comb += self.o.eq(stage(fermat_sub(r[:K], r[K:], K, kept if self.deep else None), f"{name}_o",
                                    K + 1))                                             # stage 6
        stage.next()
        assert stage.count == self.depth
        return m
