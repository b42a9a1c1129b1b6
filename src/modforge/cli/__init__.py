"""The command line: a verb, an algorithm, key=value parameters, --json on every verb that
reports. A user error prints one line naming the rule and exits 2.

One module a verb group: design (list, generate, verify, prove, config, synth), math (poly,
primes, rsa), explore (explore, report, best), cache (info, clear); base holds the app and the one KEY=VALUE
parser, render what the verbs print."""

from __future__ import annotations

import sys

import typer

from .. import __version__
from ..errors import ModforgeError
from . import cache, design, explore, math  # noqa: F401  (each registers its verbs on the app)
from .base import (
    FAMILIES,
    FORMAT_CHOICES,
    MINIMIZE_CHOICES,
    NETLIST_CHOICES,
    SIM_CHOICES,
    TARGET_CHOICES,
    app,
    choices,
    configure,
    key_values,
)
from .render import console, emit, err_console, first_line, point_text, progress_bar, search

__all__ = ["FAMILIES", "FORMAT_CHOICES", "MINIMIZE_CHOICES", "NETLIST_CHOICES", "SIM_CHOICES", "TARGET_CHOICES",
           "app", "choices", "configure", "console", "emit", "err_console", "first_line", "key_values", "main",
           "point_text", "progress_bar", "search"]


@app.callback(invoke_without_command=True)
def _root(version: bool = typer.Option(False, "--version", help="Print the version.")) -> None:
    if version:
        typer.echo(f"modforge {__version__}")
        raise typer.Exit()


INTERRUPTED = 130  # the shell's status of a command ended by SIGINT


def main(argv: list[str] | None = None) -> int:
    try:
        # without standalone mode click returns a command's typer.Exit code instead of exiting
        code = app(args=argv, standalone_mode=False)
    except ModforgeError as exc:
        err_console.print(f"error: {exc}", markup=False, highlight=False)
        return 2
    except typer.Exit as exc:
        code = exc.exit_code
    except KeyboardInterrupt:
        code = INTERRUPTED
    except Exception as exc:
        kinds = {cls.__name__ for cls in type(exc).__mro__}
        if "ClickException" in kinds:   # click's usage errors, from click or the copy newer typer bundles
            ctx = getattr(exc, "ctx", None)
            where = ctx.command_path if ctx is not None else "modforge"
            hint = f" (see `{where} --help`)" if "UsageError" in kinds else ""
            print(f"error: {where}: {getattr(exc, 'format_message', exc.__str__)()}{hint}", file=sys.stderr)
            return 2
        if "Abort" not in kinds:     # click's answer to Ctrl-C (typer's is Exit(130))
            raise
        code = INTERRUPTED
    if code == INTERRUPTED:
        print("error: interrupted (Ctrl-C)", file=sys.stderr)
    return code if isinstance(code, int) else 0
