"""Polynomials over GF(p), p a small prime.

A polynomial is a tuple of ints in [0, p), coefficient of x^i at index i
(low degree first), trimmed: no trailing zeros, the zero polynomial is ().
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence

__all__ = [
    "trim", "degree", "add", "sub", "neg", "scale", "shift", "mul",
    "divmod_poly", "mod", "mulmod", "powmod", "xpow_table", "gcd", "inverse_mod",
    "monic", "parse_poly", "format_poly", "pack", "unpack", "coeff_bits",
    "is_prime_small",
]


def is_prime_small(p: int) -> bool:
    """True if the int p is prime (trial division; meant for small p)."""
    if not isinstance(p, int) or isinstance(p, bool) or p < 2:
        return False
    if p < 4:
        return True
    if p % 2 == 0:
        return False
    i = 3
    while i * i <= p:
        if p % i == 0:
            return False
        i += 2
    return True


def trim(a: Iterable[int]) -> tuple:
    """Drop trailing zero coefficients; return a tuple."""
    seq = a if isinstance(a, (tuple, list)) else tuple(a)
    n = len(seq)
    while n and seq[n - 1] == 0:
        n -= 1
    if n == len(seq) and isinstance(seq, tuple):
        return seq
    return tuple(seq[:n])


def _norm(a: Iterable[int], p: int) -> tuple:
    """Reduce every coefficient mod p and trim."""
    return trim([c % p for c in a])


def degree(a: Iterable[int]) -> int:
    """Degree of a trimmed polynomial; -1 for the zero polynomial."""
    return len(trim(a)) - 1


@functools.cache
def _bits(n: int) -> int:
    """Bit 0 of each of n little-endian bytes."""
    return int.from_bytes(b"\1" * n, "little")


def add(a: Sequence[int], b: Sequence[int], p: int) -> tuple:
    """a + b over GF(p)."""
    if len(a) < len(b):
        a, b = b, a
    if p == 2:  # the common case of the models: XOR the coefficient bytes as integers
        n = len(a)
        x = int.from_bytes(bytes(a), "little") ^ int.from_bytes(bytes(b), "little")
        return tuple((x & _bits(n)).to_bytes(n, "little").rstrip(b"\0"))
    out = list(a)
    for i, c in enumerate(b):
        out[i] = (out[i] + c) % p
    return trim(out)


def neg(a: Iterable[int], p: int) -> tuple:
    """-a over GF(p)."""
    return _norm((-c for c in a), p)


def sub(a: Sequence[int], b: Iterable[int], p: int) -> tuple:
    """a - b over GF(p)."""
    return add(a, neg(b, p), p)


def scale(a: Iterable[int], c: int, p: int) -> tuple:
    """c * a over GF(p), c an integer."""
    c %= p
    if c == 0:
        return ()
    return _norm((c * x for x in a), p)


def shift(a: Iterable[int], k: int) -> tuple:
    """a * x^k (k >= 0)."""
    a = trim(a)
    if k < 0:
        raise ValueError(f"shift: k must be >= 0, got {k}")
    if not a:
        return ()
    return (0,) * k + a


def mul(a: Iterable[int], b: Iterable[int], p: int) -> tuple:
    """a * b over GF(p) (schoolbook; Kronecker substitution for long operands)."""
    a, b = _norm(a, p), _norm(b, p)
    if not a or not b:
        return ()
    if min(len(a), len(b)) > 24:
        return _mul_kronecker(a, b, p)
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                out[i + j] += x * y
    return _norm(out, p)


def _mul_kronecker(a: Sequence[int], b: Sequence[int], p: int) -> tuple:
    """a * b via one big-int product: coefficients packed into k-byte slots,
    k large enough that no slot of the integer product overflows."""
    bound = min(len(a), len(b)) * (p - 1) ** 2  # a, b are reduced mod p
    k = (bound.bit_length() + 8) // 8
    ia = int.from_bytes(b"".join(c.to_bytes(k, "little") for c in a), "little")
    ib = int.from_bytes(b"".join(c.to_bytes(k, "little") for c in b), "little")
    n = len(a) + len(b) - 1
    data = (ia * ib).to_bytes(n * k, "little")
    frm = int.from_bytes
    return trim([frm(data[i:i + k], "little") % p for i in range(0, n * k, k)])


def _inv_scalar(c: int, p: int) -> int:
    c %= p
    if c == 0:
        raise ZeroDivisionError("inverse of 0 in GF(p)")
    return pow(c, -1, p)


def divmod_poly(a: Iterable[int], b: Iterable[int], p: int) -> tuple[tuple, tuple]:
    """(q, r) with a = q*b + r and deg r < deg b, over GF(p)."""
    a, b = _norm(a, p), _norm(b, p)
    if not b:
        raise ZeroDivisionError("polynomial division by zero")
    db = len(b) - 1
    if len(a) - 1 < db:
        return (), a
    inv = _inv_scalar(b[-1], p)
    terms = [(j, y) for j, y in enumerate(b[:-1]) if y]  # sparse moduli are cheap
    r = list(a)
    q = [0] * (len(a) - db)
    for i in range(len(a) - 1, db - 1, -1):
        c = r[i] % p
        if c:
            c = c * inv % p
            q[i - db] = c
            k = i - db
            for j, y in terms:
                r[k + j] -= c * y  # reduced mod p when read or at the end
    return trim(q), _norm(r[:db], p)


def mod(a: Iterable[int], b: Iterable[int], p: int) -> tuple:
    """a mod b over GF(p)."""
    return divmod_poly(a, b, p)[1]


def mulmod(a: Iterable[int], b: Iterable[int], f: Iterable[int], p: int) -> tuple:
    """a * b mod f over GF(p)."""
    return mod(mul(a, b, p), f, p)


def powmod(a: Iterable[int], e: int, f: Iterable[int], p: int) -> tuple:
    """a^e mod f over GF(p), e >= 0 (square and multiply)."""
    if e < 0:
        return powmod(inverse_mod(a, f, p), -e, f, p)
    result = mod((1,), f, p)
    base = mod(a, f, p)
    while e:
        if e & 1:
            result = mulmod(result, base, f, p)
        e >>= 1
        if e:
            base = mulmod(base, base, f, p)
    return result


def xpow_table(f: Iterable[int], p: int, count: int) -> list[tuple]:
    """[x^i mod f for i in m .. m+count-1], m = deg f: the constants of a single-level
    reduction by f (digit-serial multipliers, eq. (2) of Beuchat et al.)."""
    f = trim(f)
    m = len(f) - 1
    out = []
    cur = mod(shift((1,), m), f, p) if count else ()
    for _ in range(count):
        out.append(cur)
        cur = mod(shift(cur, 1), f, p)
    return out


def monic(a: Iterable[int], p: int) -> tuple:
    """a scaled so that its leading coefficient is 1 (zero stays zero)."""
    a = _norm(a, p)
    if not a:
        return ()
    return scale(a, _inv_scalar(a[-1], p), p)


def gcd(a: Iterable[int], b: Iterable[int], p: int) -> tuple:
    """Monic gcd(a, b) over GF(p); gcd(0, 0) = ()."""
    a, b = _norm(a, p), _norm(b, p)
    while b:
        a, b = b, mod(a, b, p)
    return monic(a, p)


def inverse_mod(a: Iterable[int], f: Iterable[int], p: int) -> tuple:
    """u with a*u = 1 mod f over GF(p); ValueError if gcd(a, f) != 1."""
    f = _norm(f, p)
    if len(f) < 2:
        raise ValueError("inverse_mod: modulus must have degree >= 1")
    r0, r1 = f, mod(a, f, p)
    s0: tuple[int, ...] = ()  # coefficients of a
    s1: tuple[int, ...] = (1,)
    while r1:
        q, r = divmod_poly(r0, r1, p)
        r0, r1 = r1, r
        s0, s1 = s1, sub(s0, mul(q, s1, p), p)
    if len(r0) != 1:
        raise ValueError(
            f"inverse_mod: {format_poly(trim(a), p)} is not invertible modulo "
            f"{format_poly(f, p)} over GF({p}) (gcd {format_poly(monic(r0, p), p)})")
    return mod(scale(s0, _inv_scalar(r0[0], p), p), f, p)


# ---------------------------------------------------------------- text form

_TERM = re.compile(
    r"""(?P<coef>\d+)?\s*(?P<star>\*)?\s*(?P<var>[xt])(?:\s*\^\s*(?P<exp>\d+))?
      | (?P<const>\d+)""", re.VERBOSE)


def parse_poly(text: str, p: int) -> tuple:
    """Parse e.g. 'x^163+x^7+x^6+x^3+1', 'x^97+x^16-1', '2x^8', '2*x^8', 't^9+t^5+1'.

    Terms are c, c*x^e, cx^e, x^e, x (variable x or t, one per expression),
    joined by + or -; coefficients are taken mod p ('-1' is p-1).
    """
    if not isinstance(text, str):
        raise ValueError(f"parse_poly: expected a string, got {type(text).__name__}")
    s = text.strip()
    if not s:
        raise ValueError("parse_poly: empty polynomial expression")
    if not is_prime_small(p):
        raise ValueError(f"parse_poly: p must be a prime, got {p}")
    coeffs: dict[int, int] = {}
    var = None
    pos = 0
    first = True
    n = len(s)
    while pos < n:
        while pos < n and s[pos].isspace():
            pos += 1
        sign = 1
        if pos < n and s[pos] in "+-":
            sign = -1 if s[pos] == "-" else 1
            pos += 1
            while pos < n and s[pos].isspace():
                pos += 1
        elif not first:
            raise ValueError(
                f"parse_poly: unexpected {s[pos]!r} at position {pos} in {text!r} "
                f"(expected '+' or '-' between terms)")
        m = _TERM.match(s, pos)
        if not m or m.end() == pos:
            raise ValueError(
                f"parse_poly: bad term at position {pos} in {text!r} "
                f"(expected c, c*x^e, x^e or x)")
        if m.group("const") is not None:
            c, e = int(m.group("const")), 0
        else:
            if m.group("star") and m.group("coef") is None:
                raise ValueError(f"parse_poly: '*' without coefficient in {text!r}")
            v = m.group("var")
            if var is not None and v != var:
                raise ValueError(f"parse_poly: mixed variables x and t in {text!r}")
            var = v
            c = int(m.group("coef")) if m.group("coef") is not None else 1
            e = int(m.group("exp")) if m.group("exp") is not None else 1
        coeffs[e] = coeffs.get(e, 0) + sign * c
        pos = m.end()
        while pos < n and s[pos].isspace():
            pos += 1
        first = False
    if not coeffs:
        raise ValueError(f"parse_poly: no terms in {text!r}")
    out = [0] * (max(coeffs) + 1)
    for e, c in coeffs.items():
        out[e] = c % p
    return trim(out)


def format_poly(a: Iterable[int], p: int, var: str = "x") -> str:
    """Inverse of parse_poly: highest degree first, e.g. 'x^11+2*x^8+1'; '0' for zero."""
    a = _norm(a, p)
    if not a:
        return "0"
    terms = []
    for e in range(len(a) - 1, -1, -1):
        c = a[e]
        if not c:
            continue
        if e == 0:
            terms.append(str(c))
            continue
        mono = var if e == 1 else f"{var}^{e}"
        terms.append(mono if c == 1 else f"{c}*{mono}")
    return "+".join(terms)


# ------------------------------------------------------------ hardware form

def coeff_bits(p: int) -> int:
    """Bits per packed coefficient: (p-1).bit_length() (1 for p=2, 2 for p=3)."""
    return (p - 1).bit_length()


def pack(a: Iterable[int], p: int, m: int) -> int:
    """Coefficient i of a (deg a < m) into bits [w*i+w-1 : w*i], w = coeff_bits(p)."""
    a = _norm(a, p)
    if len(a) > m:
        raise ValueError(f"pack: degree {len(a) - 1} does not fit in {m} coefficients")
    w = coeff_bits(p)
    x = 0
    for i in range(len(a) - 1, -1, -1):
        x = (x << w) | a[i]
    return x


def unpack(x: int, p: int, m: int) -> tuple:
    """Inverse of pack: m coefficients of w bits each; ValueError on a field >= p."""
    if x < 0 or x >> (coeff_bits(p) * m):
        raise ValueError(f"unpack: value {x:#x} does not fit in {m} coefficients")
    w = coeff_bits(p)
    if p == 2:
        return trim(int(b) for b in reversed(bin(x)[2:])) if x else ()
    mask = (1 << w) - 1
    out = []
    for i in range(m):
        c = (x >> (w * i)) & mask
        if c >= p:
            raise ValueError(f"unpack: coefficient {i} = {c} is not in GF({p})")
        out.append(c)
    return trim(out)
