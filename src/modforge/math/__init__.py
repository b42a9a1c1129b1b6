"""Polynomial arithmetic over GF(p) and GF(2), irreducibility, and modulus presets.

Submodules: poly (tuples, low degree first), gf2 (ints, bit i = x^i),
irreducible (Rabin test, factor degrees, sparse searches), presets (NIST,
GF(3^m) and reduction-free-paper moduli, resolve_modulus).
"""

from . import gf2, irreducible, poly, presets
from .irreducible import factor_degrees, is_irreducible, structure
from .presets import resolve_modulus

__all__ = [
    "gf2", "poly", "irreducible", "presets",
    "is_irreducible", "factor_degrees", "structure", "resolve_modulus",
]
