"""Negacyclic NTT cores with P butterfly units around the modmul reductions: ntt-forward,
ntt-inverse, ntt-polymul (ntt-modular-reduction-wlm-k2red.txt). Importing registers them."""

from . import algorithms  # noqa: F401  (registers ntt-*)
