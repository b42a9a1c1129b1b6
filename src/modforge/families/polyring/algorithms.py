"""The registered polynomial-ring multipliers c = a*b mod (x^n + 1, q), q = 2^k or a prime
(fast-filter-polymult-saber.txt with ../shared/seed-003-math.md and errata.md):
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

Cycles (without stalls): response time (first input beat to first result beat) n/M; one
multiplication (first input to last output) 2n/M - 1; L multiplications back to back
(L+1) n/M - 1. The paper's Table II prints 2n/M - 1 for one and (L+1) n/M + delta_M for L:
here both follow the one formula, which the paper's single-multiplication column matches
and its L column exceeds by 1 + delta_M (the w-shifted outputs come from a one-cycle
look-ahead of the sub-multipliers instead of a delay of the others, so no level adds a
cycle).
"""

from __future__ import annotations

import dataclasses
import random
from typing import ClassVar, Literal

from ...errors import ParameterError
from ...math.primes import is_prime
from ...registry import Algorithm, Computes, Operand, lookup, param, register
from . import hw, model as M

PAPER = ("Tan et al., High-Speed VLSI Architectures for Modular Polynomial Multiplication via Fast "
         "Filtering and Applications to Lattice-Based Cryptography (fast-filter-polymult-saber.txt)")
MIN_N, MAX_N, MIN_K, MAX_K = 16, 1024, 2, 32
MIN_PRIME_BITS = 8           # the modmul reductions' smallest q (q >= 2^7)
Reduction = Literal["barrett", "montgomery"]


@dataclasses.dataclass(frozen=True)
class FirParams:
    n: int = param(256, help=f"polynomial length, {MIN_N}..{MAX_N} (ring Z_q[x]/(x^n+1))")
    q: int = param(8192, help=f"coefficient modulus: q = 2^k, {MIN_K} <= k <= {MAX_K} (reduction: the low k "
                              f"bits), or a prime of {MIN_PRIME_BITS}..{MAX_K} bits (a lazy array, each output "
                              "coefficient reduced once by `reduction`)")
    small: int = param(0, help="b's coefficients small signed, |b_i| <= small, in sign-magnitude (Saber: 5, 4, "
                               "3 for LightSaber, Saber, FireSaber): the products become additions; 0: b is a "
                               "full coefficient mod q")
    reduction: Reduction = param("barrett", help="prime q: the output lanes' reduction core (family modmul, "
                                 "reduce_only): barrett (5 stages), montgomery (plain=1: 12 stages, a second "
                                 "multiplier); q = 2^k: barrett (none is built)")


@dataclasses.dataclass(frozen=True)
class FastParams(FirParams):
    M: int = param(2, help="parallelism: M = 2^a 3^b >= 2 (Fast.2, Fast.3, Fast.4, iterated: 6, 8, 9, 12, "
                           "16, ...); n a multiple of M")


