"""The registered fully pipelined modular multipliers a*b -> reduction of family "modmul"
(paper: docs/references.md#tosun-2026, with docs/corrections.md): modmul-montgomery,
-barrett, -plantard, -wlm, -wlm-mixed, -k2red, -k2red-shift, -montgomery-shift.

Payload: a in the low beta bits, b in the next beta bits (a, b < q); result: beta bits,
in [0, q). q is a generation-time constant. Each core is a PipelinedCore around the
algorithm's datapath (`datapath`): latency = its number of register stages (the formulas
in plan.py, from the derived plan `derive` builds), initiation interval 1.
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
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol, TypeVar

from ...errors import ParameterError
from ...hw.dsp import CARRY_LUTS, DSP_HELP, DSP_PROFILES, Dsp
from ...hw.layout import Layouts
from ...hw.pipeline import RESET_HELP, Datapath, PipelinedCore
from ...math.primes import family as prime_family, is_prime, v2
from ...registry import Algorithm, Computes, Operand, layout, param, register
from . import hw, model as M, plan as plans
from .plan import ModmulPlan, Modulus, Reduction

if TYPE_CHECKING:
    from ...synth.timing import Choice

PAPER = ("Tosun et al., Optimized FPGA Architecture for Modular Reduction in NTT, Springer 2026 "
         "(IACR ePrint 2024/1890)")

MIN_BETA, MAX_BETA = 8, 128
REDUCE_ONLY_HELP = ("1: the reduction alone, input x <= (q-1)^2 in 2 beta bits (the paper's Tables 3-4); "
                    "0: the product a*b, then the reduction")
PIPELINE_HELP = ("the register stages kept, one character per stage of the full pipeline (`latency_formula` "
                 "in design.json), 1 keep, 0 merge into the next stage, the last 1 (latency = the 1s; "
                 "empty: every stage, the paper's FF placement)")
TARGET_MHZ_HELP = ("a clock in MHz to pipeline for on ECP5 (needs dsp=ecp5): the stages kept are the fewest whose "
                   "every group's delay, predicted by synth/timing.py's model (calibrated on nextpnr) on one "
                   "synth_ecp5 run of the full pipeline, fits 1000/target_mhz ns; the choice becomes `pipeline` "
                   "(another given is refused) and design.json gives predicted_mhz (0: off)")
PLAIN_HELP = ("1: the plain product a*b mod q (x mod q with reduce_only): the result goes through the "
              "multiplier a second time with the constant F^-2 mod q, F the reduction's factor (twice the "
              "stages and DSPs; nothing added where F = 1); 0: the reduction's own congruence (the "
              "Montgomery domain: design.json gives the constants that convert in and out)")


@dataclasses.dataclass(frozen=True)
class GenericParams:
    q: int = param(help="the prime modulus (a generation-time constant)", bits=(MIN_BETA, MAX_BETA))
    beta: int = param(0, help="reduction width beta, q < 2^beta (0: q's bit length)", lo=0, hi=MAX_BETA)
    dsp: Dsp = param("dsp48e2", help=DSP_HELP)
    reduce_only: bool = param(False, help=REDUCE_ONLY_HELP)
    plain: bool = param(False, help=PLAIN_HELP)
    pipeline: str = param("", help=PIPELINE_HELP)
    target_mhz: float = param(0.0, help=TARGET_MHZ_HELP, lo=0)
    reset: Literal["control", "all"] = param("control", help=RESET_HELP)


@dataclasses.dataclass(frozen=True)
class NttParams:
    q: int = param(help="the prime modulus q = q_h 2^omega + 1 (a generation-time constant)",
                   bits=(MIN_BETA, MAX_BETA))
    logqh: int = param(0, lo=0, hi=MAX_BETA - 1,
                       help="log q_h = beta - omega, beta = q's bit length (0: the smallest "
                            "the algorithm allows for q)")
    dsp: Dsp = param("dsp48e2", help=DSP_HELP)
    qh_input: bool = param(False, help="1: q_h is a run-time input beside a and b (log q_h bits, top bit "
                                  "set: q = q_h 2^omega + 1 may change every product, e.g. an RNS base); "
                                  "q then fixes beta, omega and log q_h")
    reduce_only: bool = param(False, help=REDUCE_ONLY_HELP)
    plain: bool = param(False, help=PLAIN_HELP)
    pipeline: str = param("", help=PIPELINE_HELP)
    target_mhz: float = param(0.0, help=TARGET_MHZ_HELP, lo=0)
    reset: Literal["control", "all"] = param("control", help=RESET_HELP)


@dataclasses.dataclass(frozen=True)
class ShiftParams:
    q: int = param(help="a Proth-l prime q = 2^(beta-1) + (2^l1 - 2^l2 [+ 2^l3]) 2^omega + 1",
                   bits=(MIN_BETA, MAX_BETA))
    logqh: int = param(0, lo=0, hi=MAX_BETA - 1,
                       help="log q_h = beta - omega, beta = q's bit length (0: the smallest "
                            "for which q is Proth-2l or Proth-3l)")
    rho: Literal["A", "B"] = param("B", help="pipeline configuration: B (shifts and their sum in one stage), "
                               "A (a register stage after the shifters, then their adder tree)")
    dsp: Dsp = param("dsp48e2", help=DSP_HELP + " (the a*b product only: the reduction has no multiplier)")
    shift_input: bool = param(False, help="1: l1, l2 (and l3 for a Proth-3l q) are run-time inputs beside a "
                                     "and b (barrel shifters): the modulus may change every product; "
                                     "q then fixes beta, omega, log q_h and the form")
    reduce_only: bool = param(False, help=REDUCE_ONLY_HELP)
    plain: bool = param(False, help=PLAIN_HELP)
    pipeline: str = param("", help=PIPELINE_HELP)
    target_mhz: float = param(0.0, help=TARGET_MHZ_HELP, lo=0)
    reset: Literal["control", "all"] = param("control", help=RESET_HELP)


#: the run-time modulus fields (qh_input, shift_input) and what they must hold
RUNTIME_DOMAIN = {"qh": "q_h of this product's modulus q = q_h 2^omega + 1, top bit set",
                  "l1": "l1 of q = 2^(beta-1) + (2^l1 - 2^l2 [+ 2^l3]) 2^omega + 1",
                  "l2": "l2 (as l1)", "l3": "l3 (as l1; Proth-3l)"}


def _hex(q: int) -> str:
    return hex(q)


def factors(beta: int) -> list[Operand]:
    """The product's operands a and b (the payload without reduce_only, and plain's second
    pass's), beta bits each."""
    return [Operand("a", beta, "unsigned binary", "a < q"), Operand("b", beta, "unsigned binary", "b < q")]


