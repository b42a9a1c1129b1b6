"""The wide field multipliers (modmul-field-montgomery, -field-barrett, -pseudo-mersenne,
-solinas): q by name or value, the errors before generation, the models against Python's
% for the named primes and random primes of 192 to 521 bits, the latency formulas, the DSP
counts and design.json's curve name; op=square and output=lazy: models, bounds, stages, and
their hardware on both simulators (256 bits here, wider in the slow tier). The grids'
hardware against the models: tests/test_conformance.py."""

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


POLY1305 = hex((1 << 130) - 5)        # 130 bits: a three-level Karatsuba product on 18x18


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
    the Karatsuba counts (381 bits on 26x17: 162, the anchor's full product), the truncated
    ones fewer (the low half: a whole 272-bit product and two low 111-bit halves, 115; q3's
    top: 119)."""
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
    assert plan.multiplications[0][-1] == 162 and plan.dsp_total == 162 + 119 + 115    # q3's top, the low half
    pm = lookup("modmul-pseudo-mersenne")
    assert pm.plan(pm.parse({"q": "25519"})).info["c_by"].startswith("shift-adds")
    assert pm.derived(pm.parse({"q": "25519"})).dsp_total == 81        # the product only


def test_dsp_budget():
    """dsp_budget: the constants' cheapest tiles leave the DSPs until the budget holds (the
    issue's 2x the product's at 381 and 254 bits); the product keeps its own; the plan counts
    the nonzero tiles left (no budget: only one-digit chunks, shifts, leave). Refused below
    the product's DSPs and without a DSP profile."""
    for name, q, product in [("modmul-field-montgomery", "bls12-381", 162), ("modmul-field-barrett", "bls12-381", 162),
                             ("modmul-field-montgomery", "bn254", 81)]:
        alg = lookup(name)
        free = alg.derived(alg.parse({"q": q}))
        plan = alg.derived(alg.parse({"q": q, "dsp_budget": str(2 * product)}))
        assert plan.multiplications[0] == free.multiplications[0] and plan.multiplications[0][-1] == product
        assert free.dsp_total > 2 * product >= plan.dsp_total > 2 * product - 4, (name, q)
        moved = free.dsp_total - plan.dsp_total
        assert plan.logic_tiles - free.logic_tiles == moved and plan.logic_adders >= moved
    for cfg, rule in [({"dsp_budget": "80"}, "must be at least 81"), ({"dsp": "none", "dsp_budget": "200"},
                                                                       "needs a DSP profile")]:
        with pytest.raises(ParameterError) as e:
            lookup("modmul-field-montgomery").parse({"q": "p256", **cfg})
        assert e.value.argument == "dsp_budget" and rule in str(e.value), str(e.value)


def test_deep_stages():
    """depth=deep: each product a stage a Karatsuba level above its first two, the truncated
    ones one more for the top level's split (p256 on 26x17: 4 levels, its truncated products'
    deepest piece 3), the formula stating them."""
    alg = lookup("modmul-field-montgomery")
    plan = alg.derived(alg.parse({"q": "p256", "depth": "deep"}))
    assert plan.latency == 19 and plan.formula.startswith("19 = 6 (a b) + 6 (t = x q' mod 2^256, truncated) + 6 (")
    pm = lookup("modmul-pseudo-mersenne")
    assert pm.derived(pm.parse({"q": POLY1305, "dsp": "ecp5", "depth": "deep"})).latency == 9     # 8 + 1
    assert pm.derived(pm.parse({"q": POLY1305, "dsp": "ecp5"})).latency == 8


def test_design_json_names_the_curve(tmp_path):
    alg = lookup("modmul-pseudo-mersenne")
    design = generate(alg, alg.parse({"q": "25519", "dsp": "none"}), tmp_path / "d")
    info = json.loads((design.directory / "design.json").read_text())
    text = json.dumps(info)
    assert "Curve25519 / Ed25519" in text and "fully reduced, [0, q)" in text and '"latency": 8' in text


# --- op=square, output=lazy (issue 37: the squaring specialisation, the lazy output range) ---

#: the stages of output=lazy (montgomery and pseudo-mersenne: one fewer) and the bounds
LAZY = {("modmul-field-montgomery", "p256"): (12, "q", "2q"),
        ("modmul-field-barrett", "secp256k1"): (13, "2^k", "2q"),
        ("modmul-pseudo-mersenne", "secp256k1"): (7, "2^k", "2^k"),
        ("modmul-pseudo-mersenne", "p521"): (6, "2^k", "2^k"),
        ("modmul-solinas", "p256"): (6, "2^k", "2q"), ("modmul-solinas", "448"): (6, "2^k", "2q")}


