"""The registered NTT cores of family "ntt", negacyclic over Z_q[x]/(x^n + 1) (paper:
Tosun et al., docs/references.md#tosun-2026, Sec. 2.2 and 5.4): ntt-forward (Cooley-Tukey, natural
order in, bit-reversed out), ntt-inverse (Gentleman-Sande, bit-reversed in, natural out,
n^-1 included) and ntt-polymul (a*b mod (x^n + 1, q)), with P butterfly units, each built
around one of the eight pipelined modular multipliers of family "modmul".

Frames: a polynomial streams as n/P beats; beat k carries coefficients kP .. kP+P-1, lane l
(coefficient kP+l) in bits [l w, (l+1) w), w = the reduction's word width (q < 2^w). For
polymul an input beat carries P coefficients of a (low P w bits), then P of b. The result
streams the same way. See model.py for the architecture, plan.py for the schedule and the
timing, hw.py for the hardware.
"""

from __future__ import annotations

import dataclasses
import functools
import random
import typing
from typing import Any, Literal, Protocol, cast

from ...errors import ParameterError
from ...hw.dsp import DSP_HELP, Dsp
from ...hw.pipeline import RESET_HELP
from ...math.primes import family, family_members, is_ntt_friendly, is_prime, primitive_root_of_unity, v2
from ...registry import POW2, Algorithm, Computes, Operand, lookup, param, register
from . import hw
from .commands import OPS, STORE, Command, CommandPlan, pack_command, random_program, run_commands
from .model import pack_fields, run
from .plan import TWO_OPERANDS, ConfigMap, NttPlan, PrimeSchedule, drain, pass_starts, passes
from .profiles import PROFILES

PAPER = ("Tosun et al., Optimized FPGA Architecture for Modular Reduction in NTT, Springer 2026 "
         "(IACR ePrint 2024/1890), Sec. 2.2 and 5.4")

Profile = Literal["none", "ml-kem", "ml-dsa", "falcon-512", "falcon-1024"]
Reduction = Literal["montgomery", "barrett", "plantard", "wlm", "wlm-mixed", "k2red", "k2red-shift",
                    "montgomery-shift"]
REDUCTIONS = typing.get_args(Reduction)
MIN_N, MAX_N, MAX_PE = 16, 65536, 64
MIN_Q_BITS, MAX_Q_BITS = 8, 128     # the modmul reductions' q (family modmul's MIN_BETA, MAX_BETA)


@dataclasses.dataclass(frozen=True)
class NttParams:
    q: int = param(0, help="the prime modulus, q = 1 mod 2n/2^incomplete (a generation-time constant; "
                           "0: the profile's)", bits=(MIN_Q_BITS, MAX_Q_BITS))
    n: int = param(0, help="polynomial length, ring Z_q[x]/(x^n+1) (0: the profile's)", kind=POW2, lo=MIN_N,
                   hi=MAX_N)
    profile: Profile = param("none", help="a standard's ring, its NTT exactly as the standard defines it: "
                                          + ", ".join(PROFILES) + " (fixes q, n, psi and incomplete)")
    incomplete: int = param(0, help="k: the transforms stop k layers early, leaving n/2^k residues mod "
                                    "x^(2^k) - psi^(2 bitrev(i)+1) (for a q with no primitive 2n-th root; "
                                    "ML-KEM: 1)", lo=0, hi=MAX_N.bit_length() - 2)
    pe: int = param(4, help="P, butterfly units, dividing n/2", kind=POW2, lo=1, hi=MAX_PE)
    reduction: Reduction = param("montgomery", help="the butterflies' modular multiplier: " + ", ".join(REDUCTIONS))
    dsp: Dsp = param("dsp48e2", help=DSP_HELP + " (passed to the reduction where it has one)")
    psi: int = param(0, help="the primitive 2n/2^incomplete-th root of unity, psi^(n/2^incomplete) = -1 "
                             "mod q (0: the smallest one)", bits=(0, MAX_Q_BITS))
    logqh: int = param(0, help="the reduction's log q_h, q = q_h 2^omega + 1 (wlm, wlm-mixed, k2red "
                               "and the shift forms; 0: as the reduction derives it from q)",
                       lo=0, hi=MAX_Q_BITS - 1)
    rho: Literal["A", "B"] = param("B", help="pipeline configuration of k2red-shift and montgomery-shift: A or B")
    beta: int = param(0, help="reduction width of montgomery, barrett, plantard (0: q's bit length)", lo=0,
                      hi=MAX_Q_BITS)
    pipeline: str = param("", help="the reduction's register stages kept, 1 keep, 0 merge (its own "
                                   "parameter; empty: all)")
    target_mhz: float = param(0.0, help="the reduction's: its register stages for this clock on ECP5 (dsp=ecp5; "
                                        "modmul's target_mhz, the butterfly's own stages around it as they are; "
                                        "0: off)", lo=0)
    buffers: Literal[1, 2] = param(1, help="coefficient buffers: 1 (the next frame loads while the last is read "
                                 "out, then computes: II = k n/P + C) or 2 (it loads into the other buffer "
                                 "while one computes: II = C, twice the coefficient RAM)")
    base: str = param("", kind="comma-separated primes", help="RNS mode: more primes after q, comma-separated "
                               "(same bit length and log q_h as q, each = 1 mod 2n); a frame is then one residue "
                               "polynomial per prime, q's first, through the one core with a run-time modulus "
                               "(wlm, wlm-mixed, k2red, k2red-shift, montgomery-shift)")
    read_register: Literal[0, 1] = param(0, help="1: a register after every coefficient RAM's and twiddle ROM's "
                                         "read port, one more drain cycle (D = mul_depth + 4); block RAM takes it "
                                         "in as its output register, whose clock-to-output delay then leaves the "
                                         "critical path (ECP5: 5.6 ns)")
    unit_register: Literal[0, 1] = param(0, help="1: a register between the routes of rows and twiddles to the "
                                         "butterfly units and the units' inputs, one more drain cycle: the read, the "
                                         "bank and route multiplexers and the units' input adders no longer share a "
                                         "cycle")
    twiddle_memory: Literal["auto", "block", "any", "lut"] = param(
        "auto", help="where the twiddle ROMs (RAMs with twiddles=load) go: block (ram_style block: one RAMB18 / "
                     "DP16KD each instead of LUTs), any (the synthesis tool chooses: small ROMs become LUTs), "
                     "lut (ROMs as LUT logic, RAMs as LUT RAM: no block RAM for twiddles, for a block RAM "
                     "budget), auto: block with read_register=1 (its register then follows the block RAM's "
                     "slow read port), else any")
    twiddles: Literal["rom", "load"] = param("rom", help="rom: the moduli and the twiddles are fixed at generation "
                                      "(ROMs); load: run-time primes of q's form (bit length, log q_h, Proth-l "
                                      "form), one per residue slot (q's, and the base's in RNS mode): their "
                                      "modulus fields, constants and twiddles in registers and RAMs that "
                                      "reset to the generation moduli's and are rewritten through the cfg "
                                      "stream between frames (`modforge config`); needs a reduction with a "
                                      "run-time modulus")
    reset: Literal["control", "all"] = param("control", help=RESET_HELP + " (the butterflies' registers)")

