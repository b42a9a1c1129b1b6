"""The derived plans of family "fmlm3", each with its timing stated once: TransformPlan, the
FFT/FFT^-1 unit of paper Sec. 5.1 (Figs. 4 and 8: fmlm3-transform, and the unit inside
rsa-fmlm3), and MultiplierPlan, rsa-fmlm3 (Algorithm 2 or 3 around one such unit; its steps:
program.py). model.py computes the values, hw.py and multiplier_hw.py follow these plans.

The transform unit
------------------
Data: P coefficients of Z_M, M = 2^K + 1, K = cP, each K+1 bits in [0, M). The transform is
v = log2 P constant-geometry stages (eqs. 7-9): stage j takes (x_2p, x_2p+1) to
(x_p, x_p+P/2) = x_2p +- x_2p+1 A^e, e = math.fmlm3.stage_twiddle(kind, P, j, p), on the
input in bit-reversed order; the inverses scale output m by 2^-v (CT^-1) or 2^-v A^-m
(NCT^-1). The final stage writes m = p and p + P/2, and scale(p + P/2) = scale(p) A^(-P/2) =
scale(p) 2^(-K/2) (NCT^-1; K = cP even), so with s = scale(p) the final-stage operators
(FSOs) fold into the butterfly: x_p = s u + (s w) v, x_p+P/2 = f (s u - (s w) v), f =
2^(-K/2) for NCT^-1 and 1 for CT^-1; s w is the twiddle ROM's word (`twiddle_exponents`), s
u a second PowerMul (`scale_rom`, the identity before the final stage), f a fixed shift
(wiring and one subtraction, hw.fermat.fixed_shift): hw.butterfly.ShiftButterfly.

Butterfly structures: bfs = 1 or 2, L = 2 bfs lanes. Issue n (0 <= n < H = P/L) of a stage
runs pair p = n (+ P/4 for the second structure): it reads x_2p, x_2p+1 (lanes 2b, 2b+1)
and writes x_p, x_p+P/2 (the same lanes).

Memory: two RAM groups (ping-pong: stage j reads group j mod 2 and writes the other) of L
banks, P/L words each (amaranth.lib.memory, one read and one write port: BRAM or LUTRAM).
Coefficient i lives in bank `bank(i)` at word `word(i)`:
  bfs = 1: bank = b0 ^ b(v-1),                 word = bits 1..v-1
  bfs = 2: bank = (b0 ^ t) + 2 (b(v-1) ^ t),   word = bits 1..v-2,
           t = b1 ^ b(v-2) (P = 8: t = b1)
so the L coefficients of every access are in L different banks: a stage's reads (bits 0
and v-1 vary), its writes and the load of bit-reversed positions (bits v-1, v-2), the
read-out in natural order (bits 0, 1). The channel switcher routes lanes to banks and back
by these bank numbers (`conflict_free` checks them all).

Schedule (one issue a cycle): an issue's addresses at cycle t, the RAM words at t+1 (the
channel switcher, registered), the butterflies at t+2 (with the FSOs folded in), the write
at t + Dw, Dw = 2 + butterfly depth (`butterfly_depth`). Stage j+1 starts G cycles after
stage j, the least G >= H with every word it reads written the cycle before at the latest
and none it writes still to be read by stage j (`gap`, brute force; closed form
G = max(H, H/2 + Dw + 1)). The transform takes C = (v-1) G + H + Dw cycles, first issue to
last write (`cycles`); eq. (29) is (v-1) max(P/(2n), 11 + P/(4n)) + the final stage (11 +
P/(2n) for CT and NCT; 14 + P/2 and 16 + P/2 for the inverses, whose FSO accumulate 2 digits
a cycle): the same form with the paper's pipeline depth 11 (Delta_BFS = 6, Delta_CS = 2, 3
for the RAM), see `paper_cycles`. One frame at a time: latency H + C + 1 (beat k in to beat
k out), initiation interval 2H + C + 1.

The multiplier
--------------
Cycles (`step_cycles`, `latency`): a transform step 1 + (H + C + 1) + (H - 1) + d + 1 =
2H + C + 2 + d (d its sink's depth, program.depths; the input step 2H + C + 1 + d from its
first beat; depth = deep a store's read takes 2 cycles, program.read_latency: 2H + C + 3 + d),
a pass H + d; latency = the steps + 1 (the read-out, straight from the
stores), II = latency + H (the output step ends as its last word is taken), cycles =
latency + H - 1 (first beat in to last beat out). C = (v-1) G + H + Dw is the transform
unit's. l = 2048, P = 128, u = 16, c = 1/2, Alg 3, 2 BFS: H = 32, C = 232, mul_add_depth 6,
7 transforms: 2,258 cycles (latency 2,227); Table 6 gives 2,036 for the product kept in the
spectral domain (domain = spectral: 5 transforms, 1,720 cycles here); the time domain needs
the 2 more forward transforms of x and y.

Table 6's 2,036 (same set) against Table 5: its rows for Alg 3 summed one after another,
5 transforms (CT^-1 270, NCT 237 twice, NCT^-1 274, CT 235: 1,253), 4 component-wise
multiply-adds at Delta_MA + P + 3, 6 time-domain additions at P/4 + 6 and one halving at
P/4 + 5, give 2,042 + 4 Delta_MA (math.fmlm3.multiplication_cycles): the table's figure is
that sequential sum (within 0.3 % with Delta_MA = 0), no step overlapped. This core differs
in three places, and comes out 16 % below:
  - a transform here is 2H + C + 2 + d = 298..305 (C = 232, the load and the read-out H = 32
    each inside it); the paper's 235..274 leave the load and read-out to the units that
    write into and read from the transform RAM (the MA's P + 3, the adders' P/4 + 6);
  - the component-wise products run on L = 4 MulAdds, H = 32 beats each: one rides on the
    input, one on NCT(m)'s read-out (T'(m) (.) T'(N) + XN), one beside CT^-1, and only one
    is a step of its own (H + 1 + mul_add_depth = 39 cycles); the paper has ONE Multiply Adder (9 DSP) at
    one coefficient a cycle, P + 3 + Delta_MA = 131+ each, one after another. muladds = 1
    (program.shared_steps) does that: the 3 products on the critical path take P + 1 +
    mul_add_depth = 135 cycles each on the one MulAdd, two of them overlapped with the input
    and with NCT(m)'s read-out (T'(x) (.) T'(y) still beside CT^-1): 2,009 cycles on this set
    (latency 1,978; time domain 2,539) for 1/4 of the MulAdds' DSPs;
  - the time-domain work is 3 passes of H + d (m, D, t: 105 cycles) against the paper's
    6 additions and a halving (265), by forming the candidates side by side (units.py).

Frames: x, y in [0, N) as P digits of u bits, L a beat (beat k, lane l: digit Lk + l), H =
P/L beats; the result the same way (domain = spectral: `spectral_width` bits a beat). cfg:
N's spectra T(N') = CT(N'), T'(N) = NCT(N) as H beats of L coefficients (K+1 bits) and N's
digits as H beats, Cat(data[L (K+1)], index[log2 H], sel[2]) (`cfg_width`, CFG_SELECT).
"""

