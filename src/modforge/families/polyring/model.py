"""Bit-exact models of the polynomial-ring multipliers (Tan et al., with the equations of
docs/corrections.md#fast-filter-equations): products in R_q = Z_q[x]/(x^n + 1).

    c = a*b mod (x^n + 1, q):  c_k = sum_{i+j=k} a_i b_j - sum_{i+j=k+n} a_i b_j  (mod q)

`negacyclic` is that definition, the reference. `fast` applies the 2- and 3-parallel
fast-filter identities recursively (each level's products live in R_{n/f}, y = x^f; the
y*P terms are negacyclic shifts, so the modular reduction is merged into each level's
post-processing). `Structure` flattens the iterated identities into what the hardware
builds: K products of length n/M in w = x^M, each of a sum of a's phases and the same sum
of b's phases (phase l: the coefficients of index = l mod M), and per output phase a sum
of +-1, +-2 times those products or w times them (w P: one negacyclic shift). Every
exponent of w is 0 or 1, because the top phase of every identity has no y term.

A prime q (`Lazy`, `wide`): nothing is reduced inside the multiplier. The phase sums,
the products and the post-processing are exact integers (the negacyclic wrap and the
identities' minus signs make them signed), computed modulo 2^W with W wide enough that the
exact value is known; an output coefficient leaves as u = c + offset, offset a multiple of
q at least the bound of |c| (so 0 <= u < 2^W and u = c mod q), and is reduced once.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence

#: the fast-filter identities: products P_j = (sum of phases in pre[j]) of a times the same
#: of b; output phase s = sum of coef * y^shift * P_j over post[s]
IDENTITIES = {
    2: ([(0,), (1,), (0, 1)],
        [[(0, 1, 0), (1, 1, 1)],                                  # c0 = P0 + y P1
         [(2, 1, 0), (0, -1, 0), (1, -1, 0)]]),                   # c1 = P2 - P0 - P1
    3: ([(0,), (1,), (2,), (0, 1), (1, 2), (0, 1, 2)],
        [[(0, 1, 0), (4, 1, 1), (1, -1, 1), (2, -1, 1)],          # c0 = P0 + y (P4 - P1 - P2)
         [(3, 1, 0), (0, -1, 0), (1, -1, 0), (2, 1, 1)],          # c1 = P3 - P0 - P1 + y P2
         [(5, 1, 0), (3, -1, 0), (4, -1, 0), (1, 2, 0)]]),        # c2 = P5 - P3 - P4 + 2 P1
}


def negacyclic(a: Sequence[int], b: Sequence[int], q: int) -> list[int]:
    """The schoolbook product a*b mod (x^n + 1, q), coefficients in [0, q)."""
    return [x % q for x in negacyclic_int(a, b)]


def negacyclic_int(a: Sequence[int], b: Sequence[int]) -> list[int]:
    """a*b mod x^n + 1 over the integers: c_k = sum_{i+j=k} a_i b_j - sum_{i+j=k+n} a_i b_j."""
    n = len(a)
    c = [0] * n
    for i, ai in enumerate(a):
        for j, bj in enumerate(b):
            k = i + j
            if k < n:
                c[k] += ai * bj
            else:
                c[k - n] -= ai * bj
    return c


def shift(p: Sequence[int], q: int) -> list[int]:
    """y * p mod (y^m + 1, q): one negacyclic shift."""
    return [(-p[-1]) % q] + [x % q for x in p[:-1]]


def factors(M: int) -> list[int]:
    """M = 2^a 3^b as the levels applied, outermost first (3s first: the paper's Fast.3
    before its 2-parallel iterations); [] for M = 1. ValueError for any other M."""
    out, rest = [], M
    for f in (3, 2):
        while rest % f == 0:
            out.append(f)
            rest //= f
    if rest != 1:
        raise ValueError(f"M={M} is not of the form 2^a 3^b")
    return out


def fast(a: Sequence[int], b: Sequence[int], q: int, levels: Sequence[int]) -> list[int]:
    """a*b mod (x^n + 1, q) by the iterated fast-filter identities (levels outermost
    first; the innermost products by `negacyclic`). n must be a multiple of prod(levels)."""
    if not levels:
        return negacyclic(a, b, q)
    f, n = levels[0], len(a)
    pre, post = IDENTITIES[f]
    pa = [a[s::f] for s in range(f)]
    pb = [b[s::f] for s in range(f)]
    products = [fast([sum(pa[s][i] for s in phases) % q for i in range(n // f)],
                     [sum(pb[s][i] for s in phases) for i in range(n // f)], q, levels[1:])
                for phases in pre]
    return interleave(products, post, q)


@dataclasses.dataclass(frozen=True)
class Structure:
    """The flattened fast M-parallel multiplier: K products of length n/M.

    pre[k]   the phases l (0..M-1) whose sum, of a and of b alike, product k multiplies
    post[l]  output phase l as ((k, coef, e), ...): coef * w^e * Q_k, e in {0, 1}
    """
    M: int
    pre: tuple[tuple[int, ...], ...]
    post: tuple[tuple[tuple[int, int, int], ...], ...]

    @property
    def K(self) -> int:
        return len(self.pre)

    def shifted(self) -> set[int]:
        """The products whose w-shifted form an output uses."""
        return {k for terms in self.post for k, _, e in terms if e}


@functools.cache
def structure(M: int) -> Structure:
    """Flatten the identities of factors(M): a product of the outer level, P_j, is the inner
    structure applied to the phase sums of pre[j]; y P_j moves each inner phase up by one and
    the top one, times w, to phase 0; outer phase s, inner phase l'' is phase s + f l''."""
    levels = factors(M)
    if not levels:
        return Structure(1, ((0,),), (((0, 1, 0),),))
    f = levels[0]
    inner = structure(M // f)
    Mi, pre_f, post_f = inner.M, *IDENTITIES[f]
    pre = tuple(tuple(sorted(f * li + s for s in phases for li in inner_phases))
                for phases in pre_f for inner_phases in inner.pre)
    post: list[tuple[tuple[int, int, int], ...]] = [()] * M
    for s, terms in enumerate(post_f):
        for li in range(Mi):
            acc: dict[tuple[int, int], int] = {}
            for j, coef, y in terms:
                src, up = (li, 0) if not y else ((li - 1, 0) if li else (Mi - 1, 1))
                for k, c2, e in inner.post[src]:
                    key = (j * inner.K + k, e + up)
                    acc[key] = acc.get(key, 0) + coef * c2
            if any(e > 1 for _, e in acc):
                raise AssertionError(f"M={M}: a product shifted twice")
            post[s + f * li] = tuple((k, c, e) for (k, e), c in sorted(acc.items()) if c)
    return Structure(M, pre, tuple(post))


def flat(a: Sequence[int], b: Sequence[int], q: int, st: Structure) -> list[int]:
    """a*b mod (x^n + 1, q) the way the hardware computes it: the K products of `st` on the
    phase sums (a's mod q, b's exact: a small signed b stays small), then per output phase
    the sum of coef * (w Q_k or Q_k)."""
    M, n = st.M, len(a)
    pa = [a[lane::M] for lane in range(M)]
    pb = [b[lane::M] for lane in range(M)]
    Q = [negacyclic([sum(pa[lane][i] for lane in ls) % q for i in range(n // M)],
                    [sum(pb[lane][i] for lane in ls) for i in range(n // M)], q) for ls in st.pre]
    return interleave(Q, st.post, q)


def interleave(products: list[list[int]], post: Sequence[Sequence[tuple[int, int, int]]], q: int) -> list[int]:
    """c from its phases: phase s = sum of coef * (y P_j if shifted else P_j) over post[s]."""
    parts, m = len(post), len(products[0])
    c = [0] * (parts * m)
    for s, terms in enumerate(post):
        phase = [0] * m
        for j, coef, shifted in terms:
            term = shift(products[j], q) if shifted else products[j]
            phase = [u + coef * v for u, v in zip(phase, term, strict=True)]
        c[s::parts] = [x % q for x in phase]
    return c



def wide(a: Sequence[int], b: Sequence[int], st: Structure) -> list[int]:
    """a*b mod x^n + 1 over the integers the way the lazy (prime q) hardware sums it: exact
    phase sums, the K products exact, per output phase the exact sum of coef * (w Q_k or Q_k)
    (w Q: one negacyclic shift, the top coefficient negated). Equal to negacyclic_int."""
    M, n = st.M, len(a)
    pa = [a[lane::M] for lane in range(M)]
    pb = [b[lane::M] for lane in range(M)]
    Q = [negacyclic_int([sum(pa[lane][i] for lane in ls) for i in range(n // M)],
                        [sum(pb[lane][i] for lane in ls) for i in range(n // M)]) for ls in st.pre]
    c = [0] * n
    for s, terms in enumerate(st.post):
        phase = [0] * (n // M)
        for k, coef, e in terms:
            term = [-Q[k][-1]] + Q[k][:-1] if e else Q[k]
            phase = [u + coef * v for u, v in zip(phase, term, strict=True)]
        c[s::M] = phase
    return c


@dataclasses.dataclass(frozen=True)
class Lazy:
    """The widths of the lazy datapath for a prime q (bounds from the worst case, every
    coefficient q - 1 or +-small):

    a_bits[k], b_bits[k]  product k's phase sums of a and of b (b small: the magnitude)
    acc_bits[k]           product k's systolic accumulator: signed, 2^(acc-1) > its bound
    bound                 max |c| of an output coefficient before the offset
    offset                the multiple of q added to it (>= bound)
    out_bits              W: u = c + offset < 2^W, the reduction's input
    """
    a_bits: tuple[int, ...]
    b_bits: tuple[int, ...]
    acc_bits: tuple[int, ...]
    bound: int
    offset: int
    out_bits: int

    @property
    def top(self) -> int:
        """The largest u = c + offset."""
        return self.bound + self.offset


def lazy(st: Structure, n: int, q: int, small: int = 0) -> Lazy:
    """The bounds and widths of `Lazy` for st's products of n/M taps."""
    taps = n // st.M
    a_max = [len(ls) * (q - 1) for ls in st.pre]
    b_max = [len(ls) * (small or q - 1) for ls in st.pre]
    q_max = [taps * x * y for x, y in zip(a_max, b_max, strict=True)]
    bound = max(sum(abs(coef) * q_max[k] for k, coef, _ in terms) for terms in st.post)
    offset = -(-bound // q) * q
    return Lazy(tuple(x.bit_length() for x in a_max), tuple(y.bit_length() for y in b_max),
                tuple(x.bit_length() + 1 for x in q_max), bound, offset, (bound + offset).bit_length())
