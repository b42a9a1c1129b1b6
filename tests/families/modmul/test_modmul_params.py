"""modmul parameter rules: every rejection is a ParameterError naming the argument."""

import random

import pytest

from modforge.errors import ParameterError
from modforge.registry import all_algorithms, lookup

NAMES = ["modmul-montgomery", "modmul-barrett", "modmul-plantard", "modmul-wlm", "modmul-wlm-mixed",
         "modmul-k2red", "modmul-k2red-shift", "modmul-montgomery-shift"]


def multiplier(name) -> dict[str, str]:
    """The grid's first full multiplier with every register stage (the grid leads with its
    smallest configuration, which may be reduce_only or a merged pipeline)."""
    return next(cfg for cfg in lookup(name).grid() if not {"reduce_only", "plain", "pipeline"} & cfg.keys())


def reject(name, cfg, argument, text):
    with pytest.raises(ParameterError) as e:
        lookup(name).parse(cfg)
    assert e.value.argument == argument, str(e.value)
    assert text in str(e.value), str(e.value)
    assert str(e.value).startswith(f"{name}: argument '{argument}'")


def test_all_registered_with_grids():
    names = {a.name for a in all_algorithms() if a.family == "modmul"}
    wide = {"modmul-field-montgomery", "modmul-field-barrett", "modmul-pseudo-mersenne", "modmul-solinas"}
    assert names == set(NAMES) | wide          # wide: tests/families/modmul/test_wide.py
    for n in NAMES:
        alg = lookup(n)
        for cfg in alg.grid():
            p = alg.parse(cfg)
            assert alg.parse({k: str(v) for k, v in vars(p).items()}) == p     # canonical is a fixed point
            assert alg.latency(p) == alg.cycles(p) and alg.initiation_interval(p) == 1
            assert "mod q" in alg.congruence(p)


@pytest.mark.parametrize("name", NAMES)
def test_common_rules(name):
    reject(name, {"q": "0xffffffff"}, "q", "must be prime")
    reject(name, {"q": str((1 << 129) + 1)}, "q", "at most 128 bits")
    reject(name, {"q": "97"}, "q", "at least 8 bits")
    reject(name, {"q": "abc"}, "q", "must be an integer")
    reject(name, {}, "q", "is required")
    q = multiplier(name)["q"]
    reject(name, {"q": q, "reduce_only": "2"}, "reduce_only", "must be 0 or 1")
    reject(name, {"q": q, "plain": "2"}, "plain", "must be 0 or 1")
    alg = lookup(name)
    full = alg.parse({"q": q})
    stages = alg.cycles(full)
    assert alg.extra_info(full)["pipeline"] == "1" * stages
    for mask in ["1" * (stages - 1), "1" * stages + "1", "0" * stages, "2" + "1" * (stages - 1)]:
        reject(name, {"q": q, "pipeline": mask}, "pipeline", f"must be {stages} characters 0 or 1")
    merged = alg.parse({"q": q, "pipeline": "0" * (stages - 1) + "1"})       # one register stage
    assert alg.cycles(merged) == alg.latency(merged) == 1 and "_pipe0" in alg.module_name(merged)
    datapath = alg.datapath(merged)                      # a plain builder: its counts, nothing elaborated
    assert datapath.depth == 1 and datapath.stages == stages
    assert "_plain" in lookup(name).module_name(lookup(name).parse({"q": q, "plain": "1"}))


@pytest.mark.parametrize("name", NAMES)
def test_reduce_only_is_the_reduction_of_x(name):
    """reduce_only: one 2 beta-bit operand x, the same congruence with A*B = x, two
    stages fewer, no DSPs for the product."""
    alg = lookup(name)
    cfg = {k: v for k, v in multiplier(name).items() if k not in ("qh_input", "shift_input")}
    p, r = alg.parse(cfg), alg.parse({**cfg, "reduce_only": "1"})
    assert [o.width for o in alg.operands(r)] == [2 * alg.derived(p).modulus.beta]
    assert alg.cycles(r) == alg.cycles(p) - 2
    wide = name in ("modmul-montgomery", "modmul-barrett")     # any x < q 2^beta (reduce_bound)
    assert ("X <= q 2^beta - 1" if wide else "X <= (q-1)^2") in alg.congruence(r)
    for a, b in alg.cases(p)[:40]:
        assert alg.model(r, a * b) == alg.model(p, a, b)
    assert max(x for (x,) in alg.cases(r)) == alg.reduce_bound(r) == ((p.q << p.beta) - 1 if wide else (p.q - 1) ** 2)
    info = alg.extra_info(r)
    if "dsp_product" in info:
        assert info["dsp_product"] == 0 and info["dsp_total"] == info["dsp_reduction"]


