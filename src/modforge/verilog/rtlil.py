"""RTLIL text read into a small model and printed back: enough of Yosys's netlist format for
the passes of passes.py (Amaranth's RTLIL, and Yosys's `write_rtlil` of it).

A module is its wires and its items in order: cells (kept as fields and re-rendered),
processes, memories and connects (kept as text lines, re-rendered from bits where a pass
changes them). A sigspec is a list of bits, least significant first; a bit is a
(wire, index) pair or a constant character.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator

Bit = tuple[str, int] | str    # (wire, index) or a constant bit '0', '1', 'x', 'z', '-'

CONST = re.compile(r"(\d+)'(s?)([01xzm-]*)")
INTEGER = re.compile(r"-?\d+")
#: the ports a cell drives (default: Y); the cells that drive nothing (kept for their effect)
OUTPUTS = {"$dff": ("Q",), "$memrd_v2": ("DATA",), "$memrd": ("DATA",), "$mem_v2": ("RD_DATA",),
           "$mem": ("RD_DATA",)}
NO_OUTPUTS = {"$memwr_v2", "$memwr", "$meminit_v2", "$meminit", "$print", "$check", "$assert", "$assume"}


def const_bits(const: re.Match) -> list[Bit]:
    """The bits of a constant token (CONST), least significant first. Yosys writes an
    all-x constant short (`16'x`): fewer digits than bits extend with the top x or z, else 0."""
    width, body = int(const.group(1)), list(reversed(const.group(3)))
    fill = body[-1] if body and body[-1] in "xz" else "0"
    return body + [fill] * (width - len(body))


def tokens(text: str) -> list[str]:
    return text.split()


def take_sig(toks: list[str], pos: int) -> tuple[list[str], int]:
    """The tokens of one sigspec starting at toks[pos]: a constant, a wire with an optional
    [range] token, or a { ... } concatenation."""
    if toks[pos] == "{":
        end = toks.index("}", pos)
        return toks[pos:end + 1], end + 1
    if pos + 1 < len(toks) and toks[pos + 1].startswith("["):
        return toks[pos:pos + 2], pos + 2
    return toks[pos:pos + 1], pos + 1


def sigspec(bits: list[Bit]) -> str:
    """RTLIL text of bits (least significant first)."""
    chunks: list[str] = []
    k = 0
    while k < len(bits):
        b = bits[k]
        end = k + 1
        if isinstance(b, str):
            while end < len(bits) and isinstance(bits[end], str):
                end += 1
            chunks.append(f"{end - k}'" + "".join(str(c) for c in reversed(bits[k:end])))
        else:
            while end < len(bits) and bits[end] == (b[0], b[1] + end - k):
                end += 1
            chunks.append(f"{b[0]} [{b[1]}]" if end - k == 1 else f"{b[0]} [{b[1] + end - k - 1}:{b[1]}]")
        k = end
    if len(chunks) == 1:
        return chunks[0]
    return "{ " + " ".join(reversed(chunks)) + " }"


@dataclasses.dataclass
class Wire:
    name: str
    width: int
    port: bool
    output: bool
    lines: list[str]          # attribute lines, then the `wire` line

    def set_width(self, width: int) -> None:
        self.width = width
        self.lines[-1] = re.sub(r"width \d+", f"width {width}", self.lines[-1])

    def whole(self) -> list[Bit]:
        return [(self.name, k) for k in range(self.width)]


@dataclasses.dataclass
class Item:
    kind: str                 # cell, process, memory, connect
    lines: list[str]          # its text (cells are re-rendered from the fields below)
    type: str = ""
    name: str = ""
    attrs: list[str] = dataclasses.field(default_factory=list)
    params: dict[str, str] = dataclasses.field(default_factory=dict)
    conns: dict[str, list[Bit]] = dataclasses.field(default_factory=dict)
    reads: list[Bit] = dataclasses.field(default_factory=list)
    drives: list[Bit] = dataclasses.field(default_factory=list)
    root: bool = False        # kept whatever is read (side effects, submodule instances)
    sources: dict[Bit, list[Bit]] = dataclasses.field(default_factory=dict)  # process: bit <- assigned bits
    conditions: list[Bit] = dataclasses.field(default_factory=list)           # process: switch signals

    def render(self, indent: str = "  ") -> list[str]:
        if self.kind != "cell":
            return self.lines
        return [*self.attrs, f"{indent}cell {self.type} {self.name}",
                *(f"{indent}  parameter {k} {v}" for k, v in self.params.items()),
                *(f"{indent}  connect \\{port} {sigspec(bits)}" for port, bits in self.conns.items()),
                f"{indent}end"]


class Module:
    def __init__(self, name: str, head: list[str]):
        self.name = name
        self.head = head                    # attribute lines and the `module` line
        self.wires: dict[str, Wire] = {}
        self.items: list[Item] = []         # cells, processes, memories, connects, in order

    def bits(self, toks: list[str]) -> list[Bit]:
        """A sigspec's bits, least significant first."""
        out: list[Bit] = []
        pos = 0
        parts: list[list[Bit]] = []
        while pos < len(toks):
            t = toks[pos]
            if t in ("{", "}"):
                pos += 1
                continue
            const = CONST.fullmatch(t) if t[0].isdigit() else None
            if const:
                parts.append(const_bits(const))
                pos += 1
                continue
            if INTEGER.fullmatch(t):                   # a plain integer: 32 bits
                parts.append(list(format(int(t) & 0xFFFFFFFF, "032b")[::-1]))
                pos += 1
                continue
            wire = self.wires[t]
            lo, hi = 0, wire.width - 1
            if pos + 1 < len(toks) and toks[pos + 1].startswith("["):
                rng = toks[pos + 1][1:-1].split(":")
                hi, lo = int(rng[0]), int(rng[-1])
                pos += 1
            parts.append([(t, k) for k in range(lo, hi + 1)])
            pos += 1
        for part in reversed(parts):        # a concatenation lists its most significant part first
            out += part
        return out

    def whole_wire(self, bits: list[Bit], internal: bool = False) -> Wire | None:
        """The wire `bits` are, if they are one whole non-port wire (internal: named `$...`)."""
        wire = self.wires.get(bits[0][0]) if bits and not isinstance(bits[0], str) else None
        if (wire is None or wire.port or (internal and not wire.name.startswith("$"))
                or bits != wire.whole()):
            return None
        return wire

    def render_line(self, line: str, move: Callable[[list[Bit]], list[Bit]] = lambda bits: bits) -> str:
        """A process or connect line with its signals written out bit by bit (`move`: bits renumbered)."""
        toks = tokens(line)
        indent = line[:len(line) - len(line.lstrip())]
        if toks and toks[0] in ("assign", "connect"):
            lhs, pos = take_sig(toks, 1)
            return f"{indent}{toks[0]} {sigspec(move(self.bits(lhs)))} {sigspec(move(self.bits(toks[pos:])))}"
        if toks and toks[0] == "switch":
            return f"{indent}switch {sigspec(move(self.bits(toks[1:])))}"
        return line

    def named_bits(self, item: Item) -> Iterator[Bit]:
        """Every wire bit an item's text names (cells: their connections)."""
        if item.kind == "cell":
            for bits in item.conns.values():
                yield from bits
            return
        if item.kind == "memory":
            return
        for line in item.lines:
            toks = tokens(line)
            if toks and toks[0] in ("assign", "connect"):
                lhs, pos = take_sig(toks, 1)
                yield from self.bits(lhs)
                yield from self.bits(toks[pos:])
            elif toks and toks[0] == "switch":
                yield from self.bits(toks[1:])

    def lines(self) -> list[str]:
        return [*self.head[:-1], f"module {self.name}",
                *(line for w in self.wires.values() for line in w.lines),
                *(line for item in self.items for line in item.render()), "end"]


