"""The NTT cores in Amaranth: coefficient banks, twiddle ROMs, P butterfly units around the
chosen modmul core's datapath, a pass controller and an output FIFO (architecture and
maths: model.py; the generation-time schedule and ROM contents come from its Plan).

Control: IO and COMPUTE run side by side. IO reads the results out row by row into the
output FIFO, in frame order, and loads the next frame's R = n/P beats into a buffer (a set
of banks) no transform uses; where that buffer still holds a result, beat k is taken once
its row k has been read. COMPUTE runs the passes (C cycles) on a loaded buffer. One buffer:
they take turns. Two (ping-pong): IO fills one while COMPUTE works on the other, and a
frame starts loading R cycles before the transform running ends, so the next starts right
after it (II = C) and every frame waits alike (constant latency). One operation issued in
cycle c flows:
  c        read addresses to the banks and ROMs (synchronous read)
  c+1      rows and twiddles routed to the units; butterfly input stage
  c+2 ..   the reduction's mul_depth stages, then the butterfly output stage
  c+D      the results are written back in place, D = mul_depth + 3
Its control fields ride along a delay line, so each operation writes where it read. A pass
starts when the plan's schedule says (model.Plan.schedule), while the one before drains.
RNS (k primes): the banks hold k residue polynomials (residue j at addresses j R/2 ..),
IO takes and gives k R beats, COMPUTE runs the passes k times; the residue index selects
the ROM words, the constants and the reduction's run-time modulus fields.
Run-time primes (twiddles=load): the twiddle ROMs are RAMs and the constants registers (one
set per residue slot), all holding the generation moduli's values after reset; the cfg
stream writes them (model.ConfigMap) while no frame is in the core (cfg.ready), and holds
i off while it writes.
Nothing in COMPUTE waits on the ports; in IO a beat waits on i.valid and on the read-out,
and a read is issued only when the FIFO has room for it and for the read in flight, so
input stalls and output back-pressure lose nothing, and latency never depends on data.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Elaboratable, Module, Mux, Signal, Value
from amaranth.lib import stream, wiring
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ...hw.pipeline import Stager
from .model import ConfigMap, RnsPlan, issue, log2, pack_fields, parity, row_lanes

FIFO_DEPTH = 4          # output FIFO: 2 cycles write -> read, plus one read in flight

# routes of the rows to the units (read side) and back (write side)
PAIR, MUL, ROW0 = 0, 1, 2   # ROW0 + log2(t): a row pass with distance t
# twiddle (multiplier's second operand) sources
S_SHARED, S_LANE, S_HI, S_CONST = 0, 1, 2, 3
# row sources
SRC_A, SRC_B, SRC_IN = 0, 1, 2


class Butterfly(Elaboratable):
    """One lane: o = CT (u + v s, u - v s) or GS (half(u + v), (u - v) s) mod q, s the
    multiplier's factor (the modmul core computes x*s*F; the ROMs hold s/F). Depth
    mul_depth + 2. A product v s alone: CT with u = 0, result o0. q: a constant, or an input
    that holds still during a transform ("static", twiddles=load) or may change with every
    operation ("per-op", RNS: it rides along the pipeline)."""

    def __init__(self, q: int, w: int, core, lane: int, q_input: str = ""):
        self.w, self.core = w, core
        self.u, self.v, self.s = (Signal(w, name=f"{x}{lane}") for x in ("u", "v", "s"))
        self.gs = Signal(name=f"gs{lane}")
        self.o0, self.o1 = Signal(w, name=f"o0_{lane}"), Signal(w, name=f"o1_{lane}")
        # RNS: this operation's modulus and the reduction's run-time fields for it
        self.q = Signal(w, name=f"q{lane}") if q_input else q
        self.q_rides = q_input == "per-op"
        self.rt = Signal(sum(core.runtime.values()), name=f"rt{lane}")

    def elaborate(self, platform):
        m = Module()
        q, w = self.q, self.w
        u, v = self.u, self.v
        # input stage: x = v (CT) or u - v mod q (GS); a = u (CT) or u + v < 2q (GS)
        x, s, a, gs, rt = Signal(w), Signal(w), Signal(w + 1), Signal(), Signal.like(self.rt)
        m.d.sync += [
            x.eq(Mux(self.gs, Mux(u >= v, u - v, u + q - v)[:w], v)),
            s.eq(self.s),
            a.eq(Mux(self.gs, u + v, u)),
            gs.eq(self.gs),
            rt.eq(self.rt),
        ]
        if self.q_rides:                                 # q rides along to the output stage
            q_reg = Signal(w, name="q_d0")
            m.d.sync += q_reg.eq(q)
            q = q_reg
        # the reduction's pipelined multiplier: p = x*s*F mod q, in [0, q)
        stager = Stager(m, Const(1), self.core.keep)
        p = self.core.datapath(m, stager, Cat(x, s, rt))
        assert stager.count == self.core.stages
        for k in range(self.core.depth):                 # a, gs (and q) ride along
            a2, gs2 = Signal(w + 1, name=f"a_d{k + 1}"), Signal(name=f"gs_d{k + 1}")
            m.d.sync += [a2.eq(a), gs2.eq(gs)]
            a, gs = a2, gs2
            if self.q_rides:
                q2 = Signal(w, name=f"q_d{k + 1}")
                m.d.sync += q2.eq(q)
                q = q2
        # output stage: CT sum and difference mod q, or GS half(a mod q) and p
        total = a + p
        ct0 = Mux(total >= q, total - q, total)[:w]
        ct1 = Mux(a >= p, a - p, a + q - p)[:w]
        red = Mux(a >= q, a - q, a)[:w]
        gs0 = Mux(red[0], (red + q) >> 1, red >> 1)[:w]
        m.d.sync += [self.o0.eq(Mux(gs, gs0, ct0)), self.o1.eq(Mux(gs, p, ct1))]
        return m


class NttCore(wiring.Component):
    """The whole core: i carries one beat (P coefficients, or P of a and P of b), o one beat
    of the result. latency and initiation_interval: model.Plan."""

    def __init__(self, plan: RnsPlan, w: int, n_operands: int, make_core, runtime=(),
                 config: ConfigMap | None = None):
        """runtime: RNS or twiddles=load, per prime the reduction's run-time modulus fields;
        config: twiddles=load, the cfg stream's layout."""
        self.plan, self.w, self.runtime, self.config = plan, w, list(runtime), config
        self.cores = [make_core() for _ in range(plan.P)]
        for core in self.cores:          # only their datapath is used, inside Butterfly
            core._MustUse__silence = True
        if self.cores[0].depth != plan.mul_depth:
            raise RuntimeError("the reduction's pipeline depth differs from the plan's")
        self.steps = plan.compute_cycles()
        self.latency = plan.latency()
        self.initiation_interval = plan.initiation_interval()
        super().__init__({
            "i": In(stream.Signature(n_operands * plan.P * w)),
            "o": Out(stream.Signature(plan.P * w)),
        } | ({"cfg": In(stream.Signature(config.width))} if config else {}))

    def elaborate(self, platform):
        m = Module()
        plan, w = self.plan, self.w
        P, R, D, K = plan.P, plan.rows, plan.drain, plan.k
        LW = P * w
        polymul = plan.transform == "polymul"
        sets = 2 if polymul else 1
        lane = lambda row, l: row[l * w:(l + 1) * w]            # lane l of a row

        # --- coefficient banks: row r of residue j in bank parity(r) at address (j, r >> 1), --
        # rd/wr[buffer][set][bank]
        B = plan.buffers
        abits = max(1, (R // 2 - 1).bit_length())
        res = Signal(range(K), name="residue")             # the residue computed
        at = lambda addr, j: addr if K == 1 else Cat(addr[:abits], j)
        rd = [[[None] * 2 for _ in range(sets)] for _ in range(B)]
        wr = [[[None] * 2 for _ in range(sets)] for _ in range(B)]
        for x in range(B):
            for st in range(sets):
                for b in range(2):
                    mem = Memory(shape=LW, depth=R // 2 if K == 1 else K << abits, init=[])
                    m.submodules[f"bank_{'ab'[st]}{b}" + (f"_buf{x}" if B > 1 else "")] = mem
                    rd[x][st][b], wr[x][st][b] = mem.read_port(), mem.write_port()
        # --- twiddle ROMs: one shared (pair passes), one per lane (row passes) --------------
        # (RAMs with a write port for the cfg stream, twiddles=load; tw_writes[sel])
        cm = self.config
        shared = lanes = None
        tw_writes = {}

        def twiddle_memory(name, words, sel):
            mem = Memory(shape=w, depth=len(words), init=words)
            m.submodules[name] = mem
            if cm:
                tw_writes[sel] = mem.write_port()
            return mem

        if plan.shared:
            shared = twiddle_memory("tw_shared", plan.shared, 1).read_port()
        if plan.lanes[0]:
            lanes = [twiddle_memory(f"tw_lane{u}", plan.lanes[u], 2 + u).read_port() for u in range(P)]
        # --- butterfly units and the output FIFO --------------------------------------------
        units = []
        for u in range(P):
            bf = Butterfly(plan.moduli[0], w, self.cores[u], u, "per-op" if K > 1 else "static" if cm else "")
            m.submodules[f"bf{u}"] = bf
            units.append(bf)
        fifo = SyncFIFOBuffered(width=LW, depth=FIFO_DEPTH)
        m.submodules.fifo = fifo

        # --- the operation issued this cycle (comb) and its delay line ----------------------
        shapes = {"res": range(K), "buf": range(B), "valid": 1, "gs": 1, "two": 1, "wset": 1, "lo_src": 2, "hi_src": 1, "lo_bank": 1,
                  "hi_bank": 1, "lo_addr": abits, "hi_addr": abits,
                  "route": range(ROW0 + max(1, log2(P))), "s_src": 2}
        op = {name: Signal(shape, name=f"op_{name}") for name, shape in shapes.items()}
        delays = {name: [sig] for name, sig in op.items()}

        def delayed(name, k):
            chain = delays[name]
            while len(chain) <= k:
                reg = Signal.like(chain[0], name=f"op_{name}_d{len(chain)}")
                m.d.sync += reg.eq(chain[-1])
                chain.append(reg)
            return chain[k]

        tw_shared_addr = Signal(range(max(2, len(plan.shared))))
        tw_lane_addr = Signal(range(max(2, len(plan.lanes[0]))))

        # --- control ------------------------------------------------------------------------
        # buffer x: busy[x] from its last beat in to the end of its transform, full[x] from
        # then until its result has been read out
        busy, full = Signal(B), Signal(B)
        ib, ub, cb = Signal(range(B)), Signal(range(B)), Signal(range(B))   # load, read-out, COMPUTE
        running = Signal()                                # COMPUTE
        pending = Signal()                                # a loaded frame waits for COMPUTE (B = 2)
        ld_k, ld_res = Signal(range(R)), Signal(range(K))  # the next beat in: row ld_k of ld_res
        ul_k, ul_res = Signal(range(R)), Signal(range(K))  # the next row out
        npass = len(plan.passes)
        p = Signal(range(max(2, npass)))
        c = Signal(range(max(ps.issues for ps in plan.passes) + D))
        C = plan.compute_cycles()
        elapsed = Signal(range(C))                        # cycles of the transform running

        def last(k, res):
            """Row k of residue res is the frame's last."""
            return (k == R - 1) & (res == K - 1)

        def advance(k, res, *at_end):
            """The next row of a frame (residue-major); at its end, also at_end."""
            m.d.sync += k.eq(k + 1)
            with m.If(k == R - 1):
                m.d.sync += k.eq(0)
                with m.If(res == K - 1):
                    m.d.sync += [res.eq(0), *at_end]
                with m.Else():
                    m.d.sync += res.eq(res + 1)

        # read-out: row ul_k of buffer ub's a banks when the FIFO has room (counting the read
        # in flight); the results in the order of the frames
        inflight, ubank, ubuf = Signal(), Signal(), Signal(range(B))
        go = Signal()
        m.d.comb += go.eq(full.bit_select(ub, 1) & (fifo.level + inflight < FIFO_DEPTH))
        m.d.sync += [inflight.eq(go), ubank.eq(parity(ul_k)), ubuf.eq(ub)]
        with m.If(go):
            advance(ul_k, ul_res, full.bit_select(ub, 1).eq(0), ub.eq(ub + 1 if B > 1 else 0))
        out_rows = [Mux(ubank, rd[x][0][1].data, rd[x][0][0].data) for x in range(B)]
        m.d.comb += [
            fifo.w_en.eq(inflight),
            fifo.w_data.eq(out_rows[0] if B == 1 else Mux(ubuf, out_rows[1], out_rows[0])),
            self.o.valid.eq(fifo.r_rdy),
            self.o.payload.eq(fifo.r_data),
            fifo.r_en.eq(self.o.ready),
        ]

        # load into buffer ib while no transform uses it: beat (ld_res, ld_k) = row ld_k of
        # residue ld_res (Cat(k, res) = res R + k); where a result still sits there, once its
        # row has been read out (this cycle at the latest: the RAMs read the old word). a (and
        # b unscaled) is written directly, b scaled through the units (one buffer). Two
        # buffers: a frame's first beat waits until the transform running has k R cycles left
        # at most. i.ready comes from flags registered the cycle before (ahead, late, mid) and
        # go, not from comparators: it selects the banks' write data (Yosys/ABC9 spent 5-20%
        # more LUTs on the core with an adder and a comparator there).
        ahead, late, mid = Signal(), Signal(), Signal()    # ul > ld; elapsed >= C - k R; ld != 0
        first_ok = 1 if B == 1 else (~running | late | mid)
        behind = (ub == ib) & (ahead | go)
        ready = ~busy.bit_select(ib, 1) & (~full.bit_select(ib, 1) | behind) & first_ok
        m.d.comb += [self.i.ready.eq(ready & ~self.cfg.valid if cm else ready),   # cfg goes first
                     op["res"].eq(Mux(running, res, ld_res)), op["buf"].eq(Mux(running, cb, ib))]
        take = Signal()
        m.d.comb += take.eq(self.i.valid & self.i.ready)
        in_a = self.i.payload[:LW]
        in_b = self.i.payload[LW:2 * LW] if polymul else None
        inb = Signal(LW)                                   # b beat, one cycle later (as a RAM read)
        if plan.scale_at_load:
            m.d.sync += inb.eq(in_b)
            with m.If(~running):
                m.d.comb += [op["valid"].eq(take), op["lo_src"].eq(SRC_IN), op["lo_bank"].eq(parity(ld_k)),
                             op["lo_addr"].eq(ld_k >> 1), op["wset"].eq(1), op["route"].eq(MUL),
                             op["s_src"].eq(S_CONST)]
        loaded = Signal()                                  # the frame's last beat, now
        m.d.comb += loaded.eq(take & last(ld_k, ld_res))
        ul_next = Mux(go & last(ul_k, ul_res), 0, Cat(ul_k, ul_res) + go)
        m.d.sync += [ahead.eq(ul_next > Mux(loaded, 0, Cat(ld_k, ld_res) + take)), mid.eq(~loaded & (mid | take))]
        with m.If(take):
            advance(ld_k, ld_res, busy.bit_select(ib, 1).eq(1), ib.eq(ib + 1 if B > 1 else 0))

        # COMPUTE: pass p, cycle c: issue while c < issues, then wait as scheduled (the last
        # pass of the last residue: drain D cycles; of another residue: none)
        def after(last, j):
            """Cycle c of pass j once it has issued and waited `last` cycles: go on."""
            return c == plan.passes[j].issues + last - 1

        finish = Signal()                                  # the transform's last cycle
        with m.If(running):
            m.d.sync += [c.eq(c + 1), elapsed.eq(elapsed + 1), late.eq(elapsed >= C - K * R - 1)]
            with m.Switch(p):
                for j, ps in enumerate(plan.passes):
                    with m.Case(j):
                        it = issue(ps, c, R, P)
                        valid = c < ps.issues
                        m.d.comb += [op["valid"].eq(valid), op["lo_bank"].eq(it.lo_bank),
                                     op["hi_bank"].eq(it.hi_bank), op["lo_addr"].eq(it.lo_addr),
                                     op["hi_addr"].eq(it.hi_addr)]
                        if ps.kind == "pointwise":
                            m.d.comb += [op["lo_src"].eq(SRC_A), op["hi_src"].eq(SRC_B), op["wset"].eq(0),
                                         op["route"].eq(MUL), op["s_src"].eq(S_HI)]
                        elif ps.kind == "scale":
                            m.d.comb += [op["lo_src"].eq(SRC_B), op["wset"].eq(1), op["route"].eq(MUL),
                                         op["s_src"].eq(S_CONST)]
                        else:
                            m.d.comb += [op["lo_src"].eq(ps.bank_set), op["hi_src"].eq(ps.bank_set),
                                         op["wset"].eq(ps.bank_set), op["two"].eq(1), op["gs"].eq(ps.inverse)]
                            if ps.kind == "pair":
                                m.d.comb += [op["route"].eq(PAIR), op["s_src"].eq(S_SHARED),
                                             tw_shared_addr.eq(Mux(valid, it.tw_addr, 0))]
                            else:
                                m.d.comb += [op["route"].eq(ROW0 + log2(ps.t)), op["s_src"].eq(S_LANE),
                                             tw_lane_addr.eq(Mux(valid, it.tw_addr, 0))]
                        if j < npass - 1:
                            with m.If(after(plan.waits[j], j)):
                                m.d.sync += [c.eq(0), p.eq(j + 1)]
                        else:
                            m.d.comb += finish.eq((res == K - 1) & after(D, j))
                            with m.If(finish):                          # the frame done: to be read out
                                m.d.sync += [c.eq(0), p.eq(0), res.eq(0), running.eq(0),
                                             busy.bit_select(cb, 1).eq(0), full.bit_select(cb, 1).eq(1)]
                            with m.Elif((res != K - 1) & after(0, j)):  # the next residue
                                m.d.sync += [c.eq(0), p.eq(0), res.eq(res + 1)]
        # start a transform on a loaded buffer: the one just loaded, or the one waiting
        with m.If((loaded | pending) & (~running | finish)):
            m.d.sync += [running.eq(1), elapsed.eq(0), late.eq(0), pending.eq(0), cb.eq(Mux(pending, ib + 1, ib) if B > 1 else 0)]
        with m.Elif(loaded):
            m.d.sync += pending.eq(1)

        # --- read ports ---------------------------------------------------------------------
        for x in range(B):
            for st in range(sets):
                for b in range(2):
                    lo_here = (op["lo_src"] == st) & (op["lo_bank"] == b)
                    addr, j = Mux(lo_here, op["lo_addr"], op["hi_addr"]), res
                    if st == 0:                            # the read-out
                        here = (ub == x) & full[x]
                        addr, j = Mux(here, ul_k >> 1, addr), Mux(here, ul_res, res)
                    m.d.comb += rd[x][st][b].addr.eq(at(addr, j))
        if shared is not None:                             # residue j's words at j len
            m.d.comb += shared.addr.eq(tw_shared_addr + res * plan.shared_len)
        for port in lanes or []:
            m.d.comb += port.addr.eq(tw_lane_addr + res * plan.lane_len)

        # --- cycle c+1: rows and twiddles to the units ---------------------------------------
        buf1 = delayed("buf", 1)

        def bank_row(st, bank):
            rows = [Mux(bank, rd[x][st][1].data, rd[x][st][0].data) for x in range(B)]
            return rows[0] if B == 1 else Mux(buf1, rows[1], rows[0])

        lo_src, hi_src = delayed("lo_src", 1), delayed("hi_src", 1)
        lo_bank, hi_bank = delayed("lo_bank", 1), delayed("hi_bank", 1)
        lo_row, hi_row = Signal(LW), Signal(LW)
        with m.Switch(lo_src):
            for st in range(sets):
                with m.Case(st):
                    m.d.comb += lo_row.eq(bank_row(st, lo_bank))
            with m.Case(SRC_IN):
                m.d.comb += lo_row.eq(inb)
        m.d.comb += hi_row.eq(Mux(hi_src, bank_row(1, hi_bank), bank_row(0, hi_bank)) if polymul
                              else bank_row(0, hi_bank))
        row_ts = sorted({ps.t for ps in plan.passes if ps.kind == "row"})
        route1, s_src1, gs1, res1 = delayed("route", 1), delayed("s_src", 1), delayed("gs", 1), delayed("res", 1)

        def per_residue(values, width):
            """values[res1] (one constant or register per prime)."""
            if K == 1:
                return values[0] if isinstance(values[0], Value) else Const(values[0], width)
            out = Signal(width)
            with m.Switch(res1):
                for j, v in enumerate(values):
                    with m.Case(j):
                        m.d.comb += out.eq(v)
            return out

        rt_bits = units[0].rt.shape().width
        rt_words = [pack_fields(self.cores[0].runtime, fields) for fields in self.runtime]
        q_of, rt_of, b_scale_of = plan.moduli, rt_words, [b or 0 for b in plan.b_scales]
        if cm:                   # registers the cfg stream writes, reset to the generation moduli's
            slots = [(Signal(w, init=q, name=f"q_{j}"), Signal(rt_bits, init=rt, name=f"rt_{j}"),
                      Signal(w, init=b, name=f"b_scale_{j}")) for j, (q, rt, b) in enumerate(zip(q_of, rt_of, b_scale_of))]
            self.elaborate_config(m, [reg for slot in slots for reg in slot], tw_writes, busy, running, pending,
                                  ld_k, ld_res)
            q_of, rt_of, b_scale_of = zip(*slots)
        q1, rt1 = per_residue(q_of, w), per_residue(rt_of, rt_bits) if rt_of else None
        b_scale1 = per_residue(b_scale_of, w)
        for u, bf in enumerate(units):
            m.d.comb += bf.gs.eq(gs1)
            if K > 1 or cm:
                m.d.comb += [bf.q.eq(q1), bf.rt.eq(rt1)]
            with m.Switch(route1):
                with m.Case(PAIR):
                    m.d.comb += [bf.u.eq(lane(lo_row, u)), bf.v.eq(lane(hi_row, u))]
                with m.Case(MUL):
                    m.d.comb += [bf.u.eq(0), bf.v.eq(lane(lo_row, u))]
                for t in row_ts:
                    with m.Case(ROW0 + log2(t)):
                        which, l, l2 = row_lanes(u, t, P)
                        row = hi_row if which else lo_row
                        m.d.comb += [bf.u.eq(lane(row, l)), bf.v.eq(lane(row, l2))]
            with m.Switch(s_src1):
                if shared is not None:
                    with m.Case(S_SHARED):
                        m.d.comb += bf.s.eq(shared.data)
                if lanes is not None:
                    with m.Case(S_LANE):
                        m.d.comb += bf.s.eq(lanes[u].data)
                with m.Case(S_HI):
                    m.d.comb += bf.s.eq(lane(hi_row, u))
                with m.Case(S_CONST):
                    m.d.comb += bf.s.eq(b_scale1)

        # --- cycle c+D: results back to rows, written in place -------------------------------
        route_w = delayed("route", D)
        lo_w, hi_w = Signal(LW), Signal(LW)
        with m.Switch(route_w):
            with m.Case(PAIR):
                m.d.comb += [lo_w.eq(Cat(*(bf.o0 for bf in units))), hi_w.eq(Cat(*(bf.o1 for bf in units)))]
            with m.Case(MUL):
                m.d.comb += lo_w.eq(Cat(*(bf.o0 for bf in units)))
            for t in row_ts:
                with m.Case(ROW0 + log2(t)):
                    rows = [[None] * P, [None] * P]
                    for u, bf in enumerate(units):
                        which, l, l2 = row_lanes(u, t, P)
                        rows[which][l], rows[which][l2] = bf.o0, bf.o1
                    m.d.comb += [lo_w.eq(Cat(*rows[0])), hi_w.eq(Cat(*rows[1]))]
        valid_w, wset_w, two_w, res_w = delayed("valid", D), delayed("wset", D), delayed("two", D), delayed("res", D)
        buf_w = delayed("buf", D)
        lo_bank_w, hi_bank_w = delayed("lo_bank", D), delayed("hi_bank", D)
        lo_addr_w, hi_addr_w = delayed("lo_addr", D), delayed("hi_addr", D)
        for x in range(B):
            for st in range(sets):
                direct = in_a if st == 0 else (None if plan.scale_at_load else in_b)
                for b in range(2):
                    hit = valid_w & (wset_w == st) & (buf_w == x)
                    hit_lo, hit_hi = hit & (lo_bank_w == b), hit & two_w & (hi_bank_w == b)
                    en = hit_lo | hit_hi
                    addr = at(Mux(hit_lo, lo_addr_w, hi_addr_w), res_w)
                    data = Mux(hit_lo, lo_w, hi_w)
                    if direct is not None:                 # IO: row ld_k straight from the beat
                        load = take & (ib == x) & (parity(ld_k) == b)
                        en, addr, data = load | en, Mux(load, at(ld_k >> 1, ld_res), addr), Mux(load, direct, data)
                    m.d.comb += [wr[x][st][b].en.eq(en), wr[x][st][b].addr.eq(addr), wr[x][st][b].data.eq(data)]
        return m

    def elaborate_config(self, m, constants, tw_writes, busy, running, pending, ld_k, ld_res):
        """The cfg stream (twiddles=load): a word is taken while no frame is in the core (none
        loading, computing or waiting to; a result still being read out is done) and written
        to the constant (sel 0: slot j's q, run-time fields, b's scale at 3j ..) or twiddle RAM
        it names."""
        cm, cfg = self.config, self.cfg
        data = cfg.payload[:cm.data_bits]
        word = cfg.payload[cm.data_bits:cm.data_bits + cm.word_bits]
        sel = cfg.payload[cm.data_bits + cm.word_bits:]
        m.d.comb += cfg.ready.eq(~running & ~pending & ~busy.any() & (ld_k == 0) & (ld_res == 0))
        take = cfg.valid & cfg.ready
        with m.If(take & (sel == 0)):
            with m.Switch(word):
                for k, reg in enumerate(constants):
                    with m.Case(k):
                        m.d.sync += reg.eq(data[:len(reg)])
        for s, port in tw_writes.items():
            m.d.comb += [port.en.eq(take & (sel == s)), port.addr.eq(word), port.data.eq(data[:self.w])]
