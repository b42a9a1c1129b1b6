"""Parameter rules of rsa-montgomery: each a ParameterError naming the argument and the rule,
before anything is generated; the defaults made explicit; the cfg words."""

import pytest

from modforge.cli import main
from modforge.errors import ParameterError
from modforge.families.wordserial import model as M
from modforge.math import fields
from modforge.registry import lookup

ALG = lookup("rsa-montgomery")


def reject(cfg, argument, text):
    with pytest.raises(ParameterError) as e:
        ALG.parse(cfg)
    assert e.value.argument == argument and text in str(e.value), str(e.value)


def test_rules():
    reject({"l": "256", "modulus": str((1 << 255) + 2)}, "modulus", "must be odd")
    reject({"l": "256", "modulus": str((1 << 256) + 1)}, "modulus", "at most l=256 bits")
    reject({"l": "256", "modulus": "1"}, "modulus", "must be in 3..2^l - 1")
    reject({"modulus": "p256", "l": "128"}, "modulus", "at most l=128 bits")
    reject({"modulus": "p257"}, "modulus", "or one of p256, p384, p521, secp256k1, 25519, 448")
    reject({"modulus": "0x1" + "0" * 63 + "2"}, "modulus", "must be odd")
    reject({"l": "1000", "w": "32"}, "l", "multiple of w=32")
    reject({"l": "100"}, "l", "multiple of w=16")
    reject({"l": "4", "w": "4"}, "l", "8..8192")
    reject({"l": "16384", "w": "32"}, "l", "8..8192")
    reject({"l": "256", "w": "2"}, "w", "4..64")
    reject({"l": "256", "w": "128"}, "w", "must be in 0..64")   # the bound, before validate
    reject({"l": "256", "w": "32", "pe": "3"}, "pe", "must divide s = l/w = 8")
    reject({"l": "256", "w": "32", "pe": "16"}, "pe", "must divide s = l/w = 8")
    reject({"l": "256", "w": "32", "pe": "0"}, "pe", "must be in 1..2048")
    reject({"dsp": "dsp99"}, "dsp", "must be one of")
    reject({"l": "32", "w": "32", "banks": "2"}, "banks", "must be 1 when s = l/w = 1")
    reject({"l": "256", "banks": "3"}, "banks", "must be in 1..2")


def test_cli_exit_2(capsys):
    assert main(["generate", "rsa-montgomery", "l=256", "w=32", "pe=3"]) == 2
    err = capsys.readouterr().err
    assert "rsa-montgomery: argument 'pe' must divide s = l/w = 8" in err and "Traceback" not in err


def test_defaults_made_explicit():
    p = ALG.parse({})
    assert (p.l, p.w, p.pe) == (1024, 16, 1) and p.modulus == M.default_modulus(1024)
    assert ALG.parse({"dsp": "none"}).w == 32 and ALG.parse({"dsp": "ecp5"}).w == 16
    assert ALG.parse({"l": "256", "modulus": str((1 << 256) - 1)}).modulus == (1 << 256) - 1


def test_named_moduli():
    """A named prime sets l (its bits rounded up to w) and names its curve in design.json;
    25519 is the name, not the integer; any odd N < 2^l is taken, composite too (RSA)."""
    sizes = {("p256", "16"): 256, ("p521", "16"): 528, ("p521", "32"): 544, ("25519", "32"): 256,
             ("bls12-381", "16"): 384, ("bn254", "32"): 256, ("448", "64"): 448}
    for (name, w), bits in sizes.items():
        p = ALG.parse({"modulus": name, "w": w})
        assert p.l == bits and p.modulus == fields.NAMED[name].q, name
        assert ALG.extra_info(p)["curve"]["name"] == name and ALG.computes(p).is_field
        assert ALG.verified_modulus(p).bit_length() == p.modulus.bit_length()    # N < 2^l in hardware too
    assert ALG.parse({"modulus": "P256"}) == ALG.parse({"modulus": hex(fields.NAMED["p256"].q)})
    assert ALG.parse({"modulus": "0x639f", "w": "4"}).l == 16                   # the integer 25519
    p = ALG.parse({"modulus": str(15 * ((1 << 200) + 1)), "l": "256"})
    assert p.modulus % 15 == 0 and not ALG.computes(p).is_field and "curve" not in ALG.extra_info(p)
    assert ALG.parse({"l": "256", "modulus": str((1 << 200) + 1)}).l == 256     # fewer than l bits
    assert ALG.parse({"modulus": "0"}).l == 1024 and ALG.parse({"l": "0", "w": "32"}).l == 1024


