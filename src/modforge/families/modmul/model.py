"""Bit-exact models of the eight modular reductions of a product x = a*b (a, b < q) of
Tosun et al. (docs/references.md#tosun-2026), as corrected in docs/corrections.md:

  Montgomery (Alg 1), Barrett (Alg 4), Plantard (Alg 5), WLM (Alg 2), WLM-Mixed (Alg 8),
  K2RED (Alg 3), K2RED-Shift (Alg 7), Montgomery-Shift (Alg 6).

Every function returns exactly the integer the hardware of `hw.py` produces, in [0, q).
The functions do not validate their moduli (the registered algorithms do); the tests
use that to show the printed forms and the out-of-family moduli fail. The `raw_*`
variants return the value before the final correction, for the range lemmas.

Notation: beta = bit width of the reduction (q < 2^beta, usually q.bit_length()),
omega = a word size with q = 1 mod 2^omega, q_h = q >> omega (so q = q_h 2^omega + 1),
log q_h = beta - omega.
"""

from __future__ import annotations

PHI = (1 + 5 ** 0.5) / 2

#: (l1, l2, l3) of a Proth-l prime q = 2^(beta-1) + (2^l1 - 2^l2 [+ 2^l3]) 2^omega + 1 (l3 None: Proth-2l)
Shifts = tuple[int, int, int | None]


def mask(w: int) -> int:
    return (1 << w) - 1


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


# --------------------------------------------------------------------------- Alg 1

def montgomery_factor(q: int, beta: int) -> int:
    """q' = -q^-1 mod 2^beta (q odd)."""
    return (-pow(q, -1, 1 << beta)) % (1 << beta)


def montgomery_raw(q: int, beta: int, x: int) -> int:
    """Alg 1 lines 1-2: (x + t q) >> beta with t = q' x mod 2^beta; in [0, 2q) for x < q^2,
    q < 2^beta (the low beta bits of x + tq are zero)."""
    t = (montgomery_factor(q, beta) * x) & mask(beta)
    s = x + t * q
    assert s & mask(beta) == 0
    return s >> beta


def montgomery(q: int, beta: int, a: int, b: int) -> int:
    """Naive Montgomery (Alg 1) of x = a*b: returns a*b*2^-beta mod q, in [0, q).
    Needs q odd, q < 2^beta, a, b < q (x < q^2)."""
    r = montgomery_raw(q, beta, a * b)
    return r - q if r >= q else r


# --------------------------------------------------------------------------- Alg 4

def barrett_factor(q: int, beta: int) -> int:
    """q' = floor(2^(2 beta) / q)."""
    return (1 << (2 * beta)) // q


def barrett_raw(q: int, beta: int, x: int) -> int:
    """Alg 4 lines 1-2: x - t q with t = (x q') >> 2beta. t > x/q - 2 (both floors lose
    less than 1 each as x < 2^(2beta)), so t >= floor(x/q) - 1 and x - tq is in [0, 2q)."""
    t = (x * barrett_factor(q, beta)) >> (2 * beta)
    return x - t * q


def barrett(q: int, beta: int, a: int, b: int) -> int:
    """Barrett (Alg 4) of x = a*b: returns a*b mod q, in [0, q). Needs q < 2^beta, a, b < q.
    Only the low beta+1 bits of x - tq are needed (it is < 2q <= 2^(beta+1))."""
    r = barrett_raw(q, beta, a * b)
    return r - q if r >= q else r


# --------------------------------------------------------------------------- Alg 5

def plantard_factor(q: int, beta: int) -> int:
    """q' = q^-1 mod 2^(2 beta) (q odd)."""
    return pow(q, -1, 1 << (2 * beta))


def plantard_bound_ok(q: int, beta: int) -> bool:
    """Plantard needs q < 2^beta / phi (corrections.md#plantard-bound) (exact integer test: q*phi < 2^beta, i.e.
    q^2 + q*2^beta < 2^(2beta) ... q < 2^beta/phi  <=>  q^2 + q 2^beta < 2^(2 beta))."""
    return q * q + q * (1 << beta) < 1 << (2 * beta)


def plantard_raw(q: int, beta: int, x: int) -> int:
    """Alg 5 lines 1-2: c = ((c' + 1) q) >> beta, c' = (x q' mod 2^2beta) >> beta; in [0, q]."""
    c1 = ((x * plantard_factor(q, beta)) & mask(2 * beta)) >> beta
    return ((c1 + 1) * q) >> beta


def plantard(q: int, beta: int, a: int, b: int) -> int:
    """Plantard (Alg 5) of a*b: returns -a*b*2^(-2 beta) mod q, in [0, q).
    Needs q odd, q < 2^beta/phi (not just 2^beta), a, b < q. Line 3 maps c = q to 0."""
    c = plantard_raw(q, beta, a * b)
    return 0 if c == q else c


