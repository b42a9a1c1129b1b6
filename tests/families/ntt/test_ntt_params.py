"""NTT parameter rules: every rejection is a ParameterError naming the argument, raised
before anything is generated; the CLI prints it and exits 2."""

import pytest

from modforge.cli import main
from modforge.errors import ParameterError
from modforge.registry import all_algorithms, lookup

NAMES = ["ntt-forward", "ntt-inverse", "ntt-polymul", "ntt-basemul", "ntt-commands"]
OK = {"q": "0x80014001", "n": "64", "pe": "4"}


def reject(name, cfg, argument, text):
    with pytest.raises(ParameterError) as e:
        lookup(name).parse({**OK, **cfg})
    assert e.value.argument == argument, str(e.value)
    assert text in str(e.value), str(e.value)
    assert str(e.value).startswith(f"{name}: argument '{argument}'")


def test_registered_with_grids():
    assert {a.name for a in all_algorithms() if a.family == "ntt"} == set(NAMES)
    seen = set()
    for name in NAMES:
        alg = lookup(name)
        for cfg in alg.grid():
            p = alg.parse(cfg)
            assert alg.parse({k: str(v) for k, v in vars(p).items()}) == p     # canonical is a fixed point
            seen.add(p.reduction)
    assert seen == {"montgomery", "barrett", "plantard", "wlm", "wlm-mixed", "k2red", "k2red-shift",
                    "montgomery-shift"}


def test_defaults():
    p = lookup("ntt-forward").parse(OK)
    assert (p.reduction, p.dsp, p.pe) == ("montgomery", "dsp48e2", 4)
    assert pow(p.psi, 64, p.q) == p.q - 1 and p.psi > 0


@pytest.mark.parametrize("name", NAMES)
def test_rules(name):
    reject(name, {"n": "48"}, "n", "power of two")
    reject(name, {"n": "8", "pe": "1"}, "n", "16..65536")
    reject(name, {"n": "131072"}, "n", "16..65536")
    reject(name, {"pe": "3"}, "pe", "power of two")
    reject(name, {"pe": "0"}, "pe", "power of two")
    reject(name, {"pe": "128", "n": "1024"}, "pe", "1..64")
    reject(name, {"pe": "64"}, "pe", "must divide n/2 = 32")
    reject(name, {"q": "0x80014001", "n": "32768"}, "q", "q = 1 mod 2n")
    reject(name, {"q": "0xFFFFFFFB"}, "q", "q = 1 mod 2n")
    reject(name, {"q": "0xffffffff"}, "q", "must be prime")
    reject(name, {"reduction": "karatsuba"}, "reduction", "must be one of")
    reject(name, {"dsp": "xc9"}, "dsp", "must be one of")
    reject(name, {"psi": "2"}, "psi", "psi^n = -1")
    reject(name, {"psi": str(0x80014001 + 5)}, "psi", "0 < psi < q")
    reject(name, {"buffers": "3"}, "buffers", "must be 1 or 2")
    reject(name, {"n": "abc"}, "n", "must be an integer")
    with pytest.raises(ParameterError) as e:
        lookup(name).parse({"n": "64"})
    assert e.value.argument == "q"


def test_reduction_rules_come_with_their_own_errors():
    # Plantard's bound q < 2^beta/phi
    reject("ntt-forward", {"q": "0xfff00001", "reduction": "plantard"}, "q", "2^beta/phi")
    # K2RED needs a Proth prime (omega >= beta/2): 0x80014001 has omega = 14
    reject("ntt-forward", {"reduction": "k2red"}, "q", "Proth")
    # Montgomery-Shift needs a Proth-l prime
    reject("ntt-inverse", {"q": "0x80014001", "reduction": "montgomery-shift"}, "q", "Proth-2l or Proth-3l")
    # WLM-Mixed: log q_h <= Gamma_B (derived from q): named as q
    reject("ntt-polymul", {"q": "0x8000002500000001", "reduction": "wlm-mixed"}, "q", "logqh=32")
    lookup("ntt-polymul").parse({"q": "0x8000002500000001", "reduction": "wlm-mixed", "n": "64", "dsp": "none"})


