"""The algorithm contract: a new family is found, stored, reported, answered by `best` and
plotted from its own description (registry.Computes) without edits elsewhere; parameters
parse by their declared types; the package has no import circle and no family imports
another."""

import ast
import dataclasses
import gc
import json
import random
from pathlib import Path

import pytest

from modforge import registry
from modforge.errors import ParameterError
from modforge.explore import Store, best
from modforge.explore.pareto import parse_filters
from modforge.explore.plots import all_plots
from modforge.explore.report import tables
from modforge.registry import POW2, Algorithm, Computes, Operand, param
from tests.sim.toy import ToyCore

SRC = Path(__file__).resolve().parents[1] / "src" / "modforge"


@dataclasses.dataclass(frozen=True)
class RingParams:
    q: int = param(help="coefficient modulus")
    n: int = param(8, help="polynomial length", kind=POW2)
    style: str = param("fast", help="a free-form knob")
    shift: bool = param(False, help="a flag")


class TinyRing(Algorithm):
    """A made-up family: only its own description tells the store what it computes."""
    name = "tiny-ring"
    family = "tiny"
    parallelism = "n"
    title = "tiny polynomial-ring multiplier (test family)"
    paper = "none"
    Params = RingParams

    def operands(self, p):
        return [Operand("a", 4), Operand("b", 4)]

    def result_width(self, p):
        return 8

    def computes(self, p):
        return Computes("Z_q[x]/(f)", p.q, p.n, f"x^{p.n}+1", False, ("q", "n"))

    def congruence(self, p):
        return "C = A*B"

    def model(self, p, a, b):
        return a * b

    def random_operands(self, p, rng: random.Random):
        return (rng.getrandbits(4), rng.getrandbits(4))

    def build(self, p):
        return ToyCore(4, "none")

    def derive(self, p):
        return registry.Timing.iterative(4)

    def tag(self, p):
        return f"n{p.n}"


@pytest.fixture
def tiny(monkeypatch):
    monkeypatch.setitem(registry._REGISTRY, TinyRing.name, TinyRing())
    return registry.lookup(TinyRing.name)


def record(alg, params, lut, latency_ns):
    p = alg.parse(params)
    return {"algorithm": alg.name, "family": alg.family, "params": registry.canonical(p),
            "param_hash": registry.param_hash(alg, p), "target": "xc7", "freq_mhz": 0.0,
            "tool_versions": "test", "status": "done", "verification": {"ok": True},
            "metrics": {"lut": lut, "area": float(lut), "area_unit": "LUT", "latency_ns": latency_ns,
                        "latency_cycles": 5, "initiation_interval": 5, "atp": lut * latency_ns / 1000}}


def test_a_new_family_is_stored_reported_and_plotted(tiny, tmp_path):
    with Store(tmp_path / "r.sqlite") as store:
        store.put(record(tiny, {"q": "8192", "n": "8"}, 100, 50.0))
        store.put(record(tiny, {"q": "8192", "n": "8", "style": "slow"}, 60, 90.0))
        rows = store.rows()
        assert {r["field"] for r in rows} == {"Z_q[x]/(x^8+1)"} and {r["modulus"] for r in rows} == {"8192"}
        answer = best(store, parse_filters(["field=Z_q[x]/(x^8+1)"]), "xc7", "atp")
    assert answer["best"][0]["params"]["style"] == "fast"
    (table,) = tables(rows)
    text = json.dumps(table)
    assert "style=fast" in text and "style=slow" in text
    assert "q=8192" not in text and "n=8 " not in text          # the ring's own parameters title the table
    plots = all_plots(rows, tmp_path / "plots")
    assert any("Z_q" in p.title for p in plots)
    assert any(p.title.startswith("throughput per area vs parallelism") for p in plots)  # its declared knob


def test_parameters_parse_by_type(tiny):
    p = tiny.parse({"q": "0x2000", "n": "16", "shift": "1"})
    assert (p.q, p.n, p.shift) == (8192, 16, True)
    for args, rule in (({"q": "x"}, "must be an integer"), ({"q": "7", "n": "12"}, "power of two"),
                       ({"q": "7", "shift": "2"}, "bool"), ({"n": "8"}, "is required"),
                       ({"q": "7", "size": "3"}, "is not a parameter")):
        with pytest.raises(ParameterError, match=rule):
            tiny.parse(args)
    helps = dict((name, text) for name, text, _ in tiny.param_help())
    assert helps["n"].endswith("[power of two]") and helps["shift"].endswith("[bool: 0 or 1]")


def test_choices_come_from_the_type():
    ntt = registry.lookup("ntt-forward")
    with pytest.raises(ParameterError, match="reduction.*must be one of montgomery, barrett"):
        ntt.parse({"q": "0x80014001", "n": "64", "reduction": "nosuch"})
    assert ntt.parse({"q": "0x80014001", "n": "64", "buffers": "2"}).buffers == 2


def test_flags_keep_the_keys_of_older_designs():
    """A bool field hashes as the 0/1 int it was, so stored results keep their keys."""
    alg = registry.lookup("modmul-montgomery")
    a, b = alg.parse({"q": "0x80014001", "plain": "1"}), alg.parse({"q": "0x80014001", "plain": "true"})
    assert registry.param_hash(alg, a) == registry.param_hash(alg, b)


