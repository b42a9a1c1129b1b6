"""python-flint as the independent reference for tests/math."""

import flint


def fl(a, p):
    """Tuple (low degree first) -> flint nmod_poly."""
    return flint.nmod_poly(list(a), p)


def to_t(g):
    """flint nmod_poly -> trimmed tuple."""
    out = [int(c) for c in g.coeffs()]
    while out and out[-1] == 0:
        out.pop()
    return tuple(out)


def ref_factor_degrees(a, p):
    _, facs = fl(a, p).factor()
    return sorted(g.degree() for g, m in facs for _ in range(m))


def ref_is_irreducible(a, p):
    return flint.fmpz_mod_poly_ctx(p)(list(a)).is_irreducible()