from __future__ import annotations

import dataclasses
import functools
from fractions import Fraction
from typing import Any

from amaranth.hdl import Value

from ...hw import fermat
from ...hw.butterfly import shift_butterfly_depth
from ...hw.dsp import DSP_PROFILES, karatsuba_dsps
from ...hw.fermat import power_control, rotation_step
from ...math import fmlm3
from . import program as PR
from .program import Step

KINDS = {"ct": "CT", "nct": "NCT", "ct_inv": "CT^-1", "nct_inv": "NCT^-1"}
KIND_CODES = {kind: code for code, kind in enumerate(KINDS)}     # kind = any: the frame's kind field
READOUT_DELAY = 1           # a read issued at cycle t is on o at t + 1 (a held hw.stream.ReadOut)
SWITCH_DEPTH = 2            # issue -> words in the channel switcher's register: RAM read, switch
OUTPUT_DELAY = 1            # rsa-fmlm3's output: a result word read at cycle t is on o at t + 1
CFG_SELECT = {"T(N')": 1, "T'(N)": 2, "N": 3}       # rsa-fmlm3's cfg sel (0: hw.config's empty register file)


def _bit(i: int | Value, k: int) -> int | Value:
    """Bit k of an int or an Amaranth Value (the memory map serves the model and the hardware)."""
    if isinstance(i, Value):
        return i[k] if k < len(i) else 0
    return (i >> k) & 1


