"""rsa-fmlm3's contract: parameter rules (ParameterError naming the argument, before
anything is generated), the defaults made explicit, the cfg words (`modforge config`), the
model against math.fmlm3.montgomery_multiply and pow, and the cycle claims; a amaranth.sim
run of the core (its latency and II as claimed, a modulus loaded through cfg)."""

import random

import pytest
from amaranth.sim import Simulator

from modforge.cli import main
from modforge.errors import ParameterError
from modforge.families.fmlm3 import model
from modforge.families.fmlm3.model import default_modulus
from modforge.families.fmlm3.program import depths
from modforge.hw.fermat import mul_add_depth
from modforge.math import fmlm3
from modforge.registry import lookup

ALG = lookup("rsa-fmlm3")
MUL_ADD = mul_add_depth(64)     # Table 6's ring, K = 64: a MulAdd's stages (depth=short)
DEPTH = depths(MUL_ADD)


def reject(cfg, argument, text):
    with pytest.raises(ParameterError) as e:
        ALG.parse(cfg)
    assert e.value.argument == argument and text in str(e.value), str(e.value)


def test_rules():
    reject({"l": "8", "P": "8"}, "l", "16..8192")
    reject({"l": "32", "P": "4"}, "P", "power of two in 8..1024")   # the bound, before validate
    reject({"l": "32", "P": "64"}, "P", "8..min(1024, l)")
    reject({"l": "32", "P": "16", "u": "1"}, "u", "u*P >= l")
    reject({"l": "32", "P": "16", "c": "1/3"}, "c", "1/2 or a positive integer")
    reject({"l": "32", "P": "16", "algorithm": "3", "c": "1/2"}, "c", "eq. (19)")
    reject({"l": "32", "P": "16", "modulus": str((1 << 31) + 2)}, "modulus", "odd")
    reject({"l": "32", "P": "16", "modulus": str((1 << 20) + 1)}, "modulus", "exactly l=32 bits")
    reject({"l": "32", "P": "16", "modulus": str(3 * 0x2AAAAAAB)}, "modulus", "coprime to R")
    reject({"bfs": "4"}, "bfs", "")
    reject({"muladds": "2"}, "muladds", "")
    reject({"algorithm": "1"}, "algorithm", "")


def test_defaults_made_explicit():
    p = ALG.parse({"l": "64", "P": "32"})
    assert (p.u, p.c, p.algorithm, p.bfs) == (2, "1/2", 3, 1) and p.modulus == default_modulus(64, 64)
    assert ALG.parse({"l": "2048", "P": "128"}).c == "1/2"              # Table 6's set: c = 1/2
    assert ALG.parse({"l": "32", "P": "8", "algorithm": "2"}).c == "2"


@pytest.mark.parametrize("cfg", [{"l": "32", "P": "16", "bfs": "2"}, {"l": "64", "P": "32", "algorithm": "2"},
                                 {"l": "48", "P": "8", "algorithm": "3", "bfs": "2"}])
def test_model(cfg):
    p = ALG.parse(cfg)
    loaded, _ = ALG.verification_config(p)
    rng = random.Random(3)
    for params in (p, loaded):
        ctx = ALG.derived(params).params
        mont = fmlm3.montgomery(ctx, params.modulus)
        operands = ALG.cases(params) + [ALG.random_operands(params, rng) for _ in range(30)]
        for x, y in operands:
            t = ALG.model(params, x, y)
            assert t == fmlm3.montgomery_multiply(mont, x, y) == x * y * pow(mont.R, -1, params.modulus) % \
                params.modulus
            assert model.from_frame(ALG.derived(params), ALG.out_beats(params, t)) == t


def test_config_words_load_another_modulus():
    p = ALG.parse({"l": "32", "P": "16", "bfs": "2"})
    loaded, words = ALG.verification_config(p)
    plan = ALG.derived(p)
    assert loaded.modulus != p.modulus and loaded.modulus.bit_length() == 32
    assert len(words) == 3 * plan.H and ALG.plan(p).config_width == plan.cfg_width
    assert model.load_cfg(plan, words).N == loaded.modulus
    assert ALG.extra_info(p)["config"]["verified_moduli"] == [hex(loaded.modulus)]    # an RSA modulus, not a prime
    with pytest.raises(ParameterError):
        ALG.config_words(p, [1 << 31])
    with pytest.raises(ParameterError):
        ALG.config_words(p, [loaded.modulus, loaded.modulus])


