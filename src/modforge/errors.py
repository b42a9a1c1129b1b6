"""Errors a user can cause; the CLI prints them without a traceback and exits 2."""


class ModforgeError(Exception):
    """Base of every error modforge reports to a user."""


class ParameterError(ModforgeError, ValueError):
    """A parameter breaks a rule: names the algorithm, the argument, the rule and the value."""

    def __init__(self, algorithm: str, argument: str, rule: str, value):
        self.algorithm, self.argument, self.rule, self.value = algorithm, argument, rule, value
        super().__init__(f"{algorithm}: argument '{argument}' {rule}, got {argument}={value}")


class ToolMissing(ModforgeError):
    """An external tool (simulator, synthesizer) is not installed."""


def check_folder(command: str, argument: str, path) -> None:
    """An output folder must be a folder or not exist yet (nor have a file among its parents):
    found out before anything is written, instead of a traceback half-way."""
    from pathlib import Path
    p = Path(path)
    for where in (p, *p.parents):
        if where.exists():
            if not where.is_dir():
                what = "it is an existing file" if where == p else f"{where} is an existing file"
                raise ParameterError(command, argument, f"must be a folder ({what})", str(path))
            return
