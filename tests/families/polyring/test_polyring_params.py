"""Parameter rules of poly-fir and poly-fast: each a ParameterError naming the argument and
the rule, before anything is generated; the CLI prints it and exits 2."""

import pytest

from modforge.cli import main
from modforge.errors import ParameterError
from modforge.registry import lookup


def reject(name, cfg, argument, text):
    with pytest.raises(ParameterError) as e:
        lookup(name).parse(cfg)
    assert e.value.argument == argument and text in str(e.value), str(e.value)


def test_rules():
    reject("poly-fast", {"n": "180", "M": "8"}, "n", "must be a multiple of M=8")
    reject("poly-fast", {"n": "240", "M": "10"}, "M", "2^a 3^b")
    reject("poly-fast", {"n": "256", "M": "1"}, "M", "poly-fir")
    reject("poly-fir", {"q": "12288"}, "q", "must be a power of two 2^k (2 <= k <= 32) or a prime (is_prime)")
    reject("poly-fir", {"q": "127"}, "q", "prime of 8..32 bits")
    reject("poly-fir", {"q": str((1 << 33) + 1)}, "q", "must be in 4..2^32")      # bounds first: before is_prime
    reject("poly-fir", {"q": str((1 << 33) + 17)}, "q", "must be in 4..2^32")
    reject("poly-fir", {"q": "8192", "reduction": "montgomery"}, "reduction", "prime q only")
    reject("poly-fir", {"q": "2"}, "q", "must be in 4..2^32")
    reject("poly-fir", {"q": str(1 << 33)}, "q", "must be in 4..2^32")
    reject("poly-fir", {"n": "8"}, "n", "16..1024")
    reject("poly-fir", {"n": "2048"}, "n", "16..1024")
    reject("poly-fir", {"q": "16", "small": "8"}, "small", "small < q/2")
    reject("poly-fast", {"n": "16", "M": "16"}, "n", "at least 2M")


def test_n_need_not_be_a_power_of_two():
    for par in (2, 3, 4):
        p = lookup("poly-fast").parse({"n": "180", "M": str(par), "small": "4"})
        assert lookup("poly-fast").frame_beats(p) == 180 // par


def test_cli_exit_2(capsys):
    assert main(["generate", "poly-fast", "n=100", "M=3"]) == 2
    err = capsys.readouterr().err
    assert "poly-fast: argument 'n' must be a multiple of M=3" in err and "Traceback" not in err


def test_cycle_claims():
    """Response n/M, one multiplication 2n/M - 1, initiation interval n/M (Table II's
    single-multiplication column) without the pipeline, S cycles more with the default's S = 4
    stages; the testbench checks latency and II on the simulators."""
    alg = lookup("poly-fast")
    p = alg.parse({"n": "256", "M": "4", "small": "4", "pipeline": "0"})
    assert (alg.latency(p), alg.cycles(p), alg.initiation_interval(p)) == (64, 127, 64)
    p = alg.parse({"n": "256", "M": "4", "small": "4"})
    assert (alg.latency(p), alg.cycles(p), alg.initiation_interval(p)) == (68, 131, 64)
    fir = lookup("poly-fir")
    p = fir.parse({"n": "256", "small": "4"})
    assert (fir.latency(p), fir.cycles(p)) == (256, 511)


def test_schoolbook_cycle_claims():
    """poly-schoolbook: latency 2n (a frame in, n compute steps, its first result with the
    last step), initiation interval n, one multiplication 3n - 1; poly-fir's parameters and
    streams (M = 1), so the two swap."""
    sb, fir = lookup("poly-schoolbook"), lookup("poly-fir")
    p = sb.parse({"n": "256", "small": "4"})
    assert (sb.latency(p), sb.initiation_interval(p), sb.cycles(p)) == (512, 256, 767)
    pf = fir.parse({"n": "256", "small": "4"})
    assert [(o.name, o.width) for o in sb.operands(p)] == [(o.name, o.width) for o in fir.operands(pf)]
    assert sb.result(p) == fir.result(pf) and sb.frame_beats(p) == fir.frame_beats(pf) == 256
    assert sb.module_name(p).startswith("mf_poly_schoolbook_sb_n256_q13_s4_")
    p = sb.parse({"n": "32", "q": "12289"})
    assert (sb.latency(p), sb.cycles(p), sb.initiation_interval(p)) == (64 + 5, 95 + 5, 32)


def test_prime_q():
    """A prime q: ports of q's bit length, the lazy widths, one reduction core a lane; the
    latency grows by its stages R (barrett 5, montgomery with plain 12), beside the
    pipeline's S = 4."""
    fast = lookup("poly-fast")
    p = fast.parse({"n": "64", "q": "3329", "M": "2"})
    assert [(o.name, o.width) for o in fast.operands(p)] == [("a", 24), ("b", 24)] and fast.result_width(p) == 24
    assert (fast.latency(p), fast.cycles(p), fast.initiation_interval(p)) == (32 + 4 + 5, 63 + 4 + 5, 32)
    info = fast.extra_info(p)["prime_q"]
    assert info["reduction"] == "modmul-barrett" and info["offset"] % 3329 == 0 and info["offset"] >= info["bound"]
    p = fast.parse({"n": "64", "q": "12289", "M": "4", "reduction": "montgomery"})
    assert (fast.latency(p), fast.cycles(p)) == (16 + 4 + 12, 31 + 4 + 12)
    assert fast.computes(p).p == 12289 and "q = 12289 (prime" in fast.congruence(p)
    assert fast.module_name(p).startswith("mf_poly_fast_m4_n64_p12289_montgomery_")
