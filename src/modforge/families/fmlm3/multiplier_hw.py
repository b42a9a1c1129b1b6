"""rsa-fmlm3 in Amaranth: the controller that runs multiplier.MultiplierPlan's program around
one fmlm3-transform unit (hw.TransformCore, kind = any), L MulAdds (hw.fermat), the
Accumulators, Restrict and the time-domain passes (passes.py, hw.digits), and the stores
(amaranth.lib.memory, one word a beat; the spectral ones as regions of shared block RAMs,
one read and one write port each, `_store_group`).

One step at a time (`step`). A transform step streams H beats into the unit (from the input
frame, or a store read the cycle before), then takes its H result beats (o.ready is always
high, so they come on consecutive cycles) through its sink into a store; the step ends with
the last write. A pass step reads a store H cycles in a row through its units into stores.
The output step reads the selected result through a held hw.stream.ReadOut (back-pressure holds
the stores' read ports; the step ends when its last word is taken). No step waits on data
values, so the latency is MultiplierPlan.latency. cfg (N's spectra and digits) is taken
only between multiplications. Data (the stores' write data, the transform's input, the units'
operands) goes through `_data`: outside its steps a data input keeps one of its steps' values
instead of 0, since it matters only with its enable; no AND gate a bit.
"""

from __future__ import annotations

from types import SimpleNamespace

from amaranth.hdl import Cat, Const, Module, Mux, Signal, signed
from amaranth.lib import stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ...hw.config import ConfigLoader
from ...hw.delay import DelayLine
from ...hw.digits import Accumulator, Halver, SegmentAddSub
from ...hw.fermat import MulAdd
from ...hw.select import pick as pick_lane
from ...hw.stream import ReadOut
from . import hw
from .model import KIND_CODES
from .multiplier import CFG_SELECT, DEPTH, DIGIT_STORES, LUT_RAM_STORES, MultiplierPlan
from .passes import ModRPass, Restrict

BLOCK_RAM_BITS = 4096     # a store group of at least this many bits is marked ram_style = block


