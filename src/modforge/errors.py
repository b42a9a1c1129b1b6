"""Errors a user can cause; the CLI prints them without a traceback and exits 2."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any


class ModforgeError(Exception):
    """Base of every error modforge reports to a user."""


class ParameterError(ModforgeError, ValueError):
    """A parameter breaks a rule: names the algorithm, the argument, the rule and the value."""

    def __init__(self, algorithm: str, argument: str, rule: str, value: Any) -> None:
        self.algorithm, self.argument, self.rule, self.value = algorithm, argument, rule, value
        super().__init__(f"{algorithm}: argument '{argument}' {rule}, got {argument}={value}")


class NotKeyValue(ParameterError):
    """An item of a KEY=VALUE list that is not one: says what was typed and what is expected."""

    def __init__(self, command: str, item: str, keys: list[str], missing: list[str]) -> None:
        self.algorithm, self.argument, self.value = command, "KEY=VALUE", item
        if item in keys:
            hint = f"did you mean {item}=VALUE? "
        elif missing:
            hint = f"did you mean {missing[0]}={item}? "
        else:
            hint = ""
        self.rule = f"expected KEY=VALUE ({hint}keys: {', '.join(keys)})"
        ModforgeError.__init__(self, f"{command}: got '{item}', {self.rule}")


class ToolMissing(ModforgeError):
    """An external tool (simulator, synthesizer) is not installed."""


def check_folder(command: str, argument: str, path: str | os.PathLike[str]) -> None:
    """An output folder must be a folder that can be created and written: no file in its
    place or among its parents, no read-only or virtual file system (/proc, /sys). Found out
    before anything is written, instead of a traceback half-way; the folders the check creates
    are removed again."""
    p = Path(path)
    for where in (p, *p.parents):
        if where.exists():
            if not where.is_dir():
                what = "it is an existing file" if where == p else f"{where} is an existing file"
                raise ParameterError(command, argument, f"must be a folder ({what})", str(path))
            break
    created: list[Path] = []
    step = f"write in {p}"
    try:
        for where in reversed((p, *p.parents)):
            if not where.exists():
                step = f"create {where}"
                where.mkdir()
                created.append(where)
        step = f"write in {p}"
        with tempfile.TemporaryFile(dir=p):
            pass
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise ParameterError(command, argument, f"must be a folder that can be created and written "
                             f"(cannot {step}: {why})", str(path)) from None
    finally:
        for where in reversed(created):
            try:
                where.rmdir()
            except OSError:
                pass


def check_file(command: str, argument: str, path: str | os.PathLike[str]) -> None:
    """An output file: its folder must be one that can be written, and it must not be a folder."""
    p = Path(path)
    if p.is_dir():
        raise ParameterError(command, argument, "must be a file (it is an existing folder)", str(path))
    check_folder(command, argument, p.parent if str(p.parent) else Path("."))
    if p.exists() and not os.access(p, os.W_OK):
        raise ParameterError(command, argument, "must be a file that can be written (it is read-only)", str(path))
