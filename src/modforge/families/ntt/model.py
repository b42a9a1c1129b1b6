"""The hardware-faithful model of the NTT cores: the memory layout, the pass schedule, the
twiddle ROM contents and the butterflies exactly as `hw.py` builds them, with the
multiplications done by the chosen reduction's bit-exact model (modmul).

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
  scale pass (polymul, two buffers): cycle c multiplies row c of b by F^-2 (see below).
Each butterfly pass does n/2 butterflies in H cycles; the pointwise and scale passes R.
Schedule: a pass starts issuing as soon as every row it reads has been written back by the
passes before (a row written in cycle x is read from cycle x + 1 on), not after a full
drain of D cycles: with n/(4P) > D only the last pass drains (Plan.schedule).

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
the core (ConfigMap).
Buffers: one (the next frame loads while the last is read out, then computes) or two (it
loads into the other buffer while this one computes: II = C).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable

from amaranth.hdl import Value

from ...math.primes import twiddles as make_twiddles

TRANSFORMS = ("forward", "inverse", "polymul")


def log2(x: int) -> int:
    return x.bit_length() - 1


def insert_zero(c, j: int):
    """c with a 0 bit inserted at position j (an int, or an amaranth Value)."""
    return ((c >> j) << (j + 1)) | (c & ((1 << j) - 1))


def parity(x):
    """popcount(x) mod 2 (an int, or an amaranth Value): the bank of row x."""
    if isinstance(x, Value):
        return x.xor()
    return x.bit_count() & 1


def half(x: int, q: int) -> int:
    """x/2 mod q for x in [0, q): x >> 1 if x is even, else (x + q) >> 1."""
    return (x + q) >> 1 if x & 1 else x >> 1


@dataclasses.dataclass(frozen=True)
class Pass:
    kind: str        # "pair" (t >= P), "row" (t < P), "pointwise" or "scale"
    inverse: bool    # GS butterflies (True) or CT
    bank_set: int    # 0: the a banks, 1: the b banks
    t: int           # butterfly distance in coefficients (0: pointwise)
    issues: int      # cycles that issue reads: H, or R for the pointwise and scale passes
    tw_base: int     # base address in the shared ROM (pair) or in every lane ROM (row)


@dataclasses.dataclass(frozen=True)
class Issue:
    """What one cycle of a pass reads (and later writes): the 'lo' row (r) and the 'hi' row
    (r + d, 2c+1, or for the pointwise pass the same row of the b banks)."""
    lo_bank: int | Value  # an int (the model) or an amaranth Value (the hardware), as c in `issue`
    lo_addr: int | Value
    hi_bank: int | Value
    hi_addr: int | Value
    tw_addr: int | Value  # shared ROM (pair), lane ROMs (row), unused (pointwise, scale)


def issue(ps: Pass, c, rows: int, P: int) -> Issue:
    """Cycle c of pass ps; c may be an int (the model) or an amaranth Value (the hardware)."""
    if ps.kind == "pair":
        d = ps.t // P
        j = log2(d)
        r = insert_zero(c, j)
        r_hi = r | d                                     # bit j of r is 0
        return Issue(parity(r), r >> 1, parity(r_hi), r_hi >> 1,
                     ps.tw_base + rows // (2 * d) + (c >> j))
    if ps.kind == "row":                                  # rows 2c (bank parity(c)) and 2c+1
        return Issue(parity(c), c, 1 - parity(c) if isinstance(c, int) else ~parity(c), c,
                     ps.tw_base + c)
    return Issue(parity(c), c >> 1, parity(c), c >> 1, 0)  # pointwise, scale: row c (of a and b)


def row_lanes(u: int, t: int, P: int) -> tuple[int, int, int]:
    """Row pass with distance t < P: unit u works in the lo (0) or hi (1) row on lanes l, l+t."""
    lane = insert_zero(u % (P // 2), log2(t))
    return u // (P // 2), lane, lane + t


class Plan:
    """Everything generation-time about one NTT core: passes, ROM contents, constants.

    `mul(x, s)` is the reduction's bit-exact model (x*s*F mod q), F its scale."""

    def __init__(self, transform: str, q: int, n: int, P: int, psi: int,
                 mul: Callable[[int, int], int], F: int, mul_depth: int, buffers: int = 1):
        if transform not in TRANSFORMS:
            raise ValueError(f"transform must be one of {TRANSFORMS}")
        self.transform, self.q, self.n, self.P, self.psi = transform, q, n, P, psi
        self.buffers = buffers
        self.mul, self.F, self.mul_depth = mul, F, mul_depth
        self.rows, self.H = n // P, n // (2 * P)
        self.tw = make_twiddles(q, n, psi)
        f_inv = pow(F, -1, q)
        self.prep = {False: lambda s: s * f_inv % q,                        # CT: s F^-1
                     True: lambda s: s * f_inv * pow(2, -1, q) % q}         # GS: s 2^-1 F^-1
        # polymul: b is multiplied at load by F^-2 (so b F^-1 is stored); none if F = 1
        self.b_scale = pow(F, -2, q) if transform == "polymul" and F != 1 else None
        self.scale_at_load = self.b_scale is not None and buffers == 1     # else: a scale pass
        self.passes: list[Pass] = []
        self.shared: list[int] = []                       # shared ROM words
        self.lanes: list[list[int]] = [[] for _ in range(P)]  # lane ROM words, per unit
        self._shared_base: dict[bool, int] = {}
        self._lane_base: dict[tuple[bool, int], int] = {}
        if self.b_scale is not None and not self.scale_at_load:
            self.passes.append(Pass("scale", False, 1, 0, self.rows, 0))
        if transform in ("forward", "polymul"):
            self._transform(False, 0)
        if transform == "polymul":
            self._transform(False, 1)
            self.passes.append(Pass("pointwise", False, 0, 0, self.rows, 0))
        if transform in ("inverse", "polymul"):
            self._transform(True, 0)

    def _transform(self, inverse: bool, bank_set: int) -> None:
        n, P = self.n, self.P
        dists = [1 << k for k in range(log2(n))]          # GS: t = 1, 2, ..., n/2
        for t in (dists if inverse else dists[::-1]):     # CT: t = n/2, ..., 1
            if t >= P:
                self.passes.append(Pass("pair", inverse, bank_set, t, self.H, self._shared(inverse)))
            else:
                self.passes.append(Pass("row", inverse, bank_set, t, self.H, self._lane(inverse, t)))

    def table(self, inverse: bool) -> list[int]:
        return self.tw.inverse if inverse else self.tw.forward

    def _shared(self, inverse: bool) -> int:
        """The R words of one direction: word k = prep(T[k]) (word 0 unused: m + i >= 1)."""
        if inverse not in self._shared_base:
            self._shared_base[inverse] = len(self.shared)
            self.shared += [self.prep[inverse](s) for s in self.table(inverse)[:self.rows]]
        return self._shared_base[inverse]

    def _lane(self, inverse: bool, t: int) -> int:
        """H words per lane ROM for a row pass: unit u's twiddle in cycle c."""
        key = (inverse, t)
        if key not in self._lane_base:
            self._lane_base[key] = len(self.lanes[0])
            T, n, P = self.table(inverse), self.n, self.P
            for c in range(self.H):
                for u in range(P):
                    hi, lane, _ = row_lanes(u, t, P)
                    j = (2 * c + hi) * P + lane             # coefficient index of the 'u' input
                    self.lanes[u].append(self.prep[inverse](T[n // (2 * t) + j // (2 * t)]))
        return self._lane_base[key]

    # --- the schedule and the cycle counts --------------------------------------------------
    @property
    def drain(self) -> int:
        """D: issue cycle to write cycle of one operation = 1 (RAM/ROM read) + 1 (butterfly
        input stage) + mul_depth (the reduction's pipeline) + 1 (butterfly output stage)."""
        return self.mul_depth + 3

    def accesses(self, ps: Pass, c: int) -> tuple[list, list]:
        """The rows (set, bank, address) that cycle c of pass ps reads and writes."""
        op = issue(ps, c, self.rows, self.P)
        if ps.kind == "pointwise":
            lo = (0, op.lo_bank, op.lo_addr)
            return [lo, (1, op.hi_bank, op.hi_addr)], [lo]
        if ps.kind == "scale":
            return [(1, op.lo_bank, op.lo_addr)], [(1, op.lo_bank, op.lo_addr)]
        rows = [(ps.bank_set, op.lo_bank, op.lo_addr), (ps.bank_set, op.hi_bank, op.hi_addr)]
        return rows, rows

    @functools.cached_property
    def schedule(self) -> list[int]:
        """The cycle each pass starts issuing, the first at 0: the earliest after the pass
        before has issued at which every row it reads is already written (an operation issued
        in cycle x writes in x + D; a RAM gives the old word in the cycle of a write). Write
        ports never collide: pass p + 1 writes from its start + D on, after pass p's last write."""
        written: dict[tuple, int] = {}                    # row -> cycle of its last write
        starts, free = [], 0
        for ps in self.passes:
            ops = [self.accesses(ps, c) for c in range(ps.issues)]
            start = max([free] + [written[row] + 1 - c for c, (reads, _) in enumerate(ops)
                                  for row in reads if row in written])
            for c, (_, writes) in enumerate(ops):
                for row in writes:
                    written[row] = start + c + self.drain
            starts.append(start)
            free = start + ps.issues
        return starts

    def span(self) -> int:
        """S: the cycles from the first pass's first issue to the last pass's last issue + 1."""
        return self.schedule[-1] + self.passes[-1].issues

    def waits(self) -> list[int]:
        """Idle cycles after each pass's issues before the next starts (the last: D)."""
        starts = self.schedule + [self.span() + self.drain]
        return [starts[p + 1] - starts[p] - ps.issues for p, ps in enumerate(self.passes)]

    def compute_cycles(self) -> int:
        """C = S + D: the passes as scheduled, then the last one drains."""
        return self.span() + self.drain

    @property
    def cycles(self) -> int:
        """C (compute_cycles): the formula the algorithm claims."""
        return self.compute_cycles()

    @property
    def latency(self) -> int:
        """R + C + 3, the same for every beat k of a frame: beat k is accepted at t0 + k; the
        compute phase starts at t0 + R (the cycle after the last beat) and takes C cycles;
        the unload then reads row k at t0 + R + C + k (RAM read: 1 cycle) into the output FIFO
        (write to o.valid: 2 cycles)."""
        return self.rows + self.compute_cycles() + 3

    @property
    def initiation_interval(self) -> int:
        """One buffer: R + C, R load beats, then C compute cycles; the next frame loads while
        this one is read out (beat k is taken once row k has been). Two: C, the next frame
        loads into the other buffer during the last R cycles of this one's compute."""
        return self.compute_cycles() + (self.rows if self.buffers == 1 else 0)

    def twiddle_words(self) -> int:
        return len(self.shared) + sum(len(lane) for lane in self.lanes)

    # --- the model ------------------------------------------------------------------------
    def butterfly(self, inverse: bool, u: int, v: int, s: int) -> tuple[int, int]:
        q = self.q
        if inverse:                                        # GS, s = prep(T[k]) = T[k]/(2F)
            return half((u + v) % q, q), self.mul((u - v) % q, s)
        p = self.mul(v, s)                                 # CT, s = T[k]/F
        return (u + p) % q, (u - p) % q

    def run(self, a: list[int], b: list[int] | None = None) -> list[int]:
        """Load (rows into banks), run every pass, unload rows 0..R-1 in order."""
        P, R = self.P, self.rows
        sets = 2 if self.transform == "polymul" else 1
        mem: list[list[list[list[int]]]] = [[[[] for _ in range(R // 2)] for _ in range(2)] for _ in range(sets)]
        for r in range(R):
            mem[0][parity(r)][r >> 1] = list(a[r * P:(r + 1) * P])
            if sets == 2:
                assert b is not None, "polymul: two operands"
                row = list(b[r * P:(r + 1) * P])
                if self.scale_at_load:                     # the load path through the multipliers
                    assert self.b_scale is not None
                    row = [self.mul(x, self.b_scale) for x in row]
                mem[1][parity(r)][r >> 1] = row
        for ps in self.passes:
            for c in range(ps.issues):
                op = issue(ps, c, R, P)
                if ps.kind == "pointwise":
                    lo, hi = mem[0][op.lo_bank][op.lo_addr], mem[1][op.hi_bank][op.hi_addr]
                    mem[0][op.lo_bank][op.lo_addr] = [self.mul(x, y) for x, y in zip(lo, hi, strict=True)]
                    continue
                if ps.kind == "scale":
                    assert self.b_scale is not None
                    row = mem[1][op.lo_bank][op.lo_addr]
                    mem[1][op.lo_bank][op.lo_addr] = [self.mul(x, self.b_scale) for x in row]
                    continue
                bank = mem[ps.bank_set]
                lo, hi = list(bank[op.lo_bank][op.lo_addr]), list(bank[op.hi_bank][op.hi_addr])
                if ps.kind == "pair":
                    s = self.shared[op.tw_addr]
                    for lane in range(P):
                        lo[lane], hi[lane] = self.butterfly(ps.inverse, lo[lane], hi[lane], s)
                else:
                    for u in range(P):
                        which, l1, l2 = row_lanes(u, ps.t, P)
                        row = hi if which else lo
                        row[l1], row[l2] = self.butterfly(ps.inverse, row[l1], row[l2], self.lanes[u][op.tw_addr])
                bank[op.lo_bank][op.lo_addr], bank[op.hi_bank][op.hi_addr] = lo, hi
        out = []
        for r in range(R):
            out += mem[0][parity(r)][r >> 1]
        return out


class RnsPlan:
    """An RNS base: one Plan per prime (all of one shape: n, P, passes, ROM sizes), run one
    after another on the k residue polynomials of a frame, which sit side by side in the
    banks (residue j at addresses j R/2 ..), with the j-th prime's ROM words, constants
    and run-time modulus. k = 1 is the single-prime core. Timing: a frame is k R beats in,
    the passes of each residue in turn (k S cycles: residues share no rows, so residue j + 1
    starts without a wait), the last drain (D), k R beats out while the next frame loads."""

    def __init__(self, plans: list[Plan]):
        self.plans, self.k = plans, len(plans)
        first = plans[0]
        self.transform, self.n, self.P, self.rows = first.transform, first.n, first.P, first.rows
        self.buffers, self.scale_at_load = first.buffers, first.scale_at_load
        self.passes, self.mul_depth, self.drain = first.passes, first.mul_depth, first.drain
        self.waits = first.waits()                                             # the last: D
        self.shared = [w for p in plans for w in p.shared]                       # prime j at j len(shared)
        self.lanes = [[w for p in plans for w in p.lanes[u]] for u in range(self.P)]
        self.shared_len, self.lane_len = len(first.shared), len(first.lanes[0])
        self.moduli = [p.q for p in plans]
        self.b_scales = [p.b_scale for p in plans]

    def compute_cycles(self) -> int:
        """C_k = k S + D."""
        return self.k * self.plans[0].span() + self.drain

    @property
    def cycles(self) -> int:
        """C_k (compute_cycles): the formula the algorithm claims."""
        return self.compute_cycles()

    @property
    def frame_beats(self) -> int:
        """k R: the k residue polynomials of R rows each."""
        return self.k * self.rows

    @property
    def result_beats(self) -> int:
        return self.frame_beats

    @property
    def latency(self) -> int:
        """k R + C_k + 3 for every beat (Plan.latency with a frame of k R beats)."""
        return self.k * self.rows + self.compute_cycles() + 3

    @property
    def initiation_interval(self) -> int:
        """k R + C_k, or C_k with two buffers (Plan.initiation_interval, frames of k R beats)."""
        return self.compute_cycles() + (self.k * self.rows if self.buffers == 1 else 0)

    def twiddle_words(self) -> int:
        return len(self.shared) + sum(len(lane) for lane in self.lanes)

    def run(self, a: list[int], b: list[int] | None = None) -> list[int]:
        """Residue j = coefficients j n .. j n + n - 1 of each operand, through plan j."""
        n, out = self.n, []
        for j, plan in enumerate(self.plans):
            out += plan.run(a[j * n:(j + 1) * n], None if b is None else b[j * n:(j + 1) * n])
        return out


def pack_fields(widths: dict[str, int], values) -> int:
    """The reduction's run-time modulus fields as one word, the first in the low bits."""
    word, off = 0, 0
    for bits, value in zip(widths.values(), values, strict=False):  # a core with no run-time fields: 0
        word |= value << off
        off += bits
    return word


class ConfigMap:
    """twiddles=load: the cfg stream's payload Cat(data, word, sel), k residue slots (the
    moduli of an RNS base, or one). sel 0: the constants, slot j's at word 3j + c (c = 0: q_j,
    1: its run-time fields, pack_fields, 2: b's scale F^-2, polymul); sel 1: the shared
    twiddle RAM, slot j's words at j shared_len + a; sel 2 + u: lane u's twiddle RAM, slot
    j's at j lane_len + a (the addresses the RNS core reads residue j's ROM words at)."""

    CONSTANTS = 3

    def __init__(self, plan: RnsPlan, w: int, rt_bits: int):
        self.k, self.P, self.shared_len, self.lane_len = plan.k, plan.P, plan.shared_len, plan.lane_len
        self.data_bits = max(w, rt_bits)
        self.word_bits = max(self.CONSTANTS * self.k - 1, self.k * self.shared_len - 1,
                             self.k * self.lane_len - 1, 1).bit_length()
        self.sel_bits = (self.P + 1).bit_length()
        self.width = self.data_bits + self.word_bits + self.sel_bits

    @property
    def count(self) -> int:
        """Words that load every slot."""
        return self.k * (self.CONSTANTS + self.shared_len + self.P * self.lane_len)

    def payload(self, sel: int, word: int, data: int) -> int:
        return data | word << self.data_bits | sel << (self.data_bits + self.word_bits)

    def words(self, plans: list[Plan], rts: list[int]) -> list[int]:
        """The payloads that load slot j with plans[j] (its ROM words and b's scale) and its
        run-time fields rts[j]."""
        out = []
        for j, (plan, rt) in enumerate(zip(plans, rts, strict=True)):
            c, s, ln = self.CONSTANTS * j, j * self.shared_len, j * self.lane_len
            out += [self.payload(0, c, plan.q), self.payload(0, c + 1, rt), self.payload(0, c + 2, plan.b_scale or 0)]
            out += [self.payload(1, s + a, x) for a, x in enumerate(plan.shared)]
            out += [self.payload(2 + u, ln + a, x) for u in range(self.P) for a, x in enumerate(plan.lanes[u])]
        return out
