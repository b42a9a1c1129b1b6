"""The derived plan of a pipelined modular multiplier (family modmul): q's shape (beta, omega,
q_h, the Proth-l shift amounts, the run-time fields), the reduction's own facts (its factor F,
its stages with their formula, its multiplications, its words), the stages of the whole
pipeline with plain=1's second pass, the stages kept, the DSP tiling, and the timing.

Timing: one register stage a cycle, a product every cycle (initiation interval 1);
    stage_count = stages - 2 reduce_only + (stages when plain=1 needs a second pass, F != 1)
    latency = cycles = the stages kept (`pipeline`'s 1s; every stage when it is empty)
with `stages` the reduction's own count with the product a*b (`Reduction.formula`).
"""

from __future__ import annotations

import dataclasses

from ...hw.dsp import dsp_tiles
from ...math.primes import v2
from ...registry import Timing
from . import model as M
from .model import Shifts

#: a multiplication as the paper counts DSPs: (what, bits, bits)
Multiplication = tuple[str, int, int]


@dataclasses.dataclass(frozen=True)
class Modulus:
    """q as the reduction reads it: q < 2^beta; the q_h families' omega (q = q_h 2^omega + 1)
    and log q_h = beta - omega (0 for Montgomery, Barrett, Plantard); the Proth-l shift
    amounts; the run-time modulus fields after the operands, (name, bits) (none: q is a
    generation-time constant)."""
    q: int
    beta: int
    omega: int = 0
    logqh: int = 0
    shifts: Shifts | None = None
    runtime: tuple[tuple[str, int], ...] = ()

    @property
    def qh(self) -> int:
        return self.q >> self.omega


@dataclasses.dataclass(frozen=True)
class Reduction:
    """One reduction algorithm's facts for a modulus: model(a, b) == a*b*scale mod q; `factor`,
    that congruence as the design states it; `stages`, its register stages with the product
    a*b, as `formula` says (design.json's latency_formula); `multiplications`, as the paper
    counts DSPs (Sec. 5.1; a product with q counts q_h only); `wide`: the reduction alone
    takes any x < q 2^beta (else x <= (q-1)^2); WLM's step words; the Proth-l pipeline
    configuration rho."""
    scale: int
    factor: str
    stages: int
    formula: str
    multiplications: tuple[Multiplication, ...] = ()
    wide: bool = False
    words: tuple[int, ...] = ()
    rho: str = "B"


def ntt_logqh(q: int) -> int:
    """log q_h of q for the NTT-friendly rule (Sec. 5.1): beta - v2(q - 1)."""
    return q.bit_length() - v2(q - 1)


def reduce_bound(modulus: Modulus, wide: bool) -> int:
    """The largest x the reduction alone (reduce_only) is exact for: q 2^beta - 1 (wide), else
    (q-1)^2, a product."""
    return (modulus.q << modulus.beta) - 1 if wide else (modulus.q - 1) ** 2


# --- the reductions (Tosun et al.; the stage formulas are design.json's latency_formula) ---

def montgomery(mod: Modulus) -> Reduction:
    """Alg 1: a*b*2^-beta mod q; the reduction alone: (x + tq) >> beta < x/2^beta + q < 2q
    (t < 2^beta), one correction, for any x < q 2^beta."""
    q, bw = mod.q, mod.beta
    return Reduction(pow(2, -bw, q), f"A*B*2^-{bw}", 7, "7 stages: a*b partial products, a*b, q'x partial "
                     "products, t, tq partial products, (x+tq)>>beta, correction.",
                     (("q' x mod 2^beta", bw, bw), ("t q (q_h only)", bw, ntt_logqh(q))), wide=True)


def barrett(mod: Modulus) -> Reduction:
    """Alg 4: a*b mod q; the reduction alone: x - tq < 2q (x < 2^(2 beta)) and t <= x/q < 2^beta
    fits its beta-bit register, for any x < q 2^beta."""
    q, bw, lqh = mod.q, mod.beta, ntt_logqh(mod.q)
    om = q.bit_length() - lqh
    # only the low beta+1 bits of tq = (t q_h) 2^omega + t are needed
    return Reduction(1, "A*B", 7, "7 stages: a*b partial products, a*b, xq' partial products, t, tq partial "
                     "products, x-tq, correction.",
                     (("x q'", 2 * bw, bw), ("t q, low beta+1 bits (q_h only)", max(bw + 1 - om, 0), lqh)), wide=True)


def plantard(mod: Modulus) -> Reduction:
    """Alg 5: -a*b*2^(-2 beta) mod q."""
    q, bw = mod.q, mod.beta
    # the paper's count for a constant b: a * (b q') is 2beta x beta, then (c'+1) q
    return Reduction(-pow(2, -2 * bw, q) % q, f"-A*B*2^-{2 * bw}", 7, "7 stages: a*b partial products, a*b, xq' "
                     "partial products, c', (c'+1)q partial products, c, c=q -> 0.",
                     (("a (b q') mod 2^(2beta)", 2 * bw, bw), ("(c'+1) q (q_h only)", bw, ntt_logqh(q))))


def wlm(mod: Modulus) -> Reduction:
    """Alg 2 (corrected): lambda = ceil(beta/omega) steps of word omega, a*b*2^-(omega lambda)."""
    om, lam = mod.omega, M.wlm_lambda(mod.beta, mod.omega)
    return Reduction(pow(2, -om * lam, mod.q), f"A*B*2^-{om * lam}", 2 + 2 * lam + 1,
                     "2 + 2*lambda + 1, lambda = ceil(beta/omega): a*b (2), per step q_h t' partial products and "
                     "t (2), correction.",
                     tuple((f"q_h t' (step {i})", mod.logqh, om) for i in range(lam)), words=(om,) * lam)