class MultiplierCore(wiring.Component):
    """i: beat k = Cat(x digits Lk..Lk+L-1, y digits Lk..Lk+L-1), u bits each; o: beat k of
    t, the same layout as x (domain = spectral: x, y and t as MultiplierPlan.spectral_frame
    beats); cfg: MultiplierPlan.cfg_words."""

    def __init__(self, plan: MultiplierPlan, N: int):
        self.plan, self.N = plan, N
        self.latency = plan.latency()
        self.initiation_interval = plan.initiation_interval()
        width = plan.spectral_width if plan.domain == "spectral" else plan.lanes * plan.params.u
        super().__init__({"i": In(stream.Signature(2 * width)), "o": Out(stream.Signature(width)),
                          "cfg": In(stream.Signature(plan.cfg_width))})

    def elaborate(self, platform):
        plan, m = self.plan, Module()
        p = plan.params
        L, H, K, u = plan.lanes, plan.H, plan.K, p.u
        w, du = K + 1, L * u                         # a coefficient's bits, a digit beat's bits
        program = plan.program()
        sq = Signal(range(len(program)), name="step")

        def lanes(value, bits):
            return [value[k * bits:(k + 1) * bits] for k in range(L)]

        # --- stores: one word a beat; N's spectra and digits start as the build's N --------
        init = plan.load_cfg(plan.cfg_words(self.N))
        inits = {"TNp": plan.beats(init.T_N_prime, w), "TnN": plan.beats(init.Tn_N, w), "ND": plan.frame(self.N)}
        rd, wr = {}, {}
        # the output's stores keep their read data while the output is held (a held ReadOut)
        self._out_stores, self._hold = set(program[-1].src.split(",")), Signal(name="out_hold")
        for name in DIGIT_STORES:
            if name in ("X", "Y") and plan.domain == "spectral":
                continue
            mem = Memory(shape=du, depth=H, init=inits.get(name, []))
            m.submodules[f"{name.lower()}_ram"] = mem
            rd[name], wr[name] = mem.read_port(), mem.write_port()
            if name in self._out_stores:
                m.d.comb += rd[name].en.eq(~self._hold)
        for names in plan.store_groups():
            self._store_group(m, plan, names, sq, inits, rd, wr)

        # the loader's writes: its own data for stores sharing a group's write data (before the steps')
        self._index, self._datas, self._built = None, {}, {}
        cfg_data = Signal(L * w, name="cfg_data")
        ports = {CFG_SELECT["N"]: wr["ND"]}
        for select, name in ((CFG_SELECT["T(N')"], "TNp"), (CFG_SELECT["T'(N)"], "TnN")):
            ports[select] = SimpleNamespace(addr=wr[name].addr, en=wr[name].en, data=cfg_data)
            self._data(wr[name].data, cfg_data, en=wr[name].en)
        loader = ConfigLoader(L * w, plan.index_bits, 2, [], ports)
        loader.build(m)
        wiring.connect(m, wiring.flipped(self.cfg), loader.cfg)

        # --- the transform unit ----------------------------------------------------------
        # a forward transform loads digits (u bits, u + 1 with eq. 17's carries), an inverse
        # spectra from the {Z0, Z4} memory: a lane's bits above the digits' come from that
        # memory in every step, and the unit ignores them in forward frames (no AND gate a bit)
        db = u + 1
        tu = hw.TransformCore(plan.transform, forward_bits=db)
        m.submodules.transform = tu
        m.d.comb += tu.o.ready.eq(1)
        # the input beat's digits-wide lanes and its kind code apart: steps that load the same
        # beat share its data path
        tu_low, tu_kind = Signal(L * db, name="tu_low"), Signal(2, name="tu_kind")
        self._spectral_loads = {}                     # the read data of the stores transforms load

        # --- counters: the load (ld: issues or input beats), the sink or pass (sk) ---------
        ld = Signal(range(H + 1), name="ld")
        sk = Signal(range(H + 1), name="sk")
        issued = Signal(name="issued")                # a store read issued last cycle (its beat now)
        op = DelayLine(m, {"valid": range(len(program) + 1), "k": range(H), "last": 1, "first": 1}, prefix="op")
        for name in ("valid", "k", "last", "first"):      # the registers, made outside the steps' conditions
            op.at(name, max(DEPTH.values()))
        side = DelayLine(m, {"valid": 1, "k": range(H)}, prefix="side")   # a side pass's issues
        side.at("valid", DEPTH["pass_mul"])
        side.at("k", DEPTH["pass_mul"])
        side_k = Signal(range(H + 1), name="side_k")
        # plan.shared: the one MulAdd's issues, lane sm_l of word sm_k (`_shared_multiply`)
        sm = DelayLine(m, {"valid": 1, "k": range(H), "l": range(L)}, prefix="sm")
        sm_k, sm_l = Signal(range(H + 1), name="sm_k"), Signal(range(L), name="sm_l")
        sm_word = Signal((L - 1) * w, name="sm_word")       # the word's first L - 1 products
        for name in ("valid", "k", "l"):
            sm.at(name, DEPTH["pass_mul1"])
        done = Signal(name="done")
        # one Accumulator behind Restrict for CT^-1's read-out (Restrict passing the digits in
        # [0, M) on as non-negative K+2-bit ones) and NCT^-1's (restricted, signed)
        acc = Accumulator(u, K + 2, L, signed_digits=True)
        carry_bits = acc.carry_bits
        carry = Signal(signed(carry_bits + 1), name="carry")
        x0y0, parity, t_lsb = Signal(name="x0y0"), Signal(name="parity"), Signal(name="t_lsb")
        pick = Signal(name="pick")                    # pass_m: m is B; pass_t: the result is B
        j = Signal(signed(4), name="j")
        d_high = Signal(2, name="d_high")
        m.d.comb += loader.allow.eq((sq == 0) & (ld == 0))
        self._zero = Const(0, K + 1)

        # MulAdds, the Accumulator behind Restrict, the passes' units
        muls = []
        for k in range(1 if plan.shared else L):
            ma = MulAdd(K, name=f"ma{k}")
            m.submodules[f"ma{k}"] = ma
            muls.append(ma)
        m.submodules.acc = acc
        restrict = Restrict(p.P, u, K, L)
        m.submodules.restrict = restrict
        mod_r = ModRPass(du, carry_bits)
        m.submodules.mod_r = mod_r
        sub_d, add_t, sub_n = SegmentAddSub(du, subtract=True), SegmentAddSub(du), SegmentAddSub(du, subtract=True)
        m.submodules.sub_d, m.submodules.add_t, m.submodules.sub_n = sub_d, add_t, sub_n
        halver = Halver(du)
        m.submodules.halver = halver
        m.d.comb += [restrict.valid.eq(op["valid"] != 0), restrict.last.eq(op["last"]),
                     acc.first.eq(op.at("first", Restrict.depth))]
        m.d.comb += [d.eq(x) for d, x in zip(restrict.d, lanes(tu.o.payload, w), strict=True)]
        m.d.comb += [d.eq(x) for d, x in zip(acc.d, restrict.o, strict=True)]
        beat1 = Signal(L * w, name="beat1")           # the read-out beat, aligned with the stores' words
        m.d.sync += beat1.eq(tu.o.payload)

        # segments of a number streamed over the pass (carry, e = c2 + 2, j mod 2^(uP))
        seg = Signal(signed(max(carry_bits + 2, du + 1)), name="seg")
        seg_now = Signal(du, name="seg_now")

        ro = ReadOut(len(self.o.payload), 0)       # the output step's reads, straight from the stores
        ro.build(m)
        m.d.comb += self._hold.eq(ro.hold)
        wiring.connect(m, ro.o, wiring.flipped(self.o))
        if plan.domain == "spectral":
            m.d.comb += ro.data.eq(Cat(*(rd[name].data for name in program[-1].src.split(",")), t_lsb))
        else:
            m.d.comb += ro.data.eq(Mux(pick, rd["B"].data, rd["A"].data))

        wires = SimpleNamespace(tu=tu, tu_low=tu_low, tu_kind=tu_kind, rd=rd, wr=wr,
                                ld=ld, sk=sk, issued=issued, op=op, muls=muls, acc=acc,
                                restrict=restrict, beat1=beat1, carry=carry, x0y0=x0y0, parity=parity, t_lsb=t_lsb,
                                pick=pick, j=j,
                                d_high=d_high, mod_r=mod_r, sub_d=sub_d, add_t=add_t, sub_n=sub_n, halver=halver,
                                seg=seg, seg_now=seg_now, lanes=lanes, side=side, side_k=side_k, sm=sm, sm_k=sm_k,
                                sm_l=sm_l)
        if plan.shared:                               # the one MulAdd's products gathered a word at a time
            self._product = Signal(L * w, name="sm_product")
            m.d.comb += self._product.eq(Cat(sm_word, muls[0].o))
            with m.If(sm.at("valid", DEPTH["pass_mul1"])):
                m.d.sync += sm_word.eq(Cat(sm_word[w:], muls[0].o))
        for index, step in enumerate(program):
            self._index = index
            depth = DEPTH.get(step.sink, 0)
            last_write = self._mine(op, depth) & op.at("last", depth)
            with m.If(sq == index):
                if step.kind:
                    mul1_done = self._transform_step(m, plan, step, wires)
                    m.d.comb += done.eq(last_write if mul1_done is None else mul1_done)
                elif step.sink == "out":
                    m.d.comb += [ro.avail.eq(sk < H), done.eq((sk == H) & ro.o.valid & ro.o.ready)]
                    m.d.comb += [rd[name].addr.eq(sk) for name in step.src.split(",")]
                    with m.If(ro.go):
                        m.d.sync += sk.eq(sk + 1)
                elif step.sink == "pass_mul1":
                    m.d.comb += done.eq(self._shared_multiply(m, plan, wires, step.src, step.mem2, step.mem3,
                                                              step.dest))
                elif step.sink == "in_mul1":
                    m.d.comb += done.eq(self._input_step(m, plan, step, wires))
                elif step.sink == "in":
                    self._input_step(m, plan, step, wires)
                    m.d.comb += done.eq(last_write)
                else:
                    self._pass_step(m, plan, step, wires)
                    m.d.comb += done.eq(last_write)
        with m.If(done):
            m.d.sync += [sq.eq(Mux(sq == len(program) - 1, 0, sq + 1)), ld.eq(0), sk.eq(0), side_k.eq(0),
                         sm_k.eq(0), sm_l.eq(0)]
        spectral = list(self._spectral_loads.values()) or [Const(0, L * w)]
        assert len(spectral) == 1, "the stores transforms load share one memory (STORE_GROUPS)"
        beat = [Cat(low, high[db:]) for low, high in zip(lanes(tu_low, db), lanes(spectral[0], w), strict=True)]
        m.d.comb += tu.i.payload.eq(Cat(*beat, tu_kind))
        for target, cases in self._datas.values():
            values: dict[int, tuple] = {}                  # the distinct values, the steps that give each
            for index, value, en in cases:
                if en is None:
                    values.setdefault(id(value), (value, []))[1].append(index)
            # the most used the default
            *others, (data, _) = sorted(values.values(), key=lambda vs: len(vs[1])) or [(Const(0, len(target)), [])]
            for value, steps in others:
                data = Mux(Cat(*(sq == i for i in steps)).any(), value, data)
            enables: dict[int, tuple] = {}
            for _, value, en in cases:
                if en is not None:
                    enables.setdefault(id(value), (value, []))[1].append(en)
            for value, ens in enables.values():
                data = Mux(Cat(*ens).any(), value, data)
            m.d.comb += target.eq(data)
        return m

    def _data(self, target, value, en=None):
        """target = value in the step being generated, or in any step while en is high (a data
        input: `elaborate` selects among its steps' values, the most used one the default)."""
        cases = self._datas.setdefault(id(target), (target, []))[1]
        assert en is not None or all(i != self._index for i, _, e in cases if e is None), target
        cases.append((self._index, value, en))

    def _once(self, key, make):
        """make(), built once for all the steps that use it (`_data` tells values apart by identity)."""
        if key not in self._built:
            self._built[key] = make()
        return self._built[key]

    def _lane(self, at, word, w):
        """Lane `at` of a word, one multiplexer a word however many steps use it."""
        return self._once(("lane", id(word)), lambda: pick_lane(at, [word[k * w:(k + 1) * w]
                                                                      for k in range(len(word) // w)]))

    def _store_group(self, m, plan, names, sq, inits, rd, wr):
        """One block RAM for the stores `names` (region r: store r's H words): rd[name] and
        wr[name] are stand-ins the steps drive like ports. The read address is the one of the
        store the current step reads (at most one a group, MultiplierPlan.store_groups), the
        write the one whose en is high (at most one a cycle)."""
        H, width = plan.H, plan.lanes * (plan.K + 1)
        bits = plan.index_bits
        init = [word for name in names for word in inits.get(name, [0] * H)]
        depth = len(names) << bits
        # block RAM from a quarter of a RAMB18 on; smaller ones are left to Yosys (LUT RAM,
        # which the netlist simulation's cell models can also run: their RAMB36E1 has no behaviour)
        attrs = ({"ram_style": "distributed"} if set(names) <= set(LUT_RAM_STORES) else
                 {"ram_style": "block"} if width * depth >= BLOCK_RAM_BITS else {})
        mem = Memory(shape=width, depth=depth, init=init, attrs=attrs)
        m.submodules[f"{names[0].lower()}_ram"] = mem
        rport, wport = mem.read_port(), mem.write_port()
        if self._out_stores & set(names):
            m.d.comb += rport.en.eq(~self._hold)
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
        for index, step in enumerate(plan.program()):
            for region, name in enumerate(names):
                if name in plan.accesses(step)[0]:
                    raddr = Mux(sq == index, Cat(rd[name].addr, Const(region, len(rport.addr) - bits)), raddr)
        m.d.comb += rport.addr.eq(raddr)
        def place(region, name):
            return Cat(wr[name].addr, Const(region, len(wport.addr) - bits))
        waddr = place(len(names) - 1, names[-1])          # the enabled store's (one a cycle)
        for region, name in enumerate(names[:-1]):
            waddr = Mux(wr[name].en, place(region, name), waddr)
        m.d.comb += [wport.addr.eq(waddr), wport.en.eq(Cat(*(wr[n].en for n in names)).any())]

    def _mine(self, op, d: int):
        """An operation of the step being generated, d cycles ago (the pipeline may still hold
        the step before's: its tag is that step's)."""
        return op.at("valid", d) == self._index + 1

    def _transform_step(self, m, plan, step, wires):
        """A transform step's load (the input, or a store) and sink (into a store)."""
        tu, rd, wr, ld, sk, issued, op = (wires.tu, wires.rd, wires.wr, wires.ld, wires.sk, wires.issued, wires.op)
        carry, x0y0, parity, pick, lanes, seg = (wires.carry, wires.x0y0, wires.parity, wires.pick, wires.lanes,
                                                 wires.seg)
        picked = step.src in ("M", "T")               # m (after pass_m) or t (after pass_t): A, or B by pick
        muls, acc, beat1 = wires.muls, wires.acc, wires.beat1
        L, H, K, u = plan.lanes, plan.H, plan.K, plan.params.u
        w, du = K + 1, L * u
        kind = Const(KIND_CODES[step.kind], 2)

        def digit_lanes(data):                  # the unit's u + 1 bits a lane: each digit, 0 above
            return Cat(*(Cat(x, Const(0, 1)) for x in lanes(data, u)))
        # --- load ----------------------------------------------------------------------
        if step.src == "input":
            take = self.i.valid & self.i.ready
            m.d.comb += [self.i.ready.eq(tu.i.ready & (ld < H)), tu.i.valid.eq(self.i.valid & (ld < H))]
            self._data(wires.tu_low, digit_lanes(self.i.payload))
            for name, part in (("X", self.i.payload[:du]), ("Y", self.i.payload[du:])):
                m.d.comb += [wr[name].addr.eq(ld), wr[name].en.eq(take)]
                self._data(wr[name].data, part)
            with m.If(take):
                m.d.sync += ld.eq(ld + 1)
                with m.If(ld == 0):
                    m.d.sync += x0y0.eq(self.i.payload[0] & self.i.payload[du])
        else:
            src = "A" if step.src in ("M", "G", "T") else step.src
            m.d.comb += rd[src].addr.eq(ld)
            if picked:
                m.d.comb += rd["B"].addr.eq(ld)
            m.d.sync += issued.eq(ld < H)
            with m.If(ld < H):
                m.d.sync += ld.eq(ld + 1)
            if step.src in ("M", "G", "T"):
                data = Mux(pick, rd["B"].data, rd["A"].data) if picked else rd["A"].data
                if step.src == "G":                               # + c's digits, eq. (17)
                    m.d.sync += seg.eq(Mux(ld == 0, carry, seg >> du))
                    beat = Cat(*(x + e for x, e in zip(lanes(data, u), lanes(seg[:du], u), strict=True)))
                else:
                    beat = self._once("picked beat", lambda: digit_lanes(data))
                with m.If(issued & (ld == 1)):                   # beat 0: m's parity, t's
                    if step.src == "M":
                        m.d.sync += parity.eq(x0y0 ^ data[0])
                    elif step.src == "T":
                        m.d.sync += wires.t_lsb.eq(data[0])
            elif src in DIGIT_STORES:
                beat = self._once(f"{src} beat", lambda: digit_lanes(rd[src].data))
            else:
                self._spectral_loads[id(rd[src].data)] = rd[src].data
                beat = self._once(("low", id(rd[src].data)), lambda: Cat(*(x[:u + 1] for x in lanes(rd[src].data, w))))
            m.d.comb += tu.i.valid.eq(issued)
            self._data(wires.tu_low, beat)
        self._data(wires.tu_kind, kind)
        if step.side and plan.shared:
            self._shared_multiply(m, plan, wires, step.side[1], step.side[2], None, step.side[0])
        elif step.side:
            self._side_pass(m, plan, step.side, wires)
        # --- sink ----------------------------------------------------------------------
        if step.sink == "mul1":        # a coefficient a cycle: the read-out beat held until its last lane
            m.d.comb += tu.o.ready.eq(wires.sm_l == L - 1)
            return self._shared_multiply(m, plan, wires, None, step.mem2, step.mem3, step.dest,
                                         a_word=beat1, advance=tu.o.valid)
        m.d.comb += [op["valid"].eq(Mux(tu.o.valid, self._index + 1, 0)), op["k"].eq(sk), op["last"].eq(sk == H - 1),
                     op["first"].eq(sk == 0)]
        with m.If(tu.o.valid):
            m.d.sync += sk.eq(sk + 1)
        d = DEPTH[step.sink]
        dest = wr[step.dest]
        m.d.comb += [dest.addr.eq(op.at("k", d)), dest.en.eq(self._mine(op, d))]
        if step.sink == "plain":
            self._data(dest.data, tu.o.payload)
        elif step.sink == "mul":
            m.d.comb += rd[step.mem2].addr.eq(sk)
            if step.mem3:
                m.d.comb += rd[step.mem3].addr.eq(sk)
            for k, ma in enumerate(muls):
                self._data(ma.a, lanes(beat1, w)[k])
                self._data(ma.b, lanes(rd[step.mem2].data, w)[k])
                self._data(ma.c, lanes(rd[step.mem3].data, w)[k] if step.mem3 else self._zero)
            self._data(dest.data, Cat(*(ma.o for ma in muls)))
        else:
            m.d.comb += wires.restrict.apply.eq(step.sink == "racc")
            self._data(dest.data, acc.o)
            with m.If(self._mine(op, d) & op.at("last", d)):
                m.d.sync += carry.eq(acc.carry)
        return None

    def _input_step(self, m, plan, step, wires):
        """domain = spectral: the H input beats' spectra into their stores, the first times
        mem2 on its way: on the L MulAdds as the beats come (in: mem2 read at the beat's index
        as it is taken, the beat registered beside the read), or on the one MulAdd a
        coefficient a cycle from the store XT, word k once beat k is in (in_mul1: returns the
        last write); x0 y0 from the first beat."""
        rd, wr, ld, op = wires.rd, wires.wr, wires.ld, wires.op
        w = plan.K + 1
        lanes_w = plan.lanes * w
        take = self.i.valid & self.i.ready
        m.d.comb += self.i.ready.eq(ld < plan.H)
        x, y = self.i.payload[:plan.spectral_width], self.i.payload[plan.spectral_width:]
        parts = (x[:lanes_w], x[lanes_w:2 * lanes_w], y[:lanes_w], y[lanes_w:2 * lanes_w])
        first, *rest = step.dest.split(",")
        stored = parts if step.sink == "in_mul1" else parts[1:]
        for name, part in zip(rest, stored, strict=True):
            m.d.comb += [wr[name].addr.eq(ld), wr[name].en.eq(take)]
            self._data(wr[name].data, part)
        with m.If(take):
            m.d.sync += ld.eq(ld + 1)
            with m.If(ld == 0):
                m.d.sync += wires.x0y0.eq(x[-1] & y[-1])
        if step.sink == "in_mul1":
            return self._shared_multiply(m, plan, wires, "XT", step.mem2, None, first, advance=wires.sm_k < ld)
        beat1 = Signal(lanes_w, name="in_beat1")
        m.d.sync += beat1.eq(parts[0])
        m.d.comb += [op["valid"].eq(Mux(take, self._index + 1, 0)), op["k"].eq(ld), op["last"].eq(ld == plan.H - 1),
                     op["first"].eq(ld == 0)]
        m.d.comb += rd[step.mem2].addr.eq(ld)
        self._multiply(m, plan, wires, beat1, rd[step.mem2].data, wr[first], op.at("k", DEPTH["in"]),
                       self._mine(op, DEPTH["in"]))
        return None

    def _multiply(self, m, plan, wires, a, b, dest, addr, en):
        """dest[addr] = a (.) b lane by lane on the MulAdds (a, b this cycle; addr, en at the
        write, MulAdd.depth later)."""
        w = plan.K + 1
        for k, ma in enumerate(wires.muls):
            self._data(ma.a, wires.lanes(a, w)[k])
            self._data(ma.b, wires.lanes(b, w)[k])
            self._data(ma.c, self._zero)
        m.d.comb += [dest.addr.eq(addr), dest.en.eq(en)]
        self._data(dest.data, Cat(*(ma.o for ma in wires.muls)))

    def _shared_multiply(self, m, plan, wires, a, b, c, dest, a_word=None, advance=None):
        """dest = a (.) b (+ c) on the one MulAdd, one coefficient a cycle: issue Lk + l reads
        word k of the stores (a_word: a's word is that register, the beat the cycle after the
        issue) and multiplies its lane l; an issue only when `advance`. The word's L products
        are gathered and written with the last (in place is safe: word k is not read again).
        Returns the last write."""
        rd, sm, k, lane = wires.rd, wires.sm, wires.sm_k, wires.sm_l
        L, H, w = plan.lanes, plan.H, plan.K + 1
        issue = (k < H) & (1 if advance is None else advance)
        m.d.comb += [sm["valid"].eq(issue), sm["k"].eq(k), sm["l"].eq(lane)]
        m.d.comb += [rd[name].addr.eq(k) for name in (a, b, c) if name]
        with m.If(issue):
            m.d.sync += [lane.eq(Mux(lane == L - 1, 0, lane + 1)), k.eq(Mux(lane == L - 1, k + 1, k))]
        ma, at = wires.muls[0], sm.at("l", 1)            # lane sm_l of the words, a cycle after the issue
        self._data(ma.a, self._lane(at, rd[a].data if a_word is None else a_word, w))
        self._data(ma.b, self._lane(at, rd[b].data, w))
        self._data(ma.c, self._lane(at, rd[c].data, w) if c else self._zero)
        d = DEPTH["pass_mul1"]
        valid, last_lane = sm.at("valid", d), sm.at("l", d) == L - 1
        m.d.comb += [wires.wr[dest].addr.eq(sm.at("k", d)), wires.wr[dest].en.eq(valid & last_lane)]
        self._data(wires.wr[dest].data, self._product)
        return valid & last_lane & (sm.at("k", d) == H - 1)

    def _side_pass(self, m, plan, names, wires):
        """dest = a (.) b over H issues from the step's start, on its own counter and delay line."""
        rd, wr, side, k = wires.rd, wires.wr, wires.side, wires.side_k
        dest, a, b = names
        issue = k < plan.H
        m.d.comb += [side["valid"].eq(issue), side["k"].eq(k), rd[a].addr.eq(k), rd[b].addr.eq(k)]
        with m.If(issue):
            m.d.sync += k.eq(k + 1)
        d = DEPTH["pass_mul"]
        self._multiply(m, plan, wires, rd[a].data, rd[b].data, wr[dest], side.at("k", d), side.at("valid", d))

    def _pass_step(self, m, plan, step, wires):
        """A time-domain pass: H reads of a store through its units into stores."""
        rd, wr, sk, op, carry, parity, pick = (wires.rd, wires.wr, wires.sk, wires.op, wires.carry, wires.parity,
                                               wires.pick)
        j, d_high, seg, seg_now = wires.j, wires.d_high, wires.seg, wires.seg_now
        mod_r, sub_d, add_t, sub_n, halver = wires.mod_r, wires.sub_d, wires.add_t, wires.sub_n, wires.halver
        H, du = plan.H, plan.lanes * plan.params.u
        mask = (1 << du) - 1
        issue = sk < H
        m.d.comb += [op["valid"].eq(Mux(issue, self._index + 1, 0)), op["k"].eq(sk), op["last"].eq(sk == H - 1),
                     op["first"].eq(sk == 0)]
        with m.If(issue):
            m.d.sync += sk.eq(sk + 1)
        src = step.src
        m.d.comb += rd[src].addr.eq(sk)
        data = rd[src].data
        first1 = op.at("first", 1)
        if step.sink == "pass_mul":                   # dest = src (.) mem2, lane by lane
            d = DEPTH[step.sink]
            m.d.comb += rd[step.mem2].addr.eq(sk)
            self._multiply(m, plan, wires, data, rd[step.mem2].data, wr[step.dest], op.at("k", d),
                           self._mine(op, d))
        elif step.sink == "pass_m":
            m.d.comb += mod_r.first.eq(first1)
            self._data(mod_r.a, data)
            self._data(mod_r.c, carry)
            for name, value in (("A", mod_r.plain), ("B", mod_r.plus)):
                m.d.comb += [wr[name].addr.eq(op.at("k", 2)), wr[name].en.eq(self._mine(op, 2))]
                self._data(wr[name].data, value)
            with m.If(self._mine(op, 2) & op.at("last", 2)):
                m.d.sync += pick.eq(mod_r.select)
        elif step.sink == "pass_d":
            # D = (c2 + 2) - A + 2^(uP+1): e = c2 + 2's segments (arithmetic shifts) minus A's
            e = carry + 2
            m.d.sync += seg.eq(Mux(first1, e >> du, seg >> du))
            m.d.comb += seg_now.eq(Mux(first1, e, seg)[:du])
            m.d.comb += [sub_d.first.eq(first1), sub_d.cin.eq(0)]
            self._data(sub_d.a, seg_now)
            self._data(sub_d.b, data)
            m.d.comb += [wr["B"].addr.eq(op.at("k", 2)), wr["B"].en.eq(self._mine(op, 2))]
            self._data(wr["B"].data, sub_d.o)
            seg0, rest_zero, e_neg = Signal(2, name="d_seg0"), Signal(name="d_rest_zero"), Signal(name="e_neg")
            low_small = Signal(2, name="d_low_small")         # D's low bits: 0, 1, else 2
            with m.If(self._mine(op, 2) & op.at("first", 2)):
                m.d.sync += [seg0.eq(sub_d.o[:2]), rest_zero.eq(1), e_neg.eq(e < 0),
                             low_small.eq(Mux(sub_d.o[2:] == 0, Mux(sub_d.o[1], 2, sub_d.o[0]), 2))]
            with m.Elif(self._mine(op, 2) & (sub_d.o != 0)):
                m.d.sync += rest_zero.eq(0)
            # with the last segment: D's high bits, j0, j (multiplier.pass_d, pass_t)
            with m.If(self._mine(op, 2) & op.at("last", 2)):
                high = Signal(2, name="d_high_now")
                small = Mux(rest_zero & (sub_d.o == 0), low_small, 2)
                m.d.comb += high.eq(2 - e_neg - sub_d.cout)
                at_least_2q = (high == 2) & (small == 2)
                at_least_q = (high == 2) | ((high == 1) & (small != 0))
                j0 = Signal(signed(3), name="j0")
                m.d.comb += j0.eq(Mux(at_least_2q, -2, Mux(at_least_q, -1, 0)))
                delta = (Cat(Const(0, 1), parity) - seg0 - j0)[:2]
                m.d.sync += [j.eq(j0 + delta), d_high.eq(high)]
        else:   # pass_t: 2t = D + j Q' = (B + j) + (D_high + j) 2^(uP); halve; t - N
            jext = Signal(du, name="j_seg")
            m.d.comb += jext.eq(Mux(first1, j.as_signed(), Mux(j < 0, mask, 0)))
            m.d.comb += [add_t.first.eq(first1), add_t.cin.eq(0)]
            self._data(add_t.a, data)
            self._data(add_t.b, jext)
            t_high = Signal(signed(5), name="t_high")
            m.d.comb += t_high.eq(d_high + j + add_t.cout - (j < 0))
            self._data(halver.d, add_t.o)
            m.d.comb += [halver.valid.eq(self._mine(op, 2)), halver.last.eq(op.at("last", 2)),
                         halver.top.eq(t_high[0])]
            top_bit = Signal(name="t_top")                    # bit uP of t
            with m.If(self._mine(op, 2) & op.at("last", 2)):
                m.d.sync += top_bit.eq(t_high[1])
            m.d.comb += rd["ND"].addr.eq(op.at("k", 3))
            m.d.comb += [sub_n.first.eq(op.at("first", 4)), sub_n.cin.eq(0)]
            self._data(sub_n.a, halver.o)
            self._data(sub_n.b, rd["ND"].data)
            half = Signal(du, name="t_half")
            m.d.sync += half.eq(halver.o)
            for name, value in (("A", half), ("B", sub_n.o)):
                m.d.comb += [wr[name].addr.eq(op.at("k", 5)), wr[name].en.eq(self._mine(op, 5))]
                self._data(wr[name].data, value)
            with m.If(self._mine(op, 5) & op.at("last", 5)):
                m.d.sync += pick.eq(top_bit | ~sub_n.cout)

