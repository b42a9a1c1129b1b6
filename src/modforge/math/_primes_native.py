"""Native-speed prime counting for `primes.count_family`: a small C kernel compiled with
the system C compiler at first use, cached, and loaded with ctypes.

The kernel counts primes q = q_h * 2^omega + 1 (q < 2^64) over a range of q_h: a
segmented sieve over q_h by the odd primes up to `sieve_limit` (p | q exactly when
q_h = -(2^omega)^-1 mod p), then, for each survivor, a deterministic test:

- Proth's theorem when q_h < 2^omega (every candidate of a Proth family): q is prime
  iff a^((q-1)/2) = -1 mod q for some a; with a the first small prime that has Jacobi
  symbol (a/q) = -1 the test is decisive (a prime answers -1 by Euler's criterion, a
  composite never does). One modular exponentiation per candidate.
- Otherwise (and when no such a < 300 exists, i.e. q may be a square) Miller-Rabin with
  the first 13 primes as bases, deterministic for q < 3.3e24 > 2^64.

Arithmetic is 64-bit Montgomery (REDC with q^-1 mod 2^64) on unsigned __int128
products. ctypes drops the GIL during the call, so `count_parallel` runs chunks on
threads, one per core.

No compiler (or a failed build) -> `load()` returns None and callers fall back to pure
Python (`native_status()` says why). The cache is $MODFORGE_CACHE or
~/.cache/modforge (modforge.cache), keyed by a hash of the source and
the machine.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import platform
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..cache import cache_dir

C_SOURCE = r"""
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t u64;
typedef unsigned __int128 u128;

typedef struct { u64 q, qinv, one, mone; } mctx;

static inline u64 inv64(u64 q) { u64 x = q; for (int i = 0; i < 5; i++) x *= 2 - q * x; return x; }

static inline void mset(mctx *c, u64 q) {
    c->q = q; c->qinv = inv64(q); c->one = (0 - q) % q; c->mone = q - c->one;
}

/* a*b*2^-64 mod q for a, b < q: (t - m q) / 2^64 with m = t q^-1 mod 2^64. */
static inline u64 mmul(u64 a, u64 b, const mctx *c) {
    u128 t = (u128)a * b;
    u64 lo = (u64)t, hi = (u64)(t >> 64);
    u64 m = lo * c->qinv;
    u64 mh = (u64)(((u128)m * c->q) >> 64);
    u64 r = hi - mh;
    return hi < mh ? r + c->q : r;
}

static inline u64 to_m(u64 x, const mctx *c) { return (u64)((((u128)(x % c->q)) << 64) % c->q); }

static inline u64 mpow(u64 am, u64 e, const mctx *c) {
    u64 r = c->one;
    if (!e) return r;
    int top = 63 - __builtin_clzll(e);
    r = am;
    for (int i = top - 1; i >= 0; i--) {
        r = mmul(r, r, c);
        if ((e >> i) & 1) r = mmul(r, am, c);
    }
    return r;
}

static const u64 MR_BASES[13] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41};

int mf_is_prime(u64 q) {
    if (q < 2) return 0;
    for (int i = 0; i < 13; i++) {
        if (q == MR_BASES[i]) return 1;
        if (q % MR_BASES[i] == 0) return 0;
    }
    mctx c; mset(&c, q);
    u64 d = q - 1; int s = __builtin_ctzll(d); d >>= s;
    for (int i = 0; i < 13; i++) {
        u64 x = mpow(to_m(MR_BASES[i], &c), d, &c);
        if (x == c.one || x == c.mone) continue;
        int ok = 0;
        for (int r = 1; r < s; r++) {
            x = mmul(x, x, &c);
            if (x == c.mone) { ok = 1; break; }
        }
        if (!ok) return 0;
    }
    return 1;
}

static int jacobi(u64 a, u64 n) {  /* n odd */
    int t = 1;
    a %= n;
    while (a) {
        while (!(a & 1)) { a >>= 1; u64 r = n & 7; if (r == 3 || r == 5) t = -t; }
        u64 tmp = a; a = n; n = tmp;
        if ((a & 3) == 3 && (n & 3) == 3) t = -t;
        a %= n;
    }
    return n == 1 ? t : 0;
}

