"""FMLM3's Z_M blocks alone (hw.fermat, M = 2^K + 1): the Multiply Adder's DSPs, LUTs, FFs
and carry cells per DSP profile on its device (Yosys, no place and route), its post-route
ECP5 Fmax (nextpnr-ecp5, register to register: MulAdd registers its inputs) at K = 64 and,
short and deep (a stage a Karatsuba level), at K = 128, and the transform's shift operators
(the wide rings' PowerMuls with a rotator of any amount and of the amounts their twiddles
take).

    PYTHONPATH=src python3 benchmarks/fermat_blocks.py [-o benchmarks/fermat_blocks.md]

About a minute a row; the K = 128 place and route about 10 and 15 minutes. DSP counts are
deterministic (tests/hw/test_fermat_synth.py asserts them). One row alone: `counts(...)` /
`mul_add(64, "dsp48e2")`, `mul_add_fmax(64)`.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from modforge.hw.butterfly import ShiftButterfly
from modforge.hw.dsp import DSP_PROFILES, karatsuba_dsps
from modforge.hw.fermat import MulAdd, PowerMul, mul_add_depth, rotation_levels
from modforge.synth.yosys import block_cells, nextpnr_command, yosys_command
from modforge.verilog import to_verilog

sys.path.insert(0, str(Path(__file__).parent))
from _compare import run_measured  # noqa: E402

DEVICE = {"dsp48e2": "xcup", "dsp48e1": "xc7", "ecp5": "ecp5"}
#: (K, c, -v mod c) of rsa-fmlm3's P = 32 rows in sweeps/fmlm3_paper.toml (TransformPlan.shift_amounts):
#: l = 1024 Alg 2 and Alg 3, 2048 Alg 3, 4096 Alg 2
STEPPED = ((96, 3, 1), (128, 4, 3), (224, 7, 2), (288, 9, 4))


def counts(block, ports, target: str) -> dict:
    """LUT, FF, carry cells, DSP of one block synthesized alone."""
    text = to_verilog(block, "top", ports=ports)
    with tempfile.TemporaryDirectory() as tmp:
        cells = block_cells(text, target, Path(tmp))
    lut = sum(v for k, v in cells.items() if re.fullmatch(r"LUT\d|INV", k) or k in ("LUT4", "CCU2C"))
    ff = sum(v for k, v in cells.items() if k.startswith(("FD", "TRELLIS_FF")))
    dsp = sum(v for k, v in cells.items() if k.startswith(("DSP48", "MULT18X18")))
    carry = sum(v for k, v in cells.items() if k in ("CARRY4", "CARRY8", "CCU2C"))
    return {"lut": lut, "ff": ff, "carry": carry, "dsp": dsp}


def mul_add(K: int, profile: str) -> dict:
    ma = MulAdd(K, DSP_PROFILES[profile])
    return counts(ma, [ma.a, ma.b, ma.c, ma.o], DEVICE[profile])


def mul_add_fmax(K: int, deep: bool = False) -> tuple[float, int, int]:
    """(the post-route Fmax in MHz, LUT4, FF) of a MulAdd (ecp5 profile; its stage 1 registers
    its inputs) on an LFE5U-25F, nextpnr-ecp5 seed 1."""
    ma = MulAdd(K, DSP_PROFILES["ecp5"], deep=deep)
    text = to_verilog(ma, "top", ports=[ma.a, ma.b, ma.c, ma.o])
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "top.v").write_text(text)
        (work / "run.ys").write_text("read_verilog top.v\nsynth_ecp5 -top top -json synth.json\n")
        subprocess.run([yosys_command(), "-q", "run.ys"], cwd=work, check=True)
        subprocess.run([nextpnr_command(), "--25k", "--package", "CABGA381", "--out-of-context", "--freq", "200",
                        "--timing-allow-fail", "--seed", "1", "-q", "--json", "synth.json", "--report", "report.json"],
                       cwd=work, check=True, capture_output=True)
        report = json.loads((work / "report.json").read_text())
    cells = report["utilization"]
    return (min(v["achieved"] for v in report["fmax"].values()), cells["TRELLIS_COMB"]["used"],
            cells["TRELLIS_FF"]["used"])


def report() -> list[str]:
    rows = ["| block | K | profile | target | DSP (plan) | DSP | LUT | FF | carry |",
            "|---|---|---|---|---|---|---|---|---|"]
    for K, profiles in ((64, ("dsp48e2", "dsp48e1", "ecp5")), (128, ("dsp48e2",))):
        for profile in profiles:
            r = mul_add(K, profile)
            rows.append(f"| MulAdd | {K} | {profile} | {DEVICE[profile]} | {karatsuba_dsps(K, DSP_PROFILES[profile])} "
                        f"| {r['dsp']} | {r['lut']:,} | {r['ff']:,} | {r['carry']:,} |")
            print(rows[-1], file=sys.stderr)
    pm, plain = PowerMul(64, sqrt2=True), PowerMul(64)
    bf = ShiftButterfly(64, sqrt2=True)
    for name, block, ports in (("PowerMul sqrt2", pm, [pm.a, pm.ctrl, pm.o]),
                               ("PowerMul", plain, [plain.a, plain.ctrl, plain.o]),
                               ("ShiftButterfly sqrt2", bf, [bf.u, bf.v, bf.ctrl, bf.o0, bf.o1])):
        r = counts(block, ports, "xcup")
        rows.append(f"| {name} | 64 | - | xcup | 0 | {r['dsp']} | {r['lut']:,} | {r['ff']:,} | {r['carry']:,} |")
        print(rows[-1], file=sys.stderr)
    # the P = 32 rings' twiddle shifts: any amount, or the amounts c j + {0, offset} alone
    for K, step, offset in STEPPED:
        stepped = PowerMul(K, False, "pm", step, offset)
        for name, block in ((f"PowerMul, any amount ({len(rotation_levels(K))} rotator levels)", PowerMul(K)),
                            (f"PowerMul, amounts {step} j + {{0, {offset}}} "
                             f"({len(rotation_levels(K, step, offset))} levels)", stepped)):
            r = counts(block, [block.a, block.ctrl, block.o], "xcup")
            rows.append(f"| {name} | {K} | - | xcup | 0 | {r['dsp']} | {r['lut']:,} | {r['ff']:,} | {r['carry']:,} |")
            print(rows[-1], file=sys.stderr)
    rows += ["", "| MulAdd on ECP5 | K | stages | Fmax MHz | LUT4 | FF |", "|---|---|---|---|---|---|"]
    for K, deep in ((64, False), (128, False), (128, True)):
        fmax, lut, ff = mul_add_fmax(K, deep)
        rows.append(f"| {'deep' if deep else 'short'} | {K} | {mul_add_depth(K, DSP_PROFILES['ecp5'], deep)} | "
                    f"{fmax:.1f} | {lut:,} | {ff:,} |")
        print(rows[-1], file=sys.stderr)
    return rows + ["", "MulAdd on ECP5: post-route on an LFE5U-25F (nextpnr-ecp5 seed 1, 200 MHz asked, register to "
                       "register), LUT4 and FF after packing (TRELLIS_COMB, TRELLIS_FF). short: the levels above the "
                       "first summed in one stage (with c and the corrections); deep: a stage a level, the root by "
                       "carry-save and carry-select adds (hw.dsp.fast_sum), c and the corrections among its terms.",
                   "",
                   "ecp5 LUT: LUT4 + CCU2C cells after synth_ecp5 (no packing), carry: CCU2C; xc7/xcup: LUT1-6, "
                   "carry: CARRY4/8. Yosys packs DSP48E1 registers on xc7 (fewer FFs there), none on xcup."]


if __name__ == "__main__":
    sys.exit(run_measured(__doc__, "FMLM3's Z_M blocks alone (hw.fermat)", report))
