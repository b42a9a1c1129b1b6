"""One contract for every algorithm, and the registry the CLI, the docs, the store and the
conformance test read.

An algorithm is a subclass of `Algorithm` decorated with `@register`. It must implement the
abstract core below (what it takes, what it computes, the model, the hardware, the cycle
claim); everything else has a default, and its optional capabilities are class data
(`frames`, `config_stream`). Its parameters are a frozen dataclass (`Params`) whose fields
are made with `param`: the field's type drives parsing, `--help` and the errors (int, bool,
str, Fraction, Literal choices, tuple[int, ...] lists, `| None` for a key that may be left
out, and the kinds POW2, POLYNOMIAL and NAMED_PRIME), and its bounds (lo, hi, bits) are
checked before `validate`. `parse_params` is the one parser: the CLI's own verbs (poly, primes, rsa) declare
their arguments the same way.

The registry stands below the families: it finds them by the names `modforge.families`
lists (one line a family) and by the `modforge.families` entry-point group, and imports
none of them by name.
"""

from __future__ import annotations

import abc
import dataclasses
import functools
import hashlib
import importlib
import json
import math
import random
import re
import types
import typing
from fractions import Fraction
from importlib import metadata
from typing import Any, ClassVar, Generic, Literal, Protocol, TypeVar

from amaranth.hdl import ShapeLike, unsigned
from amaranth.lib import data

from .errors import NotKeyValue, ParameterError
from .math import fields

_REGISTRY: dict[str, Algorithm] = {}

POW2 = "power of two"
POLYNOMIAL = "polynomial"
#: an int that may also be given by a prime's name (math.fields.NAMED: p256, 25519, bls12-381, ...)
NAMED_PRIME = "integer or prime name"


def param(default: Any = dataclasses.MISSING, *, help: str, kind: str | None = None,
          lo: int | None = None, hi: int | None = None, bits: tuple[int, int] | None = None) -> Any:
    """A parameter field with its one-line meaning; kind: POW2 or POLYNOMIAL refine an int or
    str, NAMED_PRIME lets an int be given by a name of math.fields.NAMED; lo, hi: the bounds
    of an int (each item of an integer list), bits: the bounds of its bit length (a modulus),
    stated in `--help` and `modforge list` and checked while parsing, before `validate` (and
    any search it runs)."""
    return dataclasses.field(default=default, metadata={"help": help, "kind": kind, "lo": lo, "hi": hi,
                                                        "bits": bits})


@dataclasses.dataclass(frozen=True)
class Operand:
    """One operand (or the result, or a cfg field) as it sits in the stream payload: `width`
    bits in `encoding` (binary, gf2-poly, gfp-digits, montgomery, ...), within `domain` (the
    range the design assumes, e.g. "< q"); `lanes` equal lanes of width // lanes bits, lane 0
    lowest, or `parts`, fields of its own low bits first (lanes of coefficients beside a flag
    bit). Its bit offset is its field's in the plan's layout (`layout`)."""
    name: str
    width: int
    encoding: str = "binary"
    domain: str = ""
    lanes: int = 1
    parts: tuple[Operand, ...] = ()

    def __post_init__(self) -> None:
        if self.lanes < 1 or self.width % self.lanes:
            raise RuntimeError(f"operand {self.name}: {self.width} bits are not {self.lanes} equal lanes")
        if self.parts and (self.lanes != 1 or sum(p.width for p in self.parts) != self.width):
            raise RuntimeError(f"operand {self.name}: its parts are not its {self.width} bits (or it has lanes)")

    @property
    def lane_width(self) -> int:
        return self.width // self.lanes

    @property
    def shape(self) -> ShapeLike:
        """unsigned(width), an ArrayLayout of `lanes` lanes (lane 0 in the low bits), or the
        StructLayout of its parts."""
        if self.parts:
            return layout(self.parts)
        if self.lanes == 1:
            return unsigned(self.width)
        return data.ArrayLayout(unsigned(self.lane_width), self.lanes)


def layout(fields: typing.Iterable[Operand]) -> data.StructLayout:
    """The fields packed low to high in declared order: the stream signature's payload, the
    names the hardware reads, design.json's bit map and the vector packer's offsets."""
    return data.StructLayout({f.name: f.shape for f in fields})


