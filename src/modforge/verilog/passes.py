"""The named rewrites of Amaranth's RTLIL that make its Verilog clean under
`verilator --lint-only -Wall`, and the optimisations among them.

Amaranth's netlist is exact but its Verilog is sloppy in ways only a linter sees:
- every named Signal gets a wire even when it only renames a slice or a concatenation that
  the logic reads through other wires, and logic whose result nothing reads stays in;
- an operator's result keeps bits that nothing reads (`(a + b)[:n]`);
- operands narrower than the operation rely on Verilog's implicit extension (`a + b` with
  a 4-bit a and a 9-bit result; `x == 0` with a zero-width 0);
- zero-width signals become `wire [-1:0]`;
- a submodule's name joins the hierarchy with dots, so its file cannot be named after it.

Each pass is a function of a Netlist (rtlil.py) that rewrites it in place, run in the order
of PASSES; each keeps what the design computes at its ports, cycle by cycle (proof.py
proves it with Yosys for every pass on a design of every family: tests/verilog/).
Yosys's own clean-up (`opt_clean`) cannot do the dead-logic part: it skips modules that still
have processes, and Amaranth's processes stay processes, for readable `if`/`case` blocks.

Two kinds (Pass.kind):
- clean-ups ("lint"; the waiver pass "waiver"): needed for lint-clean Verilog, whatever they
  do to synthesis;
- optimisations (OPTIMISATIONS, options of the `trim` pass): drop the result bits nothing
  reads; they serve lint too (an unread bit is an UNUSEDSIGNAL warning) but change what
  Yosys builds, and are measured one by one (benchmarks/verilog_passes.md).
Yosys runs two passes before these (export.py): `proc_clean`, a clean-up, and `share`
(opt_merge), an optimisation for the simulators.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable

from . import waivers
from .rtlil import Bit, Item, Module, Netlist, analyse, sigspec, take_sig, tokens

# operators whose low result bits depend only on their operands' low bits: they can be narrowed
PREFIX_OPS = {"$add", "$sub", "$mul", "$neg", "$not", "$pos", "$and", "$or", "$xor", "$xnor", "$shl", "$mux"}
# operators evaluated at the result's width: their operands are extended to it (B of a shift is its amount)
EXTEND_TO_Y = {"$add", "$sub", "$mul", "$neg", "$not", "$pos", "$and", "$or", "$xor", "$xnor", "$shl", "$shr",
               "$sshr"}
SHIFTS = {"$shl", "$shr", "$sshr"}
# comparisons: their operands are extended to the wider of the two
COMPARE = {"$eq", "$ne", "$lt", "$le", "$gt", "$ge"}
BITWISE = {"$and", "$or", "$xor", "$xnor", "$not", "$pos", "$mux"}

#: the optimisations, all on by default: options of the `trim` pass
OPTIMISATIONS = {
    "narrow": "an operator, process or connect computes only up to the highest result bit that is read",
    "drop_low": "a bitwise operator or an internal slice computes only from the lowest result bit that is read",
    "keep_add_width": "an addition keeps its full width (not narrowed): Yosys's alumacc builds its adder trees "
                      "from the widths it is given, and narrowed additions map to more carry logic "
                      "(ntt-polymul n=16 k2red-shift on xcup: +28 CARRY8, +47 LUT); its unread top bits are waived",
}
DEFAULT_OPTIMISATIONS = frozenset(OPTIMISATIONS)


@dataclasses.dataclass
class Context:
    """What a pass may depend on besides the netlist."""
    top: str                                           # the top module's name (without the backslash)
    optimisations: frozenset[str] = DEFAULT_OPTIMISATIONS


# ---- clean-ups ------------------------------------------------------------------------

def ranges(net: Netlist, ctx: Context) -> None:
    """Write every signal of a process or connect with its bit range (`\\w` -> `\\w [7:0]`).
    The same bits, named so that a wire narrowed later keeps meaning the same bits."""
    for m in net.modules:
        for item in m.items:
            if item.kind in ("process", "connect"):
                item.lines = [m.render_line(line) for line in item.lines]


def shift_slices(net: Netlist, ctx: Context) -> None:
    """A shift by a constant is a slice (with zero or sign bits): a connect, whose unread
    bits can go, instead of an operator with an unread part (`x >> 5`). The bits are the ones
    the shift selects at its evaluation width (max of operand and result), so the value is the same."""
    for m in net.modules:
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


def part_selects(net: Netlist, ctx: Context) -> None:
    """A right shift of a wider value into a narrower result (`y = a >> b`, a bit_select) whose
    every shift amount stays inside the value is a part-select, `a[b +: w]` ($shiftx): the same
    bits (no amount reaches past the value, where $shiftx would give x), without an expression
    wider than what it is assigned to."""
    for m in net.modules:
        for item in m.items:
            if (item.kind == "cell" and item.type in ("$shr", "$shift") and item.params.get("\\B_SIGNED") != "1"
                    and len(item.conns["A"]) > len(item.conns["Y"])
                    and (1 << len(item.conns["B"])) - 1 + len(item.conns["Y"]) <= len(item.conns["A"])):
                item.type = "$shiftx"


def dead(net: Netlist, ctx: Context) -> None:
    """Remove the items (cells, processes, connects) that drive no bit an output, a memory
    write or a submodule instance depends on: nothing observable reads what they compute."""
    outputs = net.outputs()
    for m in net.modules:
        analyse(m, outputs)
        live = _live(m, frozenset())
        m.items = [item for item in m.items if item.root or any(b in live for b in item.drives)]


def extend(net: Netlist, ctx: Context) -> None:
    """Write every operand extension explicitly: an operand narrower than its operator's
    evaluation width gets the zero or sign bits Verilog (and Yosys) would extend it with
    (WIDTHEXPAND), so the operator computes on the same values."""
    for m in net.modules:
        for item in m.items:
            if item.kind == "cell":
                _explicit_widths(item)


def rename(net: Netlist, ctx: Context) -> None:
    """Rename submodules `top.sub` to `top__sub` (modules and the cells that instantiate
    them), so each can be a file named after it. Names only: the hierarchy is the same."""
    renames = {m.name: "\\" + m.name.lstrip("\\").replace(".", "__") for m in net.modules if m.name != f"\\{ctx.top}"}
    if len(set(renames.values()) | {f"\\{ctx.top}"}) != len(net.modules):
        raise ValueError(f"verilog: module names collide after renaming: {sorted(renames.values())}")
    for m in net.modules:
        m.name = renames.get(m.name, m.name)
        for item in m.items:
            if item.kind == "cell":
                item.type = renames.get(item.type, item.type)


def defaults(net: Netlist, ctx: Context) -> None:
    """Give every multi-bit switch a default case (CASEINCOMPLETE). It is empty: a process's
    first assignments already give each signal its value when no case matches. Connects and
    process lines are written out again from their bits (no change of value)."""
    outputs = net.outputs()
    for m in net.modules:
        analyse(m, outputs)
        for item in m.items:
            if item.kind == "connect":
                indent = item.lines[-1][:len(item.lines[-1]) - len(item.lines[-1].lstrip())]
                item.lines[-1] = f"{indent}connect {sigspec(item.drives)} {sigspec(item.reads)}"
            elif item.kind == "process":
                item.lines = _complete_switches(m, [m.render_line(line) for line in item.lines])


def wires(net: Netlist, ctx: Context) -> None:
    """Drop the wires nothing names (aliases the logic reads through other wires, the results
    of removed logic) and zero-width wires (`wire [-1:0]`); ports stay."""
    outputs = net.outputs()
    for m in net.modules:
        analyse(m, outputs)
        used = {b[0] for item in m.items for b in item.reads + item.drives if not isinstance(b, str)}
        m.wires = {n: w for n, w in m.wires.items() if w.port or (n in used and w.width > 0)}


# ---- the optimisations: one pass, `trim` ----------------------------------------------

def trim(net: Netlist, ctx: Context) -> None:
    """Drop the result bits nothing reads, as the optimisations in ctx allow (OPTIMISATIONS):
    `narrow` cuts an operator (its operands too), a process's or a connect's wire above the
    highest bit read; `drop_low` cuts a bitwise operator or an internal slice below the
    lowest bit read and renumbers its wire from there; `keep_add_width` exempts additions.
    A kept result bit depends only on kept operand bits (low result bits of +, -, *, <<
    on low operand bits alone; bit k of a bitwise operator on bit k), so every read bit keeps
    its value. The logic that only the dropped bits needed goes too (nothing reads it)."""
    outputs = net.outputs()
    opts = ctx.optimisations & {"narrow", "drop_low"}
    if not opts:
        return
    for m in net.modules:
        analyse(m, outputs)
        live = _live(m, ctx.optimisations)
        cells = _exact_cells(m, ctx.optimisations)
        if "narrow" in opts:
            for item in m.items:
                if item.kind == "cell" and id(item) in cells:
                    _narrow(m, item, live)
                elif item.kind in ("process", "connect"):
                    _narrow_process(m, item, live)
        if "drop_low" in opts:
            _drop_low_bits(m, live)
        _drop_dangling(m, live)


def _exact_cells(m: Module, optimisations: frozenset[str]) -> set[int]:
    """The operators whose unread result bits `trim` removes, so that liveness may go
    through them bit by bit: narrowed where read above (narrow), or below (drop_low,
    bitwise ones with an internal result)."""
    out = set()
    for item in m.items:
        if item.kind != "cell" or item.type not in PREFIX_OPS:
            continue
        if item.type == "$add" and "keep_add_width" in optimisations:
            continue
        wire = m.whole_wire(item.conns.get("Y", []))
        if wire is None or (item.type in BITWISE and not wire.name.startswith("$")):
            continue
        if "narrow" in optimisations or ("drop_low" in optimisations and item.type in BITWISE):
            out.add(id(item))
    return out


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


def _live(m: Module, optimisations: frozenset[str]) -> set[Bit]:
    """Bits some output, memory write or submodule instance depends on (analyse() first).

    Without optimisations an item needed for one bit reads all its inputs. With them, liveness goes through the items
    `trim` cuts bit by bit: such an item keeps a range of its wire's bits, from the lowest
    read one (drop_low; else bit 0) to the highest (narrow; else the top bit), and reads
    what every bit in that range depends on, so no kept bit names a dropped one."""
    driver: dict[Bit, tuple[Item, int]] = {}
    for item in m.items:
        for k, b in enumerate(item.drives):
            driver[b] = (item, k)
    high = "narrow" in optimisations
    low = "drop_low" in optimisations
    exact_cells = _exact_cells(m, optimisations) if high or low else set()
    live: set[Bit] = set()
    work: list[Bit] = [(w.name, k) for w in m.wires.values() if w.output for k in range(w.width)]
    done: set[int] = set()
    kept: dict[tuple[int, str], tuple[int, int]] = {}      # (item, wire): the range whose sources are marked
    for item in m.items:
        if item.root:
            work += item.reads
            done.add(id(item))

    def mark(item: Item, wire: str, k: int, width: int, cut_low: bool, cut_high: bool,
             reads: Callable[[int], list[Bit]]) -> None:
        lo, hi = kept.get((id(item), wire), (k + 1, k))     # empty
        new_lo = min(lo, k) if cut_low else 0
        new_hi = max(hi, k) if cut_high else width - 1
        for j in range(new_lo, new_hi + 1):
            if not lo <= j <= hi:
                work.extend(reads(j))
        kept[(id(item), wire)] = (new_lo, new_hi)

    while work:
        b = work.pop()
        if isinstance(b, str) or b in live:
            continue
        live.add(b)
        if b not in driver:
            continue
        item, k = driver[b]
        if id(item) in exact_cells:
            bitwise = item.type in BITWISE
            mark(item, "Y", k, len(item.conns["Y"]), low and bitwise, high, functools.partial(_reads_of_bit, item))
        elif (high or low) and item.kind in ("process", "connect"):
            if id(item) not in done:
                done.add(id(item))
                work += item.conditions
            wire = m.wires[b[0]]
            mine = all((wire.name, j) in item.sources for j in range(wire.width))
            internal = (item.kind == "connect" and wire.name.startswith("$")
                        and item.drives == wire.whole())
            mark(item, wire.name, b[1], wire.width, low and internal, high and mine and not wire.port,
                 functools.partial(_sources, item, wire.name))
        elif id(item) not in done:
            done.add(id(item))
            work += item.reads
    return live


def _sources(item: Item, wire: str, k: int) -> list[Bit]:
    return item.sources.get((wire, k), [])


def _narrow(m: Module, item: Item, live: set[Bit]) -> None:
    """Drop the result bits of an operator above the highest one that is read."""
    y = item.conns["Y"]
    width = max((k + 1 for k, b in enumerate(y) if b in live), default=0)
    wire = m.whole_wire(y)
    if width == len(y) or width == 0 or wire is None:
        return
    wire.set_width(width)
    item.conns["Y"] = y[:width]
    mux = item.type == "$mux"
    item.params["\\WIDTH" if mux else "\\Y_WIDTH"] = str(width)
    for port in ("A", "B") if item.type not in SHIFTS else ("A",):
        if port in item.conns and len(item.conns[port]) > width:
            item.conns[port] = item.conns[port][:width]
            if not mux:
                item.params[f"\\{port}_WIDTH"] = str(width)


def _narrow_process(m: Module, item: Item, live: set[Bit]) -> None:
    """Drop the assignments to bits of a wire (driven by this process or connect alone)
    above the highest one that is read."""
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
        toks = tokens(line)
        if toks and toks[0] in ("assign", "connect"):
            lhs, pos = take_sig(toks, 1)
            pairs = [(b, r) for b, r in zip(m.bits(lhs), m.bits(toks[pos:]), strict=True)
                     if isinstance(b, str) or b[1] < cut.get(b[0], b[1] + 1)]
            if not pairs:
                continue
            indent = line[:len(line) - len(line.lstrip())]
            line = f"{indent}{toks[0]} {sigspec([b for b, _ in pairs])} {sigspec([r for _, r in pairs])}"
        lines.append(line)
    item.lines = lines
    for name, width in cut.items():
        m.wires[name].set_width(width)


def _drop_low_bits(m: Module, live: set[Bit]) -> None:
    """A bitwise operator whose low result bits are not read computes only the bits from the
    lowest read one up (bit k of its result depends on bit k of its operands alone); its
    (internal) result wire is renumbered from there. An internal slice (connect) likewise."""
    offsets: dict[str, int] = {}
    for item in m.items:
        if item.kind == "connect":              # a slice or concatenation: bitwise too
            toks = tokens(item.lines[-1])
            lhs, pos = take_sig(toks, 1)
            y, x = m.bits(lhs), m.bits(toks[pos:])
            wire = m.whole_wire(y, internal=True)
            if wire is None:
                continue
            low = min((k for k, b in enumerate(y) if b in live), default=0)
            if low:
                item.lines[-1] = f"connect {sigspec(y[low:])} {sigspec(x[low:])}"
                offsets[wire.name] = low
            continue
        if item.kind != "cell" or item.type not in BITWISE:
            continue
        y = item.conns["Y"]
        wire = m.whole_wire(y, internal=True)
        if wire is None:
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
            item.lines = [m.render_line(line, moved) for line in item.lines]
    for name, low in offsets.items():
        m.wires[name].set_width(m.wires[name].width - low)


def _drop_dangling(m: Module, live: set[Bit]) -> None:
    """Remove the items that name a dropped bit: only logic nothing reads can (liveness kept
    every bit a read item names); a read one would be a bug of `trim`."""
    def dangling(item: Item) -> bool:
        return any(not isinstance(b, str) and not 0 <= b[1] < m.wires[b[0]].width for b in m.named_bits(item))
    keep = []
    for item in m.items:
        if not dangling(item):
            keep.append(item)
        elif item.root or any(b in live for b in item.drives):
            raise AssertionError(f"verilog.trim: {item.kind} {item.name} in {m.name} is read but names a dropped bit")
    m.items = keep


# ---- helpers ---------------------------------------------------------------------------

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


def _complete_switches(m: Module, lines: list[str]) -> list[str]:
    """Every multi-bit switch with a default case (an empty one)."""
    out: list[str] = []
    stack: list[bool] = []      # per open switch: it needs a default
    for line in lines:
        toks = tokens(line)
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


def waive_carry(net: Netlist, ctx: Context) -> None:
    waivers.mark_carry_bits(net)


waive_carry.__doc__ = waivers.mark_carry_bits.__doc__     # the waiver's own words


def waive_reset(net: Netlist, ctx: Context) -> None:
    waivers.mark_unread_reset(net)


waive_reset.__doc__ = waivers.mark_unread_reset.__doc__


@dataclasses.dataclass(frozen=True)
class Pass:
    name: str
    kind: str                                   # "lint" (a clean-up), "optimisation" or "waiver"
    run: Callable[[Netlist, Context], None]

    @property
    def doc(self) -> str:
        return (self.run.__doc__ or "").strip()


#: every pass, in the order they run
PASSES = (
    Pass("ranges", "lint", ranges),
    Pass("shift_slices", "lint", shift_slices),
    Pass("part_selects", "lint", part_selects),
    Pass("trim", "optimisation", trim),
    Pass("dead", "lint", dead),
    Pass("extend", "lint", extend),
    Pass("rename", "lint", rename),
    Pass("waive_carry", "waiver", waive_carry),
    Pass("waive_reset", "waiver", waive_reset),
    Pass("defaults", "lint", defaults),
    Pass("wires", "lint", wires),
)
