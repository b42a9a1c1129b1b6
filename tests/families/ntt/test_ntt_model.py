"""The hardware-faithful NTT model (row/bank schedule, lane twiddles, F-scaled twiddles,
halves, the reductions' bit-exact multipliers) against primes.ntt_negacyclic,
primes.intt_negacyclic and a schoolbook negacyclic convolution, for every reduction and
several n and P; the modmul scale factors against their models; the schedule's
conflict-freedom and ROM contents."""

import random

import pytest
from hypothesis import given, settings, strategies as st

from modforge.families.ntt.algorithms import REDUCTIONS
from modforge.families.ntt.plan import issue, parity, row_lanes
from modforge.math.primes import intt_negacyclic, ntt_negacyclic, primitive_root_of_unity, twiddles
from modforge.registry import all_algorithms, lookup

# one NTT-friendly prime (q = 1 mod 2^11 at least) per reduction
PRIMES = {
    "montgomery": 0x80014001, "barrett": 0xfff00001, "plantard": 0x9e140001, "wlm": 0x80140001,
    "wlm-mixed": 0x800a000000000001, "k2red": 0x80130001, "k2red-shift": 0x9fc00001,
    "montgomery-shift": 0x800a000000000001,
}
SHAPES = [(16, 1), (16, 2), (16, 8), (32, 4), (64, 16), (64, 32), (128, 8)]


def params(name, reduction, n, pe, **extra):
    cfg = {"q": str(PRIMES[reduction]), "n": str(n), "pe": str(pe), "reduction": reduction}
    cfg.update({k: str(v) for k, v in extra.items()})
    return lookup(name).parse(cfg)


def schoolbook(a, b, q):
    """c = a*b mod (x^n + 1, q), independently of any NTT."""
    n = len(a)
    c = [0] * n
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            if i + j < n:
                c[i + j] += x * y
            else:
                c[i + j - n] -= x * y
    return [v % q for v in c]


def rand_poly(rng, n, q):
    return [rng.randrange(q) for _ in range(n)]


