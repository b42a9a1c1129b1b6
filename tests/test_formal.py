"""modforge prove: bounded proofs of small designs against their family's reference, and a
proof that must fail (a wrong reference)."""

import pytest

from modforge import formal
from modforge.cli import main
from modforge.registry import lookup

# the smallest ntt core (n = 16, q = 193: 8 bits; P = 4 and one register stage in the
# reduction: few cycles to unroll); its reference is the butterfly network, which SAT
# sweeping matches with the core's stage by stage (the flat evaluation sum did not finish)
NTT_PROOF = ["ntt-forward", "q=193", "n=16", "pe=4", "reduction=montgomery-shift", "dsp=none", "pipeline=000001"]
NTT_PROOF_32 = [arg.replace("n=16", "n=32") for arg in NTT_PROOF] + ["--timeout", "1800"]   # 4 times as long


# the proofs of a minute and more (rsa-montgomery and the NTT, 75 s each) run in the slow
# tier; in every run their references are checked against the model on Icarus
# (test_reference_agrees_with_the_model) and a wrong rsa-montgomery reference must fail
SLOW_PROOF = pytest.mark.slow


@pytest.mark.synth
@pytest.mark.parametrize("args", [["gf2n-blakely", "n=16"], ["gf2n-montgomery", "n=16"],
                                  ["gfpm-mse-digit", "p=2", "m=13", "poly=auto", "D=3"],
                                  ["modmul-barrett", "q=251"], ["poly-fir", "n=16", "q=4", "small=1"],
                                  ["fmlm3-transform", "P=8", "c=1/2", "kind=ct", "bfs=1"],
                                  pytest.param(["rsa-montgomery", "l=8", "w=4", "dsp=none"], marks=SLOW_PROOF),
                                  pytest.param(NTT_PROOF, marks=SLOW_PROOF),
                                  pytest.param(NTT_PROOF_32, marks=SLOW_PROOF)],
                         ids=lambda args: "-".join(a for a in args if not a.startswith("--") and not a.isdigit()))
def test_prove_passes(tmp_path, capsys, args):
    code = main(["prove", *args, "-o", str(tmp_path / "p")])
    captured = capsys.readouterr()
    assert code == 0, captured.out + captured.err
    assert captured.out.startswith("proved:")
    assert "unroll" in captured.err      # progress: what is being proved


@pytest.mark.synth
def test_a_wrong_reference_fails(tmp_path, monkeypatch):
    algorithm = lookup("gf2n-blakely")
    params = algorithm.parse({"n": "16"})
    right = algorithm.reference(params)
    wrong = right.replace("assign ok = result ==", "assign ok = (result ^ 16'h0100) ==")
    assert wrong != right
    monkeypatch.setattr(type(algorithm), "reference", lambda self, p: wrong)
    result = formal.prove(algorithm, params, tmp_path)
    assert result.status == "failed" and "FAILED" in result.message and "cycle 18" in result.message  # frame + latency


@pytest.mark.synth
@SLOW_PROOF   # 14 s: a wrong reference fails in the default tier with gf2n and rsa-montgomery
def test_a_wrong_transform_fails(tmp_path, monkeypatch):
    """One twiddle of the last stage omega^1 instead of omega^-1 (2^1 for 2^7 = 2^-1 mod 17)."""
    algorithm = lookup("fmlm3-transform")
    params = algorithm.parse({"P": "8", "c": "1/2", "kind": "ct", "bfs": "1"})
    right = algorithm.reference(params)
    wrong = right.replace("t3_5_product = a2_5 << 7;", "t3_5_product = a2_5 << 1;")
    assert wrong != right
    monkeypatch.setattr(type(algorithm), "reference", lambda self, p: wrong)
    result = formal.prove(algorithm, params, tmp_path)
    last = algorithm.latency(params) + algorithm.frame_beats(params)     # frame + latency
    assert result.status == "failed" and f"cycle {last}" in result.message


@pytest.mark.synth
@SLOW_PROOF   # 32 s
def test_a_wrong_ntt_reference_fails(tmp_path, monkeypatch):
    """The NTT reference with another primitive 2n-th root (psi^3) than the core's: the proof
    must find operands where they differ, at the last result beat."""
    import dataclasses
    algorithm = lookup("ntt-forward")
    params = algorithm.parse(dict(arg.split("=") for arg in NTT_PROOF[1:]))
    other = dataclasses.replace(params, psi=pow(params.psi, 3, params.q))
    right = type(algorithm).reference
    assert right(algorithm, other) != right(algorithm, params)
    monkeypatch.setattr(type(algorithm), "reference", lambda self, p: right(self, other))
    result = formal.prove(algorithm, params, tmp_path)
    last = algorithm.plan(params).latency + algorithm.plan(params).frame_beats
    assert result.status == "failed" and f"cycle {last}" in result.message


@pytest.mark.synth
def test_a_wrong_montgomery_reference_fails(tmp_path, monkeypatch):
    """rsa-montgomery's reference with N' off by one (its m no longer clears the low word)."""
    algorithm = lookup("rsa-montgomery")
    params = algorithm.parse({"l": "8", "w": "4", "dsp": "none"})
    right = algorithm.reference(params)
    wrong = right.replace("* 4'd11;", "* 4'd12;")
    assert wrong != right
    monkeypatch.setattr(type(algorithm), "reference", lambda self, p: wrong)
    assert formal.prove(algorithm, params, tmp_path).status == "failed"


