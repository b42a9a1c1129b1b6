"""The modmul models against plain Python (%, pow), with hypothesis, on real primes of
each algorithm's family; the printed-wrong forms of docs/corrections.md fail; Table 3's DSP column."""

import random

import pytest
from hypothesis import given, settings, strategies as st

from modforge.families.modmul import model as M
from modforge.hw.dsp import dsp_tiles
from modforge.math.primes import family, family_members, proth_l_terms, v2


def members(kind, beta, logqh, k=2):
    """The smallest and the largest primes of a family (k of each end)."""
    fam = family(kind, beta, logqh)
    lo = list(_take(family_members(fam), k))
    hi = list(_take(family_members(fam, descending=True), k))
    return list(dict.fromkeys(lo + hi))


def _take(it, k):
    for _, x in zip(range(k), it, strict=False):
        yield x


# (q, logqh) of each family used below
NTT = [(q, lq) for beta, lq in [(32, 19), (64, 47), (64, 50), (32, 15)] for q in members("ntt", beta, lq)]
PROTH = [(q, lq) for beta, lq in [(32, 15), (32, 16), (64, 17), (64, 26), (64, 32)]
         for q in members("proth", beta, lq)]
PROTHL = [(q, lq) for kind, beta, lq in [("proth2l", 32, 16), ("proth3l", 32, 15), ("proth2l", 64, 17),
                                          ("proth3l", 64, 17), ("proth3l", 64, 32)]
          for q in members(kind, beta, lq)]
GENERIC = [q for q, _ in NTT] + [0xFFFFFFFB, 0xFFFFFFFFFFFFFFC5, 1000003, (1 << 127) - 1]


def operands(q):
    return st.tuples(st.integers(0, q - 1), st.integers(0, q - 1))


