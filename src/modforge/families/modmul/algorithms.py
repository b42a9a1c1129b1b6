"""The registered fully pipelined modular multipliers a*b -> reduction of family "modmul"
(paper: ntt-modular-reduction-wlm-k2red.txt, with errata.md): modmul-montgomery,
-barrett, -plantard, -wlm, -wlm-mixed, -k2red, -k2red-shift, -montgomery-shift.

Payload: a in the low beta bits, b in the next beta bits (a, b < q); result: beta bits,
in [0, q). q is a generation-time constant. Each core is a PipelinedCore: latency = its
number of register stages (the formulas in `stages`), initiation interval 1.
reduce_only=1: the payload is x <= (q-1)^2 (2 beta bits), the result its reduction (the
same congruence with A*B = x), two stages fewer; Barrett and Montgomery take any x below
q 2^beta (`reduce_bound`: a wide sum, e.g. a polynomial coefficient summed lazily, with a
beta above q's bit length). qh_input=1 (WLM, WLM-Mixed, K2RED: the
paper's q_h input): q_h follows in the next log q_h bits and q = q_h 2^omega + 1 is the
modulus of that product; shift_input=1 (K2RED-Shift, Montgomery-Shift) the same with the
shift amounts l1, l2 [, l3]. plain=1: a*b mod q (the Montgomery-type factor F undone by a
second pass through the full multiplier with the constant F^-2 mod q).
"""

from __future__ import annotations

import dataclasses
import random
from typing import ClassVar, Literal

from ...errors import ParameterError
from ...hw.dsp import DSP_HELP, DSP_PROFILES, Dsp, dsp_tiles
from ...math.primes import family as prime_family, is_prime, v2
from ...registry import Algorithm, Computes, Operand, param, register
from . import hw, model as M

PAPER = ("Tosun et al., Optimized FPGA Architecture for Modular Reduction in NTT "
         "(ntt-modular-reduction-wlm-k2red.txt)")

MIN_BETA, MAX_BETA = 8, 128
REDUCE_ONLY_HELP = ("1: the reduction alone, input x <= (q-1)^2 in 2 beta bits (the paper's Tables 3-4); "
                    "0: the product a*b, then the reduction")
PIPELINE_HELP = ("the register stages kept, one character per stage of the full pipeline (`latency_formula` "
                 "in design.json), 1 keep, 0 merge into the next stage, the last 1 (latency = the 1s; "
                 "empty: every stage, the paper's FF placement)")
PLAIN_HELP = ("1: the plain product a*b mod q (x mod q with reduce_only): the result goes through the "
              "multiplier a second time with the constant F^-2 mod q, F the reduction's factor (twice the "
              "stages and DSPs; nothing added where F = 1); 0: the reduction's own congruence (the "
              "Montgomery domain: design.json gives the constants that convert in and out)")


@dataclasses.dataclass(frozen=True)
class GenericParams:
    q: int = param(help="the prime modulus (a generation-time constant)")
    beta: int = param(0, help="reduction width beta, q < 2^beta (0: q's bit length)")
    dsp: Dsp = param("dsp48e2", help=DSP_HELP)
    reduce_only: bool = param(False, help=REDUCE_ONLY_HELP)
    plain: bool = param(False, help=PLAIN_HELP)
    pipeline: str = param("", help=PIPELINE_HELP)


@dataclasses.dataclass(frozen=True)
class NttParams:
    q: int = param(help="the prime modulus q = q_h 2^omega + 1 (a generation-time constant)")
    logqh: int = param(0, help="log q_h = beta - omega, beta = q's bit length (0: the smallest "
                               "the algorithm allows for q)")
    dsp: Dsp = param("dsp48e2", help=DSP_HELP)
    qh_input: bool = param(False, help="1: q_h is a run-time input beside a and b (log q_h bits, top bit "
                                  "set: q = q_h 2^omega + 1 may change every product, e.g. an RNS base); "
                                  "q then fixes beta, omega and log q_h")
    reduce_only: bool = param(False, help=REDUCE_ONLY_HELP)
    plain: bool = param(False, help=PLAIN_HELP)
    pipeline: str = param("", help=PIPELINE_HELP)


