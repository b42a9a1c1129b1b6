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
from pathlib import Path

from ..errors import ParameterError, check_folder
from ..registry import describe
from ..synth.metrics import FPGA_TARGETS
from .pareto import area, atp, latency, pareto_front
from .plots import all_plots, field_order
from .store import Store

FORMATS = ("md", "html")


def _fmt(v, nd=4) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{nd}g}" if abs(v) < 1e6 else f"{v:.3e}"
    return str(v)


def _config(row) -> str:
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
        out.append({"title": title, "modulus": modulus, "head": head, "rows": body})
    return out


def _int(x):
    return int(x) if isinstance(x, float) and x.is_integer() else x


def _md_table(head, rows) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _html_table(head, rows) -> str:
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


def _markdown(intro: str, secs: list[dict], plots, failed: list[dict]) -> str:
    parts = ["# modforge results", "", intro, ""]
    for t in secs:
        parts += [f"## {t['title']}", "", _md_table(t["head"], t["rows"]), ""]
    if plots:
        parts += ["## Plots", ""]
        for p in plots:
            parts += [f"### {p.title}", "", f"![{p.title}](plots/{p.png.name}) ([SVG](plots/{p.svg.name}))", ""]
    if failed:
        parts += ["## Failed points", "", _md_table(FAIL_HEAD, _failures(failed)), ""]
    return "\n".join(parts)


def _html(intro: str, secs: list[dict], plots, failed: list[dict]) -> str:
    """One self-contained page: the PNGs embedded as base64."""
    style = ("body{font-family:sans-serif;max-width:1200px;margin:auto;padding:1em}"
             "table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #bbb;padding:2px 6px;"
             "font-size:13px;text-align:right}td:first-child,td:nth-child(2){text-align:left}img{max-width:100%}")
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>modforge results</title>"
             f"<style>{style}</style></head><body><h1>modforge results</h1><p>{html.escape(intro)}</p>"]
    for t in secs:
        parts.append(f"<h2>{html.escape(t['title'])}</h2>" + _html_table(t["head"], t["rows"]))
    if plots:
        parts.append("<h2>Plots</h2>")
        for p in plots:
            data = base64.b64encode(p.png.read_bytes()).decode()
            parts.append(f"<h3>{html.escape(p.title)}</h3><img alt='{html.escape(p.title)}' "
                         f"src='data:image/png;base64,{data}'>")
    if failed:
        parts.append("<h2>Failed points</h2>" + _html_table(FAIL_HEAD, _failures(failed)))
    parts.append("</body></html>")
    return "\n".join(parts)
