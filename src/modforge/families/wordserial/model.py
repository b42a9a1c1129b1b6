"""Word-serial Montgomery multiplication for RSA-sized integers, FIOS (finely integrated
operand scanning: Koc, Acar, Kaliski, "Analyzing and comparing Montgomery multiplication
algorithms", IEEE Micro 1996), with words of w bits, s = l/w words, R = 2^(w s):

    t = 0                                   (s + 1 words: t < 2N throughout)
    for i in 0..s-1:                        (the outer loop over the words of x)
        m = (t_0 + x_i y_0) N' mod 2^w      (N' = -N^-1 mod 2^w)
          = (t_0 N' + x_i (y_0 N' mod 2^w)) mod 2^w     (as the hardware forms it)
        c = 0
        for j in 0..s:                      (y_s = N_s = 0)
            (c, S) = t_j + x_i y_j + m N_j + c
            t'_(j-1) = S                    (j >= 1; S = 0 at j = 0 by the choice of m)
        t'_s = c                            (at most 1: the textbook's step j = s+1 with
        t = t'                               t_(s+1) = 0 adds only c; the hardware does not run it)
    u = t - N; result u if u >= 0 else t     (both always formed, then selected)

Output congruence: result = x*y*R^-1 mod N, fully reduced (0 <= result < N), for odd N with
3 <= N < 2^l = R (not necessarily of exactly l bits: P-521 in l = 528, 2^255 - 19 in 256)
and 0 <= x, y < N. Before the selection t < 2N (t_i < 2N, x_i, m <= 2^w - 1 and y < N give
t_(i+1) < (2N + 2 (2^w - 1) N) / 2^w = 2N, whatever N's size), so t has s + 1 words and
one subtraction of N fully reduces it; m makes the low word zero because N N' = -1 mod
2^w (N odd), and the s divisions by 2^w give t = x y R^-1 mod N with R = 2^(w s) coprime
to N. N's bit length enters nowhere.

The hardware's schedule and cycle formulas: plan.py.
"""

from __future__ import annotations

import random
from collections.abc import Sequence


def words(value: int, w: int, count: int) -> list[int]:
    """value's `count` words of w bits, least significant first."""
    mask = (1 << w) - 1
    return [(value >> (w * j)) & mask for j in range(count)]


def from_words(ws: Sequence[int], w: int) -> int:
    return sum(x << (w * j) for j, x in enumerate(ws))


def n_prime(modulus: int, w: int) -> int:
    """N' = -N^-1 mod 2^w (N odd)."""
    return (-pow(modulus, -1, 1 << w)) % (1 << w)


def fios(x: int, y: int, modulus: int, w: int, s: int) -> tuple[int, int]:
    """(t before the final subtraction, the result): the word loop as the hardware runs it."""
    mask = (1 << w) - 1
    xs, ys, ns = words(x, w, s), words(y, w, s) + [0], words(modulus, w, s) + [0]
    np_ = n_prime(modulus, w)
    y0np = (ys[0] * np_) & mask
    t = [0] * (s + 1)
    for i in range(s):
        m = (t[0] * np_ + xs[i] * y0np) & mask
        out, c = [0] * (s + 1), 0
        for j in range(s + 1):
            total = t[j] + xs[i] * ys[j] + m * ns[j] + c
            c = total >> w
            if j == 0 and total & mask:
                raise AssertionError("FIOS: the low word of t + x_i y + m N is not zero")
            if j >= 1:
                out[j - 1] = total & mask
        if c > 1:
            raise AssertionError("FIOS: t' >= 2^(l+1) (an operand not below N?)")
        out[s] = c                             # t'_s: the hardware's PE sends the last carry
        t = out
    value = from_words(t[:s + 1], w)
    borrow, diff = 0, []                       # t - N word by word, as the subtraction unit does
    for j in range(s + 1):
        d = t[j] - ns[j] - borrow
        borrow = int(d < 0)
        diff.append(d & mask)
    return value, (value if borrow else from_words(diff[:s], w))


def montgomery(x: int, y: int, modulus: int, w: int, s: int) -> int:
    """x*y*R^-1 mod N, R = 2^(w s), fully reduced (see the module docstring)."""
    return fios(x, y, modulus, w, s)[1]


def default_modulus(bits: int, salt: int = 0) -> int:
    """A fixed odd modulus of exactly `bits` bits (the build's reset value; salt: another one;
    `bits` >= 2)."""
    v = random.Random(2 * bits + salt).getrandbits(bits)
    return v | 1 | (1 << (bits - 1))

