"""Write the Verilog of every registered algorithm's grid configurations into OUT/<alg>/<k>/,
so a refactor can be checked for unchanged hardware: snapshot before and after, then
`diff -r` (only the `//` header lines may differ).

    python3 benchmarks/verilog_snapshot.py OUT [family ...]
"""

import sys
from pathlib import Path

from modforge.design import generate
from modforge.registry import all_algorithms


def main(out: Path, families: set[str]) -> None:
    for alg in all_algorithms():
        if families and alg.family not in families:
            continue
        for k, args in enumerate(alg.grid()):
            directory = out / alg.name / str(k)
            generate(alg, alg.parse(dict(args)), directory)
            (directory / "args.txt").write_text(repr(args) + "\n")
        print(alg.name, len(alg.grid()), flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]), set(sys.argv[2:]))
