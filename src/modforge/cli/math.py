"""The mathematics verbs: poly (polynomials over GF(p)), primes (NTT moduli), rsa (FMLM3
parameter sets). Their KEY=VALUE arguments are frozen dataclasses of `registry.param` fields,
parsed as an algorithm's are (types, choices, bounds: `modforge <verb> --help` states them)."""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from functools import partial
from typing import Any, Literal

import typer

from ..errors import ParameterError
from ..math.primes import MAX_BETA, Family
from ..registry import POLYNOMIAL, POW2, param
from .base import JSON_HELP, TIMEOUT_HELP, arguments, arguments_help, poly_app, primes_app, rsa_app
from .render import console, emit, print_table, search

# ---------------------------------------------------------------- the arguments

#: GF(p) of the polynomial verbs: the odd-p arithmetic is on tuples, a test of degree d costs
#: about d log p products of degree-d polynomials
MAX_POLY_P = 65521
#: poly check factors f (distinct-degree factorization): about 3 s at degree 2048 over GF(2)
#: (integers), as long at degree 256 over GF(3) (tuples)
MAX_CHECK_DEGREE = {2: 2048, "odd": 256}
#: the irreducible searches run under --timeout with a progress bar: the bound only keeps one
#: candidate's test within memory (a degree-100000 trinomial over GF(2) takes a fraction of a second)
MAX_SEARCH_DEGREE = 100_000
#: rsa-fmlm3's operand sizes (families/fmlm3: MIN_L..MAX_L is 16..8192); parameter_sets starts at 2
MAX_RSA_BITS = 8192


@dataclasses.dataclass(frozen=True, kw_only=True)
class PolyCheckArgs:
    p: int = param(2, help="the characteristic, a prime", lo=2, hi=MAX_POLY_P)
    poly: str = param(kind=POLYNOMIAL, help=f"f over GF(p), such as x^163+x^7+x^6+x^3+1, degree at most "
                                            f"{MAX_CHECK_DEGREE['odd']} for odd p", hi=MAX_CHECK_DEGREE[2])


@dataclasses.dataclass(frozen=True, kw_only=True)
class PolySearchArgs:
    p: int = param(2, help="the characteristic, a prime", lo=2, hi=MAX_POLY_P)
    degree: int = param(help="the degree", lo=2, hi=MAX_SEARCH_DEGREE)
    kind: Literal["auto", "trinomial", "pentanomial"] = param(
        "auto", help="auto (trinomials, then pentanomials over GF(2)), trinomial or pentanomial (p = 2)")


PrimeFamily = Literal["ntt", "proth", "proth2l", "proth3l"]   # math.primes.FAMILIES (tests hold them equal)


@dataclasses.dataclass(frozen=True, kw_only=True)
class FamilyBase:
    family: PrimeFamily = param(help="the paper's prime family")
    beta: int = param(64, help="the primes' bit length", lo=3, hi=MAX_BETA)
    logqh: int | None = param(None, help="log q_h = beta - omega, q = q_h 2^omega + 1 (at most beta-1)", lo=1,
                              hi=MAX_BETA - 1)


@dataclasses.dataclass(frozen=True, kw_only=True)
class FamilyArgs(FamilyBase):
    n: int | None = param(None, kind=POW2, help="family ntt without logqh: log q_h = beta - log2(2n)", lo=1,
                          hi=1 << 30)


@dataclasses.dataclass(frozen=True, kw_only=True)
class PrimesCheckArgs:
    q: int = param(help="the integer to test (decimal or 0x...)", lo=2, hi=(1 << MAX_BETA) - 1)


@dataclasses.dataclass(frozen=True, kw_only=True)
class PrimesListArgs(FamilyArgs):
    count: int = param(10, help="how many", lo=1, hi=100_000)
    logn: int | None = param(None, help="only the primes with 2^(logn+1) | q-1 (at most beta-2)", lo=0,
                             hi=MAX_BETA - 2)
    order: Literal["asc", "desc"] = param("asc", help="ascending or descending")


@dataclasses.dataclass(frozen=True, kw_only=True)
class PrimesCountArgs(FamilyArgs):
    method: Literal["auto", "native", "python"] = param(
        "auto", help="native: the C kernel on all cores; python; auto: native for the big families")


