"""Negacyclic NTT cores with P butterfly units around the modmul reductions: ntt-forward,
ntt-inverse, ntt-polymul (Tosun et al., docs/references.md). Importing registers them."""

from . import algorithms  # noqa: F401  (registers ntt-*)
