"""`modforge prove`: bounded formal proof of a generated design against its family's reference.

The harness (harness.v) is made from the design record alone: it resets the core, offers
one operand set of free (unconstrained) beats on consecutive cycles, takes every result
beat, and asserts that the core accepts each beat, that o__valid rises exactly `latency`
cycles after each input beat (and never before), and that the result satisfies the
family's reference relation (Algorithm.reference: `ok`, for operands `in_domain`).

Yosys flattens harness, reference and core to an and-inverter graph (write_aiger: the
assertions become outputs that are 1 when they fail); ABC, run through Yosys' `abc`
pass, unrolls it over every cycle up to the last result (`frames -i`: from the reset
state) and proves all those outputs constant 0 with `iprove` (SAT sweeping, which finds
the internal equivalences a plain SAT miter misses: a 16-bit GF(2) multiplier takes
seconds where `sat -seq` does not finish). ABC's verdict comes back through
`write_status`: snl_UNSAT (no failing input exists, proved), snl_SAT (a counterexample:
the frame and assertion are named) or undecided.

yowasp tools see a private /tmp: everything runs from the design folder with relative paths.
"""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .design import Design, generate
from .errors import ModforgeError, ParameterError
from .proc import die_with_parent
from .registry import Algorithm, all_algorithms
from .synth.yosys import yosys_command

MAX_CYCLES = 2000        # unrolled cycles (latency + frame beats): beyond, the AIG grows past a bounded proof
MAX_INPUT_BITS = 4096    # free operand bits of one operand set
ASSERTIONS = ("the core accepts every beat (i__ready)", "o__valid exactly latency cycles after each beat",
              "the result satisfies the reference")
WORK = "prove"


class ProofFailed(ModforgeError):
    """The proof found a counterexample or could not finish."""


@dataclasses.dataclass
class ProofResult:
    status: str           # proved, failed, undecided, timeout
    frames: int           # cycles unrolled
    seconds: float
    message: str
    directory: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == "proved"


def provable() -> list[str]:
    return [a.name for a in all_algorithms() if a.formal]


def check(algorithm: Algorithm, params: Any) -> None:
    """A ParameterError (one line, naming the limit) for what this harness cannot prove."""
    if not algorithm.formal:
        raise ParameterError("prove", "algorithm", "must have a formal reference (one of "
                             f"{', '.join(provable())})", algorithm.name)
    plan = algorithm.plan(params)
    cycles = plan.latency + plan.frame_beats + 2
    if cycles > MAX_CYCLES:
        raise ParameterError("prove", algorithm.name, f"must unroll at most {MAX_CYCLES} cycles for a bounded "
                             f"proof (latency + frame beats + 2)", cycles)
    bits = plan.input_width * plan.frame_beats
    if bits > MAX_INPUT_BITS:
        raise ParameterError("prove", algorithm.name, f"must have at most {MAX_INPUT_BITS} operand bits per "
                             "operand set for a bounded proof", bits)
    algorithm.reference(params)    # the family's own size limits


def reference_module(algorithm: Algorithm, params: Any) -> str:
    """mf_reference: the family's reference relation over one operand set's beats."""
    plan = algorithm.plan(params)
    return (f"// reference of {algorithm.name}: {plan.congruence}\n"
            f"module mf_reference(input [{plan.frame_beats * plan.input_width - 1}:0] operands,\n"
            f"                    input [{plan.result_beats * plan.output_width - 1}:0] result,\n"
            f"                    output ok, output in_domain);\n"
            f"{algorithm.reference(params)}"
            f"endmodule\n")


def harness(design: Design) -> str:
    """The proof harness of a design (one operand set, beat 0 of operands and result in the low bits)."""
    frame, out_frame = design.frame_beats, design.result_beats or design.frame_beats
    iw, ow, lat = design.input_width, design.output_width, design.latency
    first = 1 + frame - out_frame + lat          # the cycle of result beat 0
    last = frame + lat                           # of the last result beat
    cfg = (f",\n    .cfg__valid(1'b0), .cfg__payload({design.config_width}'d0), .cfg__ready()"
           if design.config_width else "")
    shift_in = f"{{beat, ins[{frame * iw - 1}:{iw}]}}" if frame > 1 else "beat"
    result = f"{{o_payload, outs[{out_frame * ow - 1}:{ow}]}}" if out_frame > 1 else "o_payload"
    counter = max(2, (last + 1).bit_length() + 1)
    return f"""\
// modforge prove harness of {design.top}: one operand set of free beats, results checked
// against mf_reference; assertions: {'; '.join(ASSERTIONS)}
module prove_top(input clk, input [{iw - 1}:0] beat);
  reg [{counter - 1}:0] t = 0;                 // cycle; 0: reset
  always @(posedge clk) if (t <= {last}) t <= t + 1'b1;
  wire rst = t == 0;
  wire i_valid = t >= 1 && t <= {frame};
  wire i_ready, o_valid;
  wire [{ow - 1}:0] o_payload;
  reg [{frame * iw - 1}:0] ins = 0;          // the beats offered, beat 0 lowest once all are in
  reg [{out_frame * ow - 1}:0] outs = 0;
  wire [{out_frame * ow - 1}:0] result = {result};
  wire expect_out = t >= {first} && t <= {last};
  always @(posedge clk) begin
    if (i_valid) ins <= {shift_in};
    if (expect_out) outs <= result;
  end
  wire ok, in_domain;
  mf_reference reference(.operands(ins), .result(result), .ok(ok), .in_domain(in_domain));
  {design.top} dut(
    .clk(clk), .rst(rst),
    .i__valid(i_valid), .i__ready(i_ready), .i__payload(beat),
    .o__valid(o_valid), .o__ready(1'b1), .o__payload(o_payload){cfg}
  );
  always @* begin
    if (t >= 1 && t <= {last}) begin
      assert(!i_valid || i_ready);
      assert(o_valid == expect_out);
    end
    if (t == {last}) assert(!in_domain || ok);
  end
endmodule
"""