@dataclasses.dataclass(frozen=True, kw_only=True)
class PrimesRnsArgs(FamilyBase):
    family: PrimeFamily = param("ntt", help="the paper's prime family")
    n: int = param(kind=POW2, help="the polynomial length: each prime has 2n | q-1 (family ntt without logqh: "
                                   "log q_h = beta - log2(2n))", lo=1, hi=1 << 30)
    logq: int = param(help="the bits of the product of the base", lo=1, hi=1 << 16)
    order: Literal["asc", "desc"] = param("desc", help="the largest primes first (desc) or the smallest")


@dataclasses.dataclass(frozen=True, kw_only=True)
class PrimesFormArgs:
    q: str = param(help="a prime of 128..1024 bits (decimal or 0x...) or a curve's: p256, p384, p521, secp256k1, "
                        "25519, 448, bn254, bls12-381, bls12-377")


@dataclasses.dataclass(frozen=True, kw_only=True)
class PrimesRootsArgs:
    q: int = param(help="an NTT-friendly prime", lo=3, hi=(1 << MAX_BETA) - 1)
    n: int = param(kind=POW2, help="the polynomial length (2n | q-1)", lo=1, hi=1 << 20)


@dataclasses.dataclass(frozen=True, kw_only=True)
class RsaParamsArgs:
    l: int = param(help="the operand bits", lo=2, hi=MAX_RSA_BITS)  # noqa: E741  (the paper's name)
    P: int | None = param(None, kind=POW2, help="only this transform length (at most l)", lo=2, hi=MAX_RSA_BITS)
    u: int | None = param(None, help="digit bits, u P >= l (with c and algorithm: check one set)", lo=1,
                          hi=MAX_RSA_BITS)
    c: Fraction | None = param(None, help="ring parameter, M = 2^(cP) + 1: 1/2 or a positive integer")
    algorithm: Literal[2, 3] | None = param(None, help="Algorithm 2 or 3")


#: the KEY=VALUE help of each verb, from its dataclass
ARGS_HELP = {cls: arguments_help(cls) for cls in (PolyCheckArgs, PolySearchArgs, PrimesCheckArgs, PrimesListArgs,
                                                  PrimesCountArgs, PrimesRnsArgs, PrimesRootsArgs, RsaParamsArgs,
                                                  PrimesFormArgs)}


def _prime(command: str, p: int) -> int:
    from ..math.poly import is_prime_small
    if not is_prime_small(p):
        raise ParameterError(command, "p", "must be a prime", p)
    return p


# ---------------------------------------------------------------- poly

@poly_app.command("check")
def poly_check(params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE",
                                                        help=ARGS_HELP[PolyCheckArgs]),
               as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """Is f irreducible over GF(p)? Field or ring, and the degrees of its factors."""
    from ..math import irreducible, poly
    command = "poly check"
    args = arguments(command, PolyCheckArgs, params)
    p = _prime(command, args.p)
    try:
        f = poly.parse_poly(args.poly, p)
    except ValueError as exc:
        raise ParameterError(command, "poly", f"must be a polynomial over GF({p}) ({exc})", args.poly) from exc
    most = MAX_CHECK_DEGREE[2] if p == 2 else MAX_CHECK_DEGREE["odd"]
    if len(f) - 1 > most:
        raise ParameterError(command, "poly", f"must have degree at most {most} over GF({p})",
                             f"<degree {len(f) - 1}>")
    info = irreducible.structure(f, p)
    data = {"p": p, "poly": poly.format_poly(f, p), "degree": len(f) - 1, **info}
    emit(as_json, data, lambda: console.print(info["message"], highlight=False))