class Netlist:
    """Every module of an RTLIL text, and the text between them."""

    def __init__(self, text: str):
        self.parts = parse(text)

    @property
    def modules(self) -> list[Module]:
        return [p for p in self.parts if isinstance(p, Module)]

    def outputs(self) -> dict[str, set[str]]:
        """The output ports of every module, by module name (to tell a submodule instance's drives)."""
        return {m.name: {w.name.lstrip("\\") for w in m.wires.values() if w.output} for m in self.modules}

    def text(self) -> str:
        out: list[str] = []
        for part in self.parts:
            out += part.lines() if isinstance(part, Module) else part
        return "\n".join(out) + "\n"


def parse(text: str) -> list[Module | list[str]]:
    """The RTLIL text as modules (and any text between them)."""
    lines = text.splitlines()
    out: list[Module | list[str]] = []
    pending: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        s = line.split()
        if s and s[0] == "module":
            module = Module(s[1], pending + [line])
            pending = []
            i = _parse_body(module, lines, i + 1)
            out.append(module)
            continue
        pending.append(line)
        i += 1
    out.append(pending)
    return out


def _parse_body(m: Module, lines: list[str], i: int) -> int:
    attrs: list[str] = []
    cells: list[tuple[Item, list[str]]] = []    # parsed once every wire is known
    while True:
        line = lines[i]
        s = line.split()
        i += 1
        if not s:
            continue
        word = s[0]
        if word == "end":
            break
        if word == "attribute":
            attrs.append(line)
        elif word == "wire":
            width = int(s[s.index("width") + 1]) if "width" in s else 1
            port = "input" in s or "output" in s or "inout" in s
            m.wires[s[-1]] = Wire(s[-1], width, port, "output" in s or "inout" in s, attrs + [line])
            attrs = []
        elif word == "cell":
            body = []
            while lines[i].split()[:1] != ["end"]:
                body.append(lines[i])
                i += 1
            i += 1
            item = Item("cell", [], type=s[1], name=s[2], attrs=attrs)
            attrs = []
            cells.append((item, body))
            m.items.append(item)
        elif word in ("process", "memory"):
            block = attrs + [line]
            attrs = []
            if word == "process":
                depth = 1
                while depth:
                    t = lines[i].split()[:1]
                    depth += t in (["switch"], ["process"]) and 1 or 0
                    depth -= t == ["end"] and 1 or 0
                    block.append(lines[i])
                    i += 1
            m.items.append(Item(word, block))
        elif word == "connect":
            m.items.append(Item("connect", attrs + [line]))
            attrs = []
        else:
            raise ValueError(f"rtlil: unexpected line in module {m.name}: {line!r}")
    for item, body in cells:
        for line in body:
            s = line.split(None, 2)
            if s[0] == "parameter":
                item.params[s[1]] = s[2]
            else:
                item.conns[s[1].lstrip("\\")] = m.bits(tokens(s[2]))
    return i