def test_reduction_parameters_handed_on():
    # logqh, rho, beta reach the reduction that has them; the design name records them
    p = lookup("ntt-forward").parse({**OK, "q": "0xffffff0000000001", "reduction": "k2red", "logqh": "26"})
    assert lookup("ntt-forward").reduction_params(p).logqh == 26
    assert "_logqh26" in lookup("ntt-forward").tag(p)
    p = lookup("ntt-inverse").parse({**OK, "q": "0x9fc00001", "reduction": "montgomery-shift", "rho": "A"})
    assert lookup("ntt-inverse").reduction_params(p).rho == "A"
    p = lookup("ntt-polymul").parse({**OK, "q": "0xffffffffffe40001", "reduction": "plantard", "beta": "65"})
    assert lookup("ntt-polymul").width(p) == 65
    # ... and are refused, named, where it does not, or where its rules say no
    reject("ntt-forward", {"logqh": "20"}, "logqh", "not a parameter of reduction=montgomery")
    reject("ntt-forward", {"rho": "A"}, "rho", "not a parameter of reduction=montgomery")
    reject("ntt-forward", {"q": "0x9fc00001", "reduction": "k2red", "beta": "33"}, "beta",
           "not a parameter of reduction=k2red")
    reject("ntt-forward", {"q": "0x9fc00001", "reduction": "k2red-shift", "rho": "C"}, "rho", "A or B")
    reject("ntt-forward", {"q": "0xffffff0000000001", "reduction": "k2red", "logqh": "40"}, "q",
           "Proth prime")
    reject("ntt-forward", {"reduction": "barrett", "beta": "20"}, "beta", "q < 2^beta")


def test_rns_base():
    alg = lookup("ntt-polymul")
    rns = {**OK, "q": "0xfff00001", "logqh": "16", "reduction": "k2red"}
    p = alg.parse({**rns, "base": "0xffdf0001, 4292149249"})
    assert p.base == "0xffdf0001,0xffd50001" and alg.moduli(p) == [0xfff00001, 0xffdf0001, 0xffd50001]
    assert alg.parse({k: str(v) for k, v in vars(p).items()}) == p                 # canonical is a fixed point
    assert alg.frame_beats(p) == 3 * 64 // 4 and "_rns3" in alg.tag(p)
    single = alg.parse(rns)
    D = alg.derived(single).drain                 # residues follow one another without a wait
    assert alg.cycles(p) == 3 * (alg.cycles(single) - D) + D and alg.latency(p) == 3 * 16 + alg.cycles(p) + 3
    assert alg.initiation_interval(p) == 3 * 16 + alg.cycles(p)
    assert alg.extra_info(p)["moduli"] == ["0xfff00001", "0xffdf0001", "0xffd50001"]
    reject("ntt-polymul", {**rns, "reduction": "montgomery", "logqh": "0", "base": "0xffdf0001"}, "base",
           "run-time modulus")
    reject("ntt-polymul", {**rns, "base": "0xfff00001"}, "base", "distinct")
    reject("ntt-polymul", {**rns, "base": "0xffdf0001,0xffdf0001"}, "base", "distinct")
    reject("ntt-polymul", {**rns, "base": "0x7fff0001"}, "base", "bit length")
    reject("ntt-polymul", {**rns, "base": "0xffdf0003"}, "base", "NTT-friendly")
    reject("ntt-polymul", {**rns, "base": "0xffdf0002"}, "base", "must hold primes,")
    reject("ntt-polymul", {**rns, "base": "0xffeec001"}, "base", "log q_h = 16")   # prime, v2(q-1) = 14
    reject("ntt-polymul", {**rns, "base": "x1"}, "base", "comma-separated integers")
    # shift forms: one Proth-l form per base
    reject("ntt-forward", {**OK, "q": "0x9fc00001", "logqh": "16", "reduction": "k2red-shift",
                           "base": "0xfff00001"}, "base", "Proth-l form")


