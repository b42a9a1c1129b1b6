"""fields.py: the named primes, form detection, the reduction models against Python's %, the errors."""

import functools
import random
import re

import flint
import pytest

from modforge.errors import ParameterError
from modforge.math import fields as F
from modforge.math.primes import is_prime

# The hex values as the standards print them (independent of the formulas in fields.py).
HEX = {
    "p256": "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
    "p384": "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe"
            "ffffffff0000000000000000ffffffff",
    "p521": "1ff" + "f" * 128,
    "secp256k1": "fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f",
    "25519": "7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffed",
    "448": "fffffffffffffffffffffffffffffffffffffffffffffffffffffffe"
           "ffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    "bn254": "30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47",
    "bls12-381": "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f624"
                 "1eabfffeb153ffffb9feffffffffaaab",
    "bls12-377": "01ae3a4617c510eac63b05c06ca1493b1a22d9f300f5138f1ef3622fba094800"
                 "170b5d44300000008508c00000000001",
    "p192": "fffffffffffffffffffffffffffffffeffffffffffffffff",
    "p224": "ffffffffffffffffffffffffffffffff000000000000000000000001",
}
BITS = {"p256": 256, "p384": 384, "p521": 521, "secp256k1": 256, "25519": 255, "448": 448,
        "bn254": 254, "bls12-381": 381, "bls12-377": 377, "p192": 192, "p224": 224}
ALL = {**F.NAMED, **F.NIST_SMALL}


def _pow2_formula(text):
    """'2^256 - 2^224 + ... - 1' -> int (only sums of signed powers of two and small constants)."""
    total = 0
    for sign, base, exp, const in re.findall(r"([+-]?)\s*(?:(2)\^(\d+)|(\d+))", text):
        v = 2 ** int(exp) if base else int(const)
        total += -v if sign == "-" else v
    return total


def test_named_primes():
    assert list(F.NAMED) == ["p256", "p384", "p521", "secp256k1", "25519", "448", "bn254", "bls12-381", "bls12-377"]
    for name, n in ALL.items():
        assert n.q == int(HEX[name], 16), name
        assert n.q.bit_length() == BITS[name], name
        assert is_prime(n.q) and flint.fmpz(n.q).is_prime(), name
        assert n.cite and n.curve
        if "u =" not in n.formula and "x =" not in n.formula:
            assert _pow2_formula(n.formula) == n.q, name
    assert F.NAMED["bn254"].q == 21888242871839275222246405745257275088696311157297823662689037894645226208583


def test_resolve():
    assert F.resolve("p256") == F.NAMED["p256"].q
    assert F.resolve(" BLS12-381 ") == F.NAMED["bls12-381"].q
    assert F.resolve("57896044618658097711785492504343953926634992332820282019728792003956564819949") == 2**255 - 19
    assert F.resolve("0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffed") == 2**255 - 19
    assert F.resolve(12345) == 12345
    with pytest.raises(ParameterError) as e:
        F.resolve("p257", owner="fieldmul")
    err = e.value
    assert (err.algorithm, err.argument, err.value) == ("fieldmul", "q", "p257")
    assert all(name in err.rule for name in F.NAMED)
    assert str(err).startswith("fieldmul: argument 'q' must be an integer")


def _names(q):
    return [f.name for f in F.forms(q)]


