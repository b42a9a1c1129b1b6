"""ntt-commands: a core that keeps polynomials in S slots and runs one command at a time on
them (NTT, NTT^-1, the NTT-domain product and its accumulation, load and store), as ML-KEM
and ML-DSA use their rings: the matrix A is sampled in the NTT domain, a secret is
transformed once and multiplied many times, products are summed before one inverse.

Commands (the i stream: one beat a command, fields op, d, a, b, row and x = a row of P
coefficients; o: the rows STORE reads out):

  op  name   does                                   cycles (i.ready again after, no stalls)
  0   LOAD   slot d, row `row` <- x                  1
  1   STORE  rows 0 .. R-1 of slot d to o, in order  R
  2   NTT    slot d <- NTT(d), in place              L H + G + D   (the forward core's C)
  3   INTT   slot d <- NTT^-1(d), in place           L H + G + D   (the inverse core's C)
  4   MUL    slot d <- a o b                         M
  5   MAC    slot d <- d + a o b                     M
  6, 7       nothing                                 1

with R = n/P rows, H = n/(2P), L = log2(n) - incomplete layers, D = mul_depth + 5 (the
NTT cores' drain mul_depth + 3, read_register=1's register after the RAMs' and ROMs' read
ports and unit_register=1's before the butterflies, both the default here), G the stalls of
the transform passes
(algorithms.STALLS), and M = 2R + max(0, D+1-R) + D for a
complete NTT (pointwise), M = 4R + 2 max(0, D+1-R) + D for incomplete=1 (FIPS 203's base
case). MUL and MAC need a and b in different bank sets (slot parity: one even, one odd);
d is any slot, and may be a or b; a o b is the product in the NTT domain (pointwise, or
FIPS 203's MultiplyNTTs with incomplete=1).

Memory: slot s sits in bank set s mod 2, region s div 2 (the NTT cores' banks, rows in
bank parity(r)); each set has one more region, its temporary t0 / t1. A command's passes
are those of the NTT cores (plan.passes), on the slots its fields name:

  NTT, INTT  the forward (inverse) transform's passes on slot d's set and region.
  MUL, MAC   product: pointwise (complete) reads row c of a and b, writes a_l b_l F to
             temporary X = t(1 - set(d)); incomplete=1: products (2R) writes a_l b_l F to X
             and a_(l^1) b_l F to Y = t(set(d)), basecase (R) reads X and Y and writes
             c F (c = FIPS 203's BaseCaseMultiply) back to X (P = 1: a pair is word i of a
             set's two banks, model.py; the same cycles). Then one add pass (R): d <- u
             + mul(X, F^-2) = u + c, u = d's row (MAC) or 0 (MUL), so the stored
             polynomials keep the plain representation (F: the reduction's scale).

A command starts one cycle after it is taken and the next is taken in the cycle its last
write lands (RAMs read the new word the cycle after): a command's cycles do not depend on
the data, the slots or the command before. A load writes its row the cycle after it is
taken (the write port of that cycle may be the last operation's); a store issues its reads
into the output FIFO while it has room (back-pressure stretches STORE, nothing else)."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence

from .model import Memory, Mul, butterfly, step
from .plan import NttPlan, Pass, parity, pass_starts

LOAD, STORE, NTT, INTT, MUL, MAC = range(6)
OPS = ("load", "store", "ntt", "intt", "mul", "mac")
OP_BITS = 3


@dataclasses.dataclass(frozen=True)
class Command:
    op: int
    d: int = 0
    a: int = 0
    b: int = 0
    row: int = 0
    x: tuple[int, ...] = ()      # LOAD: the row's P coefficients


@dataclasses.dataclass(frozen=True)
class CommandPlan:
    """The command core's plan beside the NTT plan it builds on (passes: polymul's, without a
    scale pass; one prime, one buffer): the pass sequence of each command kind and its
    schedule, the slots, the cycles of each command."""
    ntt: NttPlan
    slots: int
    forward: tuple[Pass, ...]
    inverse: tuple[Pass, ...]
    product: tuple[Pass, ...]    # pointwise, or products + basecase; then the add pass

    @classmethod
    def of(cls, ntt: NttPlan, slots: int) -> CommandPlan:
        layers = sum(1 for ps in ntt.passes if ps.kind in ("pair", "row")) // 3   # polymul: 3 transforms
        forward, inverse = ntt.passes[:layers], ntt.passes[-layers:]
        middle = ntt.passes[2 * layers:-layers]
        return cls(ntt, slots, forward, inverse, (*middle, Pass("add", False, 0, 0, ntt.rows, 0)))

    # --- shape ---------------------------------------------------------------------------
    @property
    def regions(self) -> int:
        """Regions per bank set: S/2 slots and the temporary."""
        return self.slots // 2 + 1

    @property
    def slot_bits(self) -> int:
        return max(1, (self.slots - 1).bit_length())

    @property
    def row_bits(self) -> int:
        return max(1, (self.ntt.rows - 1).bit_length())

    # --- the schedule of each command's passes ---------------------------------------------
    def starts(self, passes: tuple[Pass, ...]) -> tuple[int, ...]:
        return pass_starts(passes, self.ntt.rows, self.ntt.P, self.ntt.drain)

    def span(self, passes: tuple[Pass, ...]) -> int:
        return self.starts(passes)[-1] + passes[-1].issues

    def waits(self, passes: tuple[Pass, ...]) -> list[int]:
        """Idle cycles after each pass's issues before the next starts (the last: D)."""
        starts = [*self.starts(passes), self.span(passes) + self.ntt.drain]
        return [starts[p + 1] - starts[p] - ps.issues for p, ps in enumerate(passes)]

    def command_cycles(self, op: int) -> int:
        """Cycles from the command's handshake to the next's, without stalls (module doc)."""
        R, D = self.ntt.rows, self.ntt.drain
        passes = {NTT: self.forward, INTT: self.inverse, MUL: self.product, MAC: self.product}.get(op)
        if passes is not None:
            return self.span(passes) + D
        return R if op == STORE else 1

    def formula_cycles(self, op: int) -> int:
        """The same cycles by the closed forms of the module doc (a test holds them equal)."""
        R, D, H, P = self.ntt.rows, self.ntt.drain, self.ntt.H, self.ntt.P
        k = next((ps.t for ps in self.forward[::-1]), 1).bit_length() - 1      # incomplete
        L = len(self.forward)
        if op in (NTT, INTT):
            lg_p, top = P.bit_length() - 1, (self.ntt.n // P).bit_length() - 1
            stalls = sum(max(0, (1 << i) + D + 1 - H) for i in range(max(0, k - lg_p), top - 1))
            stalls += max(0, lg_p - k) * max(0, D + 1 - H)
            return L * H + stalls + D
        if op in (MUL, MAC):
            if any(ps.kind == "basecase" for ps in self.product):
                return 4 * R + 2 * max(0, D + 1 - R) + D
            return 2 * R + max(0, D + 1 - R) + D
        return R if op == STORE else 1

    # --- the timing (Schedule): the NTT command's cycles; a STORE's first row LATENCY cycles
    # after its handshake, its R rows the result; a command a beat, LOADs one a cycle -------
    @property
    def cycles(self) -> int:
        return self.command_cycles(NTT)

    @property
    def latency(self) -> int:
        """The first read the cycle after the handshake, then the RAM and its registers, FIFO
        write and read."""
        return 4 + self.ntt.read_stages

    @property
    def initiation_interval(self) -> int:
        return 1

    @property
    def frame_beats(self) -> int:
        return 1

    @property
    def result_beats(self) -> int:
        return self.ntt.rows

    # --- the command's beat ------------------------------------------------------------------
    def fields(self) -> list[tuple[str, int]]:
        """The i payload's fields after x (low bits first): name and bits."""
        return [("op", OP_BITS), ("d", self.slot_bits), ("a", self.slot_bits), ("b", self.slot_bits),
                ("row", self.row_bits)]


# --- the model -----------------------------------------------------------------------------
def run_commands(plan: CommandPlan, mul: Mul, program: Sequence[Command]) -> list[list[int]]:
    """The rows STORE commands read out, in order (each a list of P coefficients), after
    running `program` on slots that start at zero, exactly as the hardware computes: the
    transforms by the NTT cores' passes (model.step) on the slot, the products into the
    temporaries and the add pass (module doc)."""
    ntt = plan.ntt
    P, R, prime = ntt.P, ntt.rows, ntt.primes[0]
    q = prime.q
    slots = [[[0] * P for _ in range(R)] for _ in range(plan.slots)]      # [slot][row] -> P coefficients
    out: list[list[int]] = []

    def as_memory(*rows_of: list[list[int]]) -> Memory:
        return [[[rows[r] for r in range(R) if parity(r) == bank] for bank in (0, 1)] for rows in rows_of]

    def from_memory(bank_set: list[list[list[int]]]) -> list[list[int]]:
        return [bank_set[parity(r)][r >> 1] for r in range(R)]

    for cmd in program:
        if cmd.op == LOAD:
            slots[cmd.d][cmd.row] = list(cmd.x)
        elif cmd.op == STORE:
            out += [list(row) for row in slots[cmd.d]]
        elif cmd.op in (NTT, INTT):
            mem = as_memory(slots[cmd.d])
            for ps in (plan.forward if cmd.op == NTT else plan.inverse):
                for c in range(ps.issues):
                    step(ntt, prime, mul, mem, dataclasses.replace(ps, bank_set=0), c)
            slots[cmd.d] = from_memory(mem[0])
        elif cmd.op in (MUL, MAC):
            mem = as_memory(slots[cmd.a], slots[cmd.b])        # copies: the products land in temporaries
            for ps in plan.product[:-1]:
                for c in range(ps.issues):
                    step(ntt, prime, mul, mem, ps, c)
            product, scale = from_memory(mem[0]), pow(prime.F, -2, q)
            slots[cmd.d] = [[butterfly(q, mul, False, u if cmd.op == MAC else 0, v, scale)[0]
                             for u, v in zip(base, row, strict=True)]
                            for base, row in zip(slots[cmd.d], product, strict=True)]
    return out


def random_program(plan: CommandPlan, rng: random.Random, q: int) -> list[Command]:
    """A program that loads every slot with random coefficients (corner rows among them),
    runs every command kind on random slots, and stores every slot."""
    S, R, P = plan.slots, plan.ntt.rows, plan.ntt.P
    program = []
    for s in range(S):
        for r in range(R):
            kind = rng.randrange(8)
            x = tuple([0] * P if kind == 0 else [q - 1] * P if kind == 1 else [rng.randrange(q) for _ in range(P)])
            program.append(Command(LOAD, d=s, row=r, x=x))
    for _ in range(2 * S):
        op = rng.choice((NTT, INTT, MUL, MAC))
        a = rng.randrange(S)
        b = rng.randrange(S // 2) * 2 + (1 - a % 2)        # the other bank set
        program.append(Command(op, d=rng.randrange(S), a=a if op in (MUL, MAC) else 0,
                               b=b if op in (MUL, MAC) else 0))
    program += [Command(STORE, d=s) for s in range(S)]
    return program


def pack_command(plan: CommandPlan, cmd: Command, w: int) -> int:
    """The i payload of a command: x (lane l in bits [l w, (l+1) w)), then op, d, a, b, row."""
    word = sum(c << (lane * w) for lane, c in enumerate(cmd.x))
    off = plan.ntt.P * w
    for name, bits in plan.fields():
        value = getattr(cmd, name)
        assert 0 <= value < 1 << bits, (name, value)
        word |= value << off
        off += bits
    return word

