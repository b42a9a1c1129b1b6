"""math/primes.py: primality against python-flint, the paper's prime families against
brute force, Table 2/3 counts (docs/corrections.md#prime-counts), max log n, RNS bases, roots and twiddles,
the native counting kernel against Python, and the `modforge primes` CLI."""

import json
import random

import flint
import pytest

from modforge.cli import main
from modforge.math import _primes_native as N, primes as P


def ref_prime(n: int) -> bool:
    return n >= 2 and flint.fmpz(n).is_prime()


# ------------------------------------------------------------------ primality

KNOWN_PRIMES = [2, 3, 3329, 7681, 12289, 8380417, 2**31 - 1, 2**61 - 1, 0xFFFFFFFF00000001,
                2**64 - 59, 2**89 - 1, 2**127 - 1]
CARMICHAEL = [561, 1105, 1729, 2465, 2821, 6601, 8911, 41041, 825265, 321197185,
              5394826801, 232250619601, 9746347772161]
STRONG_PSEUDOPRIMES = [2047, 1373653, 25326001, 3215031751, 2152302898747, 3474749660383,
                       341550071728321, 3825123056546413051, 318665857834031151167461]


@pytest.mark.parametrize("q", KNOWN_PRIMES)
def test_known_primes(q):
    assert P.is_prime(q)


@pytest.mark.parametrize("n", CARMICHAEL + STRONG_PSEUDOPRIMES)
def test_carmichael_and_strong_pseudoprimes_are_composite(n):
    assert not ref_prime(n)
    assert P.is_prime(n) is False
    assert P.primality(n)[1] == "deterministic"


def test_strong_pseudoprimes_fool_a_short_base_set():
    # the printed hazard: too few Miller-Rabin bases accepts these composites
    d, s = 3825123056546413051 - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    assert all(P._mr_round(3825123056546413051, d, s, a) for a in (2, 3, 5, 7, 11, 13, 17, 19, 23))


def test_small_range_matches_sieve():
    limit = 20000
    sieve = bytearray([1]) * limit
    sieve[0] = sieve[1] = 0
    for i in range(2, int(limit ** 0.5) + 1):
        if sieve[i]:
            sieve[i * i::i] = bytearray(len(sieve[i * i::i]))
    assert [n for n in range(limit) if P.is_prime(n)] == [n for n in range(limit) if sieve[n]]


def test_random_64bit_against_flint():
    rng = random.Random(7)
    for bits in (20, 32, 48, 63, 64):
        for _ in range(400):
            n = rng.getrandbits(bits) | 1
            assert P.is_prime(n) == ref_prime(n), n


def test_random_ntt_shaped_numbers_against_flint():
    rng = random.Random(8)
    for _ in range(2000):
        q = (rng.getrandbits(32) << 32) + 1
        assert P.is_prime(q) == ref_prime(q), q


def test_above_deterministic_bound_is_probabilistic():
    assert P.primality(2**127 - 1) == (True, "probabilistic")
    assert P.primality(2**61 - 1) == (True, "deterministic")
    assert P.primality((2**61 - 1) * (2**89 - 1))[0] is False


def test_proth_test_matches_flint():
    rng = random.Random(9)
    for _ in range(1000):
        omega = rng.randrange(8, 40)
        qh = rng.randrange(1, 1 << omega)
        q = (qh << omega) + 1
        r = P.proth_test(q)
        assert r is None or r == ref_prime(q)
    assert P.proth_test(12289) is True
    assert P.proth_test(3 * 2**20 + 3) is None  # not a Proth number


def test_native_kernel_primality_and_proth_match_flint():
    lib = N.load()
    if lib is None:
        pytest.skip(N.native_status())
    rng = random.Random(10)
    for n in KNOWN_PRIMES + CARMICHAEL + STRONG_PSEUDOPRIMES:
        if n < 2**64:
            assert lib.mf_is_prime(n) == ref_prime(n), n
    for _ in range(3000):
        omega = rng.randrange(10, 33)
        qh = rng.randrange(1, 1 << omega)
        q = (qh << omega) + 1
        assert lib.mf_proth_test(qh, omega) == ref_prime(q), q
        n = rng.getrandbits(64) | 1
        assert lib.mf_is_prime(n) == ref_prime(n), n


# ------------------------------------------------------------------ NTT basics, families

