"""The command line: bad input is a one-line error with exit 2 and nothing written."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from modforge.cli import main
from tests.math.test_fmlm3 import TABLE6


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv, needle", [
    (["generate", "no-such-algorithm", "n=9"], "argument 'algorithm' must be one of"),
    (["generate", "gf2n-blakely", "n=9", "colour=red"], "'colour' is not a parameter"),
    (["generate", "gf2n-blakely", "n=nine"], "'n' must be an integer"),
    (["generate", "gf2n-blakely", "n"], "got 'n', expected KEY=VALUE (did you mean n=VALUE? keys: n, poly, serial)"),
    (["poly", "check", "x^571+x^286+1"], "got 'x^571+x^286+1', expected KEY=VALUE (did you mean poly=x^571+x^286+1?"),
    (["poly", "check", "5"], "poly check: got '5', expected KEY=VALUE (did you mean poly=5? keys: p, poly)"),
    (["generate", "gf2n-rffiko", "n=9", "poly=x^9+x^4+1"], "gf2n-rffiko: argument 'poly'"),
    (["generate", "gfpm-mse-digit", "m=8", "poly=x^8+1", "D=2"], "reducible"),
    (["generate", "gfpm-mse-digit", "m=11", "poly=auto", "D=0"], "argument 'D'"),
    (["generate", "gfpm-mse-digit", "m=11", "poly=auto", "D=12"], "argument 'D'"),
    (["generate", "gfpm-mse-digit", "p=4", "m=11", "poly=auto", "D=2"], "argument 'p'"),
    (["generate", "gfpm-mse-digit", "m=11", "poly=x^12+x^3+1", "D=2"], "argument 'poly'"),
    (["verify", "gf2n-blakely", "n=9", "--sim", "modelsim"], "argument '--sim'"),
    (["poly", "check", "p=6", "poly=x^3+x+1"], "argument 'p' must be a prime"),
    (["poly", "irreducible", "p=2", "degree=1"], "argument 'degree'"),
    (["rsa", "params", "l=0"], "argument 'l' must be in 2..8192, got l=0"),
    (["rsa", "params", "l=-5"], "argument 'l' must be in 2..8192"),
    (["rsa", "params", "l=100000"], "argument 'l' must be in 2..8192, got l=100000"),
    (["rsa", "params", "l=2k"], "argument 'l' must be an integer (int in 2..8192)"),
    (["rsa", "params", "2048"], "rsa params: got '2048', expected KEY=VALUE (did you mean l=2048?"),
    (["rsa", "params", "l=2048", "P=48"], "argument 'P' must be a power of two"),
    (["rsa", "params", "l=64", "P=128"], "argument 'P' must be at most l=64"),
    (["rsa", "params", "l=2048", "P=64", "u=32", "c=1", "algorithm=2"], "eq. (13)"),
    (["rsa", "params", "l=3072", "P=128", "u=24", "c=1/2", "algorithm=3"], "eq. (19)"),
    (["rsa", "params", "l=2048", "P=64", "u=32", "c=x", "algorithm=2"], "argument 'c'"),
    (["rsa", "params", "l=2048", "u=32"], "argument 'P' is required"),
    (["rsa", "params", "l=2048", "N=7"], "'N' is not a parameter"),
])
def test_bad_input_exits_2_and_writes_nothing(tmp_path, capsys, monkeypatch, argv, needle):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *argv, *(["-o", "out"] if argv[0] in ("generate",) else []))
    assert code == 2
    assert needle in err, err
    assert "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_console_script_exit_code(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "modforge.cli", "generate", "gf2n-blakely", "n=1"],
                          capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: gf2n-blakely: argument 'n'")
    assert "Traceback" not in proc.stderr


def test_list_json(capsys):
    code, out, _ = run(capsys, "list", "--json")
    assert code == 0
    names = {a["name"] for a in json.loads(out)}
    assert {"gf2n-blakely", "gf2n-rffiko", "gfpm-mse-digit", "gfpm-lse-digit"} <= names


def test_generate_writes_design(tmp_path, capsys):
    code, out, _ = run(capsys, "generate", "gf2n-blakely", "n=9", "poly=x^9+x^4+1", "-o", str(tmp_path / "d"),
                       "--vectors", "20", "--json")
    assert code == 0
    rec = json.loads(out)
    assert rec["cycles"] == 9 and rec["latency"] == 10
    written = {p.name for p in (tmp_path / "d").iterdir()}
    assert {"design.json", "tb.v", "vectors", rec["top"] + ".v"} <= written
    assert len((tmp_path / "d" / "vectors" / "in.hex").read_text().splitlines()) == 20


def test_poly_check_and_search(capsys):
    code, out, _ = run(capsys, "poly", "check", "p=2", "poly=x^107+x^54+1", "--json")
    rec = json.loads(out)
    assert code == 0 and rec["kind"] == "ring" and not rec["irreducible"]
    code, out, _ = run(capsys, "poly", "irreducible", "p=2", "degree=233", "kind=trinomial", "--json")
    assert code == 0 and json.loads(out)["polynomials"] == ["x^233+x^74+1"]
    code, out, _ = run(capsys, "poly", "irreducible", "p=2", "degree=163", "--json")
    assert json.loads(out)["polynomials"] == ["x^163+x^7+x^6+x^3+1"]


@pytest.mark.sim
def test_verify_passes(capsys):
    code, out, _ = run(capsys, "verify", "gf2n-montgomery", "n=9", "poly=x^9+x^4+1", "--vectors", "50",
                       "--sim", "icarus", "--json")
    rec = json.loads(out)
    assert code == 0 and rec["simulations"][0]["ok"] and rec["simulations"][0]["passed"] == 50


@pytest.mark.sim
def test_verify_failure_exits_1(capsys, monkeypatch):
    from modforge.registry import lookup
    alg = lookup("gf2n-blakely")
    monkeypatch.setattr(type(alg), "model", lambda self, params, a, b: 0)  # a wrong model
    code, out, _ = run(capsys, "verify", "gf2n-blakely", "n=9", "--vectors", "20", "--sim", "icarus")
    assert code == 1
    assert "MISMATCH" in out


@pytest.mark.parametrize("args", [["generate", "--nosuch"], ["verify"], ["nosuchverb"],
                                  ["synth", "gf2n-blakely", "--target"], ["generate", "poly-fast", "n=100", "M=3"],
                                  ["list", "--family"]])
def test_usage_errors_are_one_line(args):
    """Through a pipe, whatever typer/click version: one line on stderr, exit 2, no traceback."""
    proc = subprocess.run([sys.executable, "-m", "modforge.cli", *args], capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in proc.stderr, proc.stderr


def test_piped_output_is_plain():
    """Not a terminal: no wrapping, no markup eaten (Z_q[x] stays)."""
    proc = subprocess.run([sys.executable, "-m", "modforge.cli", "list", "--family", "polyring"],
                          capture_output=True, text=True)
    assert "Z_q[x]/(x^n+1)" in proc.stdout and max(len(line) for line in proc.stdout.splitlines()) > 100


@pytest.mark.sim
@pytest.mark.parametrize("out", ["outdir", "with space/ünïcode"])
def test_verify_into_a_relative_folder_on_a_cold_cache(tmp_path, out):
    """From another folder, a relative -o (with a space and unicode, which GNU make cannot
    build in) on an empty cache: both simulators pass."""
    env = dict(os.environ, MODFORGE_CACHE=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, "-m", "modforge.cli", "verify", "gf2n-blakely", "n=13", "--vectors", "20",
                           "-o", out, "--json"], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert all(s["ok"] for s in json.loads(proc.stdout)["simulations"])


@pytest.mark.parametrize("verb", ["generate", "verify", "synth"])
@pytest.mark.parametrize("below", [False, True])
def test_out_on_an_existing_file_is_refused(tmp_path, capsys, verb, below):
    """-o on a file (or a path below one): one line, exit 2, nothing written, the file kept."""
    taken = tmp_path / "taken"
    taken.write_text("keep me\n")
    out = taken / "sub" if below else taken
    code, _, err = run(capsys, verb, "gf2n-blakely", "n=9", "-o", str(out))
    assert code == 2
    what = f"{taken} is an existing file" if below else "it is an existing file"
    assert err == f"error: {verb}: argument '-o' must be a folder ({what}), got -o={out}\n", err
    assert taken.read_text() == "keep me\n" and [p.name for p in tmp_path.iterdir()] == ["taken"]


def test_rsa_params_json(capsys):
    code, out, _ = run(capsys, "rsa", "params", "l=2048", "--json")
    assert code == 0
    sets = json.loads(out)["sets"]
    assert len(sets) == 2 * 11                                    # P = 2..2048, both algorithms
    row = next(r for r in sets if r["P"] == 128 and r["algorithm"] == 3)
    assert (row["u"], row["c"], row["M"], row["omega"], row["A"], row["selected"]) == (
        16, "1/2", "2^64+1", "2", "2^48 - 2^16", True)
    assert row["rule"].startswith("eq. (19)")
    assert [r["P"] for r in sets if r["selected"]] == [2, 4, 8, 16, 32, 64, 128]


@pytest.mark.parametrize("bits, alg, K, P, u", TABLE6)
def test_rsa_params_lists_table6(capsys, bits, alg, K, P, u):
    """Every Table 6 set is listed for its l with the inequality that admits it (eq. 13 for
    Alg 2, eq. 19 for Alg 3), and checking it alone gives the same row."""
    rule = "eq. (13)" if alg == 2 else "eq. (19)"
    code, out, _ = run(capsys, "rsa", "params", f"l={bits}", "--json")
    assert code == 0
    (row,) = [r for r in json.loads(out)["sets"] if (r["algorithm"], r["P"], r["u"]) == (alg, P, u)]
    assert row["M"] == f"2^{K}+1" and row["rule"].startswith(rule) and row["l_max"] == bits
    code, out, _ = run(capsys, "rsa", "params", f"l={bits}", f"P={P}", f"u={u}", f"c={row['c']}",
                       f"algorithm={alg}", "--json")
    assert code == 0 and json.loads(out)["sets"] == [row]


def test_rsa_params_one_set_and_human(capsys):
    code, out, _ = run(capsys, "rsa", "params", "l=1024", "P=32", "u=32", "c=3", "algorithm=2", "--json")
    assert code == 0
    (row,) = json.loads(out)["sets"]
    assert (row["M"], row["rule"][:8], row["selected"]) == ("2^96+1", "eq. (13)", True)
    code, out, _ = run(capsys, "rsa", "params", "l=1024", "P=64")
    assert code == 0 and "2^64+1" in out and "eq. (19)" in out


# ---------------------------------------------------------------- issue 35: bad input that still hurts

BOX = set("─━│┃┏┓┗┛┡┩├┤┬┴┼╇╈═║╭╮╰╯")


@pytest.mark.parametrize("argv, needle", [
    (["generate", "gf2n-blakely", "n=100000000"], "gf2n-blakely: argument 'n' must be in 2..1024, got n=100000000"),
    (["generate", "gfpm-mse-digit", "p=3", "m=5000", "poly=auto"], "argument 'm' must be in 2..1024"),
    (["generate", "ntt-forward", "q=0x80014001", "n=64", "pe=128"], "argument 'pe' must be a power of two in 1..64"),
    (["generate", "modmul-barrett", f"q={(1 << 300) + 1}"], "argument 'q' must be at most 128 bits wide"),
    (["generate", "rsa-montgomery", "l=100000"], "argument 'l' must be in 8..8192"),
    (["list", "--family", "nosuch"], "list: argument '--family' must be one of gf2n,"),
    (["best", "field=GF(2^x)"], "best: argument 'field' must be a field or ring as stored"),
    (["best", "GF(2^163)"], "best: got 'GF(2^163)', expected KEY=VALUE"),
    (["primes", "roots", "q=12289", "n=4194304"], "argument 'n' must be a power of two in 1..2^20"),
    (["poly", "irreducible", "degree=1000000"], "argument 'degree' must be in 2..100000"),
    (["poly", "check", "p=3", f"poly=x^{300}+x+2"], "argument 'poly' must have degree at most 256 over GF(3)"),
    (["config", "gf2n-blakely", "n=9", "--prime", "3"], "config: argument 'ALGORITHM' must have a cfg stream (rsa-"),
    (["generate", "gf2n-blakely", "n=9", "--vectors", "1000000000"], "argument '--vectors' must be in 1..1000000"),
    (["primes", "form", "q=p999"], "primes form: argument 'q' must be an integer (decimal or 0x hex) or one of p256,"),
    (["primes", "form", f"q={(1 << 255) - 20}"], "argument 'q' must be an odd prime (it is even)"),
    (["primes", "form", f"q={(1 << 1100) - 1}"], "argument 'q'"),
    (["generate", "ntt-forward", "profile=ml-kem", "q=7681"], "argument 'q' is fixed by profile=ml-kem to 3329"),
])
def test_bounds_before_any_search(tmp_path, capsys, monkeypatch, argv, needle):
    """Every argument has a stated upper bound, checked before anything searches or is written:
    one line, exit 2, within a second or two."""
    monkeypatch.chdir(tmp_path)
    start = time.monotonic()
    code, out, err = run(capsys, *argv)
    assert code == 2 and needle in err and len(err.splitlines()) == 1, err
    assert time.monotonic() - start < 10 and list(tmp_path.iterdir()) == []


def test_bounds_are_stated(capsys):
    """The bounds are in `modforge list` and in the verbs' --help."""
    code, out, _ = run(capsys, "list", "--family", "gf2n")
    assert code == 0 and "[int in 2..1024]" in out
    code, out, _ = run(capsys, "rsa", "params", "--help")
    assert code == 0 and "int in 2..8192" in " ".join(out.split())


