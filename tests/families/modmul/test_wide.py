"""The wide field multipliers (modmul-field-montgomery, -field-barrett, -pseudo-mersenne,
-solinas): q by name or value, the errors before generation, the models against Python's
% for the named primes and random primes of 192 to 521 bits, the latency formulas, the DSP
counts and design.json's curve name. The hardware against the models: tests/test_conformance.py."""

import json
import random

import pytest

from modforge.design import generate
from modforge.errors import ParameterError
from modforge.math import fields as F
from modforge.math.primes import is_prime
from modforge.registry import lookup

ALGS = ["modmul-field-montgomery", "modmul-field-barrett", "modmul-pseudo-mersenne", "modmul-solinas"]
KIND = {"modmul-field-montgomery": "montgomery", "modmul-field-barrett": "barrett",
        "modmul-pseudo-mersenne": "pseudo-mersenne", "modmul-solinas": "solinas"}


def random_prime(bits, rng):
    while True:
        q = rng.getrandbits(bits) | (1 << (bits - 1)) | 1
        if is_prime(q):
            return q


def applies(name, q):
    return KIND[name] in ("montgomery", "barrett") or any(f.name == KIND[name] for f in F.forms(q))


def moduli():
    rng = random.Random(37)
    return [n.q for n in F.NAMED.values()] + [random_prime(b, rng) for b in (192, 255, 256, 384, 521)]


@pytest.mark.parametrize("name", ALGS)
def test_models_against_python(name):
    """model(a, b) = a b F mod q (F = 2^-k for Montgomery, else 1) in [0, q): the corners
    and random operands, every applicable named prime and random primes."""
    alg, rng = lookup(name), random.Random(1)
    for q in moduli():
        if not applies(name, q):
            continue
        p = alg.parse({"q": hex(q), "dsp": "none"})
        scale = alg.scale(p)
        assert scale == (pow(2, -q.bit_length(), q) if name == "modmul-field-montgomery" else 1)
        for a, b in alg.cases(p)[::3] + [alg.random_operands(p, rng) for _ in range(100)]:
            assert alg.model(p, a, b) == a * b * scale % q, (name, hex(q), a, b)


@pytest.mark.parametrize("name", ALGS)
def test_grids_are_canonical(name):
    alg = lookup(name)
    for cfg in alg.grid() + alg.extended_grid():
        p = alg.parse(cfg)
        assert alg.parse({k: str(v) for k, v in vars(p).items()}) == p     # canonical is a fixed point
        assert alg.latency(p) == alg.cycles(p) and alg.initiation_interval(p) == 1
        assert "mod q" in alg.congruence(p) and alg.derived(p).k >= 255


def test_named_and_value_are_one_design():
    alg = lookup("modmul-solinas")
    by_name, by_value = alg.parse({"q": "P256"}), alg.parse({"q": str(F.NAMED["p256"].q)})
    assert by_name == by_value and by_name.q == hex(F.NAMED["p256"].q)
    info = alg.plan(by_value).info
    assert info["curve"] == "NIST P-256 (secp256r1)" and info["named"] == "p256"
    assert alg.module_name(by_name).startswith("mf_modmul_solinas_p256_")


@pytest.mark.parametrize("name, q, rule", [
    ("modmul-field-montgomery", "0x" + "f" * 63 + "e", "it is even"),
    ("modmul-field-barrett", hex(F.NAMED["p256"].q * 3), "composite: 3 divides it"),
    ("modmul-field-montgomery", hex((1 << 126) + 45), "128 to 1024 bits (it has 127)"),
    ("modmul-field-montgomery", hex((1 << 1025) + 1), "128 to 1024 bits (it has 1026)"),
    ("modmul-solinas", "p257", "one of p256"),
    ("modmul-pseudo-mersenne", "bls12-381", "it has the forms: generic"),
    ("modmul-solinas", "25519", "pseudo-mersenne (k=255, c=19)"),
    ("modmul-pseudo-mersenne", "p256", "solinas (terms=2^256 - 2^224"),
])
def test_errors_before_generation(name, q, rule):
    """Even, composite, outside 128..1024 bits, an unknown name, a special form q has not:
    ParameterError naming the algorithm, q, the rule (the forms q has) and the value."""
    with pytest.raises(ParameterError) as e:
        lookup(name).parse({"q": q})
    assert (e.value.algorithm, e.value.argument) == (name, "q") and rule in e.value.rule, str(e.value)


def test_latency_formulas_and_dsps():
    """The stages the formulas state (design.json's latency_formula); the products' DSPs are
    the Karatsuba counts (381 bits on 26x17: 162, the anchor's full product)."""
    expect = {("modmul-field-montgomery", "p256"): 13, ("modmul-field-barrett", "secp256k1"): 13,
              ("modmul-pseudo-mersenne", "secp256k1"): 8, ("modmul-pseudo-mersenne", "p521"): 7,
              ("modmul-solinas", "p256"): 6, ("modmul-solinas", "448"): 6}
    for (name, q), stages in expect.items():
        alg = lookup(name)
        plan = alg.derived(alg.parse({"q": q}))
        assert plan.latency == plan.cycles == stages and plan.formula.startswith(f"{stages} = "), (name, q)
        assert plan.initiation_interval == 1
    alg = lookup("modmul-field-barrett")
    plan = alg.derived(alg.parse({"q": "bls12-381"}))
    assert plan.multiplications[0][-1] == 162 and plan.dsp_total == 3 * 162
    pm = lookup("modmul-pseudo-mersenne")
    assert pm.plan(pm.parse({"q": "25519"})).info["c_by"].startswith("shift-adds")
    assert pm.derived(pm.parse({"q": "25519"})).dsp_total == 81        # the product only


def test_design_json_names_the_curve(tmp_path):
    alg = lookup("modmul-pseudo-mersenne")
    design = generate(alg, alg.parse({"q": "25519", "dsp": "none"}), tmp_path / "d")
    info = json.loads((design.directory / "design.json").read_text())
    text = json.dumps(info)
    assert "Curve25519 / Ed25519" in text and "fully reduced, [0, q)" in text and '"latency": 8' in text
