"""Bit-exact models of the GF(2)[t]/F(t) multipliers of "Reduction-Free Multiplication for
Finite Fields and Polynomial Rings" (Oliva Madrigal, Saldamli, ..., Koc), with the
corrections of docs/corrections.md.

Conventions: polynomials over GF(2) are Python ints, bit i = coefficient of t^i.
F has degree n; operands A, B have n bits. Every interleaved model below is written the
way the hardware in `hw.py` runs it: a `load` that fills the registers, then exactly
`steps` calls of a per-cycle update, then an output that is a function of the final
registered state only. These functions are therefore the hardware's specification; the
tests check them against python-flint.

Split used by BMM, FIKO and RF-FIKO (Section 5.2 prints t^d; corrections.md#split-point):
    k = n + 1,  r = ceil((k-1)/2) = ceil(n/2),  h = n - r = floor(n/2)
    A = A1*t^r + A0,  B = B1*t^r + B0     (A0, B0: r bits;  A1, B1: h bits)
    F = F1*t^r + F0                       (F0: r bits; F1 = F >> r has degree h)
"""

from __future__ import annotations

from dataclasses import dataclass


def deg(x: int) -> int:
    return x.bit_length() - 1


def mask(w: int) -> int:
    return (1 << w) - 1


def split_point(n: int) -> int:
    """r = ceil((k-1)/2) = ceil(n/2), k = n + 1."""
    return (n + 1) // 2


def shift_xor(q: int, const: int) -> int:
    """q * const for a constant polynomial `const`: the xor of q << j over the set bits j
    of const. This is the shift-and-add network the hardware builds for a product with a
    fixed part of F (Q'*F0, Q*F1, (Q'+Q)*(F0+F1))."""
    acc, j = 0, 0
    while const:
        if const & 1:
            acc ^= q << j
        const >>= 1
        j += 1
    return acc


# ----------------------------------------------------------------------------------------
# Section 3: reductions of a finished product C (Alg 1-3)
# ----------------------------------------------------------------------------------------

def blakely_reduce(c: int, f: int) -> int:
    """Alg 1 (Blakely, left to right). Returns R = C mod F (deg R < n).

    For i = m downto n: if r_i = 1 then R <- R + F*t^(i-n)  (q_(i-n) = r_i)."""
    n = deg(f)
    r = c
    for i in range(deg(c), n - 1, -1):
        if (r >> i) & 1:
            r ^= f << (i - n)
    return r


def montgomery_reduce(c: int, f: int, k: int) -> int:
    """Alg 2 (Montgomery, right to left), k steps. Needs f_0 = 1.

    Returns S = C * t^-k mod F (the printed "Ensure" omits t^-k: corrections.md#reduction-congruences). S is reduced
    (deg S < n) when k >= deg C - n + 1; in general deg S <= max(deg C - k, n - 1).
    Step: q'_i = s_0; S <- (S + q'_i*F) / t."""
    if not f & 1:
        raise ValueError("Montgomery reduction needs f_0 = 1")
    s = c
    for _ in range(k):
        if s & 1:
            s ^= f
        s >>= 1
    return s


