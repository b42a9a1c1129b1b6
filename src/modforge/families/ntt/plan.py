"""The derived plan of an NTT core (architecture: model.py): the memory layout and the pass
addressing, the passes and their schedule, each prime's twiddle ROM words and constants
(`PrimeSchedule`), the cfg stream's layout (`ConfigMap`) and the core's timing, stated once
by `NttPlan` (the Algorithm forwards it; hw.py builds from it).

Notation: n coefficients, P butterfly units (lanes), R = n/P rows, H = n/(2P), k primes (an
RNS base; 1 without), D the drain, S the span of one residue's passes, C the compute cycles.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

from amaranth.hdl import Value

from ...math.primes import bit_reverse, twiddles as make_twiddles

TRANSFORMS = ("forward", "inverse", "polymul", "basemul")
TWO_OPERANDS = ("polymul", "basemul")     # a and b: two bank sets, b scaled by F^-2


def log2(x: int) -> int:
    return x.bit_length() - 1


def insert_zero(c: Any, j: int) -> Any:
    """c with a 0 bit inserted at position j (an int, or an amaranth Value)."""
    return ((c >> j) << (j + 1)) | (c & ((1 << j) - 1))


def bit(x: Any, k: int) -> Any:
    """Bit k of x (an int, or an amaranth Value)."""
    return x[k] if isinstance(x, Value) else (x >> k) & 1


def parity(x: Any) -> Any:
    """popcount(x) mod 2 (an int, or an amaranth Value): the bank of row x."""
    if isinstance(x, Value):
        return x.xor()
    return x.bit_count() & 1


@dataclasses.dataclass(frozen=True)
class Pass:
    kind: str        # "pair" (t >= P), "row" (t < P), "pointwise", "scale", "products", "basecase" or
                     # "add" (ntt-commands: a slot plus the product in the set-0 temporary, commands.py)
    inverse: bool    # GS butterflies (True) or CT
    bank_set: int    # 0: the a banks, 1: the b banks
    t: int           # butterfly distance in coefficients (0: pointwise)
    issues: int      # cycles that issue reads: H, R (pointwise, scale, basecase) or 2R (products)
    tw_base: int     # base address in the shared ROM (pair) or in every lane ROM (row, basecase)


@dataclasses.dataclass(frozen=True)
class Issue:
    """What one cycle of a pass reads (and later writes): the 'lo' row (r) and the 'hi' row
    (r + d, 2c+1, or for the pointwise pass the same row of the b banks)."""
    lo_bank: Any     # an int (the model) or an amaranth Value (the hardware), as c in `issue`
    lo_addr: Any
    hi_bank: Any
    hi_addr: Any
    tw_addr: Any     # shared ROM (pair), lane ROMs (row), unused (pointwise, scale)


def issue(ps: Pass, c: Any, rows: int, P: int) -> Issue:
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
    if ps.kind == "products" and P == 1:                  # pair i = c >> 2: a_j and b_(j ^ x)
        i, j, x = c >> 2, bit(c, 0), bit(c, 1)                # (rows 2i + j: bank parity(i) ^ j, word i)
        return Issue(parity(i) ^ j, i, parity(i) ^ j ^ x, i, 0)
    if ps.kind == "products":                             # row c >> 1 of a and b, twice
        r = c >> 1
        return Issue(parity(r), r >> 1, parity(r), r >> 1, 0)
    if ps.kind == "basecase" and P == 1:                  # row c and its pair's other row, c ^ 1
        return Issue(parity(c), c >> 1, parity(c) ^ 1, c >> 1, ps.tw_base + c)
    # pointwise, scale, basecase: row c (of a and b)
    return Issue(parity(c), c >> 1, parity(c), c >> 1, ps.tw_base + c if ps.kind == "basecase" else 0)


def operand_sets(ps: Pass, c: Any, P: int) -> tuple[Any, Any, Any]:
    """The bank sets cycle c of a two-operand pass (pointwise, products, basecase) reads its lo
    and hi rows from, and the one it writes the lo row's place of (c: an int or a Value, as
    in `issue`). P >= 2: a and b, into a (b: the products pass's odd cycles). P = 1, where a
    degree-1 pair is the two banks' word i of a set, as one row of P = 2: products, cycles
    4i + k: a_j b_j (k = j) into a, a_j b_(j^1) (k = 2 + j) into b; basecase, cycle 2i + k
    reads both words of set k (a's products: c0; b's: c1) into a."""
    if ps.kind == "products":
        return 0, 1, bit(c, 1 if P == 1 else 0)
    if ps.kind == "basecase" and P == 1:
        return bit(c, 0), bit(c, 0), 0
    return 0, 1, 0


def row_lanes(u: int, t: int, P: int) -> tuple[int, int, int]:
    """Row pass with distance t < P: unit u works in the lo (0) or hi (1) row on lanes l, l+t:
    the lo row's pair (u, u + t) where u's bit t is clear, else the hi row's (u - t, u): each
    unit reads, as in a pair pass, lane u of the lo row as its first operand or lane u of the
    hi row as its second (fewer sources for a lane's multiplexer; Yosys maps either
    assignment to about the same LUTs: 12,040 against 12,061 on the n = 4096, PE = 16 core)."""
    which = 1 if u & t else 0
    return which, u - which * t, u + (1 - which) * t


# --- the passes and their schedule (the same for every prime of a base) ---------------------
def passes(transform: str, n: int, P: int, scale_pass: bool, incomplete: int = 0) -> tuple[Pass, ...]:
    """The passes in order, each butterfly pass with its twiddles' base address: a direction's
    R shared-ROM words (pair passes), H words per lane ROM for each (direction, t) of a row
    pass, laid out in the order the passes first use them (word 0 of a shared block unused).
    scale_pass: polymul with two buffers scales b in a pass of its own, first. incomplete = k:
    the transforms stop k layers early (no pass with t < 2^k); polymul and basemul then (k = 1) multiply
    the degree-1 residues by a products pass and a basecase pass (model.py), not pointwise."""
    if transform not in TRANSFORMS:
        raise ValueError(f"transform must be one of {TRANSFORMS}")
    rows, H = n // P, n // (2 * P)
    shared: dict[bool, int] = {}
    lanes: dict[tuple[bool, int], tuple[int, int]] = {}   # (direction, t; 0: basecase) -> (base, words)

    def lane_block(key: tuple[bool, int], words: int) -> int:
        """The base of a block of the lane ROMs, laid out after the blocks before."""
        if key not in lanes:
            lanes[key] = (sum(size for _, size in lanes.values()), words)
        return lanes[key][0]

    out: list[Pass] = [Pass("scale", False, 1, 0, rows, 0)] if scale_pass else []

    def transform_passes(inverse: bool, bank_set: int) -> None:
        dists = [1 << k for k in range(incomplete, log2(n))]  # GS: t = 2^k, ..., n/2
        for t in (dists if inverse else dists[::-1]):         # CT: t = n/2, ..., 2^k
            if t >= P:
                base = shared.setdefault(inverse, min(rows, n >> incomplete) * len(shared))
                out.append(Pass("pair", inverse, bank_set, t, H, base))
            else:
                out.append(Pass("row", inverse, bank_set, t, H, lane_block((inverse, t), H)))

    if transform in ("forward", "polymul"):
        transform_passes(False, 0)
    if transform == "polymul":
        transform_passes(False, 1)
    if transform in TWO_OPERANDS:
        if incomplete:
            out.append(Pass("products", False, 0, 0, 2 * rows, 0))
            out.append(Pass("basecase", False, 0, 0, rows, lane_block((False, 0), rows)))
        else:
            out.append(Pass("pointwise", False, 0, 0, rows, 0))
    if transform in ("inverse", "polymul"):
        transform_passes(True, 0)
    return tuple(out)


Row = tuple[int, int, int]          # (bank set, bank, address)


def drain(mul_depth: int) -> int:
    """D: issue cycle to write cycle of one operation = 1 (RAM/ROM read) + 1 (butterfly input
    stage) + mul_depth (the reduction's pipeline) + 1 (butterfly output stage)."""
    return mul_depth + 3


def accesses(ps: Pass, c: int, rows: int, P: int) -> tuple[list[Row], list[Row]]:
    """The rows that cycle c of pass ps reads and writes."""
    op = issue(ps, c, rows, P)
    if ps.kind in ("pointwise", "products", "basecase"):
        lo_set, hi_set, w_set = operand_sets(ps, c, P)
        return [(lo_set, op.lo_bank, op.lo_addr), (hi_set, op.hi_bank, op.hi_addr)], [(w_set, op.lo_bank, op.lo_addr)]
    if ps.kind == "scale":
        return [(1, op.lo_bank, op.lo_addr)], [(1, op.lo_bank, op.lo_addr)]
    if ps.kind == "add":                                  # the product's row; the slot it goes to is no pass's
        return [(0, op.lo_bank, op.lo_addr)], []
    pair = [(ps.bank_set, op.lo_bank, op.lo_addr), (ps.bank_set, op.hi_bank, op.hi_addr)]
    return pair, pair


def pass_starts(passes: tuple[Pass, ...], rows: int, P: int, drain: int) -> tuple[int, ...]:
    """The cycle each pass starts issuing, the first at 0: the earliest after the pass before
    has issued at which every row it reads is already written (an operation issued in cycle x
    writes in x + D; a RAM gives the old word in the cycle of a write). Write ports never
    collide: pass p + 1 writes from its start + D on, after pass p's last write. Not after a
    full drain: with n/(4P) > D only the last pass drains."""
    written: dict[Row, int] = {}                          # row -> cycle of its last write
    starts, free = [], 0
    for ps in passes:
        ops = [accesses(ps, c, rows, P) for c in range(ps.issues)]
        start = max([free] + [written[row] + 1 - c for c, (reads, _) in enumerate(ops)
                              for row in reads if row in written])
        for c, (_, writes) in enumerate(ops):
            for row in writes:
                written[row] = start + c + drain
        starts.append(start)
        free = start + ps.issues
    return tuple(starts)


# --- one prime: its twiddle ROM words and constants --------------------------------------------
@dataclasses.dataclass(frozen=True)
class PrimeSchedule:
    """One prime's generation-time values for the passes: its twiddle ROM words, each stored
    premultiplied by F^-1 (CT: T[k]/F; GS: T[k]/(2F)), and b's scale F^-2 (polymul with F != 1;
    else None). F is the reduction's scale for q (mul(x, s) = x s F mod q)."""
    q: int
    psi: int
    F: int
    shared: tuple[int, ...]             # the shared ROM's words (pair passes)
    lanes: tuple[tuple[int, ...], ...]  # per unit, its lane ROM's words (row passes)
    b_scale: int | None

    @classmethod
    def of(cls, passes: tuple[Pass, ...], transform: str, q: int, n: int, P: int, psi: int,
           F: int, incomplete: int = 0) -> PrimeSchedule:
        """The words of each block of `passes` (pair: word k = prep(T[k]), k < R; row: unit u's
        twiddle in cycle c), in the order of their base addresses. T: the table of psi, a
        primitive 2n/2^k-th root (k = incomplete): T[m] = psi^bitrev(m) over log2(n) - k bits,
        m < n/2^k, the indices the passes with t >= 2^k use."""
        rows, H = n // P, n // (2 * P)
        tw = make_twiddles(q, n >> incomplete, psi)
        f_inv, half = pow(F, -1, q), pow(2, -1, q)

        def prep(inverse: bool, s: int) -> int:
            return s * f_inv * half % q if inverse else s * f_inv % q

        shared: list[int] = []
        lanes: list[list[int]] = [[] for _ in range(P)]
        for ps in passes:
            T = tw.inverse if ps.inverse else tw.forward
            if ps.kind == "pair" and ps.tw_base == len(shared):        # a block not laid out yet
                shared += [prep(ps.inverse, s) for s in T[:rows]]   # incomplete=k: n/2^k < R words
            elif ps.kind == "basecase" and ps.tw_base == len(lanes[0]):
                # unit u < P/2: gamma_i = psi^(2 bitrev(i) + 1) of pair i = c P/2 + u (its c0 =
                # a0 b0 + gamma a1 b1); the others 1 (c1 = a0 b1 + a1 b0). P = 1: cycle c is
                # P = 2's unit c & 1 of pair c >> 1 (operand_sets)
                bits = (n >> incomplete).bit_length() - 1
                for c in range(rows):
                    for u in range(P):
                        i, c0 = (c * P // 2 + u, u < P // 2) if P > 1 else (c >> 1, c & 1 == 0)
                        gamma = pow(psi, 2 * bit_reverse(i, bits) + 1, q) if c0 else 1
                        lanes[u].append(prep(False, gamma))
            elif ps.kind == "row" and ps.tw_base == len(lanes[0]):
                t = ps.t
                for c in range(H):
                    for u in range(P):
                        hi, lane, _ = row_lanes(u, t, P)
                        j = (2 * c + hi) * P + lane             # coefficient index of the 'u' input
                        lanes[u].append(prep(ps.inverse, T[n // (2 * t) + j // (2 * t)]))
        b_scale = pow(F, -2, q) if transform in TWO_OPERANDS and F != 1 else None
        return cls(q, psi, F, tuple(shared), tuple(tuple(lane) for lane in lanes), b_scale)

    @property
    def twiddle_words(self) -> int:
        return len(self.shared) + sum(len(lane) for lane in self.lanes)


# --- the cfg stream (twiddles=load) ------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class ConfigMap:
    """twiddles=load: the cfg stream's payload Cat(data, word, sel), k residue slots (the
    moduli of an RNS base, or one). sel 0: the constants, slot j's at word 3j + c (c = 0: q_j,
    1: its run-time fields, model.pack_fields, 2: b's scale F^-2, polymul); sel 1: the shared
    twiddle RAM, slot j's words at j shared_len + a; sel 2 + u: lane u's twiddle RAM, slot
    j's at j lane_len + a (the addresses the RNS core reads residue j's ROM words at)."""
    k: int
    P: int
    shared_len: int
    lane_len: int
    data_bits: int
    word_bits: int
    sel_bits: int

    CONSTANTS = 3

    @classmethod
    def of(cls, k: int, P: int, shared_len: int, lane_len: int, w: int, rt_bits: int) -> ConfigMap:
        """The layout for k slots of a core with w-bit coefficients and rt_bits of run-time
        modulus fields: data as wide as the widest word, word addresses every sel's range."""
        word_bits = max(cls.CONSTANTS * k - 1, k * shared_len - 1, k * lane_len - 1, 1).bit_length()
        return cls(k, P, shared_len, lane_len, max(w, rt_bits), word_bits, (P + 1).bit_length())

    @property
    def width(self) -> int:
        return self.data_bits + self.word_bits + self.sel_bits

    @property
    def count(self) -> int:
        """Words that load every slot."""
        return self.k * (self.CONSTANTS + self.shared_len + self.P * self.lane_len)

    def payload(self, sel: int, word: int, data: int) -> int:
        return data | word << self.data_bits | sel << (self.data_bits + self.word_bits)

    def words(self, primes: tuple[PrimeSchedule, ...], rts: list[int]) -> list[int]:
        """The payloads that load slot j with primes[j] (its ROM words and b's scale) and its
        run-time fields rts[j] (packed)."""
        out = []
        for j, (ps, rt) in enumerate(zip(primes, rts, strict=True)):
            c, s, ln = self.CONSTANTS * j, j * self.shared_len, j * self.lane_len
            out += [self.payload(0, c, ps.q), self.payload(0, c + 1, rt), self.payload(0, c + 2, ps.b_scale or 0)]
            out += [self.payload(1, s + a, x) for a, x in enumerate(ps.shared)]
            out += [self.payload(2 + u, ln + a, x) for u in range(self.P) for a, x in enumerate(ps.lanes[u])]
        return out


# --- the core's plan -------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class NttPlan:
    """Everything generation-time about one NTT core (Algorithm.derive, once): the passes and
    their schedule, one PrimeSchedule per prime of the base (q's first; k = 1: the single-prime
    core), run one after another on the k residue polynomials of a frame, which sit side by
    side in the banks (residue j at addresses j R/2 ..) with the j-th prime's ROM words,
    constants and run-time modulus; the reduction's parameters and the cfg layout; and the
    timing (below). All primes share one shape (n, P, passes, ROM sizes, the drain)."""
    transform: str
    n: int
    P: int
    buffers: int                          # 1, or 2 (ping-pong)
    w: int                                # bits per coefficient: the reduction's word width
    mul_depth: int                        # the reduction's pipeline stages
    passes: tuple[Pass, ...]
    starts: tuple[int, ...]               # pass_starts: the cycle each pass of a residue starts issuing
    primes: tuple[PrimeSchedule, ...]
    reduction: Any                        # the reduction's parameters the butterflies' datapath is built from
    residues: tuple[Any, ...]             # per prime, the reduction's parameters for it (the model's mul)
    runtime: tuple[tuple[int, ...], ...]  # RNS or twiddles=load: per prime, its run-time modulus fields
    config: ConfigMap | None              # twiddles=load: the cfg stream's layout
    read_stages: int = 0                  # registers after the RAMs' and ROMs' read data (D grows by as many)
    unit_stages: int = 0                  # registers between the routes and the units' inputs (likewise)
    twiddle_style: str = "any"            # the twiddle memories: block (RAM), lut, any (the tools' choice)
    reset_all: bool = False               # reset=all: the butterflies' registers take rst too

    # --- shape --------------------------------------------------------------------------
    @property
    def rows(self) -> int:
        """R = n/P: rows of a residue polynomial, the beats of one."""
        return self.n // self.P

    @property
    def H(self) -> int:
        """n/(2P): the cycles of a butterfly pass."""
        return self.n // (2 * self.P)

    @property
    def operands(self) -> int:
        """Polynomials a frame: a (and b): the bank sets."""
        return 2 if self.transform in TWO_OPERANDS else 1

    @property
    def k(self) -> int:
        """Residue polynomials a frame: the primes of the base."""
        return len(self.primes)

    @property
    def moduli(self) -> list[int]:
        return [ps.q for ps in self.primes]

    @property
    def b_scales(self) -> list[int | None]:
        return [ps.b_scale for ps in self.primes]

    @property
    def scale_at_load(self) -> bool:
        """polymul, F != 1, one buffer: b is scaled on its way in (the units are idle while
        loading); two buffers scale it in a pass of its own."""
        return self.primes[0].b_scale is not None and self.buffers == 1

    # --- the ROMs: residue j's words at j shared_len (j lane_len) ------------------------------
    @functools.cached_property
    def shared(self) -> list[int]:
        return [x for ps in self.primes for x in ps.shared]

    @functools.cached_property
    def lanes(self) -> list[list[int]]:
        return [[x for ps in self.primes for x in ps.lanes[u]] for u in range(self.P)]

    @property
    def shared_len(self) -> int:
        return len(self.primes[0].shared)

    @property
    def lane_len(self) -> int:
        return len(self.primes[0].lanes[0])

    @property
    def twiddle_words(self) -> int:
        return sum(ps.twiddle_words for ps in self.primes)

    # --- the schedule ---------------------------------------------------------------------
    @property
    def drain(self) -> int:
        """D = mul_depth + 3 (`drain`), + read_stages + unit_stages."""
        return drain(self.mul_depth) + self.read_stages + self.unit_stages

    @property
    def span(self) -> int:
        """S: the cycles from a residue's first pass's first issue to its last pass's last
        issue + 1 (residues share no rows: residue j + 1 starts right after)."""
        return self.starts[-1] + self.passes[-1].issues

    @property
    def waits(self) -> list[int]:
        """Idle cycles after each pass's issues before the next starts (the last: D)."""
        starts = [*self.starts, self.span + self.drain]
        return [starts[p + 1] - starts[p] - ps.issues for p, ps in enumerate(self.passes)]

    # --- the timing (Schedule) ----------------------------------------------------------------
    @property
    def cycles(self) -> int:
        """C = k S + D: the passes of each residue in turn, then the last one drains."""
        return self.k * self.span + self.drain

    @property
    def frame_beats(self) -> int:
        """k R: the k residue polynomials of R rows each."""
        return self.k * self.rows

    @property
    def result_beats(self) -> int:
        return self.frame_beats

    @property
    def latency(self) -> int:
        """k R + C + 3, the same for every beat b of a frame: beat b is accepted at t0 + b; the
        compute phase starts at t0 + k R (the cycle after the last beat) and takes C cycles;
        the unload then reads row b at t0 + k R + C + b (RAM read: 1 cycle) into the output
        FIFO (write to o.valid: 2 cycles); + read_stages (the banks' read registers)."""
        return self.frame_beats + self.cycles + 3 + self.read_stages

    @property
    def initiation_interval(self) -> int:
        """One buffer: k R + C, k R load beats, then C compute cycles; the next frame loads
        while this one is read out (beat b is taken once row b has been). Two: C, the next
        frame loads into the other buffer during the last k R cycles of this one's compute."""
        return self.cycles + (self.frame_beats if self.buffers == 1 else 0)