def analyse(m: Module, outputs: dict[str, set[str]]) -> None:
    """Fill every item's reads and drives; mark the roots (kept whatever is read: memory
    writes, effects, submodule instances, memories)."""
    for item in m.items:
        item.reads, item.drives = [], []
        if item.kind == "cell":
            if item.type in outputs:                     # a submodule instance
                item.root = True
                for port, bits in item.conns.items():
                    (item.drives if port in outputs[item.type] else item.reads).extend(bits)
                continue
            outs = () if item.type in NO_OUTPUTS else OUTPUTS.get(item.type, ("Y",))
            item.root = item.type in NO_OUTPUTS
            for port, bits in item.conns.items():
                (item.drives if port in outs else item.reads).extend(bits)
        elif item.kind == "connect":
            toks = tokens(item.lines[-1])[1:]
            lhs, pos = take_sig(toks, 0)
            item.drives = m.bits(lhs)
            item.reads = m.bits(toks[pos:])
            item.sources = {b: [r] for b, r in zip(item.drives, item.reads, strict=True)}
            item.conditions = []
        elif item.kind == "process":
            item.sources, item.conditions = {}, []
            for line in item.lines:
                toks = tokens(line)
                if toks[0] == "assign":
                    lhs, pos = take_sig(toks, 1)
                    rhs = m.bits(toks[pos:])
                    for b, r in zip(m.bits(lhs), rhs, strict=True):
                        item.sources.setdefault(b, []).append(r)
                    item.reads += rhs
                elif toks[0] == "switch":
                    item.conditions += m.bits(toks[1:])
            item.drives = list(item.sources)
            item.reads += item.conditions
        else:                                            # a memory: kept, read through its ports
            item.root = True
