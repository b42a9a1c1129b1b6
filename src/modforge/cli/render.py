"""What the verbs print: the consoles, --json, tables, progress bars with a time limit, and
the figures of a design under the names its port contract gives them."""

from __future__ import annotations

import json
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import typer
from rich import box
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from ..errors import ModforgeError, ParameterError


# no markup (data such as Z_2[x] prints as it is); piped or redirected output: no wrapping,
# no cut columns (a number is never shortened), no colour
def _console(stderr: bool) -> Console:
    if (sys.stderr if stderr else sys.stdout).isatty():
        return Console(stderr=stderr, markup=False)
    return Console(stderr=stderr, markup=False, soft_wrap=True, width=100_000, no_color=True)


console, err_console = _console(False), _console(True)


def emit(as_json: bool, data: Any, human: Callable[[], None]) -> None:
    if as_json:
        typer.echo(json.dumps(data, indent=2, sort_keys=True, default=str))
    else:
        human()


def print_table(title: str | None, columns: dict[str, bool], rows: list[list]) -> None:
    """A table of `columns` (name -> the column may fold) and `rows`. On a terminal: rich's
    box, its title above it. Piped or redirected: plain text, no box-drawing characters, the
    columns aligned two spaces apart, the title a line of its own."""
    tty = console.is_terminal
    out = Table(title=title if tty else None, box=box.HEAVY_HEAD if tty else None, pad_edge=tty,
                padding=(0, 1) if tty else (0, 2, 0, 0))
    for name, fold in columns.items():
        out.add_column(name, no_wrap=not (fold and tty), overflow="fold" if fold and tty else "ignore")
    for row in rows:
        out.add_row(*row)
    if tty:
        console.print(out, highlight=False)
        return
    with console.capture() as captured:
        console.print(out, highlight=False)
    lines = ([title] if title else []) + [line.rstrip() for line in captured.get().splitlines()]
    console.file.write("".join(f"{line}\n" for line in lines))


def progress_bar(*fields: TextColumn, transient: bool = True) -> Progress:
    """Bars with ETA on stderr, only when stderr is a terminal: piped or redirected output
    stays plain (and a --json reader sees stdout only)."""
    return Progress(TextColumn("{task.description}", markup=False, style="bold"), BarColumn(),
                    MofNCompleteColumn(), *fields, TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                    console=err_console, transient=transient, disable=not sys.stderr.isatty())


class TimeLimit(ModforgeError):
    """A search ran past its --timeout."""


@contextmanager
def search(command: str, description: str, timeout: float = 0) -> Iterator[Callable[..., None]]:
    """A long search: a progress bar (candidates tested of all) and a time limit of `timeout`
    seconds (0: none) that ends it with one line naming the limit and how far it got."""
    if timeout < 0:
        raise ParameterError(command, "--timeout", "must be a number of seconds >= 0 (0: no limit)", timeout)
    state = {"done": 0, "total": 0}

    def expire(signum: int, frame: FrameType | None) -> None:
        where = f" after {state['done']} of {state['total']} candidates" if state["total"] else ""
        raise TimeLimit(f"{command}: stopped by the time limit of {timeout:g} s{where} "
                        f"(give a larger --timeout, or --timeout 0 for none)")

    with progress_bar() as bar:
        task = bar.add_task(description, total=None)

        def update(done: int, total: int, what: str | None = None) -> None:
            state["done"], state["total"] = done, total
            bar.update(task, completed=done, total=total, description=what or description)

        previous = signal.signal(signal.SIGALRM, expire) if timeout else None
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            yield update
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            if previous is not None:
                signal.signal(signal.SIGALRM, previous)


@contextmanager
def progress_when_searching(description: str) -> Iterator[Callable[[int, int], None]]:
    """progress(done, total) for a step that may search (an algorithm validating poly=auto): the
    bar appears (on a terminal) at the first report, so a quick step shows nothing."""
    state: dict = {}

    def update(done: int, total: int) -> None:
        if "bar" not in state:
            state["bar"] = progress_bar()
            state["bar"].start()
            state["task"] = state["bar"].add_task(description, total=total)
        state["bar"].update(state["task"], completed=done, total=total)

    try:
        yield update
    finally:
        if "bar" in state:
            state["bar"].stop()


def point_text(algorithm: str, params: dict) -> str:
    """A sweep point on one line: 'rsa-fmlm3 l=1024 P=64 ... modulus=<1024-bit>' (a long number
    by its size)."""
    def short(value: Any) -> str:
        text = str(value)
        if len(text) > 24:
            try:
                return f"<{int(text, 0).bit_length()}-bit>"
            except ValueError:
                return text
        return text
    return " ".join([algorithm, *(f"{k}={short(v)}" for k, v in params.items())])


def first_line(message: str | None) -> str:
    """A failure's message as one short line: its first, cut at 160 characters."""
    lines = (message or "").strip().splitlines()
    return lines[0][:160] if lines else ""


def count_text(count: int, asked: int, beats: int, commands: bool = False) -> str:
    """'256 (200 asked, rounded up to whole results of 64 beats, at least 3)': a count that
    differs from the one asked says why."""
    if count == asked:
        return str(count)
    if commands:
        return f"{count} ({asked} asked, rounded up to whole programs of commands, at least 2)"
    if beats > 1:
        return f"{count} ({asked} asked, rounded up to whole results of {beats} beats, at least 3)"
    return f"{count} ({asked} asked)"


def figure(value: Any, fmt: str = "{}") -> str:
    return "-" if value is None else fmt.format(value)
