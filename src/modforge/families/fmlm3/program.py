"""rsa-fmlm3's program: the steps the core (multiplier_hw.py) runs around ONE fmlm3-transform
unit (kind = any), the stores they read and write, and each sink's pipeline depth; the
cycles they take are plan.MultiplierPlan's (step_cycles, latency), the values they compute
model.py's (each pass an exact integer step: a SegmentAddSub, Accumulator or Halver stream
of s = L = 2 bfs digits a cycle).

domain = spectral (Algorithms 2 and 3 as the paper states them, the form math.fmlm3.modexp
keeps between products): x and y come in as T(x) = CT(x), T'(x) = NCT(x) and x mod 2 (beat k
= Cat(T lanes, T' lanes, parity), model.spectral_frame), t leaves the same way. The program:
the input (H beats: T(x) (.) T(N') into Z0 on the MulAdds as the beats come, T'(x), T(y),
T'(y) into XN, YC, YN), Alg 3's pass Z0 = T(y) (.) Z0, then the time program from T5 CT^-1
(beside it, on the otherwise idle MulAdds, the side pass XN = T'(x) (.) T'(y)) through pass
t, then T(t) = CT(t) and T'(t) = NCT(t) into Z0 and XN, read out together: 5 transforms
for Alg 3 (7 for Alg 2). Latency = (H + 1 + mul_add_depth) [input] + (H + 1 + mul_add_depth)
[Alg 3's pass] + 5 (2H + C + 2) + the sinks' depths + the 3 passes + 1; l = 2048, P = 128,
u = 16, Alg 3, 2 BFS (mul_add_depth 6): 1,720 cycles (latency 1,689).

muladds = 1 (one MulAdd, the paper's; `shared_steps`): one coefficient a cycle, P issues +
1 + mul_add_depth a product. T(x) (.) T(N') runs as the input comes (spectral: from the store
XT the input fills at a beat a cycle, word k read once beat k is in: 1 + P + 1 + mul_add_depth
from the first beat) or on CT(x)'s read-out (time); T'(m) (.) T'(N) + XN (and in the time
domain T(y) (.) Z0) on the read-out of its transform, held to the MulAdd's pace by
back-pressure (a read-out of P cycles instead of H); T(y) (.) Z0 (spectral) is a pass of its
own over the stores, in place; T'(x) (.) T'(y) runs beside CT^-1.

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

Algorithm 3, in order (each transform: load H, run C, read out H; `steps`):
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
from collections.abc import Sequence

from ...hw.digits import Accumulator, SegmentAddSub
from .units import ModRPass, restrict_depth


@dataclasses.dataclass(frozen=True)
class Step:
    """One step of the core: a transform `kind` loaded from `src` whose read-out goes through
    `sink` (times mem2, plus mem3) to `dest`; or a time-domain pass (kind None). `side`:
    (dest, a, b), a multiply pass dest = a (.) b the MulAdds run alongside a transform whose
    sink does not use them (its first H + 1 + mul_add_depth cycles, well inside the step)."""
    kind: str | None
    src: str
    sink: str
    mem2: str | None
    mem3: str | None
    dest: str
    side: tuple[str, str, str] | None = None

    @property
    def factor(self) -> str:
        """mem2, the store a product step multiplies by (each one names it)."""
        assert self.mem2 is not None, self
        return self.mem2


HALVER_DELAY = 2     # hw.digits.Halver: segment k's half two cycles after segment k came in


def read_latency(deep: bool) -> int:
    """A store's read address to its data: the block RAM's read, deep a register after it (a
    DP16KD's 5.8 ns clock-to-out then no longer runs on through the operand selects on ECP5)."""
    return 2 if deep else 1


def depths(mul_add: int, deep: bool = False) -> dict[str, int]:
    """A sink's or pass's depth: a read-out beat (a pass's read issue) to the write of its
    result, with MulAdds of `mul_add` stages (hw.fermat.mul_add_depth), deep: depth=deep's
    Restrict (units.restrict_depth) and stores' reads (`read_latency`)."""
    restrict_acc = restrict_depth(deep) + Accumulator.depth
    read = read_latency(deep)
    return {"plain": 0, "mul": read + mul_add, "pass_mul": read + mul_add, "in": read + mul_add,
            "pass_mul1": read + mul_add, "in_mul1": read + mul_add, "mul1": read + mul_add,
            "acc": restrict_acc, "racc": restrict_acc,
            "pass_m": read + ModRPass.depth, "pass_d": read + SegmentAddSub.depth,
            "pass_t": read + SegmentAddSub.depth + HALVER_DELAY + SegmentAddSub.depth}


# The spectral stores share block RAMs: each group is one memory (1 read, 1 write port; a
# store is a region of H words), grouped so that no step reads two stores of a group or
# writes two (`store_groups` checks the program). The digit stores stay one small memory each.
STORE_GROUPS = (("TNp", "TnN", "Z0", "Z4"), ("YC",), ("XN",), ("YN",), ("XT",))
# T(x) as the input brings it (muladds = 1, spectral), read back a coefficient a cycle while the
# input still writes the other groups: a memory of its own, small enough for LUT RAM
LUT_RAM_STORES = ("XT",)
DIGIT_STORES = ("X", "Y", "A", "B", "ND")


def steps(algorithm: int, domain: str, shared: bool) -> list[Step]:
    """The core's steps in order (Algorithm 3, or 2 with T(y) kept and z0's transforms;
    domain = spectral: the spectra come in, their products are passes, and t leaves as
    CT(t), NCT(t)); shared (muladds = 1): `shared_steps`."""
    if shared:
        return shared_steps(algorithm, domain)
    alg2 = algorithm == 2
    if domain == "spectral":
        # Z0 = T(x) (.) T(N') as the beats come in; T'(x), T(y), T'(y) stored
        out = [Step(None, "input", "in", "TNp", None, "Z0,XN,YC,YN")]
        if not alg2:
            out.append(Step(None, "Z0", "pass_mul", "YC", None, "Z0"))         # Z0 = T(y) (.) Z0
    else:
        out = [Step("ct", "input", "mul", "TNp", None, "Z0"),                   # Z0 = T(x) (.) T(N')
               Step("nct", "X", "plain", None, None, "XN")]                     # XN = T'(x)
        if alg2:
            out.append(Step("ct", "Y", "plain", None, None, "YC"))              # YC = T(y)
        else:
            out.append(Step("ct", "Y", "mul", "Z0", None, "Z0"))                # Z0 = T(y) (.) Z0
        out.append(Step("nct", "Y", "mul", "XN", None, "XN"))                   # XN = T'(y) (.) XN
    # A + c 2^(uP); spectral: XN = T'(x) (.) T'(y) meanwhile
    out.append(Step("ct_inv", "Z0", "acc", None, None, "A", ("XN", "XN", "YN") if domain == "spectral" else None))
    return out + _rest(algorithm, domain, "mul")


def _rest(algorithm: int, domain: str, mul: str) -> list[Step]:
    """The steps after the first CT^-1, a read-out through the MulAdd(s) sinking to `mul`:
    Alg 2's CT(z0) and CT^-1, m, NCT(m), NCT^-1, D, t and the output."""
    out = []
    if algorithm == 2:
        out += [Step("ct", "G", mul, "YC", None, "Z0"),                         # T(z0) (.) T(y), eq. (17)
                Step("ct_inv", "Z0", "acc", None, None, "A")]
    out += [Step(None, "A", "pass_m", None, None, "A,B"),                       # m: A or B
            Step("nct", "M", mul, "TnN", "XN", "Z4"),                           # Z4 = T'(m) (.) T'(N) + XN
            Step("nct_inv", "Z4", "racc", None, None, "A"),                     # A + c2 2^(uP)
            Step(None, "A", "pass_d", None, None, "B"),                         # D's low bits, j
            Step(None, "B", "pass_t", None, None, "A,B")]                       # t, t - N
    if domain == "spectral":
        return out + [Step("ct", "T", "plain", None, None, "Z0"),               # T(t): t is A or B
                      Step("nct", "T", "plain", None, None, "XN"),              # T'(t)
                      Step(None, "Z0,XN", "out", None, None, "o")]
    return out + [Step(None, "A,B", "out", None, None, "o")]


def shared_steps(algorithm: int, domain: str) -> list[Step]:
    """muladds = 1: every component-wise product runs on the one MulAdd, one coefficient a
    cycle (P issues, then 1 + mul_add_depth): as the input comes (in_mul1: from the store
    XT the input fills, word k once beat k is in), as a transform's read-out goes (mul1:
    the unit's read-out held by back-pressure, a beat every L cycles), or as a pass over
    stores of its own (pass_mul1, in place). T'(x) (.) T'(y) runs beside the first CT^-1 as a side pass (P + 1 +
    mul_add_depth cycles, inside the step: plan.MultiplierPlan's `__post_init__` checks)."""
    alg2 = algorithm == 2
    if domain == "spectral":
        out = [Step(None, "input", "in_mul1", "TNp", None, "Z0,XT,XN,YC,YN")]  # Z0 = T(x) (.) T(N')
    else:
        out = [Step("ct", "input", "mul1", "TNp", None, "Z0"),                  # Z0 = T(x) (.) T(N')
               Step("nct", "X", "plain", None, None, "XN")]                     # XN = T'(x)
        out.append(Step("ct", "Y", "plain", None, None, "YC") if alg2 else      # YC = T(y)
                   Step("ct", "Y", "mul1", "Z0", None, "Z0"))                   # Z0 = T(y) (.) Z0
        out.append(Step("nct", "Y", "plain", None, None, "YN"))                 # YN = T'(y)
    if not alg2 and domain == "spectral":
        out.append(Step(None, "Z0", "pass_mul1", "YC", None, "Z0"))             # Z0 = T(y) (.) Z0
    out.append(Step("ct_inv", "Z0", "acc", None, None, "A", ("XN", "XN", "YN")))   # + XN = XN (.) YN
    return out + _rest(algorithm, domain, "mul1")


def accesses(step: Step) -> tuple[set[str], set[str]]:
    """The stores a step reads and writes (the picked sources M, T, G are A and B)."""
    reads = {*step.src.split(","), step.mem2, step.mem3, *(step.side or ())[1:]} - {"input", None}
    if step.sink == "in_mul1":
        reads.add("XT")
    reads = {"A", "B"} | reads - {"M", "T", "G"} if reads & {"M", "T", "G"} else reads
    writes = set() if step.sink == "out" else {*step.dest.split(","), *(step.side or ())[:1]}
    return {r for r in reads if r}, writes


def store_groups(program: Sequence[Step]) -> list[tuple[str, ...]]:
    """The used stores of each STORE_GROUPS memory (regions in this order), checked: a step
    reads at most one of a group and writes at most one."""
    used = {"TNp", "TnN"}.union(*(r | w for r, w in map(accesses, program)))
    groups = [names for names in (tuple(n for n in group if n in used) for group in STORE_GROUPS) if names]
    for step in program:
        for names in groups:
            reads, writes = accesses(step)
            assert len(reads & set(names)) <= 1 and len(writes & set(names)) <= 1, (step, names)
    return groups