@dataclasses.dataclass(frozen=True)
class ShiftParams:
    q: int = param(help="a Proth-l prime q = 2^(beta-1) + (2^l1 - 2^l2 [+ 2^l3]) 2^omega + 1")
    logqh: int = param(0, help="log q_h = beta - omega, beta = q's bit length (0: the smallest "
                               "for which q is Proth-2l or Proth-3l)")
    rho: Literal["A", "B"] = param("B", help="pipeline configuration: B (shift and add in one stage), "
                               "A (shifted terms registered, then added)")
    dsp: Dsp = param("dsp48e2", help=DSP_HELP + " (the a*b product only: the reduction has no multiplier)")
    shift_input: bool = param(False, help="1: l1, l2 (and l3 for a Proth-3l q) are run-time inputs beside a "
                                     "and b (barrel shifters): the modulus may change every product; "
                                     "q then fixes beta, omega, log q_h and the form")
    reduce_only: bool = param(False, help=REDUCE_ONLY_HELP)
    plain: bool = param(False, help=PLAIN_HELP)
    pipeline: str = param("", help=PIPELINE_HELP)


#: the run-time modulus fields (qh_input, shift_input) and what they must hold
RUNTIME_DOMAIN = {"qh": "q_h of this product's modulus q = q_h 2^omega + 1, top bit set",
                  "l1": "l1 of q = 2^(beta-1) + (2^l1 - 2^l2 [+ 2^l3]) 2^omega + 1",
                  "l2": "l2 (as l1)", "l3": "l3 (as l1; Proth-3l)"}


def _hex(q: int) -> str:
    return hex(q)


