"""The standards' rings as NTT profiles: each fixes q, n, the root of unity and how many
layers the transform stops early, so a core computes exactly the standard's NTT (its twiddle
order, its bit-reversed output, its inverse's scaling), not merely "an" NTT of the ring.

Citations: docs/references.md#fips-203, #fips-204, #falcon-1.2.

- ml-kem (FIPS 203, Sec. 4.3): q = 3329 = 13 2^8 + 1, n = 256, zeta = 17, a primitive 256th
  root: no 512th root exists, so the NTT stops one layer early (incomplete=1) and leaves 128
  residues mod x^2 - zeta^(2 BitRev7(i) + 1), multiplied by BaseCaseMultiply; the inverse
  carries 128^-1 = 3303.
- ml-dsa (FIPS 204, Sec. 7.5): q = 8380417 = 2^23 - 2^13 + 1, n = 256, zeta = 1753, a primitive
  512th root: the complete NTT; the inverse carries 256^-1 = 8347681.
- falcon-512, falcon-1024 (the Falcon specification v1.2 and its reference code's mq_NTT,
  vrfy.c): q = 12289, n = 512 or 1024, the complete NTT with psi = g^(1024/n), g = 7 a
  primitive 2048th root mod q (psi = 49 for n = 512, 7 for n = 1024).

Every one of these is this family's transform with the profile's psi: forward out[i] =
a(psi^(2 bitrev(i) + 1)) for the complete NTT, block i of 2^k coefficients = a mod
(x^(2^k) - psi^(2 bitrev(i) + 1)) for incomplete=k (bitrev over log2(n) - k bits): the
standards' Algorithms 9 and 41 and mq_NTT are these loops with zetas[m] = psi^bitrev(m)."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Profile:
    q: int
    n: int
    psi: int           # a primitive 2n/2^incomplete-th root of unity mod q
    incomplete: int    # the layers the transform stops early: base-case polynomials of degree 2^incomplete
    standard: str


PROFILES = {
    "ml-kem": Profile(3329, 256, 17, 1, "FIPS 203 (ML-KEM), Algorithms 9-12"),
    "ml-dsa": Profile(8380417, 256, 1753, 0, "FIPS 204 (ML-DSA), Algorithms 41-42"),
    "falcon-512": Profile(12289, 512, 49, 0, "Falcon v1.2, the reference code's mq_NTT (g = 7)"),
    "falcon-1024": Profile(12289, 1024, 7, 0, "Falcon v1.2, the reference code's mq_NTT (g = 7)"),
}
