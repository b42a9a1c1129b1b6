"""The fully pipelined field multipliers for elliptic curves and zero knowledge, 128 to 1024
bits (issue 37): modmul-field-montgomery and modmul-field-barrett for any odd prime q, and
the special-form reductions modmul-pseudo-mersenne (q = 2^k - c, c small: 2^255 - 19,
secp256k1, P-521) and modmul-solinas (generalised Mersenne: the NIST primes P-256, P-384,
and Ed448's 2^448 - 2^224 - 1).

q: an integer (decimal or 0x hex) or a name of math.fields.NAMED (p256, p384, p521,
secp256k1, 25519, 448, bn254, bls12-381, bls12-377); the canonical parameter is its hex
value, and design.json names the curve (`curve`, `named`) whenever q is a named prime,
however it was given. Payload: a in the low k bits, b in the next k bits (a, b < q),
k = bits(q); result: k bits, fully reduced, in [0, q). Latency: wideplan.py's formulas
(design.json's latency_formula), initiation interval 1. The models are math.fields'
(montgomery_word with one k-bit word, barrett, pseudo_mersenne, solinas), each checked
against Python's %; the hardware is checked against them (tests/test_conformance.py).

op=square: the squarer, one operand a (payload: a alone), result a^2 (times 2^-k for
Montgomery) as the multiplier's with b = a; its product is hw.dsp's Karatsuba square tree
(three squares a level, the leaves' symmetric partial products once), the same stages.

output=lazy: the result c < 2q, congruent (`design.json` output_range), the final
conditional subtraction left out where there is one; the models are math.fields' with
lazy=True, so the hardware is checked bit-exactly. The bounds (wideplan.bounds):
- montgomery: a, b < q; x = a b < q^2 < q 2^k, t < 2^k, so s = (x + t q) / 2^k <
  (q 2^k + 2^k q) / 2^k = 2q: s is the result (one stage fewer). Operands < 2q would give
  s < 5q, so they stay < q (an operand >= q is refused by the model).
- barrett: a, b < 2^k (any k-bit value, so x < 4^k: fields.barrett_trace's r = x - q3 q in
  [0, 4q), q3 from the top of a truncated product, the hardware's: the model takes it too);
  one subtraction (r >= 2q: r - 2q) leaves c < 2q.
- pseudo-mersenne: a, b < 2^k; the folds (wideplan.fold_widths of (2^k - 1)^2, the same
  count for every named prime) end below 2^k = q + c <= 2q: that is the result (one stage
  fewer), c < 2^k.
- solinas: a, b < 2^k (fields.solinas_bounds holds for x < 4^k: s in [-A q, (B + 1) q));
  c = (s + A q) mod 2q, the largest of s - j q >= 0 over j = -A, -A + 2, ... (up to B): half
  the candidates, c < 2q.

Why beside modmul-montgomery and -barrett (Tosun et al.'s Alg 1 and 4, at most 128 bits)
rather than inside them: those are the paper's seven-stage datapaths (plain-tiled products
summed in one stage, the paper's DSP counting, beta, reduce_only, plain and formal proofs),
whose Verilog is kept as it is; a wide product needs the Karatsuba tree and truncated
products, with their own stages, and the conformance test's default tier runs an algorithm's
first configuration, which here is a 256-bit one.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any, ClassVar, Literal

from ...errors import ParameterError
from ...hw.dsp import DSP_HELP, DSP_PROFILES, Dsp
from ...hw.pipeline import RESET_HELP, PipelinedCore
from ...hw.wide import high_pieces, high_sum
from ...math import fields as F
from ...registry import Algorithm, Computes, Operand, param, register
from . import widehw as hw, wideplan as plans
from .algorithms import factors
from .wideplan import WidePlan

NAMES = ", ".join(F.NAMED)
#: the algorithm of each reduction kind, for the errors that point elsewhere
ALGORITHMS = {"montgomery": "modmul-field-montgomery", "barrett": "modmul-field-barrett",
              "pseudo-mersenne": "modmul-pseudo-mersenne", "solinas": "modmul-solinas"}


@dataclasses.dataclass(frozen=True)
class FieldParams:
    q: str = param(help=f"the prime modulus, {F.MIN_BITS} to {F.MAX_BITS} bits: an integer (decimal or 0x hex) "
                        f"or a name: {NAMES}")
    dsp: Dsp = param("dsp48e2", help=DSP_HELP + "; every product is a Karatsuba tiling, its levels the fewest "
                                                "DSPs for the profile")
    op: Literal["mul", "square"] = param("mul", help="mul: a*b (operands a, b); square: a^2, one operand a (a "
                                         "Karatsuba square tree: three squares a level, symmetric leaf tiles)")
    output: Literal["reduced", "lazy"] = param(
        "reduced", help="reduced: c in [0, q); lazy: c < 2q (pseudo-mersenne: < 2^k), congruent: montgomery and "
                        "pseudo-mersenne leave out the final subtraction (a stage fewer), barrett one of its two, "
                        "solinas every other candidate; lazy operands: any k-bit value, but montgomery's must stay "
                        "< q (its bound needs a b < q 2^k)")
    reset: Literal["control", "all"] = param("control", help=RESET_HELP)
    dsp_budget: int = param(0, help="at most this many DSP multiplications (0: no limit): the reduction's products by "
                                    "the constants q, q', mu give up tiles to logic (shift-adds of the constant "
                                    "chunk's signed digits), the fewest adder bits a DSP first; the product a*b keeps "
                                    "its DSPs", lo=0)
    depth: Literal["short", "deep"] = param(
        "short", help="short: each product's Karatsuba recombination above its first level in one stage (13 stages "
                      "for montgomery and barrett); deep: a stage a level (the truncated products' top split one "
                      "more), a shorter clock path for more registers and cycles (design.json latency_formula)")


class FieldAlgorithm(Algorithm[FieldParams, WidePlan]):
    """The common part: q resolved and checked (fields.check), the plan (wideplan.derive).
    Grids: the default tier's first configuration is 256 bits with dsp=none (the products
    left to the tool: a few seconds to generate; a Karatsuba tiling of 256 bits takes about
    20 s to elaborate), the Karatsuba one second (slow tier), 381 to 521 bits extended."""
    family = "modmul"
    Params: ClassVar[type] = FieldParams
    kind: ClassVar[str]

    def value(self, params: FieldParams) -> int:
        return F.resolve(params.q, self.name)

    def validate(self, params: FieldParams) -> FieldParams:
        q = self.value(params)
        forms = F.check(self.name, q)
        if self.kind in ("montgomery", "barrett") or any(f.name == self.kind for f in forms):
            self.check_budget(q, params)
            return dataclasses.replace(params, q=hex(q))
        has = "; ".join(str(f) for f in forms)
        apply = ", ".join(ALGORITHMS[r] for r in F.reductions(q) if r in ALGORITHMS)
        raise ParameterError(self.name, "q", f"must be a {self.kind} prime; it has the forms: {has} (algorithms "
                             f"that apply: {apply})", hex(q))

    def check_budget(self, q: int, params: FieldParams) -> None:
        """dsp_budget needs a DSP profile and at least the DSPs no constant can give up."""
        if not params.dsp_budget:
            return
        if DSP_PROFILES[params.dsp] is None:
            raise ParameterError(self.name, "dsp_budget", "needs a DSP profile (dsp=none leaves every product to "
                                 "the synthesis tool)", params.dsp_budget)
        least = plans.derive(q, self.kind, DSP_PROFILES[params.dsp], params.op, params.output, 1).dsp_total
        if params.dsp_budget < least:
            raise ParameterError(self.name, "dsp_budget", f"must be at least {least}, the DSPs left with every "
                                 "tile of a constant in logic", params.dsp_budget)

    def derive(self, params: FieldParams) -> WidePlan:
        return plans.derive(self.value(params), self.kind, DSP_PROFILES[params.dsp], params.op, params.output,
                            params.dsp_budget, params.depth)

    # --- mathematics ------------------------------------------------------------------
    def operands(self, params: FieldParams) -> list[Operand]:
        plan = self.derived(params)
        if plan.in_bound == plan.q and not plan.square:
            return factors(plan.k)
        bound = "q" if plan.in_bound == plan.q else f"2^{plan.k}"
        names = ["a"] if plan.square else ["a", "b"]
        return [Operand(n, plan.k, "unsigned binary", f"{n} < {bound}") for n in names]

    def result(self, params: FieldParams) -> Operand:
        return Operand("c", self.result_width(params), "unsigned binary", f"0 <= c < {self.out_range(params)}")

    def result_width(self, params: FieldParams) -> int:
        return self.derived(params).out_bits

    def out_range(self, params: FieldParams) -> str:
        """The result's bound: q, 2q (lazy), 2^k (lazy pseudo-mersenne)."""
        plan = self.derived(params)
        return {plan.q: "q", 2 * plan.q: "2q"}.get(plan.out_bound, f"2^{plan.k}")

    def computes(self, params: FieldParams) -> Computes:
        return Computes("Z_q", self.derived(params).q, defined_by=("q",))

    def congruence(self, params: FieldParams) -> str:
        plan = self.derived(params)
        name = f" ({plan.named.name})" if plan.named else ""
        return f"C = {plan.factor} mod q, q = {plan.q:#x}{name}, C in [0, {self.out_range(params)})"

    def scale(self, params: FieldParams) -> int:
        """model(a, b) == a*b*scale mod q."""
        return self.derived(params).scale

    def model(self, params: FieldParams, *operands: int) -> int:
        """The reduction of a b (op=mul) or a^2 (op=square); an operand outside the design's
        range (< q; lazy: wideplan.bounds) is refused: the bounds are the proof's premise."""
        plan = self.derived(params)
        if not all(0 <= v < plan.in_bound for v in operands):
            raise ValueError(f"{self.name}: operands must be below {plan.in_bound:#x}, got {operands}")
        a = operands[0]
        return self.reduce(plan, a * (a if plan.square else operands[1]))

    def reduce(self, plan: WidePlan, x: int) -> int:
        """The reduction's model (math.fields, lazy when plan.lazy) of x = a b."""
        raise NotImplementedError

    def random_operands(self, params: FieldParams, rng: random.Random) -> tuple[int, ...]:
        plan = self.derived(params)
        return tuple(rng.randrange(plan.in_bound) for _ in range(1 if plan.square else 2))

    def cases(self, params: FieldParams) -> list[tuple[int, ...]]:
        """0, 1, 2, q - 1, q - 2, (q +- 1)/2, operands near 2^(k-1) and 2^(k/2) (x's low half 0:
        2^(k-1) * 2), pairwise (the squarer: each alone); operands up to 2^k (lazy): also q,
        q + 1, 2^k - 1, 2^k - 2, 2^k - 2^(k/2)."""
        plan = self.derived(params)
        q, k = plan.q, plan.k
        h = k // 2
        vals = [0, 1, 2, q - 1, q - 2, (q - 1) // 2, (q + 1) // 2, (1 << (k - 1)) - 1, 1 << (k - 1),
                (1 << (k - 1)) + 1, (1 << h) - 1, 1 << h, q - (1 << h)]
        if plan.in_bound > q:
            vals += [q, q + 1, (1 << k) - 1, (1 << k) - 2, (1 << k) - (1 << h)]
        vals = [v for v in dict.fromkeys(vals) if 0 <= v < plan.in_bound]
        if plan.square:
            return [(a,) for a in vals]
        return [(a, b) for a in vals for b in vals]

    # --- hardware ---------------------------------------------------------------------
    def build(self, params: FieldParams) -> PipelinedCore:
        return PipelinedCore(self.datapath(params), reset=params.reset == "all")

    def datapath(self, params: FieldParams) -> hw.WideDatapath:
        streams = self.plan(params)
        return self.DATAPATH(self.derived(params), (streams.input_layout, streams.output_layout))

    DATAPATH: ClassVar[type[hw.WideDatapath]]

    def tag(self, params: FieldParams) -> str:
        plan = self.derived(params)
        tag = plan.named.name.replace("-", "_") if plan.named else f"q{plan.k}"
        return tag + ("_sq" if plan.square else "") + ("_lazy" if plan.lazy else "")

    def extra_info(self, params: FieldParams) -> dict[str, Any]:
        plan = self.derived(params)
        info: dict[str, Any] = {
            "congruence": self.congruence(params), "q": hex(plan.q), "bits": plan.k, "reduction": plan.kind,
            "forms": [str(f) for f in plan.forms], "latency_formula": plan.formula,
            "output_range": f"lazy, [0, {self.out_range(params)}) (congruent)" if plan.lazy else
                            "fully reduced, [0, q)"}
        if plan.square or plan.lazy:
            info.update({"op": "square: a^2" if plan.square else "mul: a b",
                         "input_range": "[0, q)" if plan.in_bound == plan.q else f"[0, 2^{plan.k})"})
        if plan.named:
            info.update({"named": plan.named.name, "curve": plan.named.curve, "formula": plan.named.formula})
        if plan.scale != 1:
            info["montgomery_domain"] = {
                "R": hex(pow(plan.scale, -1, plan.q)),
                "to": f"b = {pow(plan.scale, -2, plan.q):#x} = R^2 mod q: the core returns a R (into the domain)",
                "from": "b = 1: the core returns a R^-1 (out of the domain)"}
            if plan.square:
                info["montgomery_domain"].update({
                    "to": "by the multiplier (b = R^2 mod q): the squarer stays in the domain, a R -> a^2 R",
                    "from": "by the multiplier (b = 1)"})
        if plan.gamma is not None:
            info.update({"dsp_profile": f"{plan.gamma[0]}x{plan.gamma[1]}",
                         "dsp_multiplications": [f"{w}: {x}x{y} -> {n}" for w, x, y, n in plan.multiplications],
                         "dsp_total": plan.dsp_total})
            if plan.logic_adders:
                info["logic_tiles"] = (f"{plan.logic_tiles} constant tiles by shift-adds in logic, "
                                       f"{plan.logic_adders} adders")
        return info


