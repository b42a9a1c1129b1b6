"""The hardware-faithful model of the NTT cores: the butterflies run over the memory layout,
the passes and the twiddle ROM words of the plan (plan.py) exactly as `hw.py` builds them,
with the multiplications done by the chosen reduction's bit-exact model (modmul).

Notation: n coefficients, P butterfly units (lanes), R = n/P rows, H = n/(2P).
Let mul(x, s) = x*s*F mod q be the reduction (F = its `scale`, e.g. 2^-beta).

Memory. Row r holds coefficients rP .. rP+P-1 (lane l = coefficient rP+l, as loaded). Row
r lives in bank parity(popcount(r)) at address r >> 1: two banks of R/2 words each, one read
and one write port per bank. Rows r and r ^ 2^j differ in one bit, so they always sit in
different banks: every pass below reads one row per bank per cycle and writes the two rows
back to the same places D cycles later (conflict-free by construction).

Passes (one cycle = one issue):
  pair pass, butterfly distance t >= P (d = t/P rows): cycle c reads rows r = c with a 0
    inserted at bit log2(d), and r + d; lane l of row r and lane l of row r + d make a
    butterfly; all lanes share twiddle T[n/(2t) + (c >> log2 d)] (shared ROM).
  row pass, t < P: cycle c reads rows 2c and 2c+1; unit u < P/2 works inside row 2c, unit
    u >= P/2 inside row 2c+1, on lanes l = (u mod P/2) with a 0 inserted at bit log2(t),
    and l + t; per-unit twiddles from per-lane ROMs.
  pointwise pass (polymul): cycle c reads row c of a and row c of b, lane-wise products.
  products and basecase passes (polymul, incomplete=1: the NTTs leave pairs (x_2i, x_2i+1) =
    x mod (X^2 - gamma_i), gamma_i = psi^(2 bitrev(i) + 1), in lanes 2j, 2j+1 of a row; P = 1 below):
    products, cycles 2c and 2c+1 read row c of a and of b; 2c writes lane l of a's row with
    a_l b_l, 2c+1 lane l of b's with a_(l^1) b_l (the hardware reads both rows before either
    write lands). basecase, cycle c reads both rows again; units u < P/2 make pair u's
    c0 = a0 b0 + gamma a1 b1 (a CT butterfly on a's lanes 2u, 2u+1, s = gamma), units P/2 + u
    its c1 = a1 b0 + a0 b1 (one on b's lanes, s = 1), written to a's row as lanes 2u, 2u+1:
    FIPS 203's BaseCaseMultiply, 3R cycles where the pointwise pass takes R.
    P = 1: pair i is rows 2i and 2i+1, word i of the two banks of a set (one row of P = 2
    over both banks); products, cycles 4i + k read a_j and b_(j^x) (k = 2x + j) and write
    a_j b_j to a's row 2i + j (x = 0) or a_j b_(j^1) to b's (x = 1); basecase, cycle 2i + k
    reads both words of set k and writes c0 (k = 0: a0 b0 + gamma a1 b1) or c1 (k = 1:
    a0 b1 + a1 b0, s = 1) to a's row 2i + k (plan.operand_sets): the same 2R and R cycles.
  scale pass (polymul, two buffers): cycle c multiplies row c of b by F^-2 (see below).
Each butterfly pass does n/2 butterflies in H cycles; the pointwise and scale passes R.
Schedule: a pass starts issuing as soon as every row it reads has been written back by the
passes before (a row written in cycle x is read from cycle x + 1 on), not after a full
drain of D cycles: with n/(4P) > D only the last pass drains (plan.pass_starts).

Butterflies, with every twiddle stored premultiplied by F^-1 so mul(v, s F^-1) = v*s:
  CT (forward):  (u + v s, u - v s)                  mod q
  GS (inverse):  (half(u + v), (u - v) s/2)          mod q, half(x) = x/2 mod q
so log2(n) GS stages carry the factor 2^-log2(n) = n^-1 of the inverse transform.
Congruences:
  forward:  out[i] = a(psi^(2 bitrev(i) + 1)) mod q       (= primes.ntt_negacyclic)
  inverse:  out = a with in[i] = a(psi^(2 bitrev(i) + 1))  (= primes.intt_negacyclic)
  polymul:  c = a*b mod (x^n + 1, q). b is scaled at load by mul(b, F^-2) = b F^-1 (the
            units are idle while loading), the NTT is linear, so NTT(b F^-1) = b_hat F^-1
            and the pointwise mul(a_hat, b_hat F^-1) = a_hat b_hat exactly: no scaling
            pass. F = 1 (Barrett): b is stored as it comes. With two buffers the units are
            busy while a frame loads: b is stored as it comes and the first pass scales it.
Run-time primes (twiddles=load): the ROMs are RAMs and, per residue slot, q, the
reduction's run-time modulus fields and b's scale are registers; all reset to the generation
moduli's values and are rewritten word by word through the cfg stream while no frame is in
the core (plan.ConfigMap).
Buffers: one (the next frame loads while the last is read out, then computes) or two (it
loads into the other buffer while this one computes: II = C).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .plan import NttPlan, Pass, PrimeSchedule, issue, operand_sets, parity, row_lanes

#: the reduction's bit-exact model for one prime: mul(x, s) = x*s*F mod q
Mul = Callable[[int, int], int]
Memory = list[list[list[list[int]]]]     # [bank set][bank][address] -> a row of P coefficients


def half(x: int, q: int) -> int:
    """x/2 mod q for x in [0, q): x >> 1 if x is even, else (x + q) >> 1."""
    return (x + q) >> 1 if x & 1 else x >> 1


def butterfly(q: int, mul: Mul, inverse: bool, u: int, v: int, s: int) -> tuple[int, int]:
    if inverse:                                        # GS, s = prep(T[k]) = T[k]/(2F)
        return half((u + v) % q, q), mul((u - v) % q, s)
    p = mul(v, s)                                      # CT, s = T[k]/F
    return (u + p) % q, (u - p) % q


def run(plan: NttPlan, muls: Sequence[Mul], a: list[int], b: list[int] | None = None) -> list[int]:
    """Residue j = coefficients j n .. j n + n - 1 of each operand, through prime j (its ROM
    words, constants and the reduction's model muls[j])."""
    n, out = plan.n, []
    for j, (prime, mul) in enumerate(zip(plan.primes, muls, strict=True)):
        out += run_residue(plan, prime, mul, a[j * n:(j + 1) * n], None if b is None else b[j * n:(j + 1) * n])
    return out


def run_residue(plan: NttPlan, prime: PrimeSchedule, mul: Mul, a: list[int], b: list[int] | None) -> list[int]:
    """One residue: load (rows into banks), run every pass, unload rows 0..R-1 in order."""
    P, R = plan.P, plan.rows
    sets = plan.operands
    mem: Memory = [[[[] for _ in range(R // 2)] for _ in range(2)] for _ in range(sets)]
    for r in range(R):
        mem[0][parity(r)][r >> 1] = list(a[r * P:(r + 1) * P])
        if sets == 2:
            assert b is not None, "polymul: two operands"
            row = list(b[r * P:(r + 1) * P])
            if plan.scale_at_load:                     # the load path through the multipliers
                assert prime.b_scale is not None
                row = [mul(x, prime.b_scale) for x in row]
            mem[1][parity(r)][r >> 1] = row
    for ps in plan.passes:
        for c in range(ps.issues):
            step(plan, prime, mul, mem, ps, c)
    out = []
    for r in range(R):
        out += mem[0][parity(r)][r >> 1]
    return out


def step(plan: NttPlan, prime: PrimeSchedule, mul: Mul, mem: Memory, ps: Pass, c: int) -> None:
    """Cycle c of pass ps: its operations on the rows it reads, written back in place."""
    P, q = plan.P, prime.q
    op = issue(ps, c, plan.rows, P)
    if ps.kind == "pointwise":
        lo, hi = mem[0][op.lo_bank][op.lo_addr], mem[1][op.hi_bank][op.hi_addr]
        mem[0][op.lo_bank][op.lo_addr] = [mul(x, y) for x, y in zip(lo, hi, strict=True)]
        return
    if ps.kind == "products":
        group = 4 if P == 1 else 2                     # cycles reading the same words before a write lands
        if c % group:                                  # done by cycle c - c % group's step
            return
        cycles = range(c, c + group)
        ops = [(issue(ps, x, plan.rows, P), operand_sets(ps, x, P)) for x in cycles]
        reads = [(mem[ls][o.lo_bank][o.lo_addr], mem[hs][o.hi_bank][o.hi_addr]) for o, (ls, hs, _) in ops]
        for x, (o, (_, _, ws)), (lo, hi) in zip(cycles, ops, reads, strict=True):
            crossed = x & 1 if P > 1 else 0            # P >= 2, odd c: a's lanes crossed (route MULX)
            mem[ws][o.lo_bank][o.lo_addr] = [mul(lo[lane ^ crossed], hi[lane]) for lane in range(P)]
        return
    if ps.kind == "basecase":
        ls, hs, ws = operand_sets(ps, c, P)
        lo, hi = mem[ls][op.lo_bank][op.lo_addr], mem[hs][op.hi_bank][op.hi_addr]
        if P == 1:                                     # c0 (even c) or c1: lo's word + hi's times the lane ROM's
            out = [butterfly(q, mul, False, lo[0], hi[0], prime.lanes[0][op.tw_addr])[0]]
        else:
            out = []
            for j in range(P // 2):
                out.append(butterfly(q, mul, False, lo[2 * j], lo[2 * j + 1], prime.lanes[j][op.tw_addr])[0])
                out.append(butterfly(q, mul, False, hi[2 * j], hi[2 * j + 1], prime.lanes[P // 2 + j][op.tw_addr])[0])
        mem[ws][op.lo_bank][op.lo_addr] = out
        return
    if ps.kind == "scale":
        assert prime.b_scale is not None
        mem[1][op.lo_bank][op.lo_addr] = [mul(x, prime.b_scale) for x in mem[1][op.lo_bank][op.lo_addr]]
        return
    bank = mem[ps.bank_set]
    lo, hi = list(bank[op.lo_bank][op.lo_addr]), list(bank[op.hi_bank][op.hi_addr])
    if ps.kind == "pair":
        s = prime.shared[op.tw_addr]
        for lane in range(P):
            lo[lane], hi[lane] = butterfly(q, mul, ps.inverse, lo[lane], hi[lane], s)
    else:
        for u in range(P):
            which, l1, l2 = row_lanes(u, ps.t, P)
            row = hi if which else lo
            row[l1], row[l2] = butterfly(q, mul, ps.inverse, row[l1], row[l2], prime.lanes[u][op.tw_addr])
    bank[op.lo_bank][op.lo_addr], bank[op.hi_bank][op.hi_addr] = lo, hi


def pack_fields(widths: dict[str, int], values: Sequence[int]) -> int:
    """The reduction's run-time modulus fields as one word, the first in the low bits."""
    word, off = 0, 0
    for bits, value in zip(widths.values(), values, strict=False):  # a core with no run-time fields: 0
        word |= value << off
        off += bits
    return word