def test_config_names_no_ntt_parameter(capsys):
    """An algorithm without a cfg stream: a generic line that does not name the NTT's twiddles."""
    code, _, err = run(capsys, "config", "gf2n-blakely", "n=9", "--prime", "3")
    assert code == 2 and "twiddles" not in err and "must have a cfg stream" in err


@pytest.mark.parametrize("verb", ["generate", "verify", "synth", "prove"])
@pytest.mark.parametrize("out", ["/proc/modforge_out", "/sys/modforge_out/sub"])
def test_out_that_cannot_be_written(capsys, verb, out):
    """-o under /proc or /sys: one line, exit 2 (was a 74-line traceback, exit 1)."""
    if not Path("/", out.split("/")[1]).is_dir():
        pytest.skip("no such file system here")
    code, _, err = run(capsys, verb, "gf2n-blakely", "n=9", "-o", out)
    assert code == 2 and len(err.splitlines()) == 1, err
    assert err.startswith(f"error: {verb}: argument '-o' must be a folder that can be created and written")
    assert not Path(out).exists()


def test_config_out_that_cannot_be_written(capsys):
    code, _, err = run(capsys, "config", "rsa-montgomery", "l=64", "w=16", "--prime", hex((1 << 63) + 1),
                       "-o", "/proc/modforge_cfg.hex")
    assert code == 2 and "argument '-o' must be a folder that can be created and written" in err, err