class ModmulAlgorithm(Algorithm):
    family = "modmul"
    paper = PAPER
    Params: ClassVar[type] = GenericParams  # the registry's: a subclass names its own

    # --- parameters -------------------------------------------------------------------
    def check_q(self, q) -> int:
        if not isinstance(q, int) or isinstance(q, bool):
            raise ParameterError(self.name, "q", "must be an integer", q)
        if q.bit_length() > MAX_BETA:
            raise ParameterError(self.name, "q", f"must be at most {MAX_BETA} bits wide", _hex(q))
        if q.bit_length() < MIN_BETA:
            raise ParameterError(self.name, "q", f"must be at least {MIN_BETA} bits wide "
                                 f"(q >= 2^{MIN_BETA - 1})", q)
        if not is_prime(q):
            raise ParameterError(self.name, "q", "must be prime", _hex(q))
        return q.bit_length()

    def check_reduce_only(self, params) -> None:
        """plain needs F^-2 mod q, a generation-time constant."""
        if params.plain and (getattr(params, "qh_input", 0) or getattr(params, "shift_input", 0)):
            raise ParameterError(self.name, "plain", "must be 0 with a run-time modulus (F^-2 mod q would "
                                 "change with q)", params.plain)

    def validate(self, params):
        bits = self.check_q(params.q)
        beta = params.beta or bits
        if not bits <= beta <= MAX_BETA:
            raise ParameterError(self.name, "beta", f"must satisfy q < 2^beta <= 2^{MAX_BETA} "
                                 f"(beta >= {bits})", params.beta)
        self.check_reduce_only(params)
        p = dataclasses.replace(params, beta=beta)
        self.check(p)
        self.check_pipeline(p)
        return p

    def check(self, params) -> None:
        """Algorithm-specific rules on the canonical parameters."""

    def check_pipeline(self, params) -> None:
        """pipeline: one 0/1 per stage of the full pipeline, the last 1."""
        mask, stages = params.pipeline, self.stage_count(params)
        if mask and (set(mask) - {"0", "1"} or len(mask) != stages or mask[-1] != "1"):
            raise ParameterError(self.name, "pipeline", f"must be {stages} characters 0 or 1 (one per stage), "
                                 "the last 1", mask)

    def gamma(self, params):
        return DSP_PROFILES[getattr(params, "dsp", "none")]

    def beta(self, params) -> int:
        return getattr(params, "beta", 0) or params.q.bit_length()

    # --- mathematics ------------------------------------------------------------------
    def operands(self, params):
        bw = self.beta(params)
        if params.reduce_only:
            return [Operand("x", 2 * bw, "unsigned binary", f"x <= {self.reduce_bound_text(params)}")]
        return [Operand("a", bw, "unsigned binary", "a < q"), Operand("b", bw, "unsigned binary", "b < q")]

    def result(self, params):
        return Operand("c", self.beta(params), "unsigned binary", "0 <= c < q")

    def result_width(self, params):
        return self.beta(params)

    def factor(self, params) -> str:
        """The Montgomery-type factor of the congruence, e.g. '*2^-64'."""
        raise NotImplementedError

    def scale(self, params) -> int:
        """The reduction's factor F as a number: model(a, b) == a*b*F mod q for all a, b
        (plain=1 undoes it: a*b)."""
        raise NotImplementedError

    def congruence(self, params):
        factor = "A*B" if params.plain else self.factor(params)
        text = f"C = {factor} mod q, q = {params.q:#x}, C in [0, q)"
        return text.replace("A*B", "X") + f", X <= {self.reduce_bound_text(params)}" if params.reduce_only else text

    def reduce_bound(self, params) -> int:
        """The largest x the reduction alone (reduce_only) is exact for: (q-1)^2, a product."""
        return (params.q - 1) ** 2

    def reduce_bound_text(self, params) -> str:
        return "(q-1)^2"

    def model(self, params, *operands):
        """The bit-exact result (see `congruence`). The models reduce the product of their
        two operands, so the reduction alone of x is the model of (x, 1); plain: that result
        times F^-2 through the full multiplier once more."""
        r = self.multiply(params, *operands) if not params.reduce_only else self.multiply(params, operands[0], 1)
        return self.multiply(params, r, self.plain_constant(params)) if self.second_pass(params) else r

    # --- the plain domain (plain=1) and the Montgomery domain's conversions --------------
    def second_pass(self, params) -> bool:
        return bool(params.plain) and self.scale(params) != 1

    def plain_constant(self, params) -> int:
        """F^-2 mod q: mul(r, F^-2) = r F^-1, which turns a*b*F into a*b."""
        return pow(self.scale(params), -2, params.q)

    def full(self, params):
        """The full multiplier of the second pass (a*b, the reduction's own congruence)."""
        return dataclasses.replace(params, reduce_only=0, plain=0, pipeline="")

    def build(self, params):
        core = self.core(dataclasses.replace(params, plain=0, pipeline=""))
        if self.second_pass(params):
            core = hw.PlainCore(core, self.core(self.full(params)), self.plain_constant(params))
        if params.pipeline:
            core.keep_stages([c == "1" for c in params.pipeline])
        return core

    def core(self, params):
        """The pipelined core of the reduction's own congruence."""
        raise NotImplementedError

    def multiply(self, params, a: int, b: int) -> int:
        raise NotImplementedError

    def random_operands(self, params, rng: random.Random):
        if params.reduce_only:
            return (rng.randrange(self.reduce_bound(params) + 1),)
        return (rng.randrange(params.q), rng.randrange(params.q))

    def cases(self, params):
        pairs = self.operand_cases(params)
        if params.reduce_only:
            top = self.reduce_bound(params)
            xs = [a * b for a, b in pairs] + [(params.q - 1) ** 2, (params.q - 1) ** 2 - 1, top, top - 1]
            return [(x,) for x in dict.fromkeys(xs)]
        return pairs

    def operand_cases(self, params):
        q, bw = params.q, self.beta(params)
        vals = [0, 1, 2, q - 1, q - 2, (q - 1) // 2, (q + 1) // 2, (1 << (bw - 1)) - 1,
                1 << (bw - 1), q >> 1, 3]
        om = v2(q - 1)
        vals += [(1 << om) - 1, 1 << om, (1 << om) + 1, q - (1 << om)]
        vals = [v for v in dict.fromkeys(vals) if 0 <= v < q]
        out = [(a, b) for a in vals for b in vals]
        return list(dict.fromkeys(out))   # in order, each once

    # --- hardware ---------------------------------------------------------------------
    def stages(self, params) -> int:
        """Register stages with the product a*b (reduce_only: two fewer)."""
        raise NotImplementedError

    def stage_count(self, params) -> int:
        """Stages of the full pipeline (every register the paper places)."""
        own = self.stages(params) - 2 * params.reduce_only
        return own + (self.stages(self.full(params)) if self.second_pass(params) else 0)

    def cycles(self, params):
        return params.pipeline.count("1") if params.pipeline else self.stage_count(params)

    def latency(self, params):
        return self.cycles(params)

    def initiation_interval(self, params):
        return 1

    def tag(self, params):
        return f"q{self.beta(params)}" + self.tag_flags(params)

    def computes(self, params):
        return Computes("Z_q", params.q, defined_by=("q",))

    def tag_flags(self, params) -> str:
        return ("_plain" if params.plain else "") + (f"_pipe{params.pipeline}" if params.pipeline else "")

    def runtime(self, params) -> dict[str, int]:
        """The run-time modulus fields and their widths (empty: q is a constant)."""
        return {}

    def multiplications(self, params) -> list[tuple[str, int, int]]:
        """The reduction's multiplications as the paper counts DSPs (Sec. 5.1): (what,
        bits, bits); a product with q counts only q_h (its low bits are fixed)."""
        return []

    def extra_info(self, params):
        gamma = self.gamma(params)
        bw = self.beta(params)
        mults = self.multiplications(params)
        info = {"congruence": self.congruence(params), "beta": bw, "q": hex(params.q),
                "latency_formula": self.stages.__doc__.strip()
                + (" (reduce_only: two fewer)" if params.reduce_only else "")
                + (", then the full multiplier's stages again (plain)" if self.second_pass(params) else ""),
                "reduce_only": params.reduce_only, "plain": params.plain,
                "pipeline": params.pipeline or "1" * self.stage_count(params)}
        F = self.scale(params)
        if F != 1 and not (self.runtime(params) or params.plain or params.reduce_only):   # a*b*F, q fixed
            info["montgomery_domain"] = {
                "R": hex(pow(F, -1, params.q)),
                "to": f"b = {pow(F, -2, params.q):#x} = R^2 mod q: the core returns a R (into the domain)",
                "from": "b = 1: the core returns a R^-1 (out of the domain)",
            }
        if gamma is not None:
            tiles = [(w, x, y, dsp_tiles(x, y, *gamma)) for w, x, y in mults]
            info.update({
                "dsp_profile": f"{gamma[0]}x{gamma[1]}",
                "dsp_multiplications": [f"{w}: {x}x{y} -> {n}" for w, x, y, n in tiles],
                "dsp_reduction": sum(n for *_, n in tiles),
                "dsp_product": 0 if params.reduce_only else dsp_tiles(bw, bw, *gamma),
            })
            info["dsp_total"] = info["dsp_reduction"] + info["dsp_product"]
            if self.second_pass(params):                  # the full multiplier once more
                info["dsp_plain_pass"] = self.extra_info(self.full(params))["dsp_total"]
                info["dsp_total"] += info["dsp_plain_pass"]
        return info

    def grid(self):
        return []

    # --- formal reference (modforge prove) ----------------------------------------------
    formal = True
    MAX_PROOF_BITS = 16

    def reference(self, params):
        """ok: c = a*b*F mod q (plain: a*b mod q; reduce_only: x*F mod q), by Verilog's own * and %,
        for a, b < q (reduce_only: x <= (q-1)^2). A run-time modulus is not proved."""
        bw, q = self.beta(params), params.q
        if bw > self.MAX_PROOF_BITS:
            raise ParameterError("prove", "q", f"must be at most {self.MAX_PROOF_BITS} bits wide (beta) for a "
                                 "bounded proof", _hex(q))
        if self.runtime(params):
            raise ParameterError("prove", ", ".join(self.runtime(params)), "must be 0: prove takes q as a "
                                 "generation-time constant", 1)
        factor = 1 if params.plain else self.scale(params) % q
        w = 2 * bw
        if params.reduce_only:
            product, domain = f"operands[{w - 1}:0]", f"operands[{w - 1}:0] <= {w}'d{(q - 1) ** 2}"
        else:
            product = f"operands[{bw - 1}:0] * operands[{w - 1}:{bw}]"
            domain = f"operands[{bw - 1}:0] < {bw}'d{q} && operands[{w - 1}:{bw}] < {bw}'d{q}"
        return f"""\
  wire [{w - 1}:0] product = {product};
  wire [{w - 1}:0] reduced = product % {w}'d{q};
  wire [{w - 1}:0] scaled = reduced * {w}'d{factor};
  wire [{w - 1}:0] expected = scaled % {w}'d{q};
  assign ok = result == expected[{bw - 1}:0];
  assign in_domain = {domain};
"""


