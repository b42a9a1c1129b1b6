"""The command line: a verb, an algorithm, key=value parameters, --json on every verb
that reports. A user error prints one line naming the rule and exits 2."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from . import __version__
from .errors import ModforgeError, ParameterError
from .registry import Algorithm, all_algorithms, lookup

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="modforge: generate, verify and measure modular-multiplier hardware.")
poly_app = typer.Typer(no_args_is_help=True, help="Polynomials over GF(p): check, factor degrees, search.")
app.add_typer(poly_app, name="poly")
console = Console()
err_console = Console(stderr=True)

PARAMS_HELP = "Parameters as key=value (see `modforge list`)."


class UserError(Exception):
    pass


def key_values(command: str, items: list[str] | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ParameterError(command, item, "must be written key=value", item)
        if key in out:
            raise ParameterError(command, key, "is given twice", value)
        out[key] = value
    return out


def configure(algorithm_name: str, items: list[str] | None) -> tuple[Algorithm, object]:
    algorithm = lookup(algorithm_name)
    return algorithm, algorithm.parse(key_values(algorithm.name, items))


def emit(as_json: bool, data, human) -> None:
    if as_json:
        typer.echo(json.dumps(data, indent=2, sort_keys=True, default=str))
    else:
        human()


@app.command("list")
def list_algorithms(family: Optional[str] = typer.Option(None, help="Only this family."),
                    as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")):
    """Every algorithm, its paper, its parameters and their meaning."""
    algorithms = [a for a in all_algorithms() if family in (None, a.family)]
    data = [{"name": a.name, "family": a.family, "title": a.title, "paper": a.paper,
             "params": [{"name": n, "help": h, "default": d} for n, h, d in a.param_help()]}
            for a in algorithms]

    def human():
        for a in data:
            console.print(f"[bold]{a['name']}[/bold]  ({a['family']})  {a['title']}")
            console.print(f"    paper: {a['paper']}")
            for p in a["params"]:
                default = "required" if p["default"] is None else f"default {p['default']}"
                console.print(f"    {p['name']:>6} = ...  {p['help']} ({default})")
    emit(as_json, data, human)


def design_summary(design, results=()) -> dict:
    rec = design.record()
    rec["directory"] = str(design.directory)
    rec["simulations"] = [{k: v for k, v in vars(r).items() if k != "log"} | {"ok": r.ok} for r in results]
    return rec


@app.command()
def generate(algorithm: str = typer.Argument(..., help="Algorithm name (see `modforge list`)."),
             params: Optional[list[str]] = typer.Argument(None, help=PARAMS_HELP),
             out: Optional[Path] = typer.Option(None, "-o", "--out", help="Output folder (default: ./<module>)."),
             vectors: int = typer.Option(1000, help="Model vectors written for the testbench."),
             seed: int = typer.Option(1, help="Seed of the random vectors."),
             as_json: bool = typer.Option(False, "--json")):
    """Write Verilog, the self-checking testbench, model vectors and design.json."""
    from .sim.verify import prepare
    alg, p = configure(algorithm, params)
    if vectors < 1:
        raise ParameterError("generate", "--vectors", "must be at least 1", vectors)
    design = prepare(alg, p, out or Path(alg.module_name(p)), vectors, seed)
    emit(as_json, design_summary(design), lambda: console.print(
        f"wrote {', '.join(design.files)}, tb.v, vectors/ ({vectors}) and design.json to {design.directory}\n"
        f"{design.congruence}; {design.cycles} cycles, latency {design.latency}, II {design.initiation_interval}"))


@app.command()
def verify(algorithm: str = typer.Argument(..., help="Algorithm name (see `modforge list`)."),
           params: Optional[list[str]] = typer.Argument(None, help=PARAMS_HELP),
           vectors: int = typer.Option(1000, help="Model vectors (corner cases first, then random)."),
           sim: str = typer.Option("both", help="verilator, icarus or both."),
           seed: int = typer.Option(1, help="Seed of the random vectors."),
           out: Optional[Path] = typer.Option(None, "-o", "--out", help="Keep the run in this folder."),
           as_json: bool = typer.Option(False, "--json")):
    """Generate, simulate against the bit-exact model, and give the verdict (exit 0 iff all pass)."""
    from .sim.runners import SIMULATORS, tool_path
    from .sim.verify import verify as run_verify
    alg, p = configure(algorithm, params)
    sims = list(SIMULATORS) if sim == "both" else [sim]
    if any(s not in SIMULATORS for s in sims):
        raise ParameterError("verify", "--sim", "must be verilator, icarus or both", sim)
    if vectors < 1:
        raise ParameterError("verify", "--vectors", "must be at least 1", vectors)
    for s in sims:
        tool_path(s)
    with tempfile.TemporaryDirectory(prefix="modforge-") as tmp:
        design, results = run_verify(alg, p, out or Path(tmp), vectors, sims, seed)
        summary = design_summary(design, results)
        if out is None:
            summary["directory"] = None

    def human():
        console.print(f"{design.top}: {design.congruence}")
        console.print(f"claimed: {design.cycles} step cycles, latency {design.latency}, "
                      f"initiation interval {design.initiation_interval}")
        table = Table()
        for col in ("sim", "vectors", "pass", "fail", "latency", "II", "build s", "run s", "verdict"):
            table.add_column(col, no_wrap=True)
        for r in results:
            table.add_row(r.simulator, str(r.vectors), str(r.passed), str(r.failed), str(r.latency),
                          str(r.initiation_interval), f"{r.build_seconds:.2f}", f"{r.run_seconds:.2f}",
                          "[green]PASS[/green]" if r.ok else "[red]FAIL[/red]")
        console.print(table)
        for r in results:
            if not r.ok:
                console.print(r.log[-3000:])
    emit(as_json, summary, human)
    if not all(r.ok for r in results):
        raise typer.Exit(1)


@app.command()
def synth(algorithm: str = typer.Argument(..., help="Algorithm name (see `modforge list`)."),
          params: Optional[list[str]] = typer.Argument(None, help=PARAMS_HELP),
          target: str = typer.Option("generic", help="generic: two-input gates, flip-flops and logic depth."),
          out: Optional[Path] = typer.Option(None, "-o", "--out", help="Keep the run in this folder."),
          as_json: bool = typer.Option(False, "--json")):
    """Synthesize with Yosys and report gates, flip-flops, depth and cycles."""
    from .design import generate as write_design
    from .synth.yosys import TARGETS, synthesize, yosys_command
    alg, p = configure(algorithm, params)
    if target not in TARGETS:
        raise ParameterError("synth", "--target", f"must be one of {', '.join(TARGETS)}", target)
    yosys_command()
    with tempfile.TemporaryDirectory(prefix="modforge-") as tmp:
        design = write_design(alg, p, out or Path(tmp))
        metrics = synthesize(design, target)
        if out is None:
            metrics["directory"] = None

    def human():
        console.print(f"{design.top}: {metrics['gates']} gates "
                      f"({', '.join(f'{k} {v}' for k, v in sorted(metrics['gates_by_type'].items()))}), "
                      f"{metrics['flip_flops']} flip-flops, depth {metrics['depth']}; "
                      f"{design.cycles} cycles, latency {design.latency}, II {design.initiation_interval}")
    emit(as_json, metrics, human)


@poly_app.command("check")
def poly_check(params: Optional[list[str]] = typer.Argument(None, help="p=PRIME poly=EXPRESSION"),
               as_json: bool = typer.Option(False, "--json")):
    """Is f irreducible over GF(p)? Field or ring, and the degrees of its factors."""
    from .math import irreducible, poly
    kv = key_values("poly check", params)
    p = _prime(kv, "poly check")
    if "poly" not in kv:
        raise ParameterError("poly check", "poly", "is required", "<missing>")
    try:
        f = poly.parse_poly(kv["poly"], p)
    except ValueError as exc:
        raise ParameterError("poly check", "poly", f"must be a polynomial over GF({p}) ({exc})", kv["poly"])
    info = irreducible.structure(f, p)
    data = {"p": p, "poly": poly.format_poly(f, p), "degree": len(f) - 1, **info}
    emit(as_json, data, lambda: console.print(info["message"]))


@poly_app.command("irreducible")
def poly_irreducible(params: Optional[list[str]] = typer.Argument(None, help="p=PRIME degree=N kind=trinomial|pentanomial|auto"),
                     count: int = typer.Option(1, help="How many to list, lowest weight first."),
                     as_json: bool = typer.Option(False, "--json")):
    """Search irreducible trinomials / pentanomials of a degree, the conventional ones first."""
    from .math import irreducible, poly
    kv = key_values("poly irreducible", params)
    p = _prime(kv, "poly irreducible")
    try:
        degree = int(kv.get("degree", ""))
    except ValueError:
        raise ParameterError("poly irreducible", "degree", "must be an integer >= 2", kv.get("degree", "<missing>"))
    if degree < 2:
        raise ParameterError("poly irreducible", "degree", "must be at least 2", degree)
    kind = kv.get("kind", "auto")
    if kind not in ("auto", "trinomial", "pentanomial"):
        raise ParameterError("poly irreducible", "kind", "must be auto, trinomial or pentanomial", kind)
    if kind == "pentanomial" and p != 2:
        raise ParameterError("poly irreducible", "kind", "pentanomial searches are over GF(2) (p=2)", kind)
    found = []
    gens = {"trinomial": [irreducible.trinomials(p, degree)],
            "pentanomial": [irreducible.pentanomials(degree)],
            "auto": [irreducible.trinomials(p, degree)] + ([irreducible.pentanomials(degree)] if p == 2 else [])}[kind]
    for gen in gens:
        for f in gen:
            found.append(poly.format_poly(f, p))
            if len(found) >= count:
                break
        if found and kind == "auto" or len(found) >= count:
            break
    data = {"p": p, "degree": degree, "kind": kind, "polynomials": found}
    emit(as_json, data, lambda: console.print("\n".join(found) if found else
                                              f"no irreducible {kind} of degree {degree} over GF({p})"))


def _prime(kv: dict, command: str) -> int:
    from .math.poly import is_prime_small
    try:
        p = int(kv.get("p", "2"))
    except ValueError:
        raise ParameterError(command, "p", "must be a prime", kv["p"])
    if not is_prime_small(p):
        raise ParameterError(command, "p", "must be a prime", p)
    return p


@app.callback(invoke_without_command=True)
def _root(version: bool = typer.Option(False, "--version", help="Print the version.")):
    if version:
        typer.echo(f"modforge {__version__}")
        raise typer.Exit()


def main(argv: list[str] | None = None) -> int:
    try:
        app(args=argv, standalone_mode=False)
    except ModforgeError as exc:
        err_console.print(f"error: {exc}", markup=False, highlight=False)
        return 2
    except typer.Exit as exc:
        return exc.exit_code
    except Exception as exc:  # click's usage errors
        import click
        if isinstance(exc, click.ClickException):
            exc.show()
            return 2
        if isinstance(exc, click.exceptions.Abort):
            return 1
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