class ModmulParams(Protocol):
    """What every modmul parameter class (GenericParams, NttParams, ShiftParams) has."""
    __dataclass_fields__: ClassVar[dict[str, Any]]

    @property
    def q(self) -> int: ...

    @property
    def dsp(self) -> Dsp: ...

    @property
    def reduce_only(self) -> bool: ...

    @property
    def plain(self) -> bool: ...

    @property
    def pipeline(self) -> str: ...

    @property
    def target_mhz(self) -> float: ...

    @property
    def reset(self) -> str: ...


class QhParams(ModmulParams, Protocol):
    """NttParams and ShiftParams: q = q_h 2^omega + 1 with log q_h given."""

    @property
    def logqh(self) -> int: ...


P = TypeVar("P", bound=ModmulParams)
QP = TypeVar("QP", bound=QhParams)


class ModmulAlgorithm(Algorithm[P, ModmulPlan]):
    """The common part; `modulus` and `reduction` (one per algorithm, plan.py) give the plan."""
    family = "modmul"
    paper = PAPER
    Params: ClassVar[type] = GenericParams  # the registry's: a subclass names its own

    # --- parameters -------------------------------------------------------------------
    def check_q(self, q: int) -> int:
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

    def check_plain_needs_constant_q(self, params: P) -> None:
        """plain needs F^-2 mod q, a generation-time constant: no run-time modulus."""
        if params.plain and (getattr(params, "qh_input", False) or getattr(params, "shift_input", False)):
            raise ParameterError(self.name, "plain", "must be 0 with a run-time modulus (F^-2 mod q would "
                                 "change with q)", params.plain)

    def check(self, params: P) -> None:
        """Algorithm-specific rules on the canonical parameters."""

    def check_pipeline(self, params: P) -> None:
        """pipeline: one 0/1 per stage of the full pipeline, the last 1."""
        mask, stages = params.pipeline, self.derive(params).stage_count
        if mask and (set(mask) - {"0", "1"} or len(mask) != stages or mask[-1] != "1"):
            raise ParameterError(self.name, "pipeline", f"must be {stages} characters 0 or 1 (one per stage), "
                                 "the last 1", mask)

    def check_target(self, params: P) -> None:
        """target_mhz: ECP5 only (the one target with a timing model here)."""
        if params.target_mhz and params.dsp != "ecp5":
            raise ParameterError(self.name, "target_mhz", "needs dsp=ecp5 (ECP5 is the only target with a "
                                 f"timing model: synth/timing.py; dsp={params.dsp})", params.target_mhz)

    def choose_pipeline(self, params: P) -> P:
        """target_mhz: the register placement synth/timing.py picks on the full pipeline's
        netlist becomes `pipeline` (empty when every stage stays) beside the target, so the
        canonical params name both and parse again to themselves; another explicit pipeline
        is refused."""
        if not params.target_mhz:
            return params
        choice = self.target_choice(params)
        mask = "" if all(choice.keep) else choice.mask
        if params.pipeline and params.pipeline != mask:
            raise ParameterError(self.name, "target_mhz", f"chooses pipeline={mask or '1' * len(choice.keep)}, "
                                 f"not the pipeline={params.pipeline} given (give one or the other)",
                                 params.target_mhz)
        return dataclasses.replace(params, pipeline=mask)

    def target_choice(self, params: P) -> Choice:
        """The model's choice for params.target_mhz (one synth_ecp5 run of the full pipeline,
        cached on disk; here per process too: a pure function of the params)."""
        full = dataclasses.replace(params, target_mhz=0.0, pipeline="")
        choices: dict[Any, Choice] = self.__dict__.setdefault("_choices", {})
        key = (full, params.target_mhz)
        if key not in choices:
            from ...synth.timing import pipeline_for
            choices[key] = pipeline_for(self.build(full), self.plan(full).module, self.derived(full).stage_count,
                                        params.target_mhz)
        return choices[key]

    # --- the derived plan ---------------------------------------------------------------
    def modulus(self, params: P) -> Modulus:
        """q's shape: beta, and omega, log q_h, shifts and run-time fields where they apply."""
        raise NotImplementedError

    def reduction(self, params: P, modulus: Modulus) -> Reduction:
        """The algorithm's own facts (plan.py): factor, stages, multiplications, words."""
        raise NotImplementedError

    def derive(self, params: P) -> ModmulPlan:
        """q's shape, the reduction, the stages (plain's second pass, the kept ones), the DSP
        tiling and the timing (plan.py)."""
        modulus = self.modulus(params)
        return plans.derive(modulus, self.reduction(params, modulus), DSP_PROFILES[params.dsp],
                            reduce_only=params.reduce_only, plain=params.plain, pipeline=params.pipeline,
                            carry_luts=params.dsp in CARRY_LUTS)

    # --- mathematics ------------------------------------------------------------------
    def operands(self, params: P) -> list[Operand]:
        plan = self.derived(params)
        bw = plan.modulus.beta
        if params.reduce_only:
            return [Operand("x", 2 * bw, "unsigned binary", f"x <= {plan.reduce_bound_text}")]
        return factors(bw)

    def result(self, params: P) -> Operand:
        return Operand("c", self.result_width(params), "unsigned binary", "0 <= c < q")

    def result_width(self, params: P) -> int:
        return self.derived(params).modulus.beta

    def scale(self, params: P) -> int:
        """The reduction's factor F as a number: model(a, b) == a*b*F mod q for all a, b
        (plain=1 undoes it: a*b)."""
        return self.derived(params).reduction.scale

    def congruence(self, params: P) -> str:
        plan = self.derived(params)
        factor = "A*B" if params.plain else plan.reduction.factor
        text = f"C = {factor} mod q, q = {params.q:#x}, C in [0, q)"
        if params.reduce_only:
            return text.replace("A*B", "X") + f", X <= {plan.reduce_bound_text}"
        return text

    def reduce_bound(self, params: P) -> int:
        """The largest x the reduction alone (reduce_only) is exact for: (q-1)^2, a product, or
        q 2^beta - 1 (Montgomery, Barrett: a wide sum)."""
        return self.derived(params).reduce_bound

    def model(self, params: P, *operands: int) -> int:
        """The bit-exact result (see `congruence`). The models reduce the product of their
        two operands, so the reduction alone of x is the model of (x, 1); plain: that result
        times F^-2 through the full multiplier once more. A run-time modulus' fields are the
        last operands."""
        plan = self.derived(params)
        modulus, k = plan.modulus, len(plan.modulus.runtime)
        if k:
            modulus, operands = self.runtime_modulus(modulus, operands[-k:]), operands[:-k]
        a, b = (operands[0], 1) if params.reduce_only else operands
        r = self.multiply(plan, modulus, a, b)
        return self.multiply(plan, modulus, r, plan.plain_constant) if plan.second_pass else r

    def multiply(self, plan: ModmulPlan, modulus: Modulus, a: int, b: int) -> int:
        """The reduction's model (model.py) of a*b modulo `modulus` (the plan's, or a run-time one)."""
        raise NotImplementedError

    def random_operands(self, params: P, rng: random.Random) -> tuple[int, ...]:
        plan = self.derived(params)
        if not plan.modulus.runtime:
            return self.sample(plan, plan.modulus, rng)
        values = rng.choice([self.runtime_of(params, params.q), self.runtime_random(params, rng)])
        return self.sample(plan, self.runtime_modulus(plan.modulus, values), rng) + tuple(values)

    def sample(self, plan: ModmulPlan, modulus: Modulus, rng: random.Random) -> tuple[int, ...]:
        """Random operands for `modulus` (the plan's, or a run-time one)."""
        if plan.reduce_only:
            return (rng.randrange(plans.reduce_bound(modulus, plan.reduction.wide) + 1),)
        return (rng.randrange(modulus.q), rng.randrange(modulus.q))

    def cases(self, params: P) -> list[tuple[int, ...]]:
        plan = self.derived(params)
        if not plan.modulus.runtime:
            return self.modulus_cases(plan, plan.modulus)
        out: list[tuple[int, ...]] = []
        for values in dict.fromkeys([self.runtime_of(params, params.q), *self.runtime_corners(params)]):
            out += [c + values for c in self.modulus_cases(plan, self.runtime_modulus(plan.modulus, values))]
        return out

    def modulus_cases(self, plan: ModmulPlan, modulus: Modulus) -> list[tuple[int, ...]]:
        """The corner operands for `modulus` (the plan's, or a run-time one)."""
        pairs = self.operand_cases(modulus)
        if plan.reduce_only:
            q, top = modulus.q, plans.reduce_bound(modulus, plan.reduction.wide)
            xs = [a * b for a, b in pairs] + [(q - 1) ** 2, (q - 1) ** 2 - 1, top, top - 1]
            return [(x,) for x in dict.fromkeys(xs)]
        return list(pairs)

    def operand_cases(self, modulus: Modulus) -> list[tuple[int, int]]:
        q, bw = modulus.q, modulus.beta
        vals = [0, 1, 2, q - 1, q - 2, (q - 1) // 2, (q + 1) // 2, (1 << (bw - 1)) - 1,
                1 << (bw - 1), q >> 1, 3]
        om = v2(q - 1)
        vals += [(1 << om) - 1, 1 << om, (1 << om) + 1, q - (1 << om)]
        vals = [v for v in dict.fromkeys(vals) if 0 <= v < q]
        out = [(a, b) for a in vals for b in vals]
        return list(dict.fromkeys(out))   # in order, each once

    # --- a run-time modulus (the q_h families) -------------------------------------------
    def runtime(self, params: P) -> dict[str, int]:
        """The run-time modulus fields and their widths (empty: q is a constant)."""
        return dict(self.derived(params).modulus.runtime)

    def runtime_of(self, params: P, q: int) -> tuple[int, ...]:
        """The fields that give q."""
        return ()

    def runtime_corners(self, params: P) -> list[tuple[int, ...]]:
        return []

    def runtime_random(self, params: P, rng: random.Random) -> tuple[int, ...]:
        return ()

    def runtime_modulus(self, modulus: Modulus, values: Sequence[int]) -> Modulus:
        """The modulus the run-time fields `values` give (same beta, omega and log q_h)."""
        return modulus

    # --- hardware ---------------------------------------------------------------------
    def build(self, params: P) -> PipelinedCore:
        return PipelinedCore(self.datapath(params), reset=params.reset == "all")

    def datapath(self, params: P) -> Datapath:
        """The pipelined datapath (a plain builder, hw.pipeline.Datapath, its payloads the
        plan's layouts; ntt and polyring build it in their own pipelines): the reduction's own,
        then (plain) its second pass through the full multiplier (a and b in: plain has no
        run-time fields); the stages kept as `pipeline` says."""
        plan, streams = self.derived(params), self.plan(params)
        own = self.reduction_datapath(plan, plan.reduce_only, (streams.input_layout, streams.output_layout))
        datapath: Datapath = own
        if plan.second_pass:
            full = self.reduction_datapath(plan, False, (layout(factors(plan.modulus.beta)), streams.output_layout))
            datapath = hw.Plain(own, full, plan.plain_constant)
        if params.pipeline:
            datapath.keep_stages(list(plan.keep))
        return datapath

    def reduction_datapath(self, plan: ModmulPlan, reduce_only: bool, layouts: Layouts) -> hw.ModmulDatapath:
        """The pipelined datapath of the reduction's own congruence (reduce_only: without the
        product stages), its payloads of `layouts`."""
        raise NotImplementedError

    def tag(self, params: P) -> str:
        return f"q{self.derived(params).modulus.beta}" + self.tag_flags(params)

    def computes(self, params: P) -> Computes:
        return Computes("Z_q", params.q, defined_by=("q",))

    def tag_flags(self, params: P) -> str:
        return ("_plain" if params.plain else "") + (f"_pipe{params.pipeline}" if params.pipeline else "")

    def extra_info(self, params: P) -> dict[str, Any]:
        plan = self.derived(params)
        info: dict[str, Any] = {
            "congruence": self.congruence(params), "beta": plan.modulus.beta, "q": hex(params.q),
            "latency_formula": plan.latency_formula, "reduce_only": params.reduce_only, "plain": params.plain,
            "pipeline": "".join("1" if k else "0" for k in plan.keep)}
        if params.target_mhz:
            target, choice = params.target_mhz, self.target_choice(params)
            info.update({"target_mhz": target, "predicted_mhz": round(choice.mhz, 1), "target_met": choice.met})
            if choice.reg_mhz is not None:      # what nextpnr's out-of-context Fmax times: no input port paths
                info["predicted_reg_mhz"] = round(choice.reg_mhz, 1)
            if not choice.met:
                info["target_note"] = (f"even every stage kept misses {target:g} MHz: {choice.mhz:.1f} MHz "
                                       "predicted (synth/timing.py)")
        F = plan.reduction.scale
        if F != 1 and not (plan.modulus.runtime or params.plain or params.reduce_only):   # a*b*F, q fixed
            info["montgomery_domain"] = {
                "R": hex(pow(F, -1, params.q)),
                "to": f"b = {pow(F, -2, params.q):#x} = R^2 mod q: the core returns a R (into the domain)",
                "from": "b = 1: the core returns a R^-1 (out of the domain)",
            }
        if plan.dsp is not None:
            dsp = plan.dsp
            info.update({
                "dsp_profile": f"{dsp.profile[0]}x{dsp.profile[1]}",
                "dsp_multiplications": [f"{w}: {x}x{y} -> {n}" for w, x, y, n in dsp.tiles],
                "dsp_reduction": dsp.reduction,
                "dsp_product": dsp.product,
                "dsp_total": dsp.total,
            })
            if plan.second_pass:                  # the full multiplier once more
                info["dsp_plain_pass"] = dsp.plain_pass
        return info

    # --- formal reference (modforge prove) ----------------------------------------------
    formal = True
    MAX_PROOF_BITS = 16

    def reference(self, params: P) -> str:
        """ok: c = a*b*F mod q (plain: a*b mod q; reduce_only: x*F mod q), by Verilog's own * and %,
        for a, b < q (reduce_only: x <= (q-1)^2). A run-time modulus is not proved."""
        plan = self.derived(params)
        bw, q = plan.modulus.beta, params.q
        if bw > self.MAX_PROOF_BITS:
            raise ParameterError("prove", "q", f"must be at most {self.MAX_PROOF_BITS} bits wide (beta) for a "
                                 "bounded proof", _hex(q))
        if plan.modulus.runtime:
            raise ParameterError("prove", ", ".join(self.runtime(params)), "must be 0: prove takes q as a "
                                 "generation-time constant", 1)
        factor = 1 if params.plain else plan.reduction.scale % q
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


