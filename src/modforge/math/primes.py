"""Number theory for NTT moduli: primality, the prime families of the NTT modular-reduction
paper (Tosun et al.: docs/references.md#tosun-2026, read with docs/corrections.md),
fast counting, the "max log n" rule, RNS base selection, roots of unity and twiddles.

Families (all parameterised by beta = bit size of q and log_qh = bit size of q_h, with
omega = beta - log_qh; every member is a beta-bit prime q = q_h * 2^omega + 1):

- ``ntt``: q_h of exactly log_qh bits, odd or even, i.e. every beta-bit prime with
  q = 1 mod 2^omega. With omega = log n + 1 these are the NTT-friendly primes of WLM
  (Table 3's "*" rows). ``ntt_primes(beta, n)`` is this family with log_qh = beta - log2(2n).
- ``proth``: the same set restricted to omega >= beta/2 (log_qh <= omega), the Proth
  primes of K2RED and WLM-Mixed. Reading: the paper defines Proth primes as
  q_h 2^omega + 1 with log q_h <= omega; Table 3's counts are "q_h of exactly
  log q_h bits, odd or even", so q_h is NOT required to be odd (an even q_h just means
  2^(omega+1) | q - 1, a higher 2-adic valuation, which "max log n" then uses).
- ``proth2l``: q = 2^(beta-1) + (2^l1 - 2^l2) 2^omega + 1, 0 <= l2 <= l1 < beta-omega-1.
- ``proth3l``: q = 2^(beta-1) + (2^l1 - 2^l2 + 2^l3) 2^omega + 1, 0 <= l2 <= l1 <
  beta-omega-1, 0 <= l3 < beta-omega-1.
  Both are subsets of ``proth`` (q_h = 2^(log_qh-1) + ... has exactly log_qh bits) and are
  counted as distinct prime values (different (l1, l2, l3) can give the same q) (docs/corrections.md#prime-counts).

"max log n" (docs/corrections.md#max-log-n): the largest log n <= 16 such that at least ceil(log q~ / beta) primes
of the family have 2n | q - 1 (each prime's real 2-adic valuation of q - 1), with log q~
from Table 1 (``TABLE1_LOG_Q``); ``None`` if not even log n = 12 is supported.
"""

from __future__ import annotations

import math
import os
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

__all__ = [
    "is_prime", "primality", "proth_test", "v2", "is_ntt_friendly", "ntt_max_log_n",
    "FAMILIES", "Family", "family", "ntt_primes", "family_members", "proth_l_terms",
    "CountResult", "count_family", "TABLE1_LOG_Q", "primes_needed", "max_log_n",
    "rns_base", "primitive_root_of_unity", "Twiddles", "twiddles", "bit_reverse",
    "ntt_negacyclic", "intt_negacyclic", "native_status",
]

# --------------------------------------------------------------------------- primality

_SMALL_PRIMES = [p for p in range(3, 1000) if all(p % d for d in range(2, int(p ** 0.5) + 1))]
MR_BASES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
#: Miller-Rabin with MR_BASES is exact below this bound (Sorenson-Webster 2015), > 2^81.
MR_DETERMINISTIC_BOUND = 3317044064679887385961981


def _mr_round(n: int, d: int, s: int, a: int) -> bool:
    x = pow(a, d, n)
    if x == 1 or x == n - 1:
        return True
    for _ in range(s - 1):
        x = x * x % n
        if x == n - 1:
            return True
    return False


def primality(n: int, rounds: int = 24, seed: int | None = None) -> tuple[bool, str]:
    """(is n prime, how we know): 'deterministic' (trial division or Miller-Rabin with the
    first 13 primes as bases, exact for n < 3.3e24, so for every 64-bit n) or
    'probabilistic' (those bases plus `rounds` random bases; error < 4^-(13+rounds))."""
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"primality: n must be an int, got {type(n).__name__}")
    if n < 2:
        return False, "deterministic"
    if n in (2, 3):
        return True, "deterministic"
    if n % 2 == 0:
        return False, "deterministic"
    for p in _SMALL_PRIMES:
        if n == p:
            return True, "deterministic"
        if n % p == 0:
            return False, "deterministic"
    if n < 1000 * 1000:
        return True, "deterministic"
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in MR_BASES:
        if not _mr_round(n, d, s, a):
            return False, "deterministic"
    if n < MR_DETERMINISTIC_BOUND:
        return True, "deterministic"
    rng = random.Random(seed if seed is not None else n)
    for _ in range(rounds):
        if not _mr_round(n, d, s, rng.randrange(2, n - 1)):
            return False, "deterministic"  # a witness proves compositeness
    return True, "probabilistic"


