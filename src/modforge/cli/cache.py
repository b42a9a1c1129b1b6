"""The cache verbs: cache info, cache clear (the synthesis results of synth/cache.py)."""

from __future__ import annotations

import typer

from .base import JSON_HELP, app
from .render import console, emit

cache_app = typer.Typer(rich_markup_mode=None, no_args_is_help=True,
                        help="The synthesis cache: results of synth and explore, keyed by the Verilog, the target, "
                             "the options and the tool versions.")
app.add_typer(cache_app, name="cache")


def results(count: int) -> str:
    return f"{count} synthesis result{'' if count == 1 else 's'}"


def size_text(count: int) -> str:
    return f"{count / 1e6:.1f} MB" if count >= 1e6 else f"{count / 1e3:.1f} kB"


@cache_app.command("info")
def info(as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """Where the synthesis cache is, how many results it holds and their size."""
    from ..synth import cache
    data = cache.info() | {"enabled": cache.enabled()}
    off = "" if data["enabled"] else " (off: $MODFORGE_NO_SYNTH_CACHE is set)"
    emit(as_json, data, lambda: console.print(f"{data['folder']}: {results(data['entries'])}, "
                                              f"{size_text(data['bytes'])}{off}", highlight=False))


@cache_app.command("clear")
def clear(as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """Remove every cached synthesis result (the next synth or explore runs the tools)."""
    from ..synth import cache
    data = cache.clear()
    emit(as_json, data, lambda: console.print(f"removed {results(data['entries'])} "
                                              f"({size_text(data['bytes'])}) from {data['folder']}", highlight=False))