@dataclasses.dataclass(frozen=True)
class Computes:
    """What a design computes, as data the store, report, `best` and plots read.

    structure  "GF(p^m)": GF(p)[x]/(f) (a field when f is irreducible, else a ring);
               "Z_q": the integers mod q; "Z_q[x]/(f)": polynomials over Z_q mod f
    p          the characteristic of GF(p^m), or q for Z_q and Z_q[x]/(f)
    degree     m of GF(p^m), n of Z_q[x]/(f); 1 for Z_q
    polynomial f, canonical (empty for Z_q)
    is_field   False for a ring (a reducible f, Z_q with q composite, Z_q[x]/(f))
    defined_by the parameters that fix the structure (a report's configuration leaves them out)
    """
    structure: Literal["GF(p^m)", "Z_q", "Z_q[x]/(f)"]
    p: int
    degree: int = 1
    polynomial: str = ""
    is_field: bool = True
    defined_by: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """The name results are grouped by: GF(2^163), GF(2)[x]/(x^163+x^82+1) (a ring: f is
        reducible), Z_q 32b, Z_q[x]/(x^256+1)."""
        if self.structure == "GF(p^m)":
            return f"GF({self.p}^{self.degree})" if self.is_field else f"GF({self.p})[x]/({self.polynomial})"
        if self.structure == "Z_q":
            return f"Z_q {self.p.bit_length()}b"
        return f"Z_q[x]/({self.polynomial})"

    @property
    def modulus(self) -> str:
        """The defining polynomial of GF(p^m), else q (decimal)."""
        return self.polynomial if self.structure == "GF(p^m)" else str(self.p)

    def record(self) -> dict:
        return dataclasses.asdict(self) | {"label": self.label, "modulus": self.modulus}


class Schedule(Protocol):
    """The timing a design claims, stated once, by the family's derived plan (`derive`): the
    Algorithm forwards these figures (cycles, latency, initiation_interval, frame_beats,
    result_beats) to the Plan, design.json, the header and the testbench's checks."""

    @property
    def cycles(self) -> int:
        """Clock cycles of one multiplication as the algorithm's formula states it."""

    @property
    def latency(self) -> int:
        """Cycles from the input handshake to o.valid (of each beat, in a frame without stalls)."""

    @property
    def initiation_interval(self) -> int:
        """Cycles between operand sets (first beats of frames) when nothing stalls."""

    @property
    def frame_beats(self) -> int:
        """Beats per operand set (1 unless the algorithm declares `frames`)."""

    @property
    def result_beats(self) -> int:
        """Beats of one result: frame_beats, or fewer for a design whose result sums several
        products (it leaves with the operand set's last result_beats beats)."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class Timing:
    """A Schedule as plain numbers, for a family whose derived plan is a dataclass: inherit it
    (its fields are keyword-only, so the plan's own fields come first) or return one. An
    iterative core's latency and initiation interval are its step cycles + 1 (it loads, then
    steps); result_beats 0 means frame_beats."""
    cycles: int
    latency: int
    initiation_interval: int
    frame_beats: int = 1
    result_beats: int = 0

    def __post_init__(self) -> None:
        if not self.result_beats:
            object.__setattr__(self, "result_beats", self.frame_beats)

    @classmethod
    def iterative(cls, steps: int) -> Timing:
        """The timing of an IterativeCore of `steps` step cycles."""
        return cls(cycles=steps, latency=steps + 1, initiation_interval=steps + 1)


P = TypeVar("P")                          # a family's frozen parameter dataclass
D = TypeVar("D", bound=Schedule)          # a family's derived plan


@dataclasses.dataclass(frozen=True)
class Plan(Generic[P, D]):
    """Everything derived from one validated configuration, computed once (Algorithm.plan):
    the model's vectors, the design, design.json, the header and the testbench read it.
    `derived` is the family's own derived plan (Algorithm.derive: widths, stages, tiling,
    schedules, memory sizes), which states the timing (Schedule)."""
    algorithm: str
    params: P
    operands: tuple[Operand, ...]       # one input beat, low bits first
    result: Operand                     # one output beat
    config_fields: tuple[Operand, ...]  # one cfg word (config_stream), low bits first
    congruence: str
    computes: Computes
    module: str
    info: dict[str, Any]
    derived: D
    input_layout: data.StructLayout     # layout(operands): the i payload, field offsets
    output_layout: data.StructLayout    # the o payload: the result's one field
    config_layout: data.StructLayout    # the cfg payload (no fields: no cfg stream)

    @property
    def cycles(self) -> int:
        return self.derived.cycles

    @property
    def latency(self) -> int:
        return self.derived.latency

    @property
    def initiation_interval(self) -> int:
        return self.derived.initiation_interval

    @property
    def frame_beats(self) -> int:
        return self.derived.frame_beats

    @property
    def result_beats(self) -> int:
        return self.derived.result_beats

    @property
    def input_width(self) -> int:
        return self.input_layout.size

    @property
    def output_width(self) -> int:
        return self.output_layout.size

    @property
    def config_width(self) -> int:
        return self.config_layout.size

    def layouts(self) -> dict[str, tuple[data.StructLayout, tuple[Operand, ...]]]:
        """Each stream's payload layout and its fields: i, o, and cfg when there is one."""
        out = {"i": (self.input_layout, self.operands), "o": (self.output_layout, (self.result,))}
        return out | ({"cfg": (self.config_layout, self.config_fields)} if self.config_fields else {})


