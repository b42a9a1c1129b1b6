"""The generated testbench must fail designs that are wrong, on both simulators."""

import random

import pytest

from modforge.registry import lookup
from modforge.sim.runners import SIMULATORS, simulate
from modforge.sim.vectors import make_vectors, pack_operands
from modforge.sim.verify import prepare, verify

from .toy import Toy, ToyFrame

pytestmark = pytest.mark.sim


@pytest.mark.parametrize("simulator", SIMULATORS)
@pytest.mark.parametrize("bug", ["none", "value", "latency"])
def test_testbench_catches(tmp_path, simulator, bug):
    alg = Toy()
    params = alg.parse({"w": "6", "bug": bug})
    design, [result] = verify(alg, params, tmp_path, 300, [simulator])
    assert result.vectors == 300
    if bug == "none":
        assert result.ok, result.log[-2000:]
        assert result.latency == design.latency == 7
        assert result.initiation_interval == design.initiation_interval == 7
    elif bug == "value":
        # the corner case (2, 3) and every random product equal to 6 come out wrong
        assert not result.ok and result.failed >= 1 and result.latency_failures == 0
    else:
        assert not result.ok and result.latency_failures == result.vectors and result.failed == 0


def test_vectors_lead_with_a_random_set():
    """A random operand set comes first, then the corners: a core that gets its first set
    after reset wrong must not pass on an all-zero corner its registers already hold."""
    alg = Toy()
    params = alg.parse({"w": "6", "bug": "none"})
    ins, _ = make_vectors(alg, params, 3, seed=5)
    first = alg.random_operands(params, random.Random(5))
    expected = [first, *list(alg.cases(params))[:2]]
    assert ins == [pack_operands(alg, params, ops) for ops in expected]


@pytest.mark.parametrize("simulator", SIMULATORS)
@pytest.mark.parametrize("bug", ["none", "ii"])
def test_frames(tmp_path, simulator, bug):
    """Operand sets of several beats: every beat checked, frame spacing checked."""
    alg = ToyFrame()
    params = alg.parse({"beats": "4", "bug": bug})
    design, [result] = verify(alg, params, tmp_path, 200, [simulator])  # 50 frames of 4 beats
    assert result.vectors == 200
    assert result.passed == 200 and result.failed == 0 and result.latency == 2
    if bug == "none":
        assert result.ok and result.initiation_interval == 4
    else:
        assert not result.ok and result.ii_failures > 0


def test_verilator_build_cache(tmp_path, monkeypatch):
    """The second verification of the same design runs the cached build, and passes: with
    other vectors too (tb.v holds no count or seed: vectors/count.hex does)."""
    monkeypatch.setenv("MODFORGE_CACHE", str(tmp_path / "cache"))
    alg = Toy()
    params = alg.parse({"w": "5"})
    runs = [verify(alg, params, tmp_path / f"run{k}", count, ["verilator"], seed=seed)[1][0]
            for k, (count, seed) in enumerate([(100, 1), (100, 1), (333, 7)])]
    assert [r.build_cached for r in runs] == [False, True, True]
    assert all(r.ok for r in runs) and [r.vectors for r in runs] == [100, 100, 333]
    assert len(list((tmp_path / "cache" / "verilator").iterdir())) == 1
    assert (tmp_path / "run0" / "tb.v").read_bytes() == (tmp_path / "run2" / "tb.v").read_bytes()
    assert "MODFORGE-PROGRESS" not in runs[2].log   # progress lines only when asked (+progress)


@pytest.mark.parametrize("simulator", SIMULATORS)
def test_short_vector_file_fails(tmp_path, simulator):
    """A vector file shorter than vectors/count.hex says fails the run, never passes it short."""
    alg = Toy()
    params = alg.parse({"w": "6"})
    design = prepare(alg, params, tmp_path, 50)
    out = design.directory / "vectors" / "out.hex"
    out.write_text("".join(out.read_text().splitlines(keepends=True)[:40]))
    result = simulate(design, simulator)
    assert not result.ok and result.passed == 40 and result.failed == 10 and result.vectors == 50
    assert "VECTOR-FILE-SHORT vectors/out.hex" in result.log


#: ToyFrame's core by hand (two stages, each byte plus one, stalled whole by back-pressure),
#: its reset honoured by every valid flag, by the last only, or ignored
HANDWRITTEN = """\
module {top}(input clk, input rst, input i__valid, output i__ready, input [7:0] i__payload,
             output o__valid, input o__ready, output [7:0] o__payload);
  reg v1 = 1'b0, v2 = 1'b0;
  reg [7:0] x, y;
  wire en = !v2 || o__ready;
  assign i__ready = en;
  assign o__valid = v2;
  assign o__payload = y;
  always @(posedge clk) begin
    if (en) begin
      v1 <= i__valid;
      x <= i__payload + 8'd1;
      v2 <= v1;
      y <= x;
    end
    if (rst) begin
      {reset}
    end
  end
endmodule
"""


@pytest.mark.parametrize("simulator", SIMULATORS)
@pytest.mark.parametrize("reset", ["all", "last", "none"])
def test_reset_mid_frame(tmp_path, simulator, reset):
    """The resets of the stalled half land mid-frame; a core that leaves a result in flight
    after one (its first stage's valid not reset, or none) fails, and every vector is still
    checked once: the operand sets cut short are offered again."""
    alg = ToyFrame()
    design = prepare(alg, alg.parse({"beats": "4"}), tmp_path, 1000)   # 125 stalled frames: 4 resets
    clear = {"all": "v1 <= 1'b0; v2 <= 1'b0;", "last": "v2 <= 1'b0;", "none": ""}[reset]
    (design.directory / design.files[0]).write_text(HANDWRITTEN.format(top=design.top, reset=clear))
    result = simulate(design, simulator)
    resets = [line.split() for line in result.log.splitlines() if line.startswith("RESET at")]
    assert result.resets == len(resets) == 4 and result.replayed >= 4
    assert all(int(words[6]) % 4 for words in resets)          # input beat taken: mid-frame
    if reset == "all":
        assert result.ok and result.passed == result.vectors == 1000, result.log[-2000:]
    else:
        assert not result.ok and result.failed > 0 and "RESET-EARLY" in result.log


@pytest.mark.parametrize("ignore", [False, True])
def test_command_core_reset(tmp_path, ignore):
    """The command testbench resets ntt-commands while rows are owed and runs the program
    again: the core passes, and fails once its Verilog ignores rst (the rows from before the
    reset come out: RESET-EARLY)."""
    alg = lookup("ntt-commands")
    design = prepare(alg, alg.parse(alg.grid()[0]), tmp_path, 64)
    if ignore:
        for name in design.files:
            path = design.directory / name
            path.write_text(path.read_text().replace("if (rst)", "if (1'b0)"))
    result = simulate(design, "icarus")
    assert result.resets == 1 and result.replayed == 1
    if ignore:
        assert not result.ok and "RESET-EARLY" in result.log
    else:
        assert result.ok and result.passed == result.vectors == 64, result.log[-2000:]
