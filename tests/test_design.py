"""Generated files: deterministic, headed, one module per file, design.json complete."""

import json
import re
from pathlib import Path

import pytest

from modforge import __version__
from modforge.design import generate, split_modules
from modforge.registry import all_algorithms

from .sim.toy import Toy
from .test_ip import inst_ports, vhdl_ports


def test_byte_identical_and_header(tmp_path):
    alg = Toy()
    params = alg.parse({"w": "8"})
    one = generate(alg, params, tmp_path / "one")
    two = generate(alg, params, tmp_path / "two")
    assert one.files == two.files
    for name in one.files:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    text = (tmp_path / "one" / f"{one.top}.v").read_text()
    for needle in (f"modforge {__version__}", "command: modforge generate toy-mul w=8 bug=none", "output: C = A*B",
                   "latency 9 cycles", "initiation interval 9", "valid/ready"):
        assert needle in text
    # no source locations: the files do not name the install path, and equal in every checkout
    assert "src =" not in text and str(Path(__file__).parents[1]) not in text
    record = json.loads((tmp_path / "one" / "design.json").read_text())
    assert record["top"] == one.top and record["latency"] == 9 and len(record["param_hash"]) == 64
    assert {p["name"]: p["width"] for p in record["ports"]}["i__payload"] == 16


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


def verilog_ports(text: str) -> dict[str, tuple[str, int]]:
    """name -> (in|out, width) of a module's port declarations."""
    found = re.findall(r"^\s*(input|output)\s+(?:wire\s+|reg\s+)?(?:\[(\d+):0\]\s+)?\\?(\w+)\s*;", text, re.M)
    return {name: ({"input": "in", "output": "out"}[d], int(msb or 0) + 1) for d, msb, name in found}


def contract_configs():
    """Each algorithm's first grid configuration, and every one with a cfg stream."""
    for alg in all_algorithms():
        for k, cfg in enumerate(alg.grid()):
            if k == 0 or cfg.get("twiddles") == "load":
                yield alg, cfg


CONTRACT = list(contract_configs())


@pytest.mark.parametrize("alg, cfg", CONTRACT,
                         ids=[alg.name + ("-load" if "twiddles" in cfg else "") for alg, cfg in CONTRACT])
def test_port_contract(tmp_path, alg, cfg):
    """design.json states every port of the top module (name, direction, width) as the
    Verilog declares it, the bit map of every payload tiles it exactly, and the header
    carries both."""
    design = generate(alg, alg.parse(cfg), tmp_path / alg.name)
    text = (design.directory / f"{design.top}.v").read_text()
    declared = verilog_ports(text.split(f"module {design.top}(")[1])
    stated = {p["name"]: (p["direction"], p["width"]) for p in design.ports}
    assert stated == declared, alg.name
    widths = {p["name"]: p["width"] for p in design.ports}
    for stream, fields in design.payload.items():
        assert [f["lsb"] for f in fields] == [0] + [f["msb"] + 1 for f in fields[:-1]], alg.name
        assert fields[-1]["msb"] + 1 == widths[f"{stream}__payload"], (alg.name, stream)
        assert all(f["encoding"] and f["domain"] for f in fields), (alg.name, stream)
        for f in fields:
            assert f"//   {stream}__payload[{f['msb']}:{f['lsb']}] {f['name']}: " in text
            assert f.get("lanes", 1) * f.get("lane_width", f["width"]) == f["width"], (alg.name, f["name"])
            parts = f.get("parts", [])        # an operand's own fields tile it, and the header lists them
            assert not parts or [p["lsb"] for p in parts] == [f["lsb"]] + [p["msb"] + 1 for p in parts[:-1]]
            assert not parts or parts[-1]["msb"] == f["msb"], (alg.name, f["name"])
            for p in parts:
                assert f"//     {stream}__payload[{p['msb']}:{p['lsb']}] {p['name']}: " in text
    assert design.reset and design.latency_from and design.computes["label"]
    assert "(* src" not in "".join((design.directory / f).read_text() for f in design.files)  # no install path
    assert ("cfg__payload" in widths) == bool(design.config_width)
    component = (design.directory / f"{design.top}_component.vhd").read_text()
    assert vhdl_ports(component) == declared, alg.name   # the VHDL component is the Verilog top
    assert inst_ports((design.directory / f"{design.top}_inst.v").read_text()) == list(stated), alg.name