def _logqh_ntt(params) -> int:
    """log q_h of q for the NTT-friendly rule (Sec. 5.1): beta - v2(q - 1)."""
    return params.q.bit_length() - v2(params.q - 1)


@register
class Montgomery(ModmulAlgorithm):
    name = "modmul-montgomery"
    title = "pipelined naive Montgomery multiplier a*b*2^-beta mod q (Alg 1)"

    def factor(self, params):
        return f"A*B*2^-{params.beta}"

    def scale(self, params):
        return pow(2, -params.beta, params.q)

    def multiply(self, params, a, b):
        return M.montgomery(params.q, params.beta, a, b)

    def reduce_bound(self, params):
        """q 2^beta - 1: (x + tq) >> beta < x/2^beta + q < 2q (t < 2^beta), one correction."""
        return (params.q << params.beta) - 1

    def reduce_bound_text(self, params):
        return "q 2^beta - 1"

    def stages(self, params):
        """7 stages: a*b partial products, a*b, q'x partial products, t, tq partial products, (x+tq)>>beta, correction."""  # noqa: E501 - latency_formula in design.json
        return 7

    def multiplications(self, params):
        return [("q' x mod 2^beta", params.beta, params.beta),
                ("t q (q_h only)", params.beta, _logqh_ntt(params))]

    def core(self, params):
        return hw.MontgomeryCore(params.q, params.beta, self.gamma(params), params.reduce_only)

    def grid(self):
        return [{"q": "0xffffffffffe40001", "dsp": "none", "reduce_only": "1"}, {"q": "0x80014001"},
                {"q": "0x80014001", "dsp": "none", "plain": "1"}]                 # a*b mod q: two passes


