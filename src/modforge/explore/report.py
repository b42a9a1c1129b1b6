"""`modforge report`: tables per field/modulus and target, Pareto fronts, plots.

Markdown: DIR/report.md with the plots beside it in DIR/plots/ (PNG and SVG).
HTML: DIR/report.html, one self-contained file (the PNGs embedded as base64), plus the
same DIR/plots/. Only verified, synthesized results (status done) are in the tables;
failed points are listed with the reason in their own section.
"""

from __future__ import annotations

import base64
import html
import os
import shutil
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import ParameterError, check_folder
from ..registry import describe
from ..synth.metrics import FPGA_TARGETS
from .pareto import area, atp, latency, pareto_front
from .plots import Plot, all_plots, field_order
from .store import Store

FORMATS = ("md", "html")


def _fmt(v: Any, nd: int = 4) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{nd}g}" if abs(v) < 1e6 else f"{v:.3e}"
    return str(v)


def _config(row: dict) -> str:
    computes = describe(row["algorithm"], row["params"] or {})
    fixed = computes.defined_by if computes else ()
    rest = {k: v for k, v in (row["params"] or {}).items() if k not in fixed}
    return " ".join(f"{k}={v}" for k, v in rest.items()) or "-"


def tables(rows: list[dict]) -> list[dict]:
    """One table per (field, modulus, target): header, rows, Pareto-front marks."""
    out = []
    groups: dict = {}
    for r in rows:
        groups.setdefault((r["field"], r["modulus"] or "", r["target"]), []).append(r)
    for (field, modulus, target), group in sorted(groups.items(),
                                                  key=lambda kv: (field_order(kv[0][0]), kv[0][1], kv[0][2])):
        front = {id(r) for r in pareto_front(group)}
        fpga = target in FPGA_TARGETS
        head = ["algorithm", "config", "cycles", "II"]
        head += ["LUT", "FF", "DSP"] if fpga else (["gates", "FF", "depth"] if target == "generic" else ["cells", "FF"])
        head += ["Fmax MHz", "latency", "area", "ATP", "Pareto"]
        body = []
        for r in sorted(group, key=lambda r: (r["algorithm"], latency(r)[0] or 0)):
            m = r["metrics"] or {}
            res = [r.get("lut"), r.get("ff"), r.get("dsp")] if fpga else (
                [r.get("gates"), r.get("ff"), r.get("depth")] if target == "generic" else [m.get("cells"), r.get("ff")])
            lat, lunit = latency(r)
            a, aunit = area(r)
            body.append([r["algorithm"], _config(r), _fmt(r.get("latency_cycles")), _fmt(r.get("initiation_interval")),
                         *[_fmt(_int(x)) for x in res], _fmt(r.get("fmax_mhz")),
                         f"{_fmt(lat)} {lunit}", f"{_fmt(a)} {aunit}", _fmt(atp(r)[0]),
                         "*" if id(r) in front else ""])
        freq = sorted({r["freq_mhz"] for r in group if r["freq_mhz"]})
        asked = f" ({', '.join(f'{f:g}' for f in freq)} MHz asked)" if freq else ""
        title = f"{field}" + (f" mod {modulus}" if modulus and modulus not in field else "") + f" on {target}{asked}"
        out.append({"title": title, "field": field, "target": target, "modulus": modulus, "head": head,
                    "rows": body})
    return out


def _int(x: Any) -> Any:
    return int(x) if isinstance(x, float) and x.is_integer() else x


