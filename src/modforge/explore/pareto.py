"""Figures of merit of stored results, the Pareto front, and the recommendation query.

Figures (the same for the tables, the plots and `modforge best`):
  latency   latency_ns where the target gives a clock (ecp5 Fmax, asic critical path),
            else latency in cycles (generic, xc7, xcup: no timing)
  area      Metrics.area: LUT-eq (FPGA), um2 (asic), gates + FF (generic)
  atp       area x latency: Metrics.atp (FPGA; the same number as area_time), area_time
            (asic), area x cycles (others)
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..errors import ParameterError
from ..registry import key_values
from ..synth.metrics import FPGA_TARGETS
from .store import Store

MINIMIZE = ("latency", "area", "atp")
#: a figure of merit of a stored row: (value or None, unit)
Figure = Callable[[dict], tuple[float | None, str]]


def latency(row: dict) -> tuple[float | None, str]:
    if row.get("latency_ns") is not None:
        return row["latency_ns"], "ns"
    if row.get("latency_cycles") is not None:
        return row["latency_cycles"], "cycles"
    return None, ""


def area(row: dict) -> tuple[float | None, str]:
    return row.get("area"), row.get("area_unit") or ""


def atp(row: dict) -> tuple[float | None, str]:
    a, unit = area(row)
    if row.get("atp") is not None:
        return row["atp"], f"{unit} x us"
    if row.get("area_time") is not None:
        return row["area_time"], f"{unit} x us"
    lat, lunit = latency(row)
    if a is None or lat is None:
        return None, ""
    return a * lat, f"{unit} x {lunit}"


FIGURES = {"latency": latency, "area": area, "atp": atp}


def pareto_front(rows: list[dict], x: Figure = area, y: Figure = latency) -> list[dict]:
    """The rows no other row beats in both x and y (both minimized), sorted by x."""
    pts: list[tuple[float, float, dict]] = []
    for r in rows:
        xv, yv = x(r)[0], y(r)[0]
        if xv is not None and yv is not None:
            pts.append((xv, yv, r))
    pts.sort(key=lambda p: (p[0], p[1]))
    front, best_y = [], float("inf")
    for _, yv, r in pts:
        if yv < best_y:
            front.append(r)
            best_y = yv
    return front


#: the labels of Computes.label, spaces and case aside: GF(2^163), GF(2)[x]/(x^163+x^82+1), Z_q 32b, Z_q[x]/(x^256+1)
FIELD_FORMS = (r"gf\(\d+\^\d+\)", r"gf\(\d+\)\[x\]/\(.+\)", r"z_q\d+b", r"z_q\[x\]/\(.+\)")


def parse_filters(items: list[str] | None) -> dict[str, str]:
    """key=value filters; a malformed one (no '=', a field that no label can match) is said
    here, not answered with 'no stored result matches'."""
    out = key_values("best", items, [*COLUMNS, "a parameter"])
    field = out.get("field")
    if field is not None and not any(re.fullmatch(form, field.replace(" ", "").lower()) for form in FIELD_FORMS):
        raise ParameterError("best", "field", "must be a field or ring as stored: GF(p^m) such as GF(2^163), "
                             "GF(p)[x]/(f) (a ring), Z_q <bits>b such as Z_q 32b, or Z_q[x]/(f)", field)
    return out


COLUMNS = ("field", "algorithm", "family", "modulus", "sweep")   # filters on a stored column, not a parameter


def check_filters(filters: dict[str, str], rows: list[dict]) -> None:
    """A key that is neither a column nor a parameter of a stored design would match nothing
    (or, ignored, everything): name it instead of answering a question nobody asked."""
    params = sorted({k for r in rows for k in (r.get("params") or {})})
    for key, value in filters.items():
        if key not in COLUMNS and key not in params:
            known = ", ".join(params) or "none stored"
            raise ParameterError("best", key, f"is not a filter: must be {', '.join(COLUMNS)} or a parameter of a "
                                 f"stored design ({known})", value)


def _matches(row: dict, filters: dict[str, str]) -> bool:
    for key, want in filters.items():
        if key in COLUMNS:
            have = row.get(key)
        else:
            have = (row.get("params") or {}).get(key)
        if have is None:
            return False
        if str(have).replace(" ", "").lower() != want.replace(" ", "").lower():
            return False
    return True


def best(store: Store, filters: dict[str, str], target: str | None, minimize: str = "latency",
         max_luts: int | None = None, top: int = 5) -> dict:
    """The best stored designs for a field (or any key=value filter) on a target."""
    from ..synth.yosys import TARGETS
    if minimize not in MINIMIZE:
        raise ParameterError("best", "--minimize", f"must be one of {', '.join(MINIMIZE)}", minimize)
    if target is not None and target not in TARGETS:
        raise ParameterError("best", "--target", f"must be one of {', '.join(TARGETS)}", target)
    if max_luts is not None and max_luts < 0:
        raise ParameterError("best", "--max-luts", "must be >= 0", max_luts)
    if top < 1:
        raise ParameterError("best", "--top", "must be >= 1", top)
    stored = store.rows()
    check_filters(filters, stored)
    rows = [r for r in stored if r["status"] == "done" and _matches(r, filters)]
    if target is None:
        targets = sorted({r["target"] for r in rows})
        if len(targets) > 1:
            raise ParameterError("best", "--target", f"is needed: the results span {', '.join(targets)}", "<none>")
        target = targets[0] if targets else None
    rows = [r for r in rows if r["target"] == target]
    if max_luts is not None:
        if target not in FPGA_TARGETS:
            raise ParameterError("best", "--max-luts", f"needs an FPGA target ({', '.join(FPGA_TARGETS)})", target)
        rows = [r for r in rows if r.get("lut") is not None and r["lut"] <= max_luts]
    fig = FIGURES[minimize]
    ranked = sorted((r for r in rows if fig(r)[0] is not None),
                    key=lambda r: (fig(r)[0], area(r)[0] or 0, latency(r)[0] or 0))
    out = []
    for r in ranked[:top]:
        out.append({"algorithm": r["algorithm"], "params": r["params"], "field": r["field"],
                    "modulus": r["modulus"], "target": r["target"], "freq_mhz": r["freq_mhz"] or None,
                    minimize: fig(r)[0], "unit": fig(r)[1],
                    "latency": latency(r)[0], "latency_unit": latency(r)[1], "area": r.get("area"),
                    "atp": atp(r)[0], "atp_unit": atp(r)[1],
                    "area_unit": r.get("area_unit"), "lut": r.get("lut"), "fmax_mhz": r.get("fmax_mhz"),
                    "cycles": r.get("latency_cycles"), "param_hash": r["param_hash"]})
    return {"filters": filters, "target": target, "minimize": minimize, "max_luts": max_luts,
            "candidates": len(rows), "best": out}