def bipartite_reduce(c: int, f: int, m: int | None = None) -> int:
    """Alg 3 (bipartite), for deg C <= m (default m = 2n - 2). Needs f_0 = 1.

    rho = ceil((m - n + 1)/2) iterations (= floor(n/2) for m = 2n - 2). Returns
    S = C * t^-rho mod F with deg S < n (the printed "Ensure" omits t^-rho).
    Written in the unshifted frame (corrections.md#bipartite-order): iteration i clears the top coefficient
    s_(m-i) with F*t^(m-i-n) (Blakely) and then the low coefficient s_i with F*t^i
    (Montgomery); the result is S / t^rho. The Montgomery quotient is read after the
    Blakely update of the same iteration: for even n the last Blakely term F*t^(m-i-n)
    lands on bit i (m-i-n = i), so quotients taken from the same S (as Alg 3 lines 4-5
    print them) leave bit i set."""
    n = deg(f)
    if not f & 1:
        raise ValueError("bipartite reduction needs f_0 = 1")
    if m is None:
        m = 2 * n - 2
    if deg(c) > m:
        raise ValueError("deg C exceeds m")
    rho = -(-(m - n + 1) // 2)
    s = c
    for i in range(rho):
        if (s >> (m - i)) & 1:        # Blakely: q = s_(m-i)
            s ^= f << (m - i - n)
        if (s >> i) & 1:              # Montgomery: q' = s_i (after the Blakely update)
            s ^= f << i
    assert s & mask(rho) == 0
    return s >> rho


def bipartite_rho(n: int, m: int | None = None) -> int:
    if m is None:
        m = 2 * n - 2
    return -(-(m - n + 1) // 2)


# ----------------------------------------------------------------------------------------
# Section 4: interleaved Blakely, Montgomery and BMM (Alg 4-8)
# ----------------------------------------------------------------------------------------

def blakely_step(r: int, bit: int, b: int, f: int) -> int:
    """One cycle of Alg 4: R <- (R << 1) + a_i*B; if r_n then R <- R + F."""
    n = deg(f)
    r = (r << 1) ^ (b if bit else 0)
    if (r >> n) & 1:
        r ^= f
    return r


def montgomery_step(r: int, bit: int, a: int, f: int) -> int:
    """One cycle of Alg 5: R <- R + b_i*A; if r_0 then R <- R + F; R <- R / t."""
    r ^= a if bit else 0
    if r & 1:
        r ^= f
    return r >> 1


def interleaved_blakely(f: int, a: int, b: int) -> int:
    """Alg 4, n cycles (bit a_i of A per cycle, MSB first). Returns A*B mod F.

    Invariant after the cycle of a_i: R = (A >> i)*B mod F."""
    n = deg(f)
    r = 0                                           # load
    for s in range(n):                              # step s uses a_(n-1-s)
        r = blakely_step(r, (a >> (n - 1 - s)) & 1, b, f)
    return r


def interleaved_montgomery(f: int, a: int, b: int) -> int:
    """Alg 5, n cycles (bit b_i of B per cycle, LSB first). Needs f_0 = 1.
    Returns A*B*t^-n mod F (the paper's 2^-n is t^-n)."""
    n = deg(f)
    if not f & 1:
        raise ValueError("Montgomery needs f_0 = 1")
    r = 0                                           # load
    for s in range(n):                              # step s uses b_s
        r = montgomery_step(r, (b >> s) & 1, a, f)
    return r


@dataclass
class BmmState:
    s: int      # Blakely residue S (n bits)
    t: int      # Montgomery residue T (n bits)
    bh: int     # BH = B >> r, zero-extended to r bits, consumed MSB first (shifts left)
    bl: int     # BL = B mod t^r, consumed LSB first (shifts right)


def bmm_load(f: int, a: int, b: int) -> BmmState:
    n = deg(f)
    r = split_point(n)
    return BmmState(0, 0, b >> r, b & mask(r))


def bmm_step(st: BmmState, f: int, a: int) -> BmmState:
    """One cycle: the ibBlakely (Alg 6) and ibMontgomery (Alg 7) units step in parallel.
    BH has h = floor(n/2) bits; it is zero-extended to r bits so both units take r steps
    (for odd n the first Blakely step sees bh_(r-1) = 0 and leaves S = 0)."""
    n = deg(f)
    r = split_point(n)
    bh_bit = (st.bh >> (r - 1)) & 1
    bl_bit = st.bl & 1
    return BmmState(
        s=blakely_step(st.s, bh_bit, a, f),
        t=montgomery_step(st.t, bl_bit, a, f),
        bh=(st.bh << 1) & mask(r),
        bl=st.bl >> 1,
    )


def bmm_result(st: BmmState) -> int:
    """Alg 8 line 3 corrected (corrections.md#bmm-output): R = S + T, already reduced. (S + T + F, as
    printed, is the unreduced degree-n representative whenever S + T has degree < n.)"""
    return st.s ^ st.t


def bmm(f: int, a: int, b: int) -> int:
    """BMM (Alg 6-8), r = ceil(n/2) cycles. Needs f_0 = 1.

    S = A*BH mod F, T = A*BL*t^-r mod F, result S + T = A*B*t^-r mod F, deg < n."""
    n = deg(f)
    if not f & 1:
        raise ValueError("BMM needs f_0 = 1")
    st = bmm_load(f, a, b)
    for _ in range(split_point(n)):
        st = bmm_step(st, f, a)
    return bmm_result(st)


# ----------------------------------------------------------------------------------------
# Sections 5-6: FIKO (Fig. 1-2) and RF-FIKO (Fig. 4-5, Section 8.2)
# ----------------------------------------------------------------------------------------

@dataclass
class FikoState:
    # static operand registers
    a0: int     # A0 (r bits)
    a1: int     # A1 (h bits)
    b1: int     # B1 (h bits)
    # operand streams (one bit per cycle)
    sa1: int    # A1 zero-extended to r bits, MSB first (shifts left): feeds R1 and C2 (FIKO only)
    sb0: int    # B0, LSB first (shifts right): feeds C0, C1 and R0
    sb1: int    # B1, LSB first (shifts right): feeds C1 (B0 + B1's bit: b0 + b1), RF-FIKO's C2
    # Karatsuba-Ofman products
    c0: int     # A0*B0                 (2r-1 bits)
    c1: int     # (A0+A1)*(B0+B1)       (2r-1 bits)
    c2: int     # A1*B1                 (2h-1 bits)
    # bipartite quotient units (FIKO only; RF-FIKO takes the quotients from C0, C2)
    r1: int = 0  # Blakely residue of A1*B1 mod F1 (h bits)
    q1: int = 0  # Blakely quotient Q = A1*B1 div F1 (shifted in MSB first)
    r0: int = 0  # Montgomery residue (A0*B0 + Q'*F0)/t^j (r-1 bits)
    q0: int = 0  # Montgomery quotient Q' (shifted in LSB first, from bit r-1)


def fiko_load(f: int, a: int, b: int) -> FikoState:
    n = deg(f)
    r = split_point(n)
    a0, a1 = a & mask(r), a >> r
    b0, b1 = b & mask(r), b >> r
    return FikoState(a0=a0, a1=a1, b1=b1, sa1=a1, sb0=b0, sb1=b1,
                     c0=0, c1=0, c2=0)


def fiko_step(st: FikoState, f: int, reduction_units: bool = True) -> FikoState:
    """One cycle of the FIKO core (Fig. 2), step s = 0..r-1.

    C0 and C1 are accumulated LSB first, C <- C/t + b_s*A*t^(r-1) (exact: nothing is
    shifted out), on the streams of B0 and B1: C0 and the Montgomery unit share B0's, and C1's
    bit of B0 + B1 is B0's xor B1's (hw: no stream of B0 + B1). C2 is FIKO's MSB first from
    A1's stream, shared with the Blakely unit, and RF-FIKO's (reduction_units False) LSB first
    from B1's (as wide as C0 then, to be exact), so that RF-FIKO needs no stream of A1. The
    products are those of Fig. 2 (A0*B0, (A0+A1)*(B0+B1), A1*B1)."""
    n = deg(f)
    r = split_point(n)
    h = n - r
    f0, f1 = f & mask(r), f >> r
    a1_bit = (st.sa1 >> (r - 1)) & 1
    b0_bit = st.sb0 & 1
    b1_bit = st.sb1 & 1
    bs_bit = b0_bit ^ b1_bit
    nxt = FikoState(
        a0=st.a0, a1=st.a1, b1=st.b1,
        sa1=(st.sa1 << 1) & mask(r), sb0=st.sb0 >> 1, sb1=st.sb1 >> 1,
        c0=(st.c0 >> 1) ^ ((st.a0 << (r - 1)) if b0_bit else 0),
        c1=(st.c1 >> 1) ^ (((st.a0 ^ st.a1) << (r - 1)) if bs_bit else 0),
        # FIKO: C2 MSB first (Horner) on A1's stream, which its Blakely unit reads too (Fig. 2; when
        # F1 is a monomial, R1 is C2's low part and the tools merge them); RF-FIKO: LSB first on
        # B1's stream, so that it needs no stream of A1
        c2=((st.c2 << 1) ^ (st.b1 if a1_bit else 0)) if reduction_units
        else (st.c2 >> 1) ^ ((st.a1 << (r - 1)) if b1_bit else 0),
    )
    if reduction_units:
        # Blakely unit on A1*B1 with F1: quotient bit = r1_h after the shift-add
        r1 = (st.r1 << 1) ^ (st.b1 if a1_bit else 0)
        q = (r1 >> h) & 1
        nxt.r1 = r1 ^ (f1 if q else 0)
        nxt.q1 = (st.q1 << 1) | q
        # Montgomery unit on A0*B0 with F0: quotient bit = r0_0 after the add
        r0 = st.r0 ^ (st.a0 if b0_bit else 0)
        qp = r0 & 1
        nxt.r0 = (r0 ^ (f0 if qp else 0)) >> 1
        nxt.q0 = (st.q0 >> 1) | (qp << (r - 1))
    return nxt


def fiko_terms(st: FikoState, f: int) -> dict:
    """The bipartite reduction terms and reduced products of Fig. 1 from the final state:
        C0' = C0 + Q'*F0      (low r bits are zero)
        C2' = C2 + Q*F1       (degree < h; equals the Blakely residue R1)
        C1' = C1 + (Q' + Q)*(F0 + F1)
    """
    n = deg(f)
    r = split_point(n)
    f0, f1 = f & mask(r), f >> r
    c0p = st.c0 ^ shift_xor(st.q0, f0)
    c2p = st.c2 ^ shift_xor(st.q1, f1)
    c1p = st.c1 ^ shift_xor(st.q0 ^ st.q1, f0 ^ f1)
    return {"c0p": c0p, "c1p": c1p, "c2p": c2p}


def final_sum(c0p_ur: int, c1p: int, c2p_lr: int, r: int) -> int:
    """Errata's corrected final sum (Section 8.2):
        Sigma = (C0'_UR || C2'_LR) + C1' + (C2'_LR || C0'_UR)
    with r-bit halves. Equivalently W*(t^r + 1) + C1', W = C0'_UR + C2'_LR."""
    return ((c0p_ur << r) | c2p_lr) ^ c1p ^ ((c2p_lr << r) | c0p_ur)


def fiko_result(st: FikoState, f: int) -> int:
    """A*B*t^-r mod F, degree < n (a function of the registered state only).

    Why: with C = C2*t^2r + (C1 + C0 + C2)*t^r + C0 = A*B, the quotients make
    C + Q'*F + Q*F*t^r divisible by t^r and of degree < n + r; expanding F = F1*t^r + F0
    and Q'*F1 + Q*F0 = (Q'+Q)(F0+F1) + Q'*F0 + Q*F1 gives
    (C + Q'F + QFt^r)/t^r = (C0'_UR + C2')*(t^r + 1) + C1'."""
    r = split_point(deg(f))
    t = fiko_terms(st, f)
    return final_sum(t["c0p"] >> r, t["c1p"], t["c2p"] & mask(r), r)


def fiko(f: int, a: int, b: int) -> int:
    """FIKO, r = ceil(n/2) cycles, any F of degree n >= 2 with f_0 = 1.

    Returns A*B*t^-r mod F with degree < n.
    Rule: the Montgomery quotient Q' = C0*F^-1 mod t^r needs f_0 = 1 (only F0 = F mod t^r
    matters); the Blakely quotient Q = (C2*t^r) div F depends only on F's coefficients
    above t^(r+1), so it equals C2 div F1 with F1 = F >> r of degree h = floor(n/2) >= 1
    and leading coefficient 1: always defined. The two quotients are independent because
    Q*F*t^r has no terms below t^r and Q'*F none at or above t^(n+r)."""
    n = deg(f)
    if n < 2 or not f & 1:
        raise ValueError("FIKO needs n >= 2 and f_0 = 1")
    st = fiko_load(f, a, b)
    for _ in range(split_point(n)):
        st = fiko_step(st, f)
    return fiko_result(st, f)


def rft(n: int) -> int:
    """The reduction-free trinomial t^n + t^ceil(n/2) + 1."""
    return (1 << n) | (1 << split_point(n)) | 1


def rffiko_terms(st: FikoState, n: int) -> dict:
    """Section 8.2 for F = t^n + t^r + 1, n odd (F0 = 1, F1 = t^(r-1) + 1, F0+F1 = t^(r-1)):
        Q' = C0_LR,  Q = C2 >> (r-1)                  (quotients without reduction units)
        C0'_UR = C0_UR                                (Q'*F0 = Q' only touches C0_LR)
        C2'_LR = (C2 + (Q << (r-1)) + Q)_LR           (Q*F1 by a shift and an add)
        C1' = C1 + ((Q' + Q) << (r-1))                (the cross term X)
    """
    r = split_point(n)
    q0 = st.c0 & mask(r)
    q1 = st.c2 >> (r - 1)
    return {
        "q0": q0, "q1": q1,
        "c0p_ur": st.c0 >> r,
        "c2p_lr": (st.c2 ^ (q1 << (r - 1)) ^ q1) & mask(r),
        "c1p": st.c1 ^ ((q0 ^ q1) << (r - 1)),
    }


def rffiko_result(st: FikoState, n: int) -> int:
    r = split_point(n)
    t = rffiko_terms(st, n)
    return final_sum(t["c0p_ur"], t["c1p"], t["c2p_lr"], r)


def rffiko(n: int, a: int, b: int) -> int:
    """RF-FIKO, r = (n+1)/2 cycles, only F = t^n + t^r + 1 with n odd (corrections.md#rffiko-modulus).

    Only the three Karatsuba-Ofman products are computed serially; quotients, reduction
    terms and the final sum are shifts and xors of the final C0, C1, C2.
    Returns A*B*t^-r mod F with degree < n."""
    if n < 3 or n % 2 == 0:
        raise ValueError("RF-FIKO needs odd n >= 3")
    f = rft(n)
    st = fiko_load(f, a, b)
    for _ in range(split_point(n)):
        st = fiko_step(st, f, reduction_units=False)
    return rffiko_result(st, n)
