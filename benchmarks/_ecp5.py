"""What timing_calibration.py and target_mhz.py share: one ECP5 place and route of a design
through modforge's synthesis flow (synth.yosys.synthesize_cached: synth_ecp5, then nextpnr-ecp5
at FREQ_MHZ), kept in a run folder so the calibration's runs serve the sweep too (the synthesis
cache's key holds a digest of modforge's synthesis code, so a changed timing.py would miss it)."""

from __future__ import annotations

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


def place_and_route(algorithm: str, params: dict[str, str], root: Path = ROOT) -> tuple[Design, Metrics]:
    """The design of `params` and its ECP5 record; the run folder root/<module> keeps
    synth/ecp5/{synth.json,report.json} and metrics.json (reused when present)."""
    alg = lookup(algorithm)
    p = alg.parse(params)
    folder = root / alg.plan(p).module
    design = generate(alg, p, folder)
    saved = folder / "metrics.json"
    if saved.is_file() and (folder / "synth" / "ecp5" / "report.json").is_file():
        return design, Metrics(**json.loads(saved.read_text()))
    metrics, _ = synthesize_cached(design, "ecp5", FREQ_MHZ, cache=False)
    if not metrics.ok:
        raise RuntimeError(metrics.message)
    saved.write_text(json.dumps(metrics.as_dict(), sort_keys=True))
    return design, metrics