# --------------------------------------------------------------------------- q fixed, any beta

class GenericAlgorithm(ModmulAlgorithm[GenericParams]):
    """Montgomery, Barrett, Plantard: q a generation-time constant, any beta >= its bits."""
    wide: ClassVar[str] = ""            # the algorithm for 128- to 1024-bit and named primes

    def parse(self, args: dict[str, Any]) -> GenericParams:
        """The parameters; a q too wide or a curve's name points to the wide algorithm."""
        try:
            return super().parse(args)
        except ParameterError as e:
            if self.wide and e.argument == "q" and ("at most" in e.rule or "integer" in e.rule):
                raise ParameterError(self.name, "q", f"{e.rule} ({self.wide} takes 128- to 1024-bit primes and "
                                     "named ones such as p256)", e.value) from None
            raise

    def validate(self, params: GenericParams) -> GenericParams:
        bits = self.check_q(params.q)
        beta = params.beta or bits
        if not bits <= beta <= MAX_BETA:
            raise ParameterError(self.name, "beta", f"must satisfy q < 2^beta <= 2^{MAX_BETA} "
                                 f"(beta >= {bits})", params.beta)
        self.check_plain_needs_constant_q(params)
        p = dataclasses.replace(params, beta=beta)
        self.check(p)
        self.check_target(p)
        self.check_pipeline(p)
        return self.choose_pipeline(p)

    def modulus(self, params: GenericParams) -> Modulus:
        return Modulus(params.q, params.beta or params.q.bit_length())


