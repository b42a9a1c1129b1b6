"""FMLM3's Z_M blocks alone (hw.fermat, M = 2^K + 1): the Multiply Adder's DSPs and LUTs per
DSP profile on its device (Yosys, no place and route), and the transform's shift operators.

    PYTHONPATH=src python3 benchmarks/fermat_blocks.py [-o benchmarks/fermat_blocks.md]

About a minute a row. DSP counts are deterministic (tests/hw/test_fermat_synth.py asserts them).
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

from amaranth.back import verilog

from modforge.hw.butterfly import ShiftButterfly
from modforge.hw.dsp import DSP_PROFILES, karatsuba_dsps
from modforge.hw.fermat import MulAdd, PowerMul
from modforge.synth.yosys import block_cells

sys.path.insert(0, str(Path(__file__).parent))
from _compare import run_measured  # noqa: E402

DEVICE = {"dsp48e2": "xcup", "dsp48e1": "xc7", "ecp5": "ecp5"}


def counts(block, ports, target: str) -> dict:
    """LUT, FF, DSP of one block synthesized alone."""
    text = verilog.convert(block, ports=ports, name="top", strip_internal_attrs=True)
    with tempfile.TemporaryDirectory() as tmp:
        cells = block_cells(text, target, Path(tmp))
    lut = sum(v for k, v in cells.items() if re.fullmatch(r"LUT\d|INV", k) or k in ("LUT4", "CCU2C"))
    ff = sum(v for k, v in cells.items() if k.startswith(("FD", "TRELLIS_FF")))
    dsp = sum(v for k, v in cells.items() if k.startswith(("DSP48", "MULT18X18")))
    return {"lut": lut, "ff": ff, "dsp": dsp}


def mul_add(K: int, profile: str) -> dict:
    ma = MulAdd(K, DSP_PROFILES[profile])
    return counts(ma, [ma.a, ma.b, ma.c, ma.o], DEVICE[profile])


def report() -> list[str]:
    rows = ["| block | K | profile | target | DSP (plan) | DSP | LUT | FF |", "|---|---|---|---|---|---|---|---|"]
    for K, profiles in ((64, ("dsp48e2", "dsp48e1", "ecp5")), (128, ("dsp48e2",))):
        for profile in profiles:
            r = mul_add(K, profile)
            rows.append(f"| MulAdd | {K} | {profile} | {DEVICE[profile]} | {karatsuba_dsps(K, DSP_PROFILES[profile])} "
                        f"| {r['dsp']} | {r['lut']:,} | {r['ff']:,} |")
            print(rows[-1], file=sys.stderr)
    pm = PowerMul(64, sqrt2=True)
    bf = ShiftButterfly(64, sqrt2=True)
    for name, block, ports in (("PowerMul sqrt2", pm, [pm.a, pm.ctrl, pm.o]),
                               ("ShiftButterfly sqrt2", bf, [bf.u, bf.v, bf.ctrl, bf.o0, bf.o1])):
        r = counts(block, ports, "xcup")
        rows.append(f"| {name} | 64 | - | xcup | 0 | {r['dsp']} | {r['lut']:,} | {r['ff']:,} |")
        print(rows[-1], file=sys.stderr)
    return rows + ["", "ecp5 LUT: LUT4 + CCU2C cells after synth_ecp5 (no packing); xc7/xcup: LUT1-6."]


if __name__ == "__main__":
    sys.exit(run_measured(__doc__, "FMLM3's Z_M blocks alone (hw.fermat)", report))