class Algorithm(abc.ABC, Generic[P, D]):
    """The contract, generic over the family's parameter class P and its derived plan D (a
    Schedule). Class data: name (CLI), family, title, paper, Params (P); capabilities
    `frames` (an operand set streams as several beats: in_beats, out_beats; the plan's
    frame_beats and result_beats) and `config_stream` (a cfg stream: config_width,
    verification_config, config_fields, config_words) and `formal` (a reference relation
    `modforge prove` checks the core against: reference) and `commands` (i carries commands
    on state the core keeps: command_vectors, and a testbench of its own); `uses`, the families whose
    algorithms it composes through `lookup` (a stored result follows their code too);
    `parallelism`, the parameter that sets how many coefficients a cycle handles (the digit
    size D, the parallelism M: the x axis of the report's throughput plots).

    The timing (cycles, latency, initiation interval, beats) is the derived plan's: the
    family states it once, in `derive`, and the methods below forward it."""

    name: ClassVar[str]  # CLI name, e.g. "gf2n-blakely"
    family: ClassVar[str]  # e.g. "gf2n"
    title: ClassVar[str]  # one line
    paper: ClassVar[str]  # the paper and its algorithm/figure
    Params: ClassVar[type]  # P (a class variable cannot name the type variable)
    frames: ClassVar[bool] = False
    config_stream: ClassVar[bool] = False
    formal: ClassVar[bool] = False
    commands: ClassVar[bool] = False         # i carries commands (command_vectors, its own testbench)
    uses: ClassVar[tuple[str, ...]] = ()
    parallelism: ClassVar[str | None] = None   # the parameter that sets the coefficients a cycle (D, M)

    # --- required core ----------------------------------------------------------------
    @abc.abstractmethod
    def derive(self, params: P) -> D:
        """The family's derived plan of canonical params: every derived quantity the model,
        the hardware and design.json read, and the timing (Schedule). Cached by `derived`."""

    @abc.abstractmethod
    def operands(self, params: P) -> list[Operand]:
        """The operands of one beat, low bits of the payload first."""

    @abc.abstractmethod
    def result_width(self, params: P) -> int:
        """Bits of one result beat."""

    @abc.abstractmethod
    def computes(self, params: P) -> Computes:
        """The field, ring or modulus the design computes in."""

    @abc.abstractmethod
    def congruence(self, params: P) -> str:
        """The output congruence in words, e.g. 'C = A*B*t^-82 mod F'."""

    @abc.abstractmethod
    def model(self, params: P, *operands: int) -> Any:
        """Bit-exact result as the hardware payload encodes it."""

    @abc.abstractmethod
    def random_operands(self, params: P, rng: random.Random) -> tuple[int, ...]:
        """One random operand set in the model's domain."""

    @abc.abstractmethod
    def build(self, params: P) -> Any:
        """The Amaranth component (streams i, o[, cfg]) with .latency and .initiation_interval."""

    @abc.abstractmethod
    def tag(self, params: P) -> str:
        """The readable part of the module name, e.g. 'n163' or 'p2_m163_d16'."""

    # --- the derived plan -------------------------------------------------------------
    def derived(self, params: P) -> D:
        """derive(params), once per canonical params (the algorithms are registered
        singletons that live as long as the process)."""
        cache: dict[Any, D] = self.__dict__.setdefault("_derived", {})
        if params not in cache:
            cache[params] = self.derive(params)
        return cache[params]

    def plan(self, params: P) -> Plan[P, D]:
        """The Plan of canonical params (see `parse`), computed once."""
        cache: dict[Any, Plan[P, D]] = self.__dict__.setdefault("_plans", {})
        if params not in cache:
            config = self.config_fields(params)
            if sum(f.width for f in config) != self.config_width(params):
                raise RuntimeError(f"{self.name}: the cfg fields do not fill config_width")
            derived = self.derived(params)
            if derived.frame_beats != 1 and not self.frames:
                raise RuntimeError(f"{self.name}: a frame of {derived.frame_beats} beats needs frames = True")
            operands, result = tuple(self.operands(params)), self.result(params)
            cache[params] = Plan(self.name, params, operands, result, tuple(config),
                                 self.congruence(params), self.computes(params), self.module_name(params),
                                 self.extra_info(params), derived, layout(operands), layout([result]), layout(config))
        return cache[params]

    # --- the timing: the derived plan's ---------------------------------------------------
    def cycles(self, params: P) -> int:
        """Clock cycles of one multiplication as the algorithm's formula states it."""
        return self.derived(params).cycles

    def latency(self, params: P) -> int:
        """Cycles from the input handshake to o.valid (of each beat, in a frame without stalls)."""
        return self.derived(params).latency

    def initiation_interval(self, params: P) -> int:
        """Cycles between operand sets (first beats of frames) when nothing stalls."""
        return self.derived(params).initiation_interval

    def frame_beats(self, params: P) -> int:
        """Beats per operand set, on the input and on the output alike."""
        return self.derived(params).frame_beats

    def result_beats(self, params: P) -> int:
        """Beats of one result (see Schedule.result_beats)."""
        return self.derived(params).result_beats

    # --- parameters -------------------------------------------------------------------
    def validate(self, params: P) -> P:
        """Check every rule; return the canonical params (all derived values explicit)."""
        return params

    def parse(self, args: dict[str, Any]) -> P:
        """`key=value` strings (or values of the field's type) -> validated canonical
        params. Raises ParameterError."""
        params: P = parse_params(self.name, self.Params, args)
        return self.validate(params)

    def param_help(self) -> list[tuple[str, str, Any]]:
        """(name, help with the type, default or None) of every parameter."""
        return [(s.name, f"{s.help} [{s.type_text}]", None if s.required else _plain(s.default))
                for s in param_specs(self.Params).values()]

    # --- optional, with defaults --------------------------------------------------------
    def cases(self, params: P) -> list[tuple[int, ...]]:
        """Corner operand sets (0, 1, all-ones, the modulus' special values)."""
        return []

    def in_beats(self, params: P, operands: tuple[int, ...]) -> list[tuple[int, ...]]:
        """(frames only) The input beats of one operand set."""
        return [tuple(operands)]

    def out_beats(self, params: P, result: Any) -> list[int]:
        """(frames only) The output beats of one model result."""
        return [result]

    def config_width(self, params: P) -> int:
        """Bits of the cfg stream's payload (config_stream only; 0: no stream)."""
        return 0

    def verification_config(self, params: P) -> tuple[P, list[int]]:
        """The parameters the test vectors follow and the cfg payloads the testbench writes
        before its first operand (a design with a cfg stream loads something other than what
        it was generated with, so the check sees the load take effect)."""
        return params, []

    def config_fields(self, params: P) -> list[Operand]:
        """The fields of a cfg payload, low bits first (config_stream only)."""
        width = self.config_width(params)
        return [Operand("word", width)] if width else []

    def config_words(self, params: P, moduli: list[int]) -> list[int]:
        """(config_stream only) The cfg payloads that load the run-time moduli `moduli` (RSA:
        one modulus; NTT: a prime per residue slot) into a core of `params`: what `modforge
        config` prints. Raises ParameterError naming the parameter that gives the core its cfg
        stream when `params` leave it out, and for moduli the core cannot take."""
        raise ParameterError(self.name, "config", "is not available: the algorithm has no cfg stream",
                             ",".join(map(hex, moduli)))

    def command_vectors(self, params: P, count: int, seed: int) -> tuple[list[int], list[int], list[int], int]:
        """(commands only) Commands that store `count` result beats at least: the i payloads,
        per command its cycles until the next is taken without stalls (bit 32 set: it stores
        result beats; bit 33: it starts a program, whose results do not depend on the commands
        before it: the testbench runs it again after a reset), the result beats, and how many
        commands lead without stalls."""
        raise NotImplementedError

    def reference(self, params: P) -> str:
        """(formal only) The Verilog body of `mf_reference(operands, result, ok, in_domain)`: ok
        when `result` (the result beats, beat 0 lowest) is right for `operands` (the input beats),
        in_domain when the operands lie in the design's domain; written independently of the
        core (`modforge prove` checks the core against it). Raises ParameterError, naming the
        limit, for sizes a bounded proof cannot reach."""
        raise NotImplementedError

    def result(self, params: P) -> Operand:
        """The result beat in the output payload (name, encoding, range)."""
        return Operand("c", self.result_width(params))

    def module_name(self, params: P) -> str:
        """Deterministic: mf_<algorithm>_<tag>_<first 8 hex digits of the parameter hash>."""
        return f"mf_{self.name.replace('-', '_')}_{self.tag(params)}_{param_hash(self, params)[:8]}"

    def grid(self) -> list[dict[str, str]]:
        """A small set of configurations the conformance test runs."""
        return []

    def extended_grid(self) -> list[dict[str, str]]:
        """Larger configurations the extended suite (`pytest -m slow`) runs as well."""
        return []

    def extra_info(self, params: P) -> dict[str, Any]:
        """Facts worth reporting (e.g. reduction operand counts)."""
        return {}