# --------------------------------------------------------------------------- Alg 2

def wlm_step(t: int, omega: int, qh: int, shift: int = 0, printed: bool = False) -> int:
    """One word-level Montgomery step with word omega_i = omega (q = 1 mod 2^omega):
    t_l = t mod 2^w, t_h = t >> w, t' = -t_l mod 2^w, c = t'[w-1] | t[w-1] (= t_l != 0,
    as t_l + t' is 0 or 2^w), t <- t_h + (q_h t' << shift) + c = (t + t' q) / 2^w.
    `printed` uses the paper's q_h * t_l (wrong: corrections.md#wlm-quotient)."""
    tl, th = t & mask(omega), t >> omega
    tp = (-tl) & mask(omega)
    c = ((tp >> (omega - 1)) | (t >> (omega - 1))) & 1
    return th + ((qh * (tl if printed else tp)) << shift) + c


def wlm_lambda(beta: int, omega: int) -> int:
    return ceil_div(beta, omega)


def wlm_raw(q: int, beta: int, omega: int, x: int, printed: bool = False) -> int:
    """Alg 2 lines 1-6, lambda = ceil(beta/omega) steps: (x + T q) / 2^(omega lambda) with
    T < 2^(omega lambda), so < x/2^(omega lambda) + q < 2q for x < q^2 <= q 2^(omega lambda)."""
    qh = q >> omega
    t = x
    for _ in range(wlm_lambda(beta, omega)):
        t = wlm_step(t, omega, qh, printed=printed)
    return t


def wlm(q: int, beta: int, omega: int, a: int, b: int, printed: bool = False) -> int:
    """Word-level Montgomery (Alg 2, corrected: q_h * t' with t' = -t_l mod 2^omega) of
    a*b: returns a*b*2^(-omega*lambda) mod q, lambda = ceil(beta/omega), in [0, q).
    Needs q = 1 mod 2^omega, q < 2^beta, a, b < q."""
    t = wlm_raw(q, beta, omega, a * b, printed)
    return t - q if t >= q else t


# --------------------------------------------------------------------------- Alg 8

def wlm_mixed_words(beta: int, omega: int, gamma_a: int | None) -> tuple[int, int]:
    """(omega0, omega1): omega1 = min(Gamma_A, omega), omega0 = beta - omega1 (corrections.md#wlm-mixed-iterations:
    iteration 0 uses omega0, iteration 1 uses omega1). gamma_a None: no DSP limit."""
    w1 = omega if gamma_a is None else min(gamma_a, omega)
    return beta - w1, w1


def wlm_mixed_raw(q: int, beta: int, omega: int, gamma_a: int | None, x: int,
                  printed: bool = False) -> int:
    """Alg 8 lines 2-8 over i = 0, 1 (not 0..2): (x + T q) / 2^beta, T < 2^beta, so in [0, 2q).
    Each step shifts the product q_h t' by delta_i = omega - omega_i."""
    qh = q >> omega
    t = x
    for w in wlm_mixed_words(beta, omega, gamma_a):
        t = wlm_step(t, w, qh, shift=omega - w, printed=printed)
    return t


def wlm_mixed(q: int, beta: int, omega: int, gamma_a: int | None, a: int, b: int,
              printed: bool = False) -> int:
    """WLM-Mixed (Alg 8, corrected) of a*b: returns a*b*2^-beta mod q, in [0, q).
    Needs q = 1 mod 2^omega with omega >= beta/2 (Proth, so omega0 <= omega),
    log q_h = beta - omega <= Gamma_B <= Gamma_A, a, b < q."""
    t = wlm_mixed_raw(q, beta, omega, gamma_a, a * b, printed)
    return t - q if t >= q else t


# --------------------------------------------------------------------------- Alg 3

def k2red_raw(q: int, omega: int, x: int) -> int:
    """Alg 3 lines 1-4 (signed): t = q_h a_l - a_h = -x 2^-omega (mod q) since
    q_h 2^omega = -1; t' = q_h t_l - t_h = x 2^(-2 omega) (mod q). For a Proth prime
    (omega >= beta/2) and x <= (q-1)^2, t' is in [-q, 2q) (corrections.md#k2red-range)."""
    qh = q >> omega
    al, ah = x & mask(omega), x >> omega
    t = qh * al - ah
    tl, th = t & mask(omega), t >> omega          # floor shift of a signed value
    return qh * tl - th


def k2red_correct(t: int, q: int) -> int:
    """Alg 3 lines 5-7: one correction step."""
    if t >= q:
        return t - q
    if t < 0:
        return t + q
    return t


