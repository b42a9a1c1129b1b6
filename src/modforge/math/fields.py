"""Prime fields for elliptic curves and zero knowledge (issue 37, the mathematics): the named
moduli, the special forms a prime can have, and bit-exact models of the reductions that the
128- to 1024-bit modular multipliers will be checked against.

Forms (``forms(q)``, most specific first):

- ``pseudo-mersenne``: q = 2^k - c, k = bits(q), with 2 bits(c) < k (so c < 2^(k/2)).
  Reduction folds the high part times c (``pseudo_mersenne``).
- ``goldilocks``: q = 2^(2h) - 2^h - 1 (Ed448: h = 224). 2^(2h) = 2^h + 1 mod q (``goldilocks``).
- ``solinas`` (generalised Mersenne, the NIST primes): q a signed sum of at most 5 powers of
  two whose exponents are all multiples of 32; the fold adds and subtracts whole words
  (``solinas``). w = 64 when every exponent is a multiple of 64, else 32.
- ``montgomery-friendly``: q = -1 mod 2^w (w = the largest power of two >= 16 with that
  property): Montgomery's quotient digit is the low word itself (q' = 1), no multiplier.
- ``generic``: every q; Montgomery and Barrett.

A pseudo-Mersenne form ranks first when c fits in one 64-bit word (its fold is one k x 64
product); with a larger c (p192, p224, p384) it ranks after the Solinas form, whose fold is
word additions only.

Each reduction model returns the residue and the work it did (``Trace``); the plain functions
return the residue. Every model is checked against Python's % in tests/math/test_fields.py.
References (docs/references.md): the primes: sp-800-186, fips-186-4, sec2-v2, rfc-7748,
barreto-naehrig-2005, bls-2002; the reductions: montgomery-1985, koc-acar-kaliski-1996,
barrett-1986, hac-1996, solinas-1999, hamburg-2015.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import ParameterError
from .primes import is_prime

__all__ = [
    "MIN_BITS", "MAX_BITS", "REDUCTIONS", "Named", "NAMED", "NIST_SMALL", "resolve", "name_of",
    "Terms", "Form", "forms", "reductions", "signed_terms", "small_factor", "check",
    "Trace", "montgomery_constants", "montgomery_word_trace", "montgomery_word",
    "barrett_trace", "barrett", "pseudo_mersenne_trace", "pseudo_mersenne",
    "pseudo_mersenne_fold_bound", "solinas_table", "solinas_bounds", "solinas_trace",
    "solinas", "goldilocks_trace", "goldilocks", "goldilocks_mul",
]

MIN_BITS, MAX_BITS = 128, 1024
#: every reduction kind; "montgomery" and "barrett" apply to any odd q.
REDUCTIONS = ("montgomery", "barrett", "pseudo-mersenne", "solinas", "goldilocks", "montgomery-friendly")

# --------------------------------------------------------------------------- named moduli


@dataclass(frozen=True)
class Named:
    """A named prime: its curve or standard, the value, the formula as its standard writes it
    and where it is defined."""
    name: str
    curve: str
    q: int
    formula: str
    cite: str


def _bn(u: int) -> int:
    """The Barreto-Naehrig base field prime p(u) = 36u^4 + 36u^3 + 24u^2 + 6u + 1."""
    return 36 * u**4 + 36 * u**3 + 24 * u**2 + 6 * u + 1


def _bls12(x: int) -> int:
    """The BLS12 base field prime p(x) = (x - 1)^2 (x^4 - x^2 + 1) / 3 + x."""
    return (x - 1) ** 2 * (x**4 - x**2 + 1) // 3 + x


_BN254_U = 4965661367192848881
_BLS12_381_X = -0xD201000000010000
_BLS12_377_X = 0x8508C00000000001

NAMED: dict[str, Named] = {n.name: n for n in (
    Named("p256", "NIST P-256 (secp256r1)", 2**256 - 2**224 + 2**192 + 2**96 - 1,
          "2^256 - 2^224 + 2^192 + 2^96 - 1", "FIPS 186-4 App. D.1.2.3 = SP 800-186 (FIPS 186-5); SEC 2 v2"),
    Named("p384", "NIST P-384 (secp384r1)", 2**384 - 2**128 - 2**96 + 2**32 - 1,
          "2^384 - 2^128 - 2^96 + 2^32 - 1", "FIPS 186-4 App. D.1.2.4 = SP 800-186 (FIPS 186-5); SEC 2 v2"),
    Named("p521", "NIST P-521 (secp521r1)", 2**521 - 1,
          "2^521 - 1", "FIPS 186-4 App. D.1.2.5 = SP 800-186 (FIPS 186-5); SEC 2 v2"),
    Named("secp256k1", "secp256k1 (Bitcoin, Ethereum signatures)", 2**256 - 2**32 - 977,
          "2^256 - 2^32 - 977", "SEC 2 v2 sec. 2.4.1"),
    Named("25519", "Curve25519 / Ed25519", 2**255 - 19, "2^255 - 19", "RFC 7748 sec. 4.1"),
    Named("448", "Curve448 / Ed448-Goldilocks", 2**448 - 2**224 - 1, "2^448 - 2^224 - 1", "RFC 7748 sec. 4.2"),
    Named("bn254", "BN254 = alt_bn128 (Ethereum EIP-196/197)", _bn(_BN254_U),
          f"36u^4 + 36u^3 + 24u^2 + 6u + 1, u = {_BN254_U}", "Barreto-Naehrig 2005; u from EIP-196/197"),
    Named("bls12-381", "BLS12-381 (Zcash, Ethereum 2)", _bls12(_BLS12_381_X),
          "(x - 1)^2 (x^4 - x^2 + 1) / 3 + x, x = -0xd201000000010000",
          "Barreto-Lynn-Scott 2002; x from Bowe 2017 (BLS12-381)"),
    Named("bls12-377", "BLS12-377 (Zexe)", _bls12(_BLS12_377_X),
          "(x - 1)^2 (x^4 - x^2 + 1) / 3 + x, x = 0x8508c00000000001",
          "Barreto-Lynn-Scott 2002; x from Zexe (Bowe et al. 2020, ePrint 2018/962)"),
)}

#: The two smaller NIST primes, for the Solinas tests; not among the names `resolve` takes.
NIST_SMALL: dict[str, Named] = {n.name: n for n in (
    Named("p192", "NIST P-192", 2**192 - 2**64 - 1, "2^192 - 2^64 - 1", "FIPS 186-4 App. D.1.2.1"),
    Named("p224", "NIST P-224", 2**224 - 2**96 + 1, "2^224 - 2^96 + 1", "FIPS 186-4 App. D.1.2.2"),
)}

_INT = re.compile(r"[+-]?(0[xX][0-9a-fA-F]+|[0-9]+)")


def resolve(spec: str | int, owner: str = "fields", argument: str = "q") -> int:
    """q from a name of NAMED (case-insensitive) or an integer literal (decimal or 0x hex).
    An unknown name raises ParameterError(owner, argument, <the names>, spec). The value is
    not checked here: `check` does that. (registry.NAMED_PRIME parameters parse through it.)"""
    if isinstance(spec, int) and not isinstance(spec, bool):
        return spec
    s = str(spec).strip()
    if s.lower() in NAMED:
        return NAMED[s.lower()].q
    if _INT.fullmatch(s):
        return int(s, 0) if "x" in s.lower() else int(s, 10)
    raise ParameterError(owner, argument, f"must be an integer (decimal or 0x hex) or one of {', '.join(NAMED)}",
                         spec)


def name_of(q: int) -> Named | None:
    """The entry of NAMED whose prime is q, or None."""
    return next((n for n in NAMED.values() if n.q == q), None)


# --------------------------------------------------------------------------- forms

#: A sum of signed powers of two: ((sign, exponent), ...), highest exponent first.
Terms = tuple[tuple[int, int], ...]


def _show_terms(terms: Terms) -> str:
    parts: list[str] = []
    for s, e in terms:
        t = "1" if e == 0 else f"2^{e}"
        parts.append(f"{'+' if s > 0 else '-'} {t}" if parts else t if s > 0 else f"-{t}")
    return " ".join(parts)


@dataclass
class Form:
    """A special form of q: its name, its parameters and the reductions that apply with it."""
    name: str
    params: dict[str, Any] = field(default_factory=dict)
    reductions: tuple[str, ...] = ("montgomery", "barrett")

    def __str__(self) -> str:
        p = dict(self.params)
        if "terms" in p:
            p["terms"] = _show_terms(p["terms"])
        inner = ", ".join(f"{k}={hex(v) if isinstance(v, int) and v >= 1 << 32 else v}" for k, v in p.items())
        return f"{self.name} ({inner})" if inner else self.name


def signed_terms(q: int, step: int = 32, max_terms: int = 5) -> Terms | None:
    """q as a sum of at most max_terms signed powers of two whose exponents are multiples of
    `step`, or None. The digits of q in base 2^step drawn from {-1, 0, 1} are unique when
    they exist, so this is a greedy scan from the low end."""
    if q <= 0:
        return None
    mask, out, e = (1 << step) - 1, [], 0
    while q:
        d = q & mask
        if d == 1:
            out.append((1, e))
            q -= 1
        elif d == mask:
            out.append((-1, e))
            q += 1
        elif d:
            return None
        if len(out) > max_terms:
            return None
        q >>= step
        e += step
    return tuple(reversed(out))


def _v2(x: int) -> int:
    return (x & -x).bit_length() - 1


def forms(q: int) -> list[Form]:
    """Every special form of q (q > 2, any parity), most specific first, ending with
    ``generic`` (see the module docstring for the rules and the order)."""
    k = q.bit_length()
    ranked: list[tuple[int, Form]] = []
    c = (1 << k) - q
    if 2 * c.bit_length() < k:
        ranked.append((0 if c < 1 << 64 else 3,
                       Form("pseudo-mersenne", {"k": k, "c": c}, ("pseudo-mersenne", "montgomery", "barrett"))))
    if k % 2 == 0 and q == (1 << k) - (1 << k // 2) - 1:
        ranked.append((1, Form("goldilocks", {"h": k // 2}, ("goldilocks", "montgomery", "barrett"))))
    terms = signed_terms(q)
    if terms is not None and len(terms) >= 2:
        w = 64 if all(e % 64 == 0 for _, e in terms) else 32
        ranked.append((2, Form("solinas", {"terms": terms, "w": w}, ("solinas", "montgomery", "barrett"))))
    if q % 2:
        ones = _v2(q + 1)
        if ones >= 16:
            w = 1 << (ones.bit_length() - 1)
            ranked.append((4, Form("montgomery-friendly", {"w": w, "ones": ones},
                                   ("montgomery-friendly", "montgomery", "barrett"))))
    ranked.append((5, Form("generic")))
    return [f for _, f in sorted(ranked, key=lambda rf: rf[0])]


def reductions(q: int) -> list[str]:
    """The reduction kinds that apply to q, the special ones first (in the order of forms)."""
    out: list[str] = []
    for f in forms(q):
        out += [r for r in f.reductions if r not in out and r not in ("montgomery", "barrett")]
    return out + ["montgomery", "barrett"]


@functools.cache
def _trial_primes(limit: int = 1 << 16) -> tuple[int, ...]:
    sieve = bytearray([1]) * limit
    sieve[:2] = b"\0\0"
    for p in range(2, int(limit**0.5) + 1):
        if sieve[p]:
            sieve[p * p::p] = bytearray(len(range(p * p, limit, p)))
    return tuple(p for p in range(3, limit) if sieve[p])


def small_factor(n: int) -> int | None:
    """The smallest odd prime factor of n below 2^16, or None (a few milliseconds at 1024 bits)."""
    for p in _trial_primes():
        if p * p > n:
            return None
        if n % p == 0:
            return p
    return None


@functools.lru_cache(maxsize=64)
def _is_prime(q: int) -> bool:
    return is_prime(q)  # probabilistic above 2^81 and slow-ish at 1024 bits: asked once per q


def _shown(q: int) -> str | int:
    return hex(q) if q >= 1 << 64 else q


def check(owner: str, q: int, reduction: str | None = None) -> list[Form]:
    """Validate q for a field multiplier and return forms(q). Raises ParameterError(owner, ...)
    when q is not an integer, not positive, even, outside MIN_BITS..MAX_BITS bits, composite
    (naming a small factor when one below 2^16 exists), or when `reduction` is unknown or
    does not apply to q (the message names the forms q has)."""
    if not isinstance(q, int) or isinstance(q, bool):
        raise ParameterError(owner, "q", "must be an integer", q)
    if q <= 0:
        raise ParameterError(owner, "q", "must be a positive odd prime", q)
    if q % 2 == 0:
        raise ParameterError(owner, "q", "must be an odd prime (it is even)", _shown(q))
    bits = q.bit_length()
    if not MIN_BITS <= bits <= MAX_BITS:
        raise ParameterError(owner, "q", f"must have {MIN_BITS} to {MAX_BITS} bits (it has {bits})", _shown(q))
    if not _is_prime(q):
        p = small_factor(q)
        why = f"it is composite: {p} divides it" if p else "it is composite"
        raise ParameterError(owner, "q", f"must be prime ({why})", _shown(q))
    fs = forms(q)
    if reduction is not None:
        if reduction not in REDUCTIONS:
            raise ParameterError(owner, "reduction", f"must be one of {', '.join(REDUCTIONS)}", reduction)
        if not any(reduction in f.reductions for f in fs):
            has = "; ".join(str(f) for f in fs)
            raise ParameterError(owner, "reduction", f"must apply to q, which has the forms: {has} "
                                 f"(reductions that apply: {', '.join(reductions(q))})", reduction)
    return fs


# --------------------------------------------------------------------------- reduction models


@dataclass(frozen=True)
class Trace:
    """A model's residue r and its work: folds (Montgomery: word steps) and corrections
    (conditional additions or subtractions of q)."""
    r: int
    folds: int = 0
    corrections: int = 0


def _need(ok: bool, what: str) -> None:
    if not ok:
        raise ValueError(what)


@functools.cache
def montgomery_constants(q: int, w: int) -> tuple[int, int, int]:
    """(n, q', R) for word-level Montgomery with w-bit words: n = ceil(bits(q) / w),
    q' = -q^-1 mod 2^w, R = 2^(w n). q' = 1 exactly when q = -1 mod 2^w."""
    _need(q % 2 == 1 and q > 1 and w >= 1, f"Montgomery needs an odd q > 1 and w >= 1, got q={q}, w={w}")
    n = -(-q.bit_length() // w)
    return n, -pow(q, -1, 1 << w) % (1 << w), 1 << (w * n)


def montgomery_word_trace(q: int, w: int, x: int, *, lazy: bool = False,
                          friendly: bool | None = None) -> Trace:
    """Word-by-word Montgomery reduction (REDC, Montgomery 1985; the SOS loop of Koc, Acar,
    Kaliski 1996). For 0 <= x < q R, R = 2^(w n): returns r = x R^-1 mod q with 0 <= r < q,
    or 0 <= r < 2q when lazy (the final conditional subtraction left out).
    Step i adds u q 2^(w i), u = t_i q' mod 2^w (t_i the i-th word of the running sum).
    The Montgomery-friendly fast path (q = -1 mod 2^w, q' = 1) takes u = t_i, no product;
    friendly=None uses it when it applies, True demands it, False never uses it.
    folds = n word steps; corrections = 0 or 1."""
    n, qp, R = montgomery_constants(q, w)
    _need(0 <= x < q * R, f"Montgomery needs 0 <= x < q 2^(w n) = q 2^{w * n}")
    if friendly is None:
        friendly = qp == 1
    _need(not friendly or qp == 1, f"the friendly path needs q = -1 mod 2^{w}")
    mask, t = (1 << w) - 1, x
    for i in range(n):
        ti = (t >> (w * i)) & mask
        u = ti if friendly else ti * qp & mask
        t += (u * q) << (w * i)
    t >>= w * n  # exact: the low w n bits are zero
    if lazy or t < q:
        return Trace(t, n, 0)
    return Trace(t - q, n, 1)


def montgomery_word(q: int, w: int, x: int, *, lazy: bool = False, friendly: bool | None = None) -> int:
    """x 2^(-w n) mod q; see montgomery_word_trace (r < q, or r < 2q when lazy)."""
    return montgomery_word_trace(q, w, x, lazy=lazy, friendly=friendly).r


@functools.cache
def _barrett_mu(q: int) -> int:
    return (1 << 2 * q.bit_length()) // q


def barrett_trace(q: int, x: int, *, lazy: bool = False,
                  product: Callable[[int, int], int] | None = None) -> Trace:
    """Barrett reduction (Barrett 1986; HAC Alg. 14.42 in radix 2), k = bits(q),
    mu = floor(4^k / q): q3 = floor(floor(x / 2^(k-1)) mu / 2^(k+1)), r = x - q3 q.
    For 0 <= x < 4^k (so every x < q^2): 0 <= x - q3 q < 3q, so at most two subtractions;
    returns r = x mod q, 0 <= r < q; lazy: one subtraction at most (r - 2q when r >= 2q),
    0 <= r < 2q. product(u, mu): the u mu to take instead, from below with an error under
    2^(k+1) (a truncated product): q3 may be one less, r < 4q, three subtractions at most
    (lazy: still one, of 2q)."""
    _need(q > 2 and q % 2 == 1, f"Barrett (this model) needs an odd q > 2, got {q}")
    k = q.bit_length()
    _need(0 <= x < 1 << 2 * k, f"Barrett needs 0 <= x < 4^k = 2^{2 * k}")
    u, mu = x >> (k - 1), _barrett_mu(q)
    um = u * mu if product is None else product(u, mu)
    assert u * mu - (1 << (k + 1)) < um <= u * mu, "the approximate u mu is out of its bound"
    r = x - (um >> (k + 1)) * q
    corr = 0
    if lazy and r >= 2 * q:
        r, corr = r - 2 * q, 1
    while r >= q and not lazy:
        r -= q
        corr += 1
    assert corr <= (2 if product is None else 3) and r < (2 if lazy else 1) * q, "Barrett bound broken"
    return Trace(r, 0, corr)


def barrett(q: int, x: int, *, lazy: bool = False, product: Callable[[int, int], int] | None = None) -> int:
    """x mod q for 0 <= x < 4^bits(q) (lazy: r < 2q); see barrett_trace."""
    return barrett_trace(q, x, lazy=lazy, product=product).r


def pseudo_mersenne_trace(k: int, c: int, x: int, *, lazy: bool = False) -> Trace:
    """Reduction modulo q = 2^k - c, 1 <= c, 2 bits(c) < k: while x >= 2^k, x = lo + hi c
    (x = hi 2^k + lo, and 2^k = c mod q); then x < 2^k = q + c < 2q and one conditional
    subtraction ends it. Returns r = x mod q, 0 <= r < q.
    Folds, for 0 <= x < 4^k (so every x < q^2), with b = bits(c): the first leaves
    x < 2^k (c + 1) <= 2^(k+b), the second x < 2^k + c^2 < 2^(k+1), the third x < 2^k
    (as c^2 + c <= 2^k when 2b < k). So at most 3 folds, and 2 when c = 1 (Mersenne);
    pseudo_mersenne_fold_bound gives the bound for a given x range. Corrections: 0 or 1;
    lazy: none, r = the folded x < 2^k < 2q."""
    _need(c >= 1 and 2 * c.bit_length() < k, f"pseudo-Mersenne needs 1 <= c and 2 bits(c) < k, got k={k}, c={c}")
    _need(0 <= x < 1 << 2 * k, f"pseudo-Mersenne needs 0 <= x < 4^k = 2^{2 * k}")
    mask, folds = (1 << k) - 1, 0
    while x >> k:
        x = (x & mask) + (x >> k) * c
        folds += 1
    q = (1 << k) - c
    return Trace(x - q, folds, 1) if x >= q and not lazy else Trace(x, folds, 0)


def pseudo_mersenne(k: int, c: int, x: int, *, lazy: bool = False) -> int:
    """x mod (2^k - c), 0 <= r < q (lazy: r < 2^k); see pseudo_mersenne_trace."""
    return pseudo_mersenne_trace(k, c, x, lazy=lazy).r


def pseudo_mersenne_fold_bound(k: int, c: int, xmax: int) -> int:
    """An upper bound on the folds pseudo_mersenne_trace makes for any 0 <= x <= xmax: the
    largest value one fold can leave from x <= B is max((H - 1) c + 2^k - 1, H c + B mod 2^k)
    with H = B >> k, applied until the bound is below 2^k."""
    folds, b = 0, xmax
    while b >> k:
        h = b >> k
        b = max((h - 1) * c + (1 << k) - 1, h * c + (b & ((1 << k) - 1)))
        folds += 1
    return folds


@functools.cache
def solinas_table(terms: Terms, w: int) -> tuple[tuple[int, ...], ...]:
    """For q = sum s 2^e (terms, leading term +2^k, every e a multiple of w) and n = k / w:
    row i - n, for word positions i = n .. 2n - 1, holds integers m_j (j < n) with
    2^(w i) = sum_j m_j 2^(w j) mod q. Found by substituting 2^k = -(sum of the other
    terms) until no position >= n is left; the m_j are small (the NIST formulas' 1s and 2s)."""
    _need(len(terms) >= 2 and terms[0][0] == 1 and all(s in (1, -1) for s, _ in terms),
          "Solinas terms: +2^k first, then signed powers of two")
    k = terms[0][1]
    _need(all(e % w == 0 for _, e in terms) and all(e < k for _, e in terms[1:]),
          f"Solinas terms need exponents that are multiples of w={w}, below the leading 2^{k}")
    n, low = k // w, [(-s, e // w) for s, e in terms[1:]]
    rows = []
    for i in range(n, 2 * n):
        v = {i: 1}
        while max(v) >= n:
            p = max(v)
            m = v.pop(p)
            for s, e in low:
                v[p - n + e] = v.get(p - n + e, 0) + m * s
            v = {j: m for j, m in v.items() if m} or {0: 0}
        rows.append(tuple(v.get(j, 0) for j in range(n)))
    return tuple(rows)


def _solinas_q(terms: Terms) -> int:
    return sum(s << e for s, e in terms)


@functools.cache
def solinas_bounds(terms: Terms, w: int) -> tuple[int, int]:
    """(most additions of q, most subtractions of q) that solinas_trace may need for
    0 <= x < 4^k: from the extreme values of the folded sum (every input word 0 or 2^w - 1
    as its coefficient's sign asks)."""
    rows, q, top = solinas_table(terms, w), _solinas_q(terms), (1 << w) - 1
    lo = sum(min(m, 0) * top << (w * j) for row in rows for j, m in enumerate(row))
    hi = (1 << terms[0][1]) - 1 + sum(max(m, 0) * top << (w * j) for row in rows for j, m in enumerate(row))
    return -(lo // q), hi // q


def solinas_trace(terms: Terms, w: int, x: int, *, lazy: bool = False) -> Trace:
    """The NIST-style Solinas reduction (generalised Mersenne: Solinas 1999, FIPS 186-4
    App. D.2), driven by q's terms: split 0 <= x < 4^k into 2n words a_i of w bits; the
    folded sum s = sum_{j<n} (a_j + sum_{i>=n} a_i m_ij) 2^(w j) (m from solinas_table) is
    congruent to x mod q and lies in [-A q, (B + 1) q) with (A, B) = solinas_bounds; then add
    or subtract q (corrections) until 0 <= r < q. Returns r = x mod q, 0 <= r < q; lazy:
    r = (s + A q) mod 2q, 0 <= r < 2q (s + A q - 2 i q for the largest i that leaves it
    non-negative: every other candidate of the correction, corrections = i + 1).
    folds = 1 (one pass of word additions)."""
    rows, q, k = solinas_table(terms, w), _solinas_q(terms), terms[0][1]
    _need(0 <= x < 1 << 2 * k, f"Solinas needs 0 <= x < 4^k = 2^{2 * k}")
    n, mask = k // w, (1 << w) - 1
    a = [(x >> (w * i)) & mask for i in range(2 * n)]
    s = sum((a[j] + sum(a[n + i] * rows[i][j] for i in range(n))) << (w * j) for j in range(n))
    if lazy:
        s += solinas_bounds(terms, w)[0] * q
        return Trace(s % (2 * q), 1, s // (2 * q) + 1)
    corr = 0
    while s < 0:
        s += q
        corr += 1
    while s >= q:
        s -= q
        corr += 1
    return Trace(s, 1, corr)


def solinas(terms: Terms, w: int, x: int, *, lazy: bool = False) -> int:
    """x mod q, q = sum of the signed terms, 0 <= r < q (lazy: r < 2q); see solinas_trace."""
    return solinas_trace(terms, w, x, lazy=lazy).r


def goldilocks_trace(x: int, h: int = 224) -> Trace:
    """Reduction modulo q = 2^(2h) - 2^h - 1 (Ed448: h = 224), where 2^(2h) = 2^h + 1 and
    2^(3h) = 2^(h+1) + 1 mod q. For 0 <= x < 2^(4h) (so every x < q^2) split x into h-bit
    limbs a + b 2^h + c 2^(2h) + d 2^(3h): the first fold gives
    (a + c + d) + (b + c + 2d) 2^h < 2^(2h+2); then fold x = lo + hi (2^h + 1) while
    x >= 2^(2h) (at most twice more), then at most one subtraction.
    Returns r = x mod q, 0 <= r < q."""
    _need(h >= 2 and 0 <= x < 1 << 4 * h, f"Goldilocks needs h >= 2 and 0 <= x < 2^(4h) = 2^{4 * h}")
    m, k = (1 << h) - 1, 2 * h
    a, b, c, d = x & m, (x >> h) & m, (x >> k) & m, x >> (3 * h)
    r, folds = (a + c + d) + ((b + c + 2 * d) << h), 1
    while r >> k:
        hi = r >> k
        r = (r & ((1 << k) - 1)) + hi + (hi << h)
        folds += 1
    q = (1 << k) - (1 << h) - 1
    return Trace(r - q, folds, 1) if r >= q else Trace(r, folds, 0)


def goldilocks(x: int, h: int = 224) -> int:
    """x mod (2^(2h) - 2^h - 1), 0 <= r < q; see goldilocks_trace."""
    return goldilocks_trace(x, h).r


def goldilocks_mul(a: int, b: int, h: int = 224) -> int:
    """a b mod q, q = 2^(2h) - 2^h - 1, 0 <= a, b < 2^(2h), by the Karatsuba-friendly
    product (Hamburg's Goldilocks; phi = 2^h, phi^2 = phi + 1 mod q):
    (a0 + a1 phi)(b0 + b1 phi) = (a0 b0 + a1 b1) + ((a0 + a1)(b0 + b1) - a0 b0) phi mod q,
    three h-bit products, then goldilocks. Returns 0 <= r < q."""
    _need(0 <= a < 1 << 2 * h and 0 <= b < 1 << 2 * h, f"goldilocks_mul needs 0 <= a, b < 2^{2 * h}")
    m = (1 << h) - 1
    a0, a1, b0, b1 = a & m, a >> h, b & m, b >> h
    p0, p1, pm = a0 * b0, a1 * b1, (a0 + a1) * (b0 + b1)
    return goldilocks(p0 + p1 + ((pm - p0) << h), h)
