"""rsa-fmlm3 in Amaranth: the controller that runs plan.MultiplierPlan's program (program.py) around
one fmlm3-transform unit (hw.TransformCore, kind = any), L MulAdds (hw.fermat), the
Accumulators, Restrict and the time-domain pass units (units.py, hw.digits), and the stores
(amaranth.lib.memory, one word a beat; the spectral ones as regions of shared block RAMs,
one read and one write port each, `_store_group`).

One step at a time (`step`). A transform step streams H beats into the unit (from the input
frame, or a store read the cycle before), then takes its H result beats (o.ready is always
high, so they come on consecutive cycles) through its sink into a store; the step ends with
the last write. A pass step reads a store H cycles in a row through its units into stores.
The output step reads the selected result through a held hw.stream.ReadOut (back-pressure holds
the stores' read ports; the step ends when its last word is taken). No step waits on data
values, so the latency is plan.MultiplierPlan.latency. cfg (N's spectra and digits) is taken
only between multiplications. Data (the stores' write data, the transform's input, the units'
operands) goes through `_data`: outside its steps a data input keeps one of its steps' values
instead of 0, since it matters only with its enable; no AND gate a bit.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from types import SimpleNamespace
from typing import Any

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value, signed
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ...hw.config import ConfigLoader
from ...hw.delay import DelayLine
from ...hw.digits import Accumulator, Halver, SegmentAddSub, select_split
from ...hw.dsp import DSP_PROFILES
from ...hw.fermat import MulAdd
from ...hw.layout import lanes
from ...hw.pipeline import delay
from ...hw.select import pick as pick_lane
from ...hw.stream import ReadOut
from . import hw, model
from .plan import CFG_SELECT, KIND_CODES, MultiplierPlan
from .program import DIGIT_STORES, HALVER_DELAY, LUT_RAM_STORES, Step, accesses
from .units import ModRPass, Restrict

BLOCK_RAM_BITS = 4096     # a store group of at least this many bits is marked ram_style = block


class MultiplierCore(wiring.Component):
    """i: beat k = Cat(x digits Lk..Lk+L-1, y digits Lk..Lk+L-1), u bits each; o: beat k of
    t, the same layout as x (domain = spectral: x, y and t as model.spectral_frame beats);
    cfg: model.cfg_words."""

    def __init__(self, plan: MultiplierPlan, N: int, layouts: dict[str, data.StructLayout],
                 unit: tuple[data.StructLayout, data.StructLayout]):
        """layouts: the streams' payloads (the plan's i: x, y; o: t; cfg); unit: the transform
        unit's input and output beats (algorithms.unit_layouts)."""
        self.plan, self.N, self.unit_layouts = plan, N, unit
        self.latency = plan.latency
        self.initiation_interval = plan.initiation_interval
        assert layouts["i"].size == 2 * plan.beat_width and layouts["o"].size == plan.beat_width
        super().__init__({"i": In(stream.Signature(layouts["i"])), "o": Out(stream.Signature(layouts["o"])),
                          "cfg": In(stream.Signature(layouts["cfg"]))})

    def elaborate(self, platform: Any) -> Module:
        return _Build(self).m