def k2red(q: int, omega: int, a: int, b: int) -> int:
    """K2RED (Alg 3) of a*b: returns a*b*2^(-2 omega) mod q, in [0, q).
    Needs a Proth prime q = q_h 2^omega + 1, omega >= beta/2, a, b < q."""
    return k2red_correct(k2red_raw(q, omega, a * b), q)


# --------------------------------------------------------------------------- Proth-l

def proth_l_shifts(q: int, beta: int, omega: int) -> Shifts | None:
    """(l1, l2, l3) with q = 2^(beta-1) + (2^l1 - 2^l2 [+ 2^l3]) 2^omega + 1 and
    0 <= l2 <= l1 < beta-omega-1, 0 <= l3 < beta-omega-1 (l3 None: Proth-2l); the
    Proth-2l form is preferred. None if q is not Proth-l for this omega."""
    if (q - 1) & mask(omega) or q.bit_length() != beta:
        return None
    mid = ((q - 1) >> omega) - (1 << (beta - 1 - omega))
    top = beta - omega - 1
    for l1 in range(top):
        for l2 in range(l1 + 1):
            if (1 << l1) - (1 << l2) == mid:
                return (l1, l2, None)
    for l1 in range(top):
        for l2 in range(l1 + 1):
            l3v = mid - (1 << l1) + (1 << l2)
            if l3v > 0 and l3v & (l3v - 1) == 0 and l3v.bit_length() - 1 < top:
                return (l1, l2, l3v.bit_length() - 1)
    return None


def shift_mul(v: int, beta: int, omega: int, ls: Shifts) -> int:
    """v * q_h by shift-adds for q_h = 2^(beta-1-omega) + 2^l1 - 2^l2 [+ 2^l3]."""
    l1, l2, l3 = ls
    pos = (v << (beta - 1 - omega)) + (v << l1) + ((v << l3) if l3 is not None else 0)
    return pos - (v << l2)


def k2red_shift_raw(q: int, beta: int, omega: int, ls: Shifts, x: int) -> int:
    """Alg 7 lines 1-4: K2RED with q_h products as shift-adds: t = (a_l<<(beta-1-omega)) +
    (a_l<<l1) + (a_l<<l3) - ((a_l<<l2) + a_h); t' likewise from t_l, t_h."""
    al, ah = x & mask(omega), x >> omega
    t = shift_mul(al, beta, omega, ls) - ah
    tl, th = t & mask(omega), t >> omega
    return shift_mul(tl, beta, omega, ls) - th


def k2red_shift(q: int, beta: int, omega: int, ls: Shifts, a: int, b: int) -> int:
    """K2RED-Shift (Alg 7) of a*b: returns a*b*2^(-2 omega) mod q, in [0, q) (the same
    integer as K2RED). Needs a Proth-l prime q (shifts ls = (l1, l2, l3|None)), a, b < q."""
    return k2red_correct(k2red_shift_raw(q, beta, omega, ls, a * b), q)


def montgomery_shift_raw(q: int, beta: int, omega: int, ls: Shifts, x: int) -> int:
    """Alg 6 lines 1-5 (line 1 corrected: a_l = x mod 2^beta; q' = q - 2):
    t = (q - 2) a_l mod 2^beta = ((a_l<<(beta-1)) + ((a_l<<l1) - (a_l<<l2) + (a_l<<l3))<<omega)
    - a_l mod 2^beta; t' = t q = the same shifts + t; b' = a_h + (t' >> beta) + c with
    c = t'[beta-1] | a_l[beta-1] (= a_l != 0, as a_l + (t' mod 2^beta) = 0 or 2^beta)."""
    al, ah = x & mask(beta), x >> beta
    hi = lambda v: (v << (beta - 1)) + ((shift_mul(v, beta, omega, ls) - (v << (beta - 1 - omega))) << omega)  # noqa: E731
    t = (hi(al) - al) & mask(beta)
    tp = hi(t) + t
    c = ((tp >> (beta - 1)) | (al >> (beta - 1))) & 1
    return ah + (tp >> beta) + c


def montgomery_shift(q: int, beta: int, omega: int, ls: Shifts, a: int, b: int) -> int:
    """Montgomery-Shift (Alg 6) of a*b: returns a*b*2^-beta mod q, in [0, q) (the same
    integer as Montgomery, Alg 1, as q - 2 = -q^-1 mod 2^beta for Proth q).
    Needs a Proth-l prime q = q_h 2^omega + 1, omega >= beta/2, beta = q.bit_length()."""
    r = montgomery_shift_raw(q, beta, omega, ls, a * b)
    return r - q if r >= q else r