def test_is_ntt_friendly():
    assert P.is_ntt_friendly(12289, 2048) and P.is_ntt_friendly(12289, 4096 // 2)
    assert not P.is_ntt_friendly(12289, 4096)
    assert P.is_ntt_friendly(3329, 128) and not P.is_ntt_friendly(3329, 256)  # Kyber: only 256 | q-1
    assert P.is_ntt_friendly(8380417, 256) and not P.is_ntt_friendly(8380417 + 2 * 256, 256)
    assert P.ntt_max_log_n(0xFFFFFFFF00000001) == 31


def brute_family(kind, beta, lq):
    omega = beta - lq
    top = lq - 1
    mids = {(1 << l1) - (1 << l2) + (0 if kind == "proth2l" else (1 << l3))
            for l1 in range(top) for l2 in range(l1 + 1) for l3 in range(top)}
    out = set()
    for q in range(1 << (beta - 1), 1 << beta):
        if not ref_prime(q) or (q - 1) % (1 << omega):
            continue
        qh = (q - 1) >> omega
        if qh.bit_length() != lq:
            continue
        if kind in ("proth2l", "proth3l"):
            if qh - (1 << (beta - 1 - omega)) not in mids:
                continue
        out.add(q)
    return sorted(out)


@pytest.mark.parametrize("kind, beta, lq", [
    ("ntt", 16, 9), ("proth", 16, 8), ("proth", 18, 6), ("proth2l", 18, 9), ("proth3l", 18, 9),
    ("proth3l", 17, 7), ("proth2l", 20, 6),
])
def test_small_families_match_brute_force(kind, beta, lq):
    fam = P.family(kind, beta, lq)
    ref = brute_family(kind, beta, lq)
    assert list(P.family_members(fam)) == ref
    assert list(P.family_members(fam, descending=True)) == ref[::-1]
    res = P.count_family(fam)
    assert res.count == len(ref)
    assert res.valuations == {v: sum(1 for q in ref if P.v2(q - 1) == v) for v in {P.v2(q - 1) for q in ref}}
    assert all(fam.contains(q) for q in ref)
    for log_n in range(beta - 1):
        assert list(P.family_members(fam, log_n=log_n)) == [q for q in ref if (q - 1) % (2 << log_n) == 0]


def test_proth_membership_and_terms():
    q = (1 << 63) + ((1 << 10) - (1 << 3)) * (1 << 47) + 1
    assert P.proth_l_terms(q, "proth2l", 64, 17) == [(10, 3)]
    assert P.family("proth2l", 64, 17).contains(q) == ref_prime(q)
    assert P.family("proth", 64, 32).contains(0xFFFFFFFF00000001)
    assert not P.family("proth", 64, 31).contains(0xFFFFFFFF00000001)  # q_h has 32 bits
    assert list(P.ntt_primes(14, 2048)) == [12289]


@pytest.mark.parametrize("args, needle", [
    (("pr", 32, 16), "family must be one of"),
    (("proth", 32, 17), "log_qh <= 16"),
    (("proth", 2, 1), "beta must be"),
    (("ntt", 32, 32), "log_qh must be"),
])
def test_family_rules(args, needle):
    with pytest.raises(ValueError, match=needle):
        P.family(*args)


# ------------------------------------------------------------------ Tables 2 and 3

TABLE2 = [("proth3l", 64, 32, 469), ("proth3l", 64, 17, 53), ("proth2l", 64, 32, 16), ("proth2l", 64, 17, 5),
          ("proth3l", 32, 16, 95), ("proth3l", 32, 15, 80), ("proth2l", 32, 16, 7), ("proth2l", 32, 15, 7)]
TABLE4_MAX_LOG_N = {("proth3l", 64, 32): 16, ("proth3l", 64, 17): 16, ("proth2l", 64, 32): 15,
                    ("proth2l", 64, 17): 13, ("proth3l", 32, 16): 16, ("proth3l", 32, 15): 16,
                    ("proth2l", 32, 16): 13, ("proth2l", 32, 15): 13}


@pytest.mark.parametrize("kind, beta, lq, paper", TABLE2)
def test_table2_counts_and_max_log_n(kind, beta, lq, paper):
    res = P.count_family(P.family(kind, beta, lq))
    assert res.count == paper
    assert res.max_log_n == TABLE4_MAX_LOG_N[(kind, beta, lq)]


@pytest.mark.parametrize("beta, lq, paper, paper_max", [
    (64, 17, 2986, 16), (32, 15, 1540, 16), (32, 16, 3020, 15),
])
def test_table3_counts(beta, lq, paper, paper_max):
    res = P.count_family(P.family("proth", beta, lq))
    assert res.count == paper
    # corrections.md#max-log-n (real 2-adic valuation): 32/16 supports n = 2^16 through its even q_h
    # (1540 primes with 2^17 | q-1 >= 56), where the paper prints 15 (= omega - 1)
    assert res.max_log_n == (16 if (beta, lq) == (32, 16) else paper_max)
    assert res.with_log_n(16) == (1540 if beta == 32 else 2986)


def test_native_count_matches_python_on_a_family():
    if N.load() is None:
        pytest.skip(N.native_status())
    for kind, beta, lq in [("proth", 36, 16), ("ntt", 28, 16)]:
        fam = P.family(kind, beta, lq)
        nat, py = P.count_family(fam, method="native"), P.count_family(fam, method="python")
        assert nat.method.startswith("native") and py.method == "python"
        assert (nat.count, nat.valuations) == (py.count, py.valuations)
        # Proth test vs Miller-Rabin inside the kernel
        lo, hi = fam.qh_range()
        assert N.count_parallel(lo, hi, fam.omega, 1) == (nat.count, nat.valuations)


@pytest.mark.slow
def test_table3_k2red_64_26():
    assert P.count_family(P.family("proth", 64, 26)).count == 1522110


@pytest.mark.slow
def test_table3_k2red_64_32():  # ~10^8 primes: minutes on 2 cores
    res = P.count_family(P.family("proth", 64, 32))
    assert res.count == 97482212


def test_count_refuses_huge_families():
    with pytest.raises(ValueError, match="too many to count"):
        P.count_family(P.family("ntt", 64, 47))


# ------------------------------------------------------------------ Table 1, max log n, RNS

def test_table1_primes_needed():
    assert P.primes_needed(16, 32) == 56  # 1761/32 -> 56, not the printed 55
    assert [P.primes_needed(k, 64) for k in range(12, 17)] == [2, 4, 7, 14, 28]
    assert [P.primes_needed(k, 32) for k in range(12, 17)] == [4, 7, 14, 28, 56]


def test_max_log_n_lazy_agrees_with_counts():
    for kind, beta, lq, _ in TABLE2[4:]:
        fam = P.family(kind, beta, lq)
        assert P.max_log_n(fam) == P.count_family(fam).max_log_n
    assert P.max_log_n(P.family("ntt", 64, 47)) == 16
    assert P.max_log_n(P.family("proth2l", 20, 6)) is None


def test_rns_base():
    base = P.rns_base(4096, 109, "ntt", beta=64)
    assert len(base) == 2 and len(set(base)) == 2
    assert all(ref_prime(q) and q.bit_length() == 64 and (q - 1) % 8192 == 0 for q in base)
    base = P.rns_base(1 << 16, 1761, "proth3l", beta=32, log_qh=15)
    assert len(base) == 56 and len(set(base)) == 56
    assert all((q - 1) % (1 << 17) == 0 and P.family("proth3l", 32, 15).contains(q) for q in base)
    assert len(P.rns_base(1 << 13, 218, "proth2l", beta=64, log_qh=17)) == 4
    with pytest.raises(ValueError, match="cannot: proth2l beta=64 logqh=17 has only 5 primes"):
        P.rns_base(1 << 14, 438, "proth2l", beta=64, log_qh=17)
    with pytest.raises(ValueError, match="power of two"):
        P.rns_base(3000, 109)


# ------------------------------------------------------------------ roots and twiddles

@pytest.mark.parametrize("q, n", [(12289, 512), (12289, 1024), (7681, 256), (3329, 128), (8380417, 256),
                                  (0xFFFFFFFF00000001, 64), (2**31 - 2**17 + 1, 16)])
def test_roots_and_twiddles(q, n):
    tw = P.twiddles(q, n)
    psi = tw.psi
    assert pow(psi, n, q) == q - 1 and pow(psi, 2 * n, q) == 1
    assert psi == min(x for x in (pow(psi, k, q) for k in range(1, 2 * n, 2)))  # smallest primitive root
    assert tw.psi_inv * psi % q == 1 and tw.n_inv * n % q == 1
    log_n = n.bit_length() - 1
    assert tw.forward == [pow(psi, P.bit_reverse(i, log_n), q) for i in range(n)]
    assert all(f * i % q == 1 for f, i in zip(tw.forward, tw.inverse, strict=True))
    rng = random.Random(q ^ n)
    a = [rng.randrange(q) for _ in range(n)]
    b = [rng.randrange(q) for _ in range(n)]
    A, B = P.ntt_negacyclic(a, tw), P.ntt_negacyclic(b, tw)
    # evaluation at the odd powers psi^(2 bitrev(i) + 1)
    for i in (0, 1, n - 1):
        x = pow(psi, 2 * P.bit_reverse(i, log_n) + 1, q)
        assert A[i] == sum(c * pow(x, k, q) for k, c in enumerate(a)) % q
    assert P.intt_negacyclic(A, tw) == a
    # negacyclic convolution: a*b mod (x^n + 1)
    ref = [0] * n
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            k = i + j
            ref[k % n] = (ref[k % n] + (x * y if k < n else -x * y)) % q
    assert P.intt_negacyclic([x * y % q for x, y in zip(A, B, strict=True)], tw) == ref


def test_known_roots():
    assert P.primitive_root_of_unity(3329, 256) == 17  # Kyber's zeta
    assert P.twiddles(12289, 512).psi == 49
    assert P.primitive_root_of_unity(12289, 12) != 1
    with pytest.raises(ValueError, match="not an NTT-friendly prime"):
        P.twiddles(12289, 8192)
    with pytest.raises(ValueError, match="psi\\^n != -1"):
        P.twiddles(12289, 512, psi=pow(49, 2, 12289))


# ------------------------------------------------------------------ CLI

def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv, needle", [
    (["check", "q=abc"], "argument 'q' must be an integer"),
    (["check"], "argument 'q' is required"),
    (["list", "family=foo", "beta=32", "logqh=16"], "argument 'family' must be one of"),
    (["list", "family=proth", "beta=9999", "logqh=16"], "argument 'beta'"),
    (["list", "family=proth", "beta=2", "logqh=1"], "argument 'beta'"),
    (["list", "family=proth", "beta=32", "logqh=17"], "argument 'logqh'"),
    (["list", "family=proth", "beta=32", "logqh=x"], "argument 'logqh'"),
    (["list", "family=proth", "beta=32", "logqh=16", "colour=red"], "'colour' is not a parameter"),
    (["count", "family=ntt", "beta=64", "logqh=47"], "too many to count"),
    (["rns", "n=3000", "logq=109"], "argument 'n' must be a power of two"),
    (["rns", "n=16384", "logq=438", "family=proth2l", "beta=64", "logqh=17"], "cannot"),
    (["roots", "q=12289", "n=100"], "argument 'n' must be a power of two"),
    (["roots", "q=12288", "n=4"], "argument 'q' must be a prime"),
    (["roots", "q=12289", "n=8192"], "needs 2n | q-1"),
])
def test_cli_bad_input_exits_2(capsys, argv, needle):
    code, out, err = run(capsys, "primes", *argv)
    assert code == 2
    assert needle in " ".join(err.split()), err
    assert "Traceback" not in err