def corner(q):
    return [(0, 0), (1, 1), (q - 1, q - 1), (q - 1, 1), (q - 2, q - 1), ((q - 1) // 2, q - 1)]


def inv2(k, q):
    return pow(2, -k, q)


@pytest.mark.parametrize("q", GENERIC, ids=hex)
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_montgomery_barrett(q, data):
    bw = q.bit_length()
    for a, b in corner(q) + [data.draw(operands(q))]:
        assert M.montgomery_raw(q, bw, a * b) < 2 * q
        assert M.montgomery(q, bw, a, b) == a * b * inv2(bw, q) % q
        assert M.montgomery(q, bw + 3, a, b) == a * b * inv2(bw + 3, q) % q
        assert 0 <= M.barrett_raw(q, bw, a * b) < 2 * q
        assert M.barrett(q, bw, a, b) == a * b % q


@pytest.mark.parametrize("q", [q for q in GENERIC if M.plantard_bound_ok(q, q.bit_length())]
                         + [0xFFFFFFFFFFE40001], ids=hex)
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_plantard_below_bound(q, data):
    bw = q.bit_length() if M.plantard_bound_ok(q, q.bit_length()) else q.bit_length() + 1
    for a, b in corner(q) + [data.draw(operands(q))]:
        assert 0 <= M.plantard_raw(q, bw, a * b) <= q
        assert M.plantard(q, bw, a, b) == -a * b * inv2(2 * bw, q) % q


def test_plantard_bound_is_exact_phi():
    import math
    for bw in (16, 32, 64, 128):
        limit = (math.isqrt(5 << (2 * bw)) - (1 << bw)) // 2     # floor(2^beta (sqrt 5 - 1)/2)
        assert M.plantard_bound_ok(limit - 1, bw) and not M.plantard_bound_ok(limit + 1, bw)


@pytest.mark.parametrize("q", [0xFFF00001, 0xFFFFFFFFFFE40001, 0xFFE9800000000001], ids=hex)
def test_plantard_above_bound_fails(q):
    """corrections.md#plantard-bound: above 2^beta/phi Plantard returns wrong residues."""
    bw = q.bit_length()
    assert not M.plantard_bound_ok(q, bw)
    rng = random.Random(5)
    pairs = [(rng.randrange(q), rng.randrange(q)) for _ in range(2000)]
    wrong = sum(M.plantard(q, bw, a, b) != -a * b * inv2(2 * bw, q) % q for a, b in pairs)
    assert wrong > 0


@pytest.mark.parametrize("q,logqh", NTT, ids=lambda v: hex(v) if v > 99 else str(v))
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_wlm(q, logqh, data):
    bw = q.bit_length()
    for om in {bw - logqh, v2(q - 1), 13}:
        lam = M.wlm_lambda(bw, om)
        for a, b in corner(q) + [data.draw(operands(q))]:
            assert M.wlm_raw(q, bw, om, a * b) < 2 * q
            assert M.wlm(q, bw, om, a, b) == a * b * inv2(om * lam, q) % q


def test_wlm_carry_is_tl_nonzero():
    """c = t'[w-1] | t[w-1] equals (t_l != 0): the exact carry of t_l + t'."""
    for w in (1, 2, 5, 13):
        for tl in range(1 << w):
            tp = (-tl) % (1 << w)
            assert (((tp >> (w - 1)) | (tl >> (w - 1))) & 1) == (tl != 0)


@pytest.mark.parametrize("q,logqh", NTT[:4], ids=lambda v: hex(v) if v > 99 else str(v))
def test_wlm_printed_form_fails(q, logqh):
    """corrections.md#wlm-quotient: Alg 2 line 6 as printed (q_h * t_l) gives wrong residues."""
    bw, om = q.bit_length(), q.bit_length() - logqh
    lam = M.wlm_lambda(bw, om)
    rng = random.Random(1)
    pairs = [(rng.randrange(q), rng.randrange(q)) for _ in range(200)]
    wrong = sum(M.wlm(q, bw, om, a, b, printed=True) != a * b * inv2(om * lam, q) % q for a, b in pairs)
    assert wrong > 190


def test_wlm_factor_is_omega_lambda_not_beta():
    """corrections.md#wlm-factor: 64-bit, log q_h = 47 (omega 17, lambda 4) gives 2^-68, not 2^-64."""
    q = members("ntt", 64, 47, 1)[0]
    a, b = 123456789, q - 5
    assert M.wlm(q, 64, 17, a, b) == a * b * inv2(68, q) % q != a * b * inv2(64, q) % q


@pytest.mark.parametrize("q,logqh", PROTH, ids=lambda v: hex(v) if v > 99 else str(v))
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_wlm_mixed_and_k2red(q, logqh, data):
    bw = q.bit_length()
    om = bw - logqh
    for a, b in corner(q) + [data.draw(operands(q))]:
        for ga in (26, 25, 18, None):
            if ga is not None and logqh > ga:
                continue
            assert M.wlm_mixed_raw(q, bw, om, ga, a * b) < 2 * q
            assert M.wlm_mixed(q, bw, om, ga, a, b) == a * b * inv2(bw, q) % q
        assert -q <= M.k2red_raw(q, om, a * b) < 2 * q
        assert M.k2red(q, om, a, b) == a * b * inv2(2 * om, q) % q


def test_wlm_mixed_words_64_17():
    """corrections.md#wlm-mixed-iterations: for 64-bit, log q_h = 17, 26x17 DSPs: omega0 = 38, omega1 = 26
    (2 + 1 DSPs)."""
    assert M.wlm_mixed_words(64, 47, 26) == (38, 26)
    assert dsp_tiles(17, 38, 26, 17) == 2 and dsp_tiles(17, 26, 26, 17) == 1


def test_wlm_mixed_printed_form_fails():
    q = members("proth", 64, 17, 1)[0]
    rng = random.Random(2)
    pairs = [(rng.randrange(q), rng.randrange(q)) for _ in range(200)]
    wrong = sum(M.wlm_mixed(q, 64, 47, 26, a, b, printed=True) != a * b * inv2(64, q) % q
                for a, b in pairs)
    assert wrong > 190


@pytest.mark.parametrize("q,logqh", [(q, lq) for q, lq in NTT if 2 * lq > q.bit_length()][:4],
                         ids=lambda v: hex(v) if v > 99 else str(v))
def test_k2red_non_proth_fails(q, logqh):
    """corrections.md#k2red-range: K2RED needs omega >= beta/2; on other NTT primes it fails."""
    om = q.bit_length() - logqh
    rng = random.Random(3)
    pairs = [(rng.randrange(q), rng.randrange(q)) for _ in range(500)]
    wrong = sum(M.k2red(q, om, a, b) != a * b * inv2(2 * om, q) % q for a, b in pairs)
    assert wrong > 0


@pytest.mark.parametrize("q,logqh", PROTHL, ids=lambda v: hex(v) if v > 99 else str(v))
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_shift_variants(q, logqh, data):
    bw = q.bit_length()
    om = bw - logqh
    ls = M.proth_l_shifts(q, bw, om)
    assert ls is not None
    kind = "proth2l" if ls[2] is None else "proth3l"
    assert ls in proth_l_terms(q, kind, bw, logqh) or ls[:2] in proth_l_terms(q, kind, bw, logqh)
    assert M.shift_mul(1, bw, om, ls) == q >> om
    assert (q - 2) * q % (1 << bw) == (1 << bw) - 1          # q' = q - 2 = -q^-1 mod 2^beta
    for a, b in corner(q) + [data.draw(operands(q))]:
        assert M.k2red_shift(q, bw, om, ls, a, b) == M.k2red(q, om, a, b) == a * b * inv2(2 * om, q) % q
        assert M.montgomery_shift(q, bw, om, ls, a, b) == M.montgomery(q, bw, a, b) == a * b * inv2(bw, q) % q


def test_q_minus_2_needs_proth():
    """q - 2 is the Montgomery factor only for omega >= beta/2."""
    q = members("ntt", 32, 19, 1)[0]
    assert (q - 2) * q % (1 << 32) != (1 << 32) - 1


# --------------------------------------------------------------------------- Table 3

TABLE3_DSP = [  # (algorithm, log q, log q_h, DSP)
    ("wlm", 64, 47, 8), ("wlm", 64, 48, 8), ("wlm", 64, 49, 10), ("wlm", 64, 50, 10), ("wlm", 64, 51, 10),
    ("wlm", 32, 15, 2), ("wlm", 32, 16, 2), ("wlm", 32, 17, 3), ("wlm", 32, 18, 3), ("wlm", 32, 19, 3),
    ("wlm-mixed", 64, 17, 3), ("wlm-mixed", 32, 15, 2),
    ("k2red", 64, 26, 6), ("k2red", 64, 32, 8), ("k2red", 32, 15, 2), ("k2red", 32, 16, 2),
]


@pytest.mark.parametrize("alg,beta,logqh,dsp", TABLE3_DSP)
def test_table3_dsp_column(alg, beta, logqh, dsp):
    """The DSP column of Table 3, computed by the registered algorithms' extra_info on a
    real prime of each row's family (26x17 tiling, better orientation)."""
    from modforge.families.modmul.algorithms import K2red, Wlm, WlmMixed
    cls = {"wlm": Wlm, "wlm-mixed": WlmMixed, "k2red": K2red}[alg]
    q = next(iter(family_members(family("ntt" if alg == "wlm" else "proth", beta, logqh))))
    a = cls()
    params = a.parse({"q": str(q), "logqh": str(logqh)})
    info = a.extra_info(params)
    assert info["dsp_reduction"] == dsp, info["dsp_multiplications"]


def test_montgomery_64_dsp_text():
    """Sec. 5.1: 64-bit Montgomery on an NTT prime with log q_h = 47: 12 (a*b) + 12 + 8 = 32."""
    from modforge.families.modmul.algorithms import Montgomery
    q = next(q for q in family_members(family("ntt", 64, 47)) if v2(q - 1) == 17)
    a = Montgomery()
    params = a.parse({"q": str(q)})
    info = a.extra_info(params)
    assert (info["dsp_product"], info["dsp_reduction"], info["dsp_total"]) == (12, 20, 32)


# every algorithm, a prime it takes (with reduce_only and without)
PLAIN = [("modmul-montgomery", {"q": "0x80014001"}), ("modmul-barrett", {"q": "0xfff00001"}),
         ("modmul-plantard", {"q": "0x9e140001"}), ("modmul-wlm", {"q": "0xffffffffffe40001"}),
         ("modmul-wlm-mixed", {"q": "0xffe9800000000001"}), ("modmul-k2red", {"q": "0x80130001"}),
         ("modmul-k2red-shift", {"q": "0x9fc00001", "rho": "A"}),
         ("modmul-montgomery-shift", {"q": "0xbe00000000000001", "logqh": "17"})]


@pytest.mark.parametrize("name,cfg", PLAIN, ids=[n for n, _ in PLAIN])
def test_plain_domain_and_conversions(name, cfg):
    """plain=1 gives a*b mod q (x mod q with reduce_only), against %; the design.json
    constants move a value into the Montgomery domain (b = R^2: a R) and out (b = 1)."""
    from modforge.registry import lookup
    alg, rng = lookup(name), random.Random(11)
    p, plain = alg.parse(cfg), alg.parse({**cfg, "plain": "1"})
    red = alg.parse({**cfg, "plain": "1", "reduce_only": "1"})
    q = p.q
    for a, b in [(0, 0), (q - 1, q - 1), (1, q - 1)] + [(rng.randrange(q), rng.randrange(q)) for _ in range(300)]:
        assert alg.model(plain, a, b) == a * b % q
        assert alg.model(red, a * b) == a * b % q
    if alg.scale(p) == 1:                              # Barrett: nothing to undo, nothing added
        assert alg.cycles(plain) == alg.cycles(p) and "montgomery_domain" not in alg.extra_info(p)
        return
    assert alg.cycles(plain) == 2 * alg.cycles(p) and alg.cycles(red) == 2 * alg.cycles(p) - 2
    info = alg.extra_info(p)
    R, R2 = int(info["montgomery_domain"]["R"], 16), int(info["montgomery_domain"]["to"].split()[2], 16)
    assert R2 == R * R % q
    for a in [0, 1, q - 1] + [rng.randrange(q) for _ in range(50)]:
        assert alg.model(p, a, R2) == a * R % q and alg.model(p, a * R % q, 1) == a
    full = alg.extra_info(p)["dsp_total"]
    assert alg.extra_info(plain)["dsp_total"] == 2 * full == alg.extra_info(plain)["dsp_plain_pass"] * 2