@pytest.mark.parametrize("reduction", PRIMES)
@pytest.mark.parametrize("n,pe", SHAPES, ids=[f"n{n}-p{p}" for n, p in SHAPES])
def test_forward_inverse_polymul_match_references(reduction, n, pe):
    rng = random.Random(n * 131 + pe)
    fwd, inv, mul = (lookup(f"ntt-{t}") for t in ("forward", "inverse", "polymul"))
    pf, pi, pm = (params(a.name, reduction, n, pe) for a in (fwd, inv, mul))
    q, tw = pf.q, twiddles(pf.q, n, pf.psi)
    polys = [c[0] for c in fwd.cases(pf)] + [rand_poly(rng, n, q) for _ in range(2)]
    for a in polys:
        assert fwd.model(pf, a) == ntt_negacyclic(a, tw)
        assert inv.model(pi, a) == intt_negacyclic(a, tw)
        assert inv.model(pi, fwd.model(pf, a)) == a
    for a, b in mul.cases(pm) + [(rand_poly(rng, n, q), rand_poly(rng, n, q))]:
        assert mul.model(pm, a, b) == schoolbook(a, b, q)


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_polymul_hypothesis(data):
    reduction = data.draw(st.sampled_from(sorted(PRIMES)))
    n = data.draw(st.sampled_from([16, 32]))
    pe = data.draw(st.sampled_from([1, 2, 4, n // 2]))
    p = params("ntt-polymul", reduction, n, pe)
    a = data.draw(st.lists(st.integers(0, p.q - 1), min_size=n, max_size=n))
    b = data.draw(st.lists(st.integers(0, p.q - 1), min_size=n, max_size=n))
    assert lookup("ntt-polymul").model(p, a, b) == schoolbook(a, b, p.q)


@pytest.mark.parametrize("reduction, q, extra", [
    ("k2red", 0xffffff0000000001, {"logqh": 26}),
    ("wlm", 0x80140001, {"logqh": 18}),
    ("k2red-shift", 0x9fc00001, {"rho": "A"}),
    ("plantard", 0xffffffffffe40001, {"beta": 65}),
])
def test_reduction_parameters_keep_the_transforms_exact(reduction, q, extra):
    rng = random.Random(7)
    n = 32
    cfg = {"q": str(q), "n": str(n), "pe": "4", "reduction": reduction} | {k: str(v) for k, v in extra.items()}
    a, b = rand_poly(rng, n, q), rand_poly(rng, n, q)
    fwd, poly = lookup("ntt-forward"), lookup("ntt-polymul")
    pf = fwd.parse(cfg)
    assert fwd.model(pf, a) == ntt_negacyclic(a, twiddles(q, n, pf.psi))
    assert poly.model(poly.parse(cfg), a, b) == schoolbook(a, b, q)


RNS = [("k2red", 0xfff00001, [0xffdf0001, 0xffd50001], {"logqh": 16}),
       ("wlm-mixed", 0xffe9800000000001, [0xffe6800000000001, 0xffe3800000000001], {}),
       ("wlm", 0xfff00001, [0xffdf0001], {"logqh": 16}),
       ("k2red-shift", 0x9fc00001, [0x88000001, 0x83fe0001], {"logqh": 16}),
       ("montgomery-shift", 0x9fc00001, [0x88000001], {"logqh": 16, "rho": "A"})]


@pytest.mark.parametrize("reduction, q, base, extra", RNS, ids=[r[0] for r in RNS])
def test_rns_residues_match_references(reduction, q, base, extra):
    """RNS: residue j of every operand and of the result is an independent transform mod
    q_j (its own smallest psi for j > 0)."""
    n, rng = 32, random.Random(3)
    for t in ("forward", "inverse", "polymul"):
        alg = lookup(f"ntt-{t}")
        cfg = {"q": str(q), "n": str(n), "pe": "4", "reduction": reduction,
               "base": ",".join(map(hex, base))} | {k: str(v) for k, v in extra.items()}
        p = alg.parse(cfg)
        ops = alg.random_operands(p, rng)
        out = alg.model(p, *ops)
        for j, qj in enumerate([q] + base):
            res = slice(j * n, (j + 1) * n)
            tw = twiddles(qj, n, p.psi if j == 0 else primitive_root_of_unity(qj, 2 * n))
            if t == "polymul":
                assert out[res] == schoolbook(ops[0][res], ops[1][res], qj)
            else:
                ref = ntt_negacyclic if t == "forward" else intt_negacyclic
                assert out[res] == ref(ops[0][res], tw)
            assert all(0 <= v < qj for v in ops[0][res])


def test_config_words_load_primes():
    """twiddles=load: the cfg words of primes q'_j are their plans' ROM words and constants at
    the addresses ConfigMap names for slot j; loading the core's own moduli gives the ROM
    core's contents; the loaded primes' model is the reference transform mod each."""
    alg = lookup("ntt-polymul")
    p = alg.parse({"q": "0x80140001", "base": "0xfff00001", "n": "32", "pe": "4", "reduction": "wlm",
                   "twiddles": "load"})
    cm = alg.config_map(p)
    primes = alg.runtime_primes(p)
    assert len(primes) == 2 and not set(primes) & set(alg.moduli(p))
    loaded = alg.with_moduli(p, primes)
    plans = alg.derived(loaded).primes
    words = alg.config_words(p, primes)
    assert len(words) == cm.count == 2 * (3 + len(plans[0].shared) + 4 * len(plans[0].lanes[0]))
    fields = {}
    for x in words:
        sel, word = x >> (cm.data_bits + cm.word_bits), (x >> cm.data_bits) & ((1 << cm.word_bits) - 1)
        assert (sel, word) not in fields and x < 1 << cm.width
        fields[sel, word] = x & ((1 << cm.data_bits) - 1)
    omega = 32 - alg.reduction_params(p).logqh
    for j, (qj, plan) in enumerate(zip(primes, plans, strict=True)):
        S, L = len(plan.shared), len(plan.lanes[0])
        assert (fields[0, 3 * j], fields[0, 3 * j + 1], fields[0, 3 * j + 2]) == (qj, qj >> omega, plan.b_scale)
        assert tuple(fields[1, j * S + a] for a in range(S)) == plan.shared
        assert all(tuple(fields[2 + u, j * L + a] for a in range(L)) == plan.lanes[u] for u in range(4))
    rom = alg.derived(p)                                   # the core's own moduli: its ROM contents
    own = alg.config_words(p, alg.moduli(p))
    assert own[3:3 + rom.shared_len] == [cm.payload(1, a, x) for a, x in enumerate(rom.shared[:rom.shared_len])]
    rng = random.Random(5)
    a, b = alg.random_operands(loaded, rng)
    out = alg.model(loaded, a, b)
    for j, qj in enumerate(primes):
        res = slice(32 * j, 32 * (j + 1))
        assert out[res] == schoolbook(a[res], b[res], qj)


def test_other_psi():
    """Any primitive 2n-th root: psi^3 is one too (3 is odd)."""
    base = params("ntt-forward", "montgomery", 32, 4)
    psi3 = pow(base.psi, 3, base.q)
    p = params("ntt-forward", "montgomery", 32, 4, psi=psi3)
    a = list(range(32))
    assert p.psi == psi3
    assert lookup("ntt-forward").model(p, a) == ntt_negacyclic(a, twiddles(p.q, 32, psi3))
    assert lookup("ntt-forward").model(p, a) != lookup("ntt-forward").model(base, a)


@pytest.mark.parametrize("n,pe", [(16, 1), (64, 4), (64, 32), (256, 16)])
def test_schedule_is_conflict_free(n, pe):
    """Each butterfly pass reads every row exactly once, one row per bank per cycle; the
    pointwise pass reads row c of a and of b; load/unload put row r in bank parity(r)."""
    plan = lookup("ntt-polymul").derived(params("ntt-polymul", "montgomery", n, pe))
    R = n // pe
    for ps in plan.passes:
        seen = []
        for c in range(ps.issues):
            op = issue(ps, c, R, pe)
            if ps.kind == "pointwise":
                assert (op.lo_bank, op.lo_addr) == (parity(c), c >> 1) == (op.hi_bank, op.hi_addr)
                seen.append(c)
                continue
            assert op.lo_bank != op.hi_bank
            if ps.kind == "pair":
                r = next(r for r in range(R) if (parity(r), r >> 1) == (op.lo_bank, op.lo_addr))
                r2 = r + ps.t // pe
                assert (parity(r2), r2 >> 1) == (op.hi_bank, op.hi_addr)
            else:
                r, r2 = 2 * c, 2 * c + 1
                assert (parity(r), r >> 1, parity(r2), r2 >> 1) == (op.lo_bank, op.lo_addr, op.hi_bank, op.hi_addr)
            seen += [r, r2]
        assert sorted(seen) == list(range(R))


def test_twiddle_roms():
    """Shared ROM word k = T[k]/F (CT) or T[k]/(2F) (GS); lane ROM words: one per unit per
    cycle of each distinct row pass; twiddle_words = their sum."""
    alg = lookup("ntt-polymul")
    p = params("ntt-polymul", "montgomery", 64, 8)
    plan = alg.derived(p).primes[0]                        # the one prime of the base
    q, R, H, F = p.q, 8, 4, plan.F
    assert F == pow(2, -32, q)
    tw = twiddles(q, 64, p.psi)
    assert list(plan.shared) == [s * pow(F, -1, q) % q for s in tw.forward[:R]] + \
        [s * pow(2 * F, -1, q) % q for s in tw.inverse[:R]]
    # t = 4, 2, 1 forward (shared by NTT(a) and NTT(b)) and t = 1, 2, 4 inverse
    assert all(len(lane) == 6 * H for lane in plan.lanes)
    assert plan.twiddle_words == 2 * R + 8 * 6 * H == alg.extra_info(p)["twiddle_words"]
    assert plan.b_scale == pow(F, -2, q)
    assert row_lanes(5, 2, 8) == (0, 5, 7) and row_lanes(6, 2, 8) == (1, 4, 6)


def stalls(n: int, pe: int, D: int, k: int = 0) -> int:
    """G, the cycles a transform's passes wait for rows still in the pipeline, in closed form
    (H = n/(2P), R = n/P): a pair pass of distance d rows reads, at its cycle x, rows the pass
    before wrote up to d/2 issues later than x; a row pass (and a pair pass with d = 1)
    reads what the pass before wrote at the same issue cycle. incomplete=k drops the last k
    passes, and with them the last k waits."""
    H, R, log_p = n // (2 * pe), n // pe, pe.bit_length() - 1

    def g(x):
        return max(0, x)

    return (sum(g(2 ** i + D + 1 - H) for i in range(max(0, k - log_p), R.bit_length() - 2))
            + max(0, log_p - k) * g(D + 1 - H))


def test_cycle_formulas():
    """C = log2(n) n/(2P) + G + D per transform (G: stalls); polymul: NTT(a), NTT(b) with no
    wait between, the pointwise pass (n/P), INTT, each dependent boundary max(0, D + 1 - H);
    latency = n/P + C + 3, II = n/P + C; D = mul_depth + 3."""
    for reduction in PRIMES:
        for n, pe in SHAPES + [(64, 4), (1024, 4), (4096, 16)]:
            for name in ("ntt-forward", "ntt-inverse", "ntt-polymul"):
                alg = lookup(name)
                p = params(name, reduction, n, pe)
                mod = lookup(f"modmul-{reduction}")
                D = mod.cycles(alg.reduction_params(p)) + 3
                lg, H = n.bit_length() - 1, n // (2 * pe)
                C = lg * H + stalls(n, pe, D) + D
                if name == "ntt-polymul":
                    C = 3 * (lg * H + stalls(n, pe, D)) + n // pe + 2 * max(0, D + 1 - H) + D
                assert alg.cycles(p) == C, (name, reduction, n, pe)
                assert alg.latency(p) == n // pe + C + 3
                assert alg.initiation_interval(p) == n // pe + C
                # two buffers: II = C; polymul scales b in a pass of its own, off every
                # dependency path while a transforms (F = 1: none)
                p2 = params(name, reduction, n, pe, buffers=2)
                C2 = C + (n // pe if name == "ntt-polymul" and alg.derived(p).b_scales[0] else 0)
                assert alg.cycles(p2) == C2 and alg.initiation_interval(p2) == C2
                assert alg.latency(p2) == n // pe + C2 + 3


def test_two_buffers_same_results():
    """The scale pass of two buffers gives what scaling at load does."""
    rng = random.Random(8)
    for reduction in PRIMES:
        one, two = params("ntt-polymul", reduction, 32, 4), params("ntt-polymul", reduction, 32, 4, buffers=2)
        a, b = lookup("ntt-polymul").random_operands(one, rng)
        assert lookup("ntt-polymul").model(two, a, b) == schoolbook(a, b, one.q), reduction


def test_modmul_scale_matches_models():
    """scale(params) = F with model(a, b) == a*b*F mod q, every modmul algorithm and grid."""
    rng = random.Random(5)
    for alg in all_algorithms():
        if alg.name not in {f"modmul-{r}" for r in REDUCTIONS}:    # the NTT's reductions (not the wide fields)
            continue
        for cfg in alg.grid():          # the plain form, as the NTT uses it
            p = alg.parse({k: v for k, v in cfg.items() if k not in ("reduce_only", "qh_input", "shift_input",
                                                                       "plain")})
            F = alg.scale(p)
            assert 0 < F < p.q
            for a, b in alg.cases(p)[:40] + [alg.random_operands(p, rng) for _ in range(100)]:
                assert alg.model(p, a, b) == a * b * F % p.q, (alg.name, cfg)


def test_beats_round_trip():
    alg = lookup("ntt-polymul")
    p = params("ntt-polymul", "wlm-mixed", 16, 4)
    rng = random.Random(1)
    a, b = alg.random_operands(p, rng)
    beats = alg.in_beats(p, (a, b))
    w = 64
    assert len(beats) == alg.frame_beats(p) == 4
    assert [x & ((1 << w) - 1) for x, _ in beats] == a[0::4]          # lane 0 in the low bits
    assert [(y >> (3 * w)) & ((1 << w) - 1) for _, y in beats] == b[3::4]
    assert alg.out_beats(p, a) == [x for x, _ in beats]
    assert [o.width for o in alg.operands(p)] == [4 * w, 4 * w] and alg.result_width(p) == 4 * w