#: the passes' waits for rows still in the pipeline (plan.pass_starts, in closed form)
STALLS = ("G = sum over i in max(0, k' - log2(P))..log2(n/P) - 2 of max(0, 2^i + D + 1 - H) "
          "+ max(0, log2(P) - k') max(0, D + 1 - H), k' = incomplete: "
          "waits between dependent passes")

#: NTT parameters handed on to the reduction that has them, with their "not set" values.
REDUCTION_ARGS = {"logqh": 0, "rho": "B", "beta": 0, "pipeline": "", "target_mhz": 0.0}
#: the reductions with a run-time modulus (RNS mode, twiddles=load), and the flag that turns it on
RUNTIME_FLAG = {"wlm": "qh_input", "wlm-mixed": "qh_input", "k2red": "qh_input",
                "k2red-shift": "shift_input", "montgomery-shift": "shift_input"}


def tag_value(value: Any) -> str:
    """A parameter's value in a module name: a float without its point (62.5: 62p5)."""
    return f"{value:g}".replace(".", "p") if isinstance(value, float) else str(value)


class ModularReduction(Protocol):
    """What the NTT cores use of a family "modmul" algorithm (found by lookup: families never
    import each other); its parameters are that family's own (Any here)."""
    name: str
    Params: type

    def parse(self, args: dict[str, Any]) -> Any: ...
    def validate(self, params: Any) -> Any: ...
    def model(self, params: Any, *operands: int) -> Any: ...
    def scale(self, params: Any) -> int: ...
    def cycles(self, params: Any) -> int: ...
    def result_width(self, params: Any) -> int: ...
    def runtime(self, params: Any) -> dict[str, int]: ...
    def runtime_of(self, params: Any, q: int) -> tuple[int, ...]: ...
    def datapath(self, params: Any) -> Any: ...
    def plan(self, params: Any) -> Any: ...


