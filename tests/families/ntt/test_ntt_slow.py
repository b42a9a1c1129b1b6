"""FHE-sized NTT cores (`pytest -m slow`): n = 4096 and 16384 with WLM-Mixed and
Montgomery-Shift butterflies (one with two buffers, one loading its prime through cfg),
against the model on Verilator and Icarus (3 polynomials: one streamed without stalls,
two with stalls and back-pressure)."""

import pytest

from modforge.registry import lookup
from modforge.sim.runners import SIMULATORS
from modforge.sim.verify import verify

Q = "0x800a000000000001"          # Proth-2l, q = 1 mod 2^49: both reductions, any n here
CONFIGS = [
    ("ntt-polymul", {"q": Q, "n": "4096", "pe": "16", "reduction": "wlm-mixed"}),
    ("ntt-forward", {"q": Q, "n": "4096", "pe": "8", "reduction": "montgomery-shift"}),
    ("ntt-inverse", {"q": Q, "n": "16384", "pe": "16", "reduction": "wlm-mixed"}),
    ("ntt-polymul", {"q": Q, "n": "16384", "pe": "32", "reduction": "montgomery-shift"}),
    ("ntt-forward", {"q": Q, "n": "4096", "pe": "16", "reduction": "wlm-mixed", "buffers": "2"}),
    ("ntt-polymul", {"q": Q, "n": "4096", "pe": "16", "reduction": "montgomery-shift", "twiddles": "load"}),
]


@pytest.mark.slow
@pytest.mark.sim
@pytest.mark.parametrize("simulator", SIMULATORS)
@pytest.mark.parametrize("name,cfg", CONFIGS, ids=[f"{c[0]}-n{c[1]['n']}-{c[1]['reduction']}"
                                             + ("-2buf" if "buffers" in c[1] else "")
                                             + ("-load" if "twiddles" in c[1] else "") for c in CONFIGS])
def test_large_n(tmp_path, name, cfg, simulator):
    alg = lookup(name)
    params = alg.parse(cfg)
    design, [r] = verify(alg, params, tmp_path, 3, [simulator])
    assert r.ok, r.log[-3000:]
    assert r.passed == 3 * design.frame_beats
    assert r.latency == alg.latency(params) and r.initiation_interval == alg.initiation_interval(params)
