"""Named moduli: NIST binary fields, the survey's GF(3^m) fields, and the
reduction-free paper's trinomial families; resolve_modulus turns a spec into
a polynomial tuple (low degree first).
"""

from __future__ import annotations

from . import poly as P
from .irreducible import lowest_weight_irreducible

__all__ = [
    "NIST_BINARY", "GF3_PAPER", "GF3_EXAMPLE", "PAPER", "rft", "type1", "type2",
    "SPECS", "resolve_modulus",
]

# FIPS 186-4 binary-field reduction polynomials (also used by the survey).
NIST_BINARY: dict[int, str] = {
    163: "x^163+x^7+x^6+x^3+1",
    233: "x^233+x^74+1",
    283: "x^283+x^12+x^7+x^5+1",
    409: "x^409+x^87+1",
    571: "x^571+x^10+x^5+x^2+1",
}

# The survey's pairing-friendly GF(3^m) polynomials (Section 4).
GF3_PAPER: dict[int, str] = {
    97: "x^97+x^16-1",
    167: "x^167+x^92-1",
    193: "x^193+x^64-1",
    239: "x^239+x^26-1",
}

# The survey's worked example F_{3^11} = F_3[x]/(x^11 + 2x^8 + 1) (Section 2).
GF3_EXAMPLE = "x^11+2x^8+1"

# spec 'paper': per characteristic, degree -> expression
PAPER: dict[int, dict[int, str]] = {
    2: NIST_BINARY,
    3: {11: GF3_EXAMPLE, **GF3_PAPER},
}


def _trinomial2(n: int, k: int, name: str) -> tuple:
    if not 0 < k < n:
        raise ValueError(
            f"spec {name!r}: degree {n} gives middle exponent {k}, which must lie "
            f"strictly between 0 and {n} (degree must be >= 2)")
    f = [0] * (n + 1)
    f[0] = f[k] = f[n] = 1
    return tuple(f)


def rft(n: int) -> tuple:
    """Reduction-free trinomial x^n + x^ceil(n/2) + 1 over GF(2)."""
    return _trinomial2(n, (n + 1) // 2, "rft")


def type1(n: int) -> tuple:
    """Special trinomial type 1: x^n + x^floor(n/2) + 1 over GF(2)."""
    return _trinomial2(n, n // 2, "type1")


def type2(n: int) -> tuple:
    """Special trinomial type 2: x^n + x + 1 over GF(2)."""
    return _trinomial2(n, 1, "type2")


SPECS = ("nist", "paper", "rft", "type1", "type2", "auto")


def resolve_modulus(p: int, degree: int, spec: str) -> tuple:
    """Modulus tuple for GF(p)[x]/(f), deg f = degree, from spec.

    spec: 'nist' (p=2), 'paper' (NIST list for p=2, the survey's list for p=3),
    'rft' / 'type1' / 'type2' (p=2), 'auto' (lowest-weight irreducible), or an
    explicit monic polynomial of that degree such as 'x^97+x^16-1'.
    Irreducibility is not required here (see irreducible.structure).
    """
    if not P.is_prime_small(p):
        raise ValueError(f"resolve_modulus: p must be a prime, got {p!r}")
    if not isinstance(degree, int) or isinstance(degree, bool) or degree < 1:
        raise ValueError(f"resolve_modulus: degree must be an integer >= 1, got {degree!r}")
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(
            f"resolve_modulus: spec must be one of {', '.join(SPECS)} or a polynomial "
            f"expression, got {spec!r}")
    key = spec.strip().lower()
    if key in ("nist", "paper"):
        if key == "nist" and p != 2:
            raise ValueError(f"resolve_modulus: spec 'nist' is only defined for p = 2, got p = {p}")
        if key == "paper" and p not in PAPER:
            raise ValueError(
                f"resolve_modulus: spec 'paper' is only defined for p = "
                f"{' or '.join(map(str, PAPER))}, got p = {p}")
        table = NIST_BINARY if key == "nist" else PAPER[p]
        if degree not in table:
            allowed = ", ".join(map(str, sorted(table))) or "none"
            raise ValueError(
                f"resolve_modulus: spec {key!r} has no polynomial of degree {degree} "
                f"for p = {p} (available degrees: {allowed})")
        return P.parse_poly(table[degree], p)
    if key in ("rft", "type1", "type2"):
        if p != 2:
            raise ValueError(f"resolve_modulus: spec {key!r} is only defined for p = 2, got p = {p}")
        return {"rft": rft, "type1": type1, "type2": type2}[key](degree)
    if key == "auto":
        return lowest_weight_irreducible(p, degree)
    try:
        f = P.parse_poly(spec, p)
    except ValueError as e:
        raise ValueError(
            f"resolve_modulus: spec {spec!r} is neither one of {', '.join(SPECS)} "
            f"nor a valid polynomial ({e})") from None
    if P.degree(f) != degree:
        raise ValueError(
            f"resolve_modulus: polynomial {spec!r} has degree {P.degree(f)}, "
            f"expected degree {degree}")
    if f[-1] != 1:
        raise ValueError(
            f"resolve_modulus: polynomial {spec!r} is not monic over GF({p}) "
            f"(leading coefficient {f[-1]}, must be 1)")
    return f