@register
class Barrett(ModmulAlgorithm):
    name = "modmul-barrett"
    title = "pipelined Barrett multiplier a*b mod q (Alg 4)"

    def factor(self, params):
        return "A*B"

    def scale(self, params):
        return 1

    def multiply(self, params, a, b):
        return M.barrett(params.q, params.beta, a, b)

    def reduce_bound(self, params):
        """q 2^beta - 1: x - tq < 2q (x < 2^(2 beta)) and t <= x/q < 2^beta fits
        its beta-bit register."""
        return (params.q << params.beta) - 1

    def reduce_bound_text(self, params):
        return "q 2^beta - 1"

    def stages(self, params):
        """7 stages: a*b partial products, a*b, xq' partial products, t, tq partial products, x-tq, correction."""
        return 7

    def multiplications(self, params):
        bw, lqh = params.beta, _logqh_ntt(params)
        om = params.q.bit_length() - lqh
        # only the low beta+1 bits of tq = (t q_h) 2^omega + t are needed
        return [("x q'", 2 * bw, bw), ("t q, low beta+1 bits (q_h only)", max(bw + 1 - om, 0), lqh)]

    def core(self, params):
        return hw.BarrettCore(params.q, params.beta, self.gamma(params), params.reduce_only)

    def grid(self):
        return [{"q": "0xfff00001"}, {"q": "0xffffffffffe40001", "dsp": "ecp5", "reduce_only": "1"}]


@register
class Plantard(ModmulAlgorithm):
    name = "modmul-plantard"
    title = "pipelined Plantard multiplier -a*b*2^(-2 beta) mod q (Alg 5)"

    def check(self, params):
        if not M.plantard_bound_ok(params.q, params.beta):
            raise ParameterError(self.name, "q", f"must satisfy q < 2^beta/phi (about "
                                 f"{int((1 << params.beta) / M.PHI):#x} for beta={params.beta}; "
                                 "Plantard's bound, errata) or take a larger beta", _hex(params.q))

    def factor(self, params):
        return f"-A*B*2^-{2 * params.beta}"

    def scale(self, params):
        return -pow(2, -2 * params.beta, params.q) % params.q

    def multiply(self, params, a, b):
        return M.plantard(params.q, params.beta, a, b)

    def stages(self, params):
        """7 stages: a*b partial products, a*b, xq' partial products, c', (c'+1)q partial products, c, c=q -> 0."""
        return 7

    def multiplications(self, params):
        # the paper's count for a constant b: a * (b q') is 2beta x beta, then (c'+1) q
        return [("a (b q') mod 2^(2beta)", 2 * params.beta, params.beta),
                ("(c'+1) q (q_h only)", params.beta, _logqh_ntt(params))]

    def core(self, params):
        return hw.PlantardCore(params.q, params.beta, self.gamma(params), params.reduce_only)

    def grid(self):
        return [{"q": "0x9e140001"}, {"q": "0xffffffffffe40001", "beta": "65", "reduce_only": "1"}]


# --------------------------------------------------------------------------- q_h families

