"""ntt-commands (commands.py): the model of the command core against kyber-py (ML-KEM's
matrix-vector product as the standard computes it) and the schoolbook product, every
command's cycles from the pass schedule equal to its closed form, and the rules. The
hardware runs on both simulators through the conformance tests (grid()[0] in the default
tier, the standards' rings with -m slow)."""

import random

import pytest
from kyber_py.polynomials.polynomials import PolynomialRing as KyberRing

from modforge.errors import ParameterError
from modforge.families.ntt.commands import INTT, LOAD, MAC, MUL, NTT, OPS, STORE, Command, random_program
from modforge.registry import lookup
from tests.families.ntt.test_ntt_model import schoolbook

ALG = lookup("ntt-commands")


def load(slot: int, poly: list[int], P: int) -> list[Command]:
    return [Command(LOAD, d=slot, row=r, x=tuple(poly[r * P:(r + 1) * P])) for r in range(len(poly) // P)]


def stored(rows: list[list[int]], n: int) -> list[list[int]]:
    flat = [c for row in rows for c in row]
    return [flat[i:i + n] for i in range(0, len(flat), n)]


@pytest.mark.parametrize("reduction, pe", [("k2red-shift", 1), ("k2red-shift", 2), ("montgomery", 4), ("barrett", 8)])
def test_ml_kem_matrix_vector_is_fips_203(reduction, pe):
    """k = 2: t_hat_i = sum_j A_hat_ij o s_hat_j (MUL then MAC), s_hat_j = NTT(s_j), and
    NTT^-1(t_hat_i), as kyber-py computes them; the stored NTTs equal kyber-py's too."""
    p = ALG.parse({"profile": "ml-kem", "pe": str(pe), "reduction": reduction, "slots": "8"})
    ring, rng, q, n = KyberRing(), random.Random(pe), 3329, 256
    s = [[rng.randrange(q) for _ in range(n)] for _ in range(2)]
    a_hat = [[[rng.randrange(q) for _ in range(n)] for _ in range(2)] for _ in range(2)]
    # slots: s_j in 1, 3 (odd set); A_hat_i0, A_hat_i1 in 0, 2 (even); t_i in 4 + i... t must be
    # any slot: 5 (odd) for i = 0, 7 for i = 1
    program = load(1, s[0], pe) + load(3, s[1], pe) + [Command(NTT, d=1), Command(NTT, d=3),
                                                       Command(STORE, d=1), Command(STORE, d=3)]
    for i, t in ((0, 5), (1, 7)):
        program += load(0, a_hat[i][0], pe) + load(2, a_hat[i][1], pe)
        program += [Command(MUL, d=t, a=0, b=1), Command(MAC, d=t, a=2, b=3), Command(STORE, d=t),
                    Command(INTT, d=t), Command(STORE, d=t)]
    out = stored(ALG.model(p, program), n)
    s_hat = [ring(list(x)).to_ntt() for x in s]
    assert out[:2] == [x.coeffs for x in s_hat]
    for i in range(2):
        t_hat = ring(a_hat[i][0], is_ntt=True) * s_hat[0] + ring(a_hat[i][1], is_ntt=True) * s_hat[1]
        assert out[2 + 2 * i] == t_hat.coeffs
        assert out[3 + 2 * i] == t_hat.from_ntt().coeffs


@pytest.mark.parametrize("cfg", [{"q": "7681", "n": "16", "pe": "2", "incomplete": "1", "reduction": "barrett"},
                                 {"q": "7681", "n": "16", "pe": "1", "incomplete": "1", "reduction": "montgomery"},
                                 {"q": "0x9fc00001", "n": "32", "pe": "4", "reduction": "montgomery-shift"},
                                 {"profile": "ml-dsa", "pe": "2", "reduction": "k2red-shift"}])
def test_products_are_schoolbook(cfg):
    """MUL in place (d = a) and MAC with d = b, between NTT and INTT: the negacyclic product
    and sum; the slots MUL and MAC only read keep their values."""
    p = ALG.parse({**cfg, "slots": "4"})
    q, n, pe = p.q, p.n, p.pe
    rng = random.Random(n)
    x, y, z = ([rng.randrange(q) for _ in range(n)] for _ in range(3))
    program = load(0, x, pe) + load(1, y, pe) + load(3, z, pe) + [Command(NTT, d=s) for s in (0, 1, 3)]
    program += [Command(MUL, d=0, a=0, b=1), Command(MAC, d=3, a=0, b=3), Command(INTT, d=0), Command(INTT, d=3),
                Command(INTT, d=1)] + [Command(STORE, d=s) for s in (0, 3, 1)]
    xy = schoolbook(x, y, q)
    got = stored(ALG.model(p, program), n)
    assert got == [xy, [(c + d) % q for c, d in zip(schoolbook(xy, z, q), z, strict=True)], y]


def test_every_command_takes_its_formula():
    """The cycles the schedule gives (what the testbench checks) equal the closed forms the
    module states, over shapes where the stalls and waits differ."""
    for cfg in ALG.grid() + [{"q": "7681", "n": "256", "pe": pe, "incomplete": "1", "reduction": "barrett"}
                             for pe in ("1", "2", "8", "32", "64")] + [
                            {"q": "7681", "n": n, "pe": "1", "incomplete": "1", "reduction": "montgomery"}
                            for n in ("16", "32")] + [
                            {"q": "0x80014001", "n": str(n), "pe": pe, "reduction": "montgomery"}
                            for n in (16, 64, 1024) for pe in ("1", "4") if int(pe) <= n // 2]:
        cp = ALG.derived(ALG.parse(cfg))
        for op in range(len(OPS)):
            assert cp.command_cycles(op) == cp.formula_cycles(op), (cfg, OPS[op])
    fwd = lookup("ntt-forward")
    p = ALG.parse({"profile": "ml-kem", "pe": "4", "reduction": "barrett"})
    cp = ALG.derived(p)           # the forward core's C, with two drain cycles more: the registers
    assert cp.command_cycles(NTT) == fwd.cycles(fwd.parse({"profile": "ml-kem", "pe": "4", "reduction": "barrett"})) + 2
    assert (cp.ntt.read_stages, cp.ntt.unit_stages) == (1, 1)


def test_random_programs_respect_the_bank_sets():
    p = ALG.parse(ALG.grid()[0])
    cp = ALG.derived(p)
    for cmd in random_program(cp, random.Random(3), p.q):
        if cmd.op in (MUL, MAC):
            assert cmd.a % 2 != cmd.b % 2


@pytest.mark.parametrize("extra, argument", [({"slots": "5"}, "slots"), ({"base": "0x1801"}, "base"),
                                             ({"twiddles": "load"}, "twiddles"), ({"buffers": "2"}, "buffers"),
                                             ({"incomplete": "2", "q": "7681", "n": "32"}, "incomplete")])
def test_bad_input(extra, argument):
    cfg = {"q": "7681", "n": "16", "pe": "2", "incomplete": "1", "reduction": "wlm"} | extra
    with pytest.raises(ParameterError) as e:
        ALG.parse(cfg)
    assert e.value.argument == argument


@pytest.mark.sim
def test_the_testbench_catches_wrong_cycles_and_rows(tmp_path, monkeypatch):
    """The command testbench fails a core whose MUL takes other cycles than claimed, and a
    stored row other than the model's."""
    from modforge.families.ntt import commands
    from modforge.sim.verify import verify

    claimed = commands.CommandPlan.command_cycles
    monkeypatch.setattr(commands.CommandPlan, "command_cycles", lambda self, op: claimed(self, op) + (op == MUL))
    model = ALG.model
    monkeypatch.setattr(type(ALG), "model", lambda self, p, *ops: [[(model(p, *ops)[0][0] + 1) % p.q,
                                                                    *model(p, *ops)[0][1:]], *model(p, *ops)[1:]])
    _, (result,) = verify(ALG, ALG.parse(ALG.grid()[0]), tmp_path, 64, ["icarus"])
    assert result.failed == 1 and result.ii_failures > 0 and not result.ok


@pytest.mark.sim
def test_one_butterfly_on_both_simulators(tmp_path):
    """pe=1 with incomplete=1: MUL and MAC's base case on a pair held in word i of a set's two
    banks (the grid's ML-KEM core at pe=1 runs with -m slow)."""
    from modforge.sim.runners import SIMULATORS
    from modforge.sim.verify import verify

    p = ALG.parse({"q": "7681", "n": "16", "pe": "1", "incomplete": "1", "reduction": "barrett", "dsp": "none",
                   "slots": "4"})
    _, results = verify(ALG, p, tmp_path, 64, list(SIMULATORS))
    for r in results:
        assert r.ok and r.passed == r.vectors >= 64, r.log[-3000:]
