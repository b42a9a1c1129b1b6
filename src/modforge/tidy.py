"""Tidy Amaranth's RTLIL before Yosys writes it out as Verilog, so the Verilog is clean under
`verilator --lint-only -Wall` without changing what it computes.

Amaranth's netlist is exact but its Verilog is sloppy in ways only a linter sees:
- every named Signal gets a wire even when it only renames a slice or a concatenation that
  the logic reads through other wires, and logic whose result nothing reads stays in;
- an operator's result keeps bits that nothing reads (`(a + b)[:n]`);
- operands narrower than the operation rely on Verilog's implicit extension (`a + b` with
  a 4-bit a and a 9-bit result; `x == 0` with a zero-width 0);
- zero-width signals become `wire [-1:0]`;
- a submodule's name joins the hierarchy with dots, so its file cannot be named after it.

`tidy` removes what no output depends on (bit-exact liveness from the outputs, memory writes
and submodule instances), narrows an operator to the low bits that are read (its low result
bits depend only on its operands' low bits), writes every operand extension explicitly (zero
or sign, as the operator's semantics already extend it), drops zero-width wires and renames
submodules `top.sub` to `top__sub`. Yosys's own clean-up (`opt_clean`) cannot do the first part:
it skips modules that still have processes, and `proc -nomux` keeps them for readable
`if`/`case` blocks. The netlists before and after are equivalent; synthesis gives the same result.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

Bit = tuple[str, int] | str    # (wire, index) or a constant bit '0', '1', 'x', 'z', '-'

# operators whose low result bits depend only on their operands' low bits: they can be narrowed
PREFIX_OPS = {"$add", "$sub", "$mul", "$neg", "$not", "$pos", "$and", "$or", "$xor", "$xnor", "$shl", "$mux"}
# operators evaluated at the result's width: their operands are extended to it (B of a shift is its amount)
EXTEND_TO_Y = {"$add", "$sub", "$mul", "$neg", "$not", "$pos", "$and", "$or", "$xor", "$xnor", "$shl", "$shr",
               "$sshr"}
SHIFTS = {"$shl", "$shr", "$sshr"}
# comparisons: their operands are extended to the wider of the two
COMPARE = {"$eq", "$ne", "$lt", "$le", "$gt", "$ge"}
OUTPUTS = {"$dff": ("Q",), "$memrd_v2": ("DATA",), "$memrd": ("DATA",)}   # default: ("Y",)
NO_OUTPUTS = {"$memwr_v2", "$memwr", "$meminit_v2", "$meminit", "$print", "$check", "$assert", "$assume"}


def _tokens(text: str) -> list[str]:
    return text.split()


def _take_sig(toks: list[str], pos: int) -> tuple[list[str], int]:
    """The tokens of one sigspec starting at toks[pos]: a constant, a wire with an optional
    [range] token, or a { ... } concatenation."""
    if toks[pos] == "{":
        end = toks.index("}", pos)
        return toks[pos:end + 1], end + 1
    if pos + 1 < len(toks) and toks[pos + 1].startswith("["):
        return toks[pos:pos + 2], pos + 2
    return toks[pos:pos + 1], pos + 1


CONST = re.compile(r"(\d+)'([01xzm-]*)")


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
            const = CONST.fullmatch(t)
            if const:
                parts.append(list(reversed(const.group(2))))
                pos += 1
                continue
            if re.fullmatch(r"-?\d+", t):             # a plain integer: 32 bits
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
            raise ValueError(f"tidy: unexpected RTLIL line in module {m.name}: {line!r}")
    for item, body in cells:
        for line in body:
            s = line.split(None, 2)
            if s[0] == "parameter":
                item.params[s[1]] = s[2]
            else:
                item.conns[s[1].lstrip("\\")] = m.bits(_tokens(s[2]))
    return i


def _analyse(m: Module, outputs: dict[str, set[str]]) -> None:
    """Fill every item's reads and drives; mark the roots."""
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
            toks = _tokens(item.lines[-1])[1:]
            lhs, pos = _take_sig(toks, 0)
            item.drives = m.bits(lhs)
            item.reads = m.bits(toks[pos:])
            item.sources = {b: [r] for b, r in zip(item.drives, item.reads, strict=True)}
            item.conditions = []
        elif item.kind == "process":
            item.sources, item.conditions = {}, []
            for line in item.lines:
                toks = _tokens(line)
                if toks[0] == "assign":
                    lhs, pos = _take_sig(toks, 1)
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


