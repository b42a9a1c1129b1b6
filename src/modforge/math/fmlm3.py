"""FMLM3: FFT-based Montgomery multiplication under McLaughlin's framework (Dai, Chen,
Cheung, Koc 2017: docs/references.md#dai-2017), with the corrections of docs/corrections.md.

Notation (the paper's Table 1): operands of l = u*P bits as P digits of u bits, B = 2^u,
P = 2^v; R = B^P - 1 (the Montgomery constant), Q' = B^P + 1; transforms of length P over
Z_M, M = 2^(cP) + 1 with c a positive integer or 1/2; omega = 2^(2c) a primitive P-th root
of unity and A = 2^c a primitive P-th root of -1 (for c = 1/2: omega = 2, A = sqrt(2) =
2^(3P/8) - 2^(P/8)). Every twiddle is a power of A, so every product by a twiddle is a
rotation with negation (or, for an odd power of sqrt(2), two of them and a subtraction).

Contents: Z_M arithmetic (`Ring`); CT, CT^-1, NCT, NCT^-1 as constant-geometry stages
(eqs. 7-9: bit-reversed input, natural-order output); Algorithms 2 and 3 (`montgomery_
product`, t = x*y*R^-1 mod N in [0, N)); conversions and a constant-sequence modular
exponentiation kept in the spectral domain; parameter selection (corrected Algorithm 4,
Tables 3, 4 and 6); the cycle formulas of eqs. (28)-(29) and Table 5.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from fractions import Fraction

from ..errors import ParameterError

NAME = "rsa-fmlm3"
HALF = Fraction(1, 2)

# ---------------------------------------------------------------- Z_M, M = 2^K + 1


@dataclasses.dataclass(frozen=True)
class Ring:
    """Z_M with M = 2^K + 1, K = c*P, elements in [0, M). Products by powers of two are
    rotations with negation (2^K = -1 mod M), reductions fold K-bit digits (eq. 18)."""
    K: int
    c: Fraction = Fraction(1)

    @property
    def M(self) -> int:
        return (1 << self.K) + 1

    def fold(self, x: int) -> int:
        """x mod M by eq. (18): x = sum x_i 2^(K*i) = sum (-1)^i x_i (mod M), then one correction."""
        if x < 0:
            return self.neg(self.fold(-x))
        mask, acc, sign = (1 << self.K) - 1, 0, 1
        while x:
            acc += sign * (x & mask)
            x >>= self.K
            sign = -sign
        while acc < 0:
            acc += self.M
        while acc >= self.M:
            acc -= self.M
        return acc

    def neg(self, a: int) -> int:
        return 0 if a == 0 else self.M - a

    def add(self, a: int, b: int) -> int:
        s = a + b
        return s - self.M if s >= self.M else s

    def sub(self, a: int, b: int) -> int:
        s = a - b
        return s + self.M if s < 0 else s

    def mul(self, a: int, b: int) -> int:
        """a*b mod M (the Multiply Adder's Karatsuba product, then the fold)."""
        return self.fold(a * b)

    def mul_pow2(self, a: int, k: int) -> int:
        """a * 2^k mod M for any integer k: 2^(2K) = 1, 2^K = -1, so k mod 2K, and a shift by
        k < K splits into hi*2^K + lo = lo - hi."""
        k %= 2 * self.K
        if k >= self.K:
            a, k = self.neg(a), k - self.K
        shifted = a << k
        return self.sub(shifted & ((1 << self.K) - 1), self.fold(shifted >> self.K))

    def sqrt2(self) -> int:
        """sqrt(2) mod 2^K + 1 = 2^(3K/4) - 2^(K/4) (eq. 14 corrected: corrections.md#fmlm3-sqrt2; K = P/2, c = 1/2):
        (2^(3a) - 2^a)^2 = 2^(6a) - 2^(4a+1) + 2^(2a) = 2 when 2^(4a) = -1."""
        if self.K % 4:
            raise ParameterError(NAME, "c", "c = 1/2 needs sqrt(2) = 2^(3P/8) - 2^(P/8), so P >= 8", self.c)
        return (1 << (3 * self.K // 4)) - (1 << (self.K // 4))

    def mul_sqrt2(self, a: int) -> int:
        """a*sqrt(2) = a*2^(3K/4) - a*2^(K/4) mod M: two rotations and a subtraction."""
        self.sqrt2()  # raises when K is not a multiple of 4
        return self.sub(self.mul_pow2(a, 3 * self.K // 4), self.mul_pow2(a, self.K // 4))

    def mul_A_pow(self, a: int, e: int) -> int:
        """a * A^e mod M with A = 2^c: a shift by c*e bits, and for c = 1/2 and e odd one
        more product by sqrt(2)."""
        if self.c.denominator == 1:
            return self.mul_pow2(a, int(self.c) * e)
        half, odd = divmod(e, 2)
        a = self.mul_pow2(a, half)
        return self.mul_sqrt2(a) if odd else a


# ---------------------------------------------------------------- transforms (eqs. 5-9)


def bit_reverse(values: Sequence[int]) -> list[int]:
    """values permuted by bit-reversed index (the stages' input order)."""
    v = len(values).bit_length() - 1
    return [values[int(format(i, f"0{v}b")[::-1], 2) if v else 0] for i in range(len(values))]


def stage_twiddle(kind: str, P: int, j: int, n: int) -> int:
    """The exponent e of A (twiddle A^e, omega = A^2) of butterfly n of stage j, J = 2^(v-1-j):
    CT eq. (7) omega^(-floor(n/J)J); NCT eq. (8) omega^(-floor(n/J)J + J/2); the inverses
    eq. (9) omega^(floor(n/J)J)."""
    J = P >> (j + 1)
    base = 2 * (n // J) * J
    return {"CT": -base, "NCT": -base + J, "CT^-1": base, "NCT^-1": base}[kind]


def cg_stage(x: Sequence[int], ring: Ring, kind: str, j: int) -> list[int]:
    """One constant-geometry stage: (x_2n, x_2n+1) -> (x_n, x_n+P/2) = x_2n +- x_2n+1 * A^e."""
    P = len(x)
    out = [0] * P
    for n in range(P // 2):
        t = ring.mul_A_pow(x[2 * n + 1], stage_twiddle(kind, P, j, n))
        out[n], out[n + P // 2] = ring.add(x[2 * n], t), ring.sub(x[2 * n], t)
    return out


def _transform(x: Sequence[int], ring: Ring, kind: str) -> list[int]:
    P = len(x)
    if P < 2 or P & (P - 1):
        raise ParameterError(NAME, "P", "must be a power of two >= 2", P)
    y = bit_reverse([ring.fold(a) for a in x])
    for j in range(P.bit_length() - 1):
        y = cg_stage(y, ring, kind, j)
    return y


def ct(x: Sequence[int], ring: Ring) -> list[int]:
    """CT: X_n = sum_k x_k omega^(-kn) mod M (natural order in and out)."""
    return _transform(x, ring, "CT")


def nct(x: Sequence[int], ring: Ring) -> list[int]:
    """NCT: X_n = sum_k x_k A^k omega^(-kn) mod M (the weights folded into eq. 8's twiddles)."""
    return _transform(x, ring, "NCT")


def ct_inv(X: Sequence[int], ring: Ring) -> list[int]:
    """CT^-1: x_n = P^-1 sum_k X_k omega^(kn) mod M; P^-1 = 2^-v is a rotation."""
    v = len(X).bit_length() - 1
    return [ring.mul_pow2(a, -v) for a in _transform(X, ring, "CT^-1")]


def nct_inv(X: Sequence[int], ring: Ring) -> list[int]:
    """NCT^-1: x_n = (A^n P)^-1 sum_k X_k omega^(kn) mod M (eq. 6; for c = 1/2 and n odd a
    product by sqrt(2), eq. 24)."""
    v = len(X).bit_length() - 1
    return [ring.mul_A_pow(ring.mul_pow2(a, -v), -n) for n, a in enumerate(_transform(X, ring, "NCT^-1"))]


def pointwise(X: Sequence[int], Y: Sequence[int], ring: Ring) -> list[int]:
    """X (.) Y mod M, component-wise."""
    return [ring.mul(a, b) for a, b in zip(X, Y, strict=True)]


# ---------------------------------------------------------------- parameters (Sec. 3.2, 4.4)


def _c_text(c: Fraction) -> str:
    return "1/2" if c == HALF else str(c)


@dataclasses.dataclass(frozen=True)
class Fmlm3Params:
    """One parameter set {l, v, u, P, B, c, M, omega, A} and the algorithm (2 or 3) it serves.
    `rule` is the inequality that admits it; `selected` says Algorithm 4 (corrected) outputs it."""
    operand_bits: int
    P: int
    u: int
    c: Fraction
    algorithm: int
    rule: str = ""
    selected: bool = False

    @property
    def v(self) -> int:
        return self.P.bit_length() - 1

    @property
    def l_max(self) -> int:
        """The practical maximum operand size u*P (Algorithm 4 step 6)."""
        return self.u * self.P

    @property
    def ring(self) -> Ring:
        return Ring(int(self.c * self.P), self.c)

    @property
    def M(self) -> int:
        return self.ring.M

    @property
    def omega(self) -> int:
        return self.ring.mul_A_pow(1, 2)

    @property
    def A(self) -> int:
        return self.ring.mul_A_pow(1, 1)

    def omega_text(self) -> str:
        return "2" if self.c == HALF else f"2^{2 * self.c}"

    def A_text(self) -> str:
        if self.c == HALF:
            return f"2^{3 * self.P // 8} - 2^{self.P // 8}"
        return f"2^{self.c}"

    def record(self) -> dict:
        return {"l": self.operand_bits, "l_max": self.l_max, "v": self.v, "P": self.P, "u": self.u, "B": f"2^{self.u}",
                "c": _c_text(self.c), "M": f"2^{self.ring.K}+1", "omega": self.omega_text(),
                "A": self.A_text(), "algorithm": self.algorithm, "rule": self.rule, "selected": self.selected}


RULE_ALG2 = "eq. (13): M > 2P(B-1)^2"   # c by eq. (15); makes eq. (12)'s restriction exact
RULE_ALG3 = "eq. (19): M > P^2(B-1)^3"  # c by eq. (20), a ceiling


def smallest_c(bits: int, P: int) -> Fraction:
    """1/2 if bits/P <= 1/2 (and P >= 8, for sqrt(2)), else ceil(bits/P): eqs. (15), (20)
    with eq. 20 a ceiling (docs/corrections.md#fmlm3-eq20); bits = v+2u+1 (Alg 2) or 2v+3u (Alg 3)."""
    if 2 * bits <= P and P >= 8:
        return HALF
    return Fraction(-(-bits // P))


def dynamic_range(P: int, u: int, algorithm: int) -> int:
    """The bound M must exceed: 2P(B-1)^2 (eq. 13, Alg 2) or P^2(B-1)^3 (eq. 19, Alg 3)."""
    B = 1 << u
    return 2 * P * (B - 1) ** 2 if algorithm == 2 else P * P * (B - 1) ** 3


def _powers_of_two(limit: int) -> list[int]:
    return [1 << v for v in range(1, limit.bit_length()) if 1 << v <= limit]


def parameter_sets(operand_bits: int, P: int | None = None) -> list[Fmlm3Params]:
    """Every feasible set for operand size l: for each P = 2^v in [2, l] (or the given P),
    u = ceil(l/P), and both algorithms with their smallest c. Algorithm 4 (corrected: step 4
    compares the 1/2-aware c of both rules; step 7 stops after the first c = 1/2) selects, per
    P, Algorithm 3 when its c equals Algorithm 2's, else Algorithm 2."""
    _check_l(operand_bits)
    if P is not None:
        _check_P(operand_bits, P)
    out, stopped = [], False
    for p in _powers_of_two(operand_bits):
        u = -(-operand_bits // p)
        v = p.bit_length() - 1
        c2, c3 = smallest_c(v + 2 * u + 1, p), smallest_c(2 * v + 3 * u, p)
        choice = 3 if c3 == c2 else 2
        if P is None or p == P:
            out.append(Fmlm3Params(operand_bits, p, u, c2, 2, RULE_ALG2, not stopped and choice == 2))
            out.append(Fmlm3Params(operand_bits, p, u, c3, 3, RULE_ALG3, not stopped and choice == 3))
        stopped = stopped or c2 == HALF
    return out


def _check_l(operand_bits: int) -> None:
    if not isinstance(operand_bits, int) or isinstance(operand_bits, bool) or operand_bits < 2:
        raise ParameterError(NAME, "l", "must be an integer >= 2 (Algorithm 4 step 1: P = 2^v from 2 to l)",
                             operand_bits)


def _check_P(operand_bits: int, P: int) -> None:
    if not isinstance(P, int) or P < 2 or P & (P - 1):
        raise ParameterError(NAME, "P", "must be a power of two >= 2", P)
    if P > operand_bits:
        raise ParameterError(NAME, "P", f"must be at most l={operand_bits} (Algorithm 4 step 1)", P)


def check_set(operand_bits: int, P: int, u: int, c: Fraction, algorithm: int) -> Fmlm3Params:
    """A given set, checked: u*P >= l, c = 1/2 or a positive integer (1/2 needs P >= 8),
    and M = 2^(cP)+1 above the algorithm's dynamic range (eq. 13 or eq. 19)."""
    _check_l(operand_bits)
    _check_P(operand_bits, P)
    if algorithm not in (2, 3):
        raise ParameterError(NAME, "algorithm", "must be 2 or 3", algorithm)
    if not isinstance(u, int) or u < 1 or u * P < operand_bits:
        raise ParameterError(NAME, "u", f"must be an integer with u*P >= l (l={operand_bits}, P={P})", u)
    c = Fraction(c)
    if not (c == HALF or (c.denominator == 1 and c >= 1)):
        raise ParameterError(NAME, "c", "must be 1/2 or a positive integer", _c_text(c))
    if c == HALF and P < 8:
        raise ParameterError(NAME, "c", "c = 1/2 needs P >= 8 (A = sqrt(2) = 2^(3P/8) - 2^(P/8), eq. 14)", "1/2")
    params = Fmlm3Params(operand_bits, P, u, c, algorithm, RULE_ALG2 if algorithm == 2 else RULE_ALG3)
    if params.M <= dynamic_range(P, u, algorithm):
        rule = (f"{RULE_ALG2}, without which eq. (12)'s restriction is ambiguous" if algorithm == 2 else RULE_ALG3)
        raise ParameterError(NAME, "c", f"must satisfy {rule} (P={P}, u={u}, M=2^{params.ring.K}+1)", _c_text(c))
    selected = params in [dataclasses.replace(s, selected=False) for s in parameter_sets(operand_bits, P) if s.selected]
    return dataclasses.replace(params, selected=selected)


def max_digit_bits(P: int, c: Fraction, algorithm: int = 2) -> int:
    """The largest u a ring 2^(cP)+1 admits: floor((cP - v - 1)/2) for Alg 2 (Table 3),
    floor((cP - 2v)/3) for Alg 3."""
    v, K = P.bit_length() - 1, int(Fraction(c) * P)
    return (K - v - 1) // 2 if algorithm == 2 else (K - 2 * v) // 3


def fermat_sets(k: int) -> list[Fmlm3Params]:
    """Table 3: the Fermat ring F_k = 2^(2^k)+1 serves P = 2^k with c = 1 (omega = 4, A = 2)
    and P = 2^(k+1) with c = 1/2 (omega = 2, A = sqrt(2)), u = u_max, l = u*P."""
    out = []
    for P, c in ((1 << k, Fraction(1)), (2 << k, HALF)):
        u = max_digit_bits(P, c)
        out.append(Fmlm3Params(u * P, P, u, c, 2, RULE_ALG2))
    return out


# ---------------------------------------------------------------- Montgomery (Algs 1-3)


def to_digits(x: int, u: int, P: int) -> list[int]:
    """x = sum x_i B^i, eq. (1): P digits of u bits (x < B^P)."""
    mask = (1 << u) - 1
    return [(x >> (u * i)) & mask for i in range(P)]


def from_digits(d: Sequence[int], u: int) -> int:
    """sum d_i 2^(u*i) for digits of any size and sign (the accumulator, eqs. 21-22)."""
    return sum(a << (u * i) if a >= 0 else -((-a) << (u * i)) for i, a in enumerate(d))


def redundant_mod_r(g: int, u: int, P: int) -> list[int]:
    """Step 3 of Alg 2, eq. (17): g' = g_H + g_L with g_H = floor(g/2^(uP)), g_L = g mod 2^(uP),
    added digit by digit without carries (digits < 2B-1). g' = g mod R or g mod R + R."""
    low, high = g & ((1 << (u * P)) - 1), g >> (u * P)
    return [a + b for a, b in zip(to_digits(low, u, P), to_digits(high, u, P), strict=True)]


def mod_r(z: int, width: int) -> int:
    """z mod R, R = 2^width - 1, for 0 <= z < 2^(2 width): z_H + z_L, then subtract R if needed."""
    s = (z >> width) + (z & ((1 << width) - 1))
    R = (1 << width) - 1
    return s - R if s >= R else s


def restrict(z: Sequence[int], P: int, u: int, M: int) -> list[int]:
    """Eq. (12): a component z'_n in [0, M) of the sum of two negacyclic convolutions is the
    true z_n if z'_n <= 2(n+1)(B-1)^2, else z'_n - M (z_n >= -2(P-1-n)(B-1)^2)."""
    B = 1 << u
    return [a - M if a > 2 * (n + 1) * (B - 1) ** 2 else a for n, a in enumerate(z)]


@dataclasses.dataclass(frozen=True)
class Spectral:
    """An operand x in the form Algorithm 2 takes: T(x) = CT(x), T'(x) = NCT(x), and the
    parity x mod 2 (steps 15-16 need x0*y0 mod 2; the time-domain x is not used)."""
    lsb: int
    cyclic: tuple[int, ...]
    negacyclic: tuple[int, ...]


@dataclasses.dataclass(frozen=True)
class Montgomery:
    """Everything fixed for one modulus N (the algorithms' inputs): R = B^P - 1, Q' = B^P + 1,
    N' with R*R^-1 - N*N' = 1, 0 < N' < R, and the precomputed spectra T(N'), T'(N)."""
    params: Fmlm3Params
    N: int
    N_prime: int
    R_inv: int
    T_N_prime: tuple[int, ...]
    Tn_N: tuple[int, ...]

    @property
    def R(self) -> int:
        return (1 << self.params.l_max) - 1

    @property
    def Q(self) -> int:
        return (1 << self.params.l_max) + 1


def montgomery(params: Fmlm3Params, N: int) -> Montgomery:
    """The context for modulus N: N odd, 3 <= N < R, gcd(R, N) = 1 (Alg 1's inputs)."""
    R = (1 << params.l_max) - 1
    if not isinstance(N, int) or N < 3 or N % 2 == 0 or N >= R:
        raise ParameterError(NAME, "N", f"must be odd with 3 <= N < R = 2^{params.l_max} - 1", N)
    if math.gcd(N, R) != 1:
        raise ParameterError(NAME, "N", f"must be coprime to R = 2^{params.l_max} - 1 "
                             f"(gcd {math.gcd(N, R)})", N)
    N_prime = (-pow(N, -1, R)) % R
    ring, u, P = params.ring, params.u, params.P
    return Montgomery(params, N, N_prime, pow(R, -1, N), tuple(ct(to_digits(N_prime, u, P), ring)),
                      tuple(nct(to_digits(N, u, P), ring)))


def to_spectral(ctx: Montgomery, x: int) -> Spectral:
    """Steps 18-19: T(x) = CT(x), T'(x) = NCT(x) of the digits of x (x < B^P)."""
    d = to_digits(x, ctx.params.u, ctx.params.P)
    return Spectral(x & 1, tuple(ct(d, ctx.params.ring)), tuple(nct(d, ctx.params.ring)))


def _m_alg2(ctx: Montgomery, X: Spectral, Y: Spectral) -> int:
    """Alg 2 steps 1-7: m = x*y*N' mod R with 4 transforms."""
    p, ring = ctx.params, ctx.params.ring
    g = from_digits(ct_inv(pointwise(X.cyclic, ctx.T_N_prime, ring), ring), p.u)   # steps 1-2
    z0 = redundant_mod_r(g, p.u, p.P)                                               # step 3
    z1 = ct_inv(pointwise(Y.cyclic, ct(z0, ring), ring), ring)                      # steps 4-6
    return mod_r(from_digits(z1, p.u), p.l_max)                                     # step 7


def _m_alg3(ctx: Montgomery, X: Spectral, Y: Spectral) -> int:
    """Alg 3 steps 1-4: m = x*y*N' mod R, the three spectra multiplied at once."""
    p, ring = ctx.params, ctx.params.ring
    z0 = pointwise(X.cyclic, ctx.T_N_prime, ring)                                   # step 1
    z1 = ct_inv(pointwise(Y.cyclic, z0, ring), ring)                                # steps 2-3
    return mod_r(from_digits(z1, p.u), p.l_max)                                     # step 4


def montgomery_product(ctx: Montgomery, X: Spectral, Y: Spectral) -> tuple[int, Spectral]:
    """Algorithm 2 or 3 (params.algorithm): for 0 <= x, y < N, t = x*y*R^-1 mod N, 0 <= t < N,
    R = 2^(uP) - 1; returned in the time domain and as T(t), T'(t).

    m = xyN' mod R makes V = xy + mN = 0 mod R; t = V/R < N^2/R + N < 2N. S = z4 mod Q'
    (z4 = V mod Q' by the negacyclic convolutions); s = -S/2 = V/R mod Q' (R = -2 mod Q');
    t is s or s + Q', the one with the parity of V = x0*y0 + m0*N0 (R odd); then t - N if t >= N."""
    p, ring = ctx.params, ctx.params.ring
    m = (_m_alg2 if p.algorithm == 2 else _m_alg3)(ctx, X, Y)
    Tn_m = nct(to_digits(m, p.u, p.P), ring)                                        # step 8
    z4_spec = [ring.add(a, b) for a, b in zip(pointwise(X.negacyclic, Y.negacyclic, ring),
                                              pointwise(Tn_m, ctx.Tn_N, ring), strict=True)]  # steps 9-11
    z4 = restrict(nct_inv(z4_spec, ring), p.P, p.u, p.M)                            # steps 12-13
    Q = ctx.Q
    S = from_digits(z4, p.u) % Q                                                    # step 14
    s = (2 * Q - S) // 2 % Q if S % 2 == 0 else (Q - S) // 2                        # step 15
    parity = (X.lsb & Y.lsb) ^ (m & ctx.N & 1)
    t = s if s % 2 == parity else s + Q                                             # step 16
    if t >= ctx.N:                                                                  # step 17
        t -= ctx.N
    return t, to_spectral(ctx, t)                                                   # steps 18-19


def montgomery_multiply(ctx: Montgomery, x: int, y: int) -> int:
    """x*y*R^-1 mod N in [0, N) for 0 <= x, y < N (time domain in and out)."""
    return montgomery_product(ctx, to_spectral(ctx, x), to_spectral(ctx, y))[0]


def to_montgomery(ctx: Montgomery, x: int) -> Spectral:
    """x*R mod N as spectra: MontProduct(x, R^2 mod N) = x*R^2*R^-1 (0 <= x < N)."""
    r2 = pow(ctx.R, 2, ctx.N)
    return montgomery_product(ctx, to_spectral(ctx, x), to_spectral(ctx, r2))[1]


def from_montgomery(ctx: Montgomery, X: Spectral) -> int:
    """x from xR mod N: MontProduct(xR, 1) = x mod N."""
    return montgomery_product(ctx, X, to_spectral(ctx, 1))[0]


def modexp(ctx: Montgomery, x: int, e: int, bits: int | None = None) -> int:
    """x^e mod N (0 <= x < N, e >= 0) by left-to-right square-and-multiply-always over `bits`
    exponent bits (default e's length): every bit squares and multiplies (by xR or by 1R),
    so the sequence is 2*bits + 2 products whatever e's bits; the accumulator stays as
    spectra T(t), T'(t) between products (Algorithm 2's input and output)."""
    bits = e.bit_length() if bits is None else bits
    if e < 0 or e.bit_length() > bits:
        raise ParameterError(NAME, "e", f"must be a non-negative integer of at most {bits} bits", e)
    x_bar = to_montgomery(ctx, x)
    one_bar = to_spectral(ctx, ctx.R % ctx.N)
    acc = one_bar
    for i in reversed(range(bits)):
        _, acc = montgomery_product(ctx, acc, acc)
        _, acc = montgomery_product(ctx, acc, x_bar if (e >> i) & 1 else one_bar)
    return from_montgomery(ctx, acc)


# ---------------------------------------------------------------- cycles (Sec. 5.5, Table 5)

TRANSFORMS = {2: {"CT": 2, "CT^-1": 2, "NCT": 2, "NCT^-1": 1},   # Table 5's counts (Alg 2: 7)
              3: {"CT": 1, "CT^-1": 1, "NCT": 2, "NCT^-1": 1}}   # Alg 3: steps 3, 8, 12, 18, 19


def stage_cycles(P: int, butterflies: int) -> int:
    """Eq. (28): a non-final stage takes max(P/(2n), 11 + P/(4n)) cycles (n butterflies;
    P/(4n) rounded up, as Table 5's n = P/2 estimates need)."""
    return max(P // (2 * butterflies), 11 + -(-P // (4 * butterflies)))


def final_stage_cycles(kind: str, P: int, butterflies: int, sqrt2: bool) -> int:
    """Sec. 5.5: CT 11 + P/(2n); CT^-1 14 + P/2; NCT 11 + P/(2n), NCT^-1 16 + P/2, each
    +2 when A = sqrt(2)."""
    n = butterflies
    base = {"CT": 11 + P // (2 * n), "CT^-1": 14 + P // 2, "NCT": 11 + P // (2 * n), "NCT^-1": 16 + P // 2}[kind]
    return base + (2 if sqrt2 and kind.startswith("NCT") else 0)


def transform_cycles(kind: str, P: int, butterflies: int = 1, sqrt2: bool = False) -> int:
    """Eq. (29): (v-1) non-final stages and the final one. Table 5's P = 32, n = 1 entries
    are one cycle more than this (docs/corrections.md#fmlm3-table5)."""
    v = P.bit_length() - 1
    return (v - 1) * stage_cycles(P, butterflies) + final_stage_cycles(kind, P, butterflies, sqrt2)


def segment_digits(params: Fmlm3Params) -> int:
    """Digits per cycle of the time-domain units: 4 (4u-bit segments) when 4u < cP + 2, else 2."""
    return 4 if 4 * params.u < params.ring.K + 2 else 2


def multiplication_cycles(params: Fmlm3Params, butterflies: int = 1, delta_ma: int = 0) -> int:
    """One multiplication as Table 5's operations summed, run one after another: the
    transforms (7 for Alg 2, 5 for Alg 3), 4 component-wise multiply-adds (delta_ma + P + 3
    each; delta_ma is eq. 26's pipeline depth), time-domain additions and subtractions
    (7 for Alg 2, 6 for Alg 3: P/s + 6 each, s digits a cycle) and one halving (P/s + 5).
    An estimate without the overlaps of Sec. 5.4 (Table 6's counts are measured)."""
    P, s = params.P, segment_digits(params)
    sqrt2 = params.c == HALF
    total = sum(k * transform_cycles(kind, P, butterflies, sqrt2) for kind, k in TRANSFORMS[params.algorithm].items())
    adds = 7 if params.algorithm == 2 else 6
    return total + 4 * (delta_ma + P + 3) + adds * (P // s + 6) + (P // s + 5)