def test_forms_named():
    q = {name: n.q for name, n in ALL.items()}
    assert _names(q["p521"]) == ["pseudo-mersenne", "montgomery-friendly", "generic"]
    assert F.forms(q["p521"])[0].params == {"k": 521, "c": 1}
    assert F.forms(q["p521"])[1].params == {"w": 512, "ones": 521}
    assert _names(q["25519"]) == ["pseudo-mersenne", "generic"]
    assert F.forms(q["25519"])[0].params == {"k": 255, "c": 19}
    assert _names(q["secp256k1"]) == ["pseudo-mersenne", "generic"]
    assert F.forms(q["secp256k1"])[0].params == {"k": 256, "c": 2**32 + 977}
    assert _names(q["p256"]) == ["solinas", "montgomery-friendly", "generic"]
    assert F.forms(q["p256"])[0].params == {"terms": ((1, 256), (-1, 224), (1, 192), (1, 96), (-1, 0)), "w": 32}
    assert F.forms(q["p256"])[1].params == {"w": 64, "ones": 96}
    assert _names(q["p384"]) == ["solinas", "pseudo-mersenne", "montgomery-friendly", "generic"]
    assert F.forms(q["p384"])[0].params["terms"] == ((1, 384), (-1, 128), (-1, 96), (1, 32), (-1, 0))
    assert F.forms(q["p384"])[2].params["w"] == 32
    assert _names(q["p224"]) == ["solinas", "pseudo-mersenne", "generic"]
    assert _names(q["p192"]) == ["solinas", "pseudo-mersenne", "montgomery-friendly", "generic"]
    assert F.forms(q["p192"])[0].params["w"] == 64
    assert _names(q["448"]) == ["goldilocks", "solinas", "montgomery-friendly", "generic"]
    assert F.forms(q["448"])[0].params == {"h": 224}
    assert F.forms(q["448"])[2].params == {"w": 128, "ones": 224}
    for name in ("bn254", "bls12-381", "bls12-377"):
        assert _names(q[name]) == ["generic"], name
        assert F.reductions(q[name]) == ["montgomery", "barrett"]
    assert F.reductions(q["448"]) == ["goldilocks", "solinas", "montgomery-friendly", "montgomery", "barrett"]
    assert str(F.forms(q["p256"])[0]) == "solinas (terms=2^256 - 2^224 + 2^192 + 2^96 - 1, w=32)"
    assert str(F.forms(q["secp256k1"])[0]) == "pseudo-mersenne (k=256, c=0x1000003d1)"
    for f in F.forms(q["p384"]):
        assert f.reductions[-2:] == ("montgomery", "barrett")


def test_signed_terms():
    assert F.signed_terms(2**224 - 2**96 + 1) == ((1, 224), (-1, 96), (1, 0))
    assert F.signed_terms(2**255 - 19) is None
    assert F.signed_terms(2**256 - 2**32 - 977) is None
    assert F.signed_terms(2**64 - 2**32) == ((1, 64), (-1, 32))
    assert F.signed_terms(sum(2 ** (32 * i) for i in range(7))) is None  # 7 terms > 5


# --------------------------------------------------------------------------- operands

@functools.cache
def random_primes():
    """Seeded random primes of 192 to 521 bits."""
    rng, out = random.Random(37), []
    for bits in (192, 224, 256, 320, 384, 448, 512, 521):
        while True:
            q = rng.getrandbits(bits) | 1 << (bits - 1) | 1
            if is_prime(q):
                out.append(q)
                break
    return tuple(out)


def primes():
    return [n.q for n in ALL.values()] + list(random_primes())