def test_cli_config_words(capsys):
    modulus = default_modulus(32, 32, salt=7)
    assert main(["config", "rsa-fmlm3", "l=32", "P=16", "--prime", hex(modulus)]) == 0
    words = [int(x, 16) for x in capsys.readouterr().out.split()]
    assert words == ALG.config_words(ALG.parse({"l": "32", "P": "16"}), [modulus])


def test_cycle_claims():
    """latency = the steps + 1, II = latency + H, cycles = latency + H - 1; Table 6's set
    (l = 2048, P = 128, u = 16, Alg 3, 2 BFS)."""
    p = ALG.parse({"l": "2048", "P": "128", "u": "16", "algorithm": "3", "bfs": "2"})
    plan = ALG.derived(p)
    H, C = plan.H, plan.transform.cycles
    mul = 1 + MUL_ADD                          # a read-out beat to its MulAdd result's write
    acc, racc = DEPTH["acc"], DEPTH["racc"]         # Restrict (CT^-1: passing; NCT^-1) and the Accumulator
    sinks = mul + 0 + mul + mul + acc + mul + racc
    assert ALG.latency(p) == 7 * (2 * H + C + 2) - 1 + sinks + (3 * H + 2 + 2 + 5) + 1
    assert ALG.initiation_interval(p) == ALG.latency(p) + H and ALG.cycles(p) == ALG.latency(p) + H - 1


@pytest.mark.parametrize("muladds", ["lanes", "1"])
def test_core_in_amaranth_sim(muladds):
    """The core loads another modulus through cfg and multiplies frames back to back with
    the claimed latency and II (the conformance test runs the Verilog on both simulators)."""
    p = ALG.parse({"l": "32", "P": "16", "bfs": "2", "muladds": muladds})
    loaded, words = ALG.verification_config(p)
    dut = ALG.build(p)
    plan, rng = ALG.derived(p), random.Random(9)
    pairs = [(loaded.modulus - 1, loaded.modulus - 1)] + [ALG.random_operands(loaded, rng) for _ in range(3)]
    du = plan.lanes * p.u
    beats = [x | y << du for pair in pairs for x, y in ALG.in_beats(loaded, pair)]
    taken, offered, outs = [], [], []

    async def bench(ctx):
        for word in words:
            ctx.set(dut.cfg.valid, 1)
            ctx.set(dut.cfg.payload.as_value(), word)   # the payloads are the plan's layouts
            await ctx.tick().until(dut.cfg.ready)
        ctx.set(dut.cfg.valid, 0)
        ctx.set(dut.o.ready, 1)
        cycle = 0
        while len(outs) < len(beats) and cycle < 20000:
            ctx.set(dut.i.valid, len(taken) < len(beats))
            if len(taken) < len(beats):
                ctx.set(dut.i.payload.as_value(), beats[len(taken)])
            ready, valid, payload = ctx.get(dut.i.ready), ctx.get(dut.o.valid), ctx.get(dut.o.payload.as_value())
            await ctx.tick()
            if ready and len(taken) < len(beats):
                taken.append(cycle)
            if valid:
                offered.append(cycle)
                outs.append(payload)
            cycle += 1

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    H = plan.H
    assert {o - t for o, t in zip(offered, taken, strict=True)} == {ALG.latency(p)}
    assert {taken[k + H] - taken[k] for k in range(0, len(taken) - H, H)} == {ALG.initiation_interval(p)}
    assert [model.from_frame(plan, outs[k:k + H]) for k in range(0, len(outs), H)] == \
        [ALG.model(loaded, x, y) for x, y in pairs]


@pytest.mark.parametrize("cfg", [{"l": "32", "P": "16", "bfs": "2"}, {"l": "32", "P": "8", "algorithm": "2"},
                                 {"l": "64", "P": "32", "bfs": "2"}])
