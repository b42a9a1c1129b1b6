"""Synthesis with open tools; each run yields one metrics record (see metrics.py)."""

from .liberty import ensure_liberty
from .metrics import Metrics
from .yosys import DEFAULT_FREQ_MHZ, TARGETS, check, synthesize

__all__ = ["DEFAULT_FREQ_MHZ", "TARGETS", "Metrics", "check", "ensure_liberty", "synthesize"]