def operands(q, xmax, count, seed):
    """Corners 0, 1, q-1, q, q^2-1, xmax-1, operands near 2^k and 2^(2k-1), and `count` random ones: all < xmax."""
    k = q.bit_length()
    near = [2**k - 1, 2**k, 2**k + 1, 2 ** (2 * k - 1) - 1, 2 ** (2 * k - 1), (2**k - 1) ** 2, (q - 1) ** 2]
    xs = [0, 1, q - 1, q, q + 1, q * q - 1, xmax - 1, xmax - q, *near]
    rng = random.Random(seed)
    xs += [rng.randrange(xmax) for _ in range(count)]
    xs += [rng.randrange(q * q) for _ in range(count // 4)]
    return [x for x in xs if 0 <= x < xmax]


# --------------------------------------------------------------------------- Montgomery, Barrett

@pytest.mark.parametrize("w", [16, 32, 64])
def test_montgomery_word(w):
    for q in primes():
        n, qp, R = F.montgomery_constants(q, w)
        assert R == 2 ** (w * n) and R > q and (q * qp) % 2**w == 2**w - 1
        rinv = pow(R, -1, q)
        for x in operands(q, q * R, 60, seed=q % 1000 + w):
            want = x * rinv % q
            t = F.montgomery_word_trace(q, w, x)
            assert t.r == want and t.folds == n and t.corrections in (0, 1)
            lazy = F.montgomery_word(q, w, x, lazy=True)
            assert lazy % q == want and lazy < 2 * q
            if qp == 1:  # the friendly fast path must agree with the general one
                assert F.montgomery_word(q, w, x, friendly=False) == t.r
                assert F.montgomery_word(q, w, x, lazy=True, friendly=False) == lazy


def test_montgomery_friendly_paths():
    seen = []
    for name, n in ALL.items():
        for f in F.forms(n.q):
            if f.name != "montgomery-friendly":
                continue
            for w in (16, 32, 64, f.params["w"]):
                if w > f.params["w"]:
                    continue
                seen.append((name, w))
                assert F.montgomery_constants(n.q, w)[1] == 1
                R = F.montgomery_constants(n.q, w)[2]
                for x in operands(n.q, n.q * R, 40, seed=w):
                    assert F.montgomery_word(n.q, w, x, friendly=True) == F.montgomery_word(n.q, w, x, friendly=False)
    assert ("p256", 64) in seen and ("p384", 32) in seen and ("448", 128) in seen and ("p521", 512) in seen
    with pytest.raises(ValueError):
        F.montgomery_word(F.NAMED["p384"].q, 64, 5, friendly=True)  # p384 = -1 mod 2^32 only
    with pytest.raises(ValueError):
        F.montgomery_word(F.NAMED["bn254"].q, 64, F.NAMED["bn254"].q * 2**256)  # x = q R is out of range


def test_barrett():
    worst = {}
    for q in primes():
        k = q.bit_length()
        corners = operands(q, 4**k, 0, seed=0)
        worst[q] = max(F.barrett_trace(q, x).corrections for x in corners)
        for x in corners + operands(q, q * q, 300, seed=q % 997):
            t = F.barrett_trace(q, x)
            assert t.r == x % q and t.corrections <= 2
    # How many corrections the model needed over the corners (0, 1, q-1, q, q^2-1, 4^k-1, near 2^k,
    # (q-1)^2): at most one for every named prime; HAC's two are reached by the random 256-bit
    # prime at x = (q-1)^2, the largest product of two reduced operands.
    assert max(worst[n.q] for n in ALL.values()) == 1
    q = random_primes()[2]
    assert F.barrett_trace(q, (q - 1) ** 2).corrections == 2 and max(worst.values()) == 2


def test_barrett_from_a_product_below():
    """q3 from u mu taken from below (a truncated product, error under 2^(k+1), here its worst:
    2^(k+1) - 1 less): q3 is one less, r < 4q, three corrections at most, reached at the
    corner that needs HAC's two; the lazy result < 2q still congruent; a product out of its
    bound is refused."""
    def below(q):
        return lambda u, mu: max(u * mu - (1 << (q.bit_length() + 1)) + 1, 0)

    for q in primes():
        k = q.bit_length()
        for x in operands(q, 4**k, 0, seed=0) + operands(q, q * q, 100, seed=q % 991):
            t, lazy = F.barrett_trace(q, x, product=below(q)), F.barrett(q, x, lazy=True, product=below(q))
            assert t.r == x % q and t.corrections <= 3 and lazy < 2 * q and lazy % q == x % q
    q = random_primes()[2]
    assert F.barrett_trace(q, (q - 1) ** 2, product=below(q)).corrections == 3
    with pytest.raises(AssertionError, match="out of its bound"):
        F.barrett(q, (q - 1) ** 2, product=lambda u, mu: u * mu - (1 << (q.bit_length() + 1)))


# --------------------------------------------------------------------------- special forms

@functools.cache
def pm_primes():
    """(k, c) with 2^k - c prime, c the smallest such, for several k (and the named ones)."""
    out = [(255, 19), (256, 2**32 + 977), (521, 1), (384, 2**384 - F.NAMED["p384"].q)]
    for k in (192, 200, 256, 300, 384, 448, 511):
        c = 1
        while not is_prime(2**k - c):
            c += 2
        out.append((k, c))
    return out


def test_pseudo_mersenne():
    for k, c in pm_primes():
        q = 2**k - c
        assert F.forms(q)[0].name == "pseudo-mersenne" or c >= 2**64
        bound = F.pseudo_mersenne_fold_bound(k, c, 4**k - 1)
        assert bound <= (2 if c == 1 else 3)
        for x in operands(q, 4**k, 300, seed=k):
            t = F.pseudo_mersenne_trace(k, c, x)
            assert t.r == x % q and t.folds <= bound and t.corrections <= 1
    # the third fold is reached for 25519 below q^2: hi = 2^k - 40, lo = 500
    x = (2**255 - 40) * 2**255 + 500
    assert x < (2**255 - 19) ** 2
    t = F.pseudo_mersenne_trace(255, 19, x)
    assert t.folds == 3 and t.r == x % (2**255 - 19)
    assert F.pseudo_mersenne_fold_bound(521, 1, (2**521 - 1) ** 2 - 1) == 2
    with pytest.raises(ValueError):
        F.pseudo_mersenne(448, 2**224 + 1, 5)  # c too large: 2 bits(c) >= k


@functools.cache
def solinas_primes():
    """Seeded random primes with 3 to 5 signed power-of-two terms on multiples of 32."""
    rng, out = random.Random(1999), []
    while len(out) < 4:
        k = 32 * rng.randrange(6, 17)
        mids = rng.sample(range(32, k, 32), rng.randrange(1, 4))
        q = 2**k + sum(rng.choice((1, -1)) * 2**e for e in mids) + rng.choice((1, -1))
        if is_prime(q) and F.signed_terms(q) is not None:
            out.append(q)
    return out


def test_solinas():
    cases = [ALL[n].q for n in ("p192", "p224", "p256", "p384", "448")] + solinas_primes()
    for q in cases:
        terms = F.signed_terms(q)
        for w in (32, 64):
            if any(e % w for _, e in terms):
                continue
            k, n = terms[0][1], terms[0][1] // w
            for i, row in enumerate(F.solinas_table(terms, w)):
                assert (sum(m * 2 ** (w * j) for j, m in enumerate(row)) - 2 ** (w * (n + i))) % q == 0
            adds, subs = F.solinas_bounds(terms, w)
            for x in operands(q, 4**k, 300, seed=q % 991 + w):
                t = F.solinas_trace(terms, w, x)
                assert t.r == x % q and t.corrections <= max(adds, subs)
    p256 = F.signed_terms(ALL["p256"].q)
    assert F.solinas_bounds(p256, 32) == (5, 5)
    # p256's table: every 2^(32 i), i = 8..15, folds to coefficients in -2..3 on the 8 low words
    assert {m for row in F.solinas_table(p256, 32) for m in row} <= set(range(-2, 4))


GOLDILOCKS_H = (108, 161, 224, 240, 354)  # 2^(2h) - 2^h - 1 is prime for these h


def test_goldilocks():
    rng = random.Random(448)
    for h in GOLDILOCKS_H:
        q = 2 ** (2 * h) - 2**h - 1
        assert is_prime(q) and F.forms(q)[0].name == "goldilocks"
        for x in operands(q, 2 ** (4 * h), 300, seed=h):
            t = F.goldilocks_trace(x, h)
            assert t.r == x % q and t.folds <= 3 and t.corrections <= 1
        for a, b in [(0, 0), (1, q - 1), (q - 1, q - 1), (2 ** (2 * h) - 1, 2 ** (2 * h) - 1)] + [
                (rng.randrange(q), rng.randrange(q)) for _ in range(100)]:
            assert F.goldilocks_mul(a, b, h) == a * b % q
    assert F.goldilocks(2**448) == 2**224 + 1


# --------------------------------------------------------------------------- errors

def _err(q, reduction=None):
    with pytest.raises(ParameterError) as e:
        F.check("fieldmul", q, reduction)
    assert e.value.algorithm == "fieldmul"
    return e.value


def test_check_errors():
    p = random_primes()[0]  # 192 bits
    e = _err(2**200)
    assert e.argument == "q" and "(it is even)" in e.rule
    e = _err(3 * p)
    assert e.rule == "must be prime (it is composite: 3 divides it)"
    e = _err(random_primes()[0] * random_primes()[1])  # no factor below 2^16
    assert e.rule == "must be prime (it is composite)"
    e = _err(2**127 - 1)  # a prime, but 127 bits
    assert e.rule == "must have 128 to 1024 bits (it has 127)"
    e = _err(2**1279 - 1)
    assert e.rule == "must have 128 to 1024 bits (it has 1279)"
    e = _err(F.NAMED["bn254"].q, "solinas")
    assert e.argument == "reduction" and e.value == "solinas" and "forms: generic" in e.rule
    e = _err(F.NAMED["p256"].q, "pseudo-mersenne")
    assert "solinas (terms=2^256 - 2^224 + 2^192 + 2^96 - 1, w=32)" in e.rule
    assert "reductions that apply: solinas, montgomery-friendly, montgomery, barrett" in e.rule
    e = _err(F.NAMED["25519"].q, "karatsuba")
    assert e.rule.startswith("must be one of montgomery, barrett")
    assert str(_err(-7)).startswith("fieldmul: argument 'q' must be a positive odd prime")


def test_check_ok():
    for n in F.NAMED.values():
        fs = F.check("fieldmul", n.q)
        assert fs[-1].name == "generic"
        for r in F.reductions(n.q):
            F.check("fieldmul", n.q, r)
    assert F.small_factor(1009 * 1013) == 1009 and F.small_factor(2**61 - 1) is None