PAPER_FIELDS = "docs/references.md: montgomery-1985, barrett-1986, hac-1996, solinas-1999; issue 37"


@register
class FieldMontgomery(FieldAlgorithm):
    name = "modmul-field-montgomery"
    title = "pipelined Montgomery field multiplier a*b*2^-k mod q, 128-1024 bits, Karatsuba products"
    paper = "Montgomery 1985 (docs/references.md#montgomery-1985), R = 2^k, truncated t = x q' mod R"
    kind = "montgomery"
    DATAPATH = hw.Montgomery

    def reduce(self, plan: WidePlan, x: int) -> int:
        return F.montgomery_word(plan.q, plan.k, x, lazy=plan.lazy)

    def cases(self, params: FieldParams) -> list[tuple[int, ...]]:
        """The common corners, and products a b = q mod 2^k: t = x q' mod 2^k = 2^k - 1, where
        the top of t q drops the most (hw.wide), the rounding of s at its margin."""
        plan = self.derived(params)
        if plan.square:
            return super().cases(params)
        q, k = plan.q, plan.k
        extra = [(a, b) for b in range(3, 64, 2) if (a := q * pow(b, -1, 1 << k) % (1 << k)) < q]
        return super().cases(params) + extra[:4]

    def grid(self) -> list[dict[str, str]]:
        return [{"q": "p256", "dsp": "none"}, {"q": "p256"}]

    def extended_grid(self) -> list[dict[str, str]]:
        return [{"q": "bls12-381"}, {"q": "p521", "dsp": "ecp5"}]