class NttAlgorithm(ModmulAlgorithm):
    Params: ClassVar[type] = NttParams
    proth = False                 # needs omega >= beta/2

    def validate(self, params):
        bits = self.check_q(params.q)
        self.check_reduce_only(params)
        q = params.q
        logqh = params.logqh or self.auto_logqh(params)
        if not 1 <= logqh <= bits - 1:
            raise ParameterError(self.name, "logqh", f"must be in 1..beta-1 = {bits - 1}", logqh)
        omega = bits - logqh
        if (q - 1) % (1 << omega):
            raise ParameterError(self.name, "q", f"must satisfy q = 1 mod 2^omega (omega={omega}, "
                                 f"logqh={logqh}; v2(q-1)={v2(q - 1)})", _hex(q))
        if self.proth and 2 * omega < bits:
            raise ParameterError(self.name, "q", f"must be a Proth prime: omega >= beta/2 (omega={omega}, "
                                 f"beta={bits}, logqh={logqh}; v2(q-1)={v2(q - 1)})", _hex(q))
        p = dataclasses.replace(params, logqh=logqh)
        self.check(p)
        self.check_pipeline(p)
        return p

    def auto_logqh(self, params) -> int:
        return _logqh_ntt(params)

    def omega(self, params) -> int:
        return params.q.bit_length() - params.logqh

    def tag(self, params):
        return (f"q{params.q.bit_length()}_qh{params.logqh}" + ("_rt" if self.runtime(params) else "")
                + self.tag_flags(params))

    def extra_info(self, params):
        info = super().extra_info(params)
        info.update({"omega": self.omega(params), "logqh": params.logqh,
                     "q_h": hex(params.q >> self.omega(params)),
                     "runtime_inputs": self.runtime(params)})
        return info

    # --- a run-time modulus: q_h (qh_input=1) or l1, l2 [, l3] (shift_input=1), last operands
    def runtime(self, params) -> dict[str, int]:
        """The run-time modulus fields and their widths (empty: q is a constant)."""
        return {"qh": params.logqh} if getattr(params, "qh_input", 0) else {}

    def runtime_of(self, params, q: int) -> tuple[int, ...]:
        """The fields that give q."""
        return (q >> self.omega(params),)

    def runtime_q(self, params, values) -> int:
        return (values[0] << self.omega(params)) | 1

    def runtime_corners(self, params) -> list[tuple[int, ...]]:
        return [(1 << (params.logqh - 1),), ((1 << params.logqh) - 1,)]

    def runtime_random(self, params, rng) -> tuple[int, ...]:
        return (rng.randint(1 << (params.logqh - 1), (1 << params.logqh) - 1),)

    def runtime_rule(self, params) -> str:
        return f"q = q_h 2^{self.omega(params)} + 1 (q_h: the input, {params.logqh} bits, top bit set)"

    def with_runtime(self, params, values):
        """params with the modulus the fields give (same beta, omega and log q_h)."""
        return dataclasses.replace(params, q=self.runtime_q(params, values))

    def operands(self, params):
        return super().operands(params) + [Operand(k, bits, "unsigned binary", RUNTIME_DOMAIN[k])
                                           for k, bits in self.runtime(params).items()]

    def congruence(self, params):
        text = super().congruence(params)
        return text.replace(f"q = {params.q:#x}", self.runtime_rule(params)) if self.runtime(params) else text

    def model(self, params, *operands):
        k = len(self.runtime(params))
        if not k:
            return super().model(params, *operands)
        return super().model(self.with_runtime(params, operands[-k:]), *operands[:-k])

    def random_operands(self, params, rng):
        if not self.runtime(params):
            return super().random_operands(params, rng)
        values = rng.choice([self.runtime_of(params, params.q), self.runtime_random(params, rng)])
        return super().random_operands(self.with_runtime(params, values), rng) + tuple(values)

    def cases(self, params):
        if not self.runtime(params):
            return super().cases(params)
        out = []
        for values in dict.fromkeys([self.runtime_of(params, params.q), *self.runtime_corners(params)]):
            out += [c + values for c in super().cases(self.with_runtime(params, values))]
        return out


@register
class Wlm(NttAlgorithm):
    name = "modmul-wlm"
    title = "pipelined word-level Montgomery for NTT-friendly primes (Alg 2, corrected)"

    def lam(self, params):
        return M.wlm_lambda(params.q.bit_length(), self.omega(params))

    def factor(self, params):
        return f"A*B*2^-{self.omega(params) * self.lam(params)}"

    def scale(self, params):
        return pow(2, -self.omega(params) * self.lam(params), params.q)

    def multiply(self, params, a, b):
        return M.wlm(params.q, params.q.bit_length(), self.omega(params), a, b)

    def stages(self, params):
        """2 + 2*lambda + 1, lambda = ceil(beta/omega): a*b (2), per step q_h t' partial products and t (2), correction."""  # noqa: E501 - latency_formula in design.json
        return 2 + 2 * self.lam(params) + 1

    def multiplications(self, params):
        return [(f"q_h t' (step {i})", params.logqh, self.omega(params)) for i in range(self.lam(params))]

    def core(self, params):
        om = self.omega(params)
        return hw.WlmCore(params.q, params.q.bit_length(), om, [om] * self.lam(params), self.gamma(params),
                          params.reduce_only, self.runtime(params))

    def extra_info(self, params):
        info = super().extra_info(params)
        info["lambda"] = self.lam(params)
        return info

    def grid(self):
        # lambda = 2, 3 and 4 (latency 7, 9, 11)
        return [{"q": "0x8000000014000001", "logqh": "40", "pipeline": "010101011"},   # registers merged
                {"q": "0x80140001", "logqh": "16", "qh_input": "1"}, {"q": "0x8000000014000001", "logqh": "40"},
                {"q": "0x8000000000080001", "logqh": "47", "reduce_only": "1"}]


