"""The IP files: written from design.json, deterministic, their ports the Verilog top's, and
a core FuseSoC accepts (and, with the testbench, runs)."""

import json
import re
import shutil
import subprocess
import sys

import pytest

from modforge import registry
from modforge.design import generate
from modforge.sim.verify import prepare

from .sim.toy import Toy


def vhdl_ports(text: str) -> dict[str, tuple[str, int]]:
    """name -> (in|out, width) of a VHDL component's port list (extended identifiers unwrapped)."""
    found = re.findall(r"^\s*\\?(\w+)\\?\s*:\s*(in|out)\s+(std_logic_vector\((\d+) downto 0\)|std_logic(?!_))",
                       text, re.M)
    return {name: (d, int(msb) + 1 if msb else 1) for name, d, _, msb in found}


def inst_ports(text: str) -> list[str]:
    """The port connections of an instantiation template, in order."""
    return re.findall(r"^\s*\.(\w+)\s*\(\1\)", text, re.M)


def core_name(directory) -> str:
    return next(line.split('"')[1] for line in (directory / next(directory.glob("*.core"))).read_text().splitlines()
                if line.startswith("name:"))


def fusesoc(*args, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fusesoc.main", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=600)


def test_ip_files_are_listed_apart_and_deterministic(tmp_path):
    alg = Toy()
    params = alg.parse({"w": "8"})
    one = generate(alg, params, tmp_path / "one")
    two = generate(alg, params, tmp_path / "two" / "deeper")
    top = one.top
    assert one.ip_files == [f"{top}_inst.v", f"{top}_component.vhd", f"{top}.f", f"{top}.core"]
    record = json.loads((tmp_path / "one" / "design.json").read_text())
    assert record["ip_files"] == one.ip_files and not set(record["files"]) & set(one.ip_files)
    assert record["family"] == "toy"
    for name in one.ip_files:
        assert (one.directory / name).read_bytes() == (two.directory / name).read_bytes(), name
        assert str(tmp_path) not in (one.directory / name).read_text()
    assert (one.directory / f"{top}.f").read_text().splitlines() == one.files
    core = (one.directory / f"{top}.core").read_text()
    assert core.startswith("CAPI=2:\n") and f'name: "modforge:toy:{top}:' in core
    assert "sim:" not in core   # no testbench yet


def test_ip_ports_follow_design_json(tmp_path):
    """The template and the component state every port of design.json with its width; the
    template carries each payload field's bit range."""
    alg = registry.lookup("gf2n-blakely")
    design = generate(alg, alg.parse({"n": "9"}), tmp_path)
    stated = {p["name"]: (p["direction"], p["width"]) for p in design.ports}
    component = (tmp_path / f"{design.top}_component.vhd").read_text()
    assert vhdl_ports(component) == stated
    assert f"component {design.top} is" in component and "\\i__payload\\" in component
    template = (tmp_path / f"{design.top}_inst.v").read_text()
    assert inst_ports(template) == [p["name"] for p in design.ports]
    for stream, fields in design.payload.items():
        for f in fields:
            assert f"//   [{f['msb']}:{f['lsb']}] {f['name']}: {f['encoding']}" in template, stream


def test_fusesoc_accepts_the_core(tmp_path):
    pytest.importorskip("fusesoc", reason="fusesoc not installed (pip install -e '.[test]')")
    alg = registry.lookup("gf2n-blakely")
    design = prepare(alg, alg.parse({"n": "9"}), tmp_path / "ip", 20)
    core = (design.directory / f"{design.top}.core").read_text()
    assert "  sim:" in core and '"vectors/in.hex": {file_type: user, copyto: "vectors/in.hex"}' in core
    name = core_name(design.directory)
    assert name == f"modforge:gf2n:{design.top}:{design.record()['modforge_version']}"
    proc = fusesoc("--cores-root", design.directory, "core-info", name, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"Name:        {name}" in proc.stdout and "sim" in proc.stdout


@pytest.mark.sim
def test_fusesoc_runs_the_testbench_and_the_template_compiles(tmp_path):
    pytest.importorskip("fusesoc", reason="fusesoc not installed (pip install -e '.[test]')")
    if shutil.which("iverilog") is None:   # CI installs every tool (.ci/run), so it never skips
        pytest.skip("iverilog not installed")
    alg = registry.lookup("gf2n-blakely")
    design = prepare(alg, alg.parse({"n": "9"}), tmp_path / "ip", 20)
    proc = fusesoc("--cores-root", design.directory, "run", "--target", "sim", core_name(design.directory),
                   cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "MODFORGE-VERDICT vectors=20 pass=20 fail=0" in proc.stdout
    assert "MODFORGE-PROGRESS" not in proc.stdout   # progress belongs to a terminal, not to a log
    wrapper = tmp_path / "wrap.v"
    wrapper.write_text("module wrap(input clk, input rst);\n"
                       + (design.directory / f"{design.top}_inst.v").read_text() + "endmodule\n")
    sources = (design.directory / f"{design.top}.f").read_text().split()
    proc = subprocess.run(["iverilog", "-g2005", "-s", "wrap", "-o", str(tmp_path / "w.vvp"), str(wrapper), *sources],
                          cwd=design.directory, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_ghdl_analyses_the_component(tmp_path):
    if shutil.which("ghdl") is None:
        pytest.skip("ghdl not installed (optional: the component's ports are checked without it)")
    alg = Toy()
    design = generate(alg, alg.parse({"w": "8"}), tmp_path)
    for std in ("93", "08"):
        proc = subprocess.run(["ghdl", "-a", f"--std={std}", f"--workdir={tmp_path}",
                               f"{design.top}_component.vhd"], cwd=tmp_path, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
