"""Polynomial-ring multipliers over Z_q[x]/(x^n + 1), q = 2^k: the systolic FIR and the
fast M-parallel filters (Tan et al., docs/references.md). Importing registers them."""

from . import algorithms  # noqa: F401  (registers poly-*)