@pytest.mark.synth
def test_a_wrong_latency_fails(tmp_path, monkeypatch):
    """The harness checks the timing too: a core that claims one cycle less is caught."""
    import dataclasses
    algorithm = lookup("gf2n-blakely")
    params = algorithm.parse({"n": "8"})
    real = formal.harness
    monkeypatch.setattr(formal, "harness", lambda design: real(dataclasses.replace(design, latency=design.latency - 1)))
    assert formal.prove(algorithm, params, tmp_path).status == "failed"


@pytest.mark.parametrize("args, needle", [
    (["gf2n-blakely", "n=200"], "must be at most 64 for a bounded proof"),
    (["modmul-barrett", "q=0xfff00001"], "must be at most 16 bits wide"),
    (["poly-fir", "n=64", "q=4"], "must be at most 32 for a bounded proof"),
    (["ntt-forward", "q=257", "n=64", "pe=4"], "argument 'n' must be at most 32 for a bounded proof"),
    (["gfpm-mse-digit", "p=3", "m=97", "poly=paper", "D=8"], "bits an operand"),
    (["fmlm3-transform", "P=32", "c=1/2"], "must keep K = cP at most 8 for a bounded proof"),
    (["fmlm3-transform", "P=8", "kind=any"], "must be one transform"),
    (["rsa-montgomery", "l=16", "w=8"], "argument 'l' must be at most 8 for a bounded proof"),
])
def test_unsupported_sizes_are_one_line_errors(capsys, args, needle):
    assert main(["prove", *args]) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_every_family_has_a_provable_algorithm():
    from modforge.families import FAMILIES
    provable = {lookup(name).family for name in formal.provable()}
    assert provable == set(FAMILIES)     # and test_prove_passes proves one design of each (-m slow: all)


def test_an_algorithm_without_a_reference_is_refused(capsys):
    assert main(["prove", "poly-saber", "level=light", "M=4"]) == 2
    assert "must have a formal reference" in capsys.readouterr().err


REFERENCE_CASES = [("gf2n-fiko", {"n": "9"}), ("gfpm-lse-basic", {"p": "3", "m": "5", "poly": "auto"}),
                   ("modmul-montgomery", {"q": "251"}), ("poly-fast", {"n": "16", "q": "4", "small": "1", "M": "2"}),
                   ("ntt-forward", {"q": "193", "n": "16", "pe": "1", "reduction": "montgomery", "dsp": "none"}),
                   ("rsa-montgomery", {"l": "8", "w": "4"}),
                   ("rsa-montgomery", {"l": "8", "w": "8", "modulus": "0x81"})]
REFERENCE_CASES += [("fmlm3-transform", {"P": "8", "c": c, "kind": kind, "bfs": "1"})   # proved: c = 1/2, ct
                    for c in ("1/2", "1") for kind in ("ct", "nct", "ct_inv", "nct_inv")]


@pytest.mark.sim
@pytest.mark.parametrize("name, args", REFERENCE_CASES)
def test_reference_agrees_with_the_model(tmp_path, name, args):
    """The references of the designs too big to prove in the suite (and ntt-forward's, proved at
    NTT_PROOF), simulated on Icarus: ok for the model's result of random operand sets, not ok
    for a result with one bit flipped."""
    import random
    import subprocess

    from modforge.sim.vectors import pack_operands
    algorithm = lookup(name)
    params = algorithm.parse(args)
    plan = algorithm.plan(params)
    rng = random.Random(5)
    checks = []
    for _ in range(4):
        operands = algorithm.random_operands(params, rng)
        beats = [pack_operands(algorithm, params, beat) for beat in algorithm.in_beats(params, operands)]
        outs = algorithm.out_beats(params, algorithm.model(params, *operands))
        ins = sum(b << (i * plan.input_width) for i, b in enumerate(beats))
        res = sum(b << (i * plan.output_width) for i, b in enumerate(outs))
        checks += [(ins, res, 1), (ins, res ^ 1, 0)]
    iw, ow = plan.input_width * plan.frame_beats, plan.output_width * plan.result_beats
    body = "".join(f"    operands = {iw}'h{i:x}; result = {ow}'h{r:x}; #1;\n"
                   f"    if (ok !== 1'b{want} || in_domain !== 1'b1) begin $display(\"WRONG {k}\"); $finish; end\n"
                   for k, (i, r, want) in enumerate(checks))
    (tmp_path / "ref.v").write_text(formal.reference_module(algorithm, params))
    (tmp_path / "tb.v").write_text(f"module tb;\n  reg [{iw - 1}:0] operands; reg [{ow - 1}:0] result;\n"
                                   "  wire ok, in_domain;\n  mf_reference r(operands, result, ok, in_domain);\n"
                                   f"  initial begin\n{body}    $display(\"ALL-RIGHT\");\n  end\nendmodule\n")
    subprocess.run(["iverilog", "-g2005", "-o", "tb.vvp", "tb.v", "ref.v"], cwd=tmp_path, check=True)
    out = subprocess.run(["vvp", "-n", "tb.vvp"], cwd=tmp_path, capture_output=True, text=True).stdout
    assert "ALL-RIGHT" in out, out
