"""Datapath registers without reset (issue 38): the NTT-reduction paper's reductions with every
register taking rst (reset=all, modforge's registers before) against only the valid bits taking
it (reset=control, the default), on xcup and xc7 (Yosys synth_xilinx): LUT, shift-register LUTs
(SRL), FF, DSP, the register stages Yosys packed into the DSP blocks, and the area.

    PYTHONPATH=src python3 benchmarks/register_reset.py [-o benchmarks/register_reset.md]

Every point is the reduction alone with its run-time modulus (reduce_only=1, qh_input=1 or
shift_input=1: the paper's Table 3-4 designs, run-time configurable), the primes of
shift_reductions.py: `modforge synth <algorithm> q=<q> logqh=<L> [rho=A|B] reduce_only=1
qh_input=1|shift_input=1 reset=all|control --target xcup|xc7` (10 to 40 s each; the synthesis
cache makes re-runs free); and an NTT core, whose butterflies' registers the option covers
(`modforge synth ntt-commands profile=ml-kem reduction=k2red-shift pe=4 reset=all|control`).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _compare import HANDWRITTEN, geomean, run_measured, synth_json  # noqa: E402

#: (algorithm, q, log q_h, extra parameters): the designs of issue 38's hand-written comparison
POINTS = [p[:4] for p in HANDWRITTEN]
#: NTT cores (their butterflies' registers): ML-KEM's command core with four butterflies
NTT_POINTS = [("ntt-commands", ("profile=ml-kem", "reduction=k2red-shift", "pe=4"))]
RESETS = ("all", "control")


def args(algorithm: str, q: str, logqh: int, extra: tuple[str, ...]) -> tuple[str, ...]:
    return (f"q={q}", f"logqh={logqh}", "reduce_only=1", *extra)


def measure(algorithm: str, params: tuple[str, ...], reset: str, target: str) -> dict:
    return synth_json(algorithm, *params, f"reset={reset}", "--target", target, nice=True)


def report() -> list[str]:
    rows = ["| algorithm | q | parameters | xcup LUT | SRL | FF | DSP | xcup area | area control/all "
            "| xc7 FF | xc7 DSP registers packed |", "|---" * 11 + "|"]
    ratios = []
    points = [(a, args(a, q, logqh, extra), f"`{q}` | logqh={logqh} {' '.join(extra)}")
              for a, q, logqh, extra in POINTS] + [(a, p, f"- | {' '.join(p)}") for a, p in NTT_POINTS]
    for algorithm, params, label in points:
        x = {r: measure(algorithm, params, r, "xcup") for r in RESETS}
        s = {r: measure(algorithm, params, r, "xc7") for r in RESETS}
        ratio = x["control"]["area"] / x["all"]["area"]
        ratios.append(ratio)

        def pair(key: str, d: dict = x) -> str:
            return " / ".join(f"{d[r][key]:,.0f}" for r in RESETS)
        rows.append(f"| {algorithm.removeprefix('modmul-')} | {label} | {pair('lut')} | {pair('srl')} "
                    f"| {pair('ff')} | {x['control']['dsp']} | {pair('area')} | {ratio:.3f} | {pair('ff', s)} "
                    f"| {pair('dsp_registers', s)} |")
        print(rows[-1], file=sys.stderr, flush=True)
    return rows + [
        "", f"Geometric mean of the area ratio control/all: {geomean(ratios):.3f}.", "",
        "Each cell: reset=all / reset=control (the default). area: modforge's LUT-eq, LUT + LUT-RAM/SRL + FF/2 + "
        "100 DSP. SRL: LUTs used as shift registers (SRL16E/SRLC32E), within the area's LUT-RAM term. xc7 DSP "
        "registers packed: the AREG, BREG, MREG, PREG, ... stages inside the DSP48E1 cells (their flip-flops are "
        "not among FF). Yosys 0.70 packs registers into DSP48E1 only: its xilinx_dsp pass packs none into "
        "xcup's DSP48E2 (a registered 26x17 product alone keeps its 43 flip-flops), so the xcup FF counts hold "
        "the registers Vivado would put inside the DSPs, and the xc7 columns show what packing does. Latency: "
        "the same for both (the option changes no stage)."]


if __name__ == "__main__":
    sys.exit(run_measured(__doc__, "Datapath registers without reset (issue 38)", report))
