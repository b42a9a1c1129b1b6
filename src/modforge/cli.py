"""The command line: a verb, an algorithm, key=value parameters, --json on every verb
that reports. A user error prints one line naming the rule and exits 2."""

from __future__ import annotations

import dataclasses
import json
import signal
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import typer
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
from rich.text import Text

from . import __version__
from .errors import ModforgeError, ParameterError, check_folder
from .families import FAMILIES
from .registry import Algorithm, all_algorithms, lookup, param_specs

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
# no markup (data such as Z_2[x] prints as it is); piped or redirected output: no wrapping,
# no cut columns (a number is never shortened), no colour
def _console(stderr: bool) -> Console:
    if (sys.stderr if stderr else sys.stdout).isatty():
        return Console(stderr=stderr, markup=False)
    return Console(stderr=stderr, markup=False, soft_wrap=True, width=100_000, no_color=True)


console, err_console = _console(False), _console(True)

PARAMS_HELP = "Parameters as key=value (see `modforge list`)."
ALGORITHM_HELP = "Algorithm name (see `modforge list`)."
# the choices of the options checked by slow-to-import modules (tests/test_cli.py holds them equal)
SIM_CHOICES = ("verilator", "icarus", "both")
TARGET_CHOICES = ("generic", "asic", "xc7", "xcup", "ecp5", "ecp5-static")
FORMAT_CHOICES = ("md", "html")
MINIMIZE_CHOICES = ("latency", "area", "atp")
NETLIST_CHOICES = ("generic", "xc7", "xcup")


def choices(names: tuple[str, ...]) -> str:
    """An option's metavar that lists its values, as typer shows a choice: <a|b|c>."""
    return "<" + "|".join(names) + ">"
TIMEOUT_HELP = "Stop the search after this many seconds (exit 2, one line); 0: no limit."


def progress_bar(*fields: TextColumn, transient: bool = True) -> Progress:
    """Bars with ETA on stderr, only when stderr is a terminal: piped or redirected output
    stays plain (and a --json reader sees stdout only)."""
    return Progress(TextColumn("{task.description}", markup=False, style="bold"), BarColumn(),
                    MofNCompleteColumn(), *fields, TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                    console=err_console, transient=transient, disable=not sys.stderr.isatty())


class TimeLimit(ModforgeError):
    """A search ran past its --timeout."""


@contextmanager
def search(command: str, description: str, timeout: float) -> Iterator[Callable[..., None]]:
    """A long search: a progress bar (candidates tested of all) and a time limit of `timeout`
    seconds (0: none) that ends it with one line naming the limit and how far it got."""
    if timeout < 0:
        raise ParameterError(command, "--timeout", "must be a number of seconds >= 0 (0: no limit)", timeout)
    state = {"done": 0, "total": 0}

    def expire(signum, frame):
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


class UserError(Exception):
    pass


def key_values(command: str, items: list[str] | None, keys: tuple[str, ...] = ()) -> dict[str, str]:
    """key=value items; a bare value is named after the key it was probably meant for (the one
    of `keys` not given, or all of them)."""
    out: dict[str, str] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            given = {i.partition("=")[0] for i in items or [] if "=" in i}
            missing = [k for k in keys if k not in given]
            name = "|".join(missing or keys) or "key"
            raise ParameterError(command, name, f"must be written {name}=VALUE (a bare value)", item)
        if key in out:
            raise ParameterError(command, key, "is given twice", value)
        out[key] = value
    return out


def configure(algorithm_name: str, items: list[str] | None) -> tuple[Algorithm, object]:
    """The algorithm and its validated parameters; a reducible modulus (a ring where a field
    may be expected) is said on stderr."""
    algorithm = lookup(algorithm_name)
    params = algorithm.parse(key_values(algorithm.name, items, tuple(param_specs(algorithm.Params))))
    computes = algorithm.computes(params)
    if computes.structure == "GF(p^m)" and not computes.is_field:
        from .math import irreducible, poly
        note = irreducible.structure(poly.parse_poly(computes.polynomial, computes.p), computes.p)["message"]
        err_console.print(f"warning: {algorithm.name}: {note}; this design computes in "
                          f"GF({computes.p})[x]/({computes.polynomial}), not GF({computes.p}^{computes.degree})")
    return algorithm, params


def point_text(algorithm: str, params: dict) -> str:
    """A sweep point on one line: 'rsa-fmlm3 l=1024 P=64 ... modulus=<1024-bit>' (a long number
    by its size)."""
    def short(value) -> str:
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


def emit(as_json: bool, data, human) -> None:
    if as_json:
        typer.echo(json.dumps(data, indent=2, sort_keys=True, default=str))
    else:
        human()