@register
class FieldBarrett(FieldAlgorithm):
    name = "modmul-field-barrett"
    title = "pipelined Barrett field multiplier a*b mod q, 128-1024 bits, Karatsuba products"
    paper = "Barrett 1986; HAC Alg. 14.42 (docs/references.md#barrett-1986), truncated x - q3 q"
    kind = "barrett"
    DATAPATH = hw.Barrett

    def reduce(self, plan: WidePlan, x: int) -> int:
        """The hardware's q3 from the top of (x >> (k-1)) mu (hw.wide): the same lazy result."""
        g, pieces = high_pieces(plan.k + 1, plan.gamma)
        return F.barrett(plan.q, x, lazy=plan.lazy, product=lambda u, mu: high_sum(u, mu, g, pieces))

    def grid(self) -> list[dict[str, str]]:
        return [{"q": "secp256k1", "dsp": "none"}, {"q": "p256"}]

    def extended_grid(self) -> list[dict[str, str]]:
        return [{"q": "bls12-381"}, {"q": "p521"}]


@register
class PseudoMersenne(FieldAlgorithm):
    name = "modmul-pseudo-mersenne"
    title = "pipelined pseudo-Mersenne field multiplier a*b mod 2^k - c: folds hi*c by shift-adds"
    paper = "Crandall 1992 / Solinas 1999 (docs/references.md#solinas-1999): x = lo + hi c"
    kind = "pseudo-mersenne"
    DATAPATH = hw.PseudoMersenne

    def reduce(self, plan: WidePlan, x: int) -> int:
        return F.pseudo_mersenne(plan.k, plan.c, x, lazy=plan.lazy)

    def extra_info(self, params: FieldParams) -> dict[str, Any]:
        plan = self.derived(params)
        info = super().extra_info(params)
        info.update({"c": hex(plan.c), "folds": len(plan.folds),
                     "c_by": "shift-adds of its signed digits" if plan.shift_add else "DSP tiles"})
        return info

    def grid(self) -> list[dict[str, str]]:
        return [{"q": "secp256k1", "dsp": "none"}, {"q": "secp256k1"}]

    def extended_grid(self) -> list[dict[str, str]]:
        return [{"q": "25519"}, {"q": "p521"}, {"q": "p384", "dsp": "none"}]


@register
class Solinas(FieldAlgorithm):
    name = "modmul-solinas"
    title = "pipelined Solinas (generalised Mersenne) field multiplier a*b mod q: word adds and subtracts"
    paper = "Solinas 1999; FIPS 186-4 App. D.2 (docs/references.md#solinas-1999)"
    kind = "solinas"
    DATAPATH = hw.Solinas

    def reduce(self, plan: WidePlan, x: int) -> int:
        return F.solinas(plan.terms, plan.w, x, lazy=plan.lazy)

    def extra_info(self, params: FieldParams) -> dict[str, Any]:
        plan = self.derived(params)
        info = super().extra_info(params)
        low, high = F.solinas_bounds(plan.terms, plan.w)
        info.update({"word": plan.w, "correction_candidates": low + high + 1})
        return info

    def grid(self) -> list[dict[str, str]]:
        return [{"q": "p256", "dsp": "none"}, {"q": "p256"}]

    def extended_grid(self) -> list[dict[str, str]]:
        return [{"q": "p384"}, {"q": "448", "dsp": "none"}]
