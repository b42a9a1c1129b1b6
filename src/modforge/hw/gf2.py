"""GF(2)[t] arithmetic in hardware on packed polynomials (bit i = coefficient of t^i).

Contract: `const_mul(x, c)` is the carry-less product x(t) * c(t) for a generation-time
constant c, a fixed XOR network of len(x) + deg c bits (Const(0, 1) for c = 0).
"""

from __future__ import annotations

from amaranth.hdl import Const, Value


def const_mul(x: Value, const: int) -> Value:
    """x * const in GF(2)[t] for a constant polynomial: xor of x << j over const's set bits."""
    terms = [x << j for j in range(const.bit_length()) if (const >> j) & 1]
    if not terms:
        return Const(0, 1)
    acc = terms[0]
    for t in terms[1:]:
        acc = acc ^ t
    return acc
