"""The standards' rings (profiles.py) against the standards' own arithmetic: ML-KEM's NTT,
inverse and product against kyber-py (FIPS 203), ML-DSA's NTT and inverse against
dilithium-py (FIPS 204), both pure-Python implementations of the standards used here as
test-only references; Falcon's against the textbook transform with the reference code's
root; incomplete=k for any prime; the products through the base case against a schoolbook
product; the rules a profile fixes."""

import random

import pytest
from dilithium_py.polynomials.polynomials import PolynomialRing as DilithiumRing
from kyber_py.polynomials.polynomials import PolynomialRing as KyberRing

from modforge.errors import ParameterError
from modforge.families.ntt.plan import accesses, issue, parity
from modforge.families.ntt.profiles import PROFILES
from modforge.math.primes import bit_reverse, intt_negacyclic, ntt_negacyclic, twiddles
from modforge.registry import lookup
from tests.families.ntt.test_ntt_model import schoolbook, stalls

FWD, INV, MUL, BASE = (lookup(f"ntt-{t}") for t in ("forward", "inverse", "polymul", "basemul"))


def special(q: int, n: int, rng: random.Random) -> list[list[int]]:
    """The standards' special cases (all zero, all q - 1, single coefficients) and random ones."""
    single = [[0] * j + [v] + [0] * (n - j - 1) for j, v in ((0, 1), (n - 1, 1), (1, q - 1), (n // 2, 5))]
    return [[0] * n, [q - 1] * n, *single] + [[rng.randrange(q) for _ in range(n)] for _ in range(3)]


@pytest.mark.parametrize("reduction, pe, extra", [("montgomery", 1, {}), ("barrett", 4, {}), ("k2red", 2, {}),
                                                  ("k2red-shift", 2, {}), ("wlm", 8, {}),
                                                  ("plantard", 4, {"beta": "13"})])   # 3329 < 2^13/phi
def test_ml_kem_is_fips_203(reduction, pe, extra):
    """NTT (Algorithm 9), NTT^-1 with 3303 = 128^-1 (Algorithm 10) and MultiplyNTTs
    (Algorithms 11-12) as kyber-py computes them, with each reduction the issue names
    (Barrett, Montgomery, K2RED for 3329 = 13 2^8 + 1, Plantard); the product also equals
    the schoolbook one."""
    ring, rng = KyberRing(), random.Random(203)
    cfg = {"profile": "ml-kem", "pe": str(pe), "reduction": reduction, "dsp": "none", **extra}
    pf, pi, pm = FWD.parse(cfg), INV.parse(cfg), MUL.parse(cfg)
    assert (pf.q, pf.n, pf.psi, pf.incomplete) == (3329, 256, 17, 1)
    polys = special(3329, 256, rng)
    for a in polys:
        a_hat = ring(list(a)).to_ntt()
        assert FWD.model(pf, a) == a_hat.coeffs
        assert INV.model(pi, a_hat.coeffs) == a
        assert INV.model(pi, a) == ring(list(a), is_ntt=True).from_ntt().coeffs
    for a, b in zip(polys, polys[1:] + polys[:1], strict=True):
        want = (ring(list(a)).to_ntt() * ring(list(b)).to_ntt()).from_ntt().coeffs
        assert MUL.model(pm, a, b) == want == schoolbook(a, b, 3329)


@pytest.mark.parametrize("reduction, pe, buffers", [("k2red-shift", 2, 1), ("montgomery", 8, 2), ("barrett", 4, 1),
                                                     ("k2red-shift", 1, 1), ("montgomery", 1, 2)])
def test_basemul_is_multiply_ntts(reduction, pe, buffers):
    """ntt-basemul: FIPS 203's MultiplyNTTs (ML-KEM) and FIPS 204's pointwise product (ML-DSA)
    on NTT-domain polynomials, as kyber-py and dilithium-py compute them."""
    rng = random.Random(pe)
    for profile, ring, q in (("ml-kem", KyberRing(), 3329), ("ml-dsa", DilithiumRing(), 8380417)):
        p = BASE.parse({"profile": profile, "pe": str(pe), "reduction": reduction, "buffers": str(buffers)})
        polys = special(q, 256, rng)
        for a, b in zip(polys, polys[2:] + polys[:2], strict=True):
            assert BASE.model(p, a, b) == (ring(list(a), is_ntt=True) * ring(list(b), is_ntt=True)).coeffs


@pytest.mark.parametrize("reduction", ["montgomery", "k2red", "montgomery-shift"])
def test_ml_dsa_is_fips_204(reduction):
    """NTT (Algorithm 41) and NTT^-1 with 256^-1 (Algorithm 42) as dilithium-py computes them."""
    ring, rng = DilithiumRing(), random.Random(204)
    cfg = {"profile": "ml-dsa", "pe": "4", "reduction": reduction, "dsp": "none"}
    pf, pi = FWD.parse(cfg), INV.parse(cfg)
    assert (pf.q, pf.n, pf.psi, pf.incomplete) == (8380417, 256, 1753, 0)
    for a in special(8380417, 256, rng):
        a_hat = ring(list(a)).to_ntt()
        assert FWD.model(pf, a) == a_hat.coeffs
        assert INV.model(pi, a_hat.coeffs) == a == ring(list(a_hat.coeffs), is_ntt=True).from_ntt().coeffs


@pytest.mark.parametrize("profile", ["falcon-512", "falcon-1024"])
def test_falcon_roots(profile):
    """psi = 7^(1024/n), the reference code's g = 7 (a primitive 2048th root mod 12289)."""
    p, rng = FWD.parse({"profile": profile, "pe": "16", "reduction": "barrett"}), random.Random(206)
    assert p.psi == pow(7, 1024 // p.n, 12289) and pow(7, 1024, 12289) == 12288
    tw = twiddles(12289, p.n, p.psi)
    a = [rng.randrange(12289) for _ in range(p.n)]
    assert FWD.model(p, a) == ntt_negacyclic(a, tw)
    assert INV.model(INV.parse({"profile": profile, "pe": "16", "reduction": "barrett"}), a) == intt_negacyclic(a, tw)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_incomplete_for_any_prime(k):
    """incomplete=k: block i of 2^k coefficients is a mod (x^(2^k) - psi^(2 bitrev(i) + 1)),
    psi a primitive 2n/2^k-th root, bitrev over log2(n) - k bits; the inverse undoes it."""
    q, n = 7681, 64                                       # 7681 - 1 = 15 2^9: a 2n/2^k-th root for n <= 256
    p = FWD.parse({"q": str(q), "n": str(n), "pe": "2", "incomplete": str(k), "reduction": "barrett"})
    rng, bits = random.Random(k), (n >> k).bit_length() - 1
    a = [rng.randrange(q) for _ in range(n)]
    out = FWD.model(p, a)
    for i in range(n >> k):
        gamma = pow(p.psi, 2 * bit_reverse(i, bits) + 1, q)
        block = 1 << k
        rem = [0] * block                                # a mod (x^block - gamma)
        for j, x in enumerate(a):
            rem[j % block] = (rem[j % block] + x * pow(gamma, j // block, q)) % q
        assert out[i * block:(i + 1) * block] == rem, i
    assert INV.model(INV.parse({"q": str(q), "n": str(n), "pe": "2", "incomplete": str(k), "reduction": "barrett"}),
                     out) == a


def test_base_case_passes_read_and_write_each_row_once():
    """products: cycles 2c and 2c+1 read row c of a and b; basecase: cycle c reads row c."""
    plan = MUL.derived(MUL.parse({"profile": "ml-kem", "pe": "4"}))
    kinds = [ps.kind for ps in plan.passes]
    assert "pointwise" not in kinds and kinds.count("products") == kinds.count("basecase") == 1
    for ps in plan.passes:
        if ps.kind in ("products", "basecase"):
            rows = [c >> 1 if ps.kind == "products" else c for c in range(ps.issues)]
            assert rows == sorted(rows) and set(rows) == set(range(plan.rows))
            for c, r in enumerate(rows):
                op = issue(ps, c, plan.rows, plan.P)
                assert (op.lo_bank, op.lo_addr) == (op.hi_bank, op.hi_addr) == (parity(r), r >> 1)


def test_base_case_passes_at_one_butterfly_read_a_pair_from_both_banks():
    """P = 1: pair i is word i of a set's two banks (rows 2i, 2i+1). products, cycles 4i ..
    4i+3: a_j with b_j, then with b_(j^1), each product of a pair into a word of the pair's
    four (a's two first); basecase, cycles 2i and 2i+1: both words of set 0, then of set 1,
    into a's rows 2i and 2i+1. Every word is written once per pass."""
    plan = MUL.derived(MUL.parse({"profile": "ml-kem", "pe": "1"}))
    R = plan.rows
    for ps in plan.passes:
        if ps.kind not in ("products", "basecase"):
            continue
        group = 4 if ps.kind == "products" else 2
        assert ps.issues == group * R // 2
        written = []
        for c in range(ps.issues):
            i, k = divmod(c, group)
            reads, writes = accesses(ps, c, R, 1)
            assert {addr for _, _, addr in reads + writes} == {i}
            if ps.kind == "products":
                assert [(st, bank ^ parity(i)) for st, bank, _ in reads] == [(0, k & 1), (1, (k & 1) ^ (k >> 1))]
                assert [st for st, _, _ in writes] == [k >> 1]
            else:
                assert sorted(reads) == [(k, 0, i), (k, 1, i)] and writes == [(0, parity(2 * i + k), i)]
            written += writes
        sets = (0, 1) if ps.kind == "products" else (0,)
        assert sorted(written) == sorted((st, parity(r), r >> 1) for st in sets for r in range(R))


def test_profile_rules():
    def reject(name, cfg, argument, text):
        with pytest.raises(ParameterError) as e:
            lookup(name).parse(cfg)
        assert e.value.argument == argument and text in str(e.value), str(e.value)
        assert str(e.value).startswith(f"{name}: argument '{argument}'")

    reject("ntt-forward", {"profile": "kyber"}, "profile", "must be one of")
    reject("ntt-forward", {"profile": "ml-kem", "q": "7681"}, "q", "fixed by profile=ml-kem to 3329")
    reject("ntt-forward", {"profile": "ml-dsa", "n": "512"}, "n", "fixed by profile=ml-dsa to 256")
    reject("ntt-forward", {"profile": "ml-dsa", "incomplete": "1"}, "incomplete", "fixed by profile=ml-dsa to 0")
    reject("ntt-inverse", {"profile": "falcon-512", "psi": "7"}, "psi", "fixed by profile=falcon-512 to 49")
    reject("ntt-forward", {"profile": "ml-kem", "base": "0x3301"}, "base", "the standard's one prime")
    reject("ntt-forward", {"profile": "ml-kem", "pe": "3"}, "pe", "power of two")
    reject("ntt-forward", {"profile": "ml-kem", "pe": "256"}, "pe", "1..64")
    # the complete NTT where no root exists: the largest n, and how many layers to stop early
    reject("ntt-forward", {"q": "3329", "n": "256"}, "q", "the largest complete negacyclic NTT q has is n = 128; "
           "incomplete=1 stops early enough")
    reject("ntt-forward", {"q": "3329", "n": "256", "incomplete": "8"}, "incomplete", "must leave a layer")
    reject("ntt-polymul", {"q": "7681", "n": "64", "incomplete": "2"}, "incomplete", "must be 0 or 1")


def test_profiles_are_the_standards_rings():
    for name, prof in PROFILES.items():
        p = FWD.parse({"profile": name})
        assert (p.q, p.n, p.psi, p.incomplete) == (prof.q, prof.n, prof.psi, prof.incomplete)
        assert pow(prof.psi, prof.n >> prof.incomplete, prof.q) == prof.q - 1
        assert prof.standard in FWD.congruence(p)


@pytest.mark.parametrize("reduction", ["montgomery", "barrett", "k2red"])
def test_incomplete_cycle_formulas(reduction):
    """C = L H + G + D per transform, L = log2(n) - k layers; the product with the base case:
    C = 3 (L H + G) + 3 n/P + 2 max(0, D + 1 - H) + max(0, D + 1 - n/P) + D (products 2 n/P,
    basecase n/P); latency = n/P + C + 3, II = n/P + C (one buffer)."""
    for n, pe in [(16, 1), (64, 1), (64, 2), (64, 4), (64, 8), (64, 32), (256, 1), (256, 4), (256, 16), (1024, 64)]:
        for k in (1, 2, 3):
            cfg = {"q": "7681", "n": str(n), "pe": str(pe), "incomplete": str(k), "reduction": reduction}
            if n >> k > 256:                                   # 7681: a 2n/2^k-th root for n/2^k <= 256
                continue
            pf = FWD.parse(cfg)
            D = lookup(f"modmul-{reduction}").cycles(FWD.reduction_params(pf)) + 3
            H, L, R = n // (2 * pe), n.bit_length() - 1 - k, n // pe
            transform = L * H + stalls(n, pe, D, k)
            assert FWD.cycles(pf) == INV.cycles(INV.parse(cfg)) == transform + D, (n, pe, k)
            if k == 1:
                pm = MUL.parse(cfg)
                C = 3 * transform + 3 * R + 2 * max(0, D + 1 - H) + max(0, D + 1 - R) + D
                assert MUL.cycles(pm) == C, (n, pe)
                assert MUL.latency(pm) == R + C + 3 and MUL.initiation_interval(pm) == R + C
            if k == 1:                                         # basemul: products, basecase (+ b's scale pass)
                for buffers in (1, 2):
                    pb = BASE.parse({**cfg, "buffers": str(buffers)})
                    scale = R + max(0, D + 1 - R) if buffers == 2 and reduction != "barrett" else 0
                    assert BASE.cycles(pb) == 3 * R + max(0, D + 1 - R) + scale + D, (n, pe, buffers)