# --- typed parameters -------------------------------------------------------------------
def bound_text(value: int) -> str:
    """A bound as it reads best: 2^k, 2^k-1 for the large ones near a power of two."""
    if value > 1 << 16 and value & (value - 1) == 0:
        return f"2^{value.bit_length() - 1}"
    if value > 1 << 16 and (value + 1) & value == 0:
        return f"2^{value.bit_length()}-1"
    return str(value)


@dataclasses.dataclass(frozen=True)
class ParamSpec:
    """One parameter: its Python type (int, bool, str, Fraction, Literal[...], tuple[int, ...],
    each optionally `| None`: not given), kind (POW2, POLYNOMIAL, NAMED_PRIME or None), default, help and
    the bounds lo, hi of an int."""
    name: str
    type: Any
    kind: str | None
    default: Any
    help: str
    lo: int | None = None
    hi: int | None = None
    bits: tuple[int, int] | None = None

    @property
    def required(self) -> bool:
        return self.default is dataclasses.MISSING

    @property
    def base(self) -> Any:
        """The type without `| None`."""
        if typing.get_origin(self.type) in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(self.type) if a is not type(None)]
            return args[0] if len(args) == 1 else self.type
        return self.type

    @property
    def choices(self) -> tuple | None:
        return typing.get_args(self.base) if typing.get_origin(self.base) is Literal else None

    @property
    def bounds_text(self) -> str:
        """'in 16..65536', 'at least 2', 'at most 64', 'of 8..128 bits' or ''."""
        if self.bits is not None:
            low, high = self.bits
            return f"of {low}..{high} bits" if low > 1 else f"of at most {high} bits"
        if self.kind == POLYNOMIAL:
            return f"of degree at most {self.hi}" if self.hi is not None else ""
        if self.lo is not None and self.hi is not None:
            return f"in {bound_text(self.lo)}..{bound_text(self.hi)}"
        if self.lo is not None:
            return f"at least {bound_text(self.lo)}"
        return f"at most {bound_text(self.hi)}" if self.hi is not None else ""

    @property
    def type_text(self) -> str:
        if self.choices is not None:
            names = [str(c) for c in self.choices]
            return " or ".join(names) if len(names) == 2 else "one of " + ", ".join(names)
        if self.base is bool:
            return "bool: 0 or 1"
        if self.base is Fraction:
            return "a fraction such as 1/2, or an integer"
        bounds = f" {self.bounds_text}" if self.bounds_text else ""
        if typing.get_origin(self.base) is tuple:
            return "comma-separated integers" + (f", each {self.bounds_text}" if bounds else "")
        if self.kind:
            return self.kind + bounds
        return getattr(self.base, "__name__", str(self.base)) + bounds

    def convert(self, algorithm: str, value: Any) -> Any:
        """A command-line string (or a value already of the type) -> the field's value, its
        bounds checked."""
        text = str(value).strip()
        base = self.base
        if self.choices is not None:
            for c in self.choices:
                if text == str(c):
                    return c
            raise ParameterError(algorithm, self.name, f"must be {self.type_text}", text)
        if base is bool:
            if isinstance(value, bool) or value in (0, 1):
                return bool(value)
            if text.lower() in ("1", "true", "yes", "on"):
                return True
            if text.lower() in ("0", "false", "no", "off"):
                return False
            raise ParameterError(algorithm, self.name, "must be 0 or 1 (a bool)", text)
        if base is float:
            try:
                number = float(text)
            except ValueError:
                raise ParameterError(algorithm, self.name, "must be a number", text) from None
            if not math.isfinite(number) or (self.lo is not None and number < self.lo) \
                    or (self.hi is not None and number > self.hi):
                raise ParameterError(algorithm, self.name, f"must be a number {self.bounds_text}".rstrip(), text)
            return number
        if base is Fraction:
            try:
                return Fraction(text)
            except (ValueError, ZeroDivisionError):
                raise ParameterError(algorithm, self.name, f"must be {self.type_text}", text) from None
        if typing.get_origin(base) is tuple:
            items = value if isinstance(value, (list, tuple)) else [x for x in text.split(",") if x.strip()]
            try:
                numbers = tuple(int(str(x).strip(), 0) for x in items)
            except ValueError:
                raise ParameterError(algorithm, self.name, "must be comma-separated integers", text) from None
            for number in numbers:
                self.check_bounds(algorithm, number, f"must hold integers {self.bounds_text}")
            return numbers
        if base is int:
            if isinstance(value, bool):
                raise ParameterError(algorithm, self.name, f"must be an integer ({self.type_text})", text)
            if self.kind == NAMED_PRIME and not isinstance(value, int):
                value = fields.resolve(text, algorithm, self.name)   # a name first: 25519 is Curve25519's
            try:
                number = value if isinstance(value, int) else int(text, 0)
            except ValueError:
                raise ParameterError(algorithm, self.name, f"must be an integer ({self.type_text})", text) from None
            rule = f"must be a {self.type_text}" if self.kind == POW2 else f"must be {self.bounds_text}"
            if self.kind == POW2 and (number < 1 or number & (number - 1)):
                raise ParameterError(algorithm, self.name, rule, number)
            self.check_bounds(algorithm, number, rule)
            return number
        if self.kind == POLYNOMIAL and self.hi is not None:
            # before anything parses it: x^100000000 would be a list of 10^8 coefficients
            degree = max((int(e) for e in re.findall(r"\^\s*(\d+)", text)), default=0)
            if degree > self.hi:
                raise ParameterError(algorithm, self.name, f"must have degree at most {self.hi}", text)
        return text

    def check_bounds(self, algorithm: str, number: int, rule: str) -> None:
        shown = hex(number) if number.bit_length() > 64 else number
        if (self.lo is not None and number < self.lo) or (self.hi is not None and number > self.hi):
            raise ParameterError(algorithm, self.name, rule, shown)
        if self.bits is not None:
            low, high = self.bits
            if number < 0:
                raise ParameterError(algorithm, self.name, "must be an integer >= 0", shown)
            if number.bit_length() > high:
                raise ParameterError(algorithm, self.name, f"must be at most {high} bits wide", shown)
            if 0 < number.bit_length() < low:     # 0: the default a field may keep for 'derive it'
                raise ParameterError(algorithm, self.name, f"must be at least {low} bits wide (>= 2^{low - 1})",
                                     shown)


