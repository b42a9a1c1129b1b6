"""The registered polynomial-ring multipliers c = a*b mod (x^n + 1, q), q = 2^k or a prime
(Tan et al. with docs/corrections.md#fast-filter-equations):
poly-fir (FIR.PolyMult, the weight-stationary systolic multiplier) and poly-fast (the fast
M-parallel filters, M = 2^a 3^b).

q = 2^k: every sum is kept mod 2^k (the low k bits). q prime (8..32 bits): the array is
lazy, exact integers in wider registers (model.Lazy), and each output coefficient is
reduced once, at its output lane, by a pipelined reduction core of family "modmul"
(`reduction`: modmul-barrett, or modmul-montgomery with plain=1, both with reduce_only=1
and a beta that takes the lane's whole range: lookup, not a copy). The reduction's stages
R add to the latency: response n/M + R, one multiplication 2n/M - 1 + R, L back to back
(L+1) n/M - 1 + R; the initiation interval stays n/M.

A frame is n/M beats on the input and on the output. Beat p: M coefficients of a, lowest
degree first (a_{Mp+l} in lane l), then M of b, highest first (b_{n-M(p+1)+l} in lane l);
the result beat p holds c_{n-M(p+1)+l} in lane l. a is the stationary (weight) operand; b
streams; with small=N, b's coefficients are small signed, |b_i| <= N, in sign-magnitude
(Saber's secrets) and the products are additions, not multipliers.

Cycles (without stalls): response time (first input beat to first result beat) n/M + S; one
multiplication (first input to last output) 2n/M - 1 + S; L multiplications back to back
(L+1) n/M - 1 + S, S the register stages of poly-fast's `pipeline` (poly-fir, poly-saber:
0): the phase sums, the results taken a position late (the others delayed, not the
look-ahead), the products of a result, cuts of the post-addition trees (hw.PolyCore), for a
clock about twice as fast. The paper's Table II prints 2n/M - 1 for one and (L+1) n/M +
delta_M for L: with S = 0 both follow the one formula, which the paper's
single-multiplication column matches and its L column exceeds by 1 + delta_M (the w-shifted
outputs come from a one-cycle look-ahead of the sub-multipliers instead of a delay of the
others, so no level adds a cycle).
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any, ClassVar, Literal, Protocol, TypeVar, cast

from ...errors import ParameterError
from ...math.primes import is_prime
from ...registry import Algorithm, Computes, Operand, lookup, param, register
from . import hw, model as M
from .plan import PolyPlan

PAPER = ("Tan et al., High-Speed VLSI Architectures for Modular Polynomial Multiplication via Fast "
         "Filtering and Applications to Lattice-Based Cryptography, arXiv:2110.12127")
MIN_N, MAX_N, MIN_K, MAX_K = 16, 1024, 2, 32
MIN_PRIME_BITS = 8           # the modmul reductions' smallest q (q >= 2^7)
MAX_PIPELINE = 8             # poly-fast's register stages: 3 + cuts of a post-addition tree (5 levels at M = 8)
Reduction = Literal["barrett", "montgomery"]


@dataclasses.dataclass(frozen=True)
class FirParams:
    n: int = param(256, help=f"polynomial length, {MIN_N}..{MAX_N} (ring Z_q[x]/(x^n+1))", lo=MIN_N, hi=MAX_N)
    q: int = param(8192, help=f"coefficient modulus: q = 2^k, {MIN_K} <= k <= {MAX_K} (reduction: the low k "
                              f"bits), or a prime of {MIN_PRIME_BITS}..{MAX_K} bits (a lazy array, each output "
                              "coefficient reduced once by `reduction`)", lo=1 << MIN_K, hi=1 << MAX_K)
    small: int = param(0, help="b's coefficients small signed, |b_i| <= small, in sign-magnitude (Saber: 5, 4, "
                               "3 for LightSaber, Saber, FireSaber): the products become additions; 0: b is a "
                               "full coefficient mod q", lo=0, hi=1 << (MAX_K - 1))
    reduction: Reduction = param("barrett", help="prime q: the output lanes' reduction core (family modmul, "
                                 "reduce_only): barrett (5 stages), montgomery (plain=1: 12 stages, a second "
                                 "multiplier); q = 2^k: barrett (none is built)")


@dataclasses.dataclass(frozen=True)
class FastParams(FirParams):
    M: int = param(2, help="parallelism: M = 2^a 3^b >= 2 (Fast.2, Fast.3, Fast.4, iterated: 6, 8, 9, 12, "
                           "16, ...); n a multiple of M", lo=1, hi=MAX_N // 2)
    pipeline: int = param(4, help="register stages S, a cycle of latency each (n/M + S): 0 none (the paper's "
                                  "timing, a slow clock); 2 the phase sums and the sub-multipliers' tap controls "
                                  "registered, results taken a position late; 3 and the products of a result "
                                  "registered; each more cuts the post-addition trees (1: not a choice)",
                          lo=0, hi=MAX_PIPELINE)


def pack_product(a: list[int], b: list[int], par: int, k: int, bb: int, small: int) -> list[tuple[int, ...]]:
    """The input beats of one product: beat p, a_{par p + l} and b_{n - par(p+1) + l} in lane l
    (b in sign-magnitude, bb bits, when small)."""
    n = len(a)

    def code(v: int) -> int:
        return ((1 << (bb - 1)) | -v if v < 0 else v) if small else v % (1 << k)
    return [(sum(a[par * p + lane] << (lane * k) for lane in range(par)),
             sum(code(b[n - par * (p + 1) + lane]) << (lane * bb) for lane in range(par))) for p in range(n // par)]


def pack_result(c: list[int], par: int, k: int) -> list[int]:
    """The result beats: beat p, c_{n - par(p+1) + l} in lane l."""
    n = len(c)
    return [sum(c[n - par * (p + 1) + lane] << (lane * k) for lane in range(par)) for p in range(n // par)]


class OutputReduction(Protocol):
    """What a prime q's output lanes use of a family "modmul" algorithm (found by lookup:
    families never import each other); its parameters are that family's own (Any here)."""
    name: str

    def parse(self, args: dict[str, Any]) -> Any: ...
    def reduce_bound(self, params: Any) -> int: ...
    def latency(self, params: Any) -> int: ...
    def model(self, params: Any, *operands: int) -> Any: ...
    def datapath(self, params: Any) -> Any: ...