def test_another_design_is_not_overwritten(tmp_path, capsys):
    """A folder holding another design is refused (naming it) unless --force, which replaces it;
    the same design (same parameter hash) is written again."""
    out = tmp_path / "d"
    assert run(capsys, "generate", "gf2n-blakely", "n=9", "-o", str(out), "--vectors", "20")[0] == 0
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    code, _, err = run(capsys, "generate", "gf2n-blakely", "n=11", "-o", str(out), "--vectors", "20")
    assert code == 2 and len(err.splitlines()) == 1
    assert "must not hold another design: it holds mf_gf2n_blakely_n9_" in err and "--force" in err
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before
    assert run(capsys, "generate", "gf2n-blakely", "n=9", "-o", str(out), "--vectors", "20")[0] == 0
    code, out_text, _ = run(capsys, "generate", "gf2n-blakely", "n=11", "-o", str(out), "--vectors", "20",
                            "--force", "--json")
    assert code == 0
    top = json.loads(out_text)["top"]
    assert sorted(p.name for p in out.glob("*.v")) == [f"{top}.v", f"{top}_inst.v", "tb.v"]
    assert not any("n9" in p.name for p in out.iterdir())     # the old design's files are gone


def test_validation_search_shows_progress_on_a_terminal(tmp_path):
    """poly=auto searches an irreducible polynomial while the parameters are checked: on a
    terminal that search shows a bar, like `poly irreducible`."""
    from tests.test_progress import on_a_terminal
    code, _, shown = on_a_terminal("generate", "gfpm-mse-horner", "p=3", "m=128", "poly=auto", "--vectors", "0")
    assert code == 2 and "gfpm-mse-horner: searching the modulus" in shown, shown