def test_twiddles_load():
    """twiddles=load: a reduction with a run-time modulus; config words only for as many
    distinct primes as the core has slots, each one it takes (named argument 'prime')."""
    alg = lookup("ntt-forward")
    load = {**OK, "q": "0x9fc00001", "logqh": "16", "reduction": "k2red-shift", "twiddles": "load"}
    p = alg.parse(load)
    assert "_load" in alg.tag(p) and alg.config_width(p) > 0 and alg.config_width(alg.parse(OK)) == 0
    assert alg.module_name(p) != alg.module_name(alg.parse({**load, "twiddles": "rom"}))
    reject("ntt-forward", {"twiddles": "ram"}, "twiddles", "must be rom or load")
    reject("ntt-forward", {"twiddles": "load"}, "twiddles", "must be rom with reduction=montgomery")
    rns = alg.parse({**load, "base": "0x88000001"})
    assert alg.config_map(rns).count == 2 * alg.config_map(p).count
    for primes, text in [([0x88000001], "must name 2 primes, one per residue slot"),
                         ([0x88000001, 0x88000001], "must name distinct primes")]:
        with pytest.raises(ParameterError, match=text):
            alg.config_words(rns, primes)
    for prime, text in [("0x88000003", "must be a prime"), ("0x7f000001", "bit length 32"),
                        ("0xfff00001", "Proth-l form"), ("0x9e140001", "log q_h = 16")]:
        with pytest.raises(ParameterError) as e:
            alg.config_words(p, [int(prime, 0)])
        assert e.value.argument == "prime" and text in e.value.rule, str(e.value)
    with pytest.raises(ParameterError, match="NTT-friendly for n=1024: q = 1 mod 2048"):
        alg.config_words(alg.parse({**load, "n": "1024"}), [0x9fc0000d])
    with pytest.raises(ParameterError, match="must be load"):
        alg.config_words(alg.parse(OK), [0x80014001])


def test_cli_config(tmp_path, capsys):
    """`modforge config` writes the words that load a prime; bad input exits 2."""
    core = ["ntt-forward", "q=0x9fc00001", "n=16", "pe=2", "reduction=montgomery-shift", "twiddles=load"]
    assert main(["config", *core, "--prime", "0x88000001", "-o", str(tmp_path / "c.hex")]) == 0
    alg = lookup("ntt-forward")
    p = alg.parse(dict(kv.split("=") for kv in core[1:]))
    assert [int(x, 16) for x in (tmp_path / "c.hex").read_text().split()] == alg.config_words(p, [0x88000001])
    capsys.readouterr()
    for argv, needle in [(["--prime", "12x"], "argument '--prime' must be comma-separated integers"),
                         (["--prime", "0x88000003"], "argument 'prime' must be a prime")]:
        assert main(["config", *core, *argv]) == 2
        err = capsys.readouterr().err
        assert needle in err and "Traceback" not in err, err
    assert main(["config", *core[:-1], "--prime", "0x88000001"]) == 2
    assert "must be load" in capsys.readouterr().err


@pytest.mark.parametrize("argv, needle", [
    (["generate", "ntt-forward", "q=0x80014001", "n=48"], "ntt-forward: argument 'n'"),
    (["generate", "ntt-inverse", "q=0x80014001", "n=64", "pe=64"], "argument 'pe' must divide n/2"),
    (["generate", "ntt-polymul", "q=0x80014001", "n=32768"], "q = 1 mod 2n"),
    (["generate", "ntt-polymul", "q=0xfff00001", "n=64", "reduction=plantard"], "ntt-polymul: argument 'q'"),
    (["verify", "ntt-forward", "q=0x80014001", "n=64", "psi=3"], "argument 'psi'"),
])
def test_cli_exit_2(tmp_path, capsys, monkeypatch, argv, needle):
    monkeypatch.chdir(tmp_path)
    code = main(argv + (["-o", "out"] if argv[0] == "generate" else []))
    _, err = capsys.readouterr()
    assert code == 2
    assert needle in err, err
    assert "Traceback" not in err
    assert list(tmp_path.iterdir()) == []