class _Build:
    """One elaboration of a MultiplierCore: the stores, the cfg loader, the transform unit,
    the counters and delay lines, the units, the read-out, then the steps of the program (each
    a case of `step`), and last each data input's selection among its steps' values (`data`).
    Statement order matters where two of them write one signal: the later wins."""

    def __init__(self, core: MultiplierCore):
        plan = self.plan = core.plan
        self.core, self.m = core, Module()
        self.L, self.H, self.K, self.u = plan.lanes, plan.H, plan.K, plan.params.u
        self.w, self.du = self.K + 1, self.L * self.u     # a coefficient's bits, a digit beat's bits
        self.program, self.depths = plan.program, plan.depths
        self.R = plan.read_latency          # a store's read address to its data (the steps' reads)
        self.sq = Signal(range(len(self.program)), name="step")
        self.stores()
        # the steps' data (`data`): the step being generated (None: the loader's), each input's
        # cases, the values built once
        self.index: int | None = None
        self.datas: dict[int, tuple[Value, list[tuple[int | None, Value, Value | None]]]] = {}
        self.built: dict[Hashable, Any] = {}
        self.config()
        self.transform_unit()
        self.counters()
        self.units()
        self.read_out()
        self.shared_product()
        self.steps()
        self.select_data()

    def lanes(self, value: Value, bits: int) -> list[Value]:
        return [value[k * bits:(k + 1) * bits] for k in range(self.L)]

    # --- stores: one word a beat; N's spectra and digits start as the build's N ---------------
    def stores(self) -> None:
        m, plan, w, H = self.m, self.plan, self.w, self.H
        init = model.load_cfg(plan, model.cfg_words(plan, self.core.N))
        self.inits = {"TNp": model.beats(plan, init.T_N_prime, w), "TnN": model.beats(plan, init.Tn_N, w),
                      "ND": model.frame(plan, self.core.N)}
        self.rd: dict[str, Any] = {}        # a store's read port (or a stand-in: `store_group`)
        self.wr: dict[str, Any] = {}
        # the output's stores keep their read data while the output is held (a held ReadOut)
        self.out_stores, self.hold = set(self.program[-1].src.split(",")), Signal(name="out_hold")
        for name in DIGIT_STORES:
            if name in ("X", "Y") and plan.domain == "spectral":
                continue
            mem = Memory(shape=self.du, depth=H, init=self.inits.get(name, []))
            m.submodules[f"{name.lower()}_ram"] = mem
            self.rd[name], self.wr[name] = mem.read_port(), mem.write_port()
            if name in self.out_stores:
                m.d.comb += self.rd[name].en.eq(~self.hold)
        for names in plan.store_groups:
            self.store_group(names)
        # the read-out takes the output's stores straight (a held ReadOut); deep: the steps read
        # through a register after each read port (program.read_latency)
        self.out_data = {name: self.rd[name].data for name in self.out_stores}
        if self.R > 1:
            regs: dict[int, Value] = {}
            for name, port in self.rd.items():
                if id(port.data) not in regs:
                    regs[id(port.data)] = delay(self.m, port.data, self.R - 1, f"{name.lower()}_rdata")
                self.rd[name] = SimpleNamespace(addr=port.addr, data=regs[id(port.data)])

    def store_group(self, names: tuple[str, ...]) -> None:
        """One block RAM for the stores `names` (region r: store r's H words): rd[name] and
        wr[name] are stand-ins the steps drive like ports. The read address is the one of the
        store the current step reads (at most one a group, program.store_groups), the
        write the one whose en is high (at most one a cycle)."""
        m, plan, rd, wr = self.m, self.plan, self.rd, self.wr
        H, width = plan.H, plan.lanes * (plan.K + 1)
        bits = plan.index_bits
        init = [word for name in names for word in self.inits.get(name, [0] * H)]
        depth = len(names) << bits
        # block RAM from a quarter of a RAMB18 on; smaller ones are left to Yosys (LUT RAM,
        # which the netlist simulation's cell models can also run: their RAMB36E1 has no behaviour)
        attrs = ({"ram_style": "distributed"} if set(names) <= set(LUT_RAM_STORES) else
                 {"ram_style": "block"} if width * depth >= BLOCK_RAM_BITS else {})
        mem = Memory(shape=width, depth=depth, init=init, attrs=attrs)
        m.submodules[f"{names[0].lower()}_ram"] = mem
        rport, wport = mem.read_port(), mem.write_port()
        if self.out_stores & set(names):
            m.d.comb += rport.en.eq(~self.hold)
        wdata = Signal(width, name=f"{names[0]}_wdata")   # a step writes one store of a group: shared
        for name in names:
            rd[name] = SimpleNamespace(addr=Signal(bits, name=f"{name}_raddr"), data=rport.data)
            wr[name] = SimpleNamespace(addr=Signal(bits, name=f"{name}_waddr"), data=wdata,
                                       en=Signal(name=f"{name}_wen"))
        m.d.comb += wport.data.eq(wdata)
        if len(names) == 1:
            m.d.comb += [rport.addr.eq(rd[names[0]].addr), wport.addr.eq(wr[names[0]].addr),
                         wport.en.eq(wr[names[0]].en)]
            return
        raddr = Cat(rd[names[0]].addr, Const(0, len(rport.addr) - bits))
        for index, step in enumerate(self.program):
            for region, name in enumerate(names):
                if name in accesses(step)[0]:
                    raddr = Mux(self.sq == index, Cat(rd[name].addr, Const(region, len(rport.addr) - bits)), raddr)
        m.d.comb += rport.addr.eq(raddr)
        def place(region: int, name: str) -> Value:
            return Cat(wr[name].addr, Const(region, len(wport.addr) - bits))
        waddr = place(len(names) - 1, names[-1])          # the enabled store's (one a cycle)
        for region, name in enumerate(names[:-1]):
            waddr = Mux(wr[name].en, place(region, name), waddr)
        m.d.comb += [wport.addr.eq(waddr), wport.en.eq(Cat(*(wr[n].en for n in names)).any())]

    def config(self) -> None:
        """The loader's writes: its own data for stores sharing a group's write data (before the
        steps')."""
        m, wr = self.m, self.wr
        cfg_data = Signal(self.L * self.w, name="cfg_data")
        ports = {CFG_SELECT["N"]: wr["ND"]}
        for select, name in ((CFG_SELECT["T(N')"], "TNp"), (CFG_SELECT["T'(N)"], "TnN")):
            ports[select] = SimpleNamespace(addr=wr[name].addr, en=wr[name].en, data=cfg_data)
            self.data(wr[name].data, cfg_data, en=wr[name].en)
        # deep: the writes from registers (the handshake's control to the stores' write data
        # was an l = 2048 core's critical path); a config store's first read comes many cycles
        # after a product starts
        self.loader = ConfigLoader(self.core.cfg.payload.shape(), [], ports, registered=self.plan.deep)
        self.loader.build(m)
        wiring.connect(m, wiring.flipped(self.core.cfg), self.loader.cfg)

    def transform_unit(self) -> None:
        """A forward transform loads digits (u bits, u + 1 with eq. 17's carries), an inverse
        spectra from the {Z0, Z4} memory: a lane's bits above the digits' come from that
        memory in every step, and the unit ignores them in forward frames (no AND gate a bit)."""
        m, L = self.m, self.L
        self.db = self.u + 1
        tu = self.tu = hw.TransformCore(self.plan.transform, self.core.unit_layouts, forward_bits=self.db)
        m.submodules.transform = tu
        m.d.comb += tu.o.ready.eq(1)
        # the input beat's digits-wide lanes and its kind code apart: steps that load the same
        # beat share its data path
        self.tu_low, self.tu_kind = Signal(L * self.db, name="tu_low"), Signal(2, name="tu_kind")
        self.spectral_loads: dict[int, Value] = {}    # the read data of the stores transforms load

    def counters(self) -> None:
        """The load (ld: issues or input beats), the sink or pass (sk), their delay lines, the
        side pass's and the one MulAdd's; the registers the steps share."""
        m, H, L, program = self.m, self.H, self.L, self.program
        self.ld = Signal(range(H + 1), name="ld")
        self.sk = Signal(range(H + 1), name="sk")
        # a store read issued last cycle (`issued`: its beat now, read_latency cycles on): 0
        # outside the steps that issue them (`steps`), so it is the transform's input valid as
        # it is in those steps
        self.issuing = Signal(name="issued")
        self.issued = delay(self.m, self.issuing, self.R - 1, "issued_late")
        self.word0 = delay(self.m, self.ld == 1, self.R - 1, "ld_word0")    # with issued: beat 0 (ld stops at H)
        op = self.op = DelayLine(m, {"valid": range(len(program) + 1), "k": range(H), "last": 1, "first": 1},
                                 prefix="op")
        for name in ("valid", "k", "last", "first"):      # the registers, made outside the steps' conditions
            op.at(name, max(self.depths.values()))
        side = self.side = DelayLine(m, {"valid": 1, "k": range(H)}, prefix="side")   # a side pass's issues
        side.at("valid", self.depths["pass_mul"])
        side.at("k", self.depths["pass_mul"])
        self.side_k = Signal(range(H + 1), name="side_k")
        # plan.shared: the one MulAdd's issues, lane sm_l of word sm_k (`shared_multiply`)
        sm = self.sm = DelayLine(m, {"valid": 1, "k": range(H), "l": range(L)}, prefix="sm")
        self.sm_k, self.sm_l = Signal(range(H + 1), name="sm_k"), Signal(range(L), name="sm_l")
        self.sm_word = Signal((L - 1) * self.w, name="sm_word")       # the word's first L - 1 products
        for name in ("valid", "k", "l"):
            sm.at(name, self.depths["pass_mul1"])
        self.done = Signal(name="done")
        # one Accumulator behind Restrict for CT^-1's read-out (Restrict passing the digits in
        # [0, M) on as non-negative K+2-bit ones) and NCT^-1's (restricted, signed)
        self.acc = Accumulator(self.u, self.K + 2, L, signed_digits=True, deep=self.plan.deep)
        self.carry_bits = self.acc.carry_bits
        self.carry = Signal(signed(self.carry_bits + 1), name="carry")
        self.x0y0, self.parity, self.t_lsb = Signal(name="x0y0"), Signal(name="parity"), Signal(name="t_lsb")
        self.pick = Signal(name="pick")               # pass_m: m is B; pass_t: the result is B
        self.j = Signal(signed(4), name="j")
        self.d_high = Signal(2, name="d_high")
        m.d.comb += self.loader.allow.eq((self.sq == 0) & (self.ld == 0))
        self.zero = Const(0, self.K + 1)

    def units(self) -> None:
        """MulAdds, the Accumulator behind Restrict, the passes' units."""
        m, L, K, du, acc = self.m, self.L, self.K, self.du, self.acc
        self.muls = []
        for k in range(1 if self.plan.shared else L):
            ma = MulAdd(K, DSP_PROFILES[self.plan.dsp], f"ma{k}", self.plan.deep)
            m.submodules[f"ma{k}"] = ma
            self.muls.append(ma)
        m.submodules.acc = acc
        restrict = self.restrict = Restrict(self.plan.params.P, self.u, K, L, self.plan.deep)
        m.submodules.restrict = restrict
        split = select_split(du, self.plan.deep)
        self.mod_r = ModRPass(du, self.carry_bits, split)
        m.submodules.mod_r = self.mod_r
        self.sub_d, self.add_t = SegmentAddSub(du, True, split), SegmentAddSub(du, split=split)
        self.sub_n = SegmentAddSub(du, True, split)
        m.submodules.sub_d, m.submodules.add_t, m.submodules.sub_n = self.sub_d, self.add_t, self.sub_n
        self.halver = Halver(du)
        m.submodules.halver = self.halver
        op = self.op
        m.d.comb += [restrict.valid.eq(op["valid"] != 0), restrict.last.eq(op["last"]),
                     acc.first.eq(op.at("first", restrict.depth))]
        m.d.comb += [d.eq(x) for d, x in zip(restrict.d, lanes(self.tu.o.payload.c, self.L), strict=True)]
        m.d.comb += [d.eq(x) for d, x in zip(acc.d, restrict.o, strict=True)]
        # the read-out beat, aligned with the stores' words read at its index
        self.beat = delay(self.m, Value.cast(self.tu.o.payload)[:L * self.w], self.R, "beat1")
        # segments of a number streamed over the pass (carry, e = c2 + 2, j mod 2^(uP))
        self.seg = Signal(signed(max(self.carry_bits + 2, du + 1)), name="seg")
        self.seg_now = Signal(du, name="seg_now")

    def read_out(self) -> None:
        """The output step's reads, straight from the stores (a held ReadOut)."""
        m, core = self.m, self.core
        ro = self.ro = ReadOut(self.plan.beat_width, 0)
        ro.build(m)
        m.d.comb += self.hold.eq(ro.hold)
        wiring.connect(m, ro.o, wiring.flipped(core.o))
        if self.plan.domain == "spectral":
            m.d.comb += ro.data.eq(Cat(*(self.out_data[name] for name in self.program[-1].src.split(",")),
                                       self.t_lsb))
        else:
            m.d.comb += ro.data.eq(Mux(self.pick, self.out_data["B"], self.out_data["A"]))

    def shared_product(self) -> None:
        """plan.shared: the one MulAdd's products gathered a word at a time."""
        if not self.plan.shared:
            return
        m, w, sm_word, ma = self.m, self.w, self.sm_word, self.muls[0]
        self.product = Signal(self.L * w, name="sm_product")
        m.d.comb += self.product.eq(Cat(sm_word, ma.o))
        with m.If(self.sm.at("valid", self.depths["pass_mul1"])):
            m.d.sync += sm_word.eq(Cat(sm_word[w:], ma.o))

    # --- the program: one case of `step` a step ------------------------------------------------
    def steps(self) -> None:
        m, sq, done = self.m, self.sq, self.done
        # the transform's input valid straight from a register where a store loads it (the
        # steps that load the input override it): a step decode before its fan-out to the
        # unit's write crossbar was the K = 128 cores' critical path on ECP5
        m.d.sync += self.issuing.eq(0)
        m.d.comb += self.tu.i.valid.eq(self.issued)
        for index, step in enumerate(self.program):
            self.index = index
            depth = self.depths.get(step.sink, 0)
            last_write = self.mine(self.op, depth) & self.op.at("last", depth)
            with m.If(sq == index):
                self.step(step, last_write)
        with m.If(done):
            m.d.sync += [sq.eq(Mux(sq == len(self.program) - 1, 0, sq + 1)), self.ld.eq(0), self.sk.eq(0),
                         self.side_k.eq(0), self.sm_k.eq(0), self.sm_l.eq(0)]

    def step(self, step: Step, last_write: Value) -> None:
        """The step being generated (`index`), and its `done` (last_write: the last write of a
        step whose sink writes through op)."""
        m, done, ro, rd = self.m, self.done, self.ro, self.rd
        if step.kind:
            mul1_done = self.transform_step(step)
            m.d.comb += done.eq(last_write if mul1_done is None else mul1_done)
        elif step.sink == "out":
            m.d.comb += [ro.avail.eq(self.sk < self.H), done.eq((self.sk == self.H) & ro.o.valid & ro.o.ready)]
            m.d.comb += [rd[name].addr.eq(self.sk) for name in step.src.split(",")]
            with m.If(ro.go):
                m.d.sync += self.sk.eq(self.sk + 1)
        elif step.sink == "pass_mul1":
            m.d.comb += done.eq(self.shared_multiply(step.src, step.factor, step.mem3, step.dest))
        elif step.sink == "in_mul1":
            m.d.comb += done.eq(self.input_step(step))
        elif step.sink == "in":
            self.input_step(step)
            m.d.comb += done.eq(last_write)
        else:
            self.pass_step(step)
            m.d.comb += done.eq(last_write)

    # --- data inputs ------------------------------------------------------------------------------
    def data(self, target: Value, value: Value, en: Value | None = None) -> None:
        """target = value in the step being generated, or in any step while en is high (a data
        input: `select_data` selects among its steps' values, the most used one the default)."""
        cases = self.datas.setdefault(id(target), (target, []))[1]
        assert en is not None or all(i != self.index for i, _, e in cases if e is None), target
        cases.append((self.index, value, en))

    def select_data(self) -> None:
        """The transform's input beat, then each data input: its steps' distinct values, the
        most used the default, the others by the steps that give them; values with an enable
        over those."""
        m, sq = self.m, self.sq
        spectral = list(self.spectral_loads.values()) or [Const(0, self.L * self.w)]
        assert len(spectral) == 1, "the stores transforms load share one memory (STORE_GROUPS)"
        beat = [Cat(low, high[self.db:])
                for low, high in zip(self.lanes(self.tu_low, self.db), self.lanes(spectral[0], self.w), strict=True)]
        m.d.comb += self.tu.i.payload.eq(Cat(*beat, self.tu_kind))
        for target, cases in self.datas.values():
            values: dict[int, tuple[Value, list[int | None]]] = {}    # the distinct values, the steps giving each
            for index, value, en in cases:
                if en is None:
                    values.setdefault(id(value), (value, []))[1].append(index)
            # the most used the default
            *others, (data, _) = sorted(values.values(), key=lambda vs: len(vs[1])) or [(Const(0, len(target)), [])]
            for value, steps in others:
                data = Mux(Cat(*(sq == i for i in steps)).any(), value, data)
            enables: dict[int, tuple[Value, list[Value]]] = {}
            for _, value, en in cases:
                if en is not None:
                    enables.setdefault(id(value), (value, []))[1].append(en)
            for value, ens in enables.values():
                data = Mux(Cat(*ens).any(), value, data)
            m.d.comb += target.eq(data)

    def once(self, key: Hashable, make: Callable[[], Any]) -> Any:
        """make(), built once for all the steps that use it (`data` tells values apart by identity)."""
        if key not in self.built:
            self.built[key] = make()
        return self.built[key]

    def lane(self, at: Value, word: Value, w: int) -> Value:
        """Lane `at` of a word, one multiplexer a word however many steps use it."""
        return self.once(("lane", id(word)), lambda: pick_lane(at, [word[k * w:(k + 1) * w]
                                                                    for k in range(len(word) // w)]))

    @property
    def tag(self) -> int:
        """The step being generated's tag on the op delay line: its index + 1 (0: no operation)."""
        assert self.index is not None
        return self.index + 1

    def mine(self, op: DelayLine, d: int) -> Value:
        """An operation of the step being generated, d cycles ago (the pipeline may still hold
        the step before's: its tag is that step's)."""
        return op.at("valid", d) == self.tag

    def digit_lanes(self, data: Value) -> Value:
        """The unit's u + 1 bits a lane: each digit, 0 above."""
        return Cat(*(Cat(x, Const(0, 1)) for x in self.lanes(data, self.u)))

    # --- transform steps --------------------------------------------------------------------------
    def transform_step(self, step: Step) -> Value | None:
        """A transform step's load (the input, or a store) and sink (into a store)."""
        if step.src == "input":
            self.load_input()
        else:
            self.load_store(step)
        assert step.kind is not None
        self.data(self.tu_kind, Const(KIND_CODES[step.kind], 2))
        if step.side and self.plan.shared:
            self.shared_multiply(step.side[1], step.side[2], None, step.side[0])
        elif step.side:
            self.side_pass(step.side)
        return self.transform_sink(step)

    def load_input(self) -> None:
        """The input frame's beats into the unit and the X, Y stores; x0 y0 from the first."""
        m, core, tu, wr, ld = self.m, self.core, self.tu, self.wr, self.ld
        x, y = Value.cast(core.i.payload.x), Value.cast(core.i.payload.y)     # L digit lanes each
        take = core.i.valid & core.i.ready
        m.d.comb += [core.i.ready.eq(tu.i.ready & (ld < self.H)), tu.i.valid.eq(core.i.valid & (ld < self.H))]
        self.data(self.tu_low, self.digit_lanes(x))
        for name, part in (("X", x), ("Y", y)):
            m.d.comb += [wr[name].addr.eq(ld), wr[name].en.eq(take)]
            self.data(wr[name].data, part)
        with m.If(take):
            m.d.sync += ld.eq(ld + 1)
            with m.If(ld == 0):
                m.d.sync += self.x0y0.eq(x[0] & y[0])

    def load_store(self, step: Step) -> None:
        """A store's words into the unit, read read_latency cycles before: m (after pass_m) or t
        (after pass_t) A, or B by pick; g with c's digits added (eq. 17)."""
        m, rd, ld, u, w = self.m, self.rd, self.ld, self.u, self.w
        picked = step.src in ("M", "T")
        src = "A" if step.src in ("M", "G", "T") else step.src
        m.d.comb += rd[src].addr.eq(ld)
        if picked:
            m.d.comb += rd["B"].addr.eq(ld)
        m.d.sync += self.issuing.eq(ld < self.H)
        with m.If(ld < self.H):
            m.d.sync += ld.eq(ld + 1)
        if step.src in ("M", "G", "T"):
            data = Mux(self.pick, rd["B"].data, rd["A"].data) if picked else rd["A"].data
            if step.src == "G":                               # + c's digits, eq. (17)
                m.d.sync += self.seg.eq(Mux(ld == self.R - 1, self.carry, self.seg >> self.du))
                beat = Cat(*(x + e for x, e in zip(self.lanes(data, u), self.lanes(self.seg[:self.du], u),
                                                   strict=True)))
            else:
                beat = self.once("picked beat", lambda: self.digit_lanes(data))
            with m.If(self.issued & self.word0):              # beat 0: m's parity, t's
                if step.src == "M":
                    m.d.sync += self.parity.eq(self.x0y0 ^ data[0])
                elif step.src == "T":
                    m.d.sync += self.t_lsb.eq(data[0])
        elif src in DIGIT_STORES:
            beat = self.once(f"{src} beat", lambda: self.digit_lanes(rd[src].data))
        else:
            self.spectral_loads[id(rd[src].data)] = rd[src].data
            beat = self.once(("low", id(rd[src].data)),
                             lambda: Cat(*(x[:u + 1] for x in self.lanes(rd[src].data, w))))
        self.data(self.tu_low, beat)

    def transform_sink(self, step: Step) -> Value | None:
        """The unit's H result beats into a store: as they come (plain), times a store's words
        on the MulAdds (mul), through Restrict and the Accumulator (acc, racc), or a
        coefficient a cycle on the one MulAdd (mul1: returns its last write)."""
        m, tu, rd, op, sk, L, w = self.m, self.tu, self.rd, self.op, self.sk, self.L, self.w
        if step.sink == "mul1":        # a coefficient a cycle: the read-out beat held until its last lane
            m.d.comb += tu.o.ready.eq(self.sm_l == L - 1)
            return self.shared_multiply(None, step.factor, step.mem3, step.dest, a_word=self.beat,
                                        advance=tu.o.valid)
        m.d.comb += [op["valid"].eq(Mux(tu.o.valid, self.tag, 0)), op["k"].eq(sk),
                     op["last"].eq(sk == self.H - 1), op["first"].eq(sk == 0)]
        with m.If(tu.o.valid):
            m.d.sync += sk.eq(sk + 1)
        d = self.depths[step.sink]
        dest = self.wr[step.dest]
        m.d.comb += [dest.addr.eq(op.at("k", d)), dest.en.eq(self.mine(op, d))]
        if step.sink == "plain":
            self.data(dest.data, Value.cast(tu.o.payload))
        elif step.sink == "mul":
            m.d.comb += rd[step.factor].addr.eq(sk)
            if step.mem3:
                m.d.comb += rd[step.mem3].addr.eq(sk)
            for k, ma in enumerate(self.muls):
                self.data(ma.a, self.lanes(self.beat, w)[k])
                self.data(ma.b, self.lanes(rd[step.factor].data, w)[k])
                self.data(ma.c, self.lanes(rd[step.mem3].data, w)[k] if step.mem3 else self.zero)
            self.data(dest.data, Cat(*(ma.o for ma in self.muls)))
        else:
            m.d.comb += self.restrict.apply.eq(step.sink == "racc")
            self.data(dest.data, self.acc.o)
            with m.If(self.mine(op, d) & op.at("last", d)):
                m.d.sync += self.carry.eq(self.acc.carry)
        return None

    # --- products -----------------------------------------------------------------------------------
    def input_step(self, step: Step) -> Value | None:
        """domain = spectral: the H input beats' spectra into their stores, the first times
        mem2 on its way: on the L MulAdds as the beats come (in: mem2 read at the beat's index
        as it is taken, the beat registered beside the read), or on the one MulAdd a
        coefficient a cycle from the store XT, word k once beat k is in (in_mul1: returns the
        last write); x0 y0 from the first beat."""
        m, core, rd, wr, ld, op = self.m, self.core, self.rd, self.wr, self.ld, self.op
        plan = self.plan
        take = core.i.valid & core.i.ready
        m.d.comb += core.i.ready.eq(ld < plan.H)
        x, y = core.i.payload.x, core.i.payload.y                  # the spectra's parts by name
        parts = tuple(Value.cast(number[part]) for number in (x, y) for part in ("T", "Tn"))
        first, *rest = step.dest.split(",")
        stored = parts if step.sink == "in_mul1" else parts[1:]
        for name, part in zip(rest, stored, strict=True):
            m.d.comb += [wr[name].addr.eq(ld), wr[name].en.eq(take)]
            self.data(wr[name].data, part)
        with m.If(take):
            m.d.sync += ld.eq(ld + 1)
            with m.If(ld == 0):
                m.d.sync += self.x0y0.eq(x.parity & y.parity)
        if step.sink == "in_mul1":
            return self.shared_multiply("XT", step.factor, None, first, advance=self.sm_k < ld)
        beat1 = delay(self.m, parts[0], self.R, "in_beat1")
        m.d.comb += [op["valid"].eq(Mux(take, self.tag, 0)), op["k"].eq(ld), op["last"].eq(ld == plan.H - 1),
                     op["first"].eq(ld == 0)]
        m.d.comb += rd[step.factor].addr.eq(ld)
        d = self.depths["in"]
        self.multiply(beat1, rd[step.factor].data, wr[first], op.at("k", d), self.mine(op, d))
        return None

    def multiply(self, a: Value, b: Value, dest: Any, addr: Value, en: Value) -> None:
        """dest[addr] = a (.) b lane by lane on the MulAdds (a, b this cycle; addr, en at the
        write, the MulAdd's depth later)."""
        w = self.w
        for k, ma in enumerate(self.muls):
            self.data(ma.a, self.lanes(a, w)[k])
            self.data(ma.b, self.lanes(b, w)[k])
            self.data(ma.c, self.zero)
        self.m.d.comb += [dest.addr.eq(addr), dest.en.eq(en)]
        self.data(dest.data, Cat(*(ma.o for ma in self.muls)))

    def shared_multiply(self, a: str | None, b: str, c: str | None, dest: str, a_word: Value | None = None,
                        advance: Value | None = None) -> Value:
        """dest = a (.) b (+ c) on the one MulAdd, one coefficient a cycle: issue Lk + l reads
        word k of the stores (a_word: a's word is that register, the beat read_latency cycles
        after the issue) and multiplies its lane l; an issue only when `advance`. The word's L
        products are gathered and written with the last (in place is safe: word k is not read
        again).
        Returns the last write."""
        m, rd, sm, k, lane = self.m, self.rd, self.sm, self.sm_k, self.sm_l
        L, H, w = self.L, self.H, self.w
        issue = (k < H) & (1 if advance is None else advance)
        m.d.comb += [sm["valid"].eq(issue), sm["k"].eq(k), sm["l"].eq(lane)]
        m.d.comb += [rd[name].addr.eq(k) for name in (a, b, c) if name]
        with m.If(issue):
            m.d.sync += [lane.eq(Mux(lane == L - 1, 0, lane + 1)), k.eq(Mux(lane == L - 1, k + 1, k))]
        ma, at = self.muls[0], sm.at("l", self.R)        # lane sm_l of the words, read_latency after the issue
        self.data(ma.a, self.lane(at, a_word if a is None else rd[a].data, w))
        self.data(ma.b, self.lane(at, rd[b].data, w))
        self.data(ma.c, self.lane(at, rd[c].data, w) if c else self.zero)
        d = self.depths["pass_mul1"]
        valid, last_lane = sm.at("valid", d), sm.at("l", d) == L - 1
        m.d.comb += [self.wr[dest].addr.eq(sm.at("k", d)), self.wr[dest].en.eq(valid & last_lane)]
        self.data(self.wr[dest].data, self.product)
        return valid & last_lane & (sm.at("k", d) == H - 1)

    def side_pass(self, names: tuple[str, str, str]) -> None:
        """dest = a (.) b over H issues from the step's start, on its own counter and delay line."""
        m, rd, side, k = self.m, self.rd, self.side, self.side_k
        dest, a, b = names
        issue = k < self.H
        m.d.comb += [side["valid"].eq(issue), side["k"].eq(k), rd[a].addr.eq(k), rd[b].addr.eq(k)]
        with m.If(issue):
            m.d.sync += k.eq(k + 1)
        d = self.depths["pass_mul"]
        self.multiply(rd[a].data, rd[b].data, self.wr[dest], side.at("k", d), side.at("valid", d))

    # --- time-domain passes ----------------------------------------------------------------------
    def pass_step(self, step: Step) -> None:
        """A time-domain pass: H reads of a store through its units into stores."""
        m, rd, sk, op = self.m, self.rd, self.sk, self.op
        issue = sk < self.H
        m.d.comb += [op["valid"].eq(Mux(issue, self.tag, 0)), op["k"].eq(sk), op["last"].eq(sk == self.H - 1),
                     op["first"].eq(sk == 0)]
        with m.If(issue):
            m.d.sync += sk.eq(sk + 1)
        m.d.comb += rd[step.src].addr.eq(sk)
        data = rd[step.src].data
        if step.sink == "pass_mul":                   # dest = src (.) mem2, lane by lane
            d = self.depths[step.sink]
            m.d.comb += rd[step.factor].addr.eq(sk)
            self.multiply(data, rd[step.factor].data, self.wr[step.dest], op.at("k", d), self.mine(op, d))
        elif step.sink == "pass_m":
            self.pass_m(data)
        elif step.sink == "pass_d":
            self.pass_d(data)
        else:
            self.pass_t(data)

    def write_both(self, values: tuple[Value, Value], d: int) -> None:
        """Stores A and B written with the pass's values, d cycles after the read."""
        for name, value in zip(("A", "B"), values, strict=True):
            self.m.d.comb += [self.wr[name].addr.eq(self.op.at("k", d)), self.wr[name].en.eq(self.mine(self.op, d))]
            self.data(self.wr[name].data, value)

    def pass_m(self, data: Value) -> None:
        """m = A + c, or A + c + 1 (pick) when that carries out: both written."""
        m, mod_r, op, R = self.m, self.mod_r, self.op, self.R
        m.d.comb += mod_r.first.eq(op.at("first", R))
        self.data(mod_r.a, data)
        self.data(mod_r.c, self.carry)
        self.write_both((mod_r.plain, mod_r.plus), R + 1)
        with m.If(self.mine(op, R + 1) & op.at("last", R + 1)):
            m.d.sync += self.pick.eq(mod_r.select)

    def pass_d(self, data: Value) -> None:
        """D = (c2 + 2) - A + 2^(uP+1): e = c2 + 2's segments (arithmetic shifts) minus A's;
        with the last segment D's high bits, j0, j (model.pass_d, pass_t)."""
        m, op, sub_d, seg, du = self.m, self.op, self.sub_d, self.seg, self.du
        first1, out = op.at("first", self.R), self.R + 1       # the read's data, sub_d's result
        e = self.carry + 2
        m.d.sync += seg.eq(Mux(first1, e >> du, seg >> du))
        m.d.comb += self.seg_now.eq(Mux(first1, e, seg)[:du])
        m.d.comb += [sub_d.first.eq(first1), sub_d.cin.eq(0)]
        self.data(sub_d.a, self.seg_now)
        self.data(sub_d.b, data)
        m.d.comb += [self.wr["B"].addr.eq(op.at("k", out)), self.wr["B"].en.eq(self.mine(op, out))]
        self.data(self.wr["B"].data, sub_d.o)
        seg0, rest_zero, e_neg = Signal(2, name="d_seg0"), Signal(name="d_rest_zero"), Signal(name="e_neg")
        low_small = Signal(2, name="d_low_small")         # D's low bits: 0, 1, else 2
        with m.If(self.mine(op, out) & op.at("first", out)):
            m.d.sync += [seg0.eq(sub_d.o[:2]), rest_zero.eq(1), e_neg.eq(e < 0),
                         low_small.eq(Mux(sub_d.o[2:] == 0, Mux(sub_d.o[1], 2, sub_d.o[0]), 2))]
        with m.Elif(self.mine(op, out) & (sub_d.o != 0)):
            m.d.sync += rest_zero.eq(0)
        with m.If(self.mine(op, out) & op.at("last", out)):
            high = Signal(2, name="d_high_now")
            small = Mux(rest_zero & (sub_d.o == 0), low_small, 2)
            m.d.comb += high.eq(2 - e_neg - sub_d.cout)
            at_least_2q = (high == 2) & (small == 2)
            at_least_q = (high == 2) | ((high == 1) & (small != 0))
            j0 = Signal(signed(3), name="j0")
            m.d.comb += j0.eq(Mux(at_least_2q, -2, Mux(at_least_q, -1, 0)))
            delta = (Cat(Const(0, 1), self.parity) - seg0 - j0)[:2]
            m.d.sync += [self.j.eq(j0 + delta), self.d_high.eq(high)]

    def pass_t(self, data: Value) -> None:
        """2t = D + j Q' = (B + j) + (D_high + j) 2^(uP); halve; t - N: t and t - N written,
        pick the second when t >= N."""
        m, op, j, add_t, halver, sub_n = self.m, self.op, self.j, self.add_t, self.halver, self.sub_n
        R = self.R                                   # the read's data at R, add_t's sum at R + 1
        du, first1 = self.du, op.at("first", R)
        jext = Signal(du, name="j_seg")
        m.d.comb += jext.eq(Mux(first1, j.as_signed(), Mux(j < 0, (1 << du) - 1, 0)))
        m.d.comb += [add_t.first.eq(first1), add_t.cin.eq(0)]
        self.data(add_t.a, data)
        self.data(add_t.b, jext)
        t_high = Signal(signed(5), name="t_high")
        m.d.comb += t_high.eq(self.d_high + j + add_t.cout - (j < 0))
        self.data(halver.d, add_t.o)
        m.d.comb += [halver.valid.eq(self.mine(op, R + 1)), halver.last.eq(op.at("last", R + 1)),
                     halver.top.eq(t_high[0])]
        top_bit = Signal(name="t_top")                    # bit uP of t
        with m.If(self.mine(op, R + 1) & op.at("last", R + 1)):
            m.d.sync += top_bit.eq(t_high[1])
        halved = R + 1 + HALVER_DELAY                # N's digits read to come with the halves
        m.d.comb += self.rd["ND"].addr.eq(op.at("k", halved - R))
        m.d.comb += [sub_n.first.eq(op.at("first", halved)), sub_n.cin.eq(0)]
        self.data(sub_n.a, halver.o)
        self.data(sub_n.b, self.rd["ND"].data)
        half = Signal(du, name="t_half")
        m.d.sync += half.eq(halver.o)
        self.write_both((half, sub_n.o), halved + 1)
        with m.If(self.mine(op, halved + 1) & op.at("last", halved + 1)):
            m.d.sync += self.pick.eq(top_bit | ~sub_n.cout)