# ---------------------------------------------------------------- issue 35: figures that add up

def test_figures_named_as_the_port_contract(tmp_path, capsys):
    """cycles (the formula), latency (a beat), operation latency (a frame) and the initiation
    interval, alike in the Verilog header and generate; a vector count rounded up to whole
    frames says so."""
    code, out, _ = run(capsys, "generate", "poly-fast", "n=16", "q=8192", "small=4", "M=2", "-o", str(tmp_path / "d"),
                       "--vectors", "10")
    assert code == 0
    assert "vectors/ (24 (10 asked, rounded up to whole results of 8 beats, at least 3) vectors)" in out
    timing = ("cycles 19 (the algorithm's formula), latency 12 cycles (an input beat to its output beat), "
              "operation latency 19 cycles (first input beat to last output beat), initiation interval 8 cycles "
              "(between operand sets)")         # 2n/M - 1 + S, n/M + S: S = 4, the default pipeline
    assert timing in out
    verilog = tmp_path / "d" / f"{json.loads((tmp_path / 'd' / 'design.json').read_text())['top']}.v"
    assert f"// timing: {timing}; frames of 8 beats" in verilog.read_text()
    assert "step cycles" not in verilog.read_text()


def test_synth_figures_each_from_one_stage(capsys):
    """ecp5: Yosys' mapped cells are labelled as before place and route, nextpnr's LUT total as
    after it; one area-time figure, with its unit."""
    from modforge.cli.design import print_metrics
    from modforge.design import Design
    from modforge.synth.metrics import Metrics
    design = Design(directory=Path("."), algorithm="gf2n-blakely", params={}, param_hash="0", top="mf_x", files=[],
                    cycles=163, latency=164, initiation_interval=164, frame_beats=1, input_width=326,
                    output_width=163, operands=[], congruence="", paper="", info={})
    m = Metrics(target="ecp5", top="mf_x", freq_mhz=100.0, latency_cycles=164, initiation_interval=164, lut=664,
                lut_by_size={"CCU2C": 3, "LUT4": 652}, ff=330, carry=3, dsp=0, bram=0, fmax_mhz=268.0).finish()
    print_metrics(design, "ecp5", m)
    out = capsys.readouterr().out
    assert "mapped cells (Yosys, before place and route): CCU2C 3, LUT4 652" in out
    assert "after place and route (nextpnr): LUT4 slots LUT 664" in out
    assert out.count(f"{m.area_time:.4g}") == 1 and "area x time" not in out
    assert f"ATP (area x operation latency) {m.area_time:.4g} LUT-eq x us" in out


