"""modmul parameter rules: every rejection is a ParameterError naming the argument."""

import pytest

from modforge.errors import ParameterError
from modforge.registry import all_algorithms, lookup

NAMES = ["modmul-montgomery", "modmul-barrett", "modmul-plantard", "modmul-wlm", "modmul-wlm-mixed",
         "modmul-k2red", "modmul-k2red-shift", "modmul-montgomery-shift"]


def reject(name, cfg, argument, text):
    with pytest.raises(ParameterError) as e:
        lookup(name).parse(cfg)
    assert e.value.argument == argument, str(e.value)
    assert text in str(e.value), str(e.value)
    assert str(e.value).startswith(f"{name}: argument '{argument}'")


def test_all_registered_with_grids():
    names = {a.name for a in all_algorithms() if a.family == "modmul"}
    assert names == set(NAMES)
    for n in NAMES:
        alg = lookup(n)
        for cfg in alg.grid():
            p = alg.parse(cfg)
            assert alg.parse({k: str(v) for k, v in vars(p).items()}) == p     # canonical is a fixed point
            assert alg.latency(p) == alg.cycles(p) and alg.initiation_interval(p) == 1
            assert "mod q" in alg.congruence(p)


@pytest.mark.parametrize("name", NAMES)
def test_common_rules(name):
    reject(name, {"q": "0xffffffff"}, "q", "must be prime")
    reject(name, {"q": str((1 << 129) + 1)}, "q", "at most 128 bits")
    reject(name, {"q": "97"}, "q", "at least 8 bits")
    reject(name, {"q": "abc"}, "q", "must be an integer")
    reject(name, {}, "q", "is required")


@pytest.mark.parametrize("name", ["modmul-montgomery", "modmul-barrett", "modmul-plantard"])
def test_generic_rules(name):
    reject(name, {"q": "0x80014001", "beta": "31"}, "beta", "q < 2^beta")
    reject(name, {"q": "0x80014001", "beta": "129"}, "beta", "q < 2^beta")
    reject(name, {"q": "0x80014001", "dsp": "xc9"}, "dsp", "must be one of")
    p = lookup(name).parse({"q": "0x80014001"})
    assert p.beta == 32 and p.dsp == "dsp48e2"
    if name != "modmul-plantard":
        assert lookup(name).parse({"q": "0xFFFFFFFB"}).beta == 32  # any prime, not only NTT primes


def test_plantard_bound():
    reject("modmul-plantard", {"q": "0xfff00001"}, "q", "2^beta/phi")
    assert lookup("modmul-plantard").parse({"q": "0xfff00001", "beta": "33"}).beta == 33
    assert lookup("modmul-plantard").parse({"q": "0x9e140001"}).beta == 32


def test_wlm_rules():
    alg = lookup("modmul-wlm")
    assert alg.parse({"q": "0x80014001"}).logqh == 32 - 14          # auto: omega = v2(q - 1)
    reject("modmul-wlm", {"q": "0x80014001", "logqh": "17"}, "q", "q = 1 mod 2^omega (omega=15")
    reject("modmul-wlm", {"q": "0x80014001", "logqh": "40"}, "logqh", "1..beta-1")
    reject("modmul-wlm", {"q": "0xFFFFFFFB", "logqh": "30"}, "q", "q = 1 mod 2^omega")


def test_proth_rules():
    for name in ("modmul-wlm-mixed", "modmul-k2red"):
        reject(name, {"q": "0x80014001"}, "q", "Proth prime")        # omega 14 < 16
        reject(name, {"q": "0x80014001", "logqh": "16"}, "q", "q = 1 mod 2^omega")
    assert lookup("modmul-k2red").parse({"q": "0x8000118000000001", "logqh": "26"}).logqh == 26
    # WLM-Mixed: log q_h <= Gamma_B
    reject("modmul-wlm-mixed", {"q": "0x8000002500000001", "logqh": "32"}, "logqh", "Gamma_B = 17")
    assert lookup("modmul-wlm-mixed").parse({"q": "0x8000002500000001", "logqh": "32", "dsp": "none"})


def test_proth_l_rules():
    for name in ("modmul-k2red-shift", "modmul-montgomery-shift"):
        reject(name, {"q": "0x802b0001", "logqh": "16"}, "q", "Proth-2l or Proth-3l")   # Proth, not Proth-l
        reject(name, {"q": "0x802b0001"}, "q", "Proth-2l or Proth-3l")
        reject(name, {"q": "0x80014001"}, "q", "Proth-2l or Proth-3l")
        reject(name, {"q": "0x9fc00001", "logqh": "16", "rho": "C"}, "rho", "A or B")
        p = lookup(name).parse({"q": "0x9fc00001"})
        assert p.logqh == 10 and p.rho == "B"                          # auto: the smallest log q_h
        info = lookup(name).extra_info(lookup(name).parse({"q": "0x800a000000000001", "logqh": "17"}))
        assert (info["l1"], info["l2"], info["l3"], info["proth"], info["dsp_total"]) == (3, 2, 4, "3l", 0)


def test_extra_info_and_names():
    alg = lookup("modmul-wlm-mixed")
    p = alg.parse({"q": "0x800a000000000001", "logqh": "17"})
    info = alg.extra_info(p)
    assert info["words"] == [38, 26] and info["dsp_reduction"] == 3 and info["dsp_product"] == 12
    assert alg.module_name(p).startswith("mf_modmul_wlm_mixed_q64_qh17_")
    p2 = alg.parse({"q": "0x800a000000000001", "logqh": "17", "dsp": "ecp5"})
    assert alg.extra_info(p2)["words"] == [46, 18] and alg.module_name(p2) != alg.module_name(p)