@register
class Montgomery(GenericAlgorithm):
    name = "modmul-montgomery"
    wide = "modmul-field-montgomery"
    title = "pipelined naive Montgomery multiplier a*b*2^-beta mod q (Alg 1)"
    paper = PAPER + ", Alg. 1"

    def reduction(self, params: GenericParams, modulus: Modulus) -> Reduction:
        return plans.montgomery(modulus)

    def multiply(self, plan: ModmulPlan, modulus: Modulus, a: int, b: int) -> int:
        return M.montgomery(modulus.q, modulus.beta, a, b)

    def reduction_datapath(self, plan: ModmulPlan, reduce_only: bool, layouts: Layouts) -> hw.ModmulDatapath:
        return hw.Montgomery(plan, reduce_only, layouts)

    def grid(self) -> list[dict[str, str]]:
        return [{"q": "0xffffffffffe40001", "dsp": "none", "reduce_only": "1"}, {"q": "0x80014001"},
                {"q": "0x80014001", "dsp": "none", "plain": "1"}]                 # a*b mod q: two passes


@register
class Barrett(GenericAlgorithm):
    name = "modmul-barrett"
    wide = "modmul-field-barrett"
    title = "pipelined Barrett multiplier a*b mod q (Alg 4)"
    paper = PAPER + ", Alg. 4"

    def reduction(self, params: GenericParams, modulus: Modulus) -> Reduction:
        return plans.barrett(modulus)

    def multiply(self, plan: ModmulPlan, modulus: Modulus, a: int, b: int) -> int:
        return M.barrett(modulus.q, modulus.beta, a, b)

    def reduction_datapath(self, plan: ModmulPlan, reduce_only: bool, layouts: Layouts) -> hw.ModmulDatapath:
        return hw.Barrett(plan, reduce_only, layouts)

    def grid(self) -> list[dict[str, str]]:
        return [{"q": "0xfff00001"}, {"q": "0xffffffffffe40001", "dsp": "ecp5", "reduce_only": "1"}]