@poly_app.command("irreducible")
def poly_irreducible(params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE",
                                                              help=ARGS_HELP[PolySearchArgs]),
                     count: int = typer.Option(1, min=1, help="How many to list, lowest weight first."),
                     timeout: float = typer.Option(600, "--timeout", metavar="SECONDS", help=TIMEOUT_HELP),
                     as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """Search irreducible trinomials / pentanomials of a degree, the conventional ones first."""
    from ..math import irreducible, poly
    command = "poly irreducible"
    args = arguments(command, PolySearchArgs, params)
    p, degree, kind = _prime(command, args.p), args.degree, args.kind
    if kind == "pentanomial" and p != 2:
        raise ParameterError(command, "kind", "pentanomial searches are over GF(2) (p=2)", kind)
    found: list[str] = []
    kinds = {"trinomial": ["trinomial"], "pentanomial": ["pentanomial"],
             "auto": ["trinomial"] + (["pentanomial"] if p == 2 else [])}[kind]
    with search(command, f"degree-{degree} {kinds[0]}s over GF({p})", timeout) as progress:
        for each in kinds:
            step = partial(progress, what=f"degree-{degree} {each}s over GF({p})")
            gen = (irreducible.trinomials(p, degree, step) if each == "trinomial"
                   else irreducible.pentanomials(degree, step))
            for f in gen:
                found.append(poly.format_poly(f, p))
                if len(found) >= count:
                    break
            if found and kind == "auto" or len(found) >= count:
                break
    data = {"p": p, "degree": degree, "kind": kind, "polynomials": found}
    emit(as_json, data, lambda: console.print("\n".join(found) if found else
                                              f"no irreducible {kind} of degree {degree} over GF({p})",
                                              highlight=False))


# ---------------------------------------------------------------- primes (NTT moduli)

def _family(command: str, args: FamilyArgs | PrimesRnsArgs) -> Family:
    from ..math import primes as P
    if args.logqh is not None and args.logqh >= args.beta:
        raise ParameterError(command, "logqh", f"must be in 1..beta-1 (beta={args.beta})", args.logqh)
    n = args.n if args.logqh is None else None
    try:
        return P.family(args.family, args.beta, args.logqh, n=n)
    except ValueError as exc:
        raise ParameterError(command, "logqh", str(exc), args.logqh if args.logqh is not None else "<missing>") from exc


@primes_app.command("check")
def primes_check(params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE",
                                                          help=ARGS_HELP[PrimesCheckArgs]),
                 as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """Is q prime (deterministic below 3.3e24)? Its NTT limit and the paper's families it is in."""
    from ..math import primes as P
    q = arguments("primes check", PrimesCheckArgs, params).q
    prime, how = P.primality(q)
    data: dict[str, Any] = {"q": q, "hex": hex(q), "bits": q.bit_length(), "prime": prime, "certainty": how}
    if prime and q > 2:
        m = P.v2(q - 1)
        qh = (q - 1) >> m
        beta = q.bit_length()
        data |= {"v2_q_minus_1": m, "max_log_n": m - 1, "q_h": qh, "omega": m, "log_qh": qh.bit_length(),
                 "proth": qh.bit_length() <= m, "families": []}
        # the same q in every (beta, log_qh) family it belongs to: omega' <= v2(q-1)
        for omega in range(1, m + 1):
            lq = beta - omega
            for kind in P.FAMILIES:
                try:
                    P.family(kind, beta, lq)  # is (beta, log_qh) a valid family of this kind?
                except ValueError:
                    continue
                if kind in ("proth2l", "proth3l"):
                    terms = P.proth_l_terms(q, kind, beta, lq)
                    if terms:
                        data["families"].append({"family": kind, "beta": beta, "logqh": lq, "l": terms[:4],
                                                 "representations": len(terms)})
                elif omega == m:
                    data["families"].append({"family": kind, "beta": beta, "logqh": lq})

    def human() -> None:
        console.print(f"{q} is {'prime' if prime else 'composite'} ({how})", highlight=False)
        if prime and q > 2:
            console.print(f"q - 1 = {data['q_h']} * 2^{data['v2_q_minus_1']}: NTT-friendly up to "
                          f"n = 2^{data['max_log_n']}; {'a' if data['proth'] else 'not a'} Proth prime",
                          highlight=False)
            for f in data["families"]:
                extra = f"  l = {f['l']}" if "l" in f else ""
                console.print(f"  {f['family']} beta={f['beta']} logqh={f['logqh']}{extra}", highlight=False)
    emit(as_json, data, human)


