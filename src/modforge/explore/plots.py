"""Plots of stored results (matplotlib, PNG and SVG side by side).

  latency_<family>_<target>    best latency per algorithm and field, grouped bars: the
                               reduction-free paper's Figures 6 (FPGA) and 7 (ASIC)
  throughput_<target>          throughput per area vs the parallelism parameter each algorithm
                               declares (digit size D, M), one panel per field,
                               one line per algorithm: the survey's Table 3 as a plot
  pareto_<field>_<target>      area vs latency of every design of a field, the Pareto
                               front drawn as a staircase
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ..errors import ParameterError
from ..registry import describe, lookup
from .pareto import area, latency, pareto_front

if TYPE_CHECKING:      # matplotlib is imported when a plot is drawn
    from matplotlib.axes import Axes
    from matplotlib.axis import Axis
    from matplotlib.figure import Figure


@dataclasses.dataclass
class Plot:
    name: str
    title: str
    png: Path
    svg: Path
    target: str = ""
    field: str | None = None    # a Pareto plot's field: it goes beside that field's table

    def size(self) -> tuple[int, int]:
        """The PNG's width and height in pixels (its IHDR chunk)."""
        head = self.png.read_bytes()[16:24]
        return int.from_bytes(head[:4], "big"), int.from_bytes(head[4:], "big")


def _plt() -> ModuleType:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _figure(width: float, height: float, nrows: int = 1, ncols: int = 1) -> tuple[Figure, Any]:
    """A figure with constrained layout: labels, titles and an outside legend never overlap."""
    return _plt().subplots(nrows, ncols, figsize=(width, height), squeeze=False, layout="constrained")


def _compact_numbers(axis: Axis) -> None:
    """At most 6 ticks, numbers in engineering notation (20k, not 20000): tick labels never overlap."""
    from matplotlib.ticker import EngFormatter, MaxNLocator
    axis.set_major_locator(MaxNLocator(nbins=6))
    axis.set_major_formatter(EngFormatter(sep=""))


def _legend_outside(ax: Axes) -> None:
    """The legend right of the axes, outside the data area."""
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1), borderaxespad=0, frameon=False)


def _ticks(ax: Axes, labels: list[str]) -> None:
    """Category labels under bars: slanted (and shortened) when there are several, so they never overlap."""
    short = [label if len(label) <= 28 else label[:26] + "..." for label in labels]
    ax.set_xticks(range(len(labels)), short)
    if len(labels) > 2 or max(map(len, short), default=0) > 14:
        ax.tick_params(axis="x", labelrotation=30)
        for label in ax.get_xticklabels():
            label.set_horizontalalignment("right")


def field_order(field: str | None) -> tuple[list[int], str]:
    nums = [int(x) for x in re.findall(r"\d+", field or "")]
    return (nums[::-1] if nums else [0], field or "")


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")


def _save(fig: Figure, out: Path, name: str, title: str, target: str, field: str | None = None) -> Plot:
    out.mkdir(parents=True, exist_ok=True)
    png, svg = out / f"{name}.png", out / f"{name}.svg"
    fig.savefig(png, dpi=110)
    fig.savefig(svg)
    _plt().close(fig)
    return Plot(name, title, png, svg, target, field)


def latency_bars(rows: list[dict], family: str, target: str, out: Path) -> Plot | None:
    rows = [r for r in rows if r["family"] == family and r["target"] == target and latency(r)[0] is not None]
    if not rows:
        return None
    fields = sorted({r["field"] for r in rows}, key=field_order)
    algs = sorted({r["algorithm"] for r in rows})
    unit = latency(rows[0])[1]
    best: dict = {}
    for r in rows:
        k = (r["field"], r["algorithm"])
        best[k] = min(best.get(k, float("inf")), latency(r)[0])
    fig, axes = _figure(min(9.0, max(5.0, 1.0 * len(fields) + 3)), 3.8)
    ax = axes[0][0]
    width = 0.8 / len(algs)
    for i, alg in enumerate(algs):
        xs = [j + (i - (len(algs) - 1) / 2) * width for j in range(len(fields))]
        ys = [best.get((f, alg), 0) for f in fields]
        ax.bar(xs, ys, width, label=alg)
    _ticks(ax, fields)
    ax.set_ylabel(f"latency ({unit})")
    title = f"{family} on {target}: latency per algorithm (best configuration)"
    ax.set_title(title, fontsize=9)
    _legend_outside(ax)
    return _save(fig, out, f"latency_{_slug(family)}_{target}", title, target)