def test_model_spectral(cfg):
    """domain = spectral: T(t), T'(t), t mod 2 from the spectra equal math.fmlm3.montgomery_product's
    (an independent sequence of its steps) and t = x y R^-1 mod N by pow; the frames round-trip;
    the output spectra feed the next product (x^e mod N by square-and-multiply matches pow)."""
    p = ALG.parse(cfg | {"domain": "spectral"})
    plan, rng = ALG.derived(p), random.Random(5)
    mont = fmlm3.montgomery(plan.params, p.modulus)
    for X, Y in ALG.cases(p) + [ALG.random_operands(p, rng) for _ in range(20)]:
        T = ALG.model(p, X, Y)
        t, expected = fmlm3.montgomery_product(mont, X, Y)
        assert T == expected and t == fmlm3.from_digits(fmlm3.ct_inv(T.cyclic, plan.params.ring), p.u)
        assert model.from_spectral_frame(plan, ALG.out_beats(p, T)) == T
        assert [model.from_spectral_frame(plan, [b[k] for b in ALG.in_beats(p, (X, Y))]) for k in (0, 1)] == [X, Y]
    x, e = rng.randrange(p.modulus), rng.getrandbits(12) | 1 << 11
    r2 = pow(mont.R, 2, p.modulus)
    x_bar = ALG.model(p, model.spectra(plan, x), model.spectra(plan, r2))
    acc = model.spectra(plan, mont.R % p.modulus)
    for i in reversed(range(e.bit_length())):
        acc = ALG.model(p, acc, acc)
        if e >> i & 1:
            acc = ALG.model(p, acc, x_bar)
    assert fmlm3.from_digits(fmlm3.ct_inv(ALG.model(p, acc, model.spectra(plan, 1)).cyclic, plan.params.ring), p.u) == \
        pow(x, e, p.modulus)


def test_cycle_claims_spectral():
    """domain = spectral, Table 6's set: 5 transforms (CT^-1, NCT, NCT^-1, CT, NCT), the input
    (multiplying as it comes) and one multiply pass (the third product runs beside CT^-1), the
    3 time-domain passes; Table 6 gives 2,036 (plan.py)."""
    p = ALG.parse({"l": "2048", "P": "128", "u": "16", "algorithm": "3", "bfs": "2", "domain": "spectral"})
    plan = ALG.derived(p)
    H, C = plan.H, plan.transform.cycles
    assert plan.paper_kinds() == {"CT^-1": 1, "NCT": 2, "NCT^-1": 1, "CT": 1}
    mul = 1 + MUL_ADD
    assert ALG.latency(p) == 2 * (H + mul) + 5 * (2 * H + C + 2) + (DEPTH["acc"] + mul + DEPTH["racc"]) + \
        (3 * H + DEPTH["pass_m"] + DEPTH["pass_d"] + DEPTH["pass_t"]) + 1
    assert ALG.cycles(p) == ALG.latency(p) + H - 1 < 2036


def test_deep_mul_adds():
    """depth=deep at K = 128 (a Karatsuba product of three levels): MulAdds of 11 stages (the
    inputs registered twice, the split's top level, the third level, the root's carry-save
    terms and the fold's difference a stage each), every step through one five cycles longer, through Restrict one (its
    comparison and decrement apart); butterflies two stages deeper (the twiddle's subtraction
    and its fold in two, the fixed shift's alike) and the loaded beats registered: every
    transform three cycles longer (G stays H); a store's read through a register: every step
    that reads one a cycle longer."""
    cfg = {"l": "64", "P": "64", "u": "1", "c": "2"}
    short, deep = (ALG.derived(ALG.parse(cfg | {"depth": depth})) for depth in ("short", "deep"))
    assert deep.K == 128 and (short.mul_add_depth, deep.mul_add_depth) == (6, 11)
    assert deep.transform.butterfly_depth - short.transform.butterfly_depth == 2
    assert deep.transform.cycles - short.transform.cycles == 3
    through = {"mul", "pass_mul", "in", "pass_mul1", "in_mul1", "mul1"}
    assert (short.read_latency, deep.read_latency) == (1, 2)
    reads = through | {"pass_m", "pass_d", "pass_t"}         # the sinks that read a store
    for k, step in enumerate(deep.program[:-1]):
        transform = (3 + (step.src != "input")) if step.kind else 0       # its load from a store
        longer = 5 * (step.sink in through) + (step.sink in reads) + (step.sink in ("acc", "racc")) + transform
        assert deep.step_cycles(step, k == 0) - short.step_cycles(step, k == 0) == longer
    assert ALG.extra_info(ALG.parse(cfg | {"depth": "deep"}))["mul_add_depth"] == 11


