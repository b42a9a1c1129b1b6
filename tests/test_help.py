"""--help of every verb: each option with its real type or its choices, and its default; flags
without a type placeholder."""

import re

import pytest
import typer

from modforge import cli
from modforge.cli import app, main


def verbs(command=None, path=()):
    """Every command path of the CLI: ("generate",), ("poly", "check"), ..."""
    command = command or typer.main.get_command(app)
    for name, sub in getattr(command, "commands", {}).items():
        if getattr(sub, "commands", None):
            yield from verbs(sub, (*path, name))
        else:
            yield (*path, name)


VERBS = sorted(verbs())


def help_text(capsys, *path) -> str:
    assert main([*path, "--help"]) == 0
    return capsys.readouterr().out


def options(text: str) -> dict[str, str]:
    """--option -> the rest of its first help line (metavar, help), from the Options section."""
    section = text.split("\nOptions:\n", 1)[1]
    found = {}
    for line in section.splitlines():
        m = re.match(r"\s+(?:-\w, )?(--[\w-]+)(.*)", line)
        if m:
            found[m.group(1)] = m.group(2).strip()
    return found


def test_every_verb_is_found():
    assert {("generate",), ("verify",), ("synth",), ("poly", "irreducible"), ("primes", "count"),
            ("rsa", "params"), ("explore",), ("report",), ("best",)} <= set(VERBS)


@pytest.mark.parametrize("path", VERBS, ids=" ".join)
def test_options_show_real_types(capsys, path):
    text = help_text(capsys, *path)
    opts = options(text)
    assert "--help" in opts and "--json" in opts
    for name, line in opts.items():
        assert not re.match(r"<(bool|str|list\[str\])>", line), f"{' '.join(path)} {name}: {line}"
    assert opts["--help"] == "Show this message and exit."
    assert opts["--json"] == "Machine-readable output." or path == ("primes", "roots")


def test_types_choices_and_defaults(capsys):
    verify = options(help_text(capsys, "verify"))
    assert verify["--sim"].startswith("<verilator|icarus|both>")
    assert verify["--vectors"].startswith("<int>")
    assert "[default: both]" in help_text(capsys, "verify")
    synth = help_text(capsys, "synth")
    assert "--target <generic|asic|xc7|xcup|ecp5|ecp5-static>" in synth and "[default: generic]" in synth
    assert options(synth)["--freq"].startswith("<float>")
    assert "--format <md|html>" in help_text(capsys, "report")
    assert "--minimize <latency|area|atp>" in help_text(capsys, "best")
    irreducible = help_text(capsys, "poly", "irreducible")
    assert "--timeout SECONDS" in irreducible and "[default: 600]" in irreducible


def test_choices_shown_are_the_ones_checked():
    from modforge.explore.pareto import MINIMIZE
    from modforge.explore.report import FORMATS
    from modforge.registry import all_algorithms
    from modforge.sim.netlist import NETLIST_TARGETS
    from modforge.sim.runners import SIMULATORS
    from modforge.synth import TARGETS
    assert cli.SIM_CHOICES == (*SIMULATORS, "both")
    assert cli.TARGET_CHOICES == TARGETS
    assert cli.FORMAT_CHOICES == FORMATS
    assert cli.MINIMIZE_CHOICES == MINIMIZE
    assert cli.NETLIST_CHOICES == NETLIST_TARGETS
    assert {a.family for a in all_algorithms()} <= set(cli.FAMILIES)