@pytest.mark.parametrize("name", ALGS)
@pytest.mark.parametrize("op, output", [("square", "reduced"), ("mul", "lazy"), ("square", "lazy")])
def test_square_and_lazy_models(name, op, output):
    """model = a b F mod q (a^2 F for the squarer), congruent and below the stated bound: < q
    reduced, < 2q lazy (pseudo-mersenne < 2^k); lazy results at or above q do occur (Barrett:
    r in [q, 2q) is kept, only r >= 2q loses 2q); the corners include the lazy operands above q."""
    alg, rng = lookup(name), random.Random(2)
    for q in moduli():
        if not applies(name, q):
            continue
        p = alg.parse({"q": hex(q), "dsp": "none", "op": op, "output": output})
        plan, k = alg.derived(p), q.bit_length()
        bound = {"reduced": q, "lazy": (1 << k) if name == "modmul-pseudo-mersenne" else 2 * q}[output]
        assert plan.out_bound == bound and alg.result_width(p) == (bound - 1).bit_length()
        cases = alg.cases(p)
        assert all(len(c) == (1 if op == "square" else 2) for c in cases)
        if plan.in_bound > q:
            assert {q, (1 << k) - 1} <= {c[0] for c in cases}
        above = 0
        for ops in cases + [alg.random_operands(p, rng) for _ in range(100)]:
            a, b = ops[0], ops[-1]
            c = alg.model(p, *ops)
            assert 0 <= c < bound and c % q == a * b * alg.scale(p) % q, (name, hex(q), ops)
            above += c >= q
        assert above > 0 or output == "reduced", (name, hex(q))


def test_lazy_bounds_and_stages():
    """The lazy formulas (montgomery, pseudo-mersenne: the subtraction's stage gone), the
    operands' and result's ranges in design.json's words; Montgomery's lazy model refuses an
    operand >= q (its bound s < 2q needs a b < q 2^k); the squarer's stages are the product's."""
    for (name, q), (stages, below, result) in LAZY.items():
        alg = lookup(name)
        for op in ("mul", "square"):
            p = alg.parse({"q": q, "output": "lazy", "op": op, "dsp": "none"})
            plan, info = alg.derived(p), alg.plan(p).info
            assert plan.latency == plan.cycles == stages and plan.formula.startswith(f"{stages} = "), (name, q)
            assert "lazy" in plan.formula and info["output_range"] == f"lazy, [0, {result}) (congruent)".replace(
                "2^k", f"2^{plan.k}")
            assert info["input_range"] == ("[0, q)" if below == "q" else f"[0, 2^{plan.k})")
            reduced = alg.derived(alg.parse({"q": q, "op": op, "dsp": "none"}))
            assert reduced.stages - plan.stages == (1 if name in ("modmul-field-montgomery", "modmul-pseudo-mersenne")
                                                    else 0)
    alg = lookup("modmul-field-montgomery")
    p = alg.parse({"q": "p256", "output": "lazy", "dsp": "none"})
    q = alg.derived(p).q
    assert alg.model(p, q - 1, q - 1) < 2 * q
    with pytest.raises(ValueError, match="below"):
        alg.model(p, q, 1)


def test_square_dsps_and_json(tmp_path):
    """The squarer's product: its DSPs (hw.dsp's square tree: 81 at 256 bits on 26x17, as
    the product's; 162 at 381 bits on ECP5, the product 243) in design.json; its payload is
    a alone; the Montgomery squarer stays in the domain."""
    alg = lookup("modmul-field-barrett")
    sq, mul = (alg.derived(alg.parse({"q": "bls12-381", "dsp": "ecp5", "op": op})) for op in ("square", "mul"))
    assert (sq.multiplications[0][-1], mul.multiplications[0][-1]) == (162, 243)
    assert sq.multiplications[1:] == mul.multiplications[1:] and sq.stages == mul.stages
    mont = lookup("modmul-field-montgomery")
    p = mont.parse({"q": "p256", "op": "square", "output": "lazy", "dsp": "none"})
    design = generate(mont, p, tmp_path / "d")
    info = json.loads((design.directory / "design.json").read_text())
    text = json.dumps(info)
    assert "A^2*2^-256 mod q" in text and "lazy, [0, 2q)" in text and "a^2 R" in text and '"latency": 12' in text
    assert [o.name for o in mont.operands(p)] == ["a"] and mont.result_width(p) == 257
    assert mont.module_name(p).startswith("mf_modmul_field_montgomery_p256_sq_lazy_")
    assert mont.plan(mont.parse({"q": "p256"})).info.get("op") is None      # the defaults: design.json as before