@register
class Plantard(GenericAlgorithm):
    name = "modmul-plantard"
    title = "pipelined Plantard multiplier -a*b*2^(-2 beta) mod q (Alg 5)"
    paper = PAPER + ", Alg. 5"

    def check(self, params: GenericParams) -> None:
        if not M.plantard_bound_ok(params.q, params.beta):
            raise ParameterError(self.name, "q", f"must satisfy q < 2^beta/phi (about "
                                 f"{int((1 << params.beta) / M.PHI):#x} for beta={params.beta}; "
                                 "Plantard's bound) or take a larger beta", _hex(params.q))

    def reduction(self, params: GenericParams, modulus: Modulus) -> Reduction:
        return plans.plantard(modulus)

    def multiply(self, plan: ModmulPlan, modulus: Modulus, a: int, b: int) -> int:
        return M.plantard(modulus.q, modulus.beta, a, b)

    def reduction_datapath(self, plan: ModmulPlan, reduce_only: bool, layouts: Layouts) -> hw.ModmulDatapath:
        return hw.Plantard(plan, reduce_only, layouts)

    def grid(self) -> list[dict[str, str]]:
        return [{"q": "0x9e140001"}, {"q": "0xffffffffffe40001", "beta": "65", "reduce_only": "1"}]


# --------------------------------------------------------------------------- q_h families

