"""Reproduce the prime-count and "max log n" columns of Tables 2, 3 (and 4) of the NTT
modular-reduction paper with modforge.math.primes, and time each count.

    PYTHONPATH=src python3 benchmarks/primes_count.py [--skip-big] [-o benchmarks/primes_count.md]

"ours" columns are computed here; "paper" columns are the printed figures. Counting rules
(docs/corrections.md#prime-counts, #max-log-n): Proth-l primes are distinct prime values; Table 3's families are
q = q_h 2^omega + 1, omega = beta - log q_h, q_h of exactly log q_h bits (odd or even);
"max log n" is the largest log n <= 16 with ceil(log q~ / beta) primes having 2n | q-1 (each
prime's real 2-adic valuation). The WLM rows ("*") are not counted (2^46 candidates); their
max log n comes from the same rule by lazy enumeration, and the paper's figure equals
omega - 1 (the family's guaranteed valuation), shown for comparison.
Times are wall-clock seconds on this machine (shared with other jobs: noisy).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

from modforge.math import primes as P

# (table, family, beta, log_qh, paper #primes, paper max log n)
ROWS = [
    ("2/4", "proth3l", 64, 32, 469, ">=16"),
    ("2/4", "proth3l", 64, 17, 53, "16"),
    ("2/4", "proth2l", 64, 32, 16, "15"),
    ("2/4", "proth2l", 64, 17, 5, "13"),
    ("2/4", "proth3l", 32, 16, 95, "16"),
    ("2/4", "proth3l", 32, 15, 80, "16"),
    ("2/4", "proth2l", 32, 16, 7, "13"),
    ("2/4", "proth2l", 32, 15, 7, "13"),
    ("3 WLM-Mixed", "proth", 64, 17, 2986, "16"),
    ("3 WLM-Mixed", "proth", 32, 15, 1540, "16"),
    ("3 K2RED", "proth", 64, 26, 1522110, ">=16"),
    ("3 K2RED", "proth", 64, 32, 97482212, ">=16"),
    ("3 K2RED", "proth", 32, 15, 1540, "16"),
    ("3 K2RED", "proth", 32, 16, 3020, "15"),
] + [("3 WLM", "ntt", 64, lq, "*", str(63 - lq)) for lq in (47, 48, 49, 50, 51)] \
  + [("3 WLM", "ntt", 32, lq, "*", str(31 - lq)) for lq in (15, 16, 17, 18, 19)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip-big", action="store_true", help="skip the 64-bit log q_h = 32 count (~10^8 primes)")
    ap.add_argument("-o", "--out", type=Path)
    args = ap.parse_args()
    lines = [f"Prime counts, {platform.machine()}, {os.cpu_count()} cores; counting kernel: {P.native_status()}",
             "",
             "| table | family | beta | log q_h | # primes (ours) | # primes (paper) | max log n (ours) "
             "| max log n (paper) | omega - 1 | time s (ours) | method |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    for table, kind, beta, lq, paper_n, paper_ml in ROWS:
        fam = P.family(kind, beta, lq)
        if kind == "ntt":
            t0 = time.perf_counter()
            ml, count, method = P.max_log_n(fam), "not counted", "lazy enumeration"
            secs = time.perf_counter() - t0
        elif args.skip_big and fam.candidates() > 1 << 28:
            lines.append(f"| {table} | {kind} | {beta} | {lq} | skipped | {paper_n} | | {paper_ml} | | | |")
            print(lines[-1], flush=True)
            continue
        else:
            r = P.count_family(fam)
            ml, count, method, secs = r.max_log_n, r.count, r.method, r.seconds
        same = "" if paper_n == "*" or count == paper_n else " (differs)"
        line = (f"| {table} | {kind} | {beta} | {lq} | {count}{same} | {paper_n} | {ml} | {paper_ml} "
                f"| {fam.omega - 1} | {secs:.2f} | {method} |")
        lines.append(line)
        print(line, flush=True)
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