def _abc(commands: list[str]) -> str:
    """The `abc -script +...` argument: ABC commands, blanks written as commas."""
    return "+" + ";".join(c.replace(" ", ",") for c in commands)


def scripts(design: Design, frames: int) -> tuple[str, str]:
    """(to AIGER, the ABC proof): two Yosys scripts run from the design folder."""
    reads = "\n".join(f"read_verilog {name}" for name in design.files)
    to_aiger = f"""{reads}
read_verilog -formal {WORK}/harness.v {WORK}/reference.v
prep -top prove_top
flatten
chformal -lower
memory_map
opt -fast
async2sync
setundef -undriven -anyseq
setundef -anyseq
techmap
opt -fast
setundef -anyseq
dffunmap
aigmap
opt_clean
write_aiger -zinit {WORK}/prove.aig
"""
    # ABC runs inside Yosys' abc pass on a one-gate stand-in module, whose logic it puts back
    # (&get / &put) after proving the harness; the verdict comes back through write_status
    prove = f"""read_verilog {WORK}/standin.v
synth -top standin
abc -g AND -script {_abc(['strash', '&get -n', f'read_aiger {WORK}/prove.aig', 'strash', f'frames -F {frames} -i',
                          'strash', 'iprove', f'write_status {WORK}/status.txt', '&put', 'map'])}
"""
    return to_aiger, prove


def _run(cmd: list[str], cwd: Path, timeout: float) -> tuple[bool, str]:
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                              preexec_fn=die_with_parent)
    except subprocess.TimeoutExpired:
        return False, "timeout"
    return proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]


def _failing_cycle(aig: Path, status: list[str]) -> str:
    """'at cycle k ' from ABC's failing output (frames are laid out one after another), else ''."""
    header = aig.read_bytes().split(b"\n", 1)[0].split()
    per_frame = sum(int(x) for x in header[4:5] + header[6:7])     # outputs and bad-state properties
    if len(status) > 3 and status[3].isdigit() and per_frame:
        return f"at cycle {int(status[3]) // per_frame} "
    return ""


def prove(algorithm: Algorithm, params: Any, directory: Path, timeout: float = 600,
          say: Callable[[str], None] = lambda _: None) -> ProofResult:
    """Generate the design into `directory` and prove it against the family's reference."""
    check(algorithm, params)
    yosys = yosys_command()
    design = generate(algorithm, params, directory)
    work = design.directory / WORK
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    frames = design.latency + design.frame_beats + 1     # cycles 0 (reset) .. the last result beat
    (work / "harness.v").write_text(harness(design))
    (work / "reference.v").write_text(reference_module(algorithm, params))
    (work / "standin.v").write_text("module standin(input a, input b, output y);\n  assign y = a & b;\nendmodule\n")
    to_aiger, abc = scripts(design, frames)
    (work / "aiger.ys").write_text(to_aiger)
    (work / "abc.ys").write_text(abc)
    start = time.perf_counter()
    say(f"{design.top}: {design.congruence}")
    say(f"proving over {frames} cycles from reset: " + "; ".join(ASSERTIONS))
    say("yosys: harness, reference and core to an and-inverter graph")
    done, log = _run([yosys, "-q", "-l", f"{WORK}/aiger.log", f"{WORK}/aiger.ys"], design.directory, timeout)
    if not done:
        raise ProofFailed(f"prove: yosys could not build the proof of {design.top} ({log.strip().splitlines()[-1]}; "
                          f"log {work / 'aiger.log'})")
    say(f"abc: unroll {frames} cycles, prove every assertion (iprove)")
    left = max(1.0, timeout - (time.perf_counter() - start))
    done, log = _run([yosys, "-q", "-l", f"{WORK}/abc.log", f"{WORK}/abc.ys"], design.directory, left)
    seconds = round(time.perf_counter() - start, 2)
    status_file = work / "status.txt"
    if log == "timeout":
        return ProofResult("timeout", frames, seconds, f"prove: not finished within {timeout:g} s",
                           str(design.directory))
    if not status_file.exists():
        raise ProofFailed(f"prove: abc gave no verdict on {design.top} (log {work / 'abc.log'})")
    words = status_file.read_text().split()
    if words[0] == "snl_UNSAT" and done:
        return ProofResult("proved", frames, seconds, f"proved: {design.top} meets its reference on every operand "
                           f"set (cycles 0-{frames - 1} from reset)", str(design.directory))
    if words[0] == "snl_SAT":
        return ProofResult("failed", frames, seconds, f"FAILED: {design.top}: an assertion fails "
                           f"{_failing_cycle(work / 'prove.aig', words)}for some operand set", str(design.directory))
    return ProofResult("undecided", frames, seconds, f"prove: abc could not decide ({' '.join(words[:2])})",
                       str(design.directory))
