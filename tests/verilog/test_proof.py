"""Every pass of the Verilog back end proved by Yosys to keep the design's function: each pass
alone (its input against its output), the whole pipeline, and the Verilog it writes, on a
small grid design of every family; and a wrong rewrite is caught (verilog/proof.py)."""

import re
from pathlib import Path

import pytest
from amaranth.back import rtlil

from modforge.registry import all_algorithms, lookup
from modforge.verilog import export, proof
from modforge.verilog.proof import NotEquivalent, ProofTimeout, Verilog, prove, prove_many
from modforge.verilog.rtlil import Netlist

# one small grid configuration per family
SMALL = {
    "gf2n": ("gf2n-blakely", {"n": "9", "poly": "x^9+x^5+1"}),
    "digitserial": ("gfpm-lse-basic", {"p": "2", "m": "13", "poly": "auto"}),
    "modmul": ("modmul-barrett", {"q": "0xfff00001"}),
    "ntt": ("ntt-forward", {"q": "0x80014001", "n": "16", "pe": "1", "reduction": "montgomery", "dsp": "none"}),
    "polyring": ("poly-schoolbook", {"n": "16", "q": "3329", "small": "2"}),
    "wordserial": ("rsa-montgomery", {"l": "8", "w": "4", "pe": "1", "dsp": "none"}),
    "fmlm3": ("fmlm3-transform", {"P": "16", "c": "1", "kind": "ct", "bfs": "1"}),
}


def amaranth_rtlil(name: str, args: dict) -> tuple[str, str]:
    alg = lookup(name)
    params = alg.parse(dict(args))
    module = alg.plan(params).module
    return rtlil.convert(alg.build(params), name=module, emit_src=False), module


def every_step(text: str, top: str, skip=()) -> tuple[list[tuple[str, str]], list[str]]:
    """(gold, gate) of every pass alone, the whole pipeline, and the Verilog against the RTLIL
    it is written from (with the whole pipeline's pair, the Verilog against Amaranth's RTLIL:
    equivalence is transitive; proved directly, the Verilog read back shares too little
    structure with Amaranth's RTLIL for opt_merge: modmul-plantard's multipliers did not
    finish in 20 minutes, against 1.2 s); and their labels, for a failure's message."""
    st = export.steps(text, top, skip)
    pairs = [(st[k][1], st[k + 1][1]) for k in range(len(st) - 1)]
    labels = [f"pass {name}" for name, _ in st[1:]] + ["the whole pipeline", "the Verilog written"]
    return [*pairs, (st[0][1], st[-1][1]), (st[-1][1], Verilog(export.write_verilog(st[-1][1])))], labels


def test_no_private_amaranth_api():
    src = Path(__file__).parents[2] / "src"
    assert not [p for p in src.rglob("*.py") if "amaranth._toolchain" in p.read_text()]


def test_small_designs_are_in_the_grid():
    grids = {a.name: [dict(g) for g in a.grid()] for a in all_algorithms()}
    families = {a.family for a in all_algorithms()}
    assert set(SMALL) == families
    for name, args in SMALL.values():
        assert args in grids[name], name


@pytest.mark.parametrize("family", sorted(SMALL))
def test_every_pass_proved(family):
    text, top = amaranth_rtlil(*SMALL[family])
    pairs, labels = every_step(text, top)
    assert prove_many(pairs, labels=labels) > 0


@pytest.mark.parametrize("skip", ["narrow", "drop_low", "keep_add_width", "share"])
def test_pipeline_without_an_optimisation_proved(skip):
    text, top = amaranth_rtlil(*SMALL["wordserial"])
    st = export.steps(text, top, {skip}, write=False)
    assert prove(st[0][1], st[-1][1]) > 0


def test_a_wrong_rewrite_is_caught():
    text, top = amaranth_rtlil(*SMALL["gf2n"])
    good = export.run_passes(text, top)
    net = Netlist(good)
    cell = next(item for m in net.modules for item in m.items if item.kind == "cell" and item.type == "$xor")
    cell.type = "$or"                       # a bit flipped where both operands are 1
    with pytest.raises(NotEquivalent, match="not proved equivalent"):
        prove(text, net.text())


def test_a_wrong_initial_value_is_caught():
    text, top = amaranth_rtlil(*SMALL["gf2n"])
    good = export.run_passes(text, top)
    bad = re.sub(r"(attribute \\init 9')000000000(\n  wire width 9 \\a\n)", r"\g<1>000000001\2", good)
    assert bad != good
    with pytest.raises(NotEquivalent, match="starts at 0 on the gold side, 1 on the gate side"):
        prove(text, bad)


def test_a_changed_initial_value_alone_is_caught():
    text, top = amaranth_rtlil(*SMALL["gf2n"])
    bad = re.sub(r"(attribute \\init 9')000000000(\n  wire width 9 \\a\n)", r"\g<1>000000001\2", text)
    assert bad != text
    with pytest.raises(NotEquivalent, match="starts at 0 on the gold side, 1 on the gate side"):
        prove(text, bad)


def test_a_wrong_verilog_is_caught():
    text, top = amaranth_rtlil(*SMALL["gf2n"])
    verilog = export.rtlil_to_verilog(text, top)
    bad = verilog.replace(" ^ ", " | ", 1)
    assert bad != verilog
    with pytest.raises(NotEquivalent, match="not proved equivalent"):
        prove(text, Verilog(bad))


def test_a_proof_out_of_time_says_so(monkeypatch):
    """A proof past its time fails as such (ProofTimeout: neither proved nor disproved), not
    as a difference and not by hanging: in the lowering, or in the SAT run."""
    text, top = amaranth_rtlil(*SMALL["modmul"])
    pairs, labels = every_step(text, top)
    with pytest.raises(ProofTimeout, match=r"timed out after 0\.01 s reading and lowering .*neither proved nor"):
        prove_many(pairs, timeout=0.01, labels=labels)
    lower = proof._prepare
    monkeypatch.setattr(proof, "_prepare", lambda texts, timeout: lower(texts))     # finishes, past the time
    with pytest.raises(ProofTimeout, match=r"timed out after 0\.01 s in .*neither proved nor"):
        prove_many(pairs, timeout=0.01, labels=labels)


#: seconds for the proof of every pass on one design (both Yosys runs together)
PROOF_TIMEOUT = 1200


@pytest.mark.slow
@pytest.mark.parametrize("alg", all_algorithms(), ids=lambda a: a.name)
def test_every_pass_proved_on_every_algorithm(alg):
    """Every pass proved on every algorithm, on its smallest grid design (grid()[0]: the
    smallest Verilog, tests/test_conformance.py), within PROOF_TIMEOUT."""
    text, top = amaranth_rtlil(alg.name, dict(alg.grid()[0]))
    pairs, labels = every_step(text, top)
    assert prove_many(pairs, timeout=PROOF_TIMEOUT, labels=labels) > 0