def wlm_mixed(mod: Modulus, gamma: tuple[int, int] | None) -> Reduction:
    """Alg 8 (corrected): two steps of words (omega0, omega1), omega1 = min(Gamma_A, omega),
    a*b*2^-beta."""
    w0, w1 = M.wlm_mixed_words(mod.beta, mod.omega, gamma and gamma[0])
    return Reduction(pow(2, -mod.beta, mod.q), f"A*B*2^-{mod.beta}", 7,
                     "7: a*b (2), two steps of q_h t' partial products and t (2 each), correction (paper: 5 + "
                     "product).",
                     (("q_h t' (omega0)", mod.logqh, w0), ("q_h t' (omega1)", mod.logqh, w1)), words=(w0, w1))


def k2red(mod: Modulus) -> Reduction:
    """Alg 3: a*b*2^(-2 omega) for a Proth prime."""
    om = mod.omega
    return Reduction(pow(2, -2 * om, mod.q), f"A*B*2^-{2 * om}", 7,
                     "7: a*b (2), q_h a_l partial products and t (2), q_h t_l partial products and t' (2), "
                     "correction (paper: 5 + product).",
                     (("q_h a_l", mod.logqh, om), ("q_h t_l", mod.logqh, om)))


def k2red_shift(mod: Modulus, rho: str) -> Reduction:
    """Alg 7: K2RED with the q_h products as shift-adds (no multiplier in the reduction)."""
    om = mod.omega
    return Reduction(pow(2, -2 * om, mod.q), f"A*B*2^-{2 * om}", 5 if rho == "B" else 7,
                     "rho B: 5 = a*b (2), t, t', correction; rho A: 7 (t and t' each over two stages: the shifters "
                     "and the sums of the terms without them, then the adder tree) (paper: 3 / 5 + product).", rho=rho)


def montgomery_shift(mod: Modulus, rho: str) -> Reduction:
    """Alg 6 (q' = q - 2): Montgomery with the products as shift-adds, a*b*2^-beta."""
    return Reduction(pow(2, -mod.beta, mod.q), f"A*B*2^-{mod.beta}", 6 if rho == "B" else 8,
                     "rho B: 6 = a*b (2), t, t', b', b; rho A: 8 (t and t' each over two stages: the shifters "
                     "and the sums of the terms without them, then the adder tree) (paper: 4 / 6 + product).", rho=rho)


# --- the plan -----------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class DspCount:
    """The DSP tiling on a profile (Gamma_A, Gamma_B): each multiplication of the reduction
    with its DSPs (what, bits, bits, DSPs), their sum, the product a*b's (0 with
    reduce_only) and the second pass's (plain=1: the full multiplier again; else 0)."""
    profile: tuple[int, int]
    tiles: tuple[tuple[str, int, int, int], ...]
    reduction: int
    product: int
    plain_pass: int

    @property
    def total(self) -> int:
        return self.reduction + self.product + self.plain_pass


@dataclasses.dataclass(frozen=True, kw_only=True)
class ModmulPlan(Timing):
    """One configuration's derived values (the module docstring states the timing)."""
    modulus: Modulus
    reduction: Reduction
    gamma: tuple[int, int] | None    # the DSP profile (None: the product left to the tool)
    carry_luts: bool                 # its device's carry chains take a LUT a bit ahead (hw.dsp.CARRY_LUTS)
    reduce_only: bool
    plain: bool
    second_pass: bool                # plain=1 and F != 1: the result through the multiplier again
    plain_constant: int              # F^-2 mod q: mul(r, F^-2) = r F^-1 turns a*b*F into a*b
    stage_count: int                 # stages of the full pipeline (every register the paper places)
    keep: tuple[bool, ...]           # the stages kept, one flag a stage of the full pipeline
    dsp: DspCount | None

    @property
    def reduce_bound(self) -> int:
        return reduce_bound(self.modulus, self.reduction.wide)

    @property
    def reduce_bound_text(self) -> str:
        return "q 2^beta - 1" if self.reduction.wide else "(q-1)^2"

    @property
    def latency_formula(self) -> str:
        return (self.reduction.formula + (" (reduce_only: two fewer)" if self.reduce_only else "")
                + (", then the full multiplier's stages again (plain)" if self.second_pass else ""))


def derive(modulus: Modulus, reduction: Reduction, gamma: tuple[int, int] | None, *, reduce_only: bool,
           plain: bool, pipeline: str, carry_luts: bool) -> ModmulPlan:
    """The plan of a reduction on a modulus; pipeline: the stages kept as 0/1 characters (empty:
    all), checked by the algorithm."""
    second_pass = bool(plain) and reduction.scale != 1
    stage_count = reduction.stages - 2 * reduce_only + (reduction.stages if second_pass else 0)
    keep = tuple(c == "1" for c in pipeline) if pipeline else (True,) * stage_count
    dsp = None
    if gamma is not None:
        tiles = tuple((w, x, y, dsp_tiles(x, y, *gamma)) for w, x, y in reduction.multiplications)
        own = sum(n for *_, n in tiles)
        product = dsp_tiles(modulus.beta, modulus.beta, *gamma)
        dsp = DspCount(gamma, tiles, own, 0 if reduce_only else product, own + product if second_pass else 0)
    latency = sum(keep)
    return ModmulPlan(modulus=modulus, reduction=reduction, gamma=gamma, carry_luts=carry_luts,
                      reduce_only=reduce_only, plain=plain,
                      second_pass=second_pass, plain_constant=pow(reduction.scale, -2, modulus.q),
                      stage_count=stage_count, keep=keep, dsp=dsp, cycles=latency, latency=latency,
                      initiation_interval=1)
