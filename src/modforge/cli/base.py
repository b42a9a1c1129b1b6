"""The app, its verb groups and the one parser of KEY=VALUE arguments: an algorithm's Params
and a verb's own arguments are frozen dataclasses of `registry.param` fields, parsed by
`registry.parse_params` (types, choices, bounds), so every verb reads and rejects input alike."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import typer

from .. import registry
from ..errors import ParameterError
from ..families import FAMILIES
from ..registry import Algorithm, lookup, param_specs, parse_params
from .render import err_console

# plain help (rich_markup_mode=None): each option with its real type, choices and default, and
# flags without a type placeholder; it reads the same on a terminal, in a pipe and in a file
app = typer.Typer(add_completion=False, rich_markup_mode=None, no_args_is_help=True,
                  help="modforge: generate, verify and measure modular-multiplier hardware.")
poly_app = typer.Typer(rich_markup_mode=None, no_args_is_help=True,
                       help="Polynomials over GF(p): check, factor degrees, search.")
app.add_typer(poly_app, name="poly")
primes_app = typer.Typer(rich_markup_mode=None, no_args_is_help=True,
                         help="NTT primes: primality, families, counts, RNS bases, roots of unity.")
app.add_typer(primes_app, name="primes")
rsa_app = typer.Typer(rich_markup_mode=None, no_args_is_help=True,
                      help="RSA (FMLM3, FFT-based Montgomery multiplication): parameter sets.")
app.add_typer(rsa_app, name="rsa")

PARAMS_HELP = "Parameters as key=value (see `modforge list`)."
ALGORITHM_HELP = "Algorithm name (see `modforge list`)."
JSON_HELP = "Machine-readable output."
TIMEOUT_HELP = "Stop the search after this many seconds (exit 2, one line); 0: no limit."
FORCE_HELP = "Write over a different design already in the -o folder (its files are removed first)."
NO_CACHE_HELP = ("Run the synthesis tools even where the synthesis cache holds the result (see `modforge cache "
                 "info`); $MODFORGE_NO_SYNTH_CACHE=1 does the same.")
# the choices of the options checked by slow-to-import modules (tests/test_help.py holds them equal)
SIM_CHOICES = ("verilator", "icarus", "both")
TARGET_CHOICES = ("generic", "asic", "xc7", "xcup", "ecp5", "ecp5-static")
FORMAT_CHOICES = ("md", "html")
MINIMIZE_CHOICES = ("latency", "area", "atp")
NETLIST_CHOICES = ("generic", "xc7", "xcup")
__all__ = ["FAMILIES"]


def choices(names: tuple[str, ...]) -> str:
    """An option's metavar that lists its values, as typer shows a choice: <a|b|c>."""
    return "<" + "|".join(names) + ">"


def check_choice(command: str, argument: str, value: str, allowed: Collection[str]) -> None:
    if value not in allowed:
        raise ParameterError(command, argument, f"must be one of {', '.join(allowed)}", value)


def key_values(command: str, items: list[str] | None, keys: tuple[str, ...] = (),
               required: tuple[str, ...] = ()) -> dict[str, str]:
    """key=value items -> a dict (registry.key_values)."""
    return registry.key_values(command, items, list(keys), required)


def arguments(command: str, params_class: type, items: list[str] | None) -> Any:
    """A verb's KEY=VALUE items -> its arguments dataclass (the algorithms' parser)."""
    specs = param_specs(params_class)
    required = tuple(name for name, spec in specs.items() if spec.required)
    return parse_params(command, params_class, key_values(command, items, tuple(specs), required))


def arguments_help(params_class: type) -> str:
    """The KEY=VALUE help of a verb, from its dataclass: each key, its type and bounds, its
    default, its meaning."""
    parts = []
    for spec in param_specs(params_class).values():
        default = "required" if spec.required else "optional" if spec.default is None else f"default {spec.default}"
        parts.append(f"{spec.name} ({spec.type_text}; {default}): {spec.help}.")
    return " ".join(parts)


def configure(algorithm_name: str, items: list[str] | None) -> tuple[Algorithm, object]:
    """The algorithm and its validated parameters; a reducible modulus (a ring where a field
    may be expected) is said on stderr. A search while validating (poly=auto: the lowest-weight
    irreducible polynomial) shows its progress on a terminal."""
    from ..math import irreducible
    from ..synth import timing
    from .render import progress_when_searching
    algorithm = lookup(algorithm_name)
    specs = param_specs(algorithm.Params)
    required = tuple(name for name, spec in specs.items() if spec.required)
    args = key_values(algorithm.name, items, tuple(specs), required)
    with progress_when_searching(f"{algorithm.name}: searching the modulus") as progress, \
            irreducible.searching(progress), \
            progress_when_searching(f"{algorithm.name}: synth_ecp5 for target_mhz") as synthesizing, \
            timing.reporting(synthesizing):
        params = algorithm.parse(args)
    computes = algorithm.computes(params)
    if computes.structure == "GF(p^m)" and not computes.is_field:
        from ..math import poly
        note = irreducible.structure(poly.parse_poly(computes.polynomial, computes.p), computes.p)["message"]
        err_console.print(f"warning: {algorithm.name}: {note}; this design computes in "
                          f"GF({computes.p})[x]/({computes.polynomial}), not GF({computes.p}^{computes.degree})")
    return algorithm, params
