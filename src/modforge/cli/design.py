"""The design verbs: list, generate, verify, prove, config, synth."""

from __future__ import annotations

import dataclasses
import json
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.text import Text

from ..design import Design, timing_text
from ..errors import ParameterError, check_file, check_folder
from ..registry import Algorithm, all_algorithms, param_hash
from .base import (
    ALGORITHM_HELP,
    FAMILIES,
    FORCE_HELP,
    JSON_HELP,
    NETLIST_CHOICES,
    NO_CACHE_HELP,
    PARAMS_HELP,
    SIM_CHOICES,
    TARGET_CHOICES,
    app,
    check_choice,
    choices,
    configure,
)
from .render import console, count_text, emit, err_console, figure, print_table, progress_bar

if TYPE_CHECKING:      # imported when a verb runs
    from ..sim.runners import SimResult
    from ..synth.metrics import Metrics


@app.command("list")
def list_algorithms(family: str | None = typer.Option(None, metavar=choices(FAMILIES), help="Only this family."),
                    as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """Every algorithm, its paper, its parameters and their meaning."""
    if family is not None:
        check_choice("list", "--family", family, FAMILIES)
    algorithms = [a for a in all_algorithms() if family in (None, a.family)]
    data: list[dict[str, Any]] = [{"name": a.name, "family": a.family, "title": a.title, "paper": a.paper,
             "params": [{"name": n, "help": h, "default": d} for n, h, d in a.param_help()]}
            for a in algorithms]

    def human() -> None:
        for a in data:
            console.print(f"{a['name']}  ({a['family']})  {a['title']}", style="bold")
            console.print(f"    paper: {a['paper']}")
            for p in a["params"]:
                default = "required" if p["default"] is None else f"default {p['default']}"
                console.print(f"    {p['name']:>6} = ...  {p['help']} ({default})")
    emit(as_json, data, human)


def design_summary(design: Design, results: Iterable[SimResult] = ()) -> dict:
    rec = design.record()
    rec["directory"] = str(design.directory)
    rec["simulations"] = [{k: v for k, v in vars(r).items() if k != "log"} | {"ok": r.ok} for r in results]
    return rec


def check_out(command: str, out: Path, algorithm: Algorithm, params: Any, force: bool) -> None:
    """-o must be a folder that can be written, and one that holds no other design: a design
    written over another leaves the old one's FuseSoC core and files broken. The same design
    (same parameter hash) is written again; with --force the other design's files go first."""
    check_folder(command, "-o", out)
    record = Path(out) / "design.json"
    if not record.is_file():
        return
    try:
        old = json.loads(record.read_text())
    except (OSError, ValueError):
        old = {}
    if old.get("param_hash") == param_hash(algorithm, params):
        return
    if not force:
        args = " ".join(f"{k}={v}" for k, v in (old.get("params") or {}).items())
        raise ParameterError(command, "-o", f"must not hold another design: it holds {old.get('top', 'one')} "
                             f"({old.get('algorithm', '?')} {args}); give --force to replace it, or another "
                             "folder", str(out))
    for name in [*old.get("files", []), *old.get("ip_files", []), "tb.v", "design.json"]:
        if Path(name).name == name:           # a file of the folder itself, nothing else
            (Path(out) / name).unlink(missing_ok=True)
    shutil.rmtree(Path(out) / "vectors", ignore_errors=True)


def timing(design: Design) -> str:
    """The design's cycle figures; a command core's, each command's cycles and a STORE's latency."""
    commands = design.info.get("command_cycles")
    if commands:
        return ("cycles per command (to the next handshake): " + ", ".join(f"{k} {v}" for k, v in commands.items())
                + f"; a STORE's first row {design.latency} cycles after its handshake")
    return timing_text(design.cycles, design.latency, design.initiation_interval, design.frame_beats)


def vector_count(design: Design) -> int:
    """The result vectors written (vectors/out.hex: whole results of result_beats beats)."""
    path = Path(design.directory) / "vectors" / "out.hex"
    with path.open() as lines:
        return sum(1 for _ in lines)


def result_beats(design: Design) -> int:
    return design.result_beats or design.frame_beats


def counted(design: Design, count: int, asked: int) -> str:
    """The vectors written or checked, and why they differ from those asked (count_text)."""
    return count_text(count, asked, result_beats(design), "command_cycles" in design.info)


#: the model writes about 10^4-10^5 vectors a second, a simulator runs them at about the same rate
MAX_VECTORS = 1_000_000
VECTORS_HELP = (f"Model vectors, 1..{MAX_VECTORS}, corner cases first, then random (result beats: rounded up to whole "
                "results, an NTT polynomial is n/P of them, and at least 3 results of a frame).")


def check_vectors(command: str, vectors: int) -> None:
    if not 1 <= vectors <= MAX_VECTORS:
        raise ParameterError(command, "--vectors", f"must be in 1..{MAX_VECTORS}", vectors)
OUT_HELP = "Output folder (default: ./<module>); a folder holding another design is refused (see --force)."


@app.command()
def generate(algorithm: str = typer.Argument(..., metavar="ALGORITHM", help=ALGORITHM_HELP),
             params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE", help=PARAMS_HELP),
             out: Path | None = typer.Option(None, "-o", "--out", help=OUT_HELP),
             vectors: int = typer.Option(1000, help=VECTORS_HELP),
             seed: int = typer.Option(1, help="Seed of the random vectors."),
             force: bool = typer.Option(False, "--force", help=FORCE_HELP),
             as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """Write Verilog, the self-checking testbench, model vectors and design.json."""
    from ..sim.verify import prepare
    alg, p = configure(algorithm, params)
    check_vectors("generate", vectors)
    folder = out or Path(alg.module_name(p))
    check_out("generate", folder, alg, p, force)
    design = prepare(alg, p, folder, vectors, seed)
    count = vector_count(design)
    data = design_summary(design) | {"vectors": count, "vectors_asked": vectors}
    emit(as_json, data, lambda: console.print(
        f"wrote {', '.join(design.files)}, tb.v, vectors/ ({counted(design, count, vectors)} "
        f"vectors), "
        f"design.json and {', '.join(design.ip_files)} to {design.directory}\n"
        f"{design.congruence}\n{timing(design)}", highlight=False))


@app.command()
def verify(algorithm: str = typer.Argument(..., metavar="ALGORITHM", help=ALGORITHM_HELP),
           params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE", help=PARAMS_HELP),
           vectors: int = typer.Option(1000, help=VECTORS_HELP),
           sim: str = typer.Option("both", metavar=choices(SIM_CHOICES), help="Simulators: verilator, icarus or "
                                                                              "both."),
           seed: int = typer.Option(1, help="Seed of the random vectors."),
           out: Path | None = typer.Option(None, "-o", "--out", help="Keep the run in this folder (one holding "
                                                                     "another design is refused: see --force)."),
           netlist: bool = typer.Option(False, "--netlist", help="Simulate the post-synthesis netlist (Yosys, "
                                        "for --target, with its cell models) instead of the generated Verilog."),
           target: str = typer.Option("generic", "--target", metavar=choices(NETLIST_CHOICES),
                                      help="With --netlist: generic (Yosys synth), xc7 or xcup (synth_xilinx, "
                                           "Xilinx cell models)."),
           force: bool = typer.Option(False, "--force", help=FORCE_HELP),
           as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """Generate, simulate against the bit-exact model, and give the verdict (exit 0 iff all pass)."""
    from ..sim.netlist import NETLIST_TARGETS
    from ..sim.runners import SIMULATORS, tool_path
    from ..sim.verify import verify as run_verify
    check_choice("verify", "--target", target, NETLIST_TARGETS)
    if target != "generic" and not netlist:
        raise ParameterError("verify", "--target", "needs --netlist (it picks the netlist's synthesis)", target)
    alg, p = configure(algorithm, params)
    sims = list(SIMULATORS) if sim == "both" else [sim]
    if any(s not in SIMULATORS for s in sims):
        raise ParameterError("verify", "--sim", "must be verilator, icarus or both", sim)
    check_vectors("verify", vectors)
    if out is not None:
        check_out("verify", out, alg, p, force)
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
        summary = design_summary(design, results) | {"vectors_asked": vectors}
        if out is None:
            summary["directory"] = None

    summary["netlist"] = target if netlist else None

    def human() -> None:
        console.print(f"{design.top}: {design.congruence}", highlight=False)
        if netlist:
            console.print(f"simulated: the post-synthesis netlist ({target}) with the Yosys cell models")
        console.print(f"claimed: {timing(design)}", highlight=False)
        if "config" in design.info:
            console.print(f"the testbench first loads {', '.join(design.info['config']['verified_moduli'])} "
                          f"through cfg ({design.info['config']['words']} words); the vectors follow them")
        rows = [[r.simulator, counted(design, r.vectors, vectors), str(r.passed),
                 str(r.failed), str(r.latency), str(r.initiation_interval),
                 "cached" if r.build_cached else f"{r.build_seconds:.2f}", f"{r.run_seconds:.2f}",
                 Text("PASS", style="green") if r.ok else Text("FAIL", style="red")] for r in results]
        print_table(None, dict.fromkeys(("sim", "vectors", "pass", "fail", "latency", "II", "build s", "run s",
                                         "verdict"), False), rows)
        resets: dict[tuple[int, int], list[str]] = {}
        for r in results:
            if r.resets:
                resets.setdefault((r.resets, r.replayed), []).append(r.simulator)
        what = "programs" if design.info.get("command_cycles") else "operand sets"
        for (count, again), sims in resets.items():
            console.print(f"{', '.join(sims)}: reset mid-run {count} times, then {again} {what} offered again",
                          highlight=False)
        for r in results:
            if not r.ok:
                console.print(r.log[-3000:], highlight=False)
    emit(as_json, summary, human)
    if not all(r.ok for r in results):
        raise typer.Exit(1)


@app.command()
def prove(algorithm: str = typer.Argument(..., metavar="ALGORITHM", help=ALGORITHM_HELP),
          params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE", help=PARAMS_HELP),
          timeout: float = typer.Option(600, metavar="SECONDS", help="Seconds before the proof is given up (exit 1)."),
          out: Path | None = typer.Option(None, "-o", "--out", help="Keep the proof's files in this folder (one "
                                                                    "holding another design is refused: see --force)."),
          force: bool = typer.Option(False, "--force", help=FORCE_HELP),
          as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """Prove the design against its family's reference for every operand set (bounded model
    checking from reset with Yosys and ABC); exit 0 iff proved."""
    from .. import formal
    alg, p = configure(algorithm, params)
    if not timeout > 0:
        raise ParameterError("prove", "--timeout", "must be a number of seconds > 0", timeout)
    formal.check(alg, p)
    if out is not None:
        check_out("prove", out, alg, p, force)
    with tempfile.TemporaryDirectory(prefix="modforge-") as tmp:
        result = formal.prove(alg, p, out or Path(tmp), timeout,
                              say=lambda text: err_console.print(f"prove: {text}", highlight=False))
        if out is None:
            result.directory = None
    emit(as_json, dataclasses.asdict(result) | {"ok": result.ok}, lambda: console.print(result.message))
    if not result.ok:
        raise typer.Exit(1)


def config_algorithms() -> list[str]:
    return [a.name for a in all_algorithms() if a.config_stream]


@app.command()
def config(algorithm: str = typer.Argument(..., metavar="ALGORITHM", help=ALGORITHM_HELP),
           params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE",
                                                     help=PARAMS_HELP + " The core's, as it was generated."),
           prime: str = typer.Option(..., "--prime", metavar="Q[,Q...]",
                                     help="The moduli to load: an RSA modulus N, or the primes of an NTT core, one "
                                          "per residue slot (q's, then the base's); comma-separated (decimal or "
                                          "0x...)."),
           out: Path | None = typer.Option(None, "-o", "--out", help="Write the words as a $readmemh file."),
           as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """The cfg stream's words that load run-time moduli into a core with a cfg stream (see
    `modforge list`: rsa-montgomery, rsa-fmlm3, the NTT cores with twiddles=load)."""
    from ..sim.vectors import write_hex
    alg, p = configure(algorithm, params)
    if not alg.config_stream:
        raise ParameterError("config", "ALGORITHM", f"must have a cfg stream ({', '.join(config_algorithms())})",
                             alg.name)
    try:
        primes = [int(x, 0) for x in prime.split(",")]
    except ValueError:
        raise ParameterError("config", "--prime", "must be comma-separated integers (decimal or 0x...)",
                             prime) from None
    words = alg.config_words(p, primes)     # names the parameter that gives the core its cfg stream
    width = alg.config_width(p)
    if not width:
        raise ParameterError("config", "KEY=VALUE", f"must give {alg.name} a cfg stream (these parameters leave it "
                             "out)", " ".join(params or []))
    if out:
        check_file("config", "-o", out)
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
          device: str | None = typer.Option(None, "--device", metavar="<25k|45k|85k>",
                                            help="ecp5: the LFE5U part to place on (default: the smallest the "
                                            "design fills to at most 75%; a larger one for congested cores)."),
          timeout: float = typer.Option(3600, help="Seconds before a tool run is stopped (recorded as timeout)."),
          out: Path | None = typer.Option(None, "-o", "--out", help="Keep the run in this folder (one holding "
                                                                    "another design is refused: see --force)."),
          no_cache: bool = typer.Option(False, "--no-cache", help=NO_CACHE_HELP),
          force: bool = typer.Option(False, "--force", help=FORCE_HELP),
          as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """Synthesize (ecp5: place and route) and report resources, Fmax, latency and ATP."""
    from ..design import generate as write_design
    from ..synth import check as check_synth, synthesize_cached
    check_synth(target, freq, device)
    if not timeout > 0:
        raise ParameterError("synth", "--timeout", "must be a number of seconds > 0", timeout)
    alg, p = configure(algorithm, params)
    if out is not None:
        check_out("synth", out, alg, p, force)
    with tempfile.TemporaryDirectory(prefix="modforge-") as tmp, progress_bar() as bar:
        task = bar.add_task(f"{target}: generate", total=None)   # steps: the tools (yosys, nextpnr)
        design = write_design(alg, p, out or Path(tmp))

        def on_step(tool: str, index: int, steps: int) -> None:
            bar.update(task, description=f"{target}: {tool}", completed=index, total=steps)

        metrics, cached = synthesize_cached(design, target, freq, timeout=timeout, on_step=on_step,
                                            cache=not no_cache, device=device)
        if out is None:
            metrics.directory = None

    def human() -> None:
        print_metrics(design, target, metrics)
        if cached:
            console.print("(from the synthesis cache: the tools did not run; --no-cache runs them)", highlight=False)
    data = metrics.as_dict()
    emit(as_json, data, lambda: human() if metrics.ok else None)
    if not metrics.ok:
        err_console.print(metrics.message, markup=False, highlight=False)
        raise typer.Exit(1)


def print_metrics(design: Design, target: str, m: Metrics) -> None:
    """synth's figures, each from one stage and named: Yosys' mapped cells before place and
    route, nextpnr's placed figures after it (ecp5)."""
    lines = [f"{design.top} on {target}: {timing(design)}"]
    routed = target.startswith("ecp5")
    if m.gates_by_type:
        lines.append("cells: " + ", ".join(f"{k} {v}" for k, v in sorted(m.gates_by_type.items())))
    if m.lut_by_size:
        what = "mapped cells (Yosys, before place and route)" if routed else "LUTs"
        lines.append(f"{what}: " + ", ".join(f"{k} {v}" for k, v in sorted(m.lut_by_size.items())))
    if m.gates is not None:
        lines.append(f"gates {m.gates}, FF {m.ff}, depth {figure(m.depth)} gates")
    if m.cells is not None:
        lines.append(f"cells {m.cells}, FF {m.ff}, area {figure(m.cell_area_um2)} um2, "
                     f"critical path {figure(m.critical_path_ns)} ns")
    if m.lut is not None:
        lutram = f" (+{m.lutram} as LUT RAM/SRL, {m.srl} SRL)" if m.lutram else ""
        packed = f" ({m.dsp_registers} register stages inside)" if m.dsp_registers else ""
        stage = "after place and route (nextpnr): LUT4 slots " if routed else ""
        lines.append(f"{stage}LUT {m.lut}{lutram}, FF {figure(m.ff)}, carry {figure(m.carry)}, "
                     f"DSP {figure(m.dsp)}{packed}, BRAM {figure(m.bram)}")
    unit = f" {m.area_unit}" if m.area_unit else ""
    atp = f"{m.area_time:.4g}{unit} x us" if m.area_time is not None else "-"
    predicted, reg = design.info.get("predicted_mhz"), design.info.get("predicted_reg_mhz")
    model = (f", predicted {predicted:.1f} MHz for target_mhz={design.info['target_mhz']:g}, {reg:.1f} MHz without the "
             "input ports' paths, which nextpnr leaves untimed out of context" if routed and predicted and reg else "")
    lines.append(f"Fmax {figure(m.fmax_mhz, '{:.1f}')} MHz (asked {figure(m.freq_mhz)}{model}), "
                 f"operation latency {figure(m.latency_ns, '{:.1f}')} ns, "
                 f"throughput {figure(m.throughput_mops, '{:.2f}')} M/s, area {figure(m.area, '{:g}')}{unit}, "
                 f"ATP (area x operation latency) {atp}")
    for line in lines:
        console.print(line, highlight=False)