def is_prime(n: int) -> bool:
    """Deterministic for n < 3.3e24 (all 64-bit n), probabilistic (error < 2^-74) above."""
    return primality(n)[0]


def _jacobi(a: int, n: int) -> int:
    a %= n
    t = 1
    while a:
        while a % 2 == 0:
            a //= 2
            if n % 8 in (3, 5):
                t = -t
        a, n = n, a
        if a % 4 == 3 and n % 4 == 3:
            t = -t
        a %= n
    return t if n == 1 else 0


def proth_test(q: int) -> bool | None:
    """Proth's theorem for q = k 2^m + 1, k < 2^m: prime iff a^((q-1)/2) = -1 mod q, with
    a a quadratic non-residue (Jacobi symbol -1). Deterministic at any size; None when q is
    not a Proth number or no a < 300 has Jacobi symbol -1 (q may be a square)."""
    if q < 3 or q % 2 == 0:
        return None
    m = v2(q - 1)
    if (q - 1) >> m >= 1 << m:
        return None
    for a in _SMALL_PRIMES[:60]:
        if a >= q:
            break
        j = _jacobi(a, q)
        if j == 0:
            return False
        if j == -1:
            return pow(a, (q - 1) // 2, q) == q - 1
    return None


# --------------------------------------------------------------------------- NTT basics

def v2(x: int) -> int:
    """2-adic valuation of x > 0."""
    if x <= 0:
        raise ValueError(f"v2: x must be positive, got {x}")
    return (x & -x).bit_length() - 1


def _check_pow2(n: int, what: str = "n") -> int:
    if not isinstance(n, int) or isinstance(n, bool) or n < 1 or n & (n - 1):
        raise ValueError(f"{what} must be a power of two >= 1, got {n}")
    return n.bit_length() - 1


def is_ntt_friendly(q: int, n: int) -> bool:
    """q prime and q = 1 mod 2n: a primitive 2n-th root of unity exists (negacyclic NTT of
    length n over Z_q[x]/(x^n+1))."""
    if n < 1:
        raise ValueError(f"is_ntt_friendly: n must be >= 1, got {n}")
    return q > 2 and (q - 1) % (2 * n) == 0 and is_prime(q)


def ntt_max_log_n(q: int) -> int:
    """The largest log n with 2n | q - 1 (the prime's own limit): v2(q - 1) - 1."""
    return v2(q - 1) - 1


# --------------------------------------------------------------------------- families

FAMILIES = ("ntt", "proth", "proth2l", "proth3l")
MAX_BETA = 4096


@dataclass(frozen=True)
class Family:
    """A prime family of the paper: kind in FAMILIES, beta, log_qh (omega = beta - log_qh)."""
    kind: str
    beta: int
    log_qh: int

    @property
    def omega(self) -> int:
        return self.beta - self.log_qh

    @property
    def label(self) -> str:
        return f"{self.kind} beta={self.beta} logqh={self.log_qh}"

    def qh_range(self) -> tuple[int, int]:
        return 1 << (self.log_qh - 1), 1 << self.log_qh

    def candidates(self) -> int:
        """How many q the family's definition allows before primality (for proth-l: the
        number of distinct values)."""
        if self.kind in ("ntt", "proth"):
            lo, hi = self.qh_range()
            return hi - lo
        return len(_proth_l_values(self.kind, self.beta, self.log_qh))

    def contains(self, q: int) -> bool:
        """q is a prime of this family."""
        if q.bit_length() != self.beta or (q - 1) % (1 << self.omega):
            return False
        qh = (q - 1) >> self.omega
        if qh.bit_length() != self.log_qh:
            return False
        if self.kind in ("proth2l", "proth3l") and not proth_l_terms(q, self.kind, self.beta, self.log_qh):
            return False
        return is_prime(q)


def family(kind: str, beta: int, log_qh: int | None = None, n: int | None = None) -> Family:
    """Validated family; for kind 'ntt' log_qh may be given as n (log_qh = beta - log2(2n)).
    Raises ValueError naming the rule."""
    if kind not in FAMILIES:
        raise ValueError(f"family must be one of {', '.join(FAMILIES)}, got {kind!r}")
    if not isinstance(beta, int) or not 3 <= beta <= MAX_BETA:
        raise ValueError(f"beta must be an integer in 3..{MAX_BETA}, got {beta}")
    if log_qh is None:
        if n is None or kind != "ntt":
            raise ValueError("log_qh (logqh=) is required" + ("" if kind != "ntt" else " (or n= for family ntt)"))
        log_qh = beta - 1 - _check_pow2(n)
    if not isinstance(log_qh, int) or not 1 <= log_qh <= beta - 1:
        raise ValueError(f"log_qh must be an integer in 1..beta-1={beta - 1}, got {log_qh}")
    if kind != "ntt" and log_qh > beta - log_qh:
        raise ValueError(f"{kind} needs omega = beta - log_qh >= beta/2, i.e. log_qh <= {beta // 2}, got {log_qh}")
    if kind in ("proth2l", "proth3l") and log_qh < 2:
        raise ValueError(f"{kind} needs log_qh >= 2 (l1 < log_qh - 1), got {log_qh}")
    return Family(kind, beta, log_qh)


def _proth_l_values(kind: str, beta: int, log_qh: int) -> list[int]:
    """Distinct q values (prime or not) of a Proth-2l / Proth-3l family, ascending."""
    key = (kind, beta, log_qh)
    if key not in _PL_CACHE:
        _PL_CACHE[key] = _proth_l_map(kind, beta, log_qh)
    return sorted(_PL_CACHE[key])


def _proth_l_map(kind: str, beta: int, log_qh: int) -> dict[int, list[tuple[int, ...]]]:
    omega = beta - log_qh
    top = beta - omega - 1  # l_i < beta - omega - 1 = log_qh - 1
    out: dict[int, list[tuple[int, ...]]] = {}
    for l1 in range(top):
        for l2 in range(l1 + 1):
            terms: list[tuple[int, tuple[int, ...]]]
            if kind == "proth2l":
                terms = [((1 << l1) - (1 << l2), (l1, l2))]
            else:
                terms = [((1 << l1) - (1 << l2) + (1 << l3), (l1, l2, l3)) for l3 in range(top)]
            for mid, ls in terms:
                q = (1 << (beta - 1)) + (mid << omega) + 1
                out.setdefault(q, []).append(ls)
    return out


_PL_CACHE: dict[tuple[str, int, int], dict[int, list[tuple[int, ...]]]] = {}


def proth_l_terms(q: int, kind: str, beta: int, log_qh: int) -> list[tuple[int, ...]]:
    """Every (l1, l2) (proth2l) or (l1, l2, l3) (proth3l) giving q; [] if none."""
    key = (kind, beta, log_qh)
    if key not in _PL_CACHE:
        _PL_CACHE[key] = _proth_l_map(kind, beta, log_qh)
    return list(_PL_CACHE[key].get(q, []))


#: progress(candidates done, candidates in all)
Progress = Callable[[int, int], None]
PROGRESS_EVERY = 4096  # candidates between two progress calls (a call costs more than a sieve test)


def family_members(fam: Family, *, log_n: int | None = None, descending: bool = False,
                   progress: Progress | None = None) -> Iterator[int]:
    """The primes of `fam`, ascending (or descending); with log_n only those with
    2n | q - 1 (n = 2^log_n). A generator: take what you need."""
    need = 0 if log_n is None else log_n + 1  # v2(q-1) >= log n + 1
    if fam.kind in ("proth2l", "proth3l"):
        vals = _proth_l_values(fam.kind, fam.beta, fam.log_qh)
        for i, q in enumerate(reversed(vals) if descending else vals):
            if progress is not None and i % PROGRESS_EVERY == 0:
                progress(i, len(vals))
            if v2(q - 1) >= need and is_prime(q):
                yield q
        return
    lo, hi = fam.qh_range()
    step = 1 << max(0, need - fam.omega)  # q_h must be a multiple of 2^(need - omega)
    first = -(-lo // step) * step
    if first >= hi:
        return
    last = (hi - 1) // step * step
    qhs = range(last, first - 1, -step) if descending else range(first, hi, step)
    for i, qh in enumerate(qhs):
        if progress is not None and i % PROGRESS_EVERY == 0:
            progress(i, len(qhs))
        q = (qh << fam.omega) + 1
        if _quick_composite(q):
            continue
        if is_prime(q):
            yield q


_WHEEL = math.prod(_SMALL_PRIMES[:40])


def _quick_composite(q: int) -> bool:
    return q > 200 and math.gcd(q, _WHEEL) != 1


def ntt_primes(beta: int, n: int, *, descending: bool = False) -> Iterator[int]:
    """beta-bit primes q = 1 mod 2n (the 'ntt' family with log_qh = beta - log2(2n))."""
    return family_members(family("ntt", beta, n=n), descending=descending)


# --------------------------------------------------------------------------- counting

@dataclass
class CountResult:
    family: Family
    count: int
    #: {v2(q - 1): number of primes}
    valuations: dict[int, int]
    candidates: int
    seconds: float
    method: str
    note: str = ""
    max_log_n: int | None = field(default=None)

    def with_log_n(self, log_n: int) -> int:
        """Primes with 2n | q - 1, n = 2^log_n."""
        return sum(c for v, c in self.valuations.items() if v >= log_n + 1)

    def record(self) -> dict:
        return {"family": self.family.kind, "beta": self.family.beta, "log_qh": self.family.log_qh,
                "omega": self.family.omega, "count": self.count, "candidates": self.candidates,
                "valuations": {str(k): v for k, v in sorted(self.valuations.items())},
                "max_log_n": self.max_log_n, "seconds": round(self.seconds, 3),
                "method": self.method, "note": self.note}


#: Above this many candidates `count_family` refuses (the count would take too long).
COUNT_LIMIT = 1 << 33
#: Below this many candidates the pure-Python path is used (no compiler needed).
NATIVE_THRESHOLD = 1 << 14


def native_status() -> str:
    from . import _primes_native
    return _primes_native.native_status()


def count_family(fam: Family, *, method: str = "auto", workers: int | None = None,
                 progress: Progress | None = None) -> CountResult:
    """Count the primes of `fam` with the histogram of v2(q - 1).

    method: 'auto' (native C kernel on all cores for big ntt/proth families when a C
    compiler is there, else Python), 'native', 'python'. Proth-2l/3l families are small
    (< log_qh^3 values) and always counted in Python."""
    if method not in ("auto", "native", "python"):
        raise ValueError(f"method must be auto, native or python, got {method!r}")
    cands = fam.candidates()
    if cands > COUNT_LIMIT:
        raise ValueError(f"{fam.label} has {cands} candidates (> 2^{COUNT_LIMIT.bit_length() - 1}); "
                         "too many to count: list them or use max_log_n")
    t0 = time.perf_counter()
    note = ""
    hist: dict[int, int] = {}
    use_native = False
    if fam.kind in ("ntt", "proth") and method != "python":
        from . import _primes_native as N
        fits = fam.beta <= 64 and (fam.qh_range()[0] << fam.omega) + 1 > N.SIEVE_LIMIT
        if fits and (method == "native" or cands >= NATIVE_THRESHOLD):
            if N.load() is not None:
                use_native = True
            elif method == "native" or cands > 1 << 26:
                raise ValueError(f"{fam.label}: {cands} candidates need the native kernel "
                                 f"({N.native_status()}); pass method='python' to wait hours")
            elif cands > 1 << 20:
                note = N.native_status()
        elif method == "native":
            raise ValueError(f"native counting needs 18 <= beta <= 64, got {fam.label}")
    if use_native:
        from . import _primes_native as N
        lo, hi = fam.qh_range()
        proth = fam.log_qh <= fam.omega
        workers = workers or os.cpu_count() or 1
        count, hist = N.count_parallel(lo, hi, fam.omega, 0 if proth else 1, workers=workers, progress=progress)
        how = (f"native C: sieve to 2^16 + {'Proth test' if proth else 'Miller-Rabin (13 bases)'}, "
               f"{workers} thread(s)")
    else:
        count = 0
        for q in family_members(fam, progress=progress):
            count += 1
            v = v2(q - 1)
            hist[v] = hist.get(v, 0) + 1
        how = "python"
    res = CountResult(fam, count, dict(sorted(hist.items())), cands, time.perf_counter() - t0, how, note)
    res.max_log_n = max_log_n(fam, valuations=res.valuations)
    return res


# --------------------------------------------------------------------------- Table 1, max log n, RNS

#: Table 1: log n -> log q~ for 128-bit security.
TABLE1_LOG_Q = {12: 109, 13: 218, 14: 438, 15: 881, 16: 1761}


def primes_needed(log_n: int, beta: int, log_q_total: int | None = None) -> int:
    """ceil(log q~ / beta) (Table 1; 1761/32 gives 56, not the printed 55)."""
    if log_q_total is None:
        if log_n not in TABLE1_LOG_Q:
            raise ValueError(f"Table 1 has log n in 12..16, got {log_n}")
        log_q_total = TABLE1_LOG_Q[log_n]
    return -(-log_q_total // beta)


def _at_least(fam: Family, k: int, log_n: int) -> bool:
    found = 0
    for _ in family_members(fam, log_n=log_n):
        found += 1
        if found >= k:
            return True
    return False


def max_log_n(fam: Family, *, valuations: dict[int, int] | None = None) -> int | None:
    """The rule of docs/corrections.md#max-log-n: largest log n <= 16 with at least primes_needed(log n, beta)
    primes of the family having 2n | q - 1. Uses a count's `valuations` when given,
    else enumerates lazily (stops as soon as enough are found, so it works on the huge
    'ntt' families too). None if even log n = 12 is not supported."""
    for log_n in sorted(TABLE1_LOG_Q, reverse=True):
        k = primes_needed(log_n, fam.beta)
        if valuations is not None:
            ok = sum(c for v, c in valuations.items() if v >= log_n + 1) >= k
        else:
            ok = _at_least(fam, k, log_n)
        if ok:
            return log_n
    return None


def rns_base(n: int, log_q_total: int, fam: Family | str = "ntt", *, beta: int = 64,
             log_qh: int | None = None, descending: bool = True) -> list[int]:
    """ceil(log_q_total / beta) distinct primes of the family, each with 2n | q - 1 (so
    each supports a length-n negacyclic NTT): the RNS base of Table 1. Largest first by
    default. For kind 'ntt' without log_qh, log_qh = beta - log2(2n).
    Raises ValueError when the family has too few such primes."""
    log_n = _check_pow2(n)
    if not isinstance(log_q_total, int) or log_q_total < 1:
        raise ValueError(f"log q~ must be a positive integer, got {log_q_total}")
    if isinstance(fam, str):
        fam = family(fam, beta, log_qh, n=n if log_qh is None else None)
    k = primes_needed(log_n, fam.beta, log_q_total)
    if log_n + 1 > fam.beta - 1:
        raise ValueError(f"no {fam.beta}-bit prime has 2n | q-1 for n=2^{log_n}")
    out: list[int] = []
    for q in family_members(fam, log_n=log_n, descending=descending):
        out.append(q)
        if len(out) == k:
            return out
    raise ValueError(f"cannot: {fam.label} has only {len(out)} primes with 2n | q-1 (n=2^{log_n}), "
                     f"log q~={log_q_total} needs ceil({log_q_total}/{fam.beta}) = {k}")


# --------------------------------------------------------------------------- roots of unity

def _factor_small(m: int) -> list[int]:
    out, d = [], 2
    while d * d <= m and d < 1 << 20:
        if m % d == 0:
            out.append(d)
            while m % d == 0:
                m //= d
        d += 1 if d == 2 else 2
    if m > 1:
        if not is_prime(m):
            raise ValueError(f"cannot factor the order's cofactor {m}")
        out.append(m)
    return out


def primitive_root_of_unity(q: int, order: int, *, smallest: bool = True) -> int:
    """A primitive `order`-th root of unity mod the prime q (order | q - 1); the smallest
    one by default (for order = 2n this is the negacyclic NTT's psi: psi^n = -1)."""
    if not is_prime(q):
        raise ValueError(f"q must be prime, got {q}")
    if order < 1 or (q - 1) % order:
        raise ValueError(f"order must divide q - 1 = {q - 1}, got {order}")
    if order == 1:
        return 1
    ps = _factor_small(order)
    e = (q - 1) // order
    for x in range(2, q):
        g = pow(x, e, q)
        if all(pow(g, order // p, q) != 1 for p in ps):
            break
    else:  # pragma: no cover
        raise ValueError("no primitive root found")
    if not smallest:
        return g
    if order > 1 << 20:
        raise ValueError(f"smallest root: order too large to scan ({order})")
    best, acc = g, g
    for k in range(2, order):
        acc = acc * g % q
        if acc < best and math.gcd(k, order) == 1:
            best = acc
    return best


def bit_reverse(i: int, bits: int) -> int:
    return int(format(i, f"0{bits}b")[::-1], 2) if bits else 0


@dataclass
class Twiddles:
    q: int
    n: int
    psi: int          # primitive 2n-th root, psi^n = -1
    psi_inv: int
    n_inv: int
    forward: list[int]   # forward[i] = psi^bitrev(i), i < n (Cooley-Tukey, bit-reversed)
    inverse: list[int]   # inverse[i] = psi^-bitrev(i) (Gentleman-Sande)

    def record(self, tables: bool = True) -> dict:
        d: dict[str, object] = {"q": self.q, "n": self.n, "psi": self.psi, "psi_inv": self.psi_inv, "n_inv": self.n_inv,
             "omega": self.psi * self.psi % self.q, "psi_n": pow(self.psi, self.n, self.q),
             "check_psi_n_is_minus_1": pow(self.psi, self.n, self.q) == self.q - 1}
        if tables:
            d["forward"], d["inverse"] = self.forward, self.inverse
        return d


def twiddles(q: int, n: int, psi: int | None = None) -> Twiddles:
    """psi powers in bit-reversed order for the negacyclic Cooley-Tukey NTT (stage m uses
    forward[m + i]) and the inverse table for the Gentleman-Sande inverse. Checks psi^n = -1."""
    log_n = _check_pow2(n)
    if not is_ntt_friendly(q, n):
        raise ValueError(f"q={q} is not an NTT-friendly prime for n={n} (needs q prime, q = 1 mod {2 * n})")
    psi = primitive_root_of_unity(q, 2 * n) if psi is None else psi
    if pow(psi, n, q) != q - 1:
        raise ValueError(f"psi={psi} is not a primitive 2n-th root: psi^n != -1 mod q")
    psi_inv = pow(psi, -1, q)
    fwd, inv = [0] * n, [0] * n
    p, pi = 1, 1
    pows, ipows = [], []
    for _ in range(n):
        pows.append(p)
        ipows.append(pi)
        p, pi = p * psi % q, pi * psi_inv % q
    for i in range(n):
        r = bit_reverse(i, log_n)
        fwd[i], inv[i] = pows[r], ipows[r]
    return Twiddles(q, n, psi, psi_inv, pow(n, -1, q), fwd, inv)


def ntt_negacyclic(a: list[int], tw: Twiddles) -> list[int]:
    """Forward negacyclic NTT (CT butterflies, natural order in, bit-reversed out):
    out[i] = a(psi^(2 bitrev(i) + 1))."""
    q, n, a = tw.q, tw.n, list(a)
    t, m = n, 1
    while m < n:
        t //= 2
        for i in range(m):
            s, j1 = tw.forward[m + i], 2 * i * t
            for j in range(j1, j1 + t):
                u, v = a[j], a[j + t] * s % q
                a[j], a[j + t] = (u + v) % q, (u - v) % q
        m *= 2
    return a


def intt_negacyclic(a: list[int], tw: Twiddles) -> list[int]:
    """Inverse of ntt_negacyclic (GS butterflies, bit-reversed in, natural order out)."""
    q, n, a = tw.q, tw.n, list(a)
    t, m = 1, n
    while m > 1:
        h, j1 = m // 2, 0
        for i in range(h):
            s = tw.inverse[h + i]
            for j in range(j1, j1 + t):
                u, v = a[j], a[j + t]
                a[j], a[j + t] = (u + v) % q, (u - v) * s % q
            j1 += 2 * t
        t *= 2
        m = h
    return [x * tw.n_inv % q for x in a]