class NttAlgorithm(ModmulAlgorithm[QP]):
    """WLM, WLM-Mixed, K2RED and (ShiftAlgorithm) the Proth-l ones: q = q_h 2^omega + 1,
    beta = q's bit length, omega = beta - log q_h; q_h may be a run-time input."""
    Params: ClassVar[type] = NttParams
    proth: ClassVar[bool] = False          # needs omega >= beta/2

    def validate(self, params: QP) -> QP:
        bits = self.check_q(params.q)
        self.check_plain_needs_constant_q(params)
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
        self.check_target(p)
        self.check_pipeline(p)
        return self.choose_pipeline(p)

    def auto_logqh(self, params: QP) -> int:
        return plans.ntt_logqh(params.q)

    def modulus(self, params: QP) -> Modulus:
        bits = params.q.bit_length()
        runtime = (("qh", params.logqh),) if getattr(params, "qh_input", False) else ()
        return Modulus(params.q, bits, bits - params.logqh, params.logqh, runtime=runtime)

    def tag(self, params: QP) -> str:
        return (f"q{params.q.bit_length()}_qh{params.logqh}" + ("_rt" if self.derived(params).modulus.runtime else "")
                + self.tag_flags(params))

    def extra_info(self, params: QP) -> dict[str, Any]:
        info = super().extra_info(params)
        modulus = self.derived(params).modulus
        info.update({"omega": modulus.omega, "logqh": params.logqh, "q_h": hex(modulus.qh),
                     "runtime_inputs": self.runtime(params)})
        return info

    # --- a run-time modulus: q_h (qh_input=1) or l1, l2 [, l3] (shift_input=1), last operands
    def runtime_of(self, params: QP, q: int) -> tuple[int, ...]:
        """The fields that give q."""
        return (q >> self.derived(params).modulus.omega,)

    def runtime_q(self, modulus: Modulus, values: Sequence[int]) -> int:
        return (values[0] << modulus.omega) | 1

    def runtime_modulus(self, modulus: Modulus, values: Sequence[int]) -> Modulus:
        return dataclasses.replace(modulus, q=self.runtime_q(modulus, values))

    def runtime_corners(self, params: QP) -> list[tuple[int, ...]]:
        return [(1 << (params.logqh - 1),), ((1 << params.logqh) - 1,)]

    def runtime_random(self, params: QP, rng: random.Random) -> tuple[int, ...]:
        return (rng.randint(1 << (params.logqh - 1), (1 << params.logqh) - 1),)

    def runtime_rule(self, params: QP) -> str:
        return f"q = q_h 2^{self.derived(params).modulus.omega} + 1 (q_h: the input, {params.logqh} bits, top bit set)"

    def with_runtime(self, params: QP, values: Sequence[int]) -> QP:
        """params with the modulus the fields give (same beta, omega and log q_h)."""
        return dataclasses.replace(params, q=self.runtime_q(self.derived(params).modulus, values))

    def operands(self, params: QP) -> list[Operand]:
        return super().operands(params) + [Operand(k, bits, "unsigned binary", RUNTIME_DOMAIN[k])
                                           for k, bits in self.runtime(params).items()]

    def congruence(self, params: QP) -> str:
        text = super().congruence(params)
        return text.replace(f"q = {params.q:#x}", self.runtime_rule(params)) if self.runtime(params) else text


@register
class Wlm(NttAlgorithm[NttParams]):
    name = "modmul-wlm"
    title = "pipelined word-level Montgomery for NTT-friendly primes (Alg 2, corrected)"
    paper = PAPER + ", Alg. 2"

    def reduction(self, params: NttParams, modulus: Modulus) -> Reduction:
        return plans.wlm(modulus)

    def multiply(self, plan: ModmulPlan, modulus: Modulus, a: int, b: int) -> int:
        return M.wlm(modulus.q, modulus.beta, modulus.omega, a, b)

    def reduction_datapath(self, plan: ModmulPlan, reduce_only: bool, layouts: Layouts) -> hw.ModmulDatapath:
        return hw.Wlm(plan, reduce_only, layouts)

    def extra_info(self, params: NttParams) -> dict[str, Any]:
        info = super().extra_info(params)
        info["lambda"] = len(self.derived(params).reduction.words)
        return info

    def grid(self) -> list[dict[str, str]]:
        # lambda = 2, 3 and 4 (latency 7, 9, 11)
        return [{"q": "0x8000000014000001", "logqh": "40", "pipeline": "010101011"},   # registers merged
                {"q": "0x80140001", "logqh": "16", "qh_input": "1"}, {"q": "0x8000000014000001", "logqh": "40"},
                {"q": "0x8000000000080001", "logqh": "47", "reduce_only": "1"}]