@register
class WlmMixed(NttAlgorithm):
    name = "modmul-wlm-mixed"
    title = "pipelined mixed-radix word-level Montgomery, two DSP-sized words (Alg 8, corrected)"
    proth = True

    def check(self, params):
        gamma = self.gamma(params)
        if gamma is not None and params.logqh > gamma[1]:
            raise ParameterError(self.name, "logqh", f"must satisfy log q_h <= Gamma_B = {gamma[1]} "
                                 f"(dsp={params.dsp})", params.logqh)

    def words(self, params):
        gamma = self.gamma(params)
        return M.wlm_mixed_words(params.q.bit_length(), self.omega(params), gamma and gamma[0])

    def factor(self, params):
        return f"A*B*2^-{params.q.bit_length()}"

    def scale(self, params):
        return pow(2, -params.q.bit_length(), params.q)

    def multiply(self, params, a, b):
        gamma = self.gamma(params)
        return M.wlm_mixed(params.q, params.q.bit_length(), self.omega(params), gamma and gamma[0], a, b)

    def stages(self, params):
        """7: a*b (2), two steps of q_h t' partial products and t (2 each), correction (paper: 5 + product)."""
        return 7

    def multiplications(self, params):
        w0, w1 = self.words(params)
        return [("q_h t' (omega0)", params.logqh, w0), ("q_h t' (omega1)", params.logqh, w1)]

    def core(self, params):
        return hw.WlmCore(params.q, params.q.bit_length(), self.omega(params), self.words(params),
                          self.gamma(params), params.reduce_only, self.runtime(params))

    def extra_info(self, params):
        info = super().extra_info(params)
        info["words"] = list(self.words(params))
        return info

    def grid(self):
        return [{"q": "0x800a000000000001", "logqh": "17", "reduce_only": "1"},
                {"q": "0x80140001", "logqh": "15", "qh_input": "1"},
                {"q": "0x800a000000000001", "logqh": "17", "reduce_only": "1", "plain": "1"}]   # x mod q


@register
class K2red(NttAlgorithm):
    name = "modmul-k2red"
    title = "pipelined K2RED for Proth primes (Alg 3)"
    proth = True

    def factor(self, params):
        return f"A*B*2^-{2 * self.omega(params)}"

    def scale(self, params):
        return pow(2, -2 * self.omega(params), params.q)

    def multiply(self, params, a, b):
        return M.k2red(params.q, self.omega(params), a, b)

    def stages(self, params):
        """7: a*b (2), q_h a_l partial products and t (2), q_h t_l partial products and t' (2), correction (paper: 5 + product)."""  # noqa: E501 - latency_formula in design.json
        return 7

    def multiplications(self, params):
        om = self.omega(params)
        return [("q_h a_l", params.logqh, om), ("q_h t_l", params.logqh, om)]

    def core(self, params):
        return hw.K2redCore(params.q, params.q.bit_length(), self.omega(params), self.gamma(params),
                            reduce_only=params.reduce_only, runtime=self.runtime(params))

    def grid(self):
        return [{"q": "0x8000118000000001", "logqh": "26", "reduce_only": "1"},
                {"q": "0x80130001", "logqh": "16", "qh_input": "1"}]


# --------------------------------------------------------------------------- Proth-l