@app.command("list")
def list_algorithms(family: str | None = typer.Option(None, metavar=choices(FAMILIES), help="Only this family."),
                    as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")):
    """Every algorithm, its paper, its parameters and their meaning."""
    algorithms = [a for a in all_algorithms() if family in (None, a.family)]
    data = [{"name": a.name, "family": a.family, "title": a.title, "paper": a.paper,
             "params": [{"name": n, "help": h, "default": d} for n, h, d in a.param_help()]}
            for a in algorithms]

    def human():
        for a in data:
            console.print(f"{a['name']}  ({a['family']})  {a['title']}", style="bold")
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
def generate(algorithm: str = typer.Argument(..., metavar="ALGORITHM", help=ALGORITHM_HELP),
             params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE", help=PARAMS_HELP),
             out: Path | None = typer.Option(None, "-o", "--out", help="Output folder (default: ./<module>)."),
             vectors: int = typer.Option(1000, help="Model vectors written for the testbench (beats: an NTT "
                                                  "polynomial is n/P of them; at least 3 polynomials)."),
             seed: int = typer.Option(1, help="Seed of the random vectors."),
             as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")):
    """Write Verilog, the self-checking testbench, model vectors and design.json."""
    from .sim.verify import prepare
    alg, p = configure(algorithm, params)
    if vectors < 1:
        raise ParameterError("generate", "--vectors", "must be at least 1", vectors)
    check_folder("generate", "-o", out or Path(alg.module_name(p)))
    design = prepare(alg, p, out or Path(alg.module_name(p)), vectors, seed)
    emit(as_json, design_summary(design), lambda: console.print(
        f"wrote {', '.join(design.files)}, tb.v, vectors/ ({vectors}), design.json and {', '.join(design.ip_files)} "
        f"to {design.directory}\n"
        f"{design.congruence}; {design.cycles} cycles, latency {design.latency}, II {design.initiation_interval}"))


@app.command()
def verify(algorithm: str = typer.Argument(..., metavar="ALGORITHM", help=ALGORITHM_HELP),
           params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE", help=PARAMS_HELP),
           vectors: int = typer.Option(1000, help="Model vectors, corner cases first, then random (beats: an "
                                                "NTT polynomial is n/P of them; at least 3 polynomials)."),
           sim: str = typer.Option("both", metavar=choices(SIM_CHOICES), help="Simulators: verilator, icarus or "
                                                                              "both."),
           seed: int = typer.Option(1, help="Seed of the random vectors."),
           out: Path | None = typer.Option(None, "-o", "--out", help="Keep the run in this folder."),
           netlist: bool = typer.Option(False, "--netlist", help="Simulate the post-synthesis netlist (Yosys, "
                                        "for --target, with its cell models) instead of the generated Verilog."),
           target: str = typer.Option("generic", "--target", metavar=choices(NETLIST_CHOICES),
                                      help="With --netlist: generic (Yosys synth), xc7 or xcup (synth_xilinx, "
                                           "Xilinx cell models)."),
           as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")):
    """Generate, simulate against the bit-exact model, and give the verdict (exit 0 iff all pass)."""
    from .sim.netlist import NETLIST_TARGETS
    from .sim.runners import SIMULATORS, tool_path
    from .sim.verify import verify as run_verify
    if target not in NETLIST_TARGETS:
        raise ParameterError("verify", "--target", f"must be one of {', '.join(NETLIST_TARGETS)}", target)
    if target != "generic" and not netlist:
        raise ParameterError("verify", "--target", "needs --netlist (it picks the netlist's synthesis)", target)
    alg, p = configure(algorithm, params)
    sims = list(SIMULATORS) if sim == "both" else [sim]
    if any(s not in SIMULATORS for s in sims):
        raise ParameterError("verify", "--sim", "must be verilator, icarus or both", sim)
    if vectors < 1:
        raise ParameterError("verify", "--vectors", "must be at least 1", vectors)
    if out is not None:
        check_folder("verify", "-o", out)
    for s in sims:
        tool_path(s)
    with tempfile.TemporaryDirectory(prefix="modforge-") as tmp, progress_bar() as bar:
        if netlist:
            err_console.print(f"verify: synthesizing for {target} (yosys), then simulating the netlist "
                              f"on {', '.join(sims)}")
        # one bar per simulator: generate (model vectors), build, then the results checked
        tasks = {s: bar.add_task(f"{s}: generate", total=None) for s in sims}

        def on_sim(simulator: str, step: str, done: int, total: int) -> None:
            bar.update(tasks[simulator], description=f"{simulator}: {step}", completed=done, total=total or None)

        design, results = run_verify(alg, p, out or Path(tmp), vectors, sims, seed, progress=on_sim,
                                     netlist=target if netlist else None)
        summary = design_summary(design, results)
        if out is None:
            summary["directory"] = None

    summary["netlist"] = target if netlist else None

    def human():
        console.print(f"{design.top}: {design.congruence}")
        if netlist:
            console.print(f"simulated: the post-synthesis netlist ({target}) with the Yosys cell models")
        console.print(f"claimed: {design.cycles} step cycles, latency {design.latency}, "
                      f"initiation interval {design.initiation_interval}")
        if "config" in design.info:
            console.print(f"the testbench first loads {', '.join(design.info['config']['verified_primes'])} "
                          f"through cfg ({design.info['config']['words']} words); the vectors follow them")
        table = Table()
        for col in ("sim", "vectors", "pass", "fail", "latency", "II", "build s", "run s", "verdict"):
            table.add_column(col, no_wrap=True)
        for r in results:
            table.add_row(r.simulator, str(r.vectors), str(r.passed), str(r.failed), str(r.latency),
                          str(r.initiation_interval), "cached" if r.build_cached else f"{r.build_seconds:.2f}",
                          f"{r.run_seconds:.2f}",
                          Text("PASS", style="green") if r.ok else Text("FAIL", style="red"))
        console.print(table)
        for r in results:
            if not r.ok:
                console.print(r.log[-3000:])
    emit(as_json, summary, human)
    if not all(r.ok for r in results):
        raise typer.Exit(1)


@app.command()
def prove(algorithm: str = typer.Argument(..., metavar="ALGORITHM", help=ALGORITHM_HELP),
          params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE", help=PARAMS_HELP),
          timeout: float = typer.Option(600, metavar="SECONDS", help="Seconds before the proof is given up (exit 1)."),
          out: Path | None = typer.Option(None, "-o", "--out", help="Keep the proof's files in this folder."),
          as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")):
    """Prove the design against its family's reference for every operand set (bounded model
    checking from reset with Yosys and ABC); exit 0 iff proved."""
    from . import formal
    alg, p = configure(algorithm, params)
    if not timeout > 0:
        raise ParameterError("prove", "--timeout", "must be a number of seconds > 0", timeout)
    formal.check(alg, p)
    if out is not None:
        check_folder("prove", "-o", out)
    with tempfile.TemporaryDirectory(prefix="modforge-") as tmp:
        result = formal.prove(alg, p, out or Path(tmp), timeout,
                              say=lambda text: err_console.print(f"prove: {text}", highlight=False))
        if out is None:
            result.directory = None
    emit(as_json, dataclasses.asdict(result) | {"ok": result.ok}, lambda: console.print(result.message))
    if not result.ok:
        raise typer.Exit(1)


@app.command()
def config(algorithm: str = typer.Argument(..., metavar="ALGORITHM", help=ALGORITHM_HELP),
           params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE",
                                                     help=PARAMS_HELP + " The core's, twiddles=load."),
           prime: str = typer.Option(..., "--prime", metavar="Q[,Q...]",
                                     help="The primes to load, one per residue slot (q's, then the base's), "
                                          "comma-separated (decimal or 0x...)."),
           out: Path | None = typer.Option(None, "-o", "--out", help="Write the words as a $readmemh file."),
           as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")):
    """The cfg stream's words that load primes into a core generated with twiddles=load."""
    from .sim.vectors import write_hex
    alg, p = configure(algorithm, params)
    width = alg.config_width(p)
    if not width or not hasattr(alg, "config_words"):
        raise ParameterError(alg.name, "twiddles", "must be load: without it the core has no cfg stream",
                             getattr(p, "twiddles", "-"))
    try:
        primes = [int(x, 0) for x in prime.split(",")]
    except ValueError:
        raise ParameterError("config", "--prime", "must be comma-separated integers (decimal or 0x...)",
                             prime) from None
    words = alg.config_words(p, primes)
    if out:
        write_hex(out, words, width)
    digits = (width + 3) // 4
    data = {"primes": [hex(x) for x in primes], "width": width, "count": len(words), "file": str(out) if out else None,
            "layout": alg.extra_info(p)["config"]["payload"], "words": [f"{x:0{digits}x}" for x in words]}
    emit(as_json, data, lambda: typer.echo(f"wrote {len(words)} words of {width} bits to {out}" if out
                                           else "\n".join(data["words"])))


@app.command()
def synth(algorithm: str = typer.Argument(..., metavar="ALGORITHM", help=ALGORITHM_HELP),
          params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE", help=PARAMS_HELP),
          target: str = typer.Option("generic", metavar=choices(TARGET_CHOICES),
                                     help="generic (two-input gates, depth), asic (OSU 0.18 um cells), "
                                     "xc7, xcup (synth_xilinx resources) or ecp5 (place and route, Fmax; ecp5-static: "
                                     "with nextpnr's static placer, for large cores)."),
          freq: float | None = typer.Option(None, "--freq",
                                            help="Clock in MHz for ecp5 place and route (default 100)."),
          timeout: float = typer.Option(3600, help="Seconds before a tool run is stopped (recorded as timeout)."),
          out: Path | None = typer.Option(None, "-o", "--out", help="Keep the run in this folder."),
          as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")):
    """Synthesize (ecp5: place and route) and report resources, Fmax, latency and ATP."""
    from .design import generate as write_design
    from .synth import check as check_synth, synthesize
    check_synth(target, freq)
    if not timeout > 0:
        raise ParameterError("synth", "--timeout", "must be a number of seconds > 0", timeout)
    alg, p = configure(algorithm, params)
    if out is not None:
        check_folder("synth", "-o", out)
    with tempfile.TemporaryDirectory(prefix="modforge-") as tmp, progress_bar() as bar:
        task = bar.add_task(f"{target}: generate", total=None)   # steps: the tools (yosys, nextpnr)
        design = write_design(alg, p, out or Path(tmp))

        def on_step(tool: str, index: int, steps: int) -> None:
            bar.update(task, description=f"{target}: {tool}", completed=index, total=steps)

        metrics = synthesize(design, target, freq, timeout=timeout, on_step=on_step)
        if out is None:
            metrics.directory = None
    data = metrics.as_dict()

    def human():
        if not metrics.ok:
            return

        def fig(v, fmt="{}"):
            return "-" if v is None else fmt.format(v)

        console.print(f"{design.top} on {target}: {design.cycles} cycles, latency {design.latency}, "
                      f"II {design.initiation_interval}")
        if metrics.gates_by_type:
            console.print("cells: " + ", ".join(f"{k} {v}" for k, v in sorted(metrics.gates_by_type.items())))
        if metrics.lut_by_size:
            console.print("LUTs: " + ", ".join(f"{k} {v}" for k, v in sorted(metrics.lut_by_size.items())))
        if metrics.gates is not None:
            console.print(f"gates {metrics.gates}, FF {metrics.ff}, depth {fig(metrics.depth)} gates")
        if metrics.cells is not None:
            console.print(f"cells {metrics.cells}, FF {metrics.ff}, area {fig(metrics.cell_area_um2)} um2, "
                          f"critical path {fig(metrics.critical_path_ns)} ns")
        if metrics.lut is not None:
            lutram = f" (+{metrics.lutram} as LUT RAM/SRL)" if metrics.lutram else ""
            console.print(f"LUT {metrics.lut}{lutram}, FF {fig(metrics.ff)}, carry {fig(metrics.carry)}, "
                          f"DSP {fig(metrics.dsp)}, BRAM {fig(metrics.bram)}")
        console.print(f"Fmax {fig(metrics.fmax_mhz, '{:.1f}')} MHz (asked {fig(metrics.freq_mhz)}), "
                      f"latency {fig(metrics.latency_ns, '{:.1f}')} ns, "
                      f"throughput {fig(metrics.throughput_mops, '{:.2f}')} M/s, "
                      f"area {fig(metrics.area, '{:g}')} {metrics.area_unit or ''}, "
                      f"area x time {fig(metrics.area_time, '{:.4g}')}, ATP {fig(metrics.atp, '{:.4g}')}")
    emit(as_json, data, human)
    if not metrics.ok:
        err_console.print(metrics.message, markup=False, highlight=False)
        raise typer.Exit(1)


@poly_app.command("check")
def poly_check(params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE", help="p=PRIME poly=EXPRESSION"),
               as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")):
    """Is f irreducible over GF(p)? Field or ring, and the degrees of its factors."""
    from .math import irreducible, poly
    kv = key_values("poly check", params, ("poly",))
    p = _prime(kv, "poly check")
    if "poly" not in kv:
        raise ParameterError("poly check", "poly", "is required", "<missing>")
    try:
        f = poly.parse_poly(kv["poly"], p)
    except ValueError as exc:
        raise ParameterError("poly check", "poly", f"must be a polynomial over GF({p}) ({exc})", kv["poly"]) from exc
    info = irreducible.structure(f, p)
    data = {"p": p, "poly": poly.format_poly(f, p), "degree": len(f) - 1, **info}
    emit(as_json, data, lambda: console.print(info["message"]))


@poly_app.command("irreducible")
def poly_irreducible(params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE",
                                                              help="p=PRIME (default 2) degree=N "
                                                                   "kind=trinomial|pentanomial|auto (default auto)."),
                     count: int = typer.Option(1, min=1, help="How many to list, lowest weight first."),
                     timeout: float = typer.Option(600, "--timeout", metavar="SECONDS", help=TIMEOUT_HELP),
                     as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")):
    """Search irreducible trinomials / pentanomials of a degree, the conventional ones first."""
    from .math import irreducible, poly
    command = "poly irreducible"
    kv = key_values(command, params, ("degree",))
    _no_extra(command, kv, ("p", "degree", "kind"))
    p = _prime(kv, command)
    try:
        degree = int(kv.get("degree", ""))
    except ValueError:
        raise ParameterError(command, "degree", "must be an integer >= 2",
                             kv.get("degree", "<missing>")) from None
    if degree < 2:
        raise ParameterError(command, "degree", "must be at least 2", degree)
    kind = kv.get("kind", "auto")
    if kind not in ("auto", "trinomial", "pentanomial"):
        raise ParameterError(command, "kind", "must be auto, trinomial or pentanomial", kind)
    if kind == "pentanomial" and p != 2:
        raise ParameterError(command, "kind", "pentanomial searches are over GF(2) (p=2)", kind)
    found: list[str] = []
    kinds = {"trinomial": ["trinomial"], "pentanomial": ["pentanomial"],
             "auto": ["trinomial"] + (["pentanomial"] if p == 2 else [])}[kind]
    with search(command, f"degree-{degree} {kinds[0]}s over GF({p})", timeout) as progress:
        for each in kinds:
            step = partial(progress, what=f"degree-{degree} {each}s over GF({p})")
            gen = (irreducible.trinomials(p, degree, step) if each == "trinomial"
                   else irreducible.pentanomials(degree, step))
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
        raise ParameterError(command, "p", "must be a prime", kv["p"]) from None
    if not is_prime_small(p):
        raise ParameterError(command, "p", "must be a prime", p)
    return p


# ---------------------------------------------------------------- primes (NTT moduli)

PRIMES_FAMILY_HELP = "family=ntt|proth|proth2l|proth3l beta=BITS logqh=BITS (ntt: or n=N)"


def _int_arg(command: str, kv: dict, key: str, rule: str = "must be an integer", default=None,
             lo: int | None = None, hi: int | None = None) -> int:
    if key not in kv:
        if default is None:
            raise ParameterError(command, key, "is required", "<missing>")
        return default
    raw = kv[key].strip().replace("_", "")
    try:
        value = int(raw, 0)
    except ValueError:
        raise ParameterError(command, key, rule, kv[key]) from None
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ParameterError(command, key, rule, value)
    return value


def _pow2_arg(command: str, kv: dict, key: str = "n", default=None) -> int:
    n = _int_arg(command, kv, key, "must be a power of two >= 1", default, lo=1)
    if n & (n - 1):
        raise ParameterError(command, key, "must be a power of two >= 1", n)
    return n


def _no_extra(command: str, kv: dict, allowed: tuple[str, ...]) -> None:
    for key in kv:
        if key not in allowed:
            raise ParameterError(command, key, f"is not a parameter (use {', '.join(allowed)})", kv[key])


def _primes_family(command: str, kv: dict, default_kind: str | None = None):
    from .math import primes as P
    kind = kv.get("family", default_kind)
    if kind is None:
        raise ParameterError(command, "family", f"is required ({', '.join(P.FAMILIES)})", "<missing>")
    if kind not in P.FAMILIES:
        raise ParameterError(command, "family", f"must be one of {', '.join(P.FAMILIES)}", kind)
    beta = _int_arg(command, kv, "beta", f"must be an integer in 3..{P.MAX_BETA}", 64, 3, P.MAX_BETA)
    log_qh = None
    if "logqh" in kv:
        log_qh = _int_arg(command, kv, "logqh", f"must be an integer in 1..beta-1 (beta={beta})", lo=1, hi=beta - 1)
    n = _pow2_arg(command, kv, "n") if "n" in kv and log_qh is None else None
    try:
        return P.family(kind, beta, log_qh, n=n)
    except ValueError as exc:
        raise ParameterError(command, "logqh", str(exc), log_qh if log_qh is not None else "<missing>") from exc


@primes_app.command("check")
def primes_check(params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE",
                                                          help="q=INTEGER (decimal or 0x...)"),
                 as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")):
    """Is q prime (deterministic below 3.3e24)? Its NTT limit and the paper's families it is in."""
    from .math import primes as P
    kv = key_values("primes check", params)
    _no_extra("primes check", kv, ("q",))
    q = _int_arg("primes check", kv, "q", "must be an integer >= 2", lo=2)
    prime, how = P.primality(q)
    data: dict[str, Any] = {"q": q, "hex": hex(q), "bits": q.bit_length(), "prime": prime, "certainty": how}
    if prime and q > 2:
        m = P.v2(q - 1)
        qh = (q - 1) >> m
        beta = q.bit_length()
        data |= {"v2_q_minus_1": m, "max_log_n": m - 1, "q_h": qh, "omega": m, "log_qh": qh.bit_length(),
                 "proth": qh.bit_length() <= m, "families": []}
        # the same q in every (beta, log_qh) family it belongs to: omega' <= v2(q-1)
        for omega in range(1, m + 1):
            lq = beta - omega
            for kind in P.FAMILIES:
                try:
                    P.family(kind, beta, lq)  # is (beta, log_qh) a valid family of this kind?
                except ValueError:
                    continue
                if kind in ("proth2l", "proth3l"):
                    terms = P.proth_l_terms(q, kind, beta, lq)
                    if terms:
                        data["families"].append({"family": kind, "beta": beta, "logqh": lq, "l": terms[:4],
                                                 "representations": len(terms)})
                elif omega == m:
                    data["families"].append({"family": kind, "beta": beta, "logqh": lq})

    def human():
        console.print(f"{q} is {'prime' if prime else 'composite'} ({how})")
        if prime and q > 2:
            console.print(f"q - 1 = {data['q_h']} * 2^{data['v2_q_minus_1']}: NTT-friendly up to "
                          f"n = 2^{data['max_log_n']}; {'a' if data['proth'] else 'not a'} Proth prime")
            for f in data["families"]:
                extra = f"  l = {f['l']}" if "l" in f else ""
                console.print(f"  {f['family']} beta={f['beta']} logqh={f['logqh']}{extra}")
    emit(as_json, data, human)


@primes_app.command("list")
def primes_list(params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE", help=PRIMES_FAMILY_HELP +
                                                         " [count=10] [logn=L] [order=asc|desc]"),
                timeout: float = typer.Option(600, "--timeout", metavar="SECONDS", help=TIMEOUT_HELP),
                as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")):
    """The first primes of a family (ascending, or order=desc), optionally only those with 2^(logn+1) | q-1."""
    from .math import primes as P
    command = "primes list"
    kv = key_values(command, params)
    _no_extra(command, kv, ("family", "beta", "logqh", "n", "count", "logn", "order"))
    fam = _primes_family(command, kv)
    count = _int_arg(command, kv, "count", "must be an integer in 1..100000", 10, 1, 100000)
    log_n = (_int_arg(command, kv, "logn", "must be an integer in 0..beta-2", -1, 0, fam.beta - 2)
             if "logn" in kv else None)
    order = kv.get("order", "asc")
    if order not in ("asc", "desc"):
        raise ParameterError(command, "order", "must be asc or desc", order)
    found = []
    with search(command, f"{fam.label}: candidates", timeout) as progress:
        for q in P.family_members(fam, log_n=log_n, descending=order == "desc", progress=progress):
            found.append(q)
            if len(found) >= count:
                break
    data = {"family": fam.kind, "beta": fam.beta, "logqh": fam.log_qh, "omega": fam.omega, "logn": log_n,
            "primes": [{"q": q, "hex": hex(q), "q_h": (q - 1) >> fam.omega, "max_log_n": P.ntt_max_log_n(q)}
                       for q in found]}
    emit(as_json, data, lambda: console.print(
        "\n".join(f"{p['q']}  {p['hex']}  q_h={p['q_h']}  max log n={p['max_log_n']}" for p in data["primes"])
        if found else f"no primes in {fam.label}"))


@primes_app.command("count")
def primes_count(params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE", help=PRIMES_FAMILY_HELP + " "
                                                                                           "[method=auto|native|python]"),
                 timeout: float = typer.Option(600, "--timeout", metavar="SECONDS", help=TIMEOUT_HELP),
                 as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")):
    """Count a family's primes (native C kernel on all cores for big families), by v2(q-1), and its max log n."""
    from .math import primes as P
    command = "primes count"
    kv = key_values(command, params)
    _no_extra(command, kv, ("family", "beta", "logqh", "n", "method"))
    fam = _primes_family(command, kv)
    method = kv.get("method", "auto")
    if method not in ("auto", "native", "python"):
        raise ParameterError(command, "method", "must be auto, native or python", method)
    try:
        with search(command, f"{fam.label}: candidates", timeout) as progress:
            res = P.count_family(fam, method=method, progress=progress)
    except ValueError as exc:
        raise ParameterError(command, "logqh", str(exc), fam.log_qh) from exc
    data = res.record()

    def human():
        console.print(f"{fam.label}: {res.count} primes of {res.candidates} candidates "
                      f"in {res.seconds:.2f} s ({res.method})")
        console.print("by v2(q-1): " + ", ".join(f"{v}: {c}" for v, c in res.valuations.items()))
        console.print(f"max log n (Table 1 rule): {res.max_log_n if res.max_log_n is not None else '< 12'}")
        if res.note:
            console.print(f"note: {res.note}")
    emit(as_json, data, human)


@primes_app.command("rns")
def primes_rns(params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE",
                                                        help="n=N logq=BITS [family=ntt] [beta=64] [logqh=BITS] "
                                                             "[order=desc|asc]"),
               timeout: float = typer.Option(600, "--timeout", metavar="SECONDS", help=TIMEOUT_HELP),
               as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")):
    """Pick ceil(logq/beta) distinct primes of a family with 2n | q-1 (Table 1's RNS base), or say it cannot."""
    from .math import primes as P
    command = "primes rns"
    kv = key_values(command, params)
    _no_extra(command, kv, ("n", "logq", "family", "beta", "logqh", "order"))
    n = _pow2_arg(command, kv, "n")
    log_q = _int_arg(command, kv, "logq", "must be a positive integer", lo=1)
    order = kv.get("order", "desc")
    if order not in ("asc", "desc"):
        raise ParameterError(command, "order", "must be asc or desc", order)
    fam = _primes_family(command, kv, default_kind="ntt")
    try:
        with search(command, f"{fam.label}: primes with 2n | q-1", timeout):
            base = P.rns_base(n, log_q, fam, descending=order == "desc")
    except ValueError as exc:
        raise ParameterError(command, "family", str(exc), fam.label) from exc
    import math as _math
    prod = _math.prod(base)
    # the same base as parameters of the NTT cores' RNS mode
    ntt_args = f"q={hex(base[0])}" + (f" base={','.join(hex(q) for q in base[1:])}" if len(base) > 1 else "")
    ntt_args += f" logqh={fam.log_qh}" if fam.log_qh else ""
    data = {"n": n, "logq": log_q, "family": fam.kind, "beta": fam.beta, "logqh": fam.log_qh,
            "primes": base, "count": len(base), "product_bits": prod.bit_length(), "ntt_args": ntt_args}
    emit(as_json, data, lambda: console.print(
        f"{len(base)} primes of {fam.label} with 2n | q-1 (n={n}), product {prod.bit_length()} bits:\n"
        + "\n".join(f"{q}  {hex(q)}" for q in base) + f"\nNTT cores (RNS mode): {ntt_args} n={n}"))


@primes_app.command("roots")
def primes_roots(params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE", help="q=PRIME n=N"),
                 as_json: bool = typer.Option(False, "--json", help="Includes the full twiddle tables.")):
    """The smallest primitive 2n-th root psi (psi^n = -1) and the bit-reversed twiddle tables."""
    from .math import primes as P
    command = "primes roots"
    kv = key_values(command, params)
    _no_extra(command, kv, ("q", "n"))
    q = _int_arg(command, kv, "q", "must be an integer >= 3", lo=3)
    n = _pow2_arg(command, kv, "n")
    if n > 1 << 20:
        raise ParameterError(command, "n", "must be at most 2^20", n)
    if not P.is_prime(q):
        raise ParameterError(command, "q", "must be a prime", q)
    if (q - 1) % (2 * n):
        raise ParameterError(command, "n", f"needs 2n | q-1 (q supports n <= 2^{P.ntt_max_log_n(q)})", n)
    tw = P.twiddles(q, n)
    data = tw.record()
    emit(as_json, data, lambda: console.print(
        f"psi = {tw.psi} (psi^n = -1 mod q: {data['check_psi_n_is_minus_1']}), psi^-1 = {tw.psi_inv}, "
        f"n^-1 = {tw.n_inv}\nforward (psi^bitrev(i)) [:8] = {tw.forward[:8]}\n"
        f"inverse (psi^-bitrev(i)) [:8] = {tw.inverse[:8]}"))


# ---------------------------------------------------------------- rsa (FMLM3)

RSA_PARAMS_HELP = "l=BITS [P=POW2] [u=BITS c=1/2|INT algorithm=2|3: check one set]"


def _fraction_arg(command: str, kv: dict, key: str):
    from fractions import Fraction
    try:
        return Fraction(kv[key].strip())
    except (ValueError, ZeroDivisionError):
        raise ParameterError(command, key, "must be 1/2 or a positive integer", kv[key]) from None


@rsa_app.command("params")
def rsa_params(params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE", help=RSA_PARAMS_HELP),
               as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")):
    """Every feasible FMLM3 parameter set for operand size l (corrected Algorithm 4), each
    with the inequality that admits it; with u, c and algorithm: check that one set."""
    from .math import fmlm3
    command = "rsa params"
    kv = key_values(command, params, ("l",))
    _no_extra(command, kv, ("l", "P", "u", "c", "algorithm"))
    l_bits = _int_arg(command, kv, "l", "must be a positive integer", lo=1)
    P = _pow2_arg(command, kv, "P") if "P" in kv else None
    one = {"u", "c", "algorithm"} & kv.keys()
    if one:
        missing = [k for k in ("P", "u", "c", "algorithm") if k not in kv]
        if missing:
            raise ParameterError(command, missing[0], "is required to check one set (P, u, c, algorithm)",
                                 "<missing>")
        u = _int_arg(command, kv, "u", "must be a positive integer", lo=1)
        alg = _int_arg(command, kv, "algorithm", "must be 2 or 3", lo=2, hi=3)
        sets = [fmlm3.check_set(l_bits, P or 0, u, _fraction_arg(command, kv, "c"), alg)]
    else:
        sets = fmlm3.parameter_sets(l_bits, P)
    data = {"l": l_bits, "sets": [s.record() for s in sets]}

    def human():
        table = Table(title=f"FMLM3 parameter sets for l = {l_bits} (*: corrected Algorithm 4 selects it)")
        for col in ("alg", "P", "u", "l_max", "c", "M", "omega", "A", "admitted by", ""):
            table.add_column(col, no_wrap=col != "admitted by", overflow="fold")
        for r in data["sets"]:
            table.add_row(str(r["algorithm"]), str(r["P"]), str(r["u"]), str(r["l_max"]), r["c"], r["M"],
                          r["omega"], r["A"], r["rule"], "*" if r["selected"] else "")
        console.print(table)
    emit(as_json, data, human)


# ---------------------------------------------------------------- explore: sweeps, reports, best

@app.command()
def explore(sweep_file: Path = typer.Argument(..., metavar="SWEEP.toml",
                                              help="Sweep file (see modforge.explore.sweep)."),
            db: Path = typer.Option(Path("modforge.sqlite"), "--db", help="Results database (SQLite)."),
            workers: int | None = typer.Option(None, "--workers", help="Local worker processes (default: CPU count; 0: "
                                                                       "in this process)."),
            scheduler: str | None = typer.Option(None, "--scheduler", metavar="tcp://HOST:PORT",
                                                 help="Dask scheduler, e.g. tcp://host:8786 (instead of local "
                                                      "processes)."),
            retry_failed: bool = typer.Option(False, "--retry-failed", help="Run again the points stored as failed."),
            keep: Path | None = typer.Option(None, "--keep", help="Keep every point's design and tool runs under this "
                                                                  "folder."),
            only: list[str] | None = typer.Option(None, "--only", metavar="NAME",
                                                  help="Run only the [[sweep]] blocks with this name (repeatable)."),
            dry_run: bool = typer.Option(False, "--dry-run", help="Validate and count the points; run nothing."),
            as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")):
    """Generate, verify and synthesize every point of a sweep; results go to the database.
    Points already stored are skipped, so a killed sweep resumes where it stopped. Progress on
    stderr: a bar on a terminal, else a plain line for each result stored."""
    from .explore import Store, load, run_sweep
    from .explore.runners import make_runner
    from .explore.store import check_db
    from .sim.runners import tool_path
    from .synth import check as check_synth
    if workers is not None and workers < 0:
        raise ParameterError("explore", "--workers", "must be >= 0 (0: in this process)", workers)
    check_db(db, "explore")
    sweep = load(sweep_file, only)
    jobs = sweep.jobs()
    if dry_run:
        data: dict[str, Any] = {"sweep": str(sweep_file), "points": len(sweep.points), "jobs": len(jobs),
                "algorithms": sorted({p.algorithm for p in sweep.points}),
                "targets": sorted({t for _, t in jobs})}
        emit(as_json, data, lambda: console.print(
            f"{sweep_file}: {data['points']} points, {data['jobs']} (point, target) jobs; "
            f"algorithms {', '.join(data['algorithms'])}; targets {', '.join(data['targets'])}"))
        return
    for target, freq in sorted({(t, p.freq) for p in sweep.points for t in p.targets}):
        check_synth(target, freq)  # a missing tool stops the sweep here, before anything runs
    for sim in {s for p in sweep.points for s in p.simulators}:
        tool_path(sim)
    runner = make_runner(workers, scheduler)
    with Store(db, command="explore") as store:
        progress = progress_bar(TextColumn("done {task.fields[done]}  failed {task.fields[failed]}  "
                                           "skipped {task.fields[skipped]}  remaining {task.fields[remaining]}"),
                                transient=False)
        state = {}

        def on_progress(s):
            if "task" not in state:
                state["skipped0"] = s.skipped
                state["task"] = progress.add_task(sweep_file.name, total=max(0, s.jobs - s.skipped),
                                                  done=0, failed=0, skipped=s.skipped, remaining=s.remaining)
            progress.update(state["task"], completed=s.done + s.failed + s.skipped - state["skipped0"],
                            done=s.done, failed=s.failed, skipped=s.skipped, remaining=s.remaining)

        def plain_line(rec, s):
            why = f": {first_line(rec.get('message'))}" if rec["status"] != "done" and rec.get("message") else ""
            print(f"explore: {s.done + s.failed}/{s.jobs - state['skipped0']} {rec['status']}: "
                  f"{point_text(rec['algorithm'], rec['params'])} on {rec['target']} "
                  f"({rec.get('seconds') or 0:.0f} s){why}", file=sys.stderr, flush=True)

        with progress:  # no bar when stderr is a log file or a pipe: a plain line for each result instead
            summary = run_sweep(sweep, store, runner, retry_failed=retry_failed, keep=keep, on_progress=on_progress,
                                on_record=None if sys.stderr.isatty() else plain_line)
    data = {"sweep": str(sweep_file), "db": str(db), "jobs": summary.jobs, "skipped": summary.skipped,
            "done": summary.done, "failed": summary.failed, "seconds": summary.seconds, "runner": summary.runner,
            "failures": [{"algorithm": a, "params": p, "target": t, "message": m} for a, p, t, m in summary.failures]}

    def human():
        console.print(f"{sweep_file}: {summary.jobs} jobs on {summary.runner}: {summary.done} done, "
                      f"{summary.failed} failed, {summary.skipped} already stored; {summary.seconds:.1f} s -> {db}")
        for a, p, t, m in summary.failures[:20]:
            console.print(f"  failed: {point_text(a, p)} on {t}: {first_line(m)}", markup=False, highlight=False)
    emit(as_json, data, human)


@app.command()
def report(db: Path = typer.Option(Path("modforge.sqlite"), "--db", help="Results database (SQLite)."),
           fmt: str = typer.Option("md", "--format", metavar=choices(FORMAT_CHOICES),
                                   help="md (report.md + plots/) or html (one self-contained report.html)."),
           out: Path = typer.Option(Path("report"), "-o", "--out", help="Output folder."),
           as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")):
    """Tables per field and target, Pareto fronts of area vs latency, and plots (PNG, SVG)."""
    from .explore.report import write_report
    path = write_report(db, fmt, out)
    plots = sorted(str(p) for p in (Path(out) / "plots").glob("*.png"))
    emit(as_json, {"report": str(path), "plots": plots},
         lambda: console.print(f"wrote {path} ({len(plots)} plots in {Path(out) / 'plots'})"))


@app.command()
def best(filters: list[str] | None = typer.Argument(None, metavar="KEY=VALUE",
                                                    help="key=value filters: field=GF(2^163), algorithm=..., "
                                                         "family=..., or a parameter (D=16)."),
         db: Path = typer.Option(Path("modforge.sqlite"), "--db", help="Results database (SQLite)."),
         target: str | None = typer.Option(None, "--target", metavar=choices(TARGET_CHOICES),
                                           help="The target (needed when the results span several)."),
         minimize: str = typer.Option("latency", "--minimize", metavar=choices(MINIMIZE_CHOICES),
                                     help="latency, area or atp (area x latency)."),
         max_luts: int | None = typer.Option(None, "--max-luts", help="Only designs with at most this many LUTs (FPGA "
                                                                      "targets)."),
         top: int = typer.Option(5, "--top", help="How many to list."),
         as_json: bool = typer.Option(False, "--json", help="Machine-readable output.")):
    """The best stored design for a field on a target, answered from the database."""
    from .explore import Store
    from .explore.pareto import best as query, parse_filters
    if not db.is_file():
        raise ParameterError("best", "--db", "must be an existing results database", str(db))
    with Store(db, command="best") as store:
        data = query(store, parse_filters(filters), target, minimize, max_luts, top)

    def human():
        if not data["best"]:
            console.print(f"no stored result matches {' '.join(filters or [])} on {data['target'] or 'any target'}"
                          + (f" with at most {max_luts} LUTs" if max_luts is not None else ""))
            return
        table = Table(title=f"best by {minimize} on {data['target']} ({data['candidates']} candidates)")
        for col in ("#", "algorithm", "params", minimize, "latency", "area", "LUT", "Fmax MHz"):
            table.add_column(col, no_wrap=col != "params", overflow="fold")
        def fig(v):
            return "-" if v is None else f"{v:.4g}" if isinstance(v, float) else str(v)

        for i, b in enumerate(data["best"], 1):
            table.add_row(str(i), b["algorithm"], " ".join(f"{k}={v}" for k, v in b["params"].items()),
                          f"{fig(b[minimize])} {b['unit']}", f"{fig(b['latency'])} {b['latency_unit']}",
                          f"{fig(b['area'])} {b['area_unit'] or ''}", fig(b["lut"]), fig(b["fmax_mhz"]))
        console.print(table)
    emit(as_json, data, human)
    if not data["best"]:
        raise typer.Exit(1)


@app.callback(invoke_without_command=True)
def _root(version: bool = typer.Option(False, "--version", help="Print the version.")):
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


if __name__ == "__main__":
    sys.exit(main())
