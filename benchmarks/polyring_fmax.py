"""The fast-filter multiplier's clock (issue 38): `poly-fast n=256 q=8192 small=4 M=4` (Saber's
ring, Fast.4) without pipeline registers (pipeline=0, the paper's timing) and with the default
S = 4 stages (hw.systolic.RegisteredFir and hw.PolyCore's stages), on ECP5 (nextpnr, LFE5U-85F,
100 MHz asked) and xcup (Yosys counts), beside the open hand-written 256-MAC Saber multiplier
measured in modforge's flow (issue 38's figures: 89.4 MHz on ECP5, 313 cycles, 19,999 LUT on
xcup).

    PYTHONPATH=src python3 benchmarks/polyring_fmax.py [-o benchmarks/polyring_fmax.md]

Each ECP5 point places and routes about 50,000 LUT4 (20 to 40 minutes on a loaded 2-core
machine); the synthesis cache makes re-runs free. Cycles are one multiplication's, first input
to last output (2n/M - 1 + S), as the simulators check them.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _compare import fmt, run_measured, synth_json  # noqa: E402

DESIGN = ("n=256", "q=8192", "small=4", "M=4")
STAGES = (0, 4)
#: the open hand-written 256-MAC Saber multiplier in modforge's flow: ECP5 MHz, cycles, xcup LUT
REFERENCE = (89.4, 313, 19999)


def measure(stages: int, target: str) -> dict:
    return synth_json("poly-fast", *DESIGN, f"pipeline={stages}", "--target", target, nice=True)


def report() -> list[str]:
    ref_mhz, ref_cycles, ref_lut = REFERENCE
    rows = ["| design | cycles | ECP5 LUT4 | ECP5 FF | ECP5 MHz | us a product | xcup LUT | xcup FF "
            "| MHz vs reference | LUT x cycles (xcup) vs reference |", "|---|---|---|---|---|---|---|---|---|---|"]
    for stages in STAGES:
        ecp5, xcup = measure(stages, "ecp5"), measure(stages, "xcup")
        cycles, mhz = ecp5["cycles"], ecp5.get("fmax_mhz")
        us = cycles / mhz if mhz else None
        rows.append(f"| poly-fast {' '.join(DESIGN)} pipeline={stages} | {cycles} | {fmt(ecp5.get('lut'), 0)} "
                    f"| {fmt(ecp5.get('ff'), 0)} | {fmt(mhz)} | {fmt(us, 2)} | {fmt(xcup.get('lut'), 0)} "
                    f"| {fmt(xcup.get('ff'), 0)} | {fmt(mhz / ref_mhz if mhz else None, 2)} "
                    f"| {fmt(xcup['lut'] * cycles / (ref_lut * ref_cycles), 2)} |")
    rows.append(f"| hand-written 256 MACs (reference) | {ref_cycles} | - | - | {ref_mhz} "
                f"| {ref_cycles / ref_mhz:.2f} | {ref_lut:,} | - | 1.00 | 1.00 |")
    return rows


if __name__ == "__main__":
    sys.exit(run_measured(__doc__, "The fast-filter multiplier's clock beside the hand-written one", report))