BITWISE = {"$and", "$or", "$xor", "$xnor", "$not", "$pos", "$mux"}


def _reads_of_bit(item: Item, k: int) -> list[Bit]:
    """The operand bits result bit k of an operator depends on (its other operand bits
    do not matter for it): bit k of a bitwise operator, bits 0..k of an arithmetic one."""
    out: list[Bit] = []
    for port in ("A", "B"):
        bits = item.conns.get(port, [])
        if not bits:
            continue
        signed = item.params.get(f"\\{port}_SIGNED") == "1"
        if port == "B" and item.type in SHIFTS:
            out += bits                                   # the shift amount
        elif item.type in BITWISE:
            out += [bits[k]] if k < len(bits) else [bits[-1]] if signed else []
        else:
            out += bits[:k + 1] if k < len(bits) or not signed else bits
    return out + item.conns.get("S", [])


def _whole_y(m: Module, item: Item) -> Wire | None:
    """The wire an operator's result is, if it is one whole non-port wire (it can be narrowed)."""
    y = item.conns.get("Y", [])
    wire = m.wires.get(y[0][0]) if y and not isinstance(y[0], str) else None
    if wire is None or wire.port or y != [(wire.name, k) for k in range(wire.width)]:
        return None
    return wire


def _exact_cells(m: Module) -> set[int]:
    """The operators whose unread result bits tidy removes (_narrow, _drop_low_bits), so that
    liveness may go through them bit by bit: narrowing a producer never cuts a bit a
    remaining reference names."""
    out = set()
    for item in m.items:
        # an addition keeps its width: Yosys builds its adder trees (alumacc) from the widths
        # it is given, and narrowed additions map to more carry logic (ntt-polymul n=16
        # k2red-shift on xcup: +28 CARRY8, +47 LUT); its unread top bits are waived instead
        if item.kind != "cell" or item.type not in PREFIX_OPS or item.type == "$add":
            continue
        wire = _whole_y(m, item)
        if wire is not None and (item.type not in BITWISE or wire.name.startswith("$")):
            out.add(id(item))
    return out


def _live(m: Module, exact: bool) -> set[Bit]:
    """Bits some output, memory write or submodule instance depends on. Exact: through the
    operators, processes and connects whose unread bits tidy then removes, bit by bit (a
    process or connect: the bits up to the read one, or only it where low bits go too);
    otherwise an item needed for one bit reads all its inputs."""
    driver: dict[Bit, tuple[Item, int]] = {}
    for item in m.items:
        for k, b in enumerate(item.drives):
            driver[b] = (item, k)
    exact_cells = _exact_cells(m) if exact else set()
    live: set[Bit] = set()
    work: list[Bit] = [(w.name, k) for w in m.wires.values() if w.output for k in range(w.width)]
    done: set[int] = set()
    upto: dict[str, int] = {}               # process/connect wires: sources marked below this bit
    for item in m.items:
        if item.root:
            work += item.reads
            done.add(id(item))
    while work:
        b = work.pop()
        if isinstance(b, str) or b in live:
            continue
        live.add(b)
        if b not in driver:
            continue
        item, k = driver[b]
        if id(item) in exact_cells:
            work += _reads_of_bit(item, k)
        elif exact and item.kind in ("process", "connect"):
            if id(item) not in done:
                done.add(id(item))
                work += item.conditions
            wire = m.wires[b[0]]
            mine = all((wire.name, j) in item.sources for j in range(wire.width))
            if not mine or wire.port:
                top = wire.width                                    # kept whole: every bit's sources
            elif item.kind == "connect" and wire.name.startswith("$") and item.drives == [
                    (wire.name, j) for j in range(wire.width)]:
                work += item.sources[b]                             # low bits go too: this bit alone
                continue
            else:
                top = b[1] + 1                                      # cut above the highest read bit
            for j in range(upto.get(wire.name, 0), top):
                work += item.sources[(wire.name, j)]
            upto[wire.name] = max(upto.get(wire.name, 0), top)
        elif id(item) not in done:
            done.add(id(item))
            work += item.reads
    return live


