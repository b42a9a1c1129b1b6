"""The NTT cores in Amaranth: coefficient banks, twiddle ROMs, P butterfly units around the
chosen modmul datapath, a pass controller and an output FIFO (architecture and
maths: model.py; the generation-time schedule, ROM contents and timing: plan.NttPlan).

Control: IO and COMPUTE run side by side. IO reads the results out row by row into the
output FIFO, in frame order, and loads the next frame's R = n/P beats into a buffer (a set
of banks) no transform uses; where that buffer still holds a result, beat k is taken once
its row k has been read. COMPUTE runs the passes (C cycles) on a loaded buffer. One buffer:
they take turns. Two (ping-pong): IO fills one while COMPUTE works on the other, and a
frame starts loading R cycles before the transform running ends, so the next starts right
after it (II = C) and every frame waits alike (constant latency). One operation issued in
cycle c flows:
  c-1      decided from the controller's next state (p_next, c_next: the pass addressing of
           plan.issue), its fields and the memories' read addresses registered
  c        read addresses to the banks and ROMs (synchronous read), straight from registers
  c+1      rows and twiddles routed to the units; butterfly input stage
  c+2 ..   the reduction's mul_depth stages, then the butterfly output stage
  c+D      the results are written back in place, D = mul_depth + 3
Its control fields ride along a delay line, so each operation writes where it read. A pass
starts when the plan's schedule says (plan.pass_starts), while the one before drains.
RNS (k primes): the banks hold k residue polynomials (residue j at addresses j R/2 ..),
IO takes and gives k R beats, COMPUTE runs the passes k times; the residue index selects
the ROM words, the constants and the reduction's run-time modulus fields.
Run-time primes (twiddles=load): the twiddle ROMs are RAMs and the constants registers (one
set per residue slot), all holding the generation moduli's values after reset; the cfg
stream writes them (plan.ConfigMap) while no frame is in the core (cfg.ready), and holds
i off while it writes.
Nothing in COMPUTE waits on the ports; in IO a beat waits on i.valid and on the read-out,
and a read is issued only when the FIFO has room for it and for the read in flight, so
input stalls and output back-pressure lose nothing, and latency never depends on data.

Composition (hw/): Banks (coefficient banks), Butterfly (the units), ReadOut (rows into the
output FIFO), FrameCounter (load and read-out positions), DelayLine (the control fields),
ConfigLoader (cfg); here only the controller (passes, schedule) and the routes of rows to
the units and back. Banks, ReadOut and ConfigLoader are built flat into the core's module
(`build(m)`): synth_xilinx keeps the hierarchy, and a module boundary there would stop
Yosys optimising across it (it changed LUTs by up to 1.5 % and kept an unused register).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ...hw.banks import Banks
from ...hw.butterfly import Butterfly
from ...hw.config import ConfigLoader
from ...hw.delay import DelayLine
from ...hw.frame import FrameCounter
from ...hw.stream import ReadOut
from . import commands as cmd_set
from .commands import CommandPlan
from .model import pack_fields
from .plan import ConfigMap, NttPlan, Pass, issue, log2, operand_sets, parity, row_lanes

FIFO_DEPTH = 4          # output FIFO: 2 cycles write -> read, plus one read in flight

# routes of the rows to the units (read side) and back (write side); after the row passes'
# (polymul with incomplete=1, P >= 2): MULX, the products pass's crossed products, and BASE
PAIR, MUL, ROW0 = 0, 1, 2   # ROW0 + log2(t): a row pass with distance t
# twiddle (multiplier's second operand) sources
S_SHARED, S_LANE, S_HI, S_CONST = 0, 1, 2, 3
# row sources
SRC_A, SRC_B, SRC_IN = 0, 1, 2


class UnitInputs:
    """A butterfly unit's u, v and s before unit_register's register."""

    def __init__(self, w: int, lane: int) -> None:
        self.u, self.v, self.s = (Signal(w, name=f"{x}{lane}_in") for x in ("u", "v", "s"))


class NttCore(wiring.Component):
    """The whole core: i carries one beat (P coefficients, or P of a and P of b), o one beat
    of the result; a cfg stream with twiddles=load (the plan's config). latency and
    initiation_interval: the plan's (NttPlan)."""

    def __init__(self, plan: NttPlan, make_datapath: Callable[[], Any], layouts: dict[str, data.StructLayout]):
        """make_datapath(): the reduction's pipelined datapath (a modmul hw.pipeline.Datapath),
        one a butterfly; RNS or twiddles=load, with the run-time modulus the plan's runtime
        fields feed per prime. layouts: the streams' payloads (the plan's i: one polynomial's
        beat, or a's and b's; o; cfg with twiddles=load)."""
        self.plan = plan
        self.datapaths = [make_datapath() for _ in range(plan.P)]
        if self.datapaths[0].depth != plan.mul_depth:
            raise RuntimeError("the reduction's pipeline depth differs from the plan's")
        self.latency = plan.latency
        self.initiation_interval = plan.initiation_interval
        assert layouts["i"].size == plan.operands * plan.P * plan.w and layouts["o"].size == plan.P * plan.w
        assert not plan.config or layouts["cfg"].size == plan.config.width
        super().__init__({
            "i": In(stream.Signature(layouts["i"])),
            "o": Out(stream.Signature(layouts["o"])),
        } | ({"cfg": In(stream.Signature(layouts["cfg"]))} if plan.config else {}))

    def elaborate(self, platform: Any) -> Module:
        return _Build(self).m


class _Build:
    """One elaboration of an NttCore: the blocks (banks, twiddle ROMs, butterflies, read-out,
    config loader), the IO and pass controllers, and the routes of rows to the units and back.
    Statement order matters where two of them write one flag (busy, full): the later wins."""

    def __init__(self, core: Any) -> None:         # an NttCore or an NttCommandCore
        self.shape(core)
        self.build()

    def shape(self, core: Any) -> None:
        """The plan's figures the blocks below read."""
        plan = self.plan = core.plan
        self.core, self.w, self.config, self.m = core, plan.w, plan.config, Module()
        self.P, self.R, self.D, self.K, self.B = plan.P, plan.rows, plan.drain, plan.k, plan.buffers
        self.LW = self.P * self.w
        self.RD = 1 + plan.read_stages                     # issue to the units' input stage
        self.two = plan.operands == 2                      # a and b (polymul, basemul)
        self.row_ts = sorted({ps.t for ps in plan.passes if ps.kind == "row"})
        self.MULX = ROW0 + max(1, log2(self.P))                # the base case's routes (if any)
        self.BASE = self.MULX + 1
        # the routes MULX and BASE; P = 1 takes MUL and PAIR instead (plan.operand_sets)
        self.basecase = self.P > 1 and any(ps.kind == "basecase" for ps in plan.passes)
        self.routes, self.sources = self.routing(plan.passes)

    def routing(self, passes: tuple[Pass, ...]) -> tuple[list[int], list[int]]:
        """The routes and twiddle sources the passes issue with (pass_op, base_case_op,
        command_op; and load's scaling of b): the routes' multiplexers take only these, the
        last one in the default case (a route no pass issues would add a case, and a zero
        default, to every lane)."""
        P, routes, sources = self.P, set(), set()
        if self.plan.scale_at_load:
            routes, sources = {MUL}, {S_CONST}
        for ps in passes:
            r, s_src = {
                "pair": ({PAIR}, S_SHARED),
                "row": ({ROW0 + log2(ps.t)}, S_LANE),
                "pointwise": ({MUL}, S_HI),
                "scale": ({MUL}, S_CONST),
                "products": ({MUL} if P == 1 else {MUL, self.MULX}, S_HI),
                "basecase": ({PAIR} if P == 1 else {self.BASE}, S_LANE),
                "add": ({PAIR, MUL}, S_CONST),
            }[ps.kind]
            routes |= r
            sources.add(s_src)
        return sorted(routes), sorted(sources)

    def build(self) -> None:
        self.memories()
        self.butterflies()
        self.state()
        self.readout()
        self.load()
        self.passes()
        self.start()
        self.read_addresses()
        self.operands()
        self.write_back()

    def lane(self, row: Value, lane: int) -> Value:
        """Lane l of a row."""
        return row[lane * self.w:(lane + 1) * self.w]

    # --- blocks ---------------------------------------------------------------------------
    def memories(self) -> None:
        """Coefficient banks (a, and b for polymul and basemul; per buffer): row r of residue j in bank
        parity(r) at word r >> 1 of region j. Twiddle ROMs: one shared (pair passes), one
        per lane (row passes); RAMs the cfg stream writes with twiddles=load (tw_writes[sel])."""
        B = self.B
        self.res = Signal(range(self.K), name="residue")    # the residue computed
        self.banks = Banks(self.LW, self.R // 2, sets=self.plan.operands, buffers=B, regions=self.K,
                           names=lambda x, st, b: f"bank_{'ab'[st]}{b}" + (f"_buf{x}" if B > 1 else ""),
                           registered=bool(self.plan.read_stages))
        self.banks.build(self.m)
        self.twiddle_memories()

    def twiddle_memories(self) -> None:
        """The shared ROM and the lane ROMs (RAMs the cfg stream writes with twiddles=load)."""
        plan = self.plan
        self.tw_writes: dict[int, Any] = {}
        self.shared: Any = None
        self.lanes: list[Any] | None = None
        shared, lanes = plan.shared, plan.lanes
        if shared:
            self.shared = self.twiddle_memory("tw_shared", shared, 1).read_port()
        if lanes[0]:
            self.lanes = [self.twiddle_memory(f"tw_lane{u}", lanes[u], 2 + u).read_port()
                          for u in range(self.P)]
        self.shared_data = self.read_data(self.shared, "tw_shared_q")
        self.lane_data = [self.read_data(port, f"tw_lane{u}_q") for u, port in enumerate(self.lanes or [])]

    def read_data(self, port: Any, name: str) -> Any:
        """A ROM's read data in the units' input cycle: registered with read_stages."""
        if port is None or not self.plan.read_stages:
            return port and port.data
        return self.delayed(port.data, name)

    def twiddle_memory(self, name: str, words: list[int], sel: int) -> Memory:
        """A twiddle ROM (a RAM the cfg stream writes), in the kind of memory plan.twiddle_style
        names: Yosys's ram_style (lut: a ROM as logic, a RAM as LUT RAM)."""
        style = {"block": "block", "lut": "distributed" if self.config else "logic"}.get(self.plan.twiddle_style)
        mem = Memory(shape=self.w, depth=len(words), init=words, attrs={"ram_style": style} if style else None)
        self.m.submodules[name] = mem
        if self.config:
            self.tw_writes[sel] = mem.write_port()
        return mem

    def butterflies(self) -> None:
        """P units; q a constant, or the residue's (RNS: per operation) or the loaded one. Each
        runs the kinds the passes use: CT (forward passes, products, scaling) and GS (inverse)."""
        q_input = "per-op" if self.K > 1 else "static" if self.config else ""
        kinds = tuple(k for k, used in (("ct", not all(ps.inverse for ps in self.plan.passes)),
                                        ("gs", any(ps.inverse for ps in self.plan.passes))) if used)
        self.units = []
        for u in range(self.P):
            bf = Butterfly(self.plan.moduli[0], self.w, self.core.datapaths[u], u, q_input, self.plan.reset_all, kinds)
            self.m.submodules[f"bf{u}"] = bf
            self.units.append(bf)

    def state(self) -> None:
        """The operation issued this cycle (comb) with its delay line, and the controllers'
        registers."""
        plan, R, K, B = self.plan, self.R, self.K, self.B
        abits = self.banks.word_bits
        self.op = DelayLine(self.m, {
            "res": range(K), "buf": range(B), "valid": 1, "gs": 1, "two": 1, "wset": 1, "lo_src": 2,
            "hi_src": 1, "lo_bank": 1, "hi_bank": 1, "lo_addr": abits, "hi_addr": abits,
            "route": range(self.BASE + 1 if self.basecase else self.MULX), "s_src": 2})
        # buffer x: busy[x] from its last beat in to the end of its transform, full[x] from
        # then until its result has been read out
        self.busy, self.full = Signal(B, name="busy"), Signal(B, name="full")
        self.ib, self.ub, self.cb = (Signal(range(B), name=x) for x in ("ib", "ub", "cb"))  # load, read-out, COMPUTE
        self.running = Signal(name="running")               # COMPUTE
        self.pending = Signal(name="pending")               # a loaded frame waits for COMPUTE (B = 2)
        self.ld = FrameCounter(R, K, "ld")                  # the next beat in
        self.ul = FrameCounter(R, K, "ul")                  # the next row out
        self.controller(plan.passes)
        self.elapsed = Signal(range(plan.cycles), name="elapsed")   # of the transform running
        self.ahead, self.late, self.mid = (Signal(name=x) for x in ("ahead", "late", "mid"))

    # --- IO ---------------------------------------------------------------------------------
    def readout(self) -> None:
        """Row ul of buffer ub's a banks when the FIFO has room (counting the read in flight);
        the results in the order of the frames."""
        m, ul, ub, full = self.m, self.ul, self.ub, self.full
        ro = ReadOut(self.LW, FIFO_DEPTH + self.plan.read_stages, self.RD)
        ro.build(m)
        self.go = ro.go
        ubank, ubuf = Signal(name="ubank"), Signal(range(self.B), name="ubuf")
        m.d.comb += ro.avail.eq(full.bit_select(ub, 1))
        m.d.sync += [ubank.eq(parity(ul.k)), ubuf.eq(ub)]
        for _ in range(self.plan.read_stages):          # the banks' read registers
            ubank, ubuf = self.delayed(ubank), self.delayed(ubuf)
        with m.If(ro.go):
            ul.advance(m, full.bit_select(ub, 1).eq(0), ub.eq(ub + 1 if self.B > 1 else 0))
        m.d.comb += ro.data.eq(self.banks.data(0, ubank, ubuf))
        wiring.connect(m, ro.o, wiring.flipped(self.core.o))

    def load(self) -> None:
        """Load into buffer ib while no transform uses it: beat ld = row ld.k of residue
        ld.res; where a result still sits there, once its row has been read out (this cycle
        at the latest: the RAMs read the old word). a (and b unscaled) is written directly,
        b scaled through the units (one buffer). Two buffers: a frame's first beat waits
        until the transform running has k R cycles left at most. i.ready comes from flags
        registered the cycle before (ahead, late, mid) and go, not from comparators: it
        selects the banks' write data (Yosys/ABC9 spent 5-20% more LUTs on the core with an
        adder and a comparator there)."""
        m, core, op, ld, ul, go = self.m, self.core, self.op, self.ld, self.ul, self.go
        running, ib, busy, full = self.running, self.ib, self.busy, self.full
        ahead, mid = self.ahead, self.mid                # ul > ld; ld != 0 (late: elapsed >= C - k R)
        first_ok = 1 if self.B == 1 else (~running | self.late | mid)
        behind = (self.ub == ib) & (ahead | go)
        ready = ~busy.bit_select(ib, 1) & (~full.bit_select(ib, 1) | behind) & first_ok
        m.d.comb += [core.i.ready.eq(ready & ~core.cfg.valid if self.config else ready),   # cfg goes first
                     op["res"].eq(Mux(running, self.res, ld.res)), op["buf"].eq(Mux(running, self.cb, ib))]
        take = self.take = Signal(name="take")
        m.d.comb += take.eq(core.i.valid & core.i.ready)
        LW = self.LW
        beats = [Value.cast(core.i.payload[name]) for name, _ in core.i.payload.shape()]   # x, or a and b
        self.in_a = beats[0]
        self.in_b = beats[1] if self.two else None
        self.inb = Signal(LW, name="inb")                # b beat, one cycle later (as a RAM read)
        if self.plan.scale_at_load:
            m.d.sync += self.inb.eq(self.in_b)
            for _ in range(self.plan.read_stages):      # and through the read registers
                self.inb = self.delayed(self.inb)
            with m.If(~running):
                m.d.comb += [op["valid"].eq(take), op["lo_src"].eq(SRC_IN), op["lo_bank"].eq(parity(ld.k)),
                             op["lo_addr"].eq(ld.k >> 1), op["wset"].eq(1), op["route"].eq(MUL),
                             op["s_src"].eq(S_CONST)]
        loaded = self.loaded = Signal(name="loaded")     # the frame's last beat, now
        m.d.comb += loaded.eq(take & ld.last())
        ul_next = Mux(go & ul.last(), 0, ul.index + go)
        m.d.sync += [ahead.eq(ul_next > Mux(loaded, 0, ld.index + take)), mid.eq(~loaded & (mid | take))]
        with m.If(take):
            ld.advance(m, busy.bit_select(ib, 1).eq(1), ib.eq(ib + 1 if self.B > 1 else 0))

    def delayed(self, x: Signal, name: str | None = None) -> Signal:
        """x one cycle later."""
        reg = Signal.like(x, name=name or f"{x.name}_d")
        self.m.d.sync += reg.eq(x)
        return reg

    def registered(self, x: Value, like: Value, name: str) -> Signal:
        """x one cycle later, in a register shaped like `like` (a read port's address)."""
        reg = Signal.like(like, name=name)
        self.m.d.sync += reg.eq(x)
        return reg

    # --- the pass counters, one cycle ahead -------------------------------------------------
    def controller(self, table: tuple[Pass, ...]) -> None:
        """Pass p (of table), cycle c and the residue: registers; `stepped`, registers holding
        where one more running cycle takes them (step: a pass's end, the next residue), so
        that their next values come from registers through a multiplexer: `runs` (they hold,
        or while running take stepped) or a command's start (`nexts`, the values they take).
        `next_op`: the fields of the operation issued next cycle (issue_ahead), which op takes
        registered: the pass addressing (plan.issue) runs a cycle early and the RAMs' read
        addresses come from registers (the counters and issue's logic before the RAMs were
        the cores' critical path, issue 38)."""
        m, plan = self.m, self.plan
        self.p = Signal(range(max(2, len(table))), name="p")
        self.c = Signal(range(max(ps.issues for ps in table) + self.D), name="c")
        state = (self.p, self.c, self.res)
        self.stepped = tuple(Signal.like(x, name=f"{x.name}_step") for x in state)
        self.runs = tuple(Signal.like(x, name=f"{x.name}_run") for x in state)
        self.p_next, self.c_next, self.res_next = nexts = tuple(Signal.like(x, name=f"{x.name}_next") for x in state)
        m.d.comb += [run.eq(x) for run, x in zip(self.runs, state, strict=True)]
        with m.If(self.running):
            m.d.comb += [run.eq(st) for run, st in zip(self.runs, self.stepped, strict=True)]
        m.d.comb += [nx.eq(run) for nx, run in zip(nexts, self.runs, strict=True)]
        m.d.sync += [x.eq(nx) for nx, x in zip(nexts, state, strict=True)]
        self.next_op = DelayLine(m, {name: sig.shape() for name, sig in self.op.now.items()
                                     if name not in ("res", "buf")}, "next")
        self.tw_shared_addr = Signal(range(max(2, plan.k * plan.shared_len)), name="tw_shared_addr")
        self.tw_lane_addr = Signal(range(max(2, plan.k * plan.lane_len)), name="tw_lane_addr")
        self.next_fields = {**self.next_op.now, "tw_shared": self.tw_shared_addr, "tw_lane": self.tw_lane_addr}

    def step(self, table: tuple[Pass, ...], transition: Callable[[int, Value, Value], None],
             p: Value, c: Value, res: Value) -> None:
        """stepped <= one running cycle after state (p, c, res): c + 1, or pass j's end as
        transition(j, c, res) says (it assigns stepped)."""
        m = self.m
        m.d.sync += [st.eq(x) for st, x in zip(self.stepped, (p, c + 1, res), strict=True)]
        with m.Switch(p):
            for j in range(len(table)):
                with m.Case(j):
                    transition(j, c, res)

    def issue_ahead(self, table: tuple[Pass, ...], op_of: Callable[[Pass, dict[str, Signal], Value], None],
                    out: dict[str, Signal], p: Value, c: Value) -> None:
        """The fields of the operation of pass p, cycle c into out (op_of(ps, out, c): the fields
        of pass ps's operation in cycle c)."""
        with self.m.Switch(p):
            for j, ps in enumerate(table):
                with self.m.Case(j):
                    op_of(ps, out, c)

    def issue_next(self) -> None:
        """While running, op is next_op of the cycle before, registered."""
        issued = {name: self.next_op.at(name, 1) for name in self.next_op.now}   # outside the If: no enable
        with self.m.If(self.running):
            self.m.d.comb += [self.op[name].eq(reg) for name, reg in issued.items()]

    def rom_addresses(self) -> None:
        """The twiddle ROMs' addresses, registered from the next operation's: residue j's
        words at j len."""
        m, res = self.m, self.res_next
        if self.shared is not None:
            addr = self.tw_shared_addr + res * self.plan.shared_len
            m.d.comb += self.shared.addr.eq(self.registered(addr, self.shared.addr, "tw_shared_raddr"))
        if self.lanes is not None:
            addr = self.registered(self.tw_lane_addr + res * self.plan.lane_len, self.lanes[0].addr,
                                   "tw_lane_raddr")
            m.d.comb += [port.addr.eq(addr) for port in self.lanes]

    # --- COMPUTE: the pass controller -----------------------------------------------------
    def passes(self) -> None:
        """Pass p, cycle c: issue while c < issues, then wait as scheduled (the last pass of
        the last residue: drain D cycles; of another residue: none)."""
        m, elapsed, last = self.m, self.elapsed, len(self.plan.passes) - 1
        C = self.plan.cycles
        self.finish = Signal(name="finish")               # the transform's last cycle
        with m.If(self.running):
            m.d.sync += [elapsed.eq(elapsed + 1), self.late.eq(elapsed >= C - self.K * self.R - 1)]
            with m.If(self.p == last):
                m.d.comb += self.finish.eq((self.res == self.K - 1) & self.after(self.D, last, self.c))
            with m.If(self.finish):                      # the counters: step's
                m.d.sync += [self.running.eq(0), self.busy.bit_select(self.cb, 1).eq(0),
                             self.full.bit_select(self.cb, 1).eq(1)]
        self.step(self.plan.passes, self.next_pass, *self.runs)
        self.issue_ahead(self.plan.passes, self.pass_op, self.next_fields, self.p_next, self.c_next)
        self.issue_next()

    def after(self, last: int, j: int, c: Value) -> Value:
        """Cycle c of pass j once it has issued and waited `last` cycles: go on."""
        return c == self.plan.passes[j].issues + last - 1

    def pass_op(self, ps: Pass, op: dict[str, Signal], c: Value) -> None:
        """The operation cycle c of pass ps issues, into op (next_fields'): the rows it reads
        (and writes), their route to the units and the twiddle source."""
        m = self.m
        it = issue(ps, c, self.R, self.P)
        valid = c < ps.issues
        m.d.comb += [op["valid"].eq(valid), op["lo_bank"].eq(it.lo_bank), op["hi_bank"].eq(it.hi_bank),
                     op["lo_addr"].eq(it.lo_addr), op["hi_addr"].eq(it.hi_addr)]
        if ps.kind == "pointwise":
            m.d.comb += [op["lo_src"].eq(SRC_A), op["hi_src"].eq(SRC_B), op["wset"].eq(0),
                         op["route"].eq(MUL), op["s_src"].eq(S_HI)]
        elif ps.kind in ("products", "basecase"):
            lo_set, hi_set, w_set = operand_sets(ps, c, self.P)
            m.d.comb += [op["lo_src"].eq(lo_set), op["hi_src"].eq(hi_set), op["wset"].eq(w_set)]
            self.base_case_op(ps, op, c, Mux(valid, it.tw_addr, 0))
        elif ps.kind == "scale":
            m.d.comb += [op["lo_src"].eq(SRC_B), op["wset"].eq(1), op["route"].eq(MUL), op["s_src"].eq(S_CONST)]
        else:
            m.d.comb += [op["lo_src"].eq(ps.bank_set), op["hi_src"].eq(ps.bank_set),
                         op["wset"].eq(ps.bank_set), op["two"].eq(1), op["gs"].eq(ps.inverse)]
            if ps.kind == "pair":
                m.d.comb += [op["route"].eq(PAIR), op["s_src"].eq(S_SHARED),
                             op["tw_shared"].eq(Mux(valid, it.tw_addr, 0))]
            else:
                m.d.comb += [op["route"].eq(ROW0 + log2(ps.t)), op["s_src"].eq(S_LANE),
                             op["tw_lane"].eq(Mux(valid, it.tw_addr, 0))]

    def base_case_op(self, ps: Pass, op: dict[str, Signal], c: Value, tw_addr: Value) -> None:
        """The products or basecase pass's route and factor. products: even c a_l b_l (MUL),
        odd c a_(l^1) b_l (MULX); P = 1 a product a cycle (MUL). basecase: BASE, P = 1 one
        CT butterfly on the two words read (PAIR, only lo written); s from the lane ROMs."""
        m = self.m
        if ps.kind == "products":
            m.d.comb += [op["route"].eq(MUL if self.P == 1 else Mux(c[0], self.MULX, MUL)), op["s_src"].eq(S_HI)]
            return
        m.d.comb += [op["route"].eq(PAIR if self.P == 1 else self.BASE), op["s_src"].eq(S_LANE),
                     op["tw_lane"].eq(tw_addr)]

    def next_pass(self, j: int, c_now: Value, res_now: Value) -> None:
        """At pass j's end (cycle c_now of residue res_now; into stepped): the next pass, the
        next residue, or after the frame's last drain pass 0 of residue 0 (where a frame starts)."""
        m, (p, c, res), K = self.m, self.stepped, self.K
        if j < len(self.plan.passes) - 1:
            with m.If(self.after(self.plan.waits[j], j, c_now)):
                m.d.sync += [c.eq(0), p.eq(j + 1)]
            return
        with m.If((res_now == K - 1) & self.after(self.D, j, c_now)):
            m.d.sync += [c.eq(0), p.eq(0), res.eq(0)]
        with m.Elif((res_now != K - 1) & self.after(0, j, c_now)):
            m.d.sync += [c.eq(0), p.eq(0), res.eq(res_now + 1)]

    def start(self) -> None:
        """Start a transform on a loaded buffer: the one just loaded, or the one waiting."""
        m, ib, pending = self.m, self.ib, self.pending
        with m.If((self.loaded | pending) & (~self.running | self.finish)):
            m.d.sync += [self.running.eq(1), self.elapsed.eq(0), self.late.eq(0), pending.eq(0),
                         self.cb.eq(Mux(pending, ib + 1, ib) if self.B > 1 else 0)]
        with m.Elif(self.loaded):
            m.d.sync += pending.eq(1)

    # --- routes -----------------------------------------------------------------------------
    def read_addresses(self) -> None:
        """Cycle c: the banks read the operation's rows (their addresses registered from
        next_op's), set 0 the read-out's row while a result sits in the buffer; the ROMs."""
        m, nx, banks, ul = self.m, self.next_op, self.banks, self.ul
        for x, st, b, rd, _ in banks.ports():
            lo_here = (nx["lo_src"] == st) & (nx["lo_bank"] == b)
            addr = self.registered(banks.address(Mux(lo_here, nx["lo_addr"], nx["hi_addr"]), self.res_next),
                                   rd.addr, f"raddr{x}_{st}_{b}")
            if st == 0:                                    # the read-out
                here = (self.ub == x) & self.full[x]
                addr = Mux(here, banks.address(ul.k >> 1, ul.res), addr)
            m.d.comb += rd.addr.eq(addr)
        self.rom_addresses()

    def operands(self) -> None:
        """Cycle c+1: rows and twiddles to the units."""
        lo_row, hi_row = self.rows_read()
        RD = self.RD
        route1, s_src1, gs1 = self.op.at("route", RD), self.op.at("s_src", RD), self.op.at("gs", RD)
        self.res1 = self.op.at("res", RD)
        q1, rt1, b_scale1 = self.constants()
        staged = bool(self.plan.unit_stages)            # unit_register: the units' inputs registered
        to_unit = self.m.d.sync if staged else self.m.d.comb
        for u, bf in enumerate(self.units):
            if bf.gs is not None:
                to_unit += bf.gs.eq(gs1)
            if self.K > 1 or self.config:
                assert not isinstance(bf.q, int)           # q_input: a port, not the constant
                to_unit += [bf.q.eq(q1), bf.rt.eq(rt1)]
            ins = UnitInputs(self.w, u) if staged else bf
            self.unit_inputs(u, ins, route1, lo_row, hi_row)
            self.unit_factor(u, ins, s_src1, hi_row, b_scale1)
            if staged:
                to_unit += [bf.u.eq(ins.u), bf.v.eq(ins.v), bf.s.eq(ins.s)]

    def rows_read(self) -> tuple[Signal, Signal]:
        """The rows the operation issued the cycle before reads: lo (a bank set or the b beat
        being loaded) and hi."""
        m, op, banks = self.m, self.op, self.banks
        buf1 = op.at("buf", self.RD)
        lo_src, hi_src = op.at("lo_src", self.RD), op.at("hi_src", self.RD)
        lo_bank, hi_bank = op.at("lo_bank", self.RD), op.at("hi_bank", self.RD)
        lo_row, hi_row = Signal(self.LW, name="lo_row"), Signal(self.LW, name="hi_row")
        with m.Switch(lo_src):
            for st in range(banks.sets):
                with m.Case(st):
                    m.d.comb += lo_row.eq(banks.data(st, lo_bank, buf1))
            with m.Case(SRC_IN):
                m.d.comb += lo_row.eq(self.inb)
        m.d.comb += hi_row.eq(Mux(hi_src, banks.data(1, hi_bank, buf1), banks.data(0, hi_bank, buf1))
                              if self.two else banks.data(0, hi_bank, buf1))
        return lo_row, hi_row

    def per_residue(self, values: list[Any], width: int) -> Value:
        """values[res1] (one constant or register per prime)."""
        if self.K == 1:
            return values[0] if isinstance(values[0], Value) else Const(values[0], width)
        out = Signal(width)
        with self.m.Switch(self.res1):
            for j, v in enumerate(values):
                with self.m.Case(j):
                    self.m.d.comb += out.eq(v)
        return out

    def constants(self) -> tuple[Value, Value | None, Value]:
        """q, the reduction's run-time fields and b's scale of the residue computed (cycle
        c+1): constants, or (twiddles=load) the registers the cfg stream writes, reset to the
        generation moduli's values."""
        plan, core, w, m = self.plan, self.core, self.w, self.m
        rt_bits = self.units[0].rt.shape().width
        q_of = plan.moduli
        rt_of = [pack_fields(core.datapaths[0].runtime, fields) for fields in plan.runtime]
        b_scale_of = [b or 0 for b in plan.b_scales]
        if self.config:
            regs = [(f"{x}_{j}", width, init) for j, inits in enumerate(zip(q_of, rt_of, b_scale_of, strict=False))
                    for x, width, init in zip(("q", "rt", "b_scale"), (w, rt_bits, w), inits, strict=False)]
            loader = ConfigLoader(core.cfg.payload.shape(), regs, self.tw_writes)
            loader.build(m)
            wiring.connect(m, wiring.flipped(core.cfg), loader.cfg)
            # no frame in the core: none loading, computing or waiting to (one being read out is done)
            m.d.comb += loader.allow.eq(~self.running & ~self.pending & ~self.busy.any() &
                                        (self.ld.k == 0) & (self.ld.res == 0))
            q_of, rt_of, b_scale_of = (loader.registers[c::ConfigMap.CONSTANTS] for c in range(3))
        return (self.per_residue(q_of, w), self.per_residue(rt_of, rt_bits) if rt_of else None,
                self.per_residue(b_scale_of, w))

    def select(self, sel: Value, targets: list[Signal], choices: dict[int, list[Value]], used: list[int]) -> None:
        """targets = choices[sel] (comb), for the choices in `used` (routing's); the last taken
        for any other sel, which no pass issues."""
        cases = [(case, values) for case, values in sorted(choices.items()) if case in used]
        m = self.m
        with m.Switch(sel):
            for k, (case, values) in enumerate(cases):
                with m.Default() if k == len(cases) - 1 else m.Case(case):
                    m.d.comb += [t.eq(v) for t, v in zip(targets, values, strict=True)]

    def unit_inputs(self, u: int, bf: Butterfly | UnitInputs, route: Value, lo_row: Value, hi_row: Value) -> None:
        """Unit u's u and v by the route: lane u of both rows (pair), lane u of lo with u = 0
        (a product), or its two lanes in one row (row pass with distance t)."""
        half = self.P // 2
        choices = {PAIR: [self.lane(lo_row, u), self.lane(hi_row, u)],
                   MUL: [Const(0, self.w), self.lane(lo_row, u)]}
        if self.basecase:                                  # pair u % (P/2): a's (c0) or b's (c1) lanes
            row = lo_row if u < half else hi_row
            choices[self.MULX] = [Const(0, self.w), self.lane(lo_row, u ^ 1)]
            choices[self.BASE] = [self.lane(row, 2 * (u % half)), self.lane(row, 2 * (u % half) + 1)]
        for t in self.row_ts:
            which, lane, l2 = row_lanes(u, t, self.P)
            row = hi_row if which else lo_row
            choices[ROW0 + log2(t)] = [self.lane(row, lane), self.lane(row, l2)]
        self.select(route, [bf.u, bf.v], choices, self.routes)

    def unit_factor(self, u: int, bf: Butterfly | UnitInputs, s_src: Value, hi_row: Value, b_scale: Value) -> None:
        """Unit u's multiplier factor s: the shared or its lane's twiddle, lane u of the hi
        row (pointwise), or b's scale."""
        choices = {S_HI: [self.lane(hi_row, u)], S_CONST: [b_scale]}
        if self.shared is not None:
            choices[S_SHARED] = [self.shared_data]
        if self.lanes is not None:
            choices[S_LANE] = [self.lane_data[u]]
        self.select(s_src, [bf.s], choices, self.sources)

    def results(self) -> tuple[Signal, Signal]:
        """Cycle c+D: the units' results as rows (lo, hi), by the route they were read with."""
        units, P = self.units, self.P
        lo_w, hi_w = Signal(self.LW, name="lo_w"), Signal(self.LW, name="hi_w")
        pair_hi = Cat(*(bf.o1 for bf in units))            # also where hi is not written: no extra case
        products = [Cat(*(bf.o0 for bf in units)), pair_hi]
        choices = {PAIR: products, MUL: products}
        if self.basecase:                                  # pair j: c0 from unit j, c1 from unit P/2 + j
            half = P // 2
            choices[self.MULX] = products
            choices[self.BASE] = [Cat(*(o for j in range(half) for o in (units[j].o0, units[half + j].o0))), pair_hi]
        for t in self.row_ts:
            rows: list[list[Any]] = [[None] * P, [None] * P]
            for u, bf in enumerate(units):
                which, lane, l2 = row_lanes(u, t, P)
                rows[which][lane], rows[which][l2] = bf.o0, bf.o1
            choices[ROW0 + log2(t)] = [Cat(*rows[0]), Cat(*rows[1])]
        self.select(self.op.at("route", self.D), [lo_w, hi_w], choices, self.routes)
        return lo_w, hi_w

    def write_back(self) -> None:
        """Cycle c+D: the results written in place; IO's beat (row ld.k) straight into set 0
        (and set 1 unscaled) of buffer ib."""
        m, op, D, ld, banks = self.m, self.op, self.D, self.ld, self.banks
        lo_w, hi_w = self.results()
        valid_w, wset_w, two_w, res_w = op.at("valid", D), op.at("wset", D), op.at("two", D), op.at("res", D)
        buf_w = op.at("buf", D)
        lo_bank_w, hi_bank_w = op.at("lo_bank", D), op.at("hi_bank", D)
        lo_addr_w, hi_addr_w = op.at("lo_addr", D), op.at("hi_addr", D)
        for x, st, b, _, wr in banks.ports():
            direct = self.in_a if st == 0 else (None if self.plan.scale_at_load else self.in_b)
            hit = valid_w & (wset_w == st) & (buf_w == x)
            hit_lo, hit_hi = hit & (lo_bank_w == b), hit & two_w & (hi_bank_w == b)
            en = hit_lo | hit_hi
            addr = banks.address(Mux(hit_lo, lo_addr_w, hi_addr_w), res_w)
            data = Mux(hit_lo, lo_w, hi_w)
            if direct is not None:
                load = self.take & (self.ib == x) & (parity(ld.k) == b)
                en, addr, data = load | en, Mux(load, banks.address(ld.k >> 1, ld.res), addr), Mux(load, direct, data)
            m.d.comb += [wr.en.eq(en), wr.addr.eq(addr), wr.data.eq(data)]


class NttCommandCore(wiring.Component):
    """ntt-commands (commands.py): S polynomial slots and one command at a time from i (op,
    d, a, b, row and a row x); o carries the rows STORE reads. latency: a STORE's handshake
    to its first row on o; initiation_interval: 1 (a LOAD a cycle)."""

    def __init__(self, plan: CommandPlan, make_datapath: Callable[[], Any], layouts: dict[str, data.StructLayout]):
        self.commands, self.plan = plan, plan.ntt
        self.datapaths = [make_datapath() for _ in range(self.plan.P)]
        if self.datapaths[0].depth != self.plan.mul_depth:
            raise RuntimeError("the reduction's pipeline depth differs from the plan's")
        self.latency, self.initiation_interval = plan.latency, plan.initiation_interval
        super().__init__({"i": In(stream.Signature(layouts["i"])), "o": Out(stream.Signature(layouts["o"]))})

    def elaborate(self, platform: Any) -> Module:
        return _CommandBuild(self).m


class _CommandBuild(_Build):
    """The command core: the NTT core's banks (two sets, S/2 + 1 regions each), ROMs, units,
    routes and constants; its own command decoder, LOAD and STORE paths, and a sequencer
    that runs the passes of one command (commands.CommandPlan) on the slots it names."""

    def shape(self, core: Any) -> None:
        """The NTT core's figures (its plan: one prime, one buffer, no cfg, a and b), and every
        command's passes in one table."""
        super().shape(core)
        cp = self.cp = core.commands
        self.table = (*cp.forward, *cp.inverse, *cp.product)
        self.routes, self.sources = self.routing(self.table)
        self.first = {cmd_set.NTT: 0, cmd_set.INTT: len(cp.forward), cmd_set.MUL: len(cp.forward) + len(cp.inverse)}

    def build(self) -> None:
        self.memories()
        self.butterflies()
        self.state()
        self.store()
        self.sequencer()
        self.decode()                   # after both: a command taken as one ends wins
        self.read_addresses()
        self.operands()
        self.write_back()

    def memories(self) -> None:
        """Slot s: bank set s mod 2, region s div 2; region S/2 of each set its temporary."""
        self.res = Signal(range(1), name="residue")
        self.banks = Banks(self.LW, self.R // 2, sets=2, regions=self.cp.regions,
                           names=lambda x, st, b: f"bank_{'ab'[st]}{b}", registered=bool(self.plan.read_stages))
        self.banks.build(self.m)
        self.twiddle_memories()
        self.inb = Signal(self.LW, name="inb")        # rows_read's load source: unused here

    def state(self) -> None:
        abits, regions = self.banks.word_bits, range(self.cp.regions)
        self.op = DelayLine(self.m, {
            "res": range(1), "buf": range(1), "valid": 1, "gs": 1, "two": 1, "wset": 1, "lo_src": 2,
            "hi_src": 1, "lo_bank": 1, "hi_bank": 1, "lo_addr": abits, "hi_addr": abits, "lo_reg": regions,
            "hi_reg": regions, "w_reg": regions,
            "route": range(self.BASE + 1 if self.basecase else self.MULX), "s_src": 2})
        self.running, self.storing = Signal(name="running"), Signal(name="storing")
        self.finish, self.store_done = Signal(name="finish"), Signal(name="store_done")   # their last cycle
        self.controller(self.table)
        self.row = Signal(range(self.R), name="store_row")     # STORE's next row
        bits = self.cp.slot_bits
        self.cmd = {name: Signal(width, name=f"cmd_{name}") for name, width in
                    (("op", cmd_set.OP_BITS), ("d", bits), ("a", bits), ("b", bits))}
        self.starting = Signal(name="starting")                   # a command taken runs passes
        self.first_pass = Signal.like(self.p, name="first_pass")   # its first (what i's op would start)

    # --- commands in ------------------------------------------------------------------------
    def decode(self) -> None:
        """Take a command when idle, or in the cycle the one running ends (its last write or
        its last read); a LOAD's row is written the cycle after (that cycle's write port is
        the last operation's)."""
        m, core, cmd = self.m, self.core, self.cmd
        take = Signal(name="take")
        m.d.comb += [core.i.ready.eq(~(self.running | self.storing) | self.finish | self.store_done),
                     take.eq(core.i.valid & core.i.ready)]
        beat = core.i.payload
        ld = self.load_row = {"en": Signal(name="ld_en"), "row": Signal(self.cp.row_bits, name="ld_row"),
                              "d": Signal(self.cp.slot_bits, name="ld_d"), "x": Signal(self.LW, name="ld_x")}
        m.d.sync += [ld["en"].eq(take & (beat.op == cmd_set.LOAD)), ld["row"].eq(beat.row), ld["d"].eq(beat.d),
                     ld["x"].eq(beat.x)]
        starts = (((cmd_set.NTT,), self.first[cmd_set.NTT]), ((cmd_set.INTT,), self.first[cmd_set.INTT]),
                  ((cmd_set.MUL, cmd_set.MAC), self.first[cmd_set.MUL]))
        with m.Switch(beat.op):
            for ops, first in starts:
                with m.Case(*ops):
                    m.d.comb += [self.first_pass.eq(first), self.starting.eq(take)]
        with m.If(take):
            m.d.sync += [cmd[name].eq(beat[name]) for name in cmd]
            with m.If(beat.op == cmd_set.STORE):
                m.d.sync += [self.storing.eq(1), self.row.eq(0)]
        with m.If(self.starting):                          # pass first_pass, cycle 0 next
            m.d.sync += self.running.eq(1)
            m.d.comb += [self.p_next.eq(self.first_pass), self.c_next.eq(0)]

    def store(self) -> None:
        """STORE d: rows 0 .. R-1 of slot d into the output FIFO while it has room."""
        m, cmd = self.m, self.cmd
        ro = ReadOut(self.LW, FIFO_DEPTH + self.plan.read_stages, self.RD)
        ro.build(m)
        self.go = ro.go
        where = DelayLine(m, {"set": 1, "bank": 1}, "store")
        m.d.comb += [ro.avail.eq(self.storing), self.store_done.eq(ro.go & (self.row == self.R - 1)),
                     where["set"].eq(cmd["d"][0]), where["bank"].eq(parity(self.row))]
        st, bank = where.at("set", self.RD), where.at("bank", self.RD)
        m.d.comb += ro.data.eq(Mux(st, self.banks.data(1, bank), self.banks.data(0, bank)))
        with m.If(ro.go):
            m.d.sync += self.row.eq(self.row + 1)
            with m.If(self.store_done):
                m.d.sync += self.storing.eq(0)
        wiring.connect(m, ro.o, wiring.flipped(self.core.o))

    # --- the sequencer ------------------------------------------------------------------------
    def sequencer(self) -> None:
        """Pass p of the table, cycle c: issue, then wait as the command's schedule says; after
        its last pass's last write, the command is done (finish: a register, loaded from the
        next state like stepped, since i.ready and a command's start follow it)."""
        m, c = self.m, self.c
        groups = [self.cp.forward, self.cp.inverse, self.cp.product]
        waits = [w for passes in groups for w in self.cp.waits(passes)]
        lasts = {sum(len(g) for g in groups[:i + 1]) - 1 for i in range(3)}

        def ends(p_in: Value, c_in: Value) -> Value:
            """Pass p_in, cycle c_in is a command's last cycle."""
            last = Signal(name="ends")
            with m.Switch(p_in):
                for j in sorted(lasts):
                    with m.Case(j):
                        m.d.comb += last.eq(c_in == self.table[j].issues + waits[j] - 1)
            return last
        zero = Const(0, len(c))
        m.d.sync += self.finish.eq(Mux(self.starting, ends(self.first_pass, zero),
                                       self.running & ~self.finish & ends(*self.runs[:2])))
        with m.If(self.finish):
            m.d.sync += self.running.eq(0)

        def transition(j: int, c_now: Value, res_now: Value) -> None:
            """Pass j's end: the next pass of the command (after its last, c runs on)."""
            if j not in lasts:
                with m.If(c_now == self.table[j].issues + waits[j] - 1):
                    m.d.sync += [self.stepped[1].eq(0), self.stepped[0].eq(j + 1)]
        with m.If(self.starting):                          # a command's start: from its first pass's cycle 0
            self.step(self.table, transition, self.first_pass, zero, self.res)
        with m.Else():
            self.step(self.table, transition, *self.runs)
        self.issue_start()

    def issue_start(self) -> None:
        """next_op: the operation the command running issues next (runs), or the first of one
        starting, from the beat taken (a multiplexer at the end: starting comes late, through
        i.ready)."""
        m, beat = self.m, self.core.i.payload
        run, begin = ({name: Signal.like(sig, name=f"{x}_{name}") for name, sig in self.next_fields.items()}
                      for x in ("run", "start"))
        self.issue_ahead(self.table, lambda ps, op, c: self.command_op(ps, op, c, self.cmd), run, *self.runs[:2])
        with m.Switch(self.first_pass):
            for first in sorted(set(self.first.values())):
                with m.Case(first):
                    self.command_op(self.table[first], begin, Const(0, len(self.c)),
                                    {name: beat[name] for name in self.cmd})
        m.d.comb += [sig.eq(Mux(self.starting, begin[name], run[name])) for name, sig in self.next_fields.items()]
        self.issue_next()

    def command_op(self, ps: Pass, op: dict[str, Signal], c: Value, cmd: dict[str, Value]) -> None:
        """The operation of pass ps in cycle c, into op, on the slots of command cmd: the NTT
        cores' fields (pass_op), with the bank sets and regions of d, a, b and the temporaries."""
        m = self.m
        temp, set_d, reg_d = self.cp.regions - 1, cmd["d"][0], cmd["d"] >> 1
        fields: dict[str, Any]
        if ps.kind == "add":                            # d <- (d or 0) + mul(X, F^-2); X = t(1 - set(d))
            it = issue(ps, c, self.R, self.P)
            mac = cmd["op"] == cmd_set.MAC
            m.d.comb += [op["valid"].eq(c < ps.issues), op["lo_bank"].eq(it.lo_bank),
                         op["hi_bank"].eq(it.hi_bank), op["lo_addr"].eq(it.lo_addr), op["hi_addr"].eq(it.hi_addr),
                         op["s_src"].eq(S_CONST), op["route"].eq(Mux(mac, PAIR, MUL))]
            fields = {"lo_src": Mux(mac, set_d, ~set_d), "lo_reg": Mux(mac, reg_d, temp), "hi_src": ~set_d,
                      "hi_reg": temp, "wset": set_d, "w_reg": reg_d}
        else:
            self.pass_op(ps, op, c)
            set_a, set_b = cmd["a"][0], cmd["b"][0]
            fields = {
                "pair": {"lo_src": set_d, "hi_src": set_d, "wset": set_d, "lo_reg": reg_d, "hi_reg": reg_d,
                         "w_reg": reg_d},
                "pointwise": {"lo_src": set_a, "hi_src": set_b, "wset": ~set_d, "lo_reg": cmd["a"] >> 1,
                              "hi_reg": cmd["b"] >> 1, "w_reg": temp},
                "basecase": {"lo_src": ~set_d, "hi_src": set_d, "wset": ~set_d, "lo_reg": temp, "hi_reg": temp,
                             "w_reg": temp},
            }[{"row": "pair", "products": "pointwise"}.get(ps.kind, ps.kind)]
            if ps.kind in ("products", "basecase"):     # the plan's set 0: X = t(1 - set(d)); 1: Y = t(set(d))
                lo_set, hi_set, w_set = operand_sets(ps, c, self.P)

                def temp_set(x: Any) -> Value:
                    return Mux(x, set_d, ~set_d) if isinstance(x, Value) else set_d if x else ~set_d
                fields |= {"wset": temp_set(w_set)}
                if ps.kind == "basecase":
                    fields |= {"lo_src": temp_set(lo_set), "hi_src": temp_set(hi_set)}
        m.d.comb += [op[name].eq(value) for name, value in fields.items()]

    # --- routes ----------------------------------------------------------------------------
    def read_addresses(self) -> None:
        """The banks read the operation's rows (its sets and regions; registered from next_op's),
        or the store's row; the ROMs."""
        m, nx, cmd, banks = self.m, self.next_op, self.cmd, self.banks
        for _, st, b, rd, _ in banks.ports():
            lo_here = (nx["lo_src"] == st) & (nx["lo_bank"] == b)
            addr = banks.address(Mux(lo_here, nx["lo_addr"], nx["hi_addr"]), Mux(lo_here, nx["lo_reg"], nx["hi_reg"]))
            addr = self.registered(addr, rd.addr, f"raddr_{st}_{b}")
            here = self.storing & (cmd["d"][0] == st)
            m.d.comb += rd.addr.eq(Mux(here, banks.address(self.row >> 1, cmd["d"] >> 1), addr))
        self.rom_addresses()

    def write_back(self) -> None:
        """Cycle c+D: the results into the operation's write set and region; a LOAD's row the
        cycle after its handshake."""
        m, op, D, banks, ld = self.m, self.op, self.D, self.banks, self.load_row
        lo_w, hi_w = self.results()
        valid_w, wset_w, two_w, reg_w = op.at("valid", D), op.at("wset", D), op.at("two", D), op.at("w_reg", D)
        lo_bank_w, hi_bank_w = op.at("lo_bank", D), op.at("hi_bank", D)
        lo_addr_w, hi_addr_w = op.at("lo_addr", D), op.at("hi_addr", D)
        for _, st, b, _, wr in banks.ports():
            hit = valid_w & (wset_w == st)
            hit_lo, hit_hi = hit & (lo_bank_w == b), hit & two_w & (hi_bank_w == b)
            load = ld["en"] & (ld["d"][0] == st) & (parity(ld["row"]) == b)
            addr = Mux(load, banks.address(ld["row"] >> 1, ld["d"] >> 1),
                       banks.address(Mux(hit_lo, lo_addr_w, hi_addr_w), reg_w))
            m.d.comb += [wr.en.eq(load | hit_lo | hit_hi), wr.addr.eq(addr),
                         wr.data.eq(Mux(load, ld["x"], Mux(hit_lo, lo_w, hi_w)))]
