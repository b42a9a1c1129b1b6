"""Synthesis with open tools; each run yields one metrics record (see metrics.py), kept in
the synthesis cache (cache.py) so the same Verilog is synthesized once."""

from .liberty import ensure_liberty
from .metrics import Metrics
from .yosys import DEFAULT_FREQ_MHZ, TARGETS, check, synthesize, synthesize_cached

__all__ = ["DEFAULT_FREQ_MHZ", "TARGETS", "Metrics", "check", "ensure_liberty", "synthesize", "synthesize_cached"]