class NttAlgorithm(Algorithm[NttParams, NttPlan]):
    family = "ntt"
    paper = PAPER
    Params = NttParams
    frames = True
    config_stream = True
    uses = ("modmul",)                   # the butterflies' reduction: lookup("modmul-<reduction>")
    transform: str                       # "forward", "inverse", "polymul" or "basemul"

    # --- parameters -------------------------------------------------------------------
    def validate(self, params: NttParams) -> NttParams:
        name = self.name
        params = self.apply_profile(params)
        n, pe, k = params.n, params.pe, params.incomplete
        if params.q == 0:
            raise ParameterError(name, "q", "is required (or a profile: " + ", ".join(PROFILES) + ")", "<missing>")
        if not MIN_N <= n <= MAX_N:
            raise ParameterError(name, "n", f"must be in {MIN_N}..{MAX_N}", n)
        if pe > MAX_PE:
            raise ParameterError(name, "pe", f"must be a power of two in 1..{MAX_PE}", pe)
        if (n // 2) % pe:
            raise ParameterError(name, "pe", f"must divide n/2 = {n // 2} (P butterflies per cycle)", pe)
        if k >= n.bit_length() - 1:
            raise ParameterError(name, "incomplete", f"must leave a layer: below log2(n) = {n.bit_length() - 1}", k)
        if params.twiddles == "load":
            if params.reduction not in RUNTIME_FLAG:
                raise ParameterError(name, "twiddles", f"must be rom with reduction={params.reduction}: load "
                                     f"needs a run-time modulus ({', '.join(RUNTIME_FLAG)})", params.twiddles)
        self.reduction_params(params)                    # the reduction's own rules on q
        q, span = params.q, n >> k                     # span: the length of the NTT the layers make
        if not is_ntt_friendly(q, span):
            top = v2(q - 1) - 1               # q = 1 mod 2n for n up to 2^(v2(q-1) - 1)
            largest = f"the largest complete negacyclic NTT q has is n = {1 << top}" if top >= 1 else "q has none"
            hint = f"; incomplete={n.bit_length() - 1 - top} stops early enough" if top >= 1 else ""
            raise ParameterError(name, "q", f"must be NTT-friendly for n={n}" + (f", incomplete={k}" if k else "")
                                 + f": q = 1 mod 2n{f'/2^{k}' if k else ''} = {2 * span} (q - 1 = "
                                 f"{(q - 1) >> (top + 1)} * 2^{top + 1}: {largest}{hint})", hex(q))
        psi = params.psi
        if psi == 0:
            psi = primitive_root_of_unity(q, 2 * span)
        elif not 0 < psi < q or pow(psi, span, q) != q - 1:
            raise ParameterError(name, "psi", f"must satisfy 0 < psi < q and psi^{f'(n/2^{k})' if k else 'n'} = -1 "
                                 f"mod q (n={n}" + (f", incomplete={k}" if k else "") + ")", psi)
        return dataclasses.replace(params, psi=psi, base=",".join(hex(x) for x in self.check_base(params)))

    def apply_profile(self, params: NttParams) -> NttParams:
        """params with the profile's q, n, psi and incomplete; each given with another value
        (the standard fixes it) is an error."""
        if params.profile == "none":
            return params
        fixed = dataclasses.asdict(PROFILES[params.profile])
        for key, value in fixed.items():
            given = getattr(params, key, None)
            if key != "standard" and given not in (value, 0):
                raise ParameterError(self.name, key, f"is fixed by profile={params.profile} to {value} "
                                     f"({fixed['standard']})", given)
        if params.base or params.twiddles == "load":
            raise ParameterError(self.name, "base" if params.base else "twiddles",
                                 f"must be unset with profile={params.profile} (the standard's one prime)",
                                 params.base or params.twiddles)
        return dataclasses.replace(params, **{k: v for k, v in fixed.items() if k != "standard"})

    def check_base(self, params: NttParams) -> list[int]:
        """The RNS base after q: distinct primes that the reduction takes with q's omega and
        run-time form."""
        if not params.base.strip():
            return []
        name = self.name
        if params.reduction not in RUNTIME_FLAG:
            raise ParameterError(name, "base", "needs a reduction with a run-time modulus: "
                                 f"{', '.join(RUNTIME_FLAG)} (reduction={params.reduction})", params.base)
        try:
            base = [int(x, 0) for x in params.base.split(",")]
        except ValueError:
            raise ParameterError(name, "base", "must be comma-separated integers", params.base) from None
        seen = {params.q}
        for qj in base:
            if qj in seen:
                raise ParameterError(name, "base", "must hold distinct primes, none equal to q", hex(qj))
            seen.add(qj)
            self.check_prime(params, qj, "base", "must hold primes")
        return base

    def check_prime(self, params: NttParams, qj: int, argument: str, what: str = "must be a prime") -> Any:
        """The reduction's parameters for qj, a prime the core with q's run-time modulus takes
        (an RNS base prime, or one loaded at run time): q's bit length, NTT-friendly for n,
        the reduction's form with q's log q_h, the same run-time fields (Proth-l form)."""
        name, n = self.name, params.n
        alg, mp = self.modmul(params), self.reduction_params(params)
        if qj.bit_length() != params.q.bit_length():
            raise ParameterError(name, argument, f"{what} of q's bit length {params.q.bit_length()}", hex(qj))
        if not is_prime(qj):
            raise ParameterError(name, argument, what, hex(qj))
        if not is_ntt_friendly(qj, n >> params.incomplete):
            raise ParameterError(name, argument, f"{what} NTT-friendly for n={n}: q = 1 mod "
                                 f"{2 * n >> params.incomplete}", hex(qj))
        try:
            mpj = self.residue_params(params, mp, qj)
        except ParameterError as e:
            raise ParameterError(name, argument, f"{what} the reduction takes with log q_h = "
                                 f"{mp.logqh}: {e.rule}", hex(qj)) from None
        if len(alg.runtime_of(mpj, qj)) != len(alg.runtime_of(mp, params.q)):
            raise ParameterError(name, argument, f"{what} of q's Proth-l form (2l or 3l)", hex(qj))
        return mpj

    # --- twiddles=load: primes loaded at run time, one per residue slot -----------------------
    def runtime_params(self, params: NttParams) -> Any:
        """The reduction's parameters with its run-time modulus on (RNS, twiddles=load)."""
        return dataclasses.replace(self.reduction_params(params), **{RUNTIME_FLAG[params.reduction]: 1})

    def with_moduli(self, params: NttParams, primes: list[int]) -> NttParams:
        """params for the moduli `primes` (q's log q_h; the first prime's smallest psi): the
        model of a core that has loaded them."""
        logqh = self.reduction_params(params).logqh
        span = params.n >> params.incomplete
        return dataclasses.replace(params, q=primes[0], psi=primitive_root_of_unity(primes[0], 2 * span),
                                   base=",".join(hex(x) for x in primes[1:]), logqh=logqh)

    def config_map(self, params: NttParams) -> ConfigMap:
        """twiddles=load: the cfg stream's layout (the plan's)."""
        config = self.derived(params).config
        if config is None:
            raise RuntimeError(f"{self.name}: a cfg stream needs twiddles=load")
        return config

    def config_width(self, params: NttParams) -> int:
        return self.config_map(params).width if params.twiddles == "load" else 0

    def config_words(self, params: NttParams, primes: list[int]) -> list[int]:
        """twiddles=load: the cfg payloads that load `primes`, one per residue slot (q's and the
        base's), each with its smallest psi."""
        name, k = self.name, len(self.moduli(params))
        if params.twiddles != "load":
            raise ParameterError(name, "twiddles", "must be load for a run-time prime", params.twiddles)
        if len(primes) != k:
            raise ParameterError(name, "prime", f"must name {k} prime{'s' * (k > 1)}, one per residue slot",
                                 ",".join(map(hex, primes)))
        if len(set(primes)) != k:
            raise ParameterError(name, "prime", "must name distinct primes", ",".join(map(hex, primes)))
        alg, fields = self.modmul(params), []
        for qj in primes:
            mpj = dataclasses.replace(self.check_prime(params, qj, "prime"), **{RUNTIME_FLAG[params.reduction]: 1})
            fields.append(pack_fields(alg.runtime(mpj), alg.runtime_of(mpj, qj)))
        return self.config_map(params).words(self.derived(self.with_moduli(params, primes)).primes, fields)

    def runtime_primes(self, params: NttParams) -> list[int]:
        """The primes the testbench loads, one per slot: the largest others of q's form, then
        the core's own in reverse order (every slot changes where the family allows)."""
        alg, mp = self.modmul(params), self.runtime_params(params)
        moduli = self.moduli(params)
        kind = {2: "proth2l", 3: "proth3l"}.get(len(alg.runtime_of(mp, params.q)), "ntt")
        fam = family(kind, params.q.bit_length(), mp.logqh)
        found: list[int] = []
        for qj in family_members(fam, log_n=params.n.bit_length() - 1 - params.incomplete, descending=True):
            if len(found) == len(moduli):
                break
            if qj in moduli:
                continue
            try:
                self.check_prime(params, qj, "prime")
            except ParameterError:
                continue
            found.append(qj)
        return (found + moduli[::-1])[:len(moduli)]

    def verification_config(self, params: NttParams) -> tuple[NttParams, list[int]]:
        if params.twiddles != "load":
            return params, []
        primes = self.runtime_primes(params)
        return self.with_moduli(params, primes), self.config_words(params, primes)

    def residue_params(self, params: NttParams, mp: Any, qj: int) -> Any:
        """The reduction's parameters for prime qj of the base (q's log q_h, rho, dsp)."""
        return self.modmul(params).validate(dataclasses.replace(mp, q=qj))

    def moduli(self, params: NttParams) -> list[int]:
        return [params.q] + ([int(x, 0) for x in params.base.split(",")] if params.base else [])

    def modmul(self, params: NttParams) -> ModularReduction:
        return cast(ModularReduction, lookup(f"modmul-{params.reduction}"))

    def reduction_params(self, params: NttParams) -> Any:
        """The reduction's canonical parameters, by its own parse/validate; its errors are
        re-raised under this algorithm's name. logqh, rho and beta are handed on where the
        reduction has them (unset: derived from q); set for one without them, an error."""
        alg = self.modmul(params)
        fields = {f.name for f in dataclasses.fields(alg.Params)}
        args = {"q": str(params.q)} | ({"dsp": params.dsp} if "dsp" in fields else {})
        for key, unset in REDUCTION_ARGS.items():
            value = getattr(params, key)
            if key in fields:
                args[key] = str(value)
            elif value != unset:
                raise ParameterError(self.name, key, f"is not a parameter of reduction={params.reduction}",
                                     value)
        try:
            return alg.parse(args)
        except ParameterError as e:
            set_here = e.argument in ("q", "dsp") or (
                e.argument in REDUCTION_ARGS and getattr(params, e.argument) != REDUCTION_ARGS[e.argument])
            if set_here:                                    # the user's own value: name it
                raise ParameterError(self.name, e.argument, f"{e.rule} (reduction={params.reduction})",
                                     e.value) from None
            raise ParameterError(self.name, "q", f"must suit reduction={params.reduction}: its "
                                 f"{e.argument}={e.value} (derived from q) {e.rule}", hex(params.q)) from None

    # --- the derived plan, shared by model and hardware -----------------------------------
    def derive(self, params: NttParams) -> NttPlan:
        """The passes and their schedule (one shape for every prime of the base), a
        PrimeSchedule per prime (just q without RNS) with its own reduction parameters and
        scale, psi for q and the smallest primitive 2n-th root for the others; RNS or
        twiddles=load: the datapath's reduction with its run-time modulus and each prime's
        fields; twiddles=load: the cfg layout."""
        alg, mp = self.modmul(params), self.reduction_params(params)
        n, P, moduli = params.n, params.pe, self.moduli(params)
        residues = tuple(mp if j == 0 else self.residue_params(params, mp, qj) for j, qj in enumerate(moduli))
        scales = [alg.scale(mpj) for mpj in residues]
        # polymul with F != 1 scales b: at load with one buffer, in a pass of its own with two
        k = params.incomplete
        shape = passes(self.transform, n, P, self.transform in TWO_OPERANDS and scales[0] != 1 and params.buffers == 2,
                       k)
        primes = tuple(PrimeSchedule.of(shape, self.transform, qj, n, P,
                                        params.psi if j == 0 else primitive_root_of_unity(qj, 2 * (n >> k)), F, k)
                       for j, (qj, F) in enumerate(zip(moduli, scales, strict=True)))
        datapath, config = mp, None
        runtime: tuple[tuple[int, ...], ...] = ()
        if len(moduli) > 1 or params.twiddles == "load":
            datapath = self.runtime_params(params)
            runtime = tuple(alg.runtime_of(datapath if j == 0 else self.residue_params(params, datapath, qj), qj)
                            for j, qj in enumerate(moduli))
        w, mul_depth = alg.result_width(mp), alg.cycles(mp)
        if params.twiddles == "load":
            config = ConfigMap.of(len(primes), P, len(primes[0].shared), len(primes[0].lanes[0]), w,
                                  sum(alg.runtime(datapath).values()))
        return NttPlan(self.transform, n, P, params.buffers, w, mul_depth, shape,
                       pass_starts(shape, n // P, P, drain(mul_depth) + params.read_register + params.unit_register),
                       primes, datapath, residues, runtime, config, params.read_register, params.unit_register,
                       self.twiddle_style(params), params.reset == "all")

    def twiddle_style(self, params: NttParams) -> str:
        """The twiddle memories' kind: block, lut or any (the tools'); twiddle_memory=auto: block
        RAM where a register follows its read port (read_register=1)."""
        if params.twiddle_memory == "auto":
            return "block" if params.read_register else "any"
        return params.twiddle_memory

    def width(self, params: NttParams) -> int:
        """w: bits per coefficient, the reduction's word width."""
        return self.derived(params).w

    # --- frames -----------------------------------------------------------------------
    def pack(self, params: NttParams, coeffs: list[int]) -> list[int]:
        """Rows of P coefficients as beats: lane l in bits [l w, (l+1) w) (RNS: the residue
        polynomials one after another)."""
        P, w = params.pe, self.width(params)
        return [sum(c << (lane * w) for lane, c in enumerate(coeffs[k * P:(k + 1) * P]))
                for k in range(len(coeffs) // P)]

    def in_beats(self, params: NttParams, operands: tuple[Any, ...]) -> list[tuple[int, ...]]:
        return list(zip(*(self.pack(params, poly) for poly in operands), strict=True))

    def out_beats(self, params: NttParams, result: Any) -> list[int]:
        return self.pack(params, result)

    def result_width(self, params: NttParams) -> int:
        return params.pe * self.width(params)

    def lanes(self, params: NttParams) -> str:
        """The encoding of a beat of coefficients."""
        return (f"{params.pe} lanes of {self.width(params)}-bit unsigned coefficients: beat k, lane l (bits "
                f"[{self.width(params)}l, ...)) is coefficient k*{params.pe} + l"
                + ("; the residue polynomials one after another, q's first" if params.base else ""))

    def operands(self, params: NttParams) -> list[Operand]:
        """One polynomial, P coefficients a beat (ntt-polymul: two)."""
        return [Operand("x", params.pe * self.width(params), self.lanes(params), "each coefficient < q", params.pe)]

    def result(self, params: NttParams) -> Operand:
        return Operand("c", self.result_width(params), self.lanes(params), "each coefficient < q", params.pe)

    def config_fields(self, params: NttParams) -> list[Operand]:
        if params.twiddles != "load":
            return []
        cm = self.config_map(params)
        return [Operand("data", cm.data_bits, "unsigned binary", "the word's value"),
                Operand("word", cm.word_bits, "unsigned binary", "the address within sel"),
                Operand("sel", cm.sel_bits, "unsigned binary", "0: slot j's constants at 3j + c (c = 0: q_j, "
                        "1: its run-time fields, 2: b's scale); 1: the shared twiddle RAM; 2 + u: lane u's")]

    # --- mathematics ------------------------------------------------------------------
    def model(self, params: NttParams, *polys: Any) -> list[int]:
        """The hardware-faithful model (model.run), each prime's multiplications by the
        reduction's model for it; its congruence: `congruence`."""
        plan, alg = self.derived(params), self.modmul(params)
        return run(plan, [functools.partial(alg.model, mpj) for mpj in plan.residues], *polys)

    def random_operands(self, params: NttParams, rng: random.Random) -> tuple[Any, ...]:
        """A polynomial per operand (RNS: its residue polynomials one after another)."""
        return tuple([rng.randrange(q) for q in self.moduli(params) for _ in range(params.n)]
                     for _ in self.operands(params))

    def corner_polys(self, params: NttParams) -> list[list[int]]:
        """All zeros, all q-1, 1 = x^0, x^(n-1), alternating 0/q-1 (each residue alike)."""
        n = params.n
        return [[v for q in self.moduli(params) for v in poly(q)] for poly in (
            lambda q: [0] * n, lambda q: [q - 1] * n, lambda q: [1] + [0] * (n - 1),
            lambda q: [0] * (n - 1) + [1], lambda q: [(q - 1) * (i & 1) for i in range(n)])]

    def cases(self, params: NttParams) -> list[tuple[Any, ...]]:
        return [(p,) for p in self.corner_polys(params)]

    # --- hardware ---------------------------------------------------------------------
    def build(self, params: NttParams) -> hw.NttCore:
        """The plan's core around the reduction's datapath (RNS, twiddles=load: with its
        run-time modulus, fed per residue the fields of q_j)."""
        plan, alg, streams = self.derived(params), self.modmul(params), self.plan(params)
        return hw.NttCore(plan, lambda: alg.datapath(plan.reduction),
                          {"i": streams.input_layout, "o": streams.output_layout, "cfg": streams.config_layout})

    def formula(self, params: NttParams) -> str:
        return (f"C = k (L H + G) + D, L = log2(n) - incomplete layers, H = n/(2P), {self.drain_text(params)}, "
                "k = residues per frame; " + STALLS)

    def drain_text(self, params: NttParams) -> str:
        return ("D = mul_depth + 3" + (" + 1 (read_register=1)" if params.read_register else "")
                + (" + 1 (unit_register=1)" if params.unit_register else ""))

    def ring_note(self, params: NttParams) -> str:
        """q, psi, n, the profile's standard, the moduli (moduli_note)."""
        standard = f" ({params.profile}: {PROFILES[params.profile].standard})" if params.profile != "none" else ""
        return f", q = {params.q:#x}, psi = {params.psi}, n = {params.n}{standard}" + self.moduli_note(params)

    def moduli_note(self, params: NttParams) -> str:
        """How the moduli differ from q: an RNS base, primes loaded at run time."""
        note = ""
        if params.base:
            note = (f"; RNS: each operand and the result are {len(self.moduli(params))} residue polynomials, "
                    f"residue j (coefficients j n .. j n + n - 1) mod q_j, q_j in "
                    f"[{', '.join(hex(q) for q in self.moduli(params))}] (q_j's own smallest psi for j > 0)")
        if params.twiddles == "load":
            note += "; the moduli and psi as loaded through cfg (after reset: the values here)"
        return note

    def tag(self, params: NttParams) -> str:
        extra = "".join(f"_{key}{tag_value(getattr(params, key))}" for key, unset in REDUCTION_ARGS.items()
                        if getattr(params, key) != unset)
        extra += f"_rns{len(self.moduli(params))}" if params.base else ""
        extra += "_pingpong" if params.buffers == 2 else ""
        extra += "_load" if params.twiddles == "load" else ""
        extra += "_rreg" if params.read_register else ""
        extra += "_ureg" if params.unit_register else ""
        extra += {"auto": "", "block": "_twblock", "any": "_twany", "lut": "_twlut"}[params.twiddle_memory]
        extra += "_rstall" if params.reset == "all" else ""
        return (f"n{params.n}_p{params.pe}_q{params.q.bit_length()}_"
                f"{params.reduction.replace('-', '_')}{extra}")

    def computes(self, params: NttParams) -> Computes:
        """Z_q[x]/(x^n+1) (RNS: per residue prime of the base; q is the first)."""
        return Computes("Z_q[x]/(f)", params.q, params.n, f"x^{params.n}+1", False, ("q", "n", "base"))

    def extra_info(self, params: NttParams) -> dict[str, Any]:
        plan, alg = self.derived(params), self.modmul(params)
        mp = plan.residues[0]
        n, P, w = params.n, params.pe, self.width(params)
        k = len(self.moduli(params))
        sets = plan.operands
        return {
            "congruence": self.congruence(params),
            "q": hex(params.q), "psi": params.psi, "w": w, "butterflies": P,
            "incomplete": params.incomplete,
            "profile": ({"name": params.profile, "standard": PROFILES[params.profile].standard}
                        if params.profile != "none" else None),
            "moduli": [hex(q) for q in self.moduli(params)], "residues_per_frame": k,
            "reduction": alg.name, "reduction_params": dataclasses.asdict(mp),
            **({"reduction_predicted_mhz": alg.plan(plan.reduction).info["predicted_mhz"]} if params.target_mhz
               else {}),
            "reduction_scale": hex(plan.primes[0].F), "mul_depth": plan.mul_depth, "drain_D": plan.drain,
            "passes": len(plan.passes), "pass_waits": plan.waits,
            "cycles_formula": self.formula(params),
            "twiddle_words": plan.twiddle_words,
            "twiddle_words_shared": len(plan.shared),
            "twiddle_words_lanes": sum(len(lane) for lane in plan.lanes),
            "coefficient_ram_bits": params.buffers * sets * k * n * w,
            "banks": f"{params.buffers * 2 * sets} x {k * n // (2 * P)} words of {P * w} bits",
            "twiddles": params.twiddles,
            "twiddle_memory": plan.twiddle_style,
            "reset": params.reset,
        } | {k: 1 for k in ("read_register", "unit_register") if getattr(params, k)} | (
            self.config_info(params) if params.twiddles == "load" else {})

    def config_info(self, params: NttParams) -> dict[str, Any]:
        cm = self.config_map(params)
        return {"config": {
            "width": cm.width, "words": cm.count,
            "payload": f"Cat(data[{cm.data_bits}], word[{cm.word_bits}], sel[{cm.sel_bits}]), slot j of {cm.k}: "
                       "sel 0 word 3j + c: q_j (c = 0), its run-time fields (1), b's scale (2); sel 1 the shared "
                       f"twiddle RAM, word j {cm.shared_len} + a; sel 2 + u lane u's twiddle RAM, word j "
                       f"{cm.lane_len} + a (`modforge config` writes them for primes)",
            "rule": "cfg.ready only while no frame is in the core; i.ready low while cfg.valid",
            "verified_moduli": [hex(x) for x in self.runtime_primes(params)],
        }}


@register
class Forward(NttAlgorithm):
    name = "ntt-forward"
    title = "negacyclic forward NTT, Cooley-Tukey, P butterflies, natural in, bit-reversed out"
    transform = "forward"

    # --- formal reference (modforge prove) ----------------------------------------------
    formal = True
    MAX_PROOF_N = 32

    def reference(self, params: NttParams) -> str:
        """ok: out[i] = sum_j a_j psi^((2 bitrev(i)+1) j) mod q for coefficients < q, written as
        the radix-2 network that evaluates it (one modulus, twiddles generated): L = log2(n) - k
        stages (k = incomplete) of Cooley-Tukey butterflies (u + v s, u - v s) mod q, stage m (m
        = 1, 2, .., 2^(L-1), distance t = n/(2m)) with s = psi^bitrev_L(m + i) on block i, the twiddles constants
        computed here from psi; v s mod q by long division, u +- v s mod q by one conditional
        correction (the textbook forms for values < q). The network's values are the core's own
        (for every input, not only those < q), so SAT sweeping (iprove) matches them stage by
        stage; against the flat sum it did not finish in 10 minutes."""
        n, q, w = params.n, params.q, self.width(params)
        if n > self.MAX_PROOF_N:
            raise ParameterError("prove", "n", f"must be at most {self.MAX_PROOF_N} for a bounded proof", n)
        if len(self.moduli(params)) > 1 or params.twiddles == "load":
            raise ParameterError("prove", "base" if params.base else "twiddles", "must be unset (prove takes one "
                                 "generation-time modulus)", params.base or params.twiddles)
        bits = n.bit_length() - 1 - params.incomplete
        lines = [f"  function [{w - 1}:0] mod_q(input [{2 * w - 1}:0] x);   // x mod q for x < q 2^{w}: long division",
                 "    integer k;",
                 f"    reg [{2 * w - 1}:0] r;",
                 "    begin",
                 "      r = x;",
                 f"      for (k = {w - 1}; k >= 0; k = k - 1) if (r >= {2 * w}'d{q} << k) r = r - ({2 * w}'d{q} << k);",
                 f"      mod_q = r[{w - 1}:0];",
                 "    end",
                 "  endfunction"]
        lines += [f"  wire [{w - 1}:0] x0_{j} = operands[{j * w + w - 1}:{j * w}];" for j in range(n)]
        values = [f"x0_{j}" for j in range(n)]
        for stage in range(1, bits + 1):
            m = 1 << (stage - 1)
            t = n // (2 * m)
            for i in range(m):
                twiddle = pow(params.psi, int(f"{m + i:0{bits}b}"[::-1], 2), q)
                for j in range(2 * i * t, 2 * i * t + t):
                    u, v, name = values[j], values[j + t], f"{stage}_{j}"
                    lines += [f"  wire [{2 * w - 1}:0] vw{name} = {v} * {2 * w}'d{twiddle};",
                              f"  wire [{w - 1}:0] p{name} = mod_q(vw{name});",
                              f"  wire [{w}:0] sum{name} = {u} + p{name};",
                              f"  wire [{w - 1}:0] x{stage}_{j} = sum{name} >= {w + 1}'d{q} ? sum{name} - {w + 1}'d{q}"
                              f" : sum{name};",
                              f"  wire [{w - 1}:0] x{stage}_{j + t} = {u} >= p{name} ? {u} - p{name} : {u} + "
                              f"{w}'d{q} - p{name};"]
                    values[j], values[j + t] = f"x{stage}_{j}", f"x{stage}_{j + t}"
        lines.append(f"  assign ok = result == {{{', '.join(reversed(values))}}};")
        lines.append(f"  assign in_domain = {' && '.join(f'x0_{j} < {q}' for j in range(n))};")
        return "\n".join(lines) + "\n"

    def congruence(self, params: NttParams) -> str:
        k = params.incomplete
        what = (f"block i of {1 << k} coefficients (out[{1 << k} i ..]) = a mod (x^{1 << k} - psi^(2 bitrev(i)+1)) "
                f"(negacyclic NTT stopped {k} layer{'s' * (k > 1)} early, bitrev over log2(n) - {k} bits)"
                if k else "out[i] = a(psi^(2 bitrev(i)+1)) mod q (negacyclic NTT, bit-reversed order)")
        return what + self.ring_note(params)

    def grid(self) -> list[dict[str, str]]:
        # every reduction once at n = 1024 over the three algorithms (P 4..16: shift-add
        # reductions get the wide configurations, they simulate fastest), plus small n
        # with P = 1 (forward), P = 2 (polymul) and P = n/2 (inverse)
        return [
            {"q": "0x80014001", "n": "16", "pe": "1", "reduction": "montgomery", "dsp": "none"},
            {"q": "0x80014001", "n": "1024", "pe": "4", "reduction": "montgomery"},
            {"q": "0x80130001", "n": "1024", "pe": "8", "reduction": "k2red"},
            {"q": "0x80140001", "n": "1024", "pe": "8", "reduction": "wlm"},
            {"q": "0xfff00001", "base": "0xffdf0001,0xffd50001", "logqh": "16", "n": "64", "pe": "4",
             "reduction": "k2red"},                                        # RNS, 3 primes
            {"q": "0x80014001", "n": "256", "pe": "4", "buffers": "2"},      # ping-pong
            # the standards' rings
            {"profile": "ml-kem", "pe": "1", "reduction": "k2red", "dsp": "none"},
            {"profile": "ml-dsa", "pe": "4", "reduction": "montgomery-shift"},
            {"profile": "falcon-1024", "pe": "16", "reduction": "barrett"},
            {"q": "0xfff00001", "base": "0xffdf0001,0xffd50001", "logqh": "16", "n": "64", "pe": "4",
             "reduction": "k2red", "buffers": "2", "read_register": "1", "unit_register": "1"},  # RNS, ping-pong, both
        ]


@register
class Inverse(NttAlgorithm):
    name = "ntt-inverse"
    title = "negacyclic inverse NTT, Gentleman-Sande with n^-1 folded in, bit-reversed in, natural out"
    transform = "inverse"

    def congruence(self, params: NttParams) -> str:
        k = params.incomplete
        what = (f"out = a, the natural-order coefficients with block i of in = a mod (x^{1 << k} - "
                f"psi^(2 bitrev(i)+1)) (inverse of the NTT stopped {k} layer{'s' * (k > 1)} early, incl. "
                f"(n/{1 << k})^-1)" if k else "out = a, the natural-order coefficients with in[i] = "
                "a(psi^(2 bitrev(i)+1)) mod q (inverse negacyclic NTT incl. n^-1)")
        return what + self.ring_note(params)

    def grid(self) -> list[dict[str, str]]:
        return [
            {"q": "0xfff00001", "n": "16", "pe": "8", "reduction": "barrett", "dsp": "none"},
            {"q": "0xfff00001", "n": "1024", "pe": "4", "reduction": "barrett"},
            {"q": "0x800a000000000001", "n": "1024", "pe": "4", "reduction": "wlm-mixed"},
            {"q": "0x9fc00001", "n": "1024", "pe": "16", "reduction": "montgomery-shift"},
            {"profile": "ml-kem", "pe": "4", "reduction": "barrett"},
            {"profile": "ml-dsa", "pe": "8", "reduction": "k2red"},
            {"profile": "falcon-512", "pe": "8", "reduction": "montgomery"},
        ]


@register
class Polymul(NttAlgorithm):
    name = "ntt-polymul"
    title = "negacyclic polynomial product a*b mod (x^n+1, q): NTT(a), NTT(b), pointwise, INTT"
    transform = "polymul"

    def validate(self, params: NttParams) -> NttParams:
        params = super().validate(params)
        if params.incomplete > 1:
            raise ParameterError(self.name, "incomplete", "must be 0 or 1 for the product (its base case: "
                                 "degree-1 residues, FIPS 203's BaseCaseMultiply)", params.incomplete)
        return params

    def operands(self, params: NttParams) -> list[Operand]:
        w, lanes = params.pe * self.width(params), self.lanes(params)
        return [Operand("a", w, lanes, "each coefficient < q", params.pe),
                Operand("b", w, lanes, "each coefficient < q", params.pe)]

    def congruence(self, params: NttParams) -> str:
        return f"c = a*b mod (x^n + 1, q), natural order, q = {params.q:#x}, n = {params.n}" + self.moduli_note(params)

    def formula(self, params: NttParams) -> str:
        plan = self.derived(params)
        scale = " + n/P (b's scale pass)" if plan.b_scales[0] and not plan.scale_at_load else ""
        if params.incomplete:     # the base case: products (2 n/P) and basecase (n/P) passes, not pointwise
            return (f"C = k (3 (L H + G) + 3 n/P{scale} + 2 max(0, D + 1 - H) + max(0, D + 1 - n/P)) + D, "
                    f"L = log2(n) - 1 layers, H = n/(2P), {self.drain_text(params)}, k = residues per frame; " + STALLS)
        return (f"C = k (3 log2(n) H + n/P{scale} + 3 G + 2 max(0, D + 1 - H)) + D, H = n/(2P), "
                f"{self.drain_text(params)}, k = residues per frame; " + STALLS)

    def cases(self, params: NttParams) -> list[tuple[Any, ...]]:
        zero, full, one, top, alt = self.corner_polys(params)
        return [(zero, full), (full, full), (one, alt), (top, top), (alt, full)]

    def grid(self) -> list[dict[str, str]]:
        return [
            {"q": "0x9fc00001", "n": "16", "pe": "2", "reduction": "montgomery-shift"},
            {"q": "0x9e140001", "n": "1024", "pe": "4", "reduction": "plantard"},
            {"q": "0x9fc00001", "n": "1024", "pe": "8", "reduction": "k2red-shift", "rho": "A"},
            {"q": "0x800a000000000001", "n": "64", "pe": "4", "reduction": "wlm-mixed", "buffers": "2"},
            {"q": "0x80140001", "n": "64", "pe": "4", "reduction": "wlm", "twiddles": "load"},   # run-time prime
            {"q": "0x80130001", "n": "64", "pe": "4", "reduction": "k2red", "pipeline": "0101011"},  # 4-stage k2red
            # ML-KEM: incomplete NTTs and FIPS 203's base case
            {"profile": "ml-kem", "pe": "2", "reduction": "k2red", "dsp": "none"},
            {"profile": "ml-kem", "pe": "4", "reduction": "montgomery", "buffers": "2"},
            {"profile": "ml-kem", "pe": "4", "reduction": "k2red-shift", "unit_register": "1"},   # b scaled at load
            {"profile": "ml-kem", "pe": "1", "reduction": "k2red-shift"},    # one butterfly: a pair over both banks
        ]


@register
class Basemul(Polymul):
    name = "ntt-basemul"
    title = ("NTT-domain product: pointwise, or (incomplete=1) FIPS 203's base case on the degree-1 "
             "residues; a and b already transformed")
    transform = "basemul"

    def congruence(self, params: NttParams) -> str:
        if params.incomplete:
            what = ("c = a o b in the NTT domain: pair i, (c[2i], c[2i+1]) = (a[2i] + a[2i+1] x)(b[2i] + "
                    "b[2i+1] x) mod (x^2 - psi^(2 bitrev(i)+1), q), bitrev over log2(n) - 1 bits "
                    "(FIPS 203's MultiplyNTTs)")
        else:
            what = "c[i] = a[i] b[i] mod q (the pointwise product of two NTTs)"
        return what + self.ring_note(params)

    def formula(self, params: NttParams) -> str:
        plan = self.derived(params)
        scale = " + n/P + max(0, D + 1 - n/P) (b's scale pass)" if plan.b_scales[0] and not plan.scale_at_load else ""
        if params.incomplete:
            return (f"C = k (3 n/P + max(0, D + 1 - n/P){scale}) + D, {self.drain_text(params)}, k = residues per "
                    "frame: products (2 n/P), basecase (n/P)")
        return f"C = k (n/P{scale}) + D, {self.drain_text(params)}, k = residues per frame: the pointwise pass"

    def grid(self) -> list[dict[str, str]]:
        return [
            {"q": "7681", "n": "16", "pe": "2", "incomplete": "1", "reduction": "barrett", "dsp": "none"},
            {"profile": "ml-kem", "pe": "4", "reduction": "k2red-shift"},
            {"profile": "ml-kem", "pe": "8", "reduction": "montgomery", "buffers": "2"},
            {"profile": "ml-dsa", "pe": "4", "reduction": "k2red-shift"},                  # pointwise
            {"profile": "ml-kem", "pe": "1", "reduction": "k2red-shift"},                  # a pair over both banks
        ]


MIN_SLOTS, MAX_SLOTS = 2, 64


@dataclasses.dataclass(frozen=True)
class CommandParams(NttParams):
    slots: int = param(8, help=f"S: polynomial slots, even, {MIN_SLOTS}..{MAX_SLOTS} (slot s in bank set s mod 2; "
                               "MUL and MAC take a and b from different sets)", lo=MIN_SLOTS, hi=MAX_SLOTS)
    read_register: Literal[0, 1] = param(1, help="1 (the default here: the slots fill block RAM, and "
                                         "twiddle_memory=auto puts the twiddle ROMs there too): a register after "
                                         "every RAM's and ROM's read port, one more drain cycle; 0: none")
    unit_register: Literal[0, 1] = param(1, help="1 (the default here): a register between the routes and the "
                                         "butterfly units' inputs, one more drain cycle; 0: none")


@register
class Commands(NttAlgorithm):
    """Commands over stored polynomials (commands.py): LOAD, STORE, NTT, INTT, MUL and MAC on S
    slots, one command at a time, each with its cycles as a formula."""
    name = "ntt-commands"
    title = ("polynomial slots with commands: load, store, NTT, NTT^-1, NTT-domain product and its "
             "accumulation (FIPS 203's base case with incomplete=1)")
    transform = "polymul"                # its passes: the forward, the product and the inverse
    Params = CommandParams
    commands = True

    def validate(self, params: NttParams) -> NttParams:
        params = super().validate(params)
        assert isinstance(params, CommandParams)
        name = self.name
        if params.slots % 2:
            raise ParameterError(name, "slots", "must be even (two bank sets)", params.slots)
        for key, unset in (("base", ""), ("twiddles", "rom"), ("buffers", 1)):
            if getattr(params, key) != unset:
                raise ParameterError(name, key, f"must be {unset or 'unset'}: the command core keeps one "
                                     "generation-time prime and one copy of its slots", getattr(params, key))
        if params.incomplete > 1:
            raise ParameterError(name, "incomplete", "must be 0 or 1 (MUL's base case: degree-1 residues, "
                                 "FIPS 203's BaseCaseMultiply)", params.incomplete)
        return params

    def derive(self, params: NttParams) -> Any:
        """The polymul core's plan with b's scale F^-2 always (the add pass's factor, 1 for F = 1)
        and the command plan around it."""
        assert isinstance(params, CommandParams)
        ntt = super().derive(params)
        prime = ntt.primes[0]
        ntt = dataclasses.replace(ntt, primes=(dataclasses.replace(prime, b_scale=pow(prime.F, -2, prime.q)),))
        return CommandPlan.of(ntt, params.slots)

    def command_plan(self, params: NttParams) -> CommandPlan:
        return cast(CommandPlan, self.derived(params))

    def ntt_plan(self, params: NttParams) -> NttPlan:
        return self.command_plan(params).ntt

    def width(self, params: NttParams) -> int:
        return self.ntt_plan(params).w

    # --- the i beat: a command ------------------------------------------------------------
    def operands(self, params: NttParams) -> list[Operand]:
        cp = self.command_plan(params)
        what = {"op": "0 LOAD, 1 STORE, 2 NTT, 3 INTT, 4 MUL, 5 MAC (6, 7: nothing)",
                "d": "the slot written (LOAD, NTT, INTT, MUL, MAC) or read out (STORE)",
                "a": "MUL, MAC: the first factor's slot", "b": "MUL, MAC: the second's, in the other bank set "
                "(slot parity)", "row": "LOAD: the row x goes to"}
        return [Operand("x", params.pe * self.width(params), "LOAD: row `row`, " + self.lanes(params),
                        "each coefficient < q", params.pe)] + [
            Operand(name, bits, "unsigned binary", what[name]) for name, bits in cp.fields()]

    def random_operands(self, params: NttParams, rng: random.Random) -> tuple[Any, ...]:
        return (random_program(self.command_plan(params), rng, params.q),)

    def cases(self, params: NttParams) -> list[tuple[Any, ...]]:
        return []

    def in_beats(self, params: NttParams, operands: tuple[Any, ...]) -> list[tuple[int, ...]]:
        cp = self.command_plan(params)
        return [(pack_command(cp, cmd, self.width(params)),) for cmd in operands[0]]

    def out_beats(self, params: NttParams, result: Any) -> list[int]:
        return self.pack(params, [c for row in result for c in row])

    def model(self, params: NttParams, *operands: Any) -> Any:
        """The rows STORE commands read (commands.run_commands: the hardware's passes)."""
        cp = self.command_plan(params)
        alg = self.modmul(params)
        return run_commands(cp, functools.partial(alg.model, cp.ntt.residues[0]), operands[0])

    def command_vectors(self, params: NttParams, count: int, seed: int) -> tuple[list[int], list[int], list[int], int]:
        """Programs (random_program), two at least, until they store `count` rows: the i
        payloads, for each the cycles until the next is taken without stalls (bit 32: a
        STORE), the rows, and the commands of the first half of the programs (run without
        stalls)."""
        cp = self.command_plan(params)
        rng, programs = random.Random(seed), list[list[Command]]()
        while sum(cmd.op == STORE for prog in programs for cmd in prog) * cp.ntt.rows < count or len(programs) < 2:
            programs.append(random_program(cp, rng, params.q))
        program = [cmd for prog in programs for cmd in prog]
        gaps = [cp.command_cycles(cmd.op) | (cmd.op == STORE) << 32 | (k == 0) << 33 for prog in programs
                for k, cmd in enumerate(prog)]
        beats = [beat for (beat,) in self.in_beats(params, (program,))]
        calm = sum(len(prog) for prog in programs[:len(programs) // 2])
        return beats, gaps, self.out_beats(params, self.model(params, program)), calm

    # --- hardware ---------------------------------------------------------------------
    def build(self, params: NttParams) -> Any:
        cp = self.command_plan(params)
        alg, streams = self.modmul(params), self.plan(params)
        return hw.NttCommandCore(cp, lambda: alg.datapath(cp.ntt.reduction),
                                 {"i": streams.input_layout, "o": streams.output_layout})

    def formula(self, params: NttParams) -> str:
        complete = "2 n/P + max(0, D + 1 - n/P) + D"
        base = "4 n/P + 2 max(0, D + 1 - n/P) + D"
        return (f"per command: LOAD 1, STORE n/P, NTT and INTT L H + G + D, MUL and MAC "
                f"{base if params.incomplete else complete}; L = log2(n) - incomplete layers, H = n/(2P), "
                f"{self.drain_text(params)}; " + STALLS)

    def congruence(self, params: NttParams) -> str:
        prod = ("FIPS 203's MultiplyNTTs (pairs mod x^2 - psi^(2 bitrev(i)+1))" if params.incomplete
                else "the pointwise product")
        return (f"STORE d gives slot d, each coefficient < q, after the commands before it: NTT as ntt-forward, "
                f"INTT as ntt-inverse, MUL d <- a o b and MAC d <- d + a o b with o {prod}" + self.ring_note(params))

    def tag(self, params: NttParams) -> str:
        assert isinstance(params, CommandParams)
        return super().tag(params) + f"_s{params.slots}"

    def extra_info(self, params: NttParams) -> dict[str, Any]:
        cp = self.command_plan(params)
        ntt, w = cp.ntt, self.width(params)
        return {
            "congruence": self.congruence(params), "q": hex(params.q), "psi": params.psi, "w": w,
            "butterflies": params.pe, "incomplete": params.incomplete, "slots": cp.slots,
            "profile": ({"name": params.profile, "standard": PROFILES[params.profile].standard}
                        if params.profile != "none" else None),
            "reduction": self.modmul(params).name, "reduction_params": dataclasses.asdict(ntt.residues[0]),
            "reduction_scale": hex(ntt.primes[0].F), "mul_depth": ntt.mul_depth, "drain_D": ntt.drain,
            "command_cycles": {name: cp.command_cycles(op) for op, name in enumerate(OPS)},
            "cycles_formula": self.formula(params),
            "twiddle_words": ntt.twiddle_words,
            "coefficient_ram_bits": 2 * cp.regions * params.n * w,
            "banks": f"4 x {cp.regions * params.n // (2 * params.pe)} words of {params.pe * w} bits "
                     f"({cp.slots} slots and 2 temporaries)",
        }

    def grid(self) -> list[dict[str, str]]:
        return [
            {"q": "7681", "n": "16", "pe": "2", "incomplete": "1", "reduction": "barrett", "dsp": "none",
             "slots": "4"},
            {"q": "0x9fc00001", "n": "16", "pe": "4", "reduction": "montgomery-shift", "slots": "4"},
            {"profile": "ml-kem", "pe": "2", "reduction": "k2red-shift"},
            {"profile": "ml-dsa", "pe": "4", "reduction": "montgomery", "slots": "4", "read_register": "0",
             "unit_register": "0"},
            {"profile": "ml-kem", "pe": "1", "reduction": "k2red-shift", "slots": "4"},    # a pair over both banks
        ]
