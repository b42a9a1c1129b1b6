"""python-flint as the independent reference for the digit-serial models."""

import random

from flint import nmod_poly


def ref_mulmod(a, b, f, p) -> tuple:
    """a*b mod f over GF(p) by flint, as a trimmed tuple."""
    r = (nmod_poly(list(a), p) * nmod_poly(list(b), p)) % nmod_poly(list(f), p)
    out = [int(c) for c in r.coeffs()]
    while out and out[-1] == 0:
        out.pop()
    return tuple(out)


def flint_irreducible(f, p) -> bool:
    _, facs = nmod_poly(list(f), p).factor()
    return len(facs) == 1 and facs[0][1] == 1 and facs[0][0].degree() == len(f) - 1


def random_irreducible(p: int, m: int, seed: int) -> tuple:
    """A random monic irreducible polynomial of degree m over GF(p), chosen by flint."""
    rng = random.Random(seed)
    while True:
        f = tuple(rng.randrange(p) for _ in range(m)) + (1,)
        if f[0] and flint_irreducible(f, p):
            return f