/* q = qh*2^omega + 1 with qh < 2^omega, q > 300. 1 prime, 0 composite. */
int mf_proth_test(u64 qh, int omega) {
    u64 q = (qh << omega) + 1;
    static const u64 A[] = {3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67,
        71, 73, 79, 83, 89, 97, 101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157, 163,
        167, 173, 179, 181, 191, 193, 197, 199, 211, 223, 227, 229, 233, 239, 241, 251, 257, 263,
        269, 271, 277, 281, 283, 293};
    for (unsigned i = 0; i < sizeof(A) / sizeof(A[0]); i++) {
        int j = jacobi(A[i], q);
        if (j == 0) return 0;
        if (j == -1) {
            mctx c; mset(&c, q);
            u64 x = mpow(to_m(A[i], &c), qh, &c);
            for (int k = 0; k < omega - 1; k++) x = mmul(x, x, &c);
            return x == c.mone;
        }
    }
    return mf_is_prime(q);
}

static u64 inv_mod_small(u64 a, u64 p) {  /* p prime, a != 0 mod p */
    int64_t t = 0, nt = 1, r = (int64_t)p, nr = (int64_t)(a % p);
    while (nr) { int64_t qq = r / nr, x; x = t - qq * nt; t = nt; nt = x; x = r - qq * nr; r = nr; nr = x; }
    if (t < 0) t += (int64_t)p;
    return (u64)t;
}

/* Count primes q = qh*2^omega + 1 for qh in [lo, hi); hist[v] += 1 for each prime with
   2^v || q-1.  Needs (hi-1)*2^omega + 1 < 2^64 and lo*2^omega + 1 > sieve_limit.
   mode: 0 = Proth test (needs hi-1 < 2^omega), 1 = Miller-Rabin, 2 = sieve survivors only.  Returns the count or -1. */