def test_cli_json(capsys):
    code, out, _ = run(capsys, "primes", "check", "q=0xFFFFFFFF00000001", "--json")
    d = json.loads(out)
    assert code == 0 and d["prime"] and d["max_log_n"] == 31 and d["proth"]
    assert {"family": "proth", "beta": 64, "logqh": 32} in d["families"]
    code, out, _ = run(capsys, "primes", "list", "family=proth", "beta=32", "logqh=16", "count=3", "--json")
    d = json.loads(out)
    assert len(d["primes"]) == 3
    assert all(ref_prime(p["q"]) and (p["q"] - 1) % (1 << 16) == 0 for p in d["primes"])
    code, out, _ = run(capsys, "primes", "count", "family=proth2l", "beta=64", "logqh=32", "--json")
    d = json.loads(out)
    assert (d["count"], d["max_log_n"]) == (16, 15)
    code, out, _ = run(capsys, "primes", "rns", "n=4096", "logq=109", "family=proth", "beta=32", "logqh=15", "--json")
    d = json.loads(out)
    assert d["count"] == 4 and len(set(d["primes"])) == 4
    # the base as the NTT cores' RNS parameters
    from modforge.registry import lookup
    ntt = lookup("ntt-polymul")
    p = ntt.parse(dict(kv.split("=") for kv in d["ntt_args"].split()) | {"n": "4096", "reduction": "k2red"})
    assert ntt.moduli(p) == d["primes"]
    code, out, _ = run(capsys, "primes", "roots", "q=12289", "n=512", "--json")
    d = json.loads(out)
    assert d["psi"] == 49 and d["check_psi_n_is_minus_1"] and len(d["forward"]) == 512
    code, out, _ = run(capsys, "primes", "roots", "q=7681", "n=256")
    assert code == 0 and "psi = " in out