@register
class WlmMixed(NttAlgorithm[NttParams]):
    name = "modmul-wlm-mixed"
    title = "pipelined mixed-radix word-level Montgomery, two DSP-sized words (Alg 8, corrected)"
    paper = PAPER + ", Alg. 8"
    proth = True

    def check(self, params: NttParams) -> None:
        gamma = DSP_PROFILES[params.dsp]
        if gamma is not None and params.logqh > gamma[1]:
            raise ParameterError(self.name, "logqh", f"must satisfy log q_h <= Gamma_B = {gamma[1]} "
                                 f"(dsp={params.dsp})", params.logqh)

    def reduction(self, params: NttParams, modulus: Modulus) -> Reduction:
        return plans.wlm_mixed(modulus, DSP_PROFILES[params.dsp])

    def multiply(self, plan: ModmulPlan, modulus: Modulus, a: int, b: int) -> int:
        gamma = plan.gamma
        return M.wlm_mixed(modulus.q, modulus.beta, modulus.omega, gamma and gamma[0], a, b)

    def reduction_datapath(self, plan: ModmulPlan, reduce_only: bool, layouts: Layouts) -> hw.ModmulDatapath:
        return hw.Wlm(plan, reduce_only, layouts)

    def extra_info(self, params: NttParams) -> dict[str, Any]:
        info = super().extra_info(params)
        info["words"] = list(self.derived(params).reduction.words)
        return info

    def grid(self) -> list[dict[str, str]]:
        return [{"q": "0x800a000000000001", "logqh": "17", "reduce_only": "1"},
                {"q": "0x80140001", "logqh": "15", "qh_input": "1"},
                {"q": "0x800a000000000001", "logqh": "17", "reduce_only": "1", "plain": "1"}]   # x mod q


@register
class K2red(NttAlgorithm[NttParams]):
    name = "modmul-k2red"
    title = "pipelined K2RED for Proth primes (Alg 3)"
    paper = PAPER + ", Alg. 3"
    proth = True

    def reduction(self, params: NttParams, modulus: Modulus) -> Reduction:
        return plans.k2red(modulus)

    def multiply(self, plan: ModmulPlan, modulus: Modulus, a: int, b: int) -> int:
        return M.k2red(modulus.q, modulus.omega, a, b)

    def reduction_datapath(self, plan: ModmulPlan, reduce_only: bool, layouts: Layouts) -> hw.ModmulDatapath:
        return hw.K2red(plan, reduce_only, layouts)

    def grid(self) -> list[dict[str, str]]:
        return [{"q": "0x8000118000000001", "logqh": "26", "reduce_only": "1"},
                {"q": "0x80130001", "logqh": "16", "qh_input": "1"}]


# --------------------------------------------------------------------------- Proth-l

