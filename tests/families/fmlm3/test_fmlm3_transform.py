"""fmlm3-transform: parameter rules, the memory map (every access conflict-free), the stage
gap against its closed form, and the model against eq. (5) summed directly."""

import random
from fractions import Fraction

import pytest

from modforge.errors import ParameterError
from modforge.families.fmlm3 import model
from modforge.families.fmlm3.plan import TransformPlan
from modforge.registry import lookup

ALG = lookup("fmlm3-transform")


@pytest.mark.parametrize("args, argument", [
    ({"P": "4"}, "P"), ({"P": "2048"}, "P"), ({"P": "24"}, "P"), ({"c": "0"}, "c"), ({"c": "1/3"}, "c"),
    ({"c": "65"}, "c"), ({"P": "512", "c": "9"}, "c"), ({"kind": "dft"}, "kind"), ({"bfs": "4"}, "bfs")])
def test_rejects(args, argument):
    with pytest.raises(ParameterError) as err:
        ALG.parse(args)
    assert f"'{argument}'" in str(err.value)


def test_canonical_c():
    assert ALG.parse({"c": "0.5"}).c == "1/2"
    assert ALG.parse({"c": "02"}).c == "2"


@pytest.mark.parametrize("P", [8, 16, 32, 64, 128, 256])
@pytest.mark.parametrize("bfs", [1, 2])
def test_memory_map_and_gap(P, bfs):
    for c in (Fraction(1), Fraction(1, 2)):
        for kind in ("ct", "nct", "ct_inv", "nct_inv"):
            plan = TransformPlan(P, c, kind, bfs)
            assert plan.conflict_free()
            assert plan.gap == max(plan.H, plan.H // 2 + plan.write_delay + 1)
            assert plan.cycles == (plan.v - 1) * plan.gap + plan.H + plan.write_delay


def test_sqrt2_paths_only_where_needed():
    half = Fraction(1, 2)
    assert TransformPlan(16, half, "nct", 1).butterfly_sqrt2
    assert not TransformPlan(16, half, "ct", 1).butterfly_sqrt2
    assert TransformPlan(16, half, "nct_inv", 1).butterfly_sqrt2    # A^-p folded into the twiddle
    assert TransformPlan(16, half, "nct_inv", 1).scale_sqrt2
    assert not TransformPlan(16, half, "ct_inv", 1).butterfly_sqrt2
    assert not TransformPlan(16, half, "ct_inv", 1).scale_sqrt2
    assert not TransformPlan(16, Fraction(1), "nct", 1).butterfly_sqrt2


@pytest.mark.parametrize("c", ["1", "1/2", "3"])
def test_model_against_eq5(c):
    """X_n = sum_k x_k A^k omega^(-kn) (NCT; CT with A = 1), and the inverses undo them."""
    P = 16
    params = ALG.parse({"P": str(P), "c": c, "kind": "nct"})
    ring = ALG.derived(params).ring
    rng = random.Random(1)
    x = [rng.randrange(ring.M) for _ in range(P)]
    omega = ring.mul_A_pow(1, 2)
    for kind, weighted in (("ct", False), ("nct", True)):
        p = ALG.parse({"P": str(P), "c": c, "kind": kind})
        want = [sum(xk * (ring.mul_A_pow(1, k) if weighted else 1) * pow(omega, -k * n, ring.M)
                    for k, xk in enumerate(x)) % ring.M for n in range(P)]
        X = ALG.model(p, x)
        assert X == want
        assert ALG.model(ALG.parse({"P": str(P), "c": c, "kind": kind + "_inv"}), X) == x


def test_cycles_and_contract():
    p = ALG.parse({"P": "32", "c": "1", "kind": "ct", "bfs": "2"})
    plan = ALG.derived(p)
    assert ALG.cycles(p) == plan.cycles
    assert ALG.latency(p) == plan.H + plan.cycles + 1
    assert ALG.initiation_interval(p) == 2 * plan.H + plan.cycles + 1
    assert ALG.frame_beats(p) == 8
    assert ALG.in_beats(p, (list(range(32)),))[1] == (sum((4 + k) << (33 * k) for k in range(4)),)


def test_any_kind_frames():
    """kind = any: a 2-bit kind field beside the coefficients, every kind's ROM words in its
    own region, the u scaler's whenever an inverse runs."""
    p = ALG.parse({"P": "16", "c": "1/2", "kind": "any", "bfs": "2"})
    plan = ALG.derived(p)
    assert [op.name for op in ALG.operands(p)] == ["x", "kind"]
    assert plan.inverse and plan.butterfly_sqrt2 and plan.scale_sqrt2
    assert len(plan.twiddle_rom(0)) == 4 * (plan.H << plan.stage_bits)
    x = list(range(16))
    assert ALG.model(p, x, 1) == model.transform(TransformPlan(16, Fraction(1, 2), "nct", 2), x)
    assert len(plan.scale_rom(1)) == 4 * plan.H
    assert ALG.in_beats(p, (x, 3))[0][1] == 3
    assert {case[1] for case in ALG.cases(p)} == {0, 1, 2, 3}
