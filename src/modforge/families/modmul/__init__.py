"""Fully pipelined modular multipliers for NTT primes: Montgomery, Barrett, Plantard, WLM,
WLM-Mixed, K2RED, K2RED-Shift, Montgomery-Shift (Tosun et al.,
docs/references.md; corrections in docs/corrections.md); and the 128- to 1024-bit field
multipliers for elliptic curves and zero knowledge (wide.py: Montgomery, Barrett,
pseudo-Mersenne, Solinas). Importing registers them."""

from . import algorithms, wide  # noqa: F401  (registers modmul-*)