class ShiftAlgorithm(NttAlgorithm[ShiftParams]):
    """K2RED-Shift and Montgomery-Shift: a Proth-l prime, its q_h products as shift-adds;
    the shift amounts may be run-time inputs."""
    Params = ShiftParams
    proth = True

    def auto_logqh(self, params: ShiftParams) -> int:
        bits = params.q.bit_length()
        for logqh in range(2, bits // 2 + 1):
            if M.proth_l_shifts(params.q, bits, bits - logqh) is not None:
                return logqh
        raise ParameterError(self.name, "q", "must be a Proth-2l or Proth-3l prime "
                             "2^(beta-1) + (2^l1 - 2^l2 [+ 2^l3]) 2^omega + 1 for some omega >= beta/2",
                             _hex(params.q))

    def check(self, params: ShiftParams) -> None:
        bits = params.q.bit_length()
        shifts = M.proth_l_shifts(params.q, bits, bits - params.logqh)
        if params.logqh < 2 or shifts is None:
            raise ParameterError(self.name, "q", f"must be a Proth-2l or Proth-3l prime with log q_h = "
                                 f"{params.logqh}: 2^(beta-1) + (2^l1 - 2^l2 [+ 2^l3]) 2^omega + 1, "
                                 f"l_i < log q_h - 1", _hex(params.q))
        kind = "proth2l" if shifts[2] is None else "proth3l"
        assert prime_family(kind, bits, params.logqh).contains(params.q)

    def modulus(self, params: ShiftParams) -> Modulus:
        bits = params.q.bit_length()
        omega = bits - params.logqh
        shifts = M.proth_l_shifts(params.q, bits, omega)
        assert shifts is not None                # check() refused the others
        runtime: tuple[tuple[str, int], ...] = ()
        if params.shift_input:
            width = max(1, (params.logqh - 2).bit_length())
            runtime = tuple((k, width) for k, v in zip(("l1", "l2", "l3"), shifts, strict=True) if v is not None)
        return Modulus(params.q, bits, omega, params.logqh, shifts, runtime)

    def runtime_of(self, params: ShiftParams, q: int) -> tuple[int, ...]:
        shifts = self.derived(params).modulus.shifts
        assert shifts is not None
        return tuple(v for v in shifts if v is not None)

    def runtime_q(self, modulus: Modulus, values: Sequence[int]) -> int:
        l1, l2, l3 = (*values, None)[:3]
        assert l1 is not None and l2 is not None
        qh = (1 << l1) - (1 << l2) + (1 << l3 if l3 is not None else 0)
        return (1 << (modulus.beta - 1)) + (qh << modulus.omega) + 1

    def runtime_modulus(self, modulus: Modulus, values: Sequence[int]) -> Modulus:
        q = self.runtime_q(modulus, values)
        return dataclasses.replace(modulus, q=q, shifts=M.proth_l_shifts(q, modulus.beta, modulus.omega))

    def runtime_corners(self, params: ShiftParams) -> list[tuple[int, ...]]:
        top, k = params.logqh - 2, len(self.runtime(params))
        return [(top, 0, top)[:k], (top, top, 0)[:k], (0, 0, 0)[:k]]

    def runtime_random(self, params: ShiftParams, rng: random.Random) -> tuple[int, ...]:
        top = params.logqh - 2
        l1 = rng.randint(0, top)
        return (l1, rng.randint(0, l1), rng.randint(0, top))[:len(self.runtime(params))]

    def runtime_rule(self, params: ShiftParams) -> str:
        top = params.logqh - 2
        three = len(self.runtime(params)) == 3
        return (f"q = 2^{params.q.bit_length() - 1} + (2^l1 - 2^l2{' + 2^l3' if three else ''}) "
                f"2^{self.derived(params).modulus.omega} + 1 (l1, l2{', l3' if three else ''}: the inputs, "
                f"l2 <= l1 <= {top}{f', l3 <= {top}' if three else ''})")

    def tag(self, params: ShiftParams) -> str:
        return (f"q{params.q.bit_length()}_qh{params.logqh}_rho{params.rho.lower()}"
                + ("_rt" if params.shift_input else "") + self.tag_flags(params))

    def extra_info(self, params: ShiftParams) -> dict[str, Any]:
        info = super().extra_info(params)
        shifts = self.derived(params).modulus.shifts
        assert shifts is not None
        l1, l2, l3 = shifts
        info.update({"l1": l1, "l2": l2, "l3": l3, "proth": "3l" if l3 is not None else "2l",
                     "rho": params.rho})
        return info


@register
class K2redShift(ShiftAlgorithm):
    name = "modmul-k2red-shift"
    title = "pipelined K2RED with shift-adds for Proth-l primes (Alg 7)"
    paper = PAPER + ", Alg. 7"

    def reduction(self, params: ShiftParams, modulus: Modulus) -> Reduction:
        return plans.k2red_shift(modulus, params.rho)

    def multiply(self, plan: ModmulPlan, modulus: Modulus, a: int, b: int) -> int:
        assert modulus.shifts is not None
        return M.k2red_shift(modulus.q, modulus.beta, modulus.omega, modulus.shifts, a, b)

    def reduction_datapath(self, plan: ModmulPlan, reduce_only: bool, layouts: Layouts) -> hw.ModmulDatapath:
        return hw.K2redShift(plan, reduce_only, layouts)

    def grid(self) -> list[dict[str, str]]:
        return [{"q": "0x800a000000000001", "logqh": "17", "rho": "A", "reduce_only": "1"},
                {"q": "0x9fc00001", "logqh": "16", "shift_input": "1"}, {"q": "0x800a000000000001", "logqh": "17"}]


@register
class MontgomeryShift(ShiftAlgorithm):
    name = "modmul-montgomery-shift"
    title = "pipelined Montgomery with shift-adds for Proth-l primes (Alg 6, q' = q - 2)"
    paper = PAPER + ", Alg. 6"

    def reduction(self, params: ShiftParams, modulus: Modulus) -> Reduction:
        return plans.montgomery_shift(modulus, params.rho)

    def multiply(self, plan: ModmulPlan, modulus: Modulus, a: int, b: int) -> int:
        assert modulus.shifts is not None
        return M.montgomery_shift(modulus.q, modulus.beta, modulus.omega, modulus.shifts, a, b)

    def reduction_datapath(self, plan: ModmulPlan, reduce_only: bool, layouts: Layouts) -> hw.ModmulDatapath:
        return hw.MontgomeryShift(plan, reduce_only, layouts)

    def operand_cases(self, modulus: Modulus) -> list[tuple[int, int]]:
        """The corners, and products whose low beta bits are 0 or multiples of 2^(beta-2): where
        the run-time shift datapath reads the carry of the bits it drops (`hw.MontgomeryShift`)."""
        q, bw = modulus.q, modulus.beta
        quarters = [(a, b) for a in (1 << (bw - 3), 1 << (bw - 2), 3 << (bw - 2)) for b in (1, 2, 3, 4, q - 1) if a < q]
        return list(dict.fromkeys(super().operand_cases(modulus) + quarters))

    def grid(self) -> list[dict[str, str]]:
        return [{"q": "0x9fc00001", "logqh": "16", "pipeline": "000001"},           # one register stage
                {"q": "0x9fc00001", "logqh": "16"},
                {"q": "0x800a000000000001", "logqh": "17", "reduce_only": "1"},
                {"q": "0x800a000000000001", "logqh": "17", "rho": "A", "shift_input": "1"}]