@primes_app.command("form")
def primes_form(params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE", help=ARGS_HELP[PrimesFormArgs]),
                as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """The special forms of an elliptic-curve or zero-knowledge prime (pseudo-Mersenne,
    Solinas, Goldilocks, Montgomery-friendly) and the reductions that apply to it."""
    from ..math import fields as F
    spec = arguments("primes form", PrimesFormArgs, params).q
    q = F.resolve(spec, "primes form")
    forms = F.check("primes form", q)
    named = next((n for n in F.NAMED.values() if n.q == q), None)
    data: dict[str, Any] = {"q": q, "hex": hex(q), "bits": q.bit_length(),
                            "name": named.name if named else None, "curve": named.curve if named else None,
                            "forms": [{"form": f.name, "text": str(f), "reductions": list(f.reductions)}
                                      for f in forms],
                            "reductions": F.reductions(q)}

    def human() -> None:
        title = f"{named.name}: {named.curve}, " if named else ""
        console.print(f"{title}{q.bit_length()}-bit prime {hex(q)}", highlight=False)
        for f in forms:
            console.print(f"  {f}: {', '.join(f.reductions)}", highlight=False)
    emit(as_json, data, human)


@primes_app.command("list")
def primes_list(params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE",
                                                         help=ARGS_HELP[PrimesListArgs]),
                timeout: float = typer.Option(600, "--timeout", metavar="SECONDS", help=TIMEOUT_HELP),
                as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """The first primes of a family (ascending, or order=desc), optionally only those with 2^(logn+1) | q-1."""
    from ..math import primes as P
    command = "primes list"
    args = arguments(command, PrimesListArgs, params)
    fam = _family(command, args)
    if args.logn is not None and args.logn > fam.beta - 2:
        raise ParameterError(command, "logn", f"must be in 0..beta-2 (beta={fam.beta})", args.logn)
    found = []
    with search(command, f"{fam.label}: candidates", timeout) as progress:
        for q in P.family_members(fam, log_n=args.logn, descending=args.order == "desc", progress=progress):
            found.append(q)
            if len(found) >= args.count:
                break
    data = {"family": fam.kind, "beta": fam.beta, "logqh": fam.log_qh, "omega": fam.omega, "logn": args.logn,
            "primes": [{"q": q, "hex": hex(q), "q_h": (q - 1) >> fam.omega, "max_log_n": P.ntt_max_log_n(q)}
                       for q in found]}
    emit(as_json, data, lambda: console.print(
        "\n".join(f"{p['q']}  {p['hex']}  q_h={p['q_h']}  max log n={p['max_log_n']}" for p in data["primes"])
        if found else f"no primes in {fam.label}", highlight=False))


@primes_app.command("count")
def primes_count(params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE",
                                                          help=ARGS_HELP[PrimesCountArgs]),
                 timeout: float = typer.Option(600, "--timeout", metavar="SECONDS", help=TIMEOUT_HELP),
                 as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """Count a family's primes (native C kernel on all cores for big families), by v2(q-1), and its max log n."""
    from ..math import primes as P
    command = "primes count"
    args = arguments(command, PrimesCountArgs, params)
    fam = _family(command, args)
    try:
        with search(command, f"{fam.label}: candidates", timeout) as progress:
            res = P.count_family(fam, method=args.method, progress=progress)
    except ValueError as exc:
        raise ParameterError(command, "logqh", str(exc), fam.log_qh) from exc
    data = res.record()

    def human() -> None:
        console.print(f"{fam.label}: {res.count} primes of {res.candidates} candidates "
                      f"in {res.seconds:.2f} s ({res.method})", highlight=False)
        console.print("by v2(q-1): " + ", ".join(f"{v}: {c}" for v, c in res.valuations.items()), highlight=False)
        console.print(f"max log n (Table 1 rule): {res.max_log_n if res.max_log_n is not None else '< 12'}",
                      highlight=False)
        if res.note:
            console.print(f"note: {res.note}", highlight=False)
    emit(as_json, data, human)


@primes_app.command("rns")
def primes_rns(params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE",
                                                        help=ARGS_HELP[PrimesRnsArgs]),
               timeout: float = typer.Option(600, "--timeout", metavar="SECONDS", help=TIMEOUT_HELP),
               as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """Pick ceil(logq/beta) distinct primes of a family with 2n | q-1 (Table 1's RNS base), or say it cannot."""
    from ..math import primes as P
    command = "primes rns"
    args = arguments(command, PrimesRnsArgs, params)
    n, log_q = args.n, args.logq
    fam = _family(command, args)
    try:
        with search(command, f"{fam.label}: primes with 2n | q-1", timeout):
            base = P.rns_base(n, log_q, fam, descending=args.order == "desc")
    except ValueError as exc:
        raise ParameterError(command, "family", str(exc), fam.label) from exc
    prod = math.prod(base)
    # the same base as parameters of the NTT cores' RNS mode
    ntt_args = f"q={hex(base[0])}" + (f" base={','.join(hex(q) for q in base[1:])}" if len(base) > 1 else "")
    ntt_args += f" logqh={fam.log_qh}" if fam.log_qh else ""
    data = {"n": n, "logq": log_q, "family": fam.kind, "beta": fam.beta, "logqh": fam.log_qh,
            "primes": base, "count": len(base), "product_bits": prod.bit_length(), "ntt_args": ntt_args}
    emit(as_json, data, lambda: console.print(
        f"{len(base)} primes of {fam.label} with 2n | q-1 (n={n}), product {prod.bit_length()} bits:\n"
        + "\n".join(f"{q}  {hex(q)}" for q in base) + f"\nNTT cores (RNS mode): {ntt_args} n={n}", highlight=False))


@primes_app.command("roots")
def primes_roots(params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE",
                                                          help=ARGS_HELP[PrimesRootsArgs]),
                 as_json: bool = typer.Option(False, "--json", help="Includes the full twiddle tables.")) -> None:
    """The smallest primitive 2n-th root psi (psi^n = -1) and the bit-reversed twiddle tables."""
    from ..math import primes as P
    command = "primes roots"
    args = arguments(command, PrimesRootsArgs, params)
    q, n = args.q, args.n
    if not P.is_prime(q):
        raise ParameterError(command, "q", "must be a prime", q)
    if (q - 1) % (2 * n):
        raise ParameterError(command, "n", f"needs 2n | q-1 (q supports n <= 2^{P.ntt_max_log_n(q)})", n)
    tw = P.twiddles(q, n)
    data = tw.record()
    emit(as_json, data, lambda: console.print(
        f"psi = {tw.psi} (psi^n = -1 mod q: {data['check_psi_n_is_minus_1']}), psi^-1 = {tw.psi_inv}, "
        f"n^-1 = {tw.n_inv}\nforward (psi^bitrev(i)) [:8] = {tw.forward[:8]}\n"
        f"inverse (psi^-bitrev(i)) [:8] = {tw.inverse[:8]}", highlight=False))


