"""The registered word-serial multipliers for RSA-sized integers: rsa-montgomery, FIOS
Montgomery multiplication t = x*y*R^-1 mod N, R = 2^(w s), with a chain of pe processing
elements (model.py for the maths, plan.py for the schedule and the cycle formulas, hw.py for
the hardware).

The modulus N is any odd integer of at most l bits (composite: an RSA modulus), or a named
prime of math.fields (modulus=p256, 25519, bls12-381, ...; design.json's info names its
curve); l defaults to the modulus' bits rounded up to a multiple of w when a modulus is given.

Streams: a frame is s = l/w beats; input beat j carries x_j (low w bits) and y_j (high w
bits), least significant word first; output beat j carries t_j. The modulus is set at run
time through cfg (sel 0 word 0: N' = -N^-1 mod 2^w; sel 1 word j: N_j), while no frame is in
the core; after reset the core holds the build's `modulus`. fixed=1 keeps the build's modulus
for good (no cfg stream); then, when N = -1 mod 2^w (N' = 1: p256, p384, p521 and 448 at
w <= 32), m = t_0 + x_i y_0 mod 2^w needs no product by N' (the Montgomery-friendly fast path).
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any, ClassVar

from ...errors import ParameterError
from ...hw.dsp import DSP_HELP, DSP_PROFILES, Dsp, dsp_tiles
from ...math import fields
from ...registry import NAMED_PRIME, Algorithm, Computes, Operand, param, register
from . import hw, model as M
from .plan import PE_DELAY, MontgomeryPlan

PAPER = ("Koc, Acar, Kaliski, Analyzing and Comparing Montgomery Multiplication Algorithms, IEEE Micro "
         "16(3), 1996, FIOS")
MIN_L, MAX_L, MIN_W, MAX_W = 8, 8192, 4, 64
DEFAULT_L = 1024     # l's default without a modulus (a default, not a sentinel: the hashes of l=1024 designs stay)


@dataclasses.dataclass(frozen=True)
class MontgomeryParams:
    l: int = param(DEFAULT_L,  # noqa: E741  (the issue's name for the operand bits)
                   help=f"operand bits, {MIN_L}..{MAX_L}, a multiple of w (s = l/w words); 0, and the default when "
                        "a modulus is given: the modulus' bits rounded up to a multiple of w", lo=0)
    w: int = param(0, help=f"word bits, {MIN_W}..{MAX_W} (the w x w products use the DSP tiling); 0: the "
                           "largest power of two one DSP multiplies (16 for dsp48e2, dsp48e1, ecp5; 32 for none)",
                   lo=0, hi=MAX_W)
    pe: int = param(1, help="processing elements, 1..s, dividing s = l/w (each takes one outer iteration a "
                            "round)", lo=1, hi=MAX_L // MIN_W)
    dsp: Dsp = param("dsp48e2", help=DSP_HELP)
    modulus: int = param(0, kind=NAMED_PRIME,
                         help="the modulus N after reset: odd, at most l bits, or a named prime "
                              f"({', '.join(fields.NAMED)}); cfg loads others at run time; 0: a fixed one of l bits",
                         lo=0, hi=(1 << MAX_L) - 1)
    fixed: bool = param(False, help="1: the modulus is the build's for good (no cfg stream, N in a ROM); with "
                                    "N' = -N^-1 mod 2^w = 1 (N = -1 mod 2^w) m takes no product by N'")
    banks: int = param(1, help="x and y RAMs of 1 bank (round 0 runs while the frame loads: the lowest latency, "
                               "the next frame starts when this one's rounds are through the chain) or 2 (the next "
                               "frame loads during the rounds and starts right behind them: II = R T, latency s - 1 "
                               "more)", lo=1, hi=2)


@register
class RsaMontgomery(Algorithm[MontgomeryParams, MontgomeryPlan]):
    """FIOS with words of w bits: the outer loop over x's words spread over pe PEs a round,
    the inner loop one word a cycle through each PE; always forms t - N and selects."""
    name = "rsa-montgomery"
    family = "wordserial"
    title = "word-serial FIOS Montgomery multiplier x*y*2^-l mod N for RSA sizes, pe PEs, N loaded at run time"
    paper = PAPER
    Params: ClassVar[type] = MontgomeryParams
    frames = True
    config_stream = True
    parallelism = "pe"

    # --- parameters -------------------------------------------------------------------
    def parse(self, args: dict[str, Any]) -> MontgomeryParams:
        """As Algorithm.parse; a modulus given without l sets l from its bits (l = 0)."""
        if "modulus" in args and "l" not in args:
            args = {**args, "l": 0}
        return super().parse(args)

    def validate(self, params: MontgomeryParams) -> MontgomeryParams:
        name = self.name
        w = params.w or (32 if DSP_PROFILES[params.dsp] is None else 16)
        if not MIN_W <= w <= MAX_W:
            raise ParameterError(name, "w", f"must be in {MIN_W}..{MAX_W}", w)
        bits = params.l or (max(-(-params.modulus.bit_length() // w), -(-MIN_L // w)) * w if params.modulus
                            else DEFAULT_L)
        if not MIN_L <= bits <= MAX_L:
            raise ParameterError(name, "l", f"must be in {MIN_L}..{MAX_L}", bits)
        if bits % w:
            raise ParameterError(name, "l", f"must be a multiple of w={w}", bits)
        s = bits // w
        if not 1 <= params.pe <= s or s % params.pe:
            raise ParameterError(name, "pe", f"must divide s = l/w = {s} (1 <= pe <= s)", params.pe)
        if params.banks == 2 and s < 2:     # y_0 N' of a one-word frame would come a cycle late
            raise ParameterError(name, "banks", "must be 1 when s = l/w = 1 (two banks need s >= 2 words)",
                                 params.banks)
        modulus = params.modulus or M.default_modulus(bits)
        self.check_modulus(modulus, bits, "modulus")
        return dataclasses.replace(params, l=bits, w=w, modulus=modulus)

    def check_modulus(self, modulus: int, bits: int, argument: str) -> None:
        # N < 2^l = R is all FIOS needs (model.py); N = 1 would make every result 0
        if not 1 < modulus < 1 << bits:
            raise ParameterError(self.name, argument, f"must be in 3..2^l - 1 (at most l={bits} bits)", hex(modulus))
        if not modulus & 1:
            raise ParameterError(self.name, argument, "must be odd (Montgomery needs N coprime to 2^w)",
                                 hex(modulus))

    def friendly(self, params: MontgomeryParams) -> bool:
        """The Montgomery-friendly fast path: a fixed N with N' = 1."""
        return params.fixed and M.n_prime(params.modulus, params.w) == 1

    def derive(self, params: MontgomeryParams) -> MontgomeryPlan:
        return MontgomeryPlan.of(params.l, params.w, params.pe, params.banks)

    def computes(self, params: MontgomeryParams) -> Computes:
        # an RSA modulus is composite: Z_N is a ring (its primality is not tested: l up to 8192);
        # a named prime's is a field
        return Computes("Z_q", params.modulus, is_field=fields.name_of(params.modulus) is not None,
                        defined_by=("modulus",))

    # --- streams ----------------------------------------------------------------------
    def operands(self, params: MontgomeryParams) -> list[Operand]:
        w = params.w
        return [Operand("x", w, f"word j of x ({w} bits), beat j (least significant first)", "x < N"),
                Operand("y", w, f"word j of y ({w} bits), beat j (least significant first)", "y < N")]

    def result_width(self, params: MontgomeryParams) -> int:
        return params.w

    def result(self, params: MontgomeryParams) -> Operand:
        return Operand("t", params.w, f"word j of t ({params.w} bits), beat j (least significant first)", "t < N")

    def in_beats(self, params: MontgomeryParams, operands: tuple[int, ...]) -> list[tuple[int, ...]]:
        x, y = operands
        s = self.derived(params).s
        return list(zip(M.words(x, params.w, s), M.words(y, params.w, s), strict=True))

    def out_beats(self, params: MontgomeryParams, result: int) -> list[int]:
        return M.words(result, params.w, self.derived(params).s)

    # --- the cfg stream: N' and N's words ---------------------------------------------
    def config_width(self, params: MontgomeryParams) -> int:
        return 0 if params.fixed else self.derived(params).cfg_width

    def config_fields(self, params: MontgomeryParams) -> list[Operand]:
        return [] if params.fixed else [Operand("data", params.w, "unsigned binary", "the word's value"),
                Operand("word", self.derived(params).word_bits, "unsigned binary", "the word's index j"),
                Operand("sel", 1, "unsigned binary", "0: N' = -N^-1 mod 2^w (word 0); 1: N's word j")]

    def config_words(self, params: MontgomeryParams, moduli: list[int]) -> list[int]:
        """The cfg payloads that load the one modulus of `moduli` (N' first, then N's words;
        `modforge config rsa-montgomery ... --prime N` prints them)."""
        if params.fixed:
            raise ParameterError(self.name, "fixed", "must be 0 for a cfg stream (fixed=1 keeps the build's modulus)",
                                 ",".join(map(hex, moduli)))
        if len(moduli) != 1:
            raise ParameterError(self.name, "modulus", "must be one modulus to load", ",".join(map(hex, moduli)))
        modulus = moduli[0]
        self.check_modulus(modulus, params.l, "modulus")
        plan, w = self.derived(params), params.w
        return ([M.n_prime(modulus, w)]
                + [v | (j << w) | (1 << (w + plan.word_bits)) for j, v in enumerate(M.words(modulus, w, plan.s))])

    def verified_modulus(self, params: MontgomeryParams) -> int:
        """The modulus the testbench loads: another one of as many bits as the build's (the
        build's would let a core that ignores cfg pass; a named prime of fewer than l bits, as
        25519's 255, has the hardware checked for N < 2^(l-1) too)."""
        other = M.default_modulus(params.modulus.bit_length(), salt=1)
        return (1 << params.l) - 1 if other == params.modulus else other

    def verification_config(self, params: MontgomeryParams) -> tuple[MontgomeryParams, list[int]]:
        if params.fixed:
            return params, []
        other = self.verified_modulus(params)
        return dataclasses.replace(params, modulus=other), self.config_words(params, [other])

    # --- mathematics ------------------------------------------------------------------
    def model(self, params: MontgomeryParams, *operands: int) -> int:
        """x*y*R^-1 mod N (model.montgomery: FIOS word by word, as the hardware)."""
        x, y = operands
        return M.montgomery(x, y, params.modulus, params.w, self.derived(params).s)

    def congruence(self, params: MontgomeryParams) -> str:
        s = self.derived(params).s
        return (f"t = x*y*R^-1 mod N, R = 2^{params.l} (= 2^(w s), w = {params.w}, s = {s}), "
                "0 <= t < N (fully reduced), for 0 <= x, y < N, N odd, 3 <= N < 2^l "
                + ("(the build's, fixed)" if params.fixed else "(loaded through cfg)"))

    def random_operands(self, params: MontgomeryParams, rng: random.Random) -> tuple[int, ...]:
        return rng.randrange(params.modulus), rng.randrange(params.modulus)

    def cases(self, params: MontgomeryParams) -> list[tuple[int, ...]]:
        """0, 1, N-1, small values and their mixes."""
        n = params.modulus
        return [(0, 0), (1, 1), (n - 1, n - 1), (0, n - 1), (1, n - 1), (n - 1, 1), (2, 3), (1, 0),
                (n - 2, n - 1), ((1 << params.w) - 1, (1 << params.w) + 1)]

    # --- formal reference (modforge prove) ----------------------------------------------
    formal = True
    MAX_PROOF_BITS = 8     # l = 16, w = 8 did not end within 15 minutes (300 s of CPU)

    def reference(self, params: MontgomeryParams) -> str:
        """ok: t = x*y*R^-1 mod N for x, y < N, by radix-2^w Montgomery from the definition, one
        step per word of x on whole integers (no inner word loop, no schedule): t_0 = 0,
        m_i = (t_i + x_i y) N' mod 2^w, t_(i+1) = (t_i + x_i y + m_i N) / 2^w, exact since
        N N' = -1 mod 2^w; so t_s 2^l = x y + (sum m_i 2^(w i)) N = x y mod N and t_s < 2N, and
        the result is t_s - N if t_s >= N, else t_s. (A flat x*y*R^-1 mod N by Verilog's % proves
        too, slower; the word steps give the proof internal points it shares with FIOS.) N is
        the build's modulus: the harness leaves cfg idle, and the core holds its reset N."""
        bits, w, s, n = params.l, params.w, self.derived(params).s, params.modulus
        if bits > self.MAX_PROOF_BITS:
            raise ParameterError("prove", "l", f"must be at most {self.MAX_PROOF_BITS} for a bounded proof", bits)
        wide = bits + w + 1                    # t_i + x_i y + m_i N < 2N + 2 (2^w - 1) N < 2^(l+w+1)
        x = ", ".join(f"operands[{2 * w * j + w - 1}:{2 * w * j}]" for j in reversed(range(s)))
        y = ", ".join(f"operands[{2 * w * j + 2 * w - 1}:{2 * w * j + w}]" for j in reversed(range(s)))
        lines = [f"  wire [{bits - 1}:0] x = {{{x}}};", f"  wire [{bits - 1}:0] y = {{{y}}};",
                 f"  wire [{bits}:0] t0 = 0;"]
        for i in range(s):
            lines += [f"  wire [{wide - 1}:0] a{i} = t{i} + x[{w * i + w - 1}:{w * i}] * y;",
                      f"  wire [{w - 1}:0] m{i} = a{i}[{w - 1}:0] * {w}'d{M.n_prime(n, w)};",
                      f"  wire [{wide - 1}:0] b{i} = a{i} + m{i} * {bits}'d{n};",
                      f"  wire [{bits}:0] t{i + 1} = b{i}[{wide - 1}:{w}];"]
        lines += [f"  wire [{bits}:0] expected = t{s} >= {bits + 1}'d{n} ? t{s} - {bits + 1}'d{n} : t{s};",
                  f"  assign ok = result == expected[{bits - 1}:0];",
                  f"  assign in_domain = x < {bits}'d{n} && y < {bits}'d{n};"]
        return "\n".join(lines) + "\n"

    # --- hardware ---------------------------------------------------------------------
    def build(self, params: MontgomeryParams) -> hw.MontgomeryCore:
        streams = self.plan(params)
        return hw.MontgomeryCore(self.derived(params), DSP_PROFILES[params.dsp], params.modulus,
                                 {"i": streams.input_layout, "o": streams.output_layout, "cfg": streams.config_layout},
                                 fixed=params.fixed, friendly=self.friendly(params))

    def tag(self, params: MontgomeryParams) -> str:
        return f"l{params.l}_w{params.w}_pe{params.pe}" + ("_b2" if params.banks == 2 else "")

    def extra_info(self, params: MontgomeryParams) -> dict[str, Any]:
        plan, dsp = self.derived(params), DSP_PROFILES[params.dsp]
        per_product = dsp_tiles(params.w, params.w, *dsp) if dsp else 1
        # the keys of ntt's cfg description (the CLI reads them)
        config = {"width": plan.cfg_width, "words": 1 + plan.s,
                  "payload": f"Cat(data[{params.w}], word[{plan.word_bits}], sel[1]): sel 0 word 0 "
                             "N' = -N^-1 mod 2^w, sel 1 word j N_j (`modforge config ... --prime N` writes them)",
                  "rule": "cfg.ready only while no frame is loading or computing",
                  "verified_moduli": [hex(self.verified_modulus(params))]}
        named = fields.name_of(params.modulus)
        curve = {} if named is None else {"curve": {
            "name": named.name, "curve": named.curve, "formula": named.formula, "cite": named.cite,
            "forms": [str(f) for f in fields.forms(named.q)], "n_prime": hex(M.n_prime(named.q, params.w))}}
        modulus = ({"fixed": True, "montgomery_friendly": self.friendly(params)} if params.fixed
                   else {"config": config})
        return {**curve, "algorithm": "FIOS", "words": plan.s, "rounds": plan.rounds, "round_cycles": plan.round_cycles,
                "pe_delay": PE_DELAY, "dsp_per_product": per_product, **modulus,
                "formula": "cycles = U + s + 2, latency = U + 3, "
                           + ("II = R T, U = (R-1) T + pe D + 2 s + 2" if params.banks == 2
                              else "II = U, U = (R-1) T + pe D + s + 3")
                           + ", R = s/pe, T = max(s+1, pe D + 2), D = 6 (first input beat to last output beat, "
                             "load and read-out included)"}

    def grid(self) -> list[dict[str, str]]:
        return [{"l": "8", "w": "4", "pe": "1", "dsp": "none"},        # the size `modforge prove` reaches
                {"l": "256", "w": "32", "pe": "1"}, {"l": "256", "w": "32", "pe": "4"},
                {"l": "128", "pe": "2", "dsp": "ecp5"}, {"l": "1024", "w": "32", "pe": "16"},
                {"modulus": "25519", "w": "32", "pe": "2"},        # a named prime of l - 1 bits (l = 256)
                {"l": "256", "w": "32", "pe": "1", "banks": "2"}, {"l": "128", "w": "32", "pe": "4", "banks": "2"}]

    def extended_grid(self) -> list[dict[str, str]]:
        return [{"l": "1024", "pe": "16"}, {"l": "2048", "pe": "16"}, {"l": "4096", "w": "32", "pe": "16"},
                {"l": "96", "w": "24", "pe": "1", "dsp": "none"},
                {"modulus": "p521", "w": "32", "pe": "1", "fixed": "1"}, {"modulus": "bls12-381", "pe": "4"},
                {"modulus": "p256", "w": "32", "pe": "2", "fixed": "1", "banks": "2"}]
