"""The bit-exact values of family "fmlm3" (plan.py holds the plans and their timing).

fmlm3-transform: math.fmlm3's ct, nct, ct_inv and nct_inv (`transform`); the unit computes
them exactly.

rsa-fmlm3 as the hardware runs it (multiplier_hw.py; its steps: program.py): t = x*y*R^-1
mod N, R = 2^(uP) - 1, Algorithm 2 or 3 around ONE transform unit, with time-domain operands
and result (domain = time) or their spectra (domain = spectral): the frames and cfg words,
what the core holds after cfg (`Context`), and the passes with the candidates they form and
the facts that select one (`pass_m`, `pass_d`, `pass_t`), in the program's order
(`product`). Its t equals math.fmlm3.montgomery_multiply (tests check it against pow), its
spectral result math.fmlm3.montgomery_product's.

Frames: x, y in [0, N) as P digits of u bits, L = 2 bfs a beat (beat k, lane l: digit
Lk + l), H = P/L beats; the result the same way. domain = spectral: beat k = Cat(T lanes,
T' lanes, parity) (`spectral_frame`). cfg: N's spectra T(N') = CT(N'), T'(N) = NCT(N) as H
beats of L coefficients (K+1 bits) and N's digits as H beats (`cfg_words`).
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Sequence

from ...math import fmlm3
from .plan import CFG_SELECT, MultiplierPlan, TransformPlan

FUNCTIONS = {"ct": fmlm3.ct, "nct": fmlm3.nct, "ct_inv": fmlm3.ct_inv, "nct_inv": fmlm3.nct_inv}


# --- fmlm3-transform ----------------------------------------------------------------------
def transform(plan: TransformPlan, x: Sequence[int], kind: str | None = None) -> list[int]:
    """The unit's result: `kind` (the plan's one kind if None) of x."""
    return FUNCTIONS[kind or plan.kind](x, plan.ring)


# --- rsa-fmlm3: frames and cfg words --------------------------------------------------------
def default_modulus(bits: int, width: int, salt: int = 0) -> int:
    """A fixed odd N of exactly `bits` bits coprime to R = 2^width - 1 (the build's default)."""
    rng = random.Random(f"rsa-fmlm3 {bits} {salt}")
    while True:
        N = rng.getrandbits(bits) | 1 | 1 << (bits - 1)
        if math.gcd(N, (1 << width) - 1) == 1 and N < (1 << width) - 1:
            return N


@dataclasses.dataclass(frozen=True)
class Context:
    """What the core holds for one modulus after the cfg loads."""
    N: int
    T_N_prime: tuple[int, ...]
    Tn_N: tuple[int, ...]


def beats(plan: MultiplierPlan, values: Sequence[int], bits: int) -> list[int]:
    """L values a beat, lane l at bits [l bits, (l+1) bits)."""
    L = plan.lanes
    return [sum(x << (lane * bits) for lane, x in enumerate(values[k * L:(k + 1) * L])) for k in range(plan.H)]


def unbeats(plan: MultiplierPlan, words: Sequence[int], bits: int) -> list[int]:
    mask = (1 << bits) - 1
    return [(beat >> (lane * bits)) & mask for beat in words for lane in range(plan.lanes)]


def frame(plan: MultiplierPlan, x: int) -> list[int]:
    """x as H beats of L u-bit digits, least significant first."""
    return beats(plan, fmlm3.to_digits(x, plan.params.u, plan.params.P), plan.params.u)


def from_frame(plan: MultiplierPlan, words: Sequence[int]) -> int:
    return fmlm3.from_digits(unbeats(plan, words, plan.params.u), plan.params.u)


def spectral_frame(plan: MultiplierPlan, X: fmlm3.Spectral) -> list[int]:
    """Beat k = Cat(T(x) lanes, T'(x) lanes, x mod 2), coefficient Lk + l in lane l."""
    half = plan.lanes * (plan.K + 1)
    return [c | n << half | X.lsb << 2 * half for c, n in zip(
        beats(plan, X.cyclic, plan.K + 1), beats(plan, X.negacyclic, plan.K + 1), strict=True)]


def from_spectral_frame(plan: MultiplierPlan, words: Sequence[int]) -> fmlm3.Spectral:
    half = plan.lanes * (plan.K + 1)
    mask = (1 << half) - 1
    return fmlm3.Spectral(words[0] >> 2 * half & 1, tuple(unbeats(plan, [b & mask for b in words], plan.K + 1)),
                          tuple(unbeats(plan, [b >> half & mask for b in words], plan.K + 1)))


def cfg_words(plan: MultiplierPlan, N: int) -> list[int]:
    """The cfg payloads that load N: sel 1 beat k of T(N'), sel 2 of T'(N) (L coefficients
    of K+1 bits), sel 3 of N's digits (L digits of u bits); 3H words."""
    ctx = fmlm3.montgomery(plan.params, N)
    parts = {"T(N')": beats(plan, ctx.T_N_prime, plan.K + 1), "T'(N)": beats(plan, ctx.Tn_N, plan.K + 1),
             "N": frame(plan, N)}
    top = plan.cfg_data_bits
    return [data | k << top | CFG_SELECT[what] << (top + plan.index_bits)
            for what, words in parts.items() for k, data in enumerate(words)]


def load_cfg(plan: MultiplierPlan, words: Sequence[int]) -> Context:
    """The cfg decoder: each word to its store at its index."""
    top = plan.cfg_data_bits
    mask = (1 << top) - 1
    stores: dict[int, list[int]] = {sel: [0] * plan.H for sel in CFG_SELECT.values()}
    for word in words:
        index = (word >> top) & ((1 << plan.index_bits) - 1)
        stores[word >> (top + plan.index_bits)][index] = word & mask
    return Context(from_frame(plan, stores[CFG_SELECT["N"]]),
                   tuple(unbeats(plan, stores[CFG_SELECT["T(N')"]], plan.K + 1)),
                   tuple(unbeats(plan, stores[CFG_SELECT["T'(N)"]], plan.K + 1)))


# --- rsa-fmlm3: the passes ------------------------------------------------------------------
def accumulate(plan: MultiplierPlan, digits: Sequence[int]) -> tuple[int, int]:
    """The Accumulator over a read-out: sum d_i B^i = A + carry 2^(uP), A < 2^(uP)."""
    total = fmlm3.from_digits(digits, plan.params.u)
    return total & ((1 << plan.width) - 1), total >> plan.width


def pass_m(plan: MultiplierPlan, A: int, c1: int) -> int:
    """m = (A + c1) mod R from the candidates A + c1 and A + c1 + 1, selected by the
    second's carry out of uP bits (0 <= c1 < R)."""
    w = plan.width
    plain, plus_one = A + c1, A + c1 + 1
    return plus_one - (1 << w) if plus_one >> w else plain


def pass_d(plan: MultiplierPlan, A: int, c2: int) -> tuple[int, int]:
    """D = c2 - A + 2Q' (= -sum z4_i B^i mod Q') and j0, the least j with D + jQ' >= 0,
    from D's bits above uP and whether its low uP bits are 0 or 1."""
    w, bound = plan.width, 1 << (plan.K + 2)
    Q = (1 << w) + 1
    D = c2 - A + 2 * Q
    assert Q - bound < D < 2 * Q + bound and D >= 0
    high, low = D >> w, D & ((1 << w) - 1)
    at_least_2Q = high > 2 or (high == 2 and low >= 2)
    at_least_Q = high > 1 or (high == 1 and low >= 1)
    return D, -2 if at_least_2Q else -1 if at_least_Q else 0


def pass_t(plan: MultiplierPlan, D: int, j0: int, parity: int, N: int) -> int:
    """2t = D + jQ' for the j in [j0, j0 + 4) with D + jQ' = 2 parity mod 4 (Q' = 1 mod 4),
    halved; then t - N when it does not borrow."""
    Q = (1 << plan.width) + 1
    j = j0 + (2 * parity - D - j0) % 4
    twice = D + j * Q
    assert twice >= 0 and twice % 2 == 0
    t = twice >> 1
    assert t < 2 * N
    return t - N if t >= N else t


# --- rsa-fmlm3: one multiplication ----------------------------------------------------------
def spectra(plan: MultiplierPlan, x: int) -> fmlm3.Spectral:
    """x's parity, T(x) = CT(x) and T'(x) = NCT(x), as the transform unit computes them."""
    d = fmlm3.to_digits(x, plan.params.u, plan.params.P)
    return fmlm3.Spectral(x & 1, tuple(transform(plan.transform, d, "ct")),
                          tuple(transform(plan.transform, d, "nct")))


def multiply(plan: MultiplierPlan, ctx: Context, x: int, y: int) -> int:
    """t = x y R^-1 mod N as the core computes it, from the frames of x and y."""
    return product(plan, ctx, spectra(plan, x), spectra(plan, y))


def multiply_spectral(plan: MultiplierPlan, ctx: Context, X: fmlm3.Spectral, Y: fmlm3.Spectral) -> fmlm3.Spectral:
    """domain = spectral: T(t), T'(t) and t mod 2 from those of x and y (Algorithm 2's and
    3's input and output, the exponentiation loop's form; steps 18-19 on the core's t)."""
    return spectra(plan, product(plan, ctx, X, Y))


def product(plan: MultiplierPlan, ctx: Context, X: fmlm3.Spectral, Y: fmlm3.Spectral) -> int:
    """t from the spectra, the core's steps in order (the products commute, so the order
    the program forms them in does not change a value)."""
    p, ring, T = plan.params, plan.params.ring, plan.transform

    def mul(a: Sequence[int], b: Sequence[int]) -> list[int]:
        return fmlm3.pointwise(a, b, ring)

    z0 = mul(X.cyclic, ctx.T_N_prime)                                        # T(x) (.) T(N')
    xn = mul(Y.negacyclic, X.negacyclic)                                     # T'(x) (.) T'(y)
    if p.algorithm == 3:
        z0 = mul(Y.cyclic, z0)
    else:
        A, c = accumulate(plan, transform(T, z0, "ct_inv"))
        z0d = fmlm3.redundant_mod_r(A | c << plan.width, p.u, p.P)           # eq. (17)
        z0 = mul(transform(T, z0d, "ct"), Y.cyclic)
    A, c1 = accumulate(plan, transform(T, z0, "ct_inv"))
    m = pass_m(plan, A, c1)
    md = fmlm3.to_digits(m, p.u, p.P)
    z4 = [ring.add(a, b) for a, b in zip(mul(transform(T, md, "nct"), ctx.Tn_N), xn, strict=True)]
    A, c2 = accumulate(plan, fmlm3.restrict(transform(T, z4, "nct_inv"), p.P, p.u, p.M))
    D, j0 = pass_d(plan, A, c2)
    parity = (X.lsb & Y.lsb) ^ (md[0] & 1)                                   # N is odd
    return pass_t(plan, D, j0, parity, ctx.N)