# ---------------------------------------------------------------- rsa (FMLM3)

@rsa_app.command("params")
def rsa_params(params: list[str] | None = typer.Argument(None, metavar="KEY=VALUE",
                                                        help=ARGS_HELP[RsaParamsArgs]),
               as_json: bool = typer.Option(False, "--json", help=JSON_HELP)) -> None:
    """Every feasible FMLM3 parameter set for operand size l (corrected Algorithm 4), each
    with the inequality that admits it; with u, c and algorithm: check that one set."""
    from ..math import fmlm3
    command = "rsa params"
    args = arguments(command, RsaParamsArgs, params)
    if args.u is not None or args.c is not None or args.algorithm is not None:
        missing = [k for k in ("P", "u", "c", "algorithm") if getattr(args, k) is None]
        if missing:
            raise ParameterError(command, missing[0], "is required to check one set (P, u, c, algorithm)",
                                 "<missing>")
        assert args.P and args.u and args.c is not None and args.algorithm     # all given (missing is empty)
        sets = [fmlm3.check_set(args.l, args.P, args.u, args.c, args.algorithm)]
    else:
        sets = fmlm3.parameter_sets(args.l, args.P)
    data = {"l": args.l, "sets": [s.record() for s in sets]}
    columns = dict.fromkeys(("alg", "P", "u", "l_max", "c", "M", "omega", "A", "admitted by", ""), False)
    columns["admitted by"] = True
    emit(as_json, data, lambda: print_table(
        f"FMLM3 parameter sets for l = {args.l} (*: corrected Algorithm 4 selects it)", columns,
        [[str(r["algorithm"]), str(r["P"]), str(r["u"]), str(r["l_max"]), r["c"], r["M"], r["omega"], r["A"],
          r["rule"], "*" if r["selected"] else ""] for r in data["sets"]]))