def test_dsp_profile():
    """dsp: the MulAdds' tiling; K = 288 on 26x17 two Karatsuba levels of 135 DSPs (on ECP5 each
    26x17 tile two 18x18 multipliers), on 18x18 four of 81 (depth=deep: 10 and 12 stages)."""
    cfg = {"l": "4096", "P": "32", "algorithm": "2"}
    info = {(dsp, depth): ALG.extra_info(ALG.parse(cfg | {"dsp": dsp, "depth": depth}))
            for dsp in ("dsp48e2", "ecp5") for depth in ("short", "deep")}
    assert info["dsp48e2", "short"]["K"] == 288
    assert [(i["mul_add_dsps"], i["mul_add_depth"]) for i in info.values()] == [(135, 6), (135, 10), (81, 6), (81, 12)]
    assert info["ecp5", "deep"]["dsp_total"] == 2 * 81          # one MulAdd a lane, bfs = 1


def test_store_groups():
    """The spectral stores share block RAMs with no step reading (or writing) two of a group:
    2 memories, one more for each of T(y), T'(y) and T(x) stored (MultiplierPlan.store_groups)."""
    for cfg in ALG.grid() + ALG.extended_grid():
        plan = ALG.derived(ALG.parse(cfg))
        groups = plan.store_groups
        spectral = plan.domain == "spectral"
        yn = spectral or plan.shared                             # T'(y) stored
        yc = spectral or plan.params.algorithm == 2              # T(y) stored (else multiplied on its read-out)
        xt = spectral and plan.shared                            # T(x) stored as it comes, in LUT RAM
        assert len(groups) == 2 + yc + yn + xt
        assert sorted(n for g in groups for n in g) == sorted(
            {"TNp", "TnN", "Z0", "Z4", "XN"} | ({"YN"} if yn else set()) | ({"YC"} if yc else set())
            | ({"XT"} if xt else set()))


@pytest.mark.parametrize("domain", ["time", "spectral"])
def test_cycle_claims_shared_muladd(domain):
    """muladds = 1, Table 6's set: three products on the one MulAdd, one coefficient a cycle
    (P + 1 + MUL_ADD each): T(x) (.) T(N') as the input comes (spectral: from a store
    the input fills, a word once its beat is in) or as CT(x)'s
    read-out goes (time), T(y) (.) Z0 as a pass (spectral) or on CT(y)'s read-out (time), and
    T'(m) (.) T'(N) + XN on NCT(m)'s read-out; a read-out through the MulAdd takes P - H
    cycles more than a plain one. T'(x) (.) T'(y) runs beside CT^-1. The values are those of
    muladds = lanes."""
    cfg = {"l": "2048", "P": "128", "u": "16", "algorithm": "3", "bfs": "2", "domain": domain}
    p, lanes = ALG.parse(cfg | {"muladds": "1"}), ALG.parse(cfg)
    plan = ALG.derived(p)
    H, C, P = plan.H, plan.transform.cycles, p.P
    assert plan.shared and ALG.derived(lanes).transforms == plan.transforms
    spectral = domain == "spectral"
    passes = 3 * H + DEPTH["pass_m"] + DEPTH["pass_d"] + DEPTH["pass_t"]
    products = 3 * (P + DEPTH["pass_mul1"]) - (1 if spectral else 3) * H
    transforms = (5 if spectral else 7) * (2 * H + C + 2) + DEPTH["acc"] + DEPTH["racc"]
    first = 1 if spectral else -1    # the input's first issue a cycle after its first beat; no read before CT(x)
    assert ALG.latency(p) == first + transforms + products + passes + 1
    assert ALG.cycles(p) == (2009 if spectral else 2539)
    assert ALG.cycles(p) == ALG.latency(p) + H - 1
    rng = random.Random(4)
    for x, y in ALG.cases(p)[:3] + [ALG.random_operands(p, rng)]:
        assert ALG.model(p, x, y) == ALG.model(lanes, x, y)