@pytest.mark.parametrize("name", ["modmul-montgomery", "modmul-barrett", "modmul-plantard"])
def test_generic_rules(name):
    reject(name, {"q": "0x80014001", "beta": "31"}, "beta", "q < 2^beta")
    reject(name, {"q": "0x80014001", "beta": "129"}, "beta", "must be in 0..128")   # the bound, before validate
    reject(name, {"q": "0x80014001", "dsp": "xc9"}, "dsp", "must be one of")
    p = lookup(name).parse({"q": "0x80014001"})
    assert p.beta == 32 and p.dsp == "dsp48e2"
    if name != "modmul-plantard":
        assert lookup(name).parse({"q": "0xFFFFFFFB"}).beta == 32  # any prime, not only NTT primes


def test_plantard_bound():
    reject("modmul-plantard", {"q": "0xfff00001"}, "q", "2^beta/phi")
    assert lookup("modmul-plantard").parse({"q": "0xfff00001", "beta": "33"}).beta == 33
    assert lookup("modmul-plantard").parse({"q": "0x9e140001"}).beta == 32


def test_wlm_rules():
    alg = lookup("modmul-wlm")
    assert alg.parse({"q": "0x80014001"}).logqh == 32 - 14          # auto: omega = v2(q - 1)
    reject("modmul-wlm", {"q": "0x80014001", "logqh": "17"}, "q", "q = 1 mod 2^omega (omega=15")
    reject("modmul-wlm", {"q": "0x80014001", "logqh": "40"}, "logqh", "1..beta-1")
    reject("modmul-wlm", {"q": "0xFFFFFFFB", "logqh": "30"}, "q", "q = 1 mod 2^omega")


def test_proth_rules():
    for name in ("modmul-wlm-mixed", "modmul-k2red"):
        reject(name, {"q": "0x80014001"}, "q", "Proth prime")        # omega 14 < 16
        reject(name, {"q": "0x80014001", "logqh": "16"}, "q", "q = 1 mod 2^omega")
    assert lookup("modmul-k2red").parse({"q": "0x8000118000000001", "logqh": "26"}).logqh == 26
    # WLM-Mixed: log q_h <= Gamma_B
    reject("modmul-wlm-mixed", {"q": "0x8000002500000001", "logqh": "32"}, "logqh", "Gamma_B = 17")
    assert lookup("modmul-wlm-mixed").parse({"q": "0x8000002500000001", "logqh": "32", "dsp": "none"})


RUNTIME = [("modmul-wlm", {"q": "0x80140001", "logqh": "16"}, "qh_input", ["a", "b", "qh"]),
           ("modmul-wlm-mixed", {"q": "0x80140001", "logqh": "15"}, "qh_input", ["a", "b", "qh"]),
           ("modmul-k2red", {"q": "0x80130001", "logqh": "16"}, "qh_input", ["a", "b", "qh"]),
           ("modmul-k2red-shift", {"q": "0x9fc00001", "logqh": "16"}, "shift_input",
            ["a", "b", "l1", "l2"]),                                                        # Proth-2l
           ("modmul-montgomery-shift", {"q": "0x800a000000000001", "logqh": "17", "rho": "A"}, "shift_input",
            ["a", "b", "l1", "l2", "l3"])]                                                  # Proth-3l