class HBeatFrames:
    """A frame and its result are H beats each (L lanes a beat): the Schedule's beats."""

    @property
    def H(self) -> int:
        raise NotImplementedError

    @property
    def frame_beats(self) -> int:
        return self.H

    @property
    def result_beats(self) -> int:
        return self.H


@dataclasses.dataclass(frozen=True)
class TransformPlan(HBeatFrames):
    """The transform unit of length P over Z_M, M = 2^(cP) + 1, running `kind` (ct, nct,
    ct_inv, nct_inv, or any: each frame names its own) on bfs butterfly structures. Its
    derived quantities are computed once (cached properties)."""
    P: int
    c: Fraction
    kind: str                 # ct, nct, ct_inv, nct_inv or any
    bfs: int
    deep: bool = False        # no stage with two carry chains in series (hw.butterfly.ShiftButterfly)

    # --- sizes ----------------------------------------------------------------------------
    @functools.cached_property
    def ring(self) -> fmlm3.Ring:
        return fmlm3.Ring(int(self.c * self.P), self.c)

    @functools.cached_property
    def K(self) -> int:
        return self.ring.K

    @functools.cached_property
    def v(self) -> int:
        return self.P.bit_length() - 1

    @functools.cached_property
    def lanes(self) -> int:
        return 2 * self.bfs

    @functools.cached_property
    def H(self) -> int:
        """Issues per stage (and beats per frame)."""
        return self.P // self.lanes

    @functools.cached_property
    def kinds(self) -> list[str]:
        """The transforms the unit runs: its one kind, or all four (kind = any: chosen per
        frame, code KIND_CODES)."""
        return list(KINDS) if self.kind == "any" else [self.kind]

    @functools.cached_property
    def inverse(self) -> bool:
        """It runs an inverse: its butterflies scale u (the final-stage operators)."""
        return any(k.endswith("_inv") for k in self.kinds)

    @functools.cached_property
    def kind_bits(self) -> int:
        return 2 if self.kind == "any" else 0

    # --- the memory map -------------------------------------------------------------------
    def bank(self, i: int | Value) -> int | Value:
        """The bank of coefficient i (an int, or a Value in the hardware)."""
        v = self.v
        if self.bfs == 1:
            return _bit(i, 0) ^ _bit(i, v - 1)
        t = _bit(i, 1) if v == 3 else _bit(i, 1) ^ _bit(i, v - 2)
        return (_bit(i, 0) ^ t) | (_bit(i, v - 1) ^ t) << 1

    def word(self, i: int | Value) -> int | Value:
        bits = self.v - self.bfs
        return i[1:1 + bits] if isinstance(i, Value) else (i >> 1) & ((1 << bits) - 1)

    def pairs(self, n: int) -> list[int]:
        """The pairs p of issue n, one per butterfly structure."""
        return [n + b * self.P // 4 for b in range(self.bfs)]

    def reads(self, n: int) -> list[int]:
        return [i for p in self.pairs(n) for i in (2 * p, 2 * p + 1)]

    def writes(self, n: int) -> list[int]:
        return [i for p in self.pairs(n) for i in (p, p + self.P // 2)]

    def loads(self, k: int) -> list[int]:
        """Beat k's coefficients x_(Lk+l) go to bit-reversed positions."""
        return [int(format(self.lanes * k + lane, f"0{self.v}b")[::-1], 2) for lane in range(self.lanes)]

    def readouts(self, k: int) -> list[int]:
        return [self.lanes * k + lane for lane in range(self.lanes)]

    def conflict_free(self) -> bool:
        """Every access touches L different banks, and (bank, word) names one coefficient."""
        accesses = [f(k) for f in (self.reads, self.writes, self.loads, self.readouts) for k in range(self.H)]
        places = {(self.bank(i), self.word(i)) for i in range(self.P)}
        return len(places) == self.P and all(len({self.bank(i) for i in a}) == self.lanes for a in accesses)

    # --- ROMs: kind k's words in region k (Cat(address, k)) when the kind is chosen per frame
    def exponents(self, kind: str) -> list[list[int]]:
        """Per butterfly structure, the twiddle exponent (of A) of stage j, issue n at j H + n."""
        return [[fmlm3.stage_twiddle(KINDS[kind], self.P, j, self.pairs(n)[b]) for j in range(self.v)
                 for n in range(self.H)] for b in range(self.bfs)]

    def scales(self, kind: str) -> list[list[int]]:
        """Per butterfly structure, the exponent of A of issue n's final-stage scale s (of
        output p, its pair; the power of two is -v): -p for NCT^-1, 0 for CT^-1. Output
        p + P/2's scale is s A^(-P/2) = s 2^(-K/2) (NCT^-1), s (CT^-1)."""
        return [[-self.pairs(n)[b] if kind == "nct_inv" else 0 for n in range(self.H)]
                for b in range(self.bfs)]

    def twiddle_exponents(self, kind: str) -> list[list[int]]:
        """`exponents` as the twiddle multipliers apply them: an inverse's final stage times s
        (s (u + w v) = s u + (s w) v; the power of two -v beside it)."""
        tables = self.exponents(kind)
        if kind.endswith("_inv"):
            final = (self.v - 1) * self.H
            for table, scales in zip(tables, self.scales(kind), strict=True):
                for n, e in enumerate(scales):
                    table[final + n] += e
        return tables

    def _needs_sqrt2(self, tables: Any) -> bool:
        return self.c.denominator == 2 and any(e % 2 for table in tables for row in table for e in row)

    @functools.cached_property
    def butterfly_sqrt2(self) -> bool:
        return self._needs_sqrt2(self.twiddle_exponents(k) for k in self.kinds)

    @functools.cached_property
    def scale_sqrt2(self) -> bool:
        """The u multipliers' sqrt(2) path (only units that run an inverse have them)."""
        return self._needs_sqrt2(self.scales(k) for k in self.kinds if k.endswith("_inv"))

    @functools.cached_property
    def shift_amounts(self) -> tuple[int, int]:
        """(step, offset) of the butterflies' shift amounts (hw.fermat.rotation_step): for an
        integer c every amount is c j or c j + (-v mod c) (K = cP; an inverse's final stage
        adds the scale's 2^-v; power_control checks each), where that rotator has fewer levels;
        (1, 0): any amount (c = 1/2, or no level saved)."""
        if self.c.denominator != 1:
            return 1, 0
        return rotation_step(self.K, int(self.c), -self.v % int(self.c))

    @functools.cached_property
    def fixed_shift(self) -> int | None:
        """The exponent of 2 of o1's fixed factor in NCT^-1's final stage (A^(-P/2) = 2^(-K/2)),
        None if the unit does not run NCT^-1."""
        return -(self.K // 2) if "nct_inv" in self.kinds else None

    @functools.cached_property
    def stage_bits(self) -> int:
        return max(1, (self.v - 1).bit_length())

    def _regions(self, words_of: Any, size: int) -> list[int]:
        """Each kind's words in a region of `size` words (padded), the kinds in code order."""
        out: list[int] = []
        for kind in self.kinds:
            words = words_of(kind)
            out += words + [0] * (size - len(words))
        return out

    def twiddle_rom(self, b: int) -> list[int]:
        """Address Cat(n, stage, kind code): stage j's words at j 2^log2(H); an inverse's final
        stage with the scale's 2^-v."""
        final = (self.v - 1) * self.H

        def words(kind: str) -> list[int]:
            table = self.twiddle_exponents(kind)[b]
            return [power_control(self.K, self.c, e, -self.v if kind.endswith("_inv") and a >= final else 0,
                                  self.butterfly_sqrt2, *self.shift_amounts) for a, e in enumerate(table)]
        return self._regions(words, self.H << self.stage_bits)

    def scale_rom(self, b: int) -> list[int]:
        """Address Cat(n, kind code): s of structure b's pair (the final stage of an inverse;
        the forward kinds' words are the identity, unused)."""
        def words(kind: str) -> list[int]:
            if not kind.endswith("_inv"):
                return [self.scale_identity()] * self.H
            return [power_control(self.K, self.c, e, -self.v, self.scale_sqrt2, *self.shift_amounts)
                    for e in self.scales(kind)[b]]
        return self._regions(words, self.H)

    def scale_identity(self) -> int:
        return power_control(self.K, self.c, 0, 0, self.scale_sqrt2, *self.shift_amounts)

    # --- the schedule and the timing -------------------------------------------------------
    @functools.cached_property
    def butterfly_depth(self) -> int:
        """The products (twiddle, and u's scale if an inverse runs), the sum and difference, o1's
        fixed shift (NCT^-1)."""
        return shift_butterfly_depth(self.butterfly_sqrt2, self.scale_sqrt2 if self.inverse else None,
                                     self.fixed_shift is not None, self.deep)

    @functools.cached_property
    def write_delay(self) -> int:
        """Dw: issue -> write cycle."""
        return SWITCH_DEPTH + self.butterfly_depth

    @functools.cached_property
    def gap(self) -> int:
        """G: the least stage spacing >= H with stage j+1 reading only written words (one cycle
        after the write at least) and writing no word stage j has still to read."""
        H, Dw = self.H, self.write_delay
        written = {i: n + Dw for n in range(H) for i in self.writes(n)}       # stage j, from its start
        read = {i: n for n in range(H) for i in self.reads(n)}
        G = H
        while not all(G + n >= written[i] + 1 for n in range(H) for i in self.reads(n)) or \
                not all(G + n + Dw >= read[i] for n in range(H) for i in self.writes(n)):
            G += 1
        return G

    @functools.cached_property
    def cycles(self) -> int:
        """C = (v-1) G + H + Dw: the first issue to the last write (the formula the algorithm
        claims); deep one more, the last loaded beat's write before the first issue (deep
        registers a loaded beat before the write crossbar: the beat came from a block RAM
        through a select, the K = 128 cores' critical path on ECP5)."""
        return self.deep + (self.v - 1) * self.gap + self.H + self.write_delay

    @property
    def latency(self) -> int:
        """Beat k in to beat k out: the load (H beats), the transform (C) and the read-out."""
        return self.H + self.cycles + READOUT_DELAY

    @property
    def initiation_interval(self) -> int:
        """One frame at a time: load H beats, transform C cycles, read out H beats (the last
        word taken a cycle after its read)."""
        return 2 * self.H + self.cycles + 1

    def paper_cycles(self) -> int:
        """Eq. (29) with eq. (28) and Sec. 5.5's final stages (math.fmlm3.transform_cycles); the
        largest over the kinds the unit runs."""
        return max(fmlm3.transform_cycles(KINDS[k], self.P, self.bfs, self.c == fmlm3.HALF) for k in self.kinds)


@dataclasses.dataclass(frozen=True)
class MultiplierPlan(HBeatFrames):
    """rsa-fmlm3 with parameter set `params` (l, P, u, c, algorithm) around one transform
    unit of bfs structures (kind = any); its program (program.py) and the cycles it takes.
    Its derived quantities are computed once (cached properties)."""
    params: fmlm3.Fmlm3Params
    bfs: int
    domain: str = "time"          # time: x, y, t as digits; spectral: as T(.), T'(.) and the parity
    shared: bool = False          # one MulAdd, one coefficient a cycle (else one a lane)
    deep: bool = False            # MulAdds, Restrict and the transform's butterflies with no two
                                  # carry chains in series (hw.fermat.mul_add_depth, units.Restrict),
                                  # stores read through a register (program.read_latency)
    dsp: str = "dsp48e2"          # the MulAdds' product tiling (a hw.dsp profile)

    def __post_init__(self) -> None:
        if self.shared:     # the side pass ends inside the first CT^-1 (program.shared_steps)
            ct_inv = Step("ct_inv", "Z0", "acc", None, None, "A")
            assert self.params.P + self.depths["pass_mul1"] < self.step_cycles(ct_inv, False)

    # --- sizes -----------------------------------------------------------------------
    @functools.cached_property
    def transform(self) -> TransformPlan:
        """The one transform unit (all four kinds, chosen per frame)."""
        return TransformPlan(self.params.P, self.params.c, "any", self.bfs, self.deep)

    @functools.cached_property
    def lanes(self) -> int:
        return 2 * self.bfs

    @functools.cached_property
    def H(self) -> int:
        return self.params.P // self.lanes

    @functools.cached_property
    def K(self) -> int:
        return self.params.ring.K

    @functools.cached_property
    def width(self) -> int:
        """uP: R = 2^width - 1, Q' = 2^width + 1."""
        return self.params.l_max

    @functools.cached_property
    def spectral_width(self) -> int:
        """domain = spectral: a beat of T(.) and T'(.) (L coefficients of K+1 bits each) and the
        parity."""
        return 2 * self.lanes * (self.K + 1) + 1

    @functools.cached_property
    def beat_width(self) -> int:
        """A beat of x, y or t: L digits of u bits, or (domain = spectral) `spectral_width`."""
        return self.spectral_width if self.domain == "spectral" else self.lanes * self.params.u

    @functools.cached_property
    def index_bits(self) -> int:
        return max(1, (self.H - 1).bit_length())

    @functools.cached_property
    def cfg_data_bits(self) -> int:
        return self.lanes * (self.K + 1)

    @functools.cached_property
    def cfg_width(self) -> int:
        """Cat(data[L (K+1)], index[log2 H], sel[2])."""
        return self.cfg_data_bits + self.index_bits + 2

    @functools.cached_property
    def mul_add_depth(self) -> int:
        return fermat.mul_add_depth(self.K, DSP_PROFILES[self.dsp], self.deep)

    @functools.cached_property
    def mul_add_dsps(self) -> int:
        """The DSP multiplications of one MulAdd (0: dsp none, the product left to the tool)."""
        return karatsuba_dsps(self.K, DSP_PROFILES[self.dsp])

    @functools.cached_property
    def read_latency(self) -> int:
        """A store's read address to its data (program.read_latency)."""
        return PR.read_latency(self.deep)

    @functools.cached_property
    def depths(self) -> dict[str, int]:
        """Each sink's and pass's depth (program.depths)."""
        return PR.depths(self.mul_add_depth, self.deep)

    # --- the program ---------------------------------------------------------------------
    @functools.cached_property
    def program(self) -> tuple[Step, ...]:
        """The core's steps in order (program.steps)."""
        return tuple(PR.steps(self.params.algorithm, self.domain, self.shared))

    @functools.cached_property
    def store_groups(self) -> tuple[tuple[str, ...], ...]:
        """The used stores of each program.STORE_GROUPS memory (checked: program.store_groups)."""
        return tuple(PR.store_groups(self.program))

    @functools.cached_property
    def transforms(self) -> tuple[str, ...]:
        return tuple(step.kind for step in self.program if step.kind)

    def paper_kinds(self) -> dict[str, int]:
        """The transforms by the paper's names (Table 5's count with time-domain I/O)."""
        out: dict[str, int] = {}
        for kind in self.transforms:
            out[KINDS[kind]] = out.get(KINDS[kind], 0) + 1
        return out

    # --- the timing ----------------------------------------------------------------------
    def step_cycles(self, step: Step, first: bool) -> int:
        """A step's cycles, its first to the next one's first (the input step: from its first
        beat's acceptance). A transform: the first read (`read_latency`; none from the input),
        the unit's latency H + C + 1 to the first result, H - 1 more (mul1: P - 1, a coefficient
        a cycle), the sink's depth, 1 to hand over; a pass: H reads (a product on the one
        MulAdd: P) and its depth."""
        H, C = self.H, self.transform.cycles
        P = self.params.P
        depth = self.depths[step.sink]
        if step.sink == "in":
            return H + depth
        if step.sink == "pass_mul1":
            return P + depth
        if step.sink == "in_mul1":                          # its first issue the cycle after the first beat
            return 1 + P + depth
        if step.kind:
            issues = P if step.sink == "mul1" else H            # mul1: one coefficient a cycle
            return (0 if first else self.read_latency) + (H + C + READOUT_DELAY) + (issues - 1) + depth + 1
        return H + depth

    def schedule(self) -> dict[str, int]:
        """The cycles of latency by step (tests and extra_info)."""
        steps = self.program[:-1]
        out = {f"{k}:{step.kind or step.sink}": self.step_cycles(step, k == 0) for k, step in enumerate(steps)}
        return out | {"readout": OUTPUT_DELAY}

    @functools.cached_property
    def latency(self) -> int:
        """First input beat accepted -> first output beat offered: the steps before the output
        and the read-out's cycle."""
        return sum(self.schedule().values())

    @property
    def initiation_interval(self) -> int:
        """One multiplication at a time: the next frame's first beat is taken the cycle after
        the output's last word is taken (H reads, the last word a cycle after its read)."""
        return self.latency + self.H

    @property
    def cycles(self) -> int:
        """First input beat to last output beat."""
        return self.latency + self.H - 1