def pack_product(a, b, par: int, k: int, bb: int, small: int) -> list[tuple[int, int]]:
    """The input beats of one product: beat p, a_{par p + l} and b_{n - par(p+1) + l} in lane l
    (b in sign-magnitude, bb bits, when small)."""
    n = len(a)

    def code(v: int) -> int:
        return ((1 << (bb - 1)) | -v if v < 0 else v) if small else v % (1 << k)
    return [(sum(a[par * p + lane] << (lane * k) for lane in range(par)),
             sum(code(b[n - par * (p + 1) + lane]) << (lane * bb) for lane in range(par))) for p in range(n // par)]


def pack_result(c, par: int, k: int) -> list[int]:
    """The result beats: beat p, c_{n - par(p+1) + l} in lane l."""
    n = len(c)
    return [sum(c[n - par * (p + 1) + lane] << (lane * k) for lane in range(par)) for p in range(n // par)]


class PolyAlgorithm(Algorithm):
    family = "polyring"
    paper = PAPER
    frames = True
    uses = ("modmul",)                  # a prime q's output reduction: lookup("modmul-<reduction>")
    Params: ClassVar[type] = FirParams  # the registry's: a subclass names its own

    # --- parameters -------------------------------------------------------------------
    def parallel(self, params) -> int:
        return 1

    def validate(self, params):
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
            self.reducer(params)             # the reduction's own rules, before anything is built
        return params

    # --- the derived plan: the flattened fast-filter structure --------------------------
    def derive(self, params) -> M.Structure:
        return M.structure(self.parallel(params))

    def prime(self, params) -> bool:
        return params.q & (params.q - 1) != 0

    def k(self, params) -> int:
        """Bits of a coefficient on the ports: k of 2^k, a prime's bit length."""
        return params.q.bit_length() - (0 if self.prime(params) else 1)

    def lazy(self, params) -> M.Lazy:
        """A prime q: the lazy array's widths and its output offset."""
        return M.lazy(self.derived(params), params.n, params.q, params.small)

    def lane_top(self, params) -> int:
        """A prime q: the largest value an output lane carries into the reduction."""
        return self.lazy(params).top

    def reducer(self, params):
        """A prime q: (the modmul algorithm, its canonical parameters) of the output lanes'
        reduction: reduce_only (x up to its reduce_bound, q 2^beta - 1), plain (x mod q), the
        smallest beta whose bound covers the lane's largest value."""
        alg, top = lookup(f"modmul-{params.reduction}"), self.lane_top(params)
        beta = params.q.bit_length()
        while (params.q << beta) <= top:
            beta += 1
        try:
            mp = alg.parse({"q": str(params.q), "beta": str(beta), "reduce_only": "1", "plain": "1"})
        except ParameterError as e:
            raise ParameterError(self.name, "q", f"must suit reduction={params.reduction}: {e.argument} "
                                 f"{e.rule}", e.value) from None
        assert alg.reduce_bound(mp) >= top
        return alg, mp

    def reduction_stages(self, params) -> int:
        """R: the output reduction's pipeline stages (0 for q = 2^k)."""
        if not self.prime(params):
            return 0
        alg, mp = self.reducer(params)
        return alg.latency(mp)

    def b_bits(self, params) -> int:
        return params.small.bit_length() + 1 if params.small else self.k(params)

    def computes(self, params):
        return Computes("Z_q[x]/(f)", params.q, params.n, f"x^{params.n}+1", False, ("q", "n"))

    # --- streams ----------------------------------------------------------------------
    def frame_beats(self, params) -> int:
        return params.n // self.parallel(params)

    def operands(self, params):
        par, k, bb = self.parallel(params), self.k(params), self.b_bits(params)
        b_enc = (f"{par} lanes of sign-magnitude ({bb - 1}-bit magnitude, sign bit on top)" if params.small
                 else f"{par} lanes of {k}-bit unsigned coefficients")
        return [Operand("a", par * k, f"{par} lanes of {k}-bit unsigned coefficients: beat p, lane l is "
                        f"a_(Mp+l), M = {par} (lowest degree first)", "each coefficient < q"),
                Operand("b", par * bb, b_enc + ": beat p, lane l is b_(n-M(p+1)+l) (highest degree first)",
                        f"|b_i| <= {params.small}" if params.small else "each coefficient < q")]

    def result_width(self, params):
        return self.parallel(params) * self.k(params)

    def result(self, params):
        par, k = self.parallel(params), self.k(params)
        return Operand("c", par * k, f"{par} lanes of {k}-bit unsigned coefficients: beat p, lane l is "
                       f"c_(n-M(p+1)+l) (highest degree first)", "each coefficient < q")

    def in_beats(self, params, operands):
        a, b = operands
        return pack_product(a, b, self.parallel(params), self.k(params), self.b_bits(params), params.small)

    def out_beats(self, params, result):
        return pack_result(result, self.parallel(params), self.k(params))

    # --- mathematics ------------------------------------------------------------------
    def model(self, params, a, b):
        """c = a*b mod (x^n + 1, q) as the hardware computes it: q = 2^k, model.flat; a prime
        q, the exact lane values of model.wide plus the offset through the reduction's own
        model (both checked against model.negacyclic)."""
        if not self.prime(params):
            return M.flat(a, b, params.q, self.derived(params))
        lz, (alg, mp) = self.lazy(params), self.reducer(params)
        lanes = [c + lz.offset for c in M.wide(a, b, self.derived(params))]
        assert all(0 <= u <= lz.top for u in lanes), "a lane beyond model.lazy's bound"
        return [alg.model(mp, u) for u in lanes]

    def congruence(self, params):
        ring = (f"q = {params.q} (prime; each coefficient reduced once by {params.reduction})" if self.prime(params)
                else f"q = 2^{self.k(params)}")
        return (f"c = a*b mod (x^{params.n} + 1, q), {ring}, coefficients in [0, q)"
                + (f"; |b_i| <= {params.small}" if params.small else ""))

    def random_operands(self, params, rng: random.Random):
        n, q, s = params.n, params.q, params.small
        return ([rng.randrange(q) for _ in range(n)],
                [rng.randint(-s, s) for _ in range(n)] if s else [rng.randrange(q) for _ in range(n)])

    def cases(self, params):
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

    def negacyclic_reference(self, params):
        """ok: c = a*b mod (x^n + 1, q) by the schoolbook negacyclic sums (q = 2^k: mod q is the
        k-bit wrap), with a and b unpacked from the beats as in_beats packs them; in_domain:
        |b_i| <= small (small > 0)."""
        n, par, k, bb, small = params.n, self.parallel(params), self.k(params), self.b_bits(params), params.small
        if n > self.MAX_PROOF_N:
            raise ParameterError("prove", "n", f"must be at most {self.MAX_PROOF_N} for a bounded proof", n)
        if self.prime(params):
            raise ParameterError("prove", "q", "must be a power of two (the reference wraps mod 2^k; a prime q "
                                 "is not proved yet)", params.q)
        iw = par * (k + bb)
        lines, domain = [], []
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
    def build(self, params):
        if not self.prime(params):
            return hw.PolyCore(params.n, self.k(params), self.derived(params), params.small)
        core = hw.PolyCore(params.n, self.k(params), self.derived(params), params.small, lazy=self.lazy(params))
        alg, mp = self.reducer(params)
        return hw.Reduced(core, lambda: alg.build(mp), 2 * mp.beta, self.parallel(params))

    def cycles(self, params):
        """One multiplication, first input beat to last output beat: 2n/M - 1 (+ R, the
        reduction's stages, for a prime q)."""
        return 2 * params.n // self.parallel(params) - 1 + self.reduction_stages(params)

    def latency(self, params):
        return params.n // self.parallel(params) + self.reduction_stages(params)

    def initiation_interval(self, params):
        return params.n // self.parallel(params)

    def tag(self, params):
        ring = f"p{params.q}_{params.reduction}" if self.prime(params) else f"q{self.k(params)}"
        return f"n{params.n}_{ring}" + (f"_s{params.small}" if params.small else "")

    def extra_info(self, params):
        st, nb, R = self.derived(params), params.n // self.parallel(params), self.reduction_stages(params)
        info = {
            "M": st.M, "products": st.K, "taps_each": nb, "taps": st.K * nb,
            "post_terms": sum(len(t) for t in st.post), "shifted_products": len(st.shifted()),
            "response_cycles": nb + R, "one_multiplication_cycles": 2 * nb - 1 + R,
            "l_multiplications_cycles": "(L+1) n/M - 1" + (f" + R, R = {R}" if R else ""),
            "paper_table2": {"one": "2n/M - 1", "L": "(L+1) n/M + delta_M"},
        }
        if self.prime(params):
            lz = self.lazy(params)
            info["prime_q"] = self.prime_info(params) | {"accumulator_bits": list(lz.acc_bits), "bound": lz.bound,
                                                         "offset": lz.offset}
        return info

    def prime_info(self, params) -> dict:
        """A prime q: the output reduction (its algorithm, parameters and stages R), the lanes'
        width and the latency formula."""
        alg, mp = self.reducer(params)
        return {"reduction": alg.name, "reduction_params": dataclasses.asdict(mp),
                "reduction_stages": self.reduction_stages(params), "lane_bits": self.lane_top(params).bit_length(),
                "latency_formula": "response + R (R: the reduction's stages, one core an output lane)"}


#: Saber's levels: module rank l and the secrets' bound (centred binomial, mu/2)
SABER = {"light": (2, 5), "saber": (3, 4), "fire": (4, 3)}
SABER_N, SABER_Q, SABER_P = 256, 1 << 13, 1 << 10


@dataclasses.dataclass(frozen=True)
class SaberParams:
    level: Literal["light", "saber", "fire"] = param("saber", help="LightSaber (l = 2, |s_i| <= 5), Saber "
                                                     "(l = 3, 4), FireSaber (l = 4, 3)")
    M: int = param(4, help="parallelism of the multiplier: 1 (FIR.PolyMult) or 2^a 3^b (Fast.M)")
    mu: int = param(0, help="magnitude bits of a secret coefficient on the port (sign-magnitude, the sign "
                            "above them); 0: the fewest the level needs")


@register
class Saber(PolyAlgorithm):
    """Saber's products in one core: a frame is l products (a_j, s_j) whose sum leaves as the
    result, accumulated in the multiplier: row i of A s (KeyGen, Encaps), or b^T s' (its low
    10 bits: mod p = 2^10). n = 256, q = 2^13."""
    name = "poly-saber"
    title = "Saber profile: sum of l products a_j*s_j mod (x^256+1, 2^13), s small (A s, b^T s')"
    Params: ClassVar[type] = SaberParams

    def parallel(self, params) -> int:
        return params.M

    def rank(self, params) -> int:
        return SABER[params.level][0]

    def ring(self, params) -> FastParams:
        """The multiplier's own parameters."""
        return FastParams(n=SABER_N, q=SABER_Q, small=SABER[params.level][1], M=params.M)

    def validate(self, params):
        if params.M != 1:
            try:
                Fast().validate(self.ring(params))
            except ParameterError as e:
                raise ParameterError(self.name, e.argument, e.rule, e.value) from None
        need = SABER[params.level][1].bit_length()
        if params.mu and params.mu < need:
            raise ParameterError(self.name, "mu", f"must be at least {need} bits: level={params.level} has "
                                 f"secrets up to {SABER[params.level][1]}", params.mu)
        return dataclasses.replace(params, mu=params.mu or need)

    def k(self, params) -> int:
        return 13

    def b_bits(self, params) -> int:
        return params.mu + 1

    def computes(self, params):
        return Computes("Z_q[x]/(f)", SABER_Q, SABER_N, f"x^{SABER_N}+1", False, ())

    def frame_beats(self, params) -> int:
        return self.rank(params) * SABER_N // params.M

    def result_beats(self, params) -> int:
        return SABER_N // params.M

    def operands(self, params):
        par, eta = params.M, SABER[params.level][1]
        return [Operand("a", par * 13, f"{par} lanes of 13-bit unsigned coefficients: product j's beat p "
                        f"(frame beat j n/M + p), lane l is a_j,(Mp+l), M = {par}", "each coefficient < 2^13"),
                Operand("s", par * self.b_bits(params), f"{par} lanes of sign-magnitude ({params.mu}-bit magnitude, "
                        "sign bit on top): product j's beat p, lane l is s_j,(n-M(p+1)+l)", f"|s_j,i| <= {eta}")]

    def in_beats(self, params, operands):
        a, s = operands
        return [beat for aj, sj in zip(a, s, strict=False)
                for beat in pack_product(aj, sj, params.M, 13, self.b_bits(params), SABER[params.level][1])]

    def out_beats(self, params, result):
        return pack_result(result, params.M, 13)

    def model(self, params, a, s):
        """sum_j a_j * s_j mod (x^256 + 1, 2^13), each product as the hardware computes it."""
        st = self.derived(params)
        products = [M.flat(aj, sj, SABER_Q, st) for aj, sj in zip(a, s, strict=False)]
        return [sum(col) % SABER_Q for col in zip(*products, strict=False)]

    def congruence(self, params):
        return (f"c = sum_(j<{self.rank(params)}) a_j*s_j mod (x^256 + 1, 2^13), |s_j coefficients| <= "
                f"{SABER[params.level][1]}; c mod 2^10 is the inner product mod p")

    def random_operands(self, params, rng: random.Random):
        lane, eta = self.rank(params), SABER[params.level][1]
        return ([[rng.randrange(SABER_Q) for _ in range(SABER_N)] for _ in range(lane)],
                [[rng.randint(-eta, eta) for _ in range(SABER_N)] for _ in range(lane)])

    def cases(self, params):
        """All q-1 against the extreme secrets (all +eta, all -eta, alternating), zeros."""
        lane, eta, n = self.rank(params), SABER[params.level][1], SABER_N
        top = [[SABER_Q - 1] * n for _ in range(lane)]
        return [(top, [[eta] * n for _ in range(lane)]), (top, [[-eta] * n for _ in range(lane)]),
                (top, [[eta if i & 1 else -eta for i in range(n)] for _ in range(lane)]),
                ([[0] * n for _ in range(lane)], [[eta] * n for _ in range(lane)])]

    def build(self, params):
        return hw.PolyCore(SABER_N, 13, self.derived(params), SABER[params.level][1], params.mu, self.rank(params))

    def operations(self, params) -> dict[str, int]:
        """Polynomial multiplications of Saber's KeyGen, Encaps and Decaps: l^2, l^2 + l, l^2 + 2l."""
        lane = self.rank(params)
        return {"keygen": lane * lane, "encaps": lane * lane + lane, "decaps": lane * lane + 2 * lane}

    def cycles(self, params):
        """One frame (l products, back to back) to its result: (l + 1) n/M - 1."""
        return (self.rank(params) + 1) * SABER_N // params.M - 1

    def latency(self, params):
        return SABER_N // params.M

    def initiation_interval(self, params):
        return self.frame_beats(params)

    def tag(self, params):
        return f"{params.level}_m{params.M}_mu{params.mu}"

    def extra_info(self, params):
        nb = SABER_N // params.M
        ops = self.operations(params)
        return {"rank": self.rank(params), "secret_bound": SABER[params.level][1], "M": params.M,
                "products": self.derived(params).K, "multiplications": ops,
                "operation_cycles": {op: (L + 1) * nb - 1 for op, L in ops.items()},
                "formula": "(L + 1) n/M - 1 for L multiplications (the groups of l back to back)"}

    def grid(self):
        return [{"level": "saber", "M": "1"}, {"level": "light", "M": "4"}]   # M = 1: the smallest core

    def extended_grid(self):
        return [{"level": "saber", "M": "8", "mu": "4"}, {"level": "fire", "M": "2"}]


@register
class Fir(PolyAlgorithm):
    name = "poly-fir"
    title = "weight-stationary systolic negacyclic multiplier a*b mod (x^n+1, 2^k) (FIR.PolyMult)"

    formal = True

    def reference(self, params):
        return self.negacyclic_reference(params)

    def grid(self):
        return [{"n": "16", "q": "8192", "small": "4"}, {"n": "32", "q": "1024"},
                {"n": "256", "q": "8192", "small": "4"}, {"n": "32", "q": "12289"}]          # a prime q

    def extended_grid(self):
        return [{"n": "512", "q": "8192", "small": "4"}, {"n": "1024", "q": "1024", "small": "1"},
                {"n": "256", "q": "3329", "small": "2"}]


@register
class Fast(PolyAlgorithm):
    name = "poly-fast"
    title = "fast M-parallel filter multiplier a*b mod (x^n+1, 2^k), M = 2^a 3^b (Fast.M.PolyMult)"
    Params: ClassVar[type] = FastParams
    parallelism = "M"

    formal = True

    def reference(self, params):
        return self.negacyclic_reference(params)

    def parallel(self, params) -> int:
        return params.M

    def validate(self, params):
        if params.M < 2:
            raise ParameterError(self.name, "M", "must be at least 2 (M = 1: poly-fir)", params.M)
        try:
            M.factors(params.M)
        except ValueError:
            raise ParameterError(self.name, "M", "must be of the form 2^a 3^b", params.M) from None
        return super().validate(params)

    def tag(self, params):
        return f"m{params.M}_" + super().tag(params)

    def grid(self):
        return [{"n": "16", "q": "8192", "small": "4", "M": "2"}, {"n": "24", "q": "65536", "M": "3"},
                {"n": "32", "q": "8192", "small": "5", "M": "4"}, {"n": "32", "q": "4096", "small": "3", "M": "8"},
                {"n": "36", "q": "1024", "small": "2", "M": "6"}, {"n": "256", "q": "8192", "small": "4", "M": "4"},
                {"n": "64", "q": "3329", "M": "2"}]                                              # a prime q

    def extended_grid(self):
        """n = 256 for M = 2, 3 (240), 8; the paper's Table III n = 180 for M = 2, 3, 4; 512, 1024."""
        return ([{"n": "256", "q": "8192", "small": "4", "M": m} for m in ("2", "8")]
                + [{"n": "240", "q": "8192", "small": "4", "M": "3"}]
                + [{"n": "180", "q": "8192", "small": "4", "M": m} for m in ("2", "3", "4")]
                + [{"n": "512", "q": "8192", "small": "4", "M": "4"},
                   {"n": "1024", "q": "4096", "small": "3", "M": "8"},
                   {"n": "256", "q": "12289", "M": "4", "reduction": "montgomery"}])          # a prime q


@register
class Schoolbook(PolyAlgorithm):
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

    formal = True

    def reference(self, params):
        return self.negacyclic_reference(params)

    def offset(self, params) -> int:
        """A prime q: the accumulators' start, a multiple of q: n q (q - 1), the bound of
        -sum b_j rot_j (rot in [0, q], b < q, all subtracted); small: n q small (+- terms)."""
        return params.n * params.q * (params.small or params.q - 1)

    def lane_top(self, params):
        return self.offset(params) * (2 if params.small else 1)

    def model(self, params, a, b):
        """c = a*b mod (x^n + 1, q). A prime q: the lanes carry a value congruent to c (the
        rotating residues are q - x, not -x) within lane_top, which the reduction maps to
        the canonical c: the negacyclic product mod q."""
        return M.negacyclic(a, b, params.q) if self.prime(params) else super().model(params, a, b)

    def build(self, params):
        if not self.prime(params):
            return hw.SchoolbookCore(params.n, self.k(params), params.small)
        core = hw.SchoolbookCore(params.n, self.k(params), params.small, params.q,
                                 self.lane_top(params).bit_length(), self.offset(params))
        alg, mp = self.reducer(params)
        return hw.Reduced(core, lambda: alg.build(mp), 2 * mp.beta, 1)

    def cycles(self, params):
        """One multiplication, first input beat to last output beat: 3n - 1 (+ R)."""
        return 3 * params.n - 1 + self.reduction_stages(params)

    def latency(self, params):
        return 2 * params.n + self.reduction_stages(params)

    def initiation_interval(self, params):
        return params.n

    def tag(self, params):
        return "sb_" + super().tag(params)

    def extra_info(self, params):
        n, R = params.n, self.reduction_stages(params)
        return {
            "macs": n, "mac": "an adder per radix-4 digit of |b|" if params.small else "multiplier + adder",
            "compute_cycles": n, "response_cycles": 2 * n + R, "one_multiplication_cycles": 3 * n - 1 + R,
            "l_multiplications_cycles": "(L+2) n - 1" + (f" + R, R = {R}" if R else ""),
        } | ({"prime_q": self.prime_info(params) | {"offset": self.offset(params)}} if R else {})

    def grid(self):
        return [{"n": "32", "q": "1024"}, {"n": "16", "q": "8192", "small": "4"},
                {"n": "256", "q": "8192", "small": "4"}, {"n": "16", "q": "3329", "small": "2"}]   # a prime q