class ShiftAlgorithm(NttAlgorithm):
    Params = ShiftParams
    proth = True

    def auto_logqh(self, params):
        bits = params.q.bit_length()
        for logqh in range(2, bits // 2 + 1):
            if M.proth_l_shifts(params.q, bits, bits - logqh) is not None:
                return logqh
        raise ParameterError(self.name, "q", "must be a Proth-2l or Proth-3l prime "
                             "2^(beta-1) + (2^l1 - 2^l2 [+ 2^l3]) 2^omega + 1 for some omega >= beta/2",
                             _hex(params.q))

    def check(self, params):
        bits = params.q.bit_length()
        if params.logqh < 2 or M.proth_l_shifts(params.q, bits, self.omega(params)) is None:
            raise ParameterError(self.name, "q", f"must be a Proth-2l or Proth-3l prime with log q_h = "
                                 f"{params.logqh}: 2^(beta-1) + (2^l1 - 2^l2 [+ 2^l3]) 2^omega + 1, "
                                 f"l_i < log q_h - 1", _hex(params.q))
        kind = "proth2l" if self.shifts(params)[2] is None else "proth3l"
        assert prime_family(kind, bits, params.logqh).contains(params.q)

    def shifts(self, params):
        return M.proth_l_shifts(params.q, params.q.bit_length(), self.omega(params))

    def runtime(self, params):
        if not params.shift_input:
            return {}
        bits = max(1, (params.logqh - 2).bit_length())
        return {k: bits for k, v in zip(("l1", "l2", "l3"), self.shifts(params), strict=True) if v is not None}

    def runtime_of(self, params, q):
        return tuple(v for v in self.shifts(params) if v is not None)

    def runtime_q(self, params, values):
        l1, l2, l3 = (*values, None)[:3]
        qh = (1 << l1) - (1 << l2) + (1 << l3 if l3 is not None else 0)
        return (1 << (params.q.bit_length() - 1)) + (qh << self.omega(params)) + 1

    def runtime_corners(self, params):
        top, k = params.logqh - 2, len(self.runtime(params))
        return [(top, 0, top)[:k], (top, top, 0)[:k], (0, 0, 0)[:k]]

    def runtime_random(self, params, rng):
        top = params.logqh - 2
        l1 = rng.randint(0, top)
        return (l1, rng.randint(0, l1), rng.randint(0, top))[:len(self.runtime(params))]

    def runtime_rule(self, params):
        top = params.logqh - 2
        three = len(self.runtime(params)) == 3
        return (f"q = 2^{params.q.bit_length() - 1} + (2^l1 - 2^l2{' + 2^l3' if three else ''}) "
                f"2^{self.omega(params)} + 1 (l1, l2{', l3' if three else ''}: the inputs, "
                f"l2 <= l1 <= {top}{f', l3 <= {top}' if three else ''})")

    def tag(self, params):
        return (f"q{params.q.bit_length()}_qh{params.logqh}_rho{params.rho.lower()}"
                + ("_rt" if params.shift_input else "") + self.tag_flags(params))

    def extra_info(self, params):
        info = super().extra_info(params)
        l1, l2, l3 = self.shifts(params)
        info.update({"l1": l1, "l2": l2, "l3": l3, "proth": "3l" if l3 is not None else "2l",
                     "rho": params.rho})
        return info


@register
class K2redShift(ShiftAlgorithm):
    name = "modmul-k2red-shift"
    title = "pipelined K2RED with shift-adds for Proth-l primes (Alg 7)"

    def factor(self, params):
        return f"A*B*2^-{2 * self.omega(params)}"

    def scale(self, params):
        return pow(2, -2 * self.omega(params), params.q)

    def multiply(self, params, a, b):
        bits = params.q.bit_length()
        return M.k2red_shift(params.q, bits, self.omega(params), self.shifts(params), a, b)

    def stages(self, params):
        """rho B: 5 = a*b (2), t, t', correction; rho A: 7 (shifted terms registered before each sum) (paper: 3 / 5 + product)."""  # noqa: E501 - latency_formula in design.json
        return 5 if params.rho == "B" else 7

    def core(self, params):
        return hw.K2redCore(params.q, params.q.bit_length(), self.omega(params), self.gamma(params),
                            shifts=self.shifts(params), rho=params.rho, reduce_only=params.reduce_only,
                            runtime=self.runtime(params))

    def grid(self):
        return [{"q": "0x800a000000000001", "logqh": "17", "rho": "A", "reduce_only": "1"},
                {"q": "0x9fc00001", "logqh": "16", "shift_input": "1"}, {"q": "0x800a000000000001", "logqh": "17"}]


@register
class MontgomeryShift(ShiftAlgorithm):
    name = "modmul-montgomery-shift"
    title = "pipelined Montgomery with shift-adds for Proth-l primes (Alg 6, q' = q - 2)"

    def factor(self, params):
        return f"A*B*2^-{params.q.bit_length()}"

    def scale(self, params):
        return pow(2, -params.q.bit_length(), params.q)

    def multiply(self, params, a, b):
        bits = params.q.bit_length()
        return M.montgomery_shift(params.q, bits, self.omega(params), self.shifts(params), a, b)

    def stages(self, params):
        """rho B: 6 = a*b (2), t, t', b', b; rho A: 8 (shifted terms registered before each sum) (paper: 4 / 6 + product)."""  # noqa: E501 - latency_formula in design.json
        return 6 if params.rho == "B" else 8

    def core(self, params):
        return hw.MontgomeryShiftCore(params.q, params.q.bit_length(), self.omega(params), self.gamma(params),
                                      self.shifts(params), rho=params.rho, reduce_only=params.reduce_only,
                                      runtime=self.runtime(params))

    def grid(self):
        return [{"q": "0x9fc00001", "logqh": "16", "pipeline": "000001"},           # one register stage
                {"q": "0x9fc00001", "logqh": "16"},
                {"q": "0x800a000000000001", "logqh": "17", "reduce_only": "1"},
                {"q": "0x800a000000000001", "logqh": "17", "rho": "A", "shift_input": "1"}]