def _narrow(m: Module, item: Item, live: set[Bit], exact_cells: set[int]) -> None:
    """Drop the result bits of an operator above the highest one that is read."""
    if id(item) not in exact_cells:
        return
    y = item.conns["Y"]
    width = max((k + 1 for k, b in enumerate(y) if b in live), default=0)
    name = y[0][0] if y and not isinstance(y[0], str) else ""
    wire = m.wires.get(name)
    if (width == len(y) or width == 0 or wire is None or wire.port
            or y != [(name, k) for k in range(wire.width)]):
        return
    _set_width(wire, width)
    item.conns["Y"] = y[:width]
    mux = item.type == "$mux"
    item.params["\\WIDTH" if mux else "\\Y_WIDTH"] = str(width)
    for port in ("A", "B") if item.type not in SHIFTS else ("A",):
        if port in item.conns and len(item.conns[port]) > width:
            item.conns[port] = item.conns[port][:width]
            if not mux:
                item.params[f"\\{port}_WIDTH"] = str(width)


def _narrow_process(m: Module, item: Item, live: set[Bit]) -> None:
    """Drop the assignments to bits of a wire (driven by this process alone) above the
    highest one that is read."""
    widths: dict[str, int] = {}
    for b in item.drives:
        assert not isinstance(b, str)
        widths[b[0]] = max(widths.get(b[0], 0), b[1] + 1 if b in live else 0)
    cut = {}
    for name, width in widths.items():
        wire = m.wires[name]
        whole = all((name, k) in item.sources for k in range(wire.width))
        if whole and not wire.port and 0 < width < wire.width:
            cut[name] = width
    if not cut:
        return
    lines = []
    for line in item.lines:
        toks = _tokens(line)
        if toks and toks[0] in ("assign", "connect"):
            lhs, pos = _take_sig(toks, 1)
            pairs = [(b, r) for b, r in zip(m.bits(lhs), m.bits(toks[pos:]), strict=True)
                     if isinstance(b, str) or b[1] < cut.get(b[0], b[1] + 1)]
            if not pairs:
                continue
            indent = line[:len(line) - len(line.lstrip())]
            line = f"{indent}{toks[0]} {sigspec([b for b, _ in pairs])} {sigspec([r for _, r in pairs])}"
        lines.append(line)
    item.lines = lines
    for name, width in cut.items():
        _set_width(m.wires[name], width)


def _drop_low_bits(m: Module, live: set[Bit]) -> None:
    """A bitwise operator whose low result bits are not read computes only the bits from the
    lowest read one up (bit k of its result depends on bit k of its operands alone); its
    (internal) result wire is renumbered from there."""
    offsets: dict[str, int] = {}
    for item in m.items:
        if item.kind == "connect":              # a slice or concatenation: bitwise too
            toks = _tokens(item.lines[-1])
            lhs, pos = _take_sig(toks, 1)
            y, x = m.bits(lhs), m.bits(toks[pos:])
            wire = m.wires.get(y[0][0]) if y and not isinstance(y[0], str) else None
            if wire is None or not wire.name.startswith("$") or y != [(wire.name, k) for k in range(wire.width)]:
                continue
            low = min((k for k, b in enumerate(y) if b in live), default=0)
            if low:
                item.lines[-1] = f"connect {sigspec(y[low:])} {sigspec(x[low:])}"
                offsets[wire.name] = low
            continue
        if item.kind != "cell" or item.type not in BITWISE:
            continue
        y = item.conns["Y"]
        wire = m.wires.get(y[0][0]) if y and not isinstance(y[0], str) else None
        if wire is None or wire.port or not wire.name.startswith("$") or y != [(wire.name, k) for k in
                                                                             range(wire.width)]:
            continue
        low = min((k for k, b in enumerate(y) if b in live), default=0)
        if low == 0:
            continue
        _explicit_widths(item)                  # operands at the result's width, then sliced
        for port in ("A", "B", "Y"):
            if port in item.conns:
                item.conns[port] = item.conns[port][low:]
                if item.type != "$mux":
                    item.params[f"\\{port}_WIDTH"] = str(len(item.conns[port]))
        if item.type == "$mux":
            item.params["\\WIDTH"] = str(len(y) - low)
        offsets[wire.name] = low

    if not offsets:
        return

    def moved(bits: list[Bit]) -> list[Bit]:
        return [b if isinstance(b, str) or b[0] not in offsets else (b[0], b[1] - offsets[b[0]]) for b in bits]

    for item in m.items:
        if item.kind == "cell":
            item.conns = {port: moved(bits) for port, bits in item.conns.items()}
        elif item.kind in ("process", "connect"):
            item.lines = [_render_process_line(m, line, moved) for line in item.lines]
    for name, low in offsets.items():
        _set_width(m.wires[name], m.wires[name].width - low)