@pytest.mark.parametrize("name,cfg,flag,names", RUNTIME, ids=[r[0] for r in RUNTIME])
def test_runtime_modulus(name, cfg, flag, names):
    """qh_input / shift_input: the modulus fields are the last operands; the model reduces
    modulo the q they give for every allowed value (q_h with its top bit set; l2 <= l1 <=
    log q_h - 2, l3 <= log q_h - 2), not only for the design's q."""
    alg = lookup(name)
    assert {**cfg, flag: "1"} in alg.grid()          # a configuration the conformance test simulates
    p = alg.parse({**cfg, flag: "1"})
    assert [o.name for o in alg.operands(p)] == names
    assert "the input" in alg.congruence(p) and alg.extra_info(p)["runtime_inputs"]
    k = len(names) - 2
    assert alg.runtime_of(p, p.q) and alg.with_runtime(p, alg.runtime_of(p, p.q)) == p
    rng = random.Random(5)
    for values in [*alg.runtime_corners(p), *(alg.runtime_random(p, rng) for _ in range(30))]:
        q = alg.with_runtime(p, values).q
        assert q.bit_length() == p.q.bit_length() and (q - 1) % (1 << alg.derived(p).modulus.omega) == 0
        f = alg.scale(alg.with_runtime(p, values))
        for a, b in [(q - 1, q - 1), (0, 5), *((rng.randrange(q), rng.randrange(q)) for _ in range(10))]:
            assert alg.model(p, a, b, *values) == a * b * f % q
    assert {c[-k:] for c in alg.cases(p)} == {alg.runtime_of(p, p.q), *alg.runtime_corners(p)}
    reject(name, {**cfg, flag: "2"}, flag, "must be 0 or 1")
    reject(name, {**cfg, flag: "1", "plain": "1"}, "plain", "must be 0 with a run-time modulus")


def test_proth_l_rules():
    reject("modmul-k2red", {"q": "0x80130001", "shift_input": "1"}, "shift_input", "is not a parameter")
    for name in ("modmul-k2red-shift", "modmul-montgomery-shift"):
        reject(name, {"q": "0x802b0001", "logqh": "16"}, "q", "Proth-2l or Proth-3l")   # Proth, not Proth-l
        reject(name, {"q": "0x802b0001"}, "q", "Proth-2l or Proth-3l")
        reject(name, {"q": "0x80014001"}, "q", "Proth-2l or Proth-3l")
        reject(name, {"q": "0x9fc00001", "qh_input": "1"}, "qh_input", "is not a parameter")
        reject(name, {"q": "0x9fc00001", "logqh": "16", "rho": "C"}, "rho", "A or B")
        p = lookup(name).parse({"q": "0x9fc00001"})
        assert p.logqh == 10 and p.rho == "B"                          # auto: the smallest log q_h
        info = lookup(name).extra_info(lookup(name).parse({"q": "0x800a000000000001", "logqh": "17"}))
        assert (info["l1"], info["l2"], info["l3"], info["proth"]) == (3, 2, 4, "3l")
        # no multiplier in the reduction: the DSPs are the a*b product's 26x17 tiles
        assert (info["dsp_reduction"], info["dsp_product"], info["dsp_total"]) == (0, 12, 12)


def test_extra_info_and_names():
    alg = lookup("modmul-wlm-mixed")
    p = alg.parse({"q": "0x800a000000000001", "logqh": "17"})
    info = alg.extra_info(p)
    assert info["words"] == [38, 26] and info["dsp_reduction"] == 3 and info["dsp_product"] == 12
    assert alg.module_name(p).startswith("mf_modmul_wlm_mixed_q64_qh17_")
    p2 = alg.parse({"q": "0x800a000000000001", "logqh": "17", "dsp": "ecp5"})
    assert alg.extra_info(p2)["words"] == [46, 18] and alg.module_name(p2) != alg.module_name(p)


@pytest.mark.parametrize("name", ["modmul-montgomery", "modmul-barrett"])
def test_reduce_only_takes_a_wide_x(name):
    """Barrett and Montgomery reduce any x < q 2^beta (a lazily summed value, beta above q's
    bit length): plain=1 gives x mod q up to the bound and at it."""
    alg, rng = lookup(name), random.Random(5)
    for q in (131, 3329, 12289, 0x80014001):
        for extra in (0, 3, 9):
            r = alg.parse({"q": str(q), "beta": str(q.bit_length() + extra), "reduce_only": "1", "plain": "1"})
            top = alg.reduce_bound(r)
            assert top == (q << r.beta) - 1
            for x in [top, top - 1, 0, 1] + [rng.randrange(top) for _ in range(300)]:
                assert alg.model(r, x) == x % q


@pytest.mark.parametrize("name, wide", [("modmul-montgomery", "modmul-field-montgomery"),
                                        ("modmul-barrett", "modmul-field-barrett")])
def test_a_wide_or_named_q_points_to_the_field_algorithm(name, wide):
    for q in ("p256", hex((1 << 255) - 19)):
        with pytest.raises(ParameterError) as e:
            lookup(name).parse({"q": q})
        assert e.value.argument == "q" and wide in e.value.rule
