"""A configuration loader: a valid/ready stream of words of three fields, low bits first
(data, word, sel: the plan's config_layout, whatever it names them), that write, while
`allow` is high, register `word` of a register file (sel 0) or word `word` of the memory
whose write port is `ports[sel]` (sel >= 1). The registers are this block's (their values
after reset: `init`); the memories stay their owner's, this block drives their write ports
(en, addr, data). A register or memory takes the low bits of data. A plain builder:
`build(m)` puts its logic into the caller's module m (no module of its own)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from amaranth.hdl import Module, Signal, Value
from amaranth.lib import data, stream

from .pipeline import register


class ConfigLoader:
    """cfg: the stream (a sink: connect a source to it); allow: take words now (drive it);
    registers: the register file's Signals."""

    def __init__(self, layout: data.StructLayout, registers: Iterable[tuple[str, int, int]],
                 ports: Mapping[int, Any] | None = None, registered: bool = False) -> None:
        """layout: the cfg payload's (the plan's config_layout: data, word, sel, low bits first);
        registers: (name, width, init) per register; ports: sel -> write port; registered: each
        write a cycle after its word is taken, from registers (the handshake's logic apart from
        write ports across the die; the owner reads no memory word the cycle after its write)."""
        self.registered = registered
        self.fields = [name for name, _ in layout]
        if len(self.fields) != 3:
            raise ValueError(f"a cfg payload is three fields (data, word, sel), got {self.fields}")
        self.registers = [Signal(width, init=init, name=name) for name, width, init in registers]
        self.ports = dict(ports or {})
        if 0 in self.ports:
            raise ValueError("sel 0 is the register file")
        self.cfg = stream.Signature(layout).flip().create(path=("cfg",))
        self.allow = Signal(name="allow")

    def build(self, m: Module) -> None:
        """The block's logic into module m."""
        cfg = self.cfg
        data, word, sel = (Value.cast(cfg.payload[name]) for name in self.fields)
        m.d.comb += cfg.ready.eq(self.allow)
        take: Value = cfg.valid & cfg.ready
        if self.registered:
            taken = Signal(name="cfg_r_take")              # control: reset
            m.d.sync += taken.eq(take)
            take = taken
            data, word, sel = (register(m, v, f"cfg_r_{n}") for v, n in ((data, "data"), (word, "word"), (sel, "sel")))
        for k, reg in enumerate(self.registers):
            # one `if` a register, not a case on `word`: a one-bit word with one register would
            # be a case that leaves word 1 out (verilator -Wall: CASEINCOMPLETE)
            with m.If(take & (sel == 0) & (word == k)):
                m.d.sync += reg.eq(data[:len(reg)])
        for s, port in self.ports.items():
            m.d.comb += [port.en.eq(take & (sel == s)), port.addr.eq(word), port.data.eq(data[:len(port.data)])]
