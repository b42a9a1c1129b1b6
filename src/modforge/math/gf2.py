"""GF(2)[x] with Python ints: bit i is the coefficient of x^i.

Addition is XOR; multiplication is carry-less (clmul). All functions take and
return non-negative ints.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = [
    "deg", "clmul", "sqr", "mod", "divmod2", "mulmod", "sqrmod", "powmod",
    "gcd", "inverse_mod", "to_tuple", "from_tuple",
]


def deg(a: int) -> int:
    """Degree of a; -1 for the zero polynomial."""
    return a.bit_length() - 1


def _spread_byte(b: int) -> int:
    r = 0
    for i in range(8):
        if b >> i & 1:
            r |= 1 << (2 * i)
    return r


# byte -> its 8 bits spread to the even positions of 16 bits (2 bytes, little endian)
_SPREAD = tuple(_spread_byte(b).to_bytes(2, "little") for b in range(256))


def sqr(a: int) -> int:
    """a^2 in GF(2)[x]: bit i moves to bit 2i (Frobenius is linear over GF(2))."""
    if a < 0:
        raise ValueError("gf2.sqr: negative operand")
    if a < 2:
        return a
    data = a.to_bytes((a.bit_length() + 7) // 8, "little")
    sp = _SPREAD
    return int.from_bytes(b"".join([sp[b] for b in data]), "little")


def clmul(a: int, b: int) -> int:
    """Carry-less product a*b in GF(2)[x] (4-bit windows over the shorter operand)."""
    if a < 0 or b < 0:
        raise ValueError("gf2.clmul: negative operand")
    if a.bit_length() > b.bit_length():
        a, b = b, a
    if a == 0:
        return 0
    if a.bit_count() <= 8:
        r = 0
        while a:
            low = a & -a
            r ^= b << (low.bit_length() - 1)
            a ^= low
        return r
    b2 = b << 1
    b4 = b << 2
    b8 = b << 3
    table = [0, b, b2, b2 ^ b, b4, b4 ^ b, b4 ^ b2, b4 ^ b2 ^ b]
    table += [t ^ b8 for t in table]
    r = 0
    nib = (a.bit_length() + 3) // 4
    for i in range(nib - 1, -1, -1):
        r = (r << 4) ^ table[(a >> (4 * i)) & 15]
    return r


def divmod2(a: int, f: int) -> tuple[int, int]:
    """(q, r) with a = q*f + r, deg r < deg f, in GF(2)[x]."""
    if f <= 0:
        raise ZeroDivisionError("gf2.divmod2: division by zero polynomial")
    n = f.bit_length()
    q = 0
    while a.bit_length() >= n:
        s = a.bit_length() - n
        q |= 1 << s
        a ^= f << s
    return q, a


def _fold_mod(a: int, n: int, taps: tuple[int, ...]) -> int:
    """a mod (x^n + sum x^t for t in taps), using x^n = sum x^t (folding)."""
    mask = (1 << n) - 1
    while a >> n:
        hi = a >> n
        a &= mask
        for t in taps:
            a ^= hi << t
    return a


def mod(a: int, f: int) -> int:
    """a mod f in GF(2)[x]. Sparse f (few terms, low tail) is reduced by folding."""
    if f <= 0:
        raise ZeroDivisionError("gf2.mod: modulus is the zero polynomial")
    n = f.bit_length() - 1
    excess = a.bit_length() - 1 - n
    if excess < 0:
        return a
    if n == 0:
        return 0
    r = f ^ (1 << n)
    w = r.bit_count()
    gap = n - (r.bit_length() - 1)  # degree drop per folding round
    if w <= 8 and w * ((excess + gap) // gap) * 2 < excess + 1:
        taps = tuple(i for i in range(r.bit_length()) if r >> i & 1)
        return _fold_mod(a, n, taps)
    while a.bit_length() > n:
        a ^= f << (a.bit_length() - 1 - n)
    return a


def mulmod(a: int, b: int, f: int) -> int:
    """a*b mod f in GF(2)[x]."""
    return mod(clmul(mod(a, f), mod(b, f)), f)


def sqrmod(a: int, f: int) -> int:
    """a^2 mod f in GF(2)[x]."""
    return mod(sqr(mod(a, f)), f)


def powmod(a: int, e: int, f: int) -> int:
    """a^e mod f in GF(2)[x], e >= 0 (negative e uses the inverse)."""
    if e < 0:
        return powmod(inverse_mod(a, f), -e, f)
    result = mod(1, f)
    base = mod(a, f)
    for bit in bin(e)[2:]:
        result = sqrmod(result, f)
        if bit == "1":
            result = mulmod(result, base, f)
    return result


def gcd(a: int, b: int) -> int:
    """gcd(a, b) in GF(2)[x] (monic automatically)."""
    while b:
        db = b.bit_length()
        while a.bit_length() >= db:
            a ^= b << (a.bit_length() - db)
        a, b = b, a
    return a


def inverse_mod(a: int, f: int) -> int:
    """u with a*u = 1 mod f; ValueError if gcd(a, f) != 1."""
    if f.bit_length() < 2:
        raise ValueError("gf2.inverse_mod: modulus must have degree >= 1")
    r0, r1 = f, mod(a, f)
    s0, s1 = 0, 1
    while r1:
        d = r1.bit_length()
        while r0.bit_length() >= d:
            sh = r0.bit_length() - d
            r0 ^= r1 << sh
            s0 ^= s1 << sh
        r0, r1 = r1, r0
        s0, s1 = s1, s0
    if r0 != 1:
        raise ValueError(
            f"gf2.inverse_mod: {a:#x} is not invertible modulo {f:#x} (gcd {r0:#x})")
    return mod(s0, f)


def to_tuple(a: int) -> tuple:
    """Int form -> coefficient tuple (low degree first, trimmed)."""
    if a < 0:
        raise ValueError("gf2.to_tuple: negative value")
    return tuple(int(c) for c in reversed(bin(a)[2:])) if a else ()


def from_tuple(t: Iterable[int]) -> int:
    """Coefficient tuple (low degree first, entries mod 2) -> int form."""
    r = 0
    for i, c in enumerate(t):
        if c % 2:
            r |= 1 << i
    return r