def check_pipeline(name: str, stages: int) -> None:
    """hw.PolyCore's pipeline: none, or the registered array's two stages and more."""
    if stages == 1:
        raise ParameterError(name, "pipeline", "must be 0 or at least 2 (the registered array takes two stages: "
                             "its phase sums, and its results a position late)", stages)


ParamsT = TypeVar("ParamsT")
FirT = TypeVar("FirT", bound=FirParams)


class RingAlgorithm(Algorithm[ParamsT, PolyPlan]):
    """The family's common ground: frames of n/M beats, the result's lanes as the plan has them."""
    family = "polyring"
    paper = PAPER
    frames = True
    uses = ("modmul",)                  # a prime q's output reduction: lookup("modmul-<reduction>")

    def result_width(self, params: ParamsT) -> int:
        plan = self.derived(params)
        return plan.M * plan.k

    def result(self, params: ParamsT) -> Operand:
        plan = self.derived(params)
        par, k = plan.M, plan.k
        return Operand("c", par * k, f"{par} lanes of {k}-bit unsigned coefficients: beat p, lane l is "
                       f"c_(n-M(p+1)+l) (highest degree first)", "each coefficient < q", par)

    def out_beats(self, params: ParamsT, result: Any) -> list[int]:
        plan = self.derived(params)
        return pack_result(result, plan.M, plan.k)


