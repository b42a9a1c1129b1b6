"""The exploration verbs: explore (sweeps into a results database), report, best."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.progress import TextColumn

from ..errors import ParameterError
from .base import FORMAT_CHOICES, JSON_HELP, MINIMIZE_CHOICES, NO_CACHE_HELP, TARGET_CHOICES, app, choices
from .render import console, emit, first_line, point_text, print_table, progress_bar

if TYPE_CHECKING:      # imported when a verb runs
    from ..explore.run import Summary


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


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
            no_cache: bool = typer.Option(False, "--no-cache", help=NO_CACHE_HELP),
            as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """Generate, verify and synthesize every point of a sweep; results go to the database.
    Points already stored are skipped, so a killed sweep resumes where it stopped. Progress on
    stderr: a bar on a terminal, else a plain line for each result stored."""
    from ..errors import check_folder
    from ..explore import Store, load, run_sweep
    from ..explore.runners import make_runner
    from ..explore.store import check_db
    from ..sim.runners import tool_path
    from ..synth import check as check_synth
    if workers is not None and workers < 0:
        raise ParameterError("explore", "--workers", "must be >= 0 (0: in this process)", workers)
    check_folder("explore", "--db", db.parent)    # the database's folder: /proc or /sys is one line too
    check_db(db, "explore")
    sweep = load(sweep_file, only)
    jobs = sweep.jobs()
    if dry_run:
        data: dict[str, Any] = {"sweep": str(sweep_file), "points": len(sweep.points), "jobs": len(jobs),
                                "algorithms": sorted({p.algorithm for p in sweep.points}),
                                "targets": sorted({t for _, t in jobs})}
        emit(as_json, data, lambda: console.print(
            f"{sweep_file}: {plural(data['points'], 'point')}, {plural(data['jobs'], '(point, target) job')}; "
            f"algorithms {', '.join(data['algorithms'])}; targets {', '.join(data['targets'])}", highlight=False))
        return
    if keep is not None:
        check_folder("explore", "--keep", keep)
    for target, freq in sorted({(t, p.freq) for p in sweep.points for t in p.targets}):
        check_synth(target, freq)  # a missing tool stops the sweep here, before anything runs
    for sim in {s for p in sweep.points for s in p.simulators}:
        tool_path(sim)
    runner = make_runner(workers, scheduler)
    with Store(db, command="explore") as store:
        progress = progress_bar(TextColumn("done {task.fields[done]}  failed {task.fields[failed]}  "
                                           "skipped {task.fields[skipped]}  remaining {task.fields[remaining]}"),
                                transient=False)
        state: dict[str, Any] = {}

        def on_progress(s: Summary) -> None:
            if "task" not in state:
                state["skipped0"] = s.skipped
                state["task"] = progress.add_task(sweep_file.name, total=max(0, s.jobs - s.skipped),
                                                  done=0, failed=0, skipped=s.skipped, remaining=s.remaining)
            progress.update(state["task"], completed=s.done + s.failed + s.skipped - state["skipped0"],
                            done=s.done, failed=s.failed, skipped=s.skipped, remaining=s.remaining)

        def plain_line(rec: dict, s: Summary) -> None:
            why = f": {first_line(rec.get('message'))}" if rec["status"] != "done" and rec.get("message") else ""
            print(f"explore: {s.done + s.failed}/{s.jobs - state['skipped0']} {rec['status']}: "
                  f"{point_text(rec['algorithm'], rec['params'])} on {rec['target']} "
                  f"({rec.get('seconds') or 0:.0f} s){why}", file=sys.stderr, flush=True)

        with progress:  # no bar when stderr is a log file or a pipe: a plain line for each result instead
            summary = run_sweep(sweep, store, runner, retry_failed=retry_failed, keep=keep, on_progress=on_progress,
                                on_record=None if sys.stderr.isatty() else plain_line, synth_cache=not no_cache)
    data = {"sweep": str(sweep_file), "db": str(db), "jobs": summary.jobs, "skipped": summary.skipped,
            "done": summary.done, "failed": summary.failed, "seconds": summary.seconds, "runner": summary.runner,
            "failures": [{"algorithm": a, "params": p, "target": t, "message": m} for a, p, t, m in summary.failures]}

    def human() -> None:
        console.print(f"{sweep_file}: {plural(summary.jobs, 'job')} {summary.runner}: {summary.done} done, "
                      f"{summary.failed} failed, {summary.skipped} already stored; {summary.seconds:.1f} s -> {db}",
                      highlight=False)
        for a, p, t, m in summary.failures[:20]:
            console.print(f"  failed: {point_text(a, p)} on {t}: {first_line(m)}", markup=False, highlight=False)
    emit(as_json, data, human)


@app.command()
def report(db: Path = typer.Option(Path("modforge.sqlite"), "--db", help="Results database (SQLite)."),
           fmt: str = typer.Option("md", "--format", metavar=choices(FORMAT_CHOICES),
                                   help="md (report.md + plots/) or html (one self-contained report.html)."),
           out: Path = typer.Option(Path("report"), "-o", "--out", help="Output folder."),
           as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """Tables per field and target, Pareto fronts of area vs latency, and plots (PNG, SVG)."""
    from ..explore.report import write_report
    path = write_report(db, fmt, out)
    plots = sorted(str(p) for p in (Path(out) / "plots").glob("*.png"))
    emit(as_json, {"report": str(path), "plots": plots},
         lambda: console.print(f"wrote {path} ({plural(len(plots), 'plot')} in {Path(out) / 'plots'})",
                               highlight=False))


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
         as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """The best stored design for a field on a target, answered from the database."""
    from ..explore import Store
    from ..explore.pareto import best as query, parse_filters
    wanted = parse_filters(filters)
    if not db.is_file():
        raise ParameterError("best", "--db", "must be an existing results database", str(db))
    with Store(db, command="best") as store:
        data = query(store, wanted, target, minimize, max_luts, top)

    def fig(v: Any) -> str:
        return "-" if v is None else f"{v:.4g}" if isinstance(v, float) else str(v)

    def with_unit(v: Any, unit: str | None) -> str:
        return fig(v) if v is None or not unit else f"{fig(v)} {unit}"

    def human() -> None:
        if not data["best"]:
            console.print(f"no stored result matches {' '.join(filters or [])} on {data['target'] or 'any target'}"
                          + (f" with at most {max_luts} LUTs" if max_luts is not None else ""), highlight=False)
            return
        # one column a figure; the title names the one ranked by
        columns = dict.fromkeys(("#", "algorithm", "params", "latency", "area", "ATP", "LUT", "Fmax MHz"), False)
        columns["params"] = True
        print_table(f"best by {minimize} on {data['target']} ({plural(data['candidates'], 'candidate')})", columns,
                    [[str(i), b["algorithm"], " ".join(f"{k}={v}" for k, v in b["params"].items()),
                      with_unit(b["latency"], b["latency_unit"]), with_unit(b["area"], b["area_unit"]),
                      with_unit(b["atp"], b["atp_unit"]), fig(b["lut"]), fig(b["fmax_mhz"])]
                     for i, b in enumerate(data["best"], 1)])
    emit(as_json, data, human)
    if not data["best"]:
        raise typer.Exit(1)