@functools.cache
def param_specs(params_class: type) -> dict[str, ParamSpec]:
    hints = typing.get_type_hints(params_class)
    return {f.name: ParamSpec(f.name, hints[f.name], f.metadata.get("kind"), f.default, f.metadata.get("help", ""),
                              f.metadata.get("lo"), f.metadata.get("hi"), f.metadata.get("bits"))
            for f in dataclasses.fields(params_class)}


def key_values(owner: str, items: list[str] | None, keys: list[str], required: tuple[str, ...] = ()) -> dict[str, str]:
    """Command-line KEY=VALUE items -> a dict. An item that is not one is named as typed, with
    what was expected: the key it was probably meant for (the first of `required`, then of
    `keys`, not given). `keys` names the keys for that message (any key is taken)."""
    out: dict[str, str] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            given = {i.partition("=")[0] for i in items or [] if "=" in i}
            missing = [k for k in (*required, *keys) if k not in given]
            raise NotKeyValue(owner, item, keys, missing)
        if key in out:
            raise ParameterError(owner, key, "is given twice", value)
        out[key] = value
    return out


def parse_params(owner: str, params_class: type, args: dict[str, Any]) -> Any:
    """`key=value` strings (or values of the field's type) -> a `params_class`, every value
    converted and checked against its bounds: the one parser of the algorithms' parameters and
    of the CLI's verbs. `owner` (an algorithm or a command) names the errors."""
    specs = param_specs(params_class)
    values: dict[str, Any] = {}
    for key, value in args.items():
        if key not in specs:
            raise ParameterError(owner, key, f"is not a parameter (known: {', '.join(specs)})", value)
        values[key] = specs[key].convert(owner, value)
    for spec in specs.values():
        if spec.name not in values and spec.required:
            raise ParameterError(owner, spec.name, f"is required ({spec.type_text})", "<missing>")
    return params_class(**values)


