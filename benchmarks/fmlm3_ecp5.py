"""rsa-fmlm3's K = 128 rows of Table 6 placed and routed on ECP5 (issue 38): the rows of
sweeps/fmlm3_paper.toml's ecp5-large set whose ring is M = 2^128 + 1, each as the sweep
builds it (MulAdds tiled for MULT18X18D, depth = deep), with nextpnr's static placer on the
LFE5U-85F, beside the paper's Virtex-6 figures.

    PYTHONPATH=src python3 benchmarks/fmlm3_ecp5.py [-o benchmarks/fmlm3_ecp5.md]

Each row is one `modforge synth rsa-fmlm3 ... --target ecp5-static --device 85k` (the
synthesis cache answers a row it holds): 20 to 60 minutes a row on this machine. The sweep's
ecp5 target runs HeAP, which leaves these cores unrouted (fermat_blocks.md); the part is
named because the smallest one a core fills to 75 % at most is not always one it routes on
(the 1-bfs l = 4096 core on the 45k: 12,135 arcs unrouted after 5,400 s).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _compare import fmt, run_measured, synth_json  # noqa: E402
from modforge.explore.sweep import load  # noqa: E402
from modforge.registry import lookup  # noqa: E402
from paper_fmlm3 import PAPER, SWEEP, paper_key, ring_exponent  # noqa: E402

TITLE = "rsa-fmlm3 at K = 128 on ECP5 (static placer) beside Table 6"
COMMAND = "PYTHONPATH=src python3 benchmarks/fmlm3_ecp5.py -o benchmarks/fmlm3_ecp5.md"
KEYS = ("l", "P", "u", "algorithm", "c", "bfs", "domain", "muladds", "depth", "dsp")


def rows() -> list[dict]:
    """The ecp5-large rsa-fmlm3 points at K = 128."""
    points = load(SWEEP, only=["ecp5-large"]).points
    return [p.params for p in points if p.algorithm == "rsa-fmlm3" and ring_exponent(p.params) == 128]


def report() -> list[str]:
    alg = lookup("rsa-fmlm3")
    lines = ["| l | alg | P | u | bfs | LUT4 | FF | MULT18 | DP16KD | Fmax MHz | cycles | latency us | "
             "paper LUT | paper MHz | paper cycles | paper latency us | latency / paper | state |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for params in rows():
        args = [f"{k}={params[k]}" for k in KEYS]
        print("measuring", " ".join(args), file=sys.stderr, flush=True)
        try:
            r = synth_json("rsa-fmlm3", *args, "--target", "ecp5-static", "--device", "85k", "--timeout", "5400")
        except subprocess.CalledProcessError as failed:        # its record names why (a timeout)
            r = json.loads(failed.stdout)
        cycles = alg.cycles(alg.parse({k: str(params[k]) for k in KEYS}))
        mhz = r.get("fmax_mhz")
        latency = cycles / mhz if mhz else None
        lut, _, _, _, _, paper_cycles, period, paper_latency, _ = PAPER[paper_key(params)]
        lines.append(f"| {fmt(params['l'])} | {params['algorithm']} | {params['P']} | {params['u']} | "
                     f"{params['bfs']} | "
                     f"{fmt(r.get('lut'))} | {fmt(r.get('ff'))} | {fmt(r.get('dsp'))} | {fmt(r.get('bram'))} | "
                     f"{fmt(mhz)} | {fmt(cycles)} | {fmt(latency, 2)} | {fmt(lut)} | {fmt(1000 / period)} | "
                     f"{fmt(paper_cycles)} | {paper_latency:.2f} | "
                     f"{fmt(latency / paper_latency if latency else None, 2)} | "
                     f"{'routed' if r.get('status') == 'ok' else r.get('message')} |")
    return lines + [
        "", "Ours: nextpnr-ecp5 on the LFE5U-85F (`--target ecp5-static --device 85k`: the static placer; 100 MHz "
        "asked, one seed), LUT4 and FF after packing, MULT18: MULT18X18D, DP16KD block RAMs; cycles: one "
        "multiplication, first input beat to last output beat (the design's formula, checked by simulation); "
        "latency = cycles / Fmax. "
        "Paper: Table 6, Xilinx ISE 14.7 on a Virtex-6 xc6vlx130t-1 (its MHz = 1000 / its period): a 6-input LUT "
        "and a 25x18 DSP against ECP5's 4-input LUT and 18x18 multiplier, so the ratio says how far a commodity "
        "part is from the paper's, not what the architecture costs."]


if __name__ == "__main__":
    sys.exit(run_measured(__doc__, TITLE, report, COMMAND))
