"""One interface for every algorithm, and the registry the CLI, the docs and the
conformance test read.

An algorithm is a subclass of `Algorithm`, decorated with `@register`. Its parameters are
a frozen dataclass (`Params`) whose fields carry `help` in their metadata; `parse`
turns `key=value` strings into a validated, canonical instance.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
from typing import Any, ClassVar

from .errors import ParameterError

_REGISTRY: dict[str, "Algorithm"] = {}


def param(default=dataclasses.MISSING, *, help: str):
    """A parameter field with its one-line meaning."""
    return dataclasses.field(default=default, metadata={"help": help})


@dataclasses.dataclass(frozen=True)
class Operand:
    name: str
    width: int  # bits in the hardware payload


class Algorithm:
    """Subclasses set the class attributes and implement the methods below."""

    name: ClassVar[str]  # CLI name, e.g. "gf2n-blakely"
    family: ClassVar[str]  # e.g. "gf2n"
    title: ClassVar[str]  # one line
    paper: ClassVar[str]  # the paper and its algorithm/figure
    Params: ClassVar[type]

    # --- parameters -------------------------------------------------------------------
    def validate(self, params) -> Any:
        """Check every rule; return the canonical params (all derived values explicit)."""
        return params

    def parse(self, args: dict[str, str]):
        """`key=value` strings -> validated canonical params. Raises ParameterError."""
        fields = {f.name: f for f in dataclasses.fields(self.Params)}
        values: dict[str, Any] = {}
        for key, text in args.items():
            if key not in fields:
                raise ParameterError(self.name, key, f"is not a parameter (known: {', '.join(fields)})", text)
            f = fields[key]
            kind = f.type if isinstance(f.type, type) else {"int": int, "str": str}.get(str(f.type), str)
            if kind is int:
                try:
                    values[key] = int(str(text), 0)
                except ValueError:
                    raise ParameterError(self.name, key, "must be an integer", text) from None
            else:
                values[key] = str(text)
        for f in fields.values():
            if f.name not in values and f.default is dataclasses.MISSING:
                raise ParameterError(self.name, f.name, "is required", "<missing>")
        return self.validate(self.Params(**values))

    def param_help(self) -> list[tuple[str, str, Any]]:
        return [(f.name, f.metadata.get("help", ""),
                 None if f.default is dataclasses.MISSING else f.default)
                for f in dataclasses.fields(self.Params)]

    # --- mathematics ------------------------------------------------------------------
    def operands(self, params) -> list[Operand]:
        raise NotImplementedError

    def result_width(self, params) -> int:
        raise NotImplementedError

    def model(self, params, *operands: int) -> int:
        """Bit-exact result as the hardware payload encodes it."""
        raise NotImplementedError

    def congruence(self, params) -> str:
        """The output congruence in words, e.g. 'C = A*B*t^-82 mod F'."""
        raise NotImplementedError

    def random_operands(self, params, rng: random.Random) -> tuple[int, ...]:
        raise NotImplementedError

    def cases(self, params) -> list[tuple[int, ...]]:
        """Corner operand sets (0, 1, all-ones, the modulus' special values)."""
        return []

    # --- frames: an operand set that streams as several beats (a polynomial) ------------
    def frame_beats(self, params) -> int:
        """Beats per operand set, on the input and on the output alike; 1 for a multiplier.
        With more, `operands` and `result_width` describe one beat, and `in_beats` and
        `out_beats` split an operand set and its model result into beats."""
        return 1

    def in_beats(self, params, operands: tuple) -> list[tuple[int, ...]]:
        return [tuple(operands)]

    def out_beats(self, params, result) -> list[int]:
        return [result]

    # --- hardware ---------------------------------------------------------------------
    def build(self, params):
        """An amaranth IterativeCore-like component with .latency, .initiation_interval."""
        raise NotImplementedError

    # --- a run-time configuration stream (cfg), written before operands ---------------------
    def config_width(self, params) -> int:
        """Bits of a cfg stream's payload; 0: the design has none."""
        return 0

    def verification_config(self, params) -> tuple[Any, list[int]]:
        """The parameters the test vectors follow and the cfg payloads the testbench writes
        before its first operand (a design with a cfg stream loads something other than what
        it was generated with, so the check sees the load take effect)."""
        return params, []

    def cycles(self, params) -> int:
        """Clock cycles of one multiplication as the algorithm's formula states it."""
        raise NotImplementedError

    def latency(self, params) -> int:
        """Cycles from the input handshake to o.valid (of each beat, in a frame without
        stalls). An iterative core loads, then steps."""
        return self.cycles(params) + 1

    def initiation_interval(self, params) -> int:
        """Cycles between operand sets (first beats of frames) when nothing stalls."""
        return self.cycles(params) + 1

    def tag(self, params) -> str:
        """The readable part of the module name, e.g. 'n163' or 'p2_m163_d16'."""
        raise NotImplementedError

    def module_name(self, params) -> str:
        """Deterministic: mf_<algorithm>_<tag>_<first 8 hex digits of the parameter hash>."""
        return f"mf_{self.name.replace('-', '_')}_{self.tag(params)}_{param_hash(self, params)[:8]}"

    def grid(self) -> list[dict[str, str]]:
        """A small set of configurations the conformance test runs."""
        return []

    def extra_info(self, params) -> dict[str, Any]:
        """Facts worth reporting (e.g. reduction operand counts)."""
        return {}


def canonical(params) -> dict:
    return dataclasses.asdict(params)


def param_hash(algorithm: Algorithm, params) -> str:
    """sha256 of the algorithm name and its canonical parameters: the key of a design.
    Fields at their default are left out, so a parameter added later (with a default that
    keeps the old behaviour) keeps the keys, module names and stored results of old designs."""
    keyed = {f.name: getattr(params, f.name) for f in dataclasses.fields(params)
             if f.default is dataclasses.MISSING or getattr(params, f.name) != f.default}
    text = json.dumps({"algorithm": algorithm.name, "params": keyed}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def register(cls):
    inst = cls()
    if inst.name in _REGISTRY:
        raise RuntimeError(f"algorithm {inst.name} registered twice")
    _REGISTRY[inst.name] = inst
    return cls


def _load_families():
    from .families import digitserial, gf2n, modmul, ntt  # noqa: F401  (registers their algorithms)


def all_algorithms() -> list[Algorithm]:
    _load_families()
    return sorted(_REGISTRY.values(), key=lambda a: (a.family, a.name))


def lookup(name: str) -> Algorithm:
    _load_families()
    if name not in _REGISTRY:
        raise ParameterError("modforge", "algorithm", f"must be one of {', '.join(sorted(_REGISTRY))}", name)
    return _REGISTRY[name]
