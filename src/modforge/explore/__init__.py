"""Design-space exploration: sweep files, the results store, runners (local processes or a
Dask cluster), Pareto fronts, the recommendation query, plots and reports."""

from .pareto import best, pareto_front
from .run import Summary, run_sweep
from .store import DEFAULT_DB, Store, field_of, tool_versions
from .sweep import Point, Sweep, expand, load

__all__ = ["DEFAULT_DB", "Point", "Store", "Summary", "Sweep", "best", "expand", "field_of", "load",
           "pareto_front", "run_sweep", "tool_versions"]
