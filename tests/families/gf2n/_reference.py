"""Shared helpers of the gf2n tests: an independent reference on python-flint."""

import flint


def to_flint(x: int) -> flint.nmod_poly:
    return flint.nmod_poly([(x >> i) & 1 for i in range(max(1, x.bit_length()))], 2)


def from_flint(p: flint.nmod_poly) -> int:
    return sum(int(c) << i for i, c in enumerate(p.coeffs()))


def ref_mulmod(f: int, a: int, b: int, e: int = 0) -> int:
    """A*B*t^-e mod F with python-flint; t^-e is the inverse of t^e mod F (xgcd)."""
    F = to_flint(f)
    prod = (to_flint(a) * to_flint(b)) % F
    if e:
        g, s, _ = to_flint(1 << e).xgcd(F)
        assert g.degree() == 0 and int(g.coeffs()[0]) == 1, "t is not invertible mod F"
        prod = (prod * s) % F
    return from_flint(prod)


def ref_mul(a: int, b: int) -> int:
    return from_flint(to_flint(a) * to_flint(b))

