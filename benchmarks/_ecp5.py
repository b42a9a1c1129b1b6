"""What timing_calibration.py and target_mhz.py share: one ECP5 place and route of a design
through modforge's synthesis flow (synth.yosys.synthesize_cached: synth_ecp5, then nextpnr-ecp5
at FREQ_MHZ), kept in a run folder so the calibration's runs serve the sweep too (the synthesis
cache's key holds a digest of modforge's synthesis code, so a changed timing.py would miss it).

wrapped=True places the core behind a register on every input (clk aside): nextpnr's
out-of-context Fmax leaves the paths from input ports untimed, so a core whose first stages are
merged (a mask starting with 0) would show the Fmax of its later stages only; behind registers
its first stage group is timed as in a system. The core keeps its own hierarchy (keep_hierarchy:
Yosys synthesizes it as it does alone, the netlist the model reads; flattened with the registers
it maps the 64-bit a*b adder trees differently, 320 carry cells instead of 233). The record's FF
count leaves those registers out."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from modforge.design import Design, generate
from modforge.registry import lookup
from modforge.synth import Metrics
from modforge.synth.yosys import synthesize_cached

#: the clock every run asks nextpnr for: above what any of these designs reaches, so the
#: timing-driven placer always works on the critical path (and one run serves every target)
FREQ_MHZ = 250.0
ROOT = Path("/tmp/modforge-target-mhz")
WRAPPER = "mf_input_registers"


def wrapper(design: Design) -> tuple[str, int]:
    """A top module `WRAPPER` with the core's ports that registers every input but clk; its
    Verilog and the registers' bits."""
    ports = [(p["name"], p["direction"], p["width"]) for p in design.ports]
    decl = ", ".join(f"{'input' if d == 'in' else 'output'} [{w - 1}:0] {n}" for n, d, w in ports)
    registered = [(n, w) for n, d, w in ports if d == "in" and n != "clk"]
    regs = "".join(f"  reg [{w - 1}:0] {n}_r;\n" for n, w in registered)
    loads = "".join(f"    {n}_r <= {n};\n" for n, _ in registered)
    names = {n for n, _ in registered}
    conns = ", ".join(f".{n}({n}_r)" if n in names else f".{n}({n})" for n, _, _ in ports)
    text = (f"module {WRAPPER} ({decl});\n{regs}  always @(posedge clk) begin\n{loads}  end\n"
            f"  (* keep_hierarchy *) {design.top} core ({conns});\nendmodule\n")
    return text, sum(w for _, w in registered)


def place_and_route(algorithm: str, params: dict[str, str], root: Path = ROOT,
                    wrapped: bool = False) -> tuple[Design, Metrics]:
    """The design of `params` and its ECP5 record; the run folder root/<module> (wrapped:
    root/wrapped/<module>) keeps synth/ecp5/{synth.json,report.json} and metrics.json (reused
    when present)."""
    alg = lookup(algorithm)
    p = alg.parse(params)
    folder = (root / "wrapped" if wrapped else root) / alg.plan(p).module
    design = generate(alg, p, folder)
    saved = folder / "metrics.json"
    if saved.is_file() and (folder / "synth" / "ecp5" / "report.json").is_file():
        return design, Metrics(**json.loads(saved.read_text()))
    run, extra = design, 0
    if wrapped:
        text, extra = wrapper(design)
        (folder / f"{WRAPPER}.v").write_text(text)
        run = dataclasses.replace(design, files=[*design.files, f"{WRAPPER}.v"], top=WRAPPER)
    metrics, _ = synthesize_cached(run, "ecp5", FREQ_MHZ, cache=False)
    if not metrics.ok:
        raise RuntimeError(metrics.message)
    if extra and metrics.ff is not None:
        metrics.ff -= extra
        metrics.area = None
        metrics.finish()
    saved.write_text(json.dumps(metrics.as_dict(), sort_keys=True))
    return design, metrics