def test_old_designs_keep_their_names():
    """l = 1024 stays l's default (a modulus given without l sets it): the hashes of existing
    designs are those of main before named moduli."""
    assert ALG.module_name(ALG.parse({"l": "1024", "w": "32", "pe": "16"})).endswith("_0b5bba27")
    assert ALG.module_name(ALG.parse({"l": "256", "w": "32", "pe": "4"})).endswith("_d0178383")


def test_fixed_modulus():
    """fixed=1: no cfg stream; the fast path (N' = 1) for the primes = -1 mod 2^w."""
    friendly = {("p256", 16), ("p256", 32), ("p256", 64), ("p384", 32), ("p521", 32), ("448", 32)}
    for name in ("p256", "p384", "p521", "448", "25519", "secp256k1", "bn254", "bls12-381", "bls12-377"):
        for w in (16, 32, 64):
            p = ALG.parse({"modulus": name, "w": str(w), "fixed": "1"})
            assert ALG.friendly(p) == (M.n_prime(p.modulus, w) == 1)
            if (name, w) in friendly:
                assert ALG.friendly(p), (name, w)
    assert not ALG.friendly(ALG.parse({"modulus": "p256", "w": "32"}))           # loadable: no fast path
    p = ALG.parse({"modulus": "p256", "w": "32", "fixed": "1"})
    assert ALG.config_width(p) == 0 and ALG.plan(p).config_width == 0 and ALG.verification_config(p) == (p, [])
    assert ALG.extra_info(p)["montgomery_friendly"] and "config" not in ALG.extra_info(p)
    with pytest.raises(ParameterError) as e:
        ALG.config_words(p, [p.modulus])
    assert e.value.argument == "fixed"


def test_config_words_load_another_modulus():
    p = ALG.parse({"l": "256", "w": "32", "pe": "4"})
    loaded, words = ALG.verification_config(p)
    assert loaded.modulus != p.modulus and loaded.modulus.bit_length() == 256
    assert len(words) == 1 + 8 and words[0] == M.n_prime(loaded.modulus, 32)
    wb = ALG.derived(p).word_bits
    assert [(v >> 32) & ((1 << wb) - 1) for v in words[1:]] == list(range(8))
    assert all(v >> (32 + wb) == 1 for v in words[1:]) and words[0] >> 32 == 0
    assert sum((v & 0xFFFFFFFF) << (32 * j) for j, v in enumerate(words[1:])) == loaded.modulus
    assert ALG.plan(p).config_width == 32 + wb + 1
    assert ALG.extra_info(p)["config"]["verified_moduli"] == [hex(loaded.modulus)]    # an RSA modulus, not a prime
    with pytest.raises(ParameterError):
        ALG.config_words(p, [1 << 255])                 # even
    with pytest.raises(ParameterError):
        ALG.config_words(p, [loaded.modulus, loaded.modulus])


def test_cli_config_words(capsys):
    modulus = M.default_modulus(256, salt=7)
    assert main(["config", "rsa-montgomery", "l=256", "w=32", "--prime", hex(modulus)]) == 0
    words = [int(x, 16) for x in capsys.readouterr().out.split()]
    assert words == ALG.config_words(ALG.parse({"l": "256", "w": "32"}), [modulus])


def test_cycle_claims():
    """Cycles include the s load beats and the s read-out beats (first input beat to last
    output beat); the testbench checks latency and II on the simulators."""
    p = ALG.parse({"l": "1024", "w": "32", "pe": "16"})     # s = 32, R = 2, T = 98
    assert (ALG.initiation_interval(p), ALG.latency(p), ALG.cycles(p)) == (229, 232, 263)
    p = ALG.parse({"l": "1024", "pe": "16"})                # w = 16: s = 64, R = 4
    assert ALG.cycles(p) == 523


@pytest.mark.sim
def test_cli_verify(capsys):
    """The CLI's verify names the modulus the testbench loads through cfg."""
    assert main(["verify", "rsa-montgomery", "l=64", "w=16", "pe=2", "--vectors", "8", "--sim", "icarus"]) == 0
    p = ALG.parse({"l": "64", "w": "16", "pe": "2"})
    assert hex(ALG.verified_modulus(p)) in capsys.readouterr().out