long long mf_count(u64 lo, u64 hi, int omega, int mode, u64 sieve_limit, u64 *hist) {
    if (hi <= lo) return 0;
    unsigned char *comp = calloc(sieve_limit + 1, 1);
    if (!comp) return -1;
    u64 np = 0;
    for (u64 i = 3; i <= sieve_limit; i += 2) if (!comp[i]) { np++; for (u64 j = i * i; j <= sieve_limit; j += 2 * i) comp[j] = 1; }
    u64 *P = malloc(np * sizeof(u64) + 1), *off = malloc(np * sizeof(u64) + 1);
    const u64 SEG = 1u << 16;
    unsigned char *mark = malloc(SEG);
    if (!P || !off || !mark) { free(comp); free(P); free(off); free(mark); return -1; }
    np = 0;
    for (u64 i = 3; i <= sieve_limit; i += 2) if (!comp[i]) P[np++] = i;
    free(comp);
    for (u64 k = 0; k < np; k++) {
        u64 p = P[k], pw = 1, b = 2 % p;
        for (int e = omega; e; e >>= 1) { if (e & 1) pw = pw * b % p; b = b * b % p; }
        u64 r = (p - inv_mod_small(pw, p)) % p;          /* qh = r mod p  <=>  p | q */
        off[k] = (r + p - lo % p) % p;
    }
    long long count = 0;
    for (u64 base = lo; base < hi; base += SEG) {
        u64 len = hi - base < SEG ? hi - base : SEG;
        memset(mark, 0, len);
        for (u64 k = 0; k < np; k++) {
            u64 p = P[k], j = off[k];
            for (; j < len; j += p) mark[j] = 1;
            off[k] = j - len;
        }
        for (u64 i = 0; i < len; i++) {
            if (mark[i]) continue;
            u64 qh = base + i;
            int prime = mode == 0 ? mf_proth_test(qh, omega) : mode == 1 ? mf_is_prime((qh << omega) + 1) : 1;
            if (prime) { count++; hist[omega + __builtin_ctzll(qh)]++; }
        }
    }
    free(P); free(off); free(mark);
    return count;
}
"""

_lock = threading.Lock()
_lib: ctypes.CDLL | None = None
_status = "not loaded yet"
SIEVE_LIMIT = 1 << 16


def _build(path: Path) -> None:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        raise OSError("no C compiler (cc, gcc or clang) on PATH")
    with tempfile.TemporaryDirectory(prefix="modforge-cc-") as tmp:
        src = Path(tmp) / "primecount.c"
        src.write_text(C_SOURCE)
        out = Path(tmp) / path.name
        proc = subprocess.run([cc, "-O3", "-shared", "-fPIC", "-o", str(out), str(src)],
                              capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            raise OSError(f"{cc} failed: {proc.stderr.strip()[:500]}")
        tmp_target = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        shutil.copyfile(out, tmp_target)
        os.replace(tmp_target, path)  # atomic: concurrent builders (pytest -n) don't clash


def load() -> ctypes.CDLL | None:
    """The ctypes library, building it on first use; None when unavailable."""
    global _lib, _status
    with _lock:
        if _lib is not None or _status != "not loaded yet":
            return _lib
        if os.environ.get("MODFORGE_NO_NATIVE"):
            _status = "disabled by MODFORGE_NO_NATIVE"
            return None
        try:
            key = hashlib.sha256((C_SOURCE + platform.machine() + platform.system()).encode()).hexdigest()[:16]
            path = cache_dir() / f"primecount-{key}.so"
            if not path.exists():
                _build(path)
            lib = ctypes.CDLL(str(path))
            u64 = ctypes.c_uint64
            lib.mf_count.argtypes = [u64, u64, ctypes.c_int, ctypes.c_int, u64, ctypes.POINTER(u64)]
            lib.mf_count.restype = ctypes.c_longlong
            lib.mf_is_prime.argtypes = [u64]
            lib.mf_is_prime.restype = ctypes.c_int
            lib.mf_proth_test.argtypes = [u64, ctypes.c_int]
            lib.mf_proth_test.restype = ctypes.c_int
            _lib, _status = lib, f"native C kernel ({path})"
        except (OSError, subprocess.SubprocessError) as exc:
            _lib, _status = None, f"native kernel unavailable ({exc}); pure Python fallback"
        return _lib


def native_status() -> str:
    load()
    return _status


#: candidates per chunk at most: a chunk runs in well under a second, so a stop (Ctrl-C, a time
#: limit) waits for little more than that
CHUNK_MAX = 1 << 22


def count_parallel(lo: int, hi: int, omega: int, mode: int, workers: int | None = None,
                   chunks: int | None = None,
                   progress: Callable[[int, int], None] | None = None) -> tuple[int, dict[int, int]]:
    """Count primes q_h*2^omega+1, q_h in [lo, hi), on `workers` threads.
    Returns (count, {v2(q-1): primes}); progress(candidates done, candidates) after each chunk."""
    lib = load()
    if lib is None:
        raise RuntimeError(_status)
    if hi - 1 >= 1 << (64 - omega) or ((lo << omega) + 1) <= SIEVE_LIMIT:
        raise ValueError("native count needs SIEVE_LIMIT < q < 2^64")
    workers = workers or os.cpu_count() or 1
    chunks = chunks or max(1, min(hi - lo, 16 * workers), -(-(hi - lo) // CHUNK_MAX))
    step = -(-(hi - lo) // chunks)
    bounds = [(a, min(a + step, hi)) for a in range(lo, hi, step)]

    def run(b: tuple[int, int]) -> tuple[int, list[int], int]:
        hist = (ctypes.c_uint64 * 65)()
        n = lib.mf_count(b[0], b[1], omega, mode, SIEVE_LIMIT, hist)
        if n < 0:
            raise MemoryError("native prime count: out of memory")
        return n, list(hist), b[1] - b[0]

    total, hist, done = 0, [0] * 65, 0
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        for n, h, size in pool.map(run, bounds):
            total += n
            hist = [x + y for x, y in zip(hist, h, strict=True)]
            done += size
            if progress is not None:
                progress(done, hi - lo)
    finally:
        # stopped (an exception, Ctrl-C): drop the chunks not started, wait only for the running ones
        pool.shutdown(wait=True, cancel_futures=True)
    return total, {v: c for v, c in enumerate(hist) if c}
