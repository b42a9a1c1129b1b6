"""Fully pipelined modular multipliers for NTT primes: Montgomery, Barrett, Plantard, WLM,
WLM-Mixed, K2RED, K2RED-Shift, Montgomery-Shift (Tosun et al.,
docs/references.md; corrections in docs/corrections.md). Importing registers them."""

from . import algorithms  # noqa: F401  (registers modmul-*)
