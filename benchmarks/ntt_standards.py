"""The standards' rings (ML-KEM, ML-DSA, Falcon) as NTT profiles, from a sweep database:
each profile's NTT and polynomial product at 1, 2, 4 and 8 butterflies, and for ML-KEM the
open hand-written multiplier and the fast-filter multipliers at q = 3329 beside them.

    modforge explore sweeps/ntt_standards.toml --db standards.sqlite --workers 2
    python3 benchmarks/ntt_standards.py --db standards.sqlite [-o benchmarks/ntt_standards.md]

Counts (LUT, FF, DSP48E2, BRAM in RAMB36 units) are Yosys's on xcup; Fmax is nextpnr's on
ECP5 (with its own LUT count). Cycles are the algorithm's formula, which the sweep's
verification checked against the simulated count: the forward NTT's compute cycles C, the
product's (NTT(a), NTT(b), base case or pointwise, NTT^-1), a fast filter's per
multiplication. LUT x cycles and ATP (ECP5 LUT x us) compare designs of different
parallelism.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _compare import done_records, fmt, run, synth_failures  # noqa: E402
from modforge.registry import lookup  # noqa: E402

#: the open hand-written ML-KEM multiplier (FIPS 203 NTT, base case and NTT^-1, bit-exact
#: against kyber-py) measured in modforge's flow, as issue 36 quotes it: butterflies ->
#: (LUT, FF, DSP, BRAM36 (4 RAMB18 = 2), ECP5 MHz, cycles per NTT, per base-case
#: multiplication (not quoted at 4), per product)
PEER = {1: (1202, 527, 1, 2.0, 87.5, 905, 648, 3363), 4: (3358, 1021, 4, 8.0, 84.1, 233, None, 868)}
NAMES = {"ntt-forward": "NTT", "ntt-basemul": "base case", "ntt-polymul": "product", "ntt-commands": "commands"}


def cycles(r: dict) -> int:
    """The design's compute cycles per NTT or per product (its formula)."""
    alg = lookup(r["algorithm"])
    return alg.cycles(alg.parse({k: str(v) for k, v in r["params"].items()}))


def luts(r: dict | None) -> int | None:
    """LUTs as logic plus LUTs as RAM (the coefficient banks and twiddle ROMs; the peer's
    sit in block RAM)."""
    if not r or not r["lut"]:
        return None
    return r["lut"] + ((r["metrics"] or {}).get("lutram") or 0)


def variant(r: dict) -> str:
    """The registers and twiddle memory a record was built with ("" for none). Records from
    before a parameter existed lack it and had its old behaviour: no register (the command
    core: read_register=1 from its start), twiddle ROMs left to the tools."""
    p = r["params"]
    rreg = int(p.get("read_register", 1 if r["algorithm"] == "ntt-commands" else 0))
    memory = p.get("twiddle_memory", "any")
    block = memory == "block" or (memory == "auto" and rreg == 1)
    ureg = int(p.get("unit_register", 0))
    return ", ".join(what for what, on in (("read_register=1", rreg), ("unit_register=1", ureg),
                                           ("twiddles in block RAM", block), ("twiddles in LUTs", memory == "lut"))
                     if on)


def key(r: dict) -> tuple:
    """(profile, algorithm, P, small, variant)."""
    p = r["params"]
    return (p.get("profile", f"q={p.get('q')}"), r["algorithm"], int(p.get("pe", p.get("M", 1))),
            int(p.get("small", 0)), variant(r))


def rows_of(records: list[dict]) -> dict[tuple, dict[str, dict]]:
    """key -> target -> the latest record."""
    out: dict[tuple, dict[str, dict]] = {}
    for r in records:
        out.setdefault(key(r), {})[r["target"]] = r
    return out


