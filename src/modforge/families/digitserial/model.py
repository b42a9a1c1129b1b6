"""Bit-exact models of the digit-serial GF(p^m) multipliers of Beuchat, Miyoshi, Oyama and
Okamoto, "Multiplication over F_{p^m} on FPGA: A Survey" (ARC 2007), with the corrections of
docs/corrections.md.

GF(p^m) = GF(p)[x]/f(x), f monic irreducible of degree m.  Elements are polynomials of
degree < m, as tuples low degree first (modforge.math.poly, trimmed).  Every model below
runs the same steps as its hardware in `hw.py`, one loop iteration per clock step, with
the same registers; `trace`, when given a list, receives a dict of the register values
after each step.

Notation: n = ceil(m/D); digit i of a is (a_{Di}, ..., a_{Di+D-1}) with a_k = 0 for k < 0
and k >= m.  The reduction by f is eq. (2) of the paper, generated from f at design time:

    s mod f = sum_{i<m} s_i x^i + sum_{i=m}^{m+K-1} s_i (x^i mod f)      (deg s < m+K)

with the table x^i mod f, i = m..m+K-1 (`poly.xpow_table`).  It is a single level: valid
because every table entry is already reduced.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from modforge.math import poly

__all__ = [
    "Field", "groups", "reduction_cost", "reduction_operands",
    "mse_horner", "mse_shu", "mse_digit", "mse_pipelined",
    "lse_basic", "lse_digit", "lse_nam", "lse_pipelined",
    "n_digits",
]

#: a polynomial over GF(p), coefficients low degree first
Poly = tuple[int, ...]
#: a model's register values after each step, when the caller asks for them
Trace = list[dict[str, Any]] | None


def n_digits(m: int, D: int) -> int:
    """ceil(m/D): digits of the multiplier a(x)."""
    return -(-m // D)


def groups(D: int, R: int) -> list[range]:
    """Split the D partial products of a digit into R balanced groups (sizes floor/ceil of
    D/R, the largest ceil(D/R)): group r holds j in [floor(rD/R), floor((r+1)D/R))."""
    return [range(r * D // R, (r + 1) * D // R) for r in range(R)]


def reduction_cost(f: Sequence[int], p: int, D: int, high: int | None = None) -> dict[str, Any]:
    """Cost of eq. (2) reducing a polynomial with `high` coefficients above x^(m-1)
    (default D: Alg 3's s(x) of degree m+D-1, Alg 2's x^D p(x), Alg 5's x^D q(x)).

    Returns operands = max over output coefficients k of the number of nonzero terms summed
    (s_k plus every s_i (x^i mod f) with a nonzero x^k coefficient; the paper's "from 2 to
    D+1"), alpha = operands - 1 (additions of polynomials over GF(p^m): terms at distinct
    positions pack into one polynomial, wiring only), per_coefficient counts, and
    coefficient_additions = total GF(p) additions.
    """
    f = poly.trim(f)
    m = len(f) - 1
    high = D if high is None else high
    counts = [1] * m
    for r in poly.xpow_table(f, p, high):
        for k, c in enumerate(r):
            if c:
                counts[k] += 1
    ops = max(counts) if high else 1
    return {
        "operands": ops,
        "alpha": ops - 1,
        "per_coefficient": counts,
        "coefficient_additions": sum(c - 1 for c in counts),
        "worst_coefficient": counts.index(ops),
    }


def reduction_operands(f: Sequence[int], p: int, D: int) -> int:
    """Operands summed for the worst output coefficient of eq. (2) with digit size D
    (2 .. D+1 for a sparse f; 1 addition = 2 operands)."""
    return reduction_cost(f, p, D)["operands"]


@dataclass(frozen=True)
class Field:
    """GF(p)[x]/f with the eq. (2) table for up to `span` high coefficients."""

    p: int
    f: Sequence[int]     # stored trimmed, as a tuple
    span: int = 1
    table: tuple[Poly, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "f", poly.trim(self.f))
        object.__setattr__(self, "table", tuple(poly.xpow_table(self.f, self.p, self.span)))

    @property
    def m(self) -> int:
        return len(self.f) - 1

    def reduce(self, s: Sequence[int]) -> Poly:
        """Eq. (2): s mod f with the precomputed table; deg s < m + span."""
        s = poly.trim(s)
        m, p = self.m, self.p
        if len(s) > m + self.span:
            raise ValueError(f"eq. (2) table covers degree < {m + self.span}, got degree {len(s) - 1}")
        out = s[:m]
        for i in range(m, len(s)):
            if s[i]:
                row = self.table[i - m]
                out = poly.add(out, row if s[i] == 1 else poly.scale(row, s[i], p), p)
        return out

    def coeff(self, a: Sequence[int], k: int) -> int:
        """a_k, zero outside 0 .. m-1."""
        return a[k] if 0 <= k < min(len(a), self.m) else 0


def _pp(F: Field, a: Sequence[int], k0: int, base: Sequence[int], js: Iterable[int]) -> Poly:
    """sum_{j in js} a_{k0+j} x^j base(x): partial products, not reduced (a_k = 0 outside 0..m-1)."""
    t = ()
    for j in js:
        c = F.coeff(a, k0 + j)
        if c:
            term = poly.shift(base, j)
            t = poly.add(t, term if c == 1 else poly.scale(term, c, F.p), F.p)
    return t


def _sum(polys: Iterable[Sequence[int]], p: int) -> Poly:
    t = ()
    for x in polys:
        t = poly.add(t, x, p)
    return t


def _log(trace: Trace, **regs: Any) -> None:
    if trace is not None:
        trace.append(regs)


# ------------------------------------------------------------------------- MSE first

def mse_horner(p: int, f: Sequence[int], a: Sequence[int], b: Sequence[int], trace: Trace = None) -> Poly:
    """Algorithm 1 (Horner's rule, MSE first), m steps.

    p(x) = a(x) b(x) mod f(x).
    Register p <- 0; step i = m-1 .. 0: p <- a_i b(x) + (x p(x) mod f), eq. (2) with one
    table entry x^m mod f.
    """
    F = Field(p, f, 1)
    a, b = poly.trim(a), poly.trim(b)
    acc = ()
    for i in range(F.m - 1, -1, -1):
        acc = poly.add(_pp(F, a, i, b, [0]), F.reduce(poly.shift(acc, 1)), p)
        _log(trace, p=acc)
    return acc


def mse_shu(p: int, f: Sequence[int], a: Sequence[int], b: Sequence[int], D: int, trace: Trace = None) -> Poly:
    """Algorithm 2 (Shu, Kwon and Gaj), MSE first, ceil(m/D) steps.

    p(x) = a(x) b(x) mod f(x).
    Register p <- 0; step i = n-1 .. 0:
        t <- sum_{j<D} a_{Di+j} (x^j b(x) mod f)     (x^j b mod f by eq. (2), j-1 table entries)
        p <- t + (x^D p(x) mod f)                     (eq. (2), table x^m .. x^(m+D-1))
    """
    F = Field(p, f, D)
    a, b = poly.trim(a), poly.trim(b)
    bj = [F.reduce(poly.shift(b, j)) for j in range(D)]
    acc = ()
    for i in range(n_digits(F.m, D) - 1, -1, -1):
        t = _sum((poly.scale(bj[j], F.coeff(a, D * i + j), p) for j in range(D)), p)
        acc = poly.add(t, F.reduce(poly.shift(acc, D)), p)
        _log(trace, p=acc)
    return acc


def mse_digit(p: int, f: Sequence[int], a: Sequence[int], b: Sequence[int], D: int, trace: Trace = None) -> Poly:
    """Algorithm 3 (Song and Parhi, with the extra iteration of [3]), ceil(m/D)+1 steps.

    p(x) = a(x) b(x) mod f(x) = s(x) / x^D after the last step.
    Register s (m+D coefficients, degree m+D-1) <- 0; step i = n-1 .. -1:
        t <- sum_{j<D} a_{Di+j} x^j b(x)              (degree m+D-2, not reduced; digit -1 = 0)
        s <- t + x^D (s(x) mod f)                     (eq. (2), table x^m .. x^(m+D-1))
    After step -1, s = x^D (a b mod f): the result is coefficients D .. D+m-1 of s.
    """
    F = Field(p, f, D)
    a, b = poly.trim(a), poly.trim(b)
    s = ()
    for i in range(n_digits(F.m, D) - 1, -2, -1):
        t = _pp(F, a, D * i, b, range(D))
        s = poly.add(t, poly.shift(F.reduce(s), D), p)
        _log(trace, s=s)
    return poly.trim(s[D:D + F.m])


def mse_pipelined(p: int, f: Sequence[int], a: Sequence[int], b: Sequence[int], D: int, R: int,
                  trace: Trace = None) -> Poly:
    """Figure 1d: Algorithm 3 with the partial-product sum t(x) pipelined, ceil(m/D)+2 steps.

    p(x) = a(x) b(x) mod f(x) = s(x) / x^D after the last step.
    The D partial products of a digit are split into R groups (`groups`, at most ceil(D/R)
    each); one register level T_0..T_{R-1} holds the group sums, so s is the sum of R+1
    polynomials.  Registers T_r <- 0, s <- 0; step k = 0 .. n+1 (digit i = n-1-k, digits
    below 0 are zero), both updates from the old register values:
        T_r <- sum_{j in group r} a_{Di+j} x^j b(x)
        s   <- sum_r T_r + x^D (s(x) mod f)
    Step 0 only fills T (s stays 0); steps 1..n add digits n-1..0; step n+1 is Alg 3's
    extra iteration (T holds digit -1 = 0).  The register level costs one cycle.
    """
    F = Field(p, f, D)
    a, b = poly.trim(a), poly.trim(b)
    gs = groups(D, R)
    n = n_digits(F.m, D)
    T: list[Poly] = [()] * R
    s = ()
    for k in range(n + 2):
        i = n - 1 - k
        s_new = poly.add(_sum(T, p), poly.shift(F.reduce(s), D), p)
        T = [_pp(F, a, D * i, b, g) for g in gs]
        s = s_new
        _log(trace, s=s, T=list(T))
    return poly.trim(s[D:D + F.m])


# ------------------------------------------------------------------------- LSE first

def lse_basic(p: int, f: Sequence[int], a: Sequence[int], b: Sequence[int], trace: Trace = None) -> Poly:
    """Algorithm 4 (LSE first), m steps.

    p(x) = a(x) b(x) mod f(x).
    Registers p <- 0, q <- b; step i = 0 .. m-1:
        p <- p(x) + a_i q(x)
        q <- x q(x) mod f                              (eq. (2), one table entry)
    """
    F = Field(p, f, 1)
    a, b = poly.trim(a), poly.trim(b)
    acc, q = (), b
    for i in range(F.m):
        acc = poly.add(acc, _pp(F, a, i, q, [0]), p)
        q = F.reduce(poly.shift(q, 1))
        _log(trace, p=acc, q=q)
    return acc


def lse_digit(p: int, f: Sequence[int], a: Sequence[int], b: Sequence[int], D: int, trace: Trace = None,
              iterations: int | None = None) -> Poly:
    """Algorithm 5 (Bertoni et al.), LSE first, corrected: ceil(m/D)+1 steps (corrections.md#survey-alg5).

    p(x) = a(x) b(x) mod f(x) = s(x) mod x^m after the last step.
    Registers s (m+D-1 coefficients, degree m+D-2) <- 0, q <- b; step i = 0 .. n:
        t <- sum_{j<D} a_{Di+j} x^j q(x)               (degree m+D-2; digit n is zero)
        s <- (s(x) mod f) + t                          (eq. (2), table x^m .. x^(m+D-2))
        q <- x^D q(x) mod f                            (eq. (2), table x^m .. x^(m+D-1))
    After step n, t = 0 and s = a b mod f has degree < m.  `iterations` overrides the
    step count (the printed loop bound "0 to ceil(m/D)" read as ceil(m/D) iterations gives
    wrong results: s may still have degree >= m).
    """
    F = Field(p, f, D)
    a, b = poly.trim(a), poly.trim(b)
    n = n_digits(F.m, D)
    s, q = (), b
    for i in range(n + 1 if iterations is None else iterations):
        t = _pp(F, a, D * i, q, range(D))
        s = poly.add(F.reduce(s), t, p)
        q = F.reduce(poly.shift(q, D))
        _log(trace, s=s, q=q)
    return poly.trim(s[:F.m])


def lse_nam(p: int, f: Sequence[int], a: Sequence[int], b: Sequence[int], D: int, R: int,
            trace: Trace = None) -> Poly:
    """Figure 2c (Kumar et al., DAM for R = 2, NAM for R >= 2), ceil(m/D)+1 steps.

    p(x) = a(x) b(x) mod f(x), from the output register.
    R accumulators, accumulator r sums the partial products of group r (`groups`, at most
    ceil(D/R) each; degree m-1+max(group r), never reduced).  Registers c_r <- 0, q <- b;
    step i = 0 .. n-1:
        c_r <- c_r(x) + sum_{j in group r} a_{Di+j} x^j q(x)     (ceil(D/R)+1 operands)
        q   <- x^D q(x) mod f                                    (eq. (2))
    step n (the output register stage):
        out <- (sum_r c_r(x)) mod f            (adder tree of R operands, eq. (2) with
                                                table x^m .. x^(m+D-2))
    """
    F = Field(p, f, D)
    a, b = poly.trim(a), poly.trim(b)
    gs = groups(D, R)
    n = n_digits(F.m, D)
    c: list[Poly] = [()] * R
    q = b
    for i in range(n):
        c = [poly.add(c[r], _pp(F, a, D * i, q, g), p) for r, g in enumerate(gs)]
        q = F.reduce(poly.shift(q, D))
        _log(trace, c=list(c), q=q)
    out = F.reduce(_sum(c, p))
    _log(trace, out=out)
    return out


def lse_pipelined(p: int, f: Sequence[int], a: Sequence[int], b: Sequence[int], D: int, R: int,
                  trace: Trace = None) -> Poly:
    """Figure 2d: Algorithm 5 with t(x) pipelined through one register level of R group
    sums, ceil(m/D)+2 steps.

    p(x) = a(x) b(x) mod f(x) = s(x) mod x^m after the last step.
    Registers T_r <- 0, s <- 0, q <- b; step k = 0 .. n+1, all from the old values
    (digits k >= n are zero):
        T_r <- sum_{j in group r} a_{Dk+j} x^j q(x)
        s   <- (s(x) mod f) + sum_r T_r                  (R+1 polynomials)
        q   <- x^D q(x) mod f
    Step 0 only fills T; steps 1..n add digits 0..n-1; step n+1 is Alg 5's extra
    iteration (T holds digit n = 0) that leaves s reduced.
    """
    F = Field(p, f, D)
    a, b = poly.trim(a), poly.trim(b)
    gs = groups(D, R)
    n = n_digits(F.m, D)
    T: list[Poly] = [()] * R
    s, q = (), b
    for k in range(n + 2):
        s_new = poly.add(F.reduce(s), _sum(T, p), p)
        T = [_pp(F, a, D * k, q, g) for g in gs]
        q = F.reduce(poly.shift(q, D))
        s = s_new
        _log(trace, s=s, T=list(T), q=q)
    return poly.trim(s[:F.m])