def _set_width(wire: Wire, width: int) -> None:
    wire.width = width
    wire.lines[-1] = re.sub(r"width \d+", f"width {width}", wire.lines[-1])


def _extend(item: Item, port: str, width: int) -> None:
    bits = item.conns[port]
    if len(bits) >= width:
        return
    # Verilog (and Yosys) sign-extend only when every operand of the expression is signed
    ports = (port,) if item.type in SHIFTS or "B" not in item.conns else ("A", "B")
    signed = all(item.params.get(f"\\{p}_SIGNED") == "1" for p in ports)
    fill: Bit = bits[-1] if signed and bits else "0"
    item.conns[port] = bits + [fill] * (width - len(bits))
    item.params[f"\\{port}_WIDTH"] = str(width)


def _explicit_widths(item: Item) -> None:
    if item.type in EXTEND_TO_Y:
        width = int(item.params["\\Y_WIDTH"])
        _extend(item, "A", width)
        if "B" in item.conns and item.type not in SHIFTS:
            _extend(item, "B", width)
    elif item.type in COMPARE:
        width = max(len(item.conns["A"]), len(item.conns["B"]))
        _extend(item, "A", width)
        _extend(item, "B", width)


def _constant_shifts(m: Module) -> None:
    """A shift by a constant is a slice (with zero or sign bits): a connect, whose unread
    bits can go, instead of an operator with an unread part (`x >> 5`)."""
    for n, item in enumerate(m.items):
        b = item.conns.get("B", [])
        if (item.kind != "cell" or item.type not in SHIFTS or item.params.get("\\B_SIGNED") == "1"
                or not all(c in ("0", "1") for c in b)):
            continue
        shift = int("".join(str(c) for c in reversed(b)) or "0", 2)
        a, y = item.conns["A"], item.conns["Y"]
        signed = item.params.get("\\A_SIGNED") == "1"
        full = max(len(a), len(y))                      # the width the shift is computed at
        shift = min(shift, full)                        # all of it shifted out either way
        ext = a + [a[-1] if signed and a else "0"] * (full + shift)    # a, zero- or sign-extended
        if item.type == "$shl":
            bits = [ext[k - shift] if k >= shift else "0" for k in range(len(y))]
        elif item.type == "$sshr" and signed:
            bits = [ext[min(k + shift, full - 1)] for k in range(len(y))]
        else:
            bits = [ext[k + shift] if k + shift < full else "0" for k in range(len(y))]
        m.items[n] = Item("connect", [f"connect {sigspec(y)} {sigspec(bits)}"])


def _in_range_selects(m: Module) -> None:
    """A right shift of a wider value into a narrower result (`y = a >> b`, a bit_select) whose
    every shift amount stays inside the value is a part-select, `a[b +: w]`: the same bits,
    without an expression wider than what it is assigned to."""
    for item in m.items:
        if (item.kind == "cell" and item.type in ("$shr", "$shift") and item.params.get("\\B_SIGNED") != "1"
                and len(item.conns["A"]) > len(item.conns["Y"])
                and (1 << len(item.conns["B"])) - 1 + len(item.conns["Y"]) <= len(item.conns["A"])):
            item.type = "$shiftx"


def tidy_module(m: Module, outputs: dict[str, set[str]], renames: dict[str, str]) -> None:
    # every wire named with its bit range: a wire narrowed below keeps meaning the same bits
    for item in m.items:
        if item.kind in ("process", "connect"):
            item.lines = [_render_process_line(m, line) for line in item.lines]
    _constant_shifts(m)
    _in_range_selects(m)
    _analyse(m, outputs)
    live = _live(m, exact=True)
    exact_cells = _exact_cells(m)
    for item in m.items:
        if item.kind == "cell" and item.type in PREFIX_OPS:
            _narrow(m, item, live, exact_cells)
        elif item.kind in ("process", "connect"):
            _narrow_process(m, item, live)
    _drop_low_bits(m, live)
    _analyse(m, outputs)
    live = _live(m, exact=False)        # what the narrowed operators still name is kept
    m.items = [item for item in m.items if item.root or any(b in live for b in item.drives)]
    for item in m.items:
        if item.kind == "cell":
            _explicit_widths(item)
            item.type = renames.get(item.type, item.type)
    used = {b[0] for item in m.items for b in item.reads + item.drives if not isinstance(b, str)}
    _waive_carry_bits(m)
    # a process or connect may still name a narrowed wire in full: re-render them from bits
    for item in m.items:
        if item.kind == "connect":
            item.lines[-1] = _render_connect(m, item)
        elif item.kind == "process":
            item.lines = _complete_switches(m, [_render_process_line(m, line) for line in item.lines])
    m.wires = {n: w for n, w in m.wires.items() if w.port or (n in used and w.width > 0)}


