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
