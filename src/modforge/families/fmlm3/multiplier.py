"""rsa-fmlm3 as the hardware runs it (multiplier_hw.py; registered in algorithms.py):
t = x*y*R^-1 mod N, R = 2^(uP) - 1, Algorithm 2 or 3 around ONE fmlm3-transform unit (kind =
any), with time-domain operands and result (domain = time) or their spectra (domain =
spectral). This module is the hardware-facing model: the
frames and cfg words, the storage, the program (the transforms and the time-domain passes
with the candidates they form and the facts that select one, each pass an exact integer step:
a SegmentAddSub, Accumulator or Halver stream of s = L = 2 bfs digits a cycle) and its cycles.
Its t equals math.fmlm3.montgomery_multiply (tests check it against pow), its spectral
result math.fmlm3.montgomery_product's.

Cycles (`step_cycles`, `latency`): a transform step 1 + (H + C + 1) + (H - 1) + d + 1 =
2H + C + 2 + d (d its sink's depth, DEPTH; the input step 2H + C + 1 + d from its first
beat), a pass H + d; latency = the steps + 1 (the read-out, straight from the stores), II =
latency + H (the output step ends as its last word is taken), cycles = latency + H - 1 (first
beat in to last beat out). C = (v-1) G + H + Dw is the transform
unit's (model.TransformPlan). l = 2048, P = 128, u = 16, c = 1/2, Alg 3, 2 BFS: H = 32,
C = 232, MulAdd.depth 6, 7 transforms: 2,258 cycles (latency 2,227); Table 6 gives 2,036 for the product
kept in the spectral domain (domain = spectral: 5 transforms); the time domain needs the
2 more forward transforms of x and y.

domain = spectral (Algorithms 2 and 3 as the paper states them, the form math.fmlm3.modexp
keeps between products): x and y come in as T(x) = CT(x), T'(x) = NCT(x) and x mod 2 (beat k
= Cat(T lanes, T' lanes, parity), `spectral_frame`), t leaves the same way. The program: the
input (H beats: T(x) (.) T(N') into Z0 on the MulAdds as the beats come, T'(x), T(y), T'(y)
into XN, YC, YN), Alg 3's pass Z0 = T(y) (.) Z0, then the time program from T5 CT^-1
(beside it, on the otherwise idle MulAdds, the side pass XN = T'(x) (.) T'(y)) through pass
t, then T(t) = CT(t) and T'(t) = NCT(t) into Z0 and XN, read out together: 5 transforms
for Alg 3 (7 for Alg 2). Latency = (H + 1 + MulAdd.depth) [input] + (H + 1 + MulAdd.depth)
[Alg 3's pass] + 5 (2H + C + 2) + the sinks' depths + the 3 passes + 1; l = 2048, P = 128,
u = 16, Alg 3, 2 BFS (MulAdd.depth 6): 1,720 cycles (latency 1,689).

muladds = 1 (one MulAdd, the paper's; `shared_program`): one coefficient a cycle, P issues +
1 + MulAdd.depth a product. T(x) (.) T(N') runs as the input comes (spectral: from the store
XT the input fills at a beat a cycle, word k read once beat k is in: 1 + P + 1 + MulAdd.depth
from the first beat) or on CT(x)'s read-out (time); T'(m) (.) T'(N) + XN (and in the time
domain T(y) (.) Z0) on the read-out of its transform, held to the MulAdd's pace by
back-pressure (a read-out of P cycles instead of H); T(y) (.) Z0 (spectral) is a pass of its
own over the stores, in place; T'(x) (.) T'(y) runs beside CT^-1.

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
    is a step of its own (H + 1 + MulAdd.depth = 39 cycles); the paper has ONE Multiply Adder (9 DSP) at
    one coefficient a cycle, P + 3 + Delta_MA = 131+ each, one after another. muladds = 1
    (`shared_program`) does that: the 3 products on the critical path take P + 1 +
    MulAdd.depth = 135 cycles each on the one MulAdd, two of them overlapped with the input
    and with NCT(m)'s read-out (T'(x) (.) T'(y) still beside CT^-1): 2,009 cycles on this set
    (latency 1,978; time domain 2,539) for 1/4 of the MulAdds' DSPs;
  - the time-domain work is 3 passes of H + d (m, D, t: 105 cycles) against the paper's
    6 additions and a halving (265), by forming the candidates side by side (units.py).

Frames: x, y in [0, N) as P digits of u bits, L a beat (beat k, lane l: digit Lk + l), H =
P/L beats; the result the same way. cfg: N's spectra T(N') = CT(N'), T'(N) = NCT(N) as H
beats of L coefficients (K+1 bits) and N's digits as H beats (`cfg_words`).

Storage (amaranth.lib.memory, one word a beat: H words of L coefficients or digits; the
spectral stores as regions of STORE_GROUPS' memories, marked ram_style = block from 4,096
bits on (multiplier_hw.BLOCK_RAM_BITS): {TNp, TnN, Z0, Z4}, {YC}, {XN}, {YN}, a 4-BRAM36
memory each at L (K+1) = 260 bits, and {XT} in LUT RAM; the digit stores stay small memories
Yosys puts in LUT RAM). The stores of a memory share its write data, a select of their
sources (about a LUT a bit for 2 to 4 sources): N's spectra from cfg join the products and
read-outs of Z0 and Z4, so T(y), the input's alone, needs no select:
  X, Y       the input digits (the loads of NCT(x), CT(y), NCT(y); x0, y0 for the parity)
  TNp, TnN   T(N'), T'(N) from cfg;  ND  N's digits from cfg
  XT         T(x)                    (spectral, muladds = 1: the input's, in LUT RAM)
  Z0         X^ (.) T(N')            (CT(x)'s read-out through the MulAdd, c = 0)
  XN         T'(x)                   (Alg 3: T'(x) (.) T'(y) after NCT(y), in place)
  YC         T(y)                    (Alg 2 only; Alg 3 forms T(y) (.) Z0 into Z0 in place)
  YN         T'(y)                   (domain = spectral: the input's; time: unused)
  A, B       time-domain numbers and their candidates (g, m, D, t, t - N)
  Z4         T'(m) (.) T'(N) + T'(x) (.) T'(y)  (NCT(m)'s read-out through the MulAdd)

Algorithm 3, in order (each transform: load H, run C, read out H; `schedule`):
  T1 CT(x)    load from the input beats;          read-out (.) T(N')       -> Z0
  T2 NCT(x)   load X;                             read-out                 -> XN
  T3 CT(y)    load Y;                             read-out (.) Z0          -> Z0
  T4 NCT(y)   load Y;                             read-out (.) XN          -> XN
  T5 CT^-1    load Z0;  read-out -> Restrict (passing) -> Accumulator:  g = sum z1_i B^i = A + c1 2^(uP)
  pass m      A + c1 and A + c1 + 1 (-> B); the second's carry out says A + c1 >= R, and
              then m = (A + c1 + 1) mod 2^(uP) (the model's mod_r): m < 2^(uP), no second pass
  T6 NCT(m)   load the selected candidate;        read-out (.) T'(N) + XN  -> Z4
  T7 NCT^-1   load Z4;  read-out -> restrict (eq. 12) -> Accumulator (signed digits):
              sum z4_i B^i = A + c2 2^(uP), c2 signed and small
  pass D      D = c2 - A + 2Q' = -S mod Q' plus a multiple of Q', in (Q' - 2^(K+2), 2Q' +
              2^(K+2)); its top bits and whether its low uP bits are 0 or 1 give
              j0 = -2 (D >= 2Q'), -1 (D >= Q') or 0: the least j with D + jQ' >= 0
  pass t      2t = D + jQ' (2t = -S mod Q', 0 <= 2t < 4N < 4Q'), j in [j0, j0 + 4) with
              D + jQ' = 2p mod 4, p = t mod 2 = x0 y0 + m0 N0 (t = V/R, R odd): one add of
              the constant jQ' = j 2^(uP) + j, the Halver, and t - N beside it
  output      t, or t - N when it does not borrow (H beats)
Algorithm 2 stores T(y) in YC and runs T5 CT^-1 on Z0 = T(x) (.) T(N'), the Accumulator's
g = A + c 2^(uP) giving z0 = A + c digit-wise without carries (eq. 17, `redundant_mod_r`,
added as T6 CT(z0) loads), T6's read-out (.) YC -> Z0, then T7 CT^-1 and the rest as above
(9 transforms).
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Sequence

from ...hw.digits import Accumulator, SegmentAddSub
from ...hw.fermat import MulAdd
from ...math import fmlm3
from .model import KINDS, READOUT_DELAY, TransformPlan
from .units import ModRPass, Restrict

CFG_SELECT = {"T(N')": 1, "T'(N)": 2, "N": 3}       # sel 0: hw.config's (empty) register file


@dataclasses.dataclass(frozen=True)
class Step:
    """One step of the core: a transform `kind` loaded from `src` whose read-out goes through
    `sink` (times mem2, plus mem3) to `dest`; or a time-domain pass (kind None). `side`:
    (dest, a, b), a multiply pass dest = a (.) b the MulAdds run alongside a transform whose
    sink does not use them (its first H + 1 + MulAdd.depth cycles, well inside the step)."""
    kind: str | None
    src: str
    sink: str
    mem2: str | None
    mem3: str | None
    dest: str
    side: tuple[str, str, str] | None = None


HALVER_DELAY = 2     # hw.digits.Halver: segment k's half two cycles after segment k came in
OUTPUT_DELAY = 1     # a held hw.stream.ReadOut: a result word read at cycle t is on o at t + 1
# a sink's or pass's depth: a read-out beat (a pass's read issue) to the write of its result
DEPTH = {"plain": 0, "mul": 1 + MulAdd.depth, "pass_mul": 1 + MulAdd.depth, "in": 1 + MulAdd.depth,
         "pass_mul1": 1 + MulAdd.depth, "in_mul1": 1 + MulAdd.depth, "mul1": 1 + MulAdd.depth,
         "acc": Restrict.depth + Accumulator.depth, "racc": Restrict.depth + Accumulator.depth,
         "pass_m": 1 + ModRPass.depth, "pass_d": 1 + SegmentAddSub.depth,
         "pass_t": 1 + SegmentAddSub.depth + HALVER_DELAY + SegmentAddSub.depth}


# The spectral stores share block RAMs: each group is one memory (1 read, 1 write port; a
# store is a region of H words), grouped so that no step reads two stores of a group or
# writes two (`store_groups` checks the program). The digit stores stay one small memory each.
STORE_GROUPS = (("TNp", "TnN", "Z0", "Z4"), ("YC",), ("XN",), ("YN",), ("XT",))
# T(x) as the input brings it (muladds = 1, spectral), read back a coefficient a cycle while the
# input still writes the other groups: a memory of its own, small enough for LUT RAM
LUT_RAM_STORES = ("XT",)
DIGIT_STORES = ("X", "Y", "A", "B", "ND")


def default_modulus(bits: int, width: int, salt: int = 0) -> int:
    """A fixed odd N of exactly `bits` bits coprime to R = 2^width - 1 (the build's default)."""
    rng = random.Random(f"rsa-fmlm3 {bits} {salt}")
    while True:
        N = rng.getrandbits(bits) | 1 | 1 << (bits - 1)
        if math.gcd(N, (1 << width) - 1) == 1 and N < (1 << width) - 1:
            return N


@dataclasses.dataclass(frozen=True)
class Context:
    """What the core holds for one modulus after the cfg loads."""
    N: int
    T_N_prime: tuple[int, ...]
    Tn_N: tuple[int, ...]


@dataclasses.dataclass(frozen=True)
class MultiplierPlan:
    params: fmlm3.Fmlm3Params
    bfs: int
    domain: str = "time"          # time: x, y, t as digits; spectral: as T(.), T'(.) and the parity
    shared: bool = False          # one MulAdd, one coefficient a cycle (else one a lane)

    # --- sizes -----------------------------------------------------------------------
    @property
    def transform(self) -> TransformPlan:
        """The one transform unit (all four kinds, chosen per frame)."""
        return TransformPlan(self.params.P, self.params.c, "any", self.bfs)

    @property
    def lanes(self) -> int:
        return 2 * self.bfs

    @property
    def H(self) -> int:
        return self.params.P // self.lanes

    @property
    def K(self) -> int:
        return self.params.ring.K

    @property
    def width(self) -> int:
        """uP: R = 2^width - 1, Q' = 2^width + 1."""
        return self.params.l_max

    # --- frames and cfg words --------------------------------------------------------
    def beats(self, values: Sequence[int], bits: int) -> list[int]:
        """L values a beat, lane l at bits [l bits, (l+1) bits)."""
        L = self.lanes
        return [sum(x << (lane * bits) for lane, x in enumerate(values[k * L:(k + 1) * L])) for k in range(self.H)]

    def unbeats(self, beats: Sequence[int], bits: int) -> list[int]:
        mask = (1 << bits) - 1
        return [(beat >> (lane * bits)) & mask for beat in beats for lane in range(self.lanes)]

    def frame(self, x: int) -> list[int]:
        """x as H beats of L u-bit digits, least significant first."""
        return self.beats(fmlm3.to_digits(x, self.params.u, self.params.P), self.params.u)

    def from_frame(self, beats: Sequence[int]) -> int:
        return fmlm3.from_digits(self.unbeats(beats, self.params.u), self.params.u)

    @property
    def spectral_width(self) -> int:
        """domain = spectral: a beat of T(.) and T'(.) (L coefficients of K+1 bits each) and the
        parity."""
        return 2 * self.lanes * (self.K + 1) + 1

    def spectral_frame(self, X: fmlm3.Spectral) -> list[int]:
        """Beat k = Cat(T(x) lanes, T'(x) lanes, x mod 2), coefficient Lk + l in lane l."""
        half = self.lanes * (self.K + 1)
        return [c | n << half | X.lsb << 2 * half for c, n in zip(
            self.beats(X.cyclic, self.K + 1), self.beats(X.negacyclic, self.K + 1), strict=True)]

    def from_spectral_frame(self, beats: Sequence[int]) -> fmlm3.Spectral:
        half = self.lanes * (self.K + 1)
        mask = (1 << half) - 1
        return fmlm3.Spectral(beats[0] >> 2 * half & 1, tuple(self.unbeats([b & mask for b in beats], self.K + 1)),
                              tuple(self.unbeats([b >> half & mask for b in beats], self.K + 1)))

    @property
    def index_bits(self) -> int:
        return max(1, (self.H - 1).bit_length())

    @property
    def cfg_data_bits(self) -> int:
        return self.lanes * (self.K + 1)

    @property
    def cfg_width(self) -> int:
        """Cat(data[L (K+1)], index[log2 H], sel[2])."""
        return self.cfg_data_bits + self.index_bits + 2

    def cfg_words(self, N: int) -> list[int]:
        """The cfg payloads that load N: sel 1 beat k of T(N'), sel 2 of T'(N) (L coefficients
        of K+1 bits), sel 3 of N's digits (L digits of u bits); 3H words."""
        ctx = fmlm3.montgomery(self.params, N)
        parts = {"T(N')": self.beats(ctx.T_N_prime, self.K + 1), "T'(N)": self.beats(ctx.Tn_N, self.K + 1),
                 "N": self.frame(N)}
        top = self.cfg_data_bits
        return [data | k << top | CFG_SELECT[what] << (top + self.index_bits)
                for what, beats in parts.items() for k, data in enumerate(beats)]

    def load_cfg(self, words: Sequence[int]) -> Context:
        """The cfg decoder: each word to its store at its index."""
        top, mask = self.cfg_data_bits, (1 << self.cfg_data_bits) - 1
        stores: dict[int, list[int]] = {sel: [0] * self.H for sel in CFG_SELECT.values()}
        for word in words:
            index = (word >> top) & ((1 << self.index_bits) - 1)
            stores[word >> (top + self.index_bits)][index] = word & mask
        return Context(self.from_frame(stores[CFG_SELECT["N"]]),
                       tuple(self.unbeats(stores[CFG_SELECT["T(N')"]], self.K + 1)),
                       tuple(self.unbeats(stores[CFG_SELECT["T'(N)"]], self.K + 1)))

    # --- the passes ------------------------------------------------------------------
    def accumulate(self, digits: Sequence[int]) -> tuple[int, int]:
        """The Accumulator over a read-out: sum d_i B^i = A + carry 2^(uP), A < 2^(uP)."""
        total = fmlm3.from_digits(digits, self.params.u)
        return total & ((1 << self.width) - 1), total >> self.width

    def pass_m(self, A: int, c1: int) -> int:
        """m = (A + c1) mod R from the candidates A + c1 and A + c1 + 1, selected by the
        second's carry out of uP bits (0 <= c1 < R)."""
        w = self.width
        plain, plus_one = A + c1, A + c1 + 1
        return plus_one - (1 << w) if plus_one >> w else plain

    def pass_d(self, A: int, c2: int) -> tuple[int, int]:
        """D = c2 - A + 2Q' (= -sum z4_i B^i mod Q') and j0, the least j with D + jQ' >= 0,
        from D's bits above uP and whether its low uP bits are 0 or 1."""
        w, bound = self.width, 1 << (self.K + 2)
        Q = (1 << w) + 1
        D = c2 - A + 2 * Q
        assert Q - bound < D < 2 * Q + bound and D >= 0
        high, low = D >> w, D & ((1 << w) - 1)
        at_least_2Q = high > 2 or (high == 2 and low >= 2)
        at_least_Q = high > 1 or (high == 1 and low >= 1)
        return D, -2 if at_least_2Q else -1 if at_least_Q else 0

    def pass_t(self, D: int, j0: int, parity: int, N: int) -> int:
        """2t = D + jQ' for the j in [j0, j0 + 4) with D + jQ' = 2 parity mod 4 (Q' = 1 mod 4),
        halved; then t - N when it does not borrow."""
        Q = (1 << self.width) + 1
        j = j0 + (2 * parity - D - j0) % 4
        twice = D + j * Q
        assert twice >= 0 and twice % 2 == 0
        t = twice >> 1
        assert t < 2 * N
        return t - N if t >= N else t

    # --- one multiplication ------------------------------------------------------------
    def spectra(self, x: int) -> fmlm3.Spectral:
        """x's parity, T(x) = CT(x) and T'(x) = NCT(x), as the transform unit computes them."""
        d = fmlm3.to_digits(x, self.params.u, self.params.P)
        return fmlm3.Spectral(x & 1, tuple(self.transform.run(d, "ct")), tuple(self.transform.run(d, "nct")))

    def multiply(self, ctx: Context, x: int, y: int) -> int:
        """t = x y R^-1 mod N as the core computes it, from the frames of x and y."""
        return self.product(ctx, self.spectra(x), self.spectra(y))

    def multiply_spectral(self, ctx: Context, X: fmlm3.Spectral, Y: fmlm3.Spectral) -> fmlm3.Spectral:
        """domain = spectral: T(t), T'(t) and t mod 2 from those of x and y (Algorithm 2's and
        3's input and output, the exponentiation loop's form; steps 18-19 on the core's t)."""
        return self.spectra(self.product(ctx, X, Y))

    def product(self, ctx: Context, X: fmlm3.Spectral, Y: fmlm3.Spectral) -> int:
        """t from the spectra, the core's steps in order (the products commute, so the order
        the program forms them in does not change a value)."""
        p, ring = self.params, self.params.ring
        T = self.transform

        def mul(a, b):
            return fmlm3.pointwise(a, b, ring)

        z0 = mul(X.cyclic, ctx.T_N_prime)                                        # T(x) (.) T(N')
        xn = mul(Y.negacyclic, X.negacyclic)                                     # T'(x) (.) T'(y)
        if p.algorithm == 3:
            z0 = mul(Y.cyclic, z0)
        else:
            A, c = self.accumulate(T.run(z0, "ct_inv"))
            z0d = fmlm3.redundant_mod_r(A | c << self.width, p.u, p.P)           # eq. (17)
            z0 = mul(T.run(z0d, "ct"), Y.cyclic)
        A, c1 = self.accumulate(T.run(z0, "ct_inv"))
        m = self.pass_m(A, c1)
        md = fmlm3.to_digits(m, p.u, p.P)
        z4 = [ring.add(a, b) for a, b in zip(mul(T.run(md, "nct"), ctx.Tn_N), xn, strict=True)]
        A, c2 = self.accumulate(fmlm3.restrict(T.run(z4, "nct_inv"), p.P, p.u, p.M))
        D, j0 = self.pass_d(A, c2)
        parity = (X.lsb & Y.lsb) ^ (md[0] & 1)                                   # N is odd
        return self.pass_t(D, j0, parity, ctx.N)

    # --- the program and its cycles ------------------------------------------------------
    def program(self) -> list[Step]:
        """The core's steps in order (Algorithm 3, or 2 with T(y) kept and z0's transforms;
        domain = spectral: the spectra come in, their products are passes, and t leaves as
        CT(t), NCT(t)); shared: `shared_program`."""
        if self.shared:
            return self.shared_program()
        alg2 = self.params.algorithm == 2
        if self.domain == "spectral":
            # Z0 = T(x) (.) T(N') as the beats come in; T'(x), T(y), T'(y) stored
            steps = [Step(None, "input", "in", "TNp", None, "Z0,XN,YC,YN")]
            if not alg2:
                steps.append(Step(None, "Z0", "pass_mul", "YC", None, "Z0"))   # Z0 = T(y) (.) Z0
        else:
            steps = [Step("ct", "input", "mul", "TNp", None, "Z0"),             # Z0 = T(x) (.) T(N')
                     Step("nct", "X", "plain", None, None, "XN")]               # XN = T'(x)
            if alg2:
                steps.append(Step("ct", "Y", "plain", None, None, "YC"))        # YC = T(y)
            else:
                steps.append(Step("ct", "Y", "mul", "Z0", None, "Z0"))          # Z0 = T(y) (.) Z0
            steps.append(Step("nct", "Y", "mul", "XN", None, "XN"))             # XN = T'(y) (.) XN
        # A + c 2^(uP); spectral: XN = T'(x) (.) T'(y) meanwhile
        steps.append(Step("ct_inv", "Z0", "acc", None, None, "A",
                          ("XN", "XN", "YN") if self.domain == "spectral" else None))
        return steps + self._rest("mul")

    def _rest(self, mul: str) -> list[Step]:
        """The steps after the first CT^-1, a read-out through the MulAdd(s) sinking to `mul`:
        Alg 2's CT(z0) and CT^-1, m, NCT(m), NCT^-1, D, t and the output."""
        steps = []
        if self.params.algorithm == 2:
            steps += [Step("ct", "G", mul, "YC", None, "Z0"),                   # T(z0) (.) T(y), eq. (17)
                      Step("ct_inv", "Z0", "acc", None, None, "A")]
        steps += [Step(None, "A", "pass_m", None, None, "A,B"),                 # m: A or B
                  Step("nct", "M", mul, "TnN", "XN", "Z4"),                     # Z4 = T'(m) (.) T'(N) + XN
                  Step("nct_inv", "Z4", "racc", None, None, "A"),               # A + c2 2^(uP)
                  Step(None, "A", "pass_d", None, None, "B"),                   # D's low bits, j
                  Step(None, "B", "pass_t", None, None, "A,B")]                 # t, t - N
        if self.domain == "spectral":
            return steps + [Step("ct", "T", "plain", None, None, "Z0"),         # T(t): t is A or B
                            Step("nct", "T", "plain", None, None, "XN"),        # T'(t)
                            Step(None, "Z0,XN", "out", None, None, "o")]
        return steps + [Step(None, "A,B", "out", None, None, "o")]

    def shared_program(self) -> list[Step]:
        """muladds = 1: every component-wise product runs on the one MulAdd, one coefficient a
        cycle (P issues, then 1 + MulAdd.depth): as the input comes (in_mul1: from the store
        XT the input fills, word k once beat k is in), as a transform's read-out goes (mul1:
        the unit's read-out held by back-pressure, a beat every L cycles), or as a pass over
        stores of its own (pass_mul1, in place). T'(x) (.) T'(y) runs beside the first CT^-1 as a side pass (P + 1 +
        MulAdd.depth cycles, inside the step: `__post_init__` checks)."""
        alg2 = self.params.algorithm == 2
        if self.domain == "spectral":
            steps = [Step(None, "input", "in_mul1", "TNp", None, "Z0,XT,XN,YC,YN")]  # Z0 = T(x) (.) T(N')
        else:
            steps = [Step("ct", "input", "mul1", "TNp", None, "Z0"),             # Z0 = T(x) (.) T(N')
                     Step("nct", "X", "plain", None, None, "XN")]               # XN = T'(x)
            steps.append(Step("ct", "Y", "plain", None, None, "YC") if alg2 else  # YC = T(y)
                         Step("ct", "Y", "mul1", "Z0", None, "Z0"))             # Z0 = T(y) (.) Z0
            steps.append(Step("nct", "Y", "plain", None, None, "YN"))           # YN = T'(y)
        if not alg2 and self.domain == "spectral":
            steps.append(Step(None, "Z0", "pass_mul1", "YC", None, "Z0"))       # Z0 = T(y) (.) Z0
        steps.append(Step("ct_inv", "Z0", "acc", None, None, "A", ("XN", "XN", "YN")))   # + XN = XN (.) YN
        return steps + self._rest("mul1")

    def __post_init__(self):
        if self.shared:
            ct_inv = Step("ct_inv", "Z0", "acc", None, None, "A")
            assert self.params.P + DEPTH["pass_mul1"] < self.step_cycles(ct_inv, False)

    @staticmethod
    def accesses(step: Step) -> tuple[set[str], set[str]]:
        """The stores a step reads and writes (the picked sources M, T, G are A and B)."""
        reads = {*step.src.split(","), step.mem2, step.mem3, *(step.side or ())[1:]} - {"input", None}
        if step.sink == "in_mul1":
            reads.add("XT")
        reads = {"A", "B"} | reads - {"M", "T", "G"} if reads & {"M", "T", "G"} else reads
        writes = set() if step.sink == "out" else {*step.dest.split(","), *(step.side or ())[:1]}
        return {r for r in reads if r}, writes

    def store_groups(self) -> list[tuple[str, ...]]:
        """The used stores of each STORE_GROUPS memory (regions in this order), checked: a step
        reads at most one of a group and writes at most one."""
        program = self.program()
        used = {"TNp", "TnN"}.union(*(r | w for r, w in map(self.accesses, program)))
        groups = [names for names in (tuple(n for n in group if n in used) for group in STORE_GROUPS) if names]
        for step in program:
            for names in groups:
                reads, writes = self.accesses(step)
                assert len(reads & set(names)) <= 1 and len(writes & set(names)) <= 1, (step, names)
        return groups

    def transforms(self) -> tuple[str, ...]:
        return tuple(step.kind for step in self.program() if step.kind)

    def step_cycles(self, step: Step, first: bool) -> int:
        """A step's cycles, its first to the next one's first (the input step: from its first
        beat's acceptance). A transform: the first read (1; none from the input), the unit's
        latency H + C + 1 to the first result, H - 1 more (mul1: P - 1, a coefficient a cycle),
        the sink's depth, 1 to hand over; a pass: H reads (a product on the one MulAdd: P) and
        its depth."""
        H, C = self.H, self.transform.compute_cycles()
        P = self.params.P
        if step.sink == "in":
            return H + DEPTH[step.sink]
        if step.sink == "pass_mul1":
            return P + DEPTH[step.sink]
        if step.sink == "in_mul1":                          # its first issue the cycle after the first beat
            return 1 + P + DEPTH[step.sink]
        if step.kind:
            issues = P if step.sink == "mul1" else H            # mul1: one coefficient a cycle
            return (0 if first else 1) + (H + C + READOUT_DELAY) + (issues - 1) + DEPTH[step.sink] + 1
        return H + DEPTH[step.sink]

    @property
    def latency(self) -> int:
        """First input beat accepted -> first output beat offered: the steps before the output
        and the read-out's cycle."""
        steps = self.program()[:-1]
        return sum(self.step_cycles(step, k == 0) for k, step in enumerate(steps)) + OUTPUT_DELAY

    @property
    def initiation_interval(self) -> int:
        """One multiplication at a time: the next frame's first beat is taken the cycle after
        the output's last word is taken (H reads, the last word a cycle after its read)."""
        return self.latency + self.H

    @property
    def cycles(self) -> int:
        """First input beat to last output beat."""
        return self.latency + self.H - 1

    @property
    def frame_beats(self) -> int:
        return self.H

    @property
    def result_beats(self) -> int:
        return self.H

    def schedule(self) -> dict[str, int]:
        """The cycles of latency by step (tests and extra_info)."""
        steps = self.program()[:-1]
        out = {f"{k}:{step.kind or step.sink}": self.step_cycles(step, k == 0) for k, step in enumerate(steps)}
        return out | {"readout": OUTPUT_DELAY}

    def paper_kinds(self) -> dict[str, int]:
        """The transforms by the paper's names (Table 5's count with time-domain I/O)."""
        out: dict[str, int] = {}
        for kind in self.transforms():
            out[KINDS[kind]] = out.get(KINDS[kind], 0) + 1
        return out