ARITH = {"$add", "$sub", "$mul", "$neg", "$shl"}
CARRY_BITS = ("not every bit of this sum, difference or product is read: low bits carry into the read ones; "
              "a sum keeps its width for synthesis")


def _waive_carry_bits(m: Module) -> None:
    """An arithmetic result read only above some bits (a product's high half, the +1 of an
    add/sub carried in through bit 0), or a sum kept at its width (_exact_cells), leaves bits
    unread, as it must: mark the wire (attribute lint_unused) so that design.py exempts its
    declaration from UNUSEDSIGNAL."""
    read = {b for item in m.items for b in item.reads if not isinstance(b, str)}
    for item in m.items:
        if item.kind != "cell" or item.type not in ARITH:
            continue
        y = item.conns["Y"]
        wire = m.wires.get(y[0][0]) if y and not isinstance(y[0], str) else None
        if wire is None or wire.port or y != [(wire.name, k) for k in range(wire.width)]:
            continue
        if any(b not in read for b in y):
            wire.lines.insert(-1, f"  attribute \\lint_unused \"{CARRY_BITS}\"")


def _complete_switches(m: Module, lines: list[str]) -> list[str]:
    """Give every multi-bit switch a default case (empty: the process's first assignments
    already give each signal its value when no case matches)."""
    out: list[str] = []
    stack: list[bool] = []      # per open switch: it needs a default
    for line in lines:
        toks = _tokens(line)
        word = toks[0] if toks else ""
        if word == "switch":
            stack.append(len(m.bits(toks[1:])) > 1)
        elif word == "case" and len(toks) == 1 and stack:
            stack[-1] = False
        elif word == "end" and stack and line.startswith(" " * 4):   # a switch's end (a process's is at 2)
            if stack.pop():
                out.append(line[:len(line) - len(line.lstrip())] + "  case")
        out.append(line)
    return out


def _render_connect(m: Module, item: Item) -> str:
    indent = item.lines[-1][:len(item.lines[-1]) - len(item.lines[-1].lstrip())]
    return f"{indent}connect {sigspec(item.drives)} {sigspec(item.reads)}"


def _render_process_line(m: Module, line: str,
                         move: Callable[[list[Bit]], list[Bit]] = lambda bits: bits) -> str:
    """A process line with its signals written out bit by bit (`move`: bits renumbered)."""
    toks = _tokens(line)
    indent = line[:len(line) - len(line.lstrip())]
    if toks and toks[0] in ("assign", "connect"):
        lhs, pos = _take_sig(toks, 1)
        return f"{indent}{toks[0]} {sigspec(move(m.bits(lhs)))} {sigspec(move(m.bits(toks[pos:])))}"
    if toks and toks[0] == "switch":
        return f"{indent}switch {sigspec(move(m.bits(toks[1:])))}"
    return line


def tidy(text: str, top: str) -> str:
    """Amaranth's RTLIL text of the design whose top module is `top`, tidied (see above)."""
    parts = parse(text)
    modules = [p for p in parts if isinstance(p, Module)]
    outputs = {m.name: {w.name.lstrip("\\") for w in m.wires.values() if w.output} for m in modules}
    renames = {}
    for m in modules:
        if m.name != f"\\{top}":
            renames[m.name] = "\\" + m.name.lstrip("\\").replace(".", "__")
    if len(set(renames.values()) | {f"\\{top}"}) != len(modules):
        raise ValueError(f"tidy: module names collide after renaming: {sorted(renames.values())}")
    out: list[str] = []
    for part in parts:
        if isinstance(part, list):
            out += part
            continue
        tidy_module(part, outputs, renames)
        head = part.head[:-1] + [f"module {renames.get(part.name, part.name)}"]
        out += head
        out += [line for w in part.wires.values() for line in w.lines]
        for item in part.items:
            out += item.render()
        out.append("end")
    return "\n".join(out) + "\n"
