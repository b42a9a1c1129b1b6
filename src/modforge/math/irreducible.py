"""Irreducibility and factor degrees of polynomials over GF(p).

Polynomials are poly-module tuples (low degree first); for p = 2 an int
(bit i = x^i) or a string is accepted as well. p = 2 work is done on ints
(gf2), where squaring is a bit spread and sparse moduli reduce by folding.

Rabin's test: f of degree n is irreducible over GF(p) iff
  x^(p^n) = x (mod f)  and  gcd(x^(p^(n/q)) - x, f) = 1 for every prime q | n.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from itertools import product

from . import gf2, poly as P

__all__ = [
    "is_irreducible", "factor_degrees", "structure", "trinomials",
    "pentanomials", "lowest_weight_irreducible", "prime_factors",
]

#: a polynomial as the functions take it: coefficients low degree first, a string (parse_poly)
#: or, for p = 2, an int (bit i the coefficient of x^i)
PolyLike = Iterable[int] | str | int


def prime_factors(n: int) -> list[int]:
    """Distinct prime factors of n >= 1, ascending."""
    out, d = [], 2
    while d * d <= n:
        if n % d == 0:
            out.append(d)
            while n % d == 0:
                n //= d
        d += 1
    if n > 1:
        out.append(n)
    return out


def _check_p(p: int) -> None:
    if not P.is_prime_small(p):
        raise ValueError(f"p must be a prime, got {p!r}")


def _as_tuple(f: PolyLike, p: int) -> tuple:
    """Accept a tuple/list, a string (parse_poly) or, for p = 2, an int."""
    _check_p(p)
    if isinstance(f, str):
        return P.parse_poly(f, p)
    if isinstance(f, int) and not isinstance(f, bool):
        if p != 2:
            raise ValueError("an int polynomial is only accepted for p = 2")
        return gf2.to_tuple(f)
    if isinstance(f, bool):
        raise TypeError("a polynomial cannot be a bool")
    return P.trim(c % p for c in f)


# ------------------------------------------------------------------ p = 2

def _is_irreducible_gf2(f: int) -> bool:
    n = f.bit_length() - 1
    if n < 1:
        return False
    if n == 1:
        return True
    if not f & 1 or f.bit_count() % 2 == 0:  # x | f, or (x+1) | f
        return False
    x = 2
    checkpoints = {n // q for q in prime_factors(n)}
    # Ben-Or for i <= L (a factor of degree i divides x^(2^i) - x), with the
    # gcds batched over a running product: cheap rejection of polynomials with
    # small factors; then Rabin's checkpoints beyond L.
    L = min(n // 2, 64)
    h = x
    acc = 1
    for i in range(1, n + 1):
        h = gf2.mod(gf2.sqr(h), f)
        if i <= L:
            acc = gf2.mulmod(acc, h ^ x, f)
            if (i % 8 == 0 or i == L) and gf2.gcd(f, acc) != 1:
                return False
        elif i in checkpoints and gf2.gcd(f, h ^ x) != 1:
            return False
    return h == x


def _squarefree_gf2(f: int) -> list[tuple[int, int]]:
    """Square-free factorisation of f (int form): [(g, multiplicity)], g square-free."""
    out: list[tuple[int, int]] = []
    if f.bit_length() <= 1:
        return out
    # derivative over GF(2): coefficient of x^(i-1) is i*f_i, so keep odd i
    d = _odd_bits(f) >> 1
    if d == 0:  # f = g(x^2) = (g')^2 with g' = g with bits "unspread"
        return [(g, 2 * m) for g, m in _squarefree_gf2(_sqrt_gf2(f))]
    c = gf2.gcd(f, d)
    w = gf2.divmod2(f, c)[0]
    i = 1
    while w != 1:
        y = gf2.gcd(w, c)
        fac = gf2.divmod2(w, y)[0]
        if fac != 1:
            out.append((fac, i))
        i += 1
        w = y
        c = gf2.divmod2(c, y)[0]
    if c != 1:
        out += [(g, 2 * m) for g, m in _squarefree_gf2(_sqrt_gf2(c))]
    return out


def _odd_bits(f: int) -> int:
    mask = int.from_bytes(b"\xaa" * ((f.bit_length() + 7) // 8), "little")
    return f & mask


def _sqrt_gf2(f: int) -> int:
    """g with g^2 = f, for f having only even-degree terms."""
    g, i = 0, 0
    while f:
        if f & 1:
            g |= 1 << i
        f >>= 2
        i += 1
    return g


def _ddf_gf2(g: int, red: int) -> list[int]:
    """Degrees of the irreducible factors of square-free g (int form).

    red is a multiple of g (e.g. the original sparse f) used for the
    x^(2^i) arithmetic; gcds are taken with g. Factors of degree i divide
    x^(2^i) - x; gcds are batched over blocks of i with a running product.
    """
    degs: list[int] = []
    n = g.bit_length() - 1
    if n <= 0:
        return degs
    x = gf2.mod(2, red)
    h = x
    i = 0
    block = 16
    while g.bit_length() - 1 >= 2 * (i + 1):
        hs = []
        prod = 1
        for _ in range(block):
            i += 1
            h = gf2.mod(gf2.sqr(h), red)
            hs.append((i, h))
            prod = gf2.mulmod(prod, h ^ x, red)
        G = gf2.gcd(g, prod)
        if G != 1:
            for j, hj in hs:
                d = gf2.gcd(G, hj ^ x)
                if d != 1:
                    dd = d.bit_length() - 1
                    degs += [j] * (dd // j)
                    G = gf2.divmod2(G, d)[0]
                    g = gf2.divmod2(g, d)[0]
                    if G == 1:
                        break
    if g.bit_length() > 1:
        degs.append(g.bit_length() - 1)
    return degs


def _factor_degrees_gf2(f: int) -> list[int]:
    degs: list[int] = []
    while f and not f & 1:  # factor x
        degs.append(1)
        f >>= 1
    if f.bit_length() <= 1:
        return sorted(degs)
    parts = _squarefree_gf2(f)
    for g, m in parts:
        red = f if len(parts) == 1 and m == 1 else g
        degs += _ddf_gf2(g, red) * m
    return sorted(degs)


# ----------------------------------------------------------------- p odd

def _monic(f: tuple, p: int) -> tuple:
    return P.monic(f, p)


def _frobenius(h: tuple, f: tuple, p: int) -> tuple:
    """h^p mod f."""
    return P.powmod(h, p, f, p)


def _is_irreducible_p(f: tuple, p: int) -> bool:
    f = _monic(f, p)
    n = len(f) - 1
    if n < 1:
        return False
    if n == 1:
        return True
    if f[0] == 0:
        return False
    x = (0, 1)
    checkpoints = {n // q for q in prime_factors(n)}
    small = min(4, n // 2)
    h = x
    for i in range(1, n + 1):
        h = _frobenius(h, f, p)
        if i in checkpoints or i <= small:
            if P.gcd(f, P.sub(h, x, p), p) != (1,):
                return False
    return h == x


def _derivative(f: tuple, p: int) -> tuple:
    return P.trim((i * c) % p for i, c in enumerate(f) if i > 0)


def _pth_root(f: tuple, p: int) -> tuple:
    """g with g^p = f for f in GF(p)[x^p] (coefficients are fixed by Frobenius)."""
    return P.trim(f[::p])


def _squarefree_p(f: tuple, p: int) -> list[tuple[tuple, int]]:
    """Square-free factorisation of monic f over GF(p): [(g, multiplicity)]."""
    out: list[tuple[tuple, int]] = []
    if len(f) <= 1:
        return out
    d = _derivative(f, p)
    if not d:
        return [(g, p * m) for g, m in _squarefree_p(_pth_root(f, p), p)]
    c = P.gcd(f, d, p)
    w = P.divmod_poly(f, c, p)[0]
    i = 1
    while w != (1,):
        y = P.gcd(w, c, p)
        fac = P.divmod_poly(w, y, p)[0]
        if fac != (1,):
            out.append((P.monic(fac, p), i))
        i += 1
        w = y
        c = P.divmod_poly(c, y, p)[0]
    if c != (1,):
        out += [(g, p * m) for g, m in _squarefree_p(_pth_root(c, p), p)]
    return out


def _ddf_p(g: tuple, p: int) -> list[int]:
    """Degrees of the irreducible factors of square-free monic g over GF(p)."""
    degs: list[int] = []
    x = (0, 1)
    h = P.mod(x, g, p)
    i = 0
    while len(g) - 1 >= 2 * (i + 1):
        i += 1
        h = _frobenius(h, g, p)
        d = P.gcd(g, P.sub(h, x, p), p)
        if d != (1,):
            degs += [i] * ((len(d) - 1) // i)
            g = P.divmod_poly(g, d, p)[0]
            h = P.mod(h, g, p)
    if len(g) > 1:
        degs.append(len(g) - 1)
    return degs


def _factor_degrees_p(f: tuple, p: int) -> list[int]:
    f = _monic(f, p)
    degs: list[int] = []
    while len(f) > 1 and f[0] == 0:
        degs.append(1)
        f = f[1:]
    for g, m in _squarefree_p(f, p):
        degs += _ddf_p(g, p) * m
    return sorted(degs)


# ----------------------------------------------------------------- public

def is_irreducible(f: PolyLike, p: int) -> bool:
    """True iff f (degree >= 1) is irreducible over GF(p) (Rabin's test).

    Constants and the zero polynomial are not irreducible.
    """
    f = _as_tuple(f, p)
    if p == 2:
        return _is_irreducible_gf2(gf2.from_tuple(f))
    return _is_irreducible_p(f, p)


def factor_degrees(f: PolyLike, p: int) -> list[int]:
    """Sorted degrees of the irreducible factors of f over GF(p), with multiplicity.

    Square-free factorisation, then distinct-degree factorisation: the factors
    of degree d of a square-free g multiply to gcd(g, x^(p^d) - x) once the
    smaller degrees are divided out; their number is deg(gcd)/d.
    A nonzero constant gives []; zero raises ValueError.
    """
    f = _as_tuple(f, p)
    if not f:
        raise ValueError("factor_degrees: the zero polynomial has no factorisation")
    if p == 2:
        return _factor_degrees_gf2(gf2.from_tuple(f))
    return _factor_degrees_p(f, p)


def structure(f: PolyLike, p: int) -> dict:
    """Field or ring: {'irreducible', 'kind', 'factor_degrees', 'message', 'degree', 'p', 'poly'}.

    Z_p[x]/(f) is a field (GF(p^n)) iff f is irreducible of degree n.
    """
    f = _as_tuple(f, p)
    if len(f) < 2:
        raise ValueError(f"structure: modulus must have degree >= 1, got {P.format_poly(f, p)}")
    n = len(f) - 1
    text = P.format_poly(f, p)
    irr = is_irreducible(f, p)
    degs = [n] if irr else factor_degrees(f, p)
    if irr:
        msg = f"{text} is irreducible over GF({p}): Z_{p}[x]/(f) = GF({p}^{n}) is a field"
    else:
        msg = (f"{text} is reducible over GF({p}) (factor degrees "
               f"{', '.join(map(str, degs))}): Z_{p}[x]/(f) is a ring, not a field")
    return {
        "irreducible": irr,
        "kind": "field" if irr else "ring",
        "factor_degrees": degs,
        "message": msg,
        "degree": n,
        "p": p,
        "poly": text,
    }


#: progress(candidates tested, candidates in all), told before each test
Progress = Callable[[int, int], None]
#: the progress of the searches a caller cannot reach (poly=auto while an algorithm validates)
_reporting: ContextVar[Progress | None] = ContextVar("irreducible_progress", default=None)


@contextmanager
def searching(progress: Progress | None) -> Iterator[None]:
    """The searches run inside (trinomials, pentanomials, lowest_weight_irreducible) report
    to `progress` unless given their own."""
    token = _reporting.set(progress)
    try:
        yield
    finally:
        _reporting.reset(token)


def trinomials(p: int, n: int, progress: Progress | None = None) -> Iterator[tuple]:
    """Irreducible trinomials of degree n over GF(p), as tuples.

    p = 2: x^n + x^k + 1 for k = 1, 2, ..., n-1.
    p odd: x^n + a*x^k + b for k = 1.., then a = 1..p-1, then b = 1..p-1.
    """
    _check_p(p)
    progress = progress or _reporting.get()
    total = (n - 1) * (p - 1) ** 2
    for k in range(1, n):
        for a in range(1, p):
            for b in range(1, p):
                if progress is not None:
                    progress(((k - 1) * (p - 1) + a - 1) * (p - 1) + b - 1, total)
                c = [0] * (n + 1)
                c[n], c[k], c[0] = 1, a, b
                f = tuple(c)
                if is_irreducible(f, p):
                    yield f


def pentanomials(n: int, progress: Progress | None = None) -> Iterator[tuple]:
    """Irreducible x^n + x^k3 + x^k2 + x^k1 + 1 over GF(2), n > k3 > k2 > k1 > 0,
    in lexicographic order of (k3, k2, k1) (the NIST / IEEE 1363 choice)."""
    progress = progress or _reporting.get()
    total = math.comb(n - 1, 3)
    for k3 in range(3, n):
        for k2 in range(2, k3):
            for k1 in range(1, k2):
                if progress is not None:   # (k3, k2, k1) is the comb(k3-1,3) + comb(k2-1,2) + (k1-1)-th
                    progress(math.comb(k3 - 1, 3) + math.comb(k2 - 1, 2) + k1 - 1, total)
                fi = (1 << n) | (1 << k3) | (1 << k2) | (1 << k1) | 1
                if _is_irreducible_gf2(fi):
                    yield gf2.to_tuple(fi)


def _exponent_sets(n: int, m: int) -> Iterator[tuple]:
    """Increasing m-tuples from 1..n-1, ordered by their largest entry, then the next."""
    if m == 0:
        yield ()
        return
    for top in range(m, n):
        for rest in _exponent_sets(top, m - 1):
            yield rest + (top,)


def _general(p: int, n: int, weight: int) -> Iterator[tuple]:
    """Irreducible x^n + sum c_j x^(k_j) + c_0 with weight terms in all, over GF(p),
    middle exponents ordered by (largest, ..., smallest) lexicographically."""
    mids = weight - 2
    progress, tested = _reporting.get(), 0
    total = math.comb(n - 1, mids) * (p - 1) ** (mids + 1)
    for ks in _exponent_sets(n, mids):
        for cs in product(range(1, p), repeat=mids + 1):
            if progress is not None:
                progress(tested, total)
            tested += 1
            coeffs = [0] * (n + 1)
            coeffs[n] = 1
            coeffs[0] = cs[-1]
            for k, c in zip(ks, cs[:-1], strict=True):
                coeffs[k] = c
            f = tuple(coeffs)
            if is_irreducible(f, p):
                yield f


def lowest_weight_irreducible(p: int, n: int, kind: str = "auto") -> tuple:
    """First irreducible trinomial of degree n over GF(p), else (kind 'auto')
    the first pentanomial (GF(2)) or lowest-weight polynomial (odd p).

    kind: 'auto', 'trinomial' or 'pentanomial'. ValueError if none exists.
    """
    _check_p(p)
    if kind not in ("auto", "trinomial", "pentanomial"):
        raise ValueError(
            f"lowest_weight_irreducible: kind must be 'auto', 'trinomial' or "
            f"'pentanomial', got {kind!r}")
    if n < 1:
        raise ValueError(f"lowest_weight_irreducible: degree must be >= 1, got {n}")
    if n == 1:
        if kind == "pentanomial":
            raise ValueError("no pentanomial of degree 1")
        return (1, 1)  # x + 1
    if kind in ("auto", "trinomial"):
        for f in trinomials(p, n):
            return f
        if kind == "trinomial":
            raise ValueError(f"no irreducible trinomial of degree {n} over GF({p})")
    if p == 2:
        for f in pentanomials(n):
            return f
        raise ValueError(f"no irreducible pentanomial of degree {n} over GF(2)")
    weights = (5,) if kind == "pentanomial" else range(4, n + 2)
    for w in weights:
        for f in _general(p, n, w):
            return f
    raise ValueError(f"no irreducible {kind} polynomial of degree {n} over GF({p})")