def test_the_core_is_required():
    class Partial(TinyRing):
        name = "partial"
        tag = None  # type: ignore[assignment]

    del Partial.tag
    Partial.__abstractmethods__ = frozenset({"tag"})
    with pytest.raises(TypeError):
        registry.register(Partial)


def test_a_capability_is_declared():
    class Framed(TinyRing):
        name = "framed"

        def in_beats(self, p, operands):
            return [operands[:1], operands[1:]]

    with pytest.raises(TypeError, match="frames = True"):
        registry.register(Framed)

    class Beats(TinyRing):
        name = "beats"

        def derive(self, p):
            return registry.Timing(cycles=4, latency=5, initiation_interval=5, frame_beats=2)

    with pytest.raises(RuntimeError, match="frames = True"):
        Beats().plan(Beats().parse({"q": "17"}))


def test_the_timing_is_stated_once():
    """An algorithm states cycles, latency and II in its derived plan; overriding the
    forwarding methods is refused, and the Plan reads the derived plan's figures."""
    class Restated(TinyRing):
        name = "restated"

        def latency(self, p):
            return 3

    with pytest.raises(TypeError, match="derive"):
        registry.register(Restated)
    alg = TinyRing()
    plan = alg.plan(alg.parse({"q": "17"}))
    assert (plan.cycles, plan.latency, plan.initiation_interval, plan.frame_beats, plan.result_beats) == (4, 5, 5, 1, 1)


def test_every_algorithm_describes_what_it_computes():
    for alg in registry.all_algorithms():
        params = alg.parse(dict(alg.grid()[0]))
        c = alg.computes(params)
        assert c.structure in ("GF(p^m)", "Z_q", "Z_q[x]/(f)")
        assert set(c.defined_by) <= {f.name for f in dataclasses.fields(alg.Params)}, alg.name


def imports(path: Path) -> list[str]:
    """The modforge modules a file imports, as absolute names."""
    package = ".".join(path.relative_to(SRC.parent).with_suffix("").parts)
    if path.name == "__init__.py":
        package += ".__init__"
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[:-node.level] if node.level else []
            name = ".".join(base + ([node.module] if node.module else []))
            out += [name] + [f"{name}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            out += [a.name for a in node.names]
    return [n for n in out if n.startswith("modforge")]


def test_no_family_imports_another():
    for path in (SRC / "families").rglob("*.py"):
        parts = path.relative_to(SRC / "families").parts
        if len(parts) < 2:
            continue
        for name in imports(path):
            if name.startswith("modforge.families."):
                assert name.split(".")[2] == parts[0], f"{path}: imports {name}"


def test_the_registry_stands_below_the_families():
    assert not [n for n in imports(SRC / "registry.py") if n.startswith("modforge.families")]
    from modforge import families
    assert set(families.FAMILIES) == {p.name for p in (SRC / "families").iterdir() if (p / "__init__.py").exists()}


def test_one_layout_a_stream():
    """The plan's layouts place the operands low to high as declared (lanes: an ArrayLayout,
    parts: a StructLayout); the vector packer packs through them, a lane operand given as one
    int or as its lanes; a lane count that does not divide the width is refused."""
    from modforge.sim.vectors import pack_operands

    flag = (Operand("lo", 3), Operand("f", 1))

    class Laned(TinyRing):
        name = "laned"

        def operands(self, p):
            return [Operand("a", 8, lanes=2), Operand("b", 4, parts=flag)]

    alg = Laned()
    params = alg.parse({"q": "17"})
    plan = alg.plan(params)
    assert plan.input_width == 12 and [(n, f.offset) for n, f in plan.input_layout] == [("a", 0), ("b", 8)]
    assert plan.output_width == 8 and plan.config_width == 0 and set(plan.layouts()) == {"i", "o"}
    assert pack_operands(alg, params, ([0x3, 0xa], 0x9)) == pack_operands(alg, params, (0xa3, 0x9)) == 0x9a3
    with pytest.raises(ValueError, match="laned: operand a"):
        pack_operands(alg, params, ([0x3, 0x1a], 0))
    with pytest.raises(ValueError, match="laned: operand b"):
        pack_operands(alg, params, (0, 0x10))
    with pytest.raises(RuntimeError, match="equal lanes"):
        Operand("c", 9, lanes=2)
    with pytest.raises(RuntimeError, match="parts"):
        Operand("c", 5, parts=flag)


@pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")     # the cores are read, not elaborated
def test_the_ports_are_the_core_s():
    """design.ports come from the built core's signature; a core whose payload is not as wide
    as the declared layout is an error naming the algorithm."""
    from modforge.design import ports

    alg = TinyRing()
    params = alg.parse({"q": "17"})
    stated = ports(alg.plan(params), alg.build(params))
    assert [(p["name"], p["direction"], p["width"]) for p in stated][2:] == [
        ("i__valid", "in", 1), ("i__ready", "out", 1), ("i__payload", "in", 8),
        ("o__valid", "out", 1), ("o__ready", "in", 1), ("o__payload", "out", 8)]

    class Wider(TinyRing):
        name = "wider"

        def operands(self, p):
            return [Operand("a", 4), Operand("b", 5)]

    wide = Wider()
    with pytest.raises(RuntimeError, match="wider: i__payload is 8 bits"):
        ports(wide.plan(wide.parse({"q": "17"})), wide.build(wide.parse({"q": "17"})))
    gc.collect()    # the unelaborated cores go while the filter above holds, not in a later test