class PolyAlgorithm(RingAlgorithm[FirT]):
    """One product a*b a frame (poly-fir, poly-fast, poly-schoolbook)."""
    Params: ClassVar[type] = FirParams  # the registry's: a subclass names its own

    # --- parameters -------------------------------------------------------------------
    def parallel(self, params: FirT) -> int:
        """M, as the parameters set it (1: FIR.PolyMult)."""
        return 1

    def validate(self, params: FirT) -> FirT:
        name, n, q = self.name, params.n, params.q
        if q & (q - 1) == 0 and q > 0:
            if not MIN_K <= q.bit_length() - 1 <= MAX_K:
                raise ParameterError(name, "q", f"must be 2^k with {MIN_K} <= k <= {MAX_K}", q)
            if params.reduction != "barrett":
                raise ParameterError(name, "reduction", "applies to a prime q only (q = 2^k keeps the low k bits)",
                                     params.reduction)
        elif not is_prime(q):
            raise ParameterError(name, "q", f"must be a power of two 2^k ({MIN_K} <= k <= {MAX_K}) or a prime "
                                 f"(is_prime) of {MIN_PRIME_BITS}..{MAX_K} bits", q)
        elif not MIN_PRIME_BITS <= q.bit_length() <= MAX_K:
            raise ParameterError(name, "q", f"must be a prime of {MIN_PRIME_BITS}..{MAX_K} bits (the modmul "
                                 "reductions take q >= 2^7)", q)
        if not MIN_N <= n <= MAX_N:
            raise ParameterError(name, "n", f"must be in {MIN_N}..{MAX_N}", n)
        par = self.parallel(params)
        if n % par:
            raise ParameterError(name, "n", f"must be a multiple of M={par}", n)
        if n // par < 2:
            raise ParameterError(name, "n", f"must be at least 2M={2 * par} (sub-multipliers of 2 taps or more)", n)
        if not 0 <= params.small < q // 2:
            raise ParameterError(name, "small", f"must satisfy 0 <= small < q/2 = {q // 2}", params.small)
        if self.prime(params):
            self.derived(params)             # the reduction's own rules, before anything is built
        return params

    # --- the derived plan -------------------------------------------------------------------
    def derive(self, params: FirT) -> PolyPlan:
        """The structure of M = parallel; the ports' widths; a prime q: the lazy array's widths,
        its largest lane value (top) and offset, then the reduction that takes top, and its
        stages R. Timing: PolyPlan (one product a frame, one window to a result beat)."""
        plan = self.ports(params, M.structure(self.parallel(params)))
        if not self.prime(params):
            return plan
        lazy = M.lazy(plan.structure, params.n, params.q, params.small)
        return self.reduced(params, dataclasses.replace(plan, lazy=lazy, offset=lazy.offset, top=lazy.top))

    def ports(self, params: FirT, structure: M.Structure) -> PolyPlan:
        """The plan of q = 2^k: k of 2^k (a prime's bit length), b's lanes sign-magnitude with
        small, else k bits."""
        k = params.q.bit_length() - (0 if self.prime(params) else 1)
        return PolyPlan(n=params.n, structure=structure, k=k,
                        b_bits=params.small.bit_length() + 1 if params.small else k)

    def reduced(self, params: FirT, plan: PolyPlan) -> PolyPlan:
        """plan (its lanes up to plan.top) with the output lanes' reduction: reduce_only (x up to
        its reduce_bound, q 2^beta - 1), plain (x mod q), the smallest beta whose bound covers
        the lanes' largest value; R its stages."""
        alg, top = self.reducer(params), plan.top
        beta = params.q.bit_length()
        while (params.q << beta) <= top:
            beta += 1
        try:
            mp = alg.parse({"q": str(params.q), "beta": str(beta), "reduce_only": "1", "plain": "1"})
        except ParameterError as e:
            raise ParameterError(self.name, "q", f"must suit reduction={params.reduction}: {e.argument} "
                                 f"{e.rule}", e.value) from None
        assert alg.reduce_bound(mp) >= top
        return dataclasses.replace(plan, reduction=mp, R=alg.latency(mp))

    def prime(self, params: FirT) -> bool:
        return params.q & (params.q - 1) != 0

    def reducer(self, params: FirT) -> OutputReduction:
        """A prime q: the modmul algorithm of the output lanes' reduction."""
        return cast(OutputReduction, lookup(f"modmul-{params.reduction}"))

    def computes(self, params: FirT) -> Computes:
        return Computes("Z_q[x]/(f)", params.q, params.n, f"x^{params.n}+1", False, ("q", "n"))

    # --- streams ----------------------------------------------------------------------
    def operands(self, params: FirT) -> list[Operand]:
        plan = self.derived(params)
        par, k, bb = plan.M, plan.k, plan.b_bits
        b_enc = (f"{par} lanes of sign-magnitude ({bb - 1}-bit magnitude, sign bit on top)" if params.small
                 else f"{par} lanes of {k}-bit unsigned coefficients")
        return [Operand("a", par * k, f"{par} lanes of {k}-bit unsigned coefficients: beat p, lane l is "
                        f"a_(Mp+l), M = {par} (lowest degree first)", "each coefficient < q", par),
                Operand("b", par * bb, b_enc + ": beat p, lane l is b_(n-M(p+1)+l) (highest degree first)",
                        f"|b_i| <= {params.small}" if params.small else "each coefficient < q", par)]

    def in_beats(self, params: FirT, operands: tuple[Any, ...]) -> list[tuple[int, ...]]:
        a, b = operands
        plan = self.derived(params)
        return pack_product(a, b, plan.M, plan.k, plan.b_bits, params.small)

    # --- mathematics ------------------------------------------------------------------
    def model(self, params: FirT, *operands: Any) -> list[int]:
        """c = a*b mod (x^n + 1, q) as the hardware computes it: q = 2^k, model.flat; a prime
        q, the exact lane values of model.wide plus the offset through the reduction's own
        model (both checked against model.negacyclic)."""
        a, b = operands
        plan = self.derived(params)
        if not self.prime(params):
            return M.flat(a, b, params.q, plan.structure)
        alg = self.reducer(params)
        lanes = [c + plan.offset for c in M.wide(a, b, plan.structure)]
        assert all(0 <= u <= plan.top for u in lanes), "a lane beyond model.lazy's bound"
        return [alg.model(plan.reduction, u) for u in lanes]

    def congruence(self, params: FirT) -> str:
        ring = (f"q = {params.q} (prime; each coefficient reduced once by {params.reduction})" if self.prime(params)
                else f"q = 2^{self.derived(params).k}")
        return (f"c = a*b mod (x^{params.n} + 1, q), {ring}, coefficients in [0, q)"
                + (f"; |b_i| <= {params.small}" if params.small else ""))

    def random_operands(self, params: FirT, rng: random.Random) -> tuple[Any, ...]:
        n, q, s = params.n, params.q, params.small
        return ([rng.randrange(q) for _ in range(n)],
                [rng.randint(-s, s) for _ in range(n)] if s else [rng.randrange(q) for _ in range(n)])

    def cases(self, params: FirT) -> list[tuple[Any, ...]]:
        """Zeros, all q-1 times the extreme b (all +max, all -max, alternating signs), 1 and
        x^(n-1) (the wrap: x^(n-1) x^(n-1) = -x^(n-2)), alternating a."""
        n, q, s = params.n, params.q, params.small
        top = s or q - 1
        ext = [[top] * n, [-top] * n if s else [1] * n, [top if i & 1 else -top for i in range(n)] if s
               else [(q - 1) * (i & 1) for i in range(n)]]
        one, high = [1] + [0] * (n - 1), [0] * (n - 1) + [1]
        alt = [(q - 1) * (i & 1) for i in range(n)]
        return ([([0] * n, e) for e in ext[:1]] + [([q - 1] * n, e) for e in ext]
                + [(one, high), (high, high), (alt, ext[2]), ([q - 1] * n, [0] * n)])

    # --- formal reference (modforge prove; the single-product algorithms declare it) ------
    MAX_PROOF_N = 32

    def negacyclic_reference(self, params: FirT) -> str:
        """ok: c = a*b mod (x^n + 1, q) by the schoolbook negacyclic sums (q = 2^k: mod q is the
        k-bit wrap), with a and b unpacked from the beats as in_beats packs them; in_domain:
        |b_i| <= small (small > 0)."""
        plan = self.derived(params)
        n, par, k, bb, small = params.n, plan.M, plan.k, plan.b_bits, params.small
        if n > self.MAX_PROOF_N:
            raise ParameterError("prove", "n", f"must be at most {self.MAX_PROOF_N} for a bounded proof", n)
        if self.prime(params):
            raise ParameterError("prove", "q", "must be a power of two (the reference wraps mod 2^k; a prime q "
                                 "is not proved yet)", params.q)
        iw = par * (k + bb)
        lines: list[str] = []
        domain: list[str] = []
        for beat in range(n // par):
            for lane in range(par):
                at = beat * iw + lane * k
                lines.append(f"  wire [{k - 1}:0] a{par * beat + lane} = operands[{at + k - 1}:{at}];")
                j, at = n - par * (beat + 1) + lane, beat * iw + par * k + lane * bb
                if small:   # sign-magnitude: the sign on top
                    lines.append(f"  wire [{bb - 2}:0] b{j}_magnitude = operands[{at + bb - 2}:{at}];")
                    lines.append(f"  wire [{k - 1}:0] b{j} = operands[{at + bb - 1}] ? -b{j}_magnitude "
                                 f": b{j}_magnitude;")
                    domain.append(f"b{j}_magnitude <= {small}")
                else:
                    lines.append(f"  wire [{k - 1}:0] b{j} = operands[{at + k - 1}:{at}];")
        for c in range(n):
            terms = [f"a{i} * b{c - i}" for i in range(c + 1)] + [f"- a{i} * b{c + n - i}" for i in range(c + 1, n)]
            lines.append(f"  wire [{k - 1}:0] c{c} = {' + '.join(terms).replace('+ -', '-')};")
        beats = [f"c{n - par * (beat + 1) + lane}" for beat in range(n // par) for lane in range(par)]
        lines.append(f"  assign ok = result == {{{', '.join(reversed(beats))}}};")
        lines.append(f"  assign in_domain = {' && '.join(domain) or chr(49) + chr(39) + 'b1'};")
        return "\n".join(lines) + "\n"

    # --- hardware ---------------------------------------------------------------------
    def build(self, params: FirT) -> hw.Array | hw.Reduced:
        plan = self.derived(params)
        return self.output(params, hw.PolyCore(self.plan(params).input_layout, params.n, plan.k, plan.structure,
                                               params.small, lazy=plan.lazy, pipeline=plan.stages))

    def output(self, params: FirT, core: hw.Array) -> hw.Array | hw.Reduced:
        """The array's lanes as they are (q = 2^k), or through the plan's reduction (a prime q)."""
        plan = self.derived(params)
        if plan.reduction is None:
            return core
        alg, mp = self.reducer(params), plan.reduction
        return hw.Reduced(core, lambda: alg.datapath(mp), 2 * mp.beta, plan.M, self.plan(params).output_layout)

    def tag(self, params: FirT) -> str:
        ring = f"p{params.q}_{params.reduction}" if self.prime(params) else f"q{self.derived(params).k}"
        return f"n{params.n}_{ring}" + (f"_s{params.small}" if params.small else "")

    def extra_info(self, params: FirT) -> dict[str, Any]:
        plan = self.derived(params)
        st, nb, R, S = plan.structure, plan.beats, plan.R, plan.stages
        added = (f" + S, S = {S}" if S else "") + (f" + R, R = {R}" if R else "")
        info = {
            "M": st.M, "products": st.K, "taps_each": nb, "taps": st.K * nb,
            "post_terms": sum(len(t) for t in st.post), "shifted_products": len(st.shifted()),
            "response_cycles": nb + S + R, "one_multiplication_cycles": 2 * nb - 1 + S + R,
            "l_multiplications_cycles": "(L+1) n/M - 1" + added,
            "paper_table2": {"one": "2n/M - 1", "L": "(L+1) n/M + delta_M"},
        } | ({"pipeline_stages": S} if S else {})
        if plan.lazy is not None:
            lz = plan.lazy
            info["prime_q"] = self.prime_info(params) | {"accumulator_bits": list(lz.acc_bits), "bound": lz.bound,
                                                         "offset": lz.offset}
        return info

    def prime_info(self, params: FirT) -> dict[str, Any]:
        """A prime q: the output reduction (its algorithm, parameters and stages R), the lanes'
        width and the latency formula."""
        plan = self.derived(params)
        return {"reduction": self.reducer(params).name, "reduction_params": dataclasses.asdict(plan.reduction),
                "reduction_stages": plan.R, "lane_bits": plan.top.bit_length(),
                "latency_formula": "response + R (R: the reduction's stages, one core an output lane)"}


#: Saber's levels: module rank l and the secrets' bound (centred binomial, mu/2)
SABER = {"light": (2, 5), "saber": (3, 4), "fire": (4, 3)}
SABER_N, SABER_Q, SABER_P = 256, 1 << 13, 1 << 10


@dataclasses.dataclass(frozen=True)
class SaberParams:
    level: Literal["light", "saber", "fire"] = param("saber", help="LightSaber (l = 2, |s_i| <= 5), Saber "
                                                     "(l = 3, 4), FireSaber (l = 4, 3)")
    M: int = param(4, help="parallelism of the multiplier: 1 (FIR.PolyMult) or 2^a 3^b (Fast.M)", lo=1,
                   hi=SABER_N // 2)
    mu: int = param(0, help="magnitude bits of a secret coefficient on the port (sign-magnitude, the sign "
                            "above them); 0: the fewest the level needs", lo=0, hi=12)
    pipeline: int = param(0, help="register stages S as poly-fast's (0 or 2..8; each a cycle of latency, for a "
                                  "clock about twice as fast at 2 or more)", lo=0, hi=MAX_PIPELINE)


@register
class Saber(RingAlgorithm[SaberParams]):
    """Saber's products in one core: a frame is l products (a_j, s_j) whose sum leaves as the
    result, accumulated in the multiplier: row i of A s (KeyGen, Encaps), or b^T s' (its low
    10 bits: mod p = 2^10). n = 256, q = 2^13."""
    name = "poly-saber"
    title = "Saber profile: sum of l products a_j*s_j mod (x^256+1, 2^13), s small (A s, b^T s')"
    paper = PAPER + ", Sec. 5 and Table II (Saber)"
    Params: ClassVar[type] = SaberParams

    def rank(self, params: SaberParams) -> int:
        return SABER[params.level][0]

    def ring(self, params: SaberParams) -> FastParams:
        """The multiplier's own parameters."""
        return FastParams(n=SABER_N, q=SABER_Q, small=SABER[params.level][1], M=params.M, pipeline=params.pipeline)

    def validate(self, params: SaberParams) -> SaberParams:
        if params.M != 1:
            try:
                Fast().validate(self.ring(params))
            except ParameterError as e:
                raise ParameterError(self.name, e.argument, e.rule, e.value) from None
        check_pipeline(self.name, params.pipeline)
        need = SABER[params.level][1].bit_length()
        if params.mu and params.mu < need:
            raise ParameterError(self.name, "mu", f"must be at least {need} bits: level={params.level} has "
                                 f"secrets up to {SABER[params.level][1]}", params.mu)
        return dataclasses.replace(params, mu=params.mu or need)

    def computes(self, params: SaberParams) -> Computes:
        return Computes("Z_q[x]/(f)", SABER_Q, SABER_N, f"x^{SABER_N}+1", False, ())

    def derive(self, params: SaberParams) -> PolyPlan:
        """The multiplier of M (1: FIR.PolyMult) on 13-bit coefficients and secrets of mu bits
        and a sign, l products a frame. Timing: PolyPlan (the result, n/M beats, leaves with the
        frame's last product)."""
        return PolyPlan(n=SABER_N, structure=M.structure(params.M), k=13, b_bits=params.mu + 1,
                        group=self.rank(params), stages=params.pipeline)

    def operands(self, params: SaberParams) -> list[Operand]:
        par, eta = params.M, SABER[params.level][1]
        return [Operand("a", par * 13, f"{par} lanes of 13-bit unsigned coefficients: product j's beat p "
                        f"(frame beat j n/M + p), lane l is a_j,(Mp+l), M = {par}", "each coefficient < 2^13", par),
                Operand("s", par * self.derived(params).b_bits, f"{par} lanes of sign-magnitude ({params.mu}-bit "
                        "magnitude, sign bit on top): product j's beat p, lane l is s_j,(n-M(p+1)+l)",
                        f"|s_j,i| <= {eta}", par)]

    def in_beats(self, params: SaberParams, operands: tuple[Any, ...]) -> list[tuple[int, ...]]:
        a, s = operands
        return [beat for aj, sj in zip(a, s, strict=False)
                for beat in pack_product(aj, sj, params.M, 13, self.derived(params).b_bits, SABER[params.level][1])]

    def model(self, params: SaberParams, *operands: Any) -> list[int]:
        """sum_j a_j * s_j mod (x^256 + 1, 2^13), each product as the hardware computes it."""
        a, s = operands
        st = self.derived(params).structure
        products = [M.flat(aj, sj, SABER_Q, st) for aj, sj in zip(a, s, strict=False)]
        return [sum(col) % SABER_Q for col in zip(*products, strict=False)]

    def congruence(self, params: SaberParams) -> str:
        return (f"c = sum_(j<{self.rank(params)}) a_j*s_j mod (x^256 + 1, 2^13), |s_j coefficients| <= "
                f"{SABER[params.level][1]}; c mod 2^10 is the inner product mod p")

    def random_operands(self, params: SaberParams, rng: random.Random) -> tuple[Any, ...]:
        lane, eta = self.rank(params), SABER[params.level][1]
        return ([[rng.randrange(SABER_Q) for _ in range(SABER_N)] for _ in range(lane)],
                [[rng.randint(-eta, eta) for _ in range(SABER_N)] for _ in range(lane)])

    def cases(self, params: SaberParams) -> list[tuple[Any, ...]]:
        """All q-1 against the extreme secrets (all +eta, all -eta, alternating), zeros."""
        lane, eta, n = self.rank(params), SABER[params.level][1], SABER_N
        top = [[SABER_Q - 1] * n for _ in range(lane)]
        return [(top, [[eta] * n for _ in range(lane)]), (top, [[-eta] * n for _ in range(lane)]),
                (top, [[eta if i & 1 else -eta for i in range(n)] for _ in range(lane)]),
                ([[0] * n for _ in range(lane)], [[eta] * n for _ in range(lane)])]

    def build(self, params: SaberParams) -> hw.PolyCore:
        plan = self.derived(params)
        return hw.PolyCore(self.plan(params).input_layout, plan.n, plan.k, plan.structure, SABER[params.level][1],
                           params.mu, plan.group, pipeline=plan.stages)

    def operations(self, params: SaberParams) -> dict[str, int]:
        """Polynomial multiplications of Saber's KeyGen, Encaps and Decaps: l^2, l^2 + l, l^2 + 2l."""
        lane = self.rank(params)
        return {"keygen": lane * lane, "encaps": lane * lane + lane, "decaps": lane * lane + 2 * lane}

    def tag(self, params: SaberParams) -> str:
        return f"{params.level}_m{params.M}_mu{params.mu}"

    def extra_info(self, params: SaberParams) -> dict[str, Any]:
        plan = self.derived(params)
        nb = plan.beats
        ops = self.operations(params)
        return {"rank": plan.group, "secret_bound": SABER[params.level][1], "M": params.M,
                "products": plan.structure.K, "multiplications": ops,
                "operation_cycles": {op: (L + 1) * nb - 1 + plan.stages for op, L in ops.items()},
                "formula": "(L + 1) n/M - 1 + S for L multiplications (the groups of l back to back; S the "
                           "pipeline's stages)"}

    def grid(self) -> list[dict[str, str]]:
        return [{"level": "saber", "M": "1"},                            # M = 1: the smallest core
                {"level": "light", "M": "4", "pipeline": "4"}]           # the pipelined array's running sum

    def extended_grid(self) -> list[dict[str, str]]:
        return [{"level": "saber", "M": "8", "mu": "4"}, {"level": "fire", "M": "2"}]


@register
class Fir(PolyAlgorithm[FirParams]):
    name = "poly-fir"
    title = "weight-stationary systolic negacyclic multiplier a*b mod (x^n+1, 2^k) (FIR.PolyMult)"
    paper = PAPER + ", Sec. 3 and Fig. 3 (FIR.PolyMult)"

    formal = True

    def reference(self, params: FirParams) -> str:
        return self.negacyclic_reference(params)

    def grid(self) -> list[dict[str, str]]:
        return [{"n": "32", "q": "1024"}, {"n": "16", "q": "8192", "small": "4"},   # the smallest Verilog first
                {"n": "256", "q": "8192", "small": "4"}, {"n": "32", "q": "12289"}]          # a prime q

    def extended_grid(self) -> list[dict[str, str]]:
        return [{"n": "512", "q": "8192", "small": "4"}, {"n": "1024", "q": "1024", "small": "1"},
                {"n": "256", "q": "3329", "small": "2"}]


@register
class Fast(PolyAlgorithm[FastParams]):
    name = "poly-fast"
    title = "fast M-parallel filter multiplier a*b mod (x^n+1, 2^k), M = 2^a 3^b (Fast.M.PolyMult)"
    paper = PAPER + ", Sec. 4 (fast M-parallel)"
    Params: ClassVar[type] = FastParams
    parallelism = "M"

    formal = True

    def reference(self, params: FastParams) -> str:
        return self.negacyclic_reference(params)

    def parallel(self, params: FastParams) -> int:
        return params.M

    def derive(self, params: FastParams) -> PolyPlan:
        """PolyAlgorithm's plan with the array's S = pipeline register stages (hw.PolyCore):
        latency n/M + S (+ R), one multiplication 2n/M - 1 + S (+ R)."""
        return dataclasses.replace(super().derive(params), stages=params.pipeline)

    def validate(self, params: FastParams) -> FastParams:
        if params.M < 2:
            raise ParameterError(self.name, "M", "must be at least 2 (M = 1: poly-fir)", params.M)
        try:
            M.factors(params.M)
        except ValueError:
            raise ParameterError(self.name, "M", "must be of the form 2^a 3^b", params.M) from None
        check_pipeline(self.name, params.pipeline)
        return super().validate(params)

    def tag(self, params: FastParams) -> str:
        return f"m{params.M}_" + super().tag(params)

    def grid(self) -> list[dict[str, str]]:
        return [{"n": "16", "q": "8192", "small": "4", "M": "2"}, {"n": "24", "q": "65536", "M": "3"},
                {"n": "32", "q": "8192", "small": "5", "M": "4"}, {"n": "32", "q": "4096", "small": "3", "M": "8"},
                {"n": "36", "q": "1024", "small": "2", "M": "6"}, {"n": "256", "q": "8192", "small": "4", "M": "4"},
                {"n": "64", "q": "3329", "M": "2"}]                                              # a prime q

    def extended_grid(self) -> list[dict[str, str]]:
        """n = 256 for M = 2, 3 (240), 8; the paper's Table III n = 180 for M = 2, 3, 4; 512, 1024."""
        return ([{"n": "256", "q": "8192", "small": "4", "M": m} for m in ("2", "8")]
                + [{"n": "240", "q": "8192", "small": "4", "M": "3"}]
                + [{"n": "180", "q": "8192", "small": "4", "M": m} for m in ("2", "3", "4")]
                + [{"n": "512", "q": "8192", "small": "4", "M": "4"},
                   {"n": "1024", "q": "4096", "small": "3", "M": "8"},
                   {"n": "256", "q": "12289", "M": "4", "reduction": "montgomery"}])          # a prime q


@register
class Schoolbook(PolyAlgorithm[FirParams]):
    """The baseline: n multiply-accumulate units, b broadcast a coefficient a cycle against
    a negacyclically rotating a (Roy & Basso's high-speed Saber multiplier, Sec. 2.4; with
    `small` each MAC is one adder per radix-4 signed digit of the broadcast |b|, decoded
    once for all MACs: 0, a or 2a added or subtracted, a LUT a bit, no multiplier).
    poly-fir's parameters and M = 1 streams, so the two swap.

    Cycles (without stalls): latency (input beat p to output beat p) 2n: a frame streams in
    (n), computes (n: one coefficient of b a cycle) while the next streams in, then streams
    out while the next computes; its first result beat leaves with the last compute step.
    Initiation interval n; one multiplication (first input beat to last output beat) 3n - 1;
    L back to back (L+2) n - 1; a prime q adds the reduction's stages R to each.
    """
    name = "poly-schoolbook"
    title = "MAC-array schoolbook negacyclic multiplier a*b mod (x^n+1, 2^k), b broadcast (Roy & Basso)"
    paper = PAPER + ", Sec. 2.2 (the schoolbook baseline, after Roy and Basso, TCHES 2020(4))"

    formal = True

    def reference(self, params: FirParams) -> str:
        return self.negacyclic_reference(params)

    def derive(self, params: FirParams) -> PolyPlan:
        """M = 1, a window in between (the MACs compute); a prime q: the accumulators start
        from offset, a multiple of q: n q (q - 1), the bound of -sum b_j rot_j (rot in [0, q],
        b < q, all subtracted); small: n q small (+- terms), the lanes up to twice that (top);
        then the reduction that takes top. Timing: PolyPlan (3n - 1 + R a product)."""
        plan = dataclasses.replace(self.ports(params, M.structure(1)), windows=2)
        if not self.prime(params):
            return plan
        offset = params.n * params.q * (params.small or params.q - 1)
        return self.reduced(params, dataclasses.replace(plan, offset=offset, top=offset * (2 if params.small else 1)))

    def model(self, params: FirParams, *operands: Any) -> list[int]:
        """c = a*b mod (x^n + 1, q). A prime q: the lanes carry a value congruent to c (the
        rotating residues are q - x, not -x) within the plan's top, which the reduction maps
        to the canonical c: the negacyclic product mod q."""
        a, b = operands
        return M.negacyclic(a, b, params.q) if self.prime(params) else super().model(params, a, b)

    def build(self, params: FirParams) -> hw.Array | hw.Reduced:
        plan = self.derived(params)                     # q = 2^k: top and offset 0 (lanes of k bits from 0)
        prime = params.q if self.prime(params) else 0
        return self.output(params, hw.SchoolbookCore(self.plan(params).input_layout, params.n, plan.k, params.small,
                                                     prime, plan.top.bit_length(), plan.offset))

    def tag(self, params: FirParams) -> str:
        return "sb_" + super().tag(params)

    def extra_info(self, params: FirParams) -> dict[str, Any]:
        plan = self.derived(params)
        n, R = params.n, plan.R
        return {
            "macs": n, "mac": "an adder per radix-4 digit of |b|" if params.small else "multiplier + adder",
            "compute_cycles": n, "response_cycles": 2 * n + R, "one_multiplication_cycles": 3 * n - 1 + R,
            "l_multiplications_cycles": "(L+2) n - 1" + (f" + R, R = {R}" if R else ""),
        } | ({"prime_q": self.prime_info(params) | {"offset": plan.offset}} if R else {})

    def grid(self) -> list[dict[str, str]]:
        return [{"n": "32", "q": "1024"}, {"n": "16", "q": "8192", "small": "4"},
                {"n": "256", "q": "8192", "small": "4"}, {"n": "16", "q": "3329", "small": "2"}]   # a prime q