def canonical(params: Any) -> dict:
    return dataclasses.asdict(params)


def _plain(value: Any) -> Any:
    """Hash form of a value: bools as 0/1 and tuples as lists, so typing a field does not
    change the keys of designs made before."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def param_hash(algorithm: Algorithm, params: Any) -> str:
    """sha256 of the algorithm name and its canonical parameters: the key of a design.
    Fields at their default are left out, so a parameter added later (with a default that
    keeps the old behaviour) keeps the keys, module names and stored results of old designs."""
    keyed = {f.name: _plain(getattr(params, f.name)) for f in dataclasses.fields(params)
             if f.default is dataclasses.MISSING or getattr(params, f.name) != f.default}
    text = json.dumps({"algorithm": algorithm.name, "params": keyed}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


# --- the registry -----------------------------------------------------------------------
CAPABILITIES = {"frames": ("in_beats", "out_beats"),
                "config_stream": ("config_width", "verification_config", "config_fields", "config_words"),
                "formal": ("reference",), "commands": ("command_vectors",)}
#: what a declared capability must implement (the rest have defaults that fit)
REQUIRED = {"config_stream": ("config_width", "config_words"), "formal": ("reference",),
            "commands": ("command_vectors",)}
#: the timing is the derived plan's (Schedule): an algorithm states it there, once
FORWARDED = ("cycles", "latency", "initiation_interval", "frame_beats", "result_beats", "derived", "plan")

A = TypeVar("A", bound=type[Algorithm[Any, Any]])


def register(cls: A) -> A:
    """Class decorator: add an algorithm (all of the abstract core implemented, every
    capability it uses declared, the timing left to its derived plan) to the registry."""
    overridden = [m for m in FORWARDED if getattr(cls, m) is not getattr(Algorithm, m)]
    if overridden:
        raise TypeError(f"{cls.__name__} overrides {', '.join(overridden)}: state the timing in derive()'s plan")
    for capability, methods in CAPABILITIES.items():
        used = [m for m in methods if getattr(cls, m) is not getattr(Algorithm, m)]
        if used and not getattr(cls, capability):
            raise TypeError(f"{cls.__name__} implements {', '.join(used)}: declare {capability} = True")
        missing = [m for m in REQUIRED.get(capability, ()) if getattr(cls, m) is getattr(Algorithm, m)]
        if getattr(cls, capability) and missing:
            raise TypeError(f"{cls.__name__} declares {capability}: implement {', '.join(missing)}")
    inst = cls()
    if inst.name in _REGISTRY:
        raise RuntimeError(f"algorithm {inst.name} registered twice")
    _REGISTRY[inst.name] = inst
    return cls


@functools.cache
def _load_families() -> None:
    """Import each family package (importing one registers its algorithms): the ones
    `modforge.families.FAMILIES` names, then those of installed plug-ins."""
    families = importlib.import_module("modforge.families")
    for name in families.FAMILIES:
        importlib.import_module(f"modforge.families.{name}")
    for entry in metadata.entry_points(group="modforge.families"):
        entry.load()


def all_algorithms() -> list[Algorithm]:
    _load_families()
    return sorted(_REGISTRY.values(), key=lambda a: (a.family, a.name))


def lookup(name: str) -> Algorithm:
    _load_families()
    if name not in _REGISTRY:
        raise ParameterError("modforge", "algorithm", f"must be one of {', '.join(sorted(_REGISTRY))}", name)
    return _REGISTRY[name]


def describe(algorithm: str, params: dict) -> Computes | None:
    """What a stored design computes, from its algorithm and canonical parameters; None for
    an algorithm not registered here or parameters it no longer takes."""
    try:
        alg = lookup(algorithm)
        return alg.computes(alg.parse(params))
    except ParameterError:
        return None
