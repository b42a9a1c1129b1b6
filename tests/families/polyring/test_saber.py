"""poly-saber against an independent model of Saber's polynomial arithmetic with Saber's
real parameters (n = 256, q = 2^13, p = 2^10; secrets from the centred binomial
distribution), and its operation cycle counts."""

import random

import pytest

from modforge.registry import lookup

N, Q, P = 256, 1 << 13, 1 << 10
LEVELS = {"light": (2, 10), "saber": (3, 8), "fire": (4, 6)}   # l, mu (secrets in [-mu/2, mu/2])


def cbd(rng, mu):
    """A coefficient of the centred binomial distribution beta_mu."""
    return sum(rng.getrandbits(1) for _ in range(mu // 2)) - sum(rng.getrandbits(1) for _ in range(mu // 2))


def ring_mul(a, b, mod):
    """a*b in Z_mod[x]/(x^256 + 1), written out: x^256 = -1."""
    c = [0] * N
    for i in range(N):
        for j in range(N):
            if i + j < N:
                c[i + j] += a[i] * b[j]
            else:
                c[i + j - N] -= a[i] * b[j]
    return [x % mod for x in c]


@pytest.mark.parametrize("level", list(LEVELS))
def test_matrix_vector_and_inner_product(level):
    rank, mu = LEVELS[level]
    rng = random.Random(level)
    alg = lookup("poly-saber")
    params = alg.parse({"level": level, "M": "4"})
    A = [[[rng.randrange(Q) for _ in range(N)] for _ in range(rank)] for _ in range(rank)]
    s = [[cbd(rng, mu) for _ in range(N)] for _ in range(rank)]
    for i in range(rank):          # row i of A s: one frame of l products
        want = [sum(col) % Q for col in zip(*(ring_mul(A[i][j], s[j], Q) for j in range(rank)), strict=True)]
        assert alg.model(params, A[i], s) == want
    b = [[rng.randrange(P) for _ in range(N)] for _ in range(rank)]     # b^T s' mod p: the low 10 bits
    inner = [sum(col) % P for col in zip(*(ring_mul(b[j], s[j], P) for j in range(rank)), strict=True)]
    assert [x % P for x in alg.model(params, b, s)] == inner


def test_operation_cycles():
    """KeyGen, Encaps, Decaps: L = l^2, l^2 + l, l^2 + 2l multiplications, (L+1) n/M - 1
    cycles: groups of l products back to back at the simulated initiation interval, the last
    group's result with its last n/M beats after the simulated latency."""
    alg = lookup("poly-saber")
    for level, (rank, _) in LEVELS.items():
        for m, stages in (("1", 0), ("4", 0), ("8", 0), ("4", 4), ("1", 2)):
            p = alg.parse({"level": level, "M": m, "pipeline": str(stages)})
            info, nb = alg.extra_info(p), N // int(m)
            assert info["multiplications"] == {"keygen": rank * rank, "encaps": rank * rank + rank,
                                               "decaps": rank * rank + 2 * rank}
            for op, L in info["multiplications"].items():
                groups = L // rank
                simulated = (groups - 1) * alg.initiation_interval(p) + (rank - 1) * nb + alg.latency(p) + nb - 1
                assert info["operation_cycles"][op] == simulated == (L + 1) * nb - 1 + stages


def test_rules():
    from modforge.errors import ParameterError
    alg = lookup("poly-saber")
    with pytest.raises(ParameterError, match="mu.*at least 3 bits"):
        alg.parse({"level": "light", "mu": "2"})
    with pytest.raises(ParameterError, match="level.*light, saber"):
        alg.parse({"level": "ultra"})
    with pytest.raises(ParameterError, match="poly-saber: argument 'M'"):
        alg.parse({"M": "5"})
    for m in ("1", "4"):
        with pytest.raises(ParameterError, match="poly-saber: argument 'pipeline'.*0 or at least 2"):
            alg.parse({"M": m, "pipeline": "1"})