def _md_table(head: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _html_table(head: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    h = "".join(f"<th>{html.escape(c)}</th>" for c in head)
    b = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{h}</tr></thead><tbody>{b}</tbody></table>"


def _failures(rows: list[dict]) -> list[list[str]]:
    return [[r["algorithm"], " ".join(f"{k}={v}" for k, v in r["params"].items()), r["target"], r["stage"] or "",
             (r["message"] or "").splitlines()[0][:200] if r["message"] else ""] for r in rows]


def write_report(db: str | Path, fmt: str = "md", out: str | Path = "report") -> Path:
    """Write the report into a temporary folder beside `out` and move it into place only when
    it is complete: a failed report leaves nothing behind, and a good one replaces only the
    report's own files in an existing folder."""
    if fmt not in FORMATS:
        raise ParameterError("report", "--format", f"must be one of {', '.join(FORMATS)}", fmt)
    if not Path(db).is_file():
        raise ParameterError("report", "--db", "must be an existing results database", str(db))
    out = Path(out)
    check_folder("report", "-o", out)
    with Store(db, command="report") as store:
        done = store.rows("status = 'done'")
        failed = store.rows("status = 'failed'")
    anchor = next(p for p in (out.parent, *out.parent.parents) if p.exists())   # same file system as out
    tmp = anchor / f".{out.name}.{uuid.uuid4().hex[:12]}.tmp"   # mkdir, not mkdtemp: the umask's mode, not 0700
    tmp.mkdir()
    try:
        name = _write(tmp, fmt, Path(db).name, done, failed)
        _publish(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out / name


def _publish(tmp: Path, out: Path) -> None:
    """Move the finished report to `out`: the whole folder when `out` is new, else its files one
    by one (whatever else `out` holds stays)."""
    if not out.exists():
        out.parent.mkdir(parents=True, exist_ok=True)
        os.replace(tmp, out)
        return
    for src in sorted(tmp.rglob("*")):
        if src.is_file():
            dst = out / src.relative_to(tmp)
            dst.parent.mkdir(parents=True, exist_ok=True)
            os.replace(src, dst)
    shutil.rmtree(tmp)


def _write(out: Path, fmt: str, db_name: str, done: list[dict], failed: list[dict]) -> str:
    """Write report.md or report.html and plots/ into `out`; the report's file name."""
    plots = all_plots(done, out / "plots")
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    intro = (f"{len(done)} verified and synthesized results, {len(failed)} failed points, from {db_name} "
             f"({stamp}). Latency is in ns where the target gives a clock (ecp5 Fmax, asic critical path), else "
             f"in cycles; area is LUT-eq = LUT + FF/2 + 100 DSP + 300 BRAM (FPGA), um2 (asic) or gates + FF "
             f"(generic); * marks the Pareto front of area vs latency.")
    write = _markdown if fmt == "md" else _html
    name = f"report.{fmt}"
    (out / name).write_text(write(intro, tables(done), plots, failed))
    return name


FAIL_HEAD = ["algorithm", "params", "target", "stage", "reason"]


def _beside(secs: list[dict], plots: list[Plot]) -> tuple[list[Plot | None], list[Plot]]:
    """For each table its Pareto plot (beside the first table of its field and target), and the
    plots that are not any one table's (latency per family, throughput: one per target)."""
    pareto = {(p.field, p.target): p for p in plots if p.field is not None}
    placed = []
    for t in secs:
        placed.append(pareto.pop((t["field"], t["target"]), None))
    return placed, [p for p in plots if p.field is None] + list(pareto.values())


def _markdown(intro: str, secs: list[dict], plots: list[Plot], failed: list[dict]) -> str:
    """Each table with its Pareto plot right under it; the per-target plots after the tables."""
    parts = ["# modforge results", "", intro, ""]
    placed, rest = _beside(secs, plots)
    for t, p in zip(secs, placed, strict=True):
        parts += [f"## {t['title']}", "", _md_table(t["head"], t["rows"]), ""]
        if p:
            parts += [f"![{p.title}](plots/{p.png.name}) ([SVG](plots/{p.svg.name}))", ""]
    if rest:
        parts += ["## Plots", ""]
        for p in rest:
            parts += [f"### {p.title}", "", f"![{p.title}](plots/{p.png.name}) ([SVG](plots/{p.svg.name}))", ""]
    if failed:
        parts += ["## Failed points", "", _md_table(FAIL_HEAD, _failures(failed)), ""]
    return "\n".join(parts)


# a table and its plot side by side (the plot shrinks to fit, or wraps under a wide table); the
# per-target plots first in their target's section, in a row
STYLE = """
body{font-family:sans-serif;max-width:1800px;margin:auto;padding:1em}
table{border-collapse:collapse;margin:.5em 0}
td,th{border:1px solid #bbb;padding:2px 6px;font-size:13px;text-align:right;white-space:nowrap}
td:first-child,td:nth-child(2){text-align:left}
.result{display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start;margin:0 0 2em}
.result .table{flex:0 1 auto;min-width:0;overflow-x:auto}
.result figure{flex:1 1 420px;min-width:360px;max-width:660px}
.overview{display:flex;flex-wrap:wrap;gap:1.5em;align-items:flex-start;margin:0 0 2em}
figure{margin:0}
figure img{max-width:100%;height:auto}
"""


def _figure_html(p: Plot) -> str:
    data = base64.b64encode(p.png.read_bytes()).decode()
    width, height = p.size()    # the page is laid out before the images are decoded: no jumps
    return (f"<figure class='plot'><img alt='{html.escape(p.title)}' width='{width}' height='{height}' "
            f"src='data:image/png;base64,{data}'></figure>")


def _html(intro: str, secs: list[dict], plots: list[Plot], failed: list[dict]) -> str:
    """One self-contained page (the PNGs embedded as base64), a section per target: its
    overview plots, then the tables of each field (one per modulus) with its Pareto plot beside them."""
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>modforge results</title>"
             f"<style>{STYLE}</style></head><body><h1>modforge results</h1><p>{html.escape(intro)}</p>"]
    placed, rest = _beside(secs, plots)
    for target in sorted({t["target"] for t in secs}):
        parts.append(f"<h2>Results on {html.escape(target)}</h2>")
        overview = [p for p in rest if p.target == target]
        if overview:
            parts.append("<div class='overview'>" + "".join(_figure_html(p) for p in overview) + "</div>")
        fields: dict[str, tuple[list[str], list]] = {}    # tables sorted by field: its moduli are adjacent
        for t, p in zip(secs, placed, strict=True):
            if t["target"] == target:
                tables_of, plots_of = fields.setdefault(t["field"], ([], []))
                tables_of.append(f"<h3>{html.escape(t['title'])}</h3>" + _html_table(t["head"], t["rows"]))
                plots_of += [p] if p else []
        for tables_of, plots_of in fields.values():
            parts.append("<section class='result'><div class='table'>" + "".join(tables_of) + "</div>"
                         + "".join(_figure_html(p) for p in plots_of) + "</section>")
    if failed:
        parts.append("<h2>Failed points</h2>" + _html_table(FAIL_HEAD, _failures(failed)))
    parts.append("</body></html>")
    return "\n".join(parts)
