"""Fully pipelined modular multipliers for NTT primes: Montgomery, Barrett, Plantard, WLM,
WLM-Mixed, K2RED, K2RED-Shift, Montgomery-Shift (ntt-modular-reduction-wlm-k2red.txt with
errata.md). Importing registers them."""

from . import algorithms  # noqa: F401  (registers modmul-*)
