"""Generated files: deterministic, headed, one module per file, design.json complete."""

import json
from pathlib import Path

from modforge.design import generate, split_modules
from modforge.registry import all_algorithms

from .sim.toy import Toy


def test_byte_identical_and_header(tmp_path):
    alg = Toy()
    params = alg.parse({"w": "8"})
    one = generate(alg, params, tmp_path / "one")
    two = generate(alg, params, tmp_path / "two")
    assert one.files == two.files
    for name in one.files:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    text = (tmp_path / "one" / f"{one.top}.v").read_text()
    for needle in ("modforge 0.1.0", "command: modforge generate toy-mul w=8 bug=none", "output: C = A*B",
                   "latency 9 cycles", "initiation interval 9", "valid/ready"):
        assert needle in text
    # no source locations: the files do not name the install path, and equal in every checkout
    assert "src =" not in text and str(Path(__file__).parents[1]) not in text
    record = json.loads((tmp_path / "one" / "design.json").read_text())
    assert record["top"] == one.top and record["latency"] == 9 and len(record["param_hash"]) == 64
    assert record["ports"]["i__payload"] == 16


def test_split_modules():
    text = "module a(x);\nendmodule\n(* keep *)\nmodule \\b (y);\nendmodule\n"
    assert list(split_modules(text)) == ["a", "b"]


def test_module_names_are_deterministic_and_distinct():
    names = set()
    for alg in all_algorithms():
        for cfg in alg.grid():
            params = alg.parse(cfg)
            name = alg.module_name(params)
            assert name == alg.module_name(alg.parse(cfg))
            assert name.isidentifier()
            names.add(name)
    assert len(names) == sum(len(a.grid()) for a in all_algorithms())


def test_param_hash_survives_a_new_defaulted_parameter():
    """A parameter added with a default keeps the keys of existing designs (a resumed sweep
    does not redo them); a non-default value makes a new key."""
    import dataclasses

    from modforge.registry import param_hash

    alg = Toy()
    params = alg.parse({"w": "8"})

    @dataclasses.dataclass(frozen=True)
    class Grown(type(params)):
        extra: int = 0

    assert param_hash(alg, Grown(**dataclasses.asdict(params))) == param_hash(alg, params)
    assert param_hash(alg, Grown(**dataclasses.asdict(params), extra=1)) != param_hash(alg, params)
