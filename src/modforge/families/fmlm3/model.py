"""The FFT/FFT^-1 unit of FMLM3 (paper Sec. 5.1, Figs. 4 and 8) as a generation-time plan:
the memory map, the twiddle and final-stage ROMs, and the schedule the hardware follows.
The values it computes are math.fmlm3's ct, nct, ct_inv and nct_inv (bit-exact).

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
last write; eq. (29) is (v-1) max(P/(2n), 11 + P/(4n)) + the final stage (11 + P/(2n) for
CT and NCT; 14 + P/2 and 16 + P/2 for the inverses, whose FSO accumulate 2 digits a cycle):
the same form with the paper's pipeline depth 11 (Delta_BFS = 6, Delta_CS = 2, 3 for the
RAM), see `paper_cycles`.
"""

from __future__ import annotations

import dataclasses
import functools
from fractions import Fraction

from amaranth.hdl import Value

from ...hw.butterfly import shift_butterfly_depth
from ...hw.fermat import power_control
from ...math import fmlm3

KINDS = {"ct": "CT", "nct": "NCT", "ct_inv": "CT^-1", "nct_inv": "NCT^-1"}
KIND_CODES = {kind: code for code, kind in enumerate(KINDS)}     # kind = any: the frame's kind field
FUNCTIONS = {"ct": fmlm3.ct, "nct": fmlm3.nct, "ct_inv": fmlm3.ct_inv, "nct_inv": fmlm3.nct_inv}
READOUT_DELAY = 1           # a read issued at cycle t is on o at t + 1 (a held hw.stream.ReadOut)
SWITCH_DEPTH = 2            # issue -> words in the channel switcher's register: RAM read, switch


def _bit(i, k: int):
    """Bit k of an int or an Amaranth Value (the memory map serves the model and the hardware)."""
    if isinstance(i, Value):
        return i[k] if k < len(i) else 0
    return (i >> k) & 1


@dataclasses.dataclass(frozen=True)
class TransformPlan:
    P: int
    c: Fraction
    kind: str                 # ct, nct, ct_inv, nct_inv
    bfs: int

    # --- sizes ----------------------------------------------------------------------------
    @property
    def ring(self) -> fmlm3.Ring:
        return fmlm3.Ring(int(self.c * self.P), self.c)

    @property
    def K(self) -> int:
        return self.ring.K

    @property
    def v(self) -> int:
        return self.P.bit_length() - 1

    @property
    def lanes(self) -> int:
        return 2 * self.bfs

    @property
    def H(self) -> int:
        """Issues per stage (and beats per frame)."""
        return self.P // self.lanes

    @property
    def kinds(self) -> list[str]:
        """The transforms the unit runs: its one kind, or all four (kind = any: chosen per
        frame, code KIND_CODES)."""
        return list(KINDS) if self.kind == "any" else [self.kind]

    @property
    def inverse(self) -> bool:
        """It runs an inverse: its butterflies scale u (the final-stage operators)."""
        return any(k.endswith("_inv") for k in self.kinds)

    @property
    def kind_bits(self) -> int:
        return 2 if self.kind == "any" else 0

    # --- the model ------------------------------------------------------------------------
    def run(self, x, kind: str | None = None) -> list[int]:
        return FUNCTIONS[kind or self.kind](x, self.ring)

    # --- the memory map -------------------------------------------------------------------
    def bank(self, i):
        """The bank of coefficient i (an int, or a Value in the hardware)."""
        v = self.v
        if self.bfs == 1:
            return _bit(i, 0) ^ _bit(i, v - 1)
        t = _bit(i, 1) if v == 3 else _bit(i, 1) ^ _bit(i, v - 2)
        return (_bit(i, 0) ^ t) | (_bit(i, v - 1) ^ t) << 1

    def word(self, i):
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

    def _needs_sqrt2(self, tables) -> bool:
        return self.c.denominator == 2 and any(e % 2 for table in tables for row in table for e in row)

    @property
    def butterfly_sqrt2(self) -> bool:
        return self._needs_sqrt2(self.twiddle_exponents(k) for k in self.kinds)

    @property
    def scale_sqrt2(self) -> bool:
        """The u multipliers' sqrt(2) path (only units that run an inverse have them)."""
        return self._needs_sqrt2(self.scales(k) for k in self.kinds if k.endswith("_inv"))

    @property
    def fixed_shift(self) -> int | None:
        """The exponent of 2 of o1's fixed factor in NCT^-1's final stage (A^(-P/2) = 2^(-K/2)),
        None if the unit does not run NCT^-1."""
        return -(self.K // 2) if "nct_inv" in self.kinds else None

    @property
    def stage_bits(self) -> int:
        return max(1, (self.v - 1).bit_length())

    def _regions(self, words_of, size: int) -> list[int]:
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

        def words(kind):
            table = self.twiddle_exponents(kind)[b]
            return [power_control(self.K, self.c, e, -self.v if kind.endswith("_inv") and a >= final else 0,
                                  self.butterfly_sqrt2) for a, e in enumerate(table)]
        return self._regions(words, self.H << self.stage_bits)

    def scale_rom(self, b: int) -> list[int]:
        """Address Cat(n, kind code): s of structure b's pair (the final stage of an inverse;
        the forward kinds' words are the identity, unused)."""
        def words(kind):
            if not kind.endswith("_inv"):
                return [self.scale_identity()] * self.H
            return [power_control(self.K, self.c, e, -self.v, self.scale_sqrt2) for e in self.scales(kind)[b]]
        return self._regions(words, self.H)

    def scale_identity(self) -> int:
        return power_control(self.K, self.c, 0, 0, self.scale_sqrt2)

    # --- schedule -------------------------------------------------------------------------
    @property
    def butterfly_depth(self) -> int:
        """The products (twiddle, and u's scale if an inverse runs), the sum and difference, o1's
        fixed shift (NCT^-1)."""
        return shift_butterfly_depth(self.butterfly_sqrt2, self.scale_sqrt2 if self.inverse else None,
                                     self.fixed_shift is not None)

    @property
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

    def compute_cycles(self) -> int:
        """C = (v-1) G + H + Dw: the first issue to the last write."""
        return (self.v - 1) * self.gap + self.H + self.write_delay

    def paper_cycles(self) -> int:
        """Eq. (29) with eq. (28) and Sec. 5.5's final stages (math.fmlm3.transform_cycles); the
        largest over the kinds the unit runs."""
        return max(fmlm3.transform_cycles(KINDS[k], self.P, self.bfs, self.c == fmlm3.HALF) for k in self.kinds)

    @property
    def cycles(self) -> int:
        """C (compute_cycles): the formula the algorithm claims."""
        return self.compute_cycles()

    @property
    def frame_beats(self) -> int:
        return self.H

    @property
    def result_beats(self) -> int:
        return self.H

    @property
    def latency(self) -> int:
        """Beat k in to beat k out: the load (H beats), the transform (C) and the read-out."""
        return self.H + self.compute_cycles() + READOUT_DELAY

    @property
    def initiation_interval(self) -> int:
        """One frame at a time: load H beats, transform C cycles, read out H beats (the last
        word taken a cycle after its read)."""
        return 2 * self.H + self.compute_cycles() + 1