@pytest.mark.parametrize("arg, value, rule", [("op", "cube", "must be mul or square"),
                                              ("output", "half", "must be reduced or lazy")])
def test_bad_op_or_output(arg, value, rule):
    """An unknown op or output: ParameterError naming the algorithm, the argument and the
    choices. (Every op with every output is a design: none of the four combinations is refused.)"""
    for name in ALGS:
        with pytest.raises(ParameterError) as e:
            lookup(name).parse({"q": "p256" if name != "modmul-pseudo-mersenne" else "25519", arg: value})
        assert (e.value.algorithm, e.value.argument) == (name, arg) and rule in str(e.value), str(e.value)


#: the default tier's hardware runs: every reduction's lazy path and the squarer with the
#: products left to the tool (a few seconds each), one Karatsuba square tree (Solinas:
#: the shortest pipeline around it, about 15 s) and depth=deep at 130 bits (a product; Montgomery's
#: truncated products, x added into t q's carry-save sum); the wider primes and dsp_budget in the slow tier
SIM = [("modmul-field-montgomery", {"q": "p256", "op": "square", "output": "lazy", "dsp": "none"}),
       ("modmul-field-barrett", {"q": "secp256k1", "output": "lazy", "dsp": "none"}),
       ("modmul-pseudo-mersenne", {"q": "25519", "op": "square", "output": "lazy", "dsp": "none"}),
       ("modmul-solinas", {"q": "p256", "output": "lazy", "dsp": "none"}),
       ("modmul-solinas", {"q": "p256", "op": "square"}),
       ("modmul-pseudo-mersenne", {"q": POLY1305, "dsp": "ecp5", "depth": "deep"}),
       ("modmul-field-montgomery", {"q": POLY1305, "dsp": "ecp5", "depth": "deep"})]
SIM_SLOW = [("modmul-field-montgomery", {"q": "bls12-381", "op": "square"}),
            ("modmul-field-montgomery", {"q": "p256", "output": "lazy"}),
            ("modmul-field-montgomery", {"q": "bn254", "dsp_budget": "162", "depth": "deep"}),
            ("modmul-field-barrett", {"q": "bls12-381", "op": "square", "output": "lazy", "dsp": "ecp5"}),
            ("modmul-pseudo-mersenne", {"q": "25519", "op": "square"}),
            ("modmul-pseudo-mersenne", {"q": "p521", "op": "square", "output": "lazy"}),
            ("modmul-solinas", {"q": "p384", "op": "square", "output": "lazy"})]


def verify_both(tmp_path, name, cfg, vectors):
    from modforge.sim.runners import SIMULATORS
    from modforge.sim.verify import verify
    alg = lookup(name)
    params = alg.parse(cfg)
    design, results = verify(alg, params, tmp_path, vectors, list(SIMULATORS))
    for result in results:
        assert result.ok and result.passed == result.vectors >= vectors, result.log[-3000:]
        assert result.latency == design.latency == alg.latency(params) and result.initiation_interval == 1


@pytest.mark.sim
@pytest.mark.parametrize("name, cfg", SIM, ids=[f"{n}-{'-'.join(c.values())}" for n, c in SIM])
def test_square_and_lazy_hardware(tmp_path, name, cfg):
    """The generated Verilog against the model on Verilator and Icarus: the corners (lazy:
    operands up to 2^k - 1) first, then random operands; the latency the formula states."""
    verify_both(tmp_path, name, cfg, 500)


@pytest.mark.slow
@pytest.mark.sim
@pytest.mark.parametrize("name, cfg", SIM_SLOW, ids=[f"{n}-{'-'.join(c.values())}" for n, c in SIM_SLOW])
def test_square_and_lazy_hardware_wide(tmp_path, name, cfg):
    """As above, Karatsuba trees at 255 to 521 bits (minutes each)."""
    verify_both(tmp_path, name, cfg, 1000)