def test_piped_tables_are_plain(capsys):
    """stdout not a terminal: the rich tables print as plain text, no box-drawing characters."""
    code, out, _ = run(capsys, "rsa", "params", "l=2048")
    assert code == 0 and not BOX & set(out)
    lines = out.splitlines()
    assert lines[0].startswith("FMLM3 parameter sets for l = 2048") and lines[1].split()[:3] == ["alg", "P", "u"]
    proc = subprocess.run([sys.executable, "-m", "modforge.cli", "rsa", "params", "l=2048"], capture_output=True,
                          text=True)
    assert proc.returncode == 0 and proc.stdout == out


@pytest.mark.sim
def test_verify_says_the_count_it_ran(capsys):
    """verify --vectors 10 on frames of 8 beats runs 24 vectors and says so on the count's line;
    the figures carry the port contract's names."""
    code, out, _ = run(capsys, "verify", "poly-fast", "n=16", "q=8192", "small=4", "M=2", "--vectors", "10",
                       "--sim", "icarus")
    assert code == 0, out
    assert "claimed: cycles 19 (the algorithm's formula), latency 12 cycles (an input beat to its output beat), " \
           "operation latency 19 cycles" in out
    (row,) = [line for line in out.splitlines() if line.startswith("icarus ")]
    assert "24 (10 asked, rounded up to whole results of 8 beats, at least 3)" in row and row.endswith("PASS")
    assert not BOX & set(out)


