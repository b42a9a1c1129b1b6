"""rsa-montgomery on xcup (Yosys synth_xilinx, modforge's flow) against issue 22's reference
hand-written multipliers, measured in the same flow: LUT, LUT-RAM/SRL, FF, DSP, BRAM and the
cycles of one multiplication, with our figure / the reference's.

    PYTHONPATH=src python3 benchmarks/rsa_montgomery.py [-o benchmarks/rsa_montgomery.md]

Each point is `modforge synth rsa-montgomery ... --target xcup` (a few minutes in all).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _compare import run_measured  # noqa: E402

# (name, LUT, LUT-RAM/SRL, FF, DSP, cycles) as the issue gives them
REFERENCES = {
    "radix-2": ("radix-2 word-serial, 32-bit words, l = 1024", 209, None, 66, 0, 109_894),
    "sys1024": ("systolic 32x32-bit PEs, l = 1024, 16 PEs", 4552, 1808, 6112, 64, 1508),
    "sys2048": ("systolic 32x32-bit PEs, l = 2048, 16 PEs", 3506, 2512, 5115, 64, 3626),
    "sys2048x32": ("systolic 32x32-bit PEs, l = 2048, 32 PEs", None, None, None, None, 2980),
}
POINTS = [("l=1024 pe=1", "radix-2"), ("l=1024 pe=16", "sys1024"), ("l=2048 pe=16", "sys2048"),
          ("l=2048 pe=32", "sys2048x32"), ("l=1024 w=32 pe=16", "sys1024")]
LUTRAM = {"RAM32M16": 8, "RAM64M8": 8, "RAM32M": 4, "RAM64M": 4, "RAM32X1D": 2, "RAM64X1D": 2, "RAM128X1D": 4,
          "RAM256X1D": 8, "SRL16E": 1, "SRLC32E": 1}


def measure(args: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([sys.executable, "-m", "modforge", "synth", "rsa-montgomery", *args.split(),
                              "--target", "xcup", "--json", "--no-cache", "-o", tmp],    # it reads stat.txt
                             capture_output=True, text=True, check=True)
        record = json.loads(out.stdout)
        stat = (Path(tmp) / "synth" / "xcup" / "stat.txt").read_text()
    top = stat.split("=== design hierarchy ===")[-1]          # the whole design's cell counts
    record["lutram"] = sum(LUTRAM[name] * int(n) for n, name in re.findall(r"(\d+)\s+(\w+)", top) if name in LUTRAM)
    return record


def ratio(ours, theirs) -> str:
    return f"{ours / theirs:.2f}" if ours is not None and theirs else "-"


def report() -> list[str]:
    rows = ["| ours | LUT | LUT-RAM/SRL | FF | DSP | BRAM | cycles | reference | LUT | FF | cycles |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for args, ref in POINTS:
        r = measure(args)
        name, lut, _ram, ff, _dsp, cycles = REFERENCES[ref]
        word = re.search(r"_w(\d+)_", r["top"])
        rows.append(f"| {args} (w={word.group(1) if word else '?'}) | {r['lut']:,} | {r['lutram']:,} | {r['ff']:,} | "
                    f"{r['dsp']} | {r['bram']} | {r['cycles']:,} | {name} | {ratio(r['lut'], lut)} | "
                    f"{ratio(r['ff'], ff)} | {ratio(r['cycles'], cycles)} |")
        print(rows[-1], file=sys.stderr)
    return rows + ["", "Ratios are ours / the reference's (below 1: smaller or faster). LUT-RAM/SRL: the LUTs "
                   "of distributed RAMs and shift registers, counted apart from LUT as in the issue."]


if __name__ == "__main__":
    sys.exit(run_measured(__doc__, "rsa-montgomery against issue 22's references (xcup)", report))