def parallel_of(row: dict) -> tuple[int, int] | None:
    """(the algorithm's parallelism parameter's value, coefficients of an operand) of a stored
    design, as its algorithm declares them (registry: `parallelism`, `computes`)."""
    try:
        alg = lookup(row["algorithm"])
    except ParameterError:
        return None
    computes = describe(row["algorithm"], row["params"] or {})
    value = (row["params"] or {}).get(alg.parallelism) if alg.parallelism else None
    return (value, computes.degree) if value is not None and computes else None


def throughput_vs_d(rows: list[dict], target: str, out: Path) -> Plot | None:
    rows = [r | {"_par": parallel_of(r)} for r in rows if r["target"] == target and r.get("area")
            and r.get("initiation_interval")]
    rows = [r for r in rows if r["_par"]]
    if not rows:
        return None
    fields = sorted({r["field"] for r in rows}, key=field_order)
    timed = all(r.get("throughput_mops") for r in rows)
    ncols = min(3, len(fields))           # a grid of panels, not a strip as wide as the fields are many
    nrows = -(-len(fields) // ncols)
    fig, axes = _figure(3.0 * ncols + 1.8, 2.9 * nrows + 0.4, nrows, ncols)
    panels = [ax for row in axes for ax in row]
    for ax in panels[len(fields):]:
        ax.set_visible(False)
    for ax, field in zip(panels, fields, strict=False):
        sub = [r for r in rows if r["field"] == field]
        for alg in sorted({r["algorithm"] for r in sub}):
            pts: dict[int, float] = {}
            for r in sub:
                if r["algorithm"] != alg:
                    continue
                d, bits = r["_par"]
                per = (bits * r["throughput_mops"] if timed else bits / r["initiation_interval"]) / r["area"]
                pts[d] = max(pts.get(d, 0), per)
            ds = sorted(pts)
            ax.plot(ds, [pts[d] for d in ds], marker="o", label=alg)
        ax.set_title(field if len(field) <= 40 else field[:38] + "...", fontsize=8)
        ax.set_xlabel("digit size D / parallelism M", fontsize=8)
        ax.xaxis.get_major_locator().set_params(integer=True)     # D and M are whole numbers
        _compact_numbers(ax.yaxis)
    unit = rows[0].get("area_unit") or "area"
    for row in axes:
        row[0].set_ylabel(f"{'M coefficients/s' if timed else 'coefficients/cycle'} per {unit}", fontsize=8)
    handles: dict = {}
    for ax in panels[:len(fields)]:     # every algorithm once, in one legend under the grid
        for h, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, h)
    fig.legend(list(handles.values()), list(handles), fontsize=7, loc="outside lower center",
               ncols=min(3, len(handles)), frameon=False)
    title = f"throughput per area vs parallelism on {target}"
    fig.suptitle(title, fontsize=10)
    return _save(fig, out, f"throughput_{target}", title, target)


def pareto_plot(rows: list[dict], field: str, target: str, out: Path) -> Plot | None:
    rows = [r for r in rows if r["field"] == field and r["target"] == target
            and area(r)[0] is not None and latency(r)[0] is not None]
    if not rows:
        return None
    fig, axes = _figure(6.0, 3.6)
    ax = axes[0][0]
    for alg in sorted({r["algorithm"] for r in rows}):
        sub = [r for r in rows if r["algorithm"] == alg]
        ax.scatter([area(r)[0] for r in sub], [latency(r)[0] for r in sub], label=alg, s=18)
    front = pareto_front(rows)
    ax.step([area(r)[0] for r in front], [latency(r)[0] for r in front], where="post", color="black",
            linewidth=1, label="Pareto front")
    _compact_numbers(ax.xaxis)
    _compact_numbers(ax.yaxis)
    ax.set_xlabel(f"area ({rows[0].get('area_unit') or ''})")
    ax.set_ylabel(f"latency ({latency(rows[0])[1]})")
    title = f"{field} on {target}: area vs latency"
    ax.set_title(title if len(title) <= 60 else title[:58] + "...", fontsize=9)
    _legend_outside(ax)
    return _save(fig, out, f"pareto_{_slug(field)}_{target}", title, target, field)


def all_plots(rows: list[dict], out: Path) -> list[Plot]:
    plots = []
    targets = sorted({r["target"] for r in rows})
    for target in targets:
        for family in sorted({r["family"] or "" for r in rows}):
            p = latency_bars(rows, family, target, out)
            if p:
                plots.append(p)
        p = throughput_vs_d(rows, target, out)
        if p:
            plots.append(p)
    for field in sorted({r["field"] for r in rows}, key=field_order):
        for target in targets:
            p = pareto_plot(rows, field, target, out)
            if p:
                plots.append(p)
    return plots