def test_cfg_stream_is_a_declared_capability():
    """config_words belongs to the config_stream capability: declared, and implemented by every
    algorithm that declares a cfg stream."""
    from modforge.registry import CAPABILITIES, Algorithm, all_algorithms, lookup, register
    assert "config_words" in CAPABILITIES["config_stream"]
    streams = [a for a in all_algorithms() if a.config_stream]
    assert {"rsa-montgomery", "rsa-fmlm3", "ntt-forward"} <= {a.name for a in streams}
    assert all(type(a).config_words is not Algorithm.config_words for a in streams)
    with pytest.raises(TypeError, match="declare config_stream = True"):
        register(type("Undeclared", (type(lookup("rsa-montgomery")),), {"config_stream": False}))
    with pytest.raises(TypeError, match="implement config_words"):
        register(type("Half", (type(lookup("gf2n-blakely")),), {"config_stream": True,
                                                                  "config_width": lambda self, p: 4}))


@pytest.mark.parametrize("argv, needle", [
    (["generate", "gf2n-blakely", "n=9", "poly=x^100000000000+1"], "argument 'poly' must have degree at most 1024"),
    (["generate", "gfpm-mse-horner", "p=3", "m=9", "poly=x^9999999999+1"], "argument 'poly' must have degree at most"),
    (["poly", "check", "poly=x^100000000000+x+1"], "argument 'poly' must have degree at most 2048"),
])
def test_a_polynomial_is_bounded_before_it_is_parsed(capsys, argv, needle):
    """A huge exponent is refused from the text (parsing it would allocate a coefficient each)."""
    code, _, err = run(capsys, *argv)
    assert code == 2 and needle in err, err


def test_primes_form_names_the_reductions(capsys):
    """A curve's prime: its forms, and the reductions each allows (piped: plain lines)."""
    code, out, _ = run(capsys, "primes", "form", "q=25519")
    assert code == 0 and "pseudo-mersenne (k=255, c=19): pseudo-mersenne, montgomery, barrett" in out
    code, out, _ = run(capsys, "primes", "form", "q=p256", "--json")
    data = json.loads(out)
    assert data["name"] == "p256" and data["reductions"][0] == "solinas" and data["bits"] == 256