def table(by: dict[tuple, dict[str, dict]], profile: str) -> list[str]:
    lines = [f"### {profile}", "",
             "| design | P | LUT | LUTRAM | FF | DSP | BRAM36 | ECP5 LUT | ECP5 MHz | cycles | (LUT + LUTRAM) x cycles "
             "(xcup) | ATP (ECP5 LUT x us) |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for k in sorted(x for x in by if x[0] == profile):
        x, e = by[k].get("xcup"), by[k].get("ecp5")
        r = x or e
        assert r is not None
        c = cycles(r)
        m = (x or {}).get("metrics") or {}
        fmax = e["fmax_mhz"] if e else None
        atp = e["lut"] * c / fmax if e and fmax and e["lut"] else None
        name = NAMES.get(k[1], k[1] + (f" small={k[3]}" if k[3] else "")) + (f" ({k[4]})" if k[4] else "")
        all_luts = luts(x)
        lines.append(f"| {name} | {k[2]} | {fmt(x and x['lut'])} | {fmt(m.get('lutram'))} | {fmt(x and x['ff'])} "
                     f"| {fmt(x and x['dsp'])} | {fmt(m.get('bram'))} | {fmt(e and e['lut'])} | {fmt(fmax)} "
                     f"| {fmt(c)} | {fmt(all_luts * c if all_luts else None)} | {fmt(atp, 0)} |")
    return lines


def ours_pe(algorithm: str, butterflies: int) -> tuple[int, ...]:
    """Our P beside the peer's butterflies: the same, and P = 2 beside one for the products
    (the base case needed P >= 2 until P = 1 had it)."""
    return (1,) if algorithm == "ntt-forward" and butterflies == 1 else (1, 2) if butterflies == 1 else (butterflies,)


def peer_comparison(by: dict[tuple, dict[str, dict]]) -> list[str]:
    """ML-KEM against the hand-written multiplier: the issue's targets (DSP at most its, Fmax
    at least its, LUT x cycles at most 0.8x) at 1 and 4 butterflies; P = 2 stands beside its
    1-butterfly product too (products measured before P = 1 had the base case)."""
    lines = ["### ML-KEM beside the open hand-written multiplier (its figures in modforge's flow)", "",
             "| peer butterflies | what | ours P | LUT + LUTRAM ours / LUT peer | DSP ours/peer | BRAM36 ours/peer "
             "| ECP5 MHz ours/peer | cycles ours/peer | LUT x cycles ours/peer |",
             "|---|---|---|---|---|---|---|---|---|"]
    for bf, (lut, _ff, dsp, bram, mhz, ntt, base, product) in PEER.items():
        for alg, peer_cycles in (("ntt-forward", ntt), ("ntt-basemul", base), ("ntt-polymul", product)):
            for k in sorted(k for k in by if k[:2] == ("ml-kem", alg) and k[2] in ours_pe(alg, bf) and not k[3]):
                ours_p = k[2]
                x, e = by[k].get("xcup"), by[k].get("ecp5")
                if not x or not peer_cycles:
                    continue
                what = NAMES[alg] + (f" ({k[4]})" if k[4] else "")
                c, ours = cycles(x), luts(x) or 0
                lines.append(f"| {bf} | {what} | {ours_p} | {ours:,}/{lut:,} | {x['dsp']}/{dsp} | "
                             f"{fmt((x['metrics'] or {}).get('bram'))}/{bram} | {fmt(e and e['fmax_mhz'])}/{mhz} | "
                             f"{c:,}/{peer_cycles:,} | {ours * c / (lut * peer_cycles):.2f} |")
    return lines


def command_comparison(by: dict[tuple, dict[str, dict]]) -> list[str]:
    """ntt-commands against the hand-written multiplier, command by command as both run them:
    NTT, base case (MUL), and a product as NTT, NTT, MUL, NTT^-1 on stored polynomials."""
    lines = ["### ML-KEM's command core (ntt-commands, 8 slots) beside the open hand-written multiplier", "",
             "| peer butterflies | ours P | LUT + LUTRAM ours / LUT peer | FF ours/peer | DSP ours/peer | "
             "BRAM36 ours/peer | ECP5 MHz ours/peer | NTT cycles ours/peer | base case ours/peer | product ours/peer "
             "| product LUT x cycles ours/peer | registers, twiddles |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for bf, (lut, ff, dsp, bram, mhz, ntt, base, product) in PEER.items():
        for k in sorted(k for k in by if k[:2] == ("ml-kem", "ntt-commands") and k[2] in ours_pe("", bf) and not k[3]):
            x, e = by[k].get("xcup"), by[k].get("ecp5")
            if not x:
                continue
            alg = lookup("ntt-commands")
            cp = alg.derived(alg.parse({k: str(v) for k, v in x["params"].items()}))
            c_ntt, c_mul = cp.command_cycles(2), cp.command_cycles(4)
            c_prod, ours = 3 * c_ntt + c_mul, luts(x) or 0
            lines.append(f"| {bf} | {k[2]} | {ours:,}/{lut:,} | {x['ff']:,}/{ff:,} | {x['dsp']}/{dsp} | "
                         f"{fmt((x['metrics'] or {}).get('bram'))}/{bram} | {fmt(e and e['fmax_mhz'])}/{mhz} | "
                         f"{c_ntt}/{ntt} | {c_mul}/{fmt(base)} | {c_prod:,}/{product:,} | "
                         f"{ours * c_prod / (lut * product):.2f} | {k[4]} |")
    return lines


def report(db: Path) -> list[str]:
    by = rows_of(done_records(db))
    out = ["# The standards' rings: NTT profiles", "",
           "Generated by `python3 benchmarks/ntt_standards.py --db standards.sqlite` from the sweep "
           "`sweeps/ntt_standards.toml` (reduction K2RED-Shift; xcup: Yosys counts; ECP5: nextpnr, 200 MHz asked). "
           "Cycles are compute cycles per NTT or per product (the designs' formulas, checked in simulation); "
           "the fast-filter rows' are one multiplication's.", ""]
    for profile in ("ml-kem", "q=3329", "ml-dsa", "falcon-512", "falcon-1024"):
        if any(k[0] == profile for k in by):
            out += table(by, profile) + [""]
    out += peer_comparison(by) + [""] + command_comparison(by)
    failed = {(r["algorithm"], str(r["params"]), r["target"]): r for r in synth_failures(db)}
    if failed:
        out += ["", "### Did not synthesize", ""]
        out += [f"- {alg} {params} on {target}: {(r['log_tail'] or r['message'] or '').strip().splitlines()[-2][:200]}"
                for (alg, params, target), r in failed.items()]
    return out


if __name__ == "__main__":
    sys.exit(run(__doc__, report))
