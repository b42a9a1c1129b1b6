"""Proofs that a pass keeps the design's function: the RTLIL before and after it (or the
Verilog written from it) are equivalent, module by module, cycle by cycle from the initial
state, proved by Yosys (the pinned one, yosys.py).

How, and why it is sound:

1. Both sides are read and lowered alike (PREPARE): `proc -norom` (processes to multiplexers
   and flip-flops; not a case table to a ROM, a memory named by Yosys's counter, which is not
   the same on both sides), `memory_collect` (each memory one $mem_v2 cell), `memory_nordff`
   (its synchronous read ports become asynchronous ones and flip-flops: Amaranth's RTLIL and
   Verilog read back express them differently), `memory_map` of one-word memories (registers
   \\mem[0], as read_verilog's mem2reg makes them of `reg [w:0] mem [0:0]`), `dffunmap` (enables
   as multiplexers: equiv_simple steps back through plain $dff only). Yosys's own passes, on
   both sides.
2. Each module is proved alone, its submodule instances and memories cut out: a cut cell's
   outputs become inputs of the module and its inputs outputs, named after the cell and
   port, on both sides alike (a memory: its read addresses, its write enables, write data
   where enabled and write address where some bit is; the rest no one reads). The cut cells
   must match: names, types (renames undone) and parameters, a memory's size, ports and
   contents. Then, by induction over the hierarchy and over time, the equivalence of the cut
   modules is the designs' (the same instance or memory sees the same inputs, so gives the
   same outputs). A module proved once serves every instance of it; no memory is expanded.
3. Registers are cut too: every flip-flop bit becomes an input (its value) and an output
   (its next value); a gold and a gate flip-flop are paired when their outputs share a
   public wire name (and clock), and their ports then share a name. What is left is
   combinational: `equiv_make` pairs the ports of the same name (the module's, the cut
   cells' and the registers'; the module's other wires stay unpaired: a pass may rename,
   renumber, narrow or remove them), `opt_merge` merges the cells of the two sides that
   compute the same function of the same signals (logic a pass left alone, fed by the same
   ports: an exact rewrite, so what is proved after it holds before; without it SAT proves
   two copies of a 32-bit multiplier equal, for many minutes), `equiv_simple` proves each
   output pair, and `equiv_status -assert` fails on any left unproved. So every output and
   every paired register's next value is the same function of the inputs and the paired
   registers' values: if those agree in a cycle, the outputs agree, and the registers agree
   in the next cycle (the induction step).
   An unpaired register is a free input: a removed one must matter to no output.
4. The base case (_cut_registers, in Python): paired registers start alike, by their init
   attributes. A gold register without one (x: the simulator's choice) may start as its
   gate register does (the pairing is one to one). With the step, the outputs agree in
   every cycle.

A module whose text, or lowered netlist, is the same on both sides but for notes (source
locations, waivers), the renames and the numbering of internal names needs no SAT. Cost: two Yosys runs for any
number of pairs (a text in several is lowered once), and a SAT model per paired wire: a
second or so for a module of a thousand cells. A proof has a time limit for both runs
together: past it, ProofTimeout (neither proved nor disproved) names where it was.
"""

from __future__ import annotations

import itertools
import re
import time

from .rtlil import Bit, Item, Module, Netlist, Wire, sigspec, take_sig, tokens
from .yosys import YosysError, run_yosys

#: cells cut out of a module (besides submodule instances): memories and effects, whose
#: contents or meaning the SAT models of equiv_* do not cover
CUT_TYPES = {"$mem_v2", "$mem", "$print", "$check", "$assert", "$assume", "$cover", "$live", "$fair"}
#: the ports a cell drives, for the cell types PREPARE leaves (default: Y)
DRIVES = {"$dff": {"Q"}, "$adff": {"Q"}, "$sdff": {"Q"}, "$aldff": {"Q"}, "$dffsr": {"Q"}, "$dlatch": {"Q"},
          "$ff": {"Q"}, "$mem_v2": {"RD_DATA"}, "$mem": {"RD_DATA"}, "$print": set(), "$check": set(),
          "$assert": set(), "$assume": set(), "$cover": set(), "$live": set(), "$fair": set()}
FLIP_FLOPS = {t for t, ports in DRIVES.items() if ports == {"Q"}}
#: parameters of a memory's read ports that no asynchronous port reads
ASYNC_DONT_CARE = ("\\RD_CLK_POLARITY", "\\RD_TRANSPARENCY_MASK", "\\RD_COLLISION_X_MASK", "\\RD_CE_OVER_SRST",
                   "\\RD_ARST_VALUE", "\\RD_SRST_VALUE", "\\RD_INIT_VALUE")
#: attributes that are notes, not function (an init value, a case's full_case are function)
NOTES = {"\\src", "\\lint_unused", "\\generator", "\\top", "\\hdlname", "\\amaranth.hierarchy",
         "\\amaranth.decoding", "\\keep"}
INTERNAL = re.compile(r"(?<!cell )(?<!\S)\$\S+")     # an internal name (a cell's type excepted)
PORT_IDS = itertools.count(1_000_000)                # the ports proof.py adds: after the design's
PREPARE = ["proc -norom", "memory_collect", "memory_nordff", "memory_map t:$mem_v2 r:SIZE=1 %i", "dffunmap"]


class NotEquivalent(AssertionError):
    """A pass changed what a module computes (or the proof could not show it did not)."""


class ProofTimeout(AssertionError):
    """Yosys did not finish a proof within its time: nothing proved, nothing disproved."""


def _key(name: str) -> str:
    """A module's name with the `rename` pass undone (top.sub and top__sub alike)."""
    return name.lstrip("\\").replace(".", "__")


class Verilog(str):
    """Verilog text, as a side of a pair to prove (a plain str is RTLIL)."""


def prove(gold: str, gate: str, timeout: float | None = 600) -> int:
    """Prove gate equivalent to gold (RTLIL texts, or Verilog(text)), module by module (the
    module docstring); raise NotEquivalent naming the module, else return the number of
    modules proved by SAT. `timeout`: seconds for the whole proof (None: no limit); past
    it, ProofTimeout."""
    return prove_many([(gold, gate)], timeout=timeout)


def prove_many(pairs: list[tuple[str, str]], timeout: float | None = 600, labels: list[str] | None = None) -> int:
    """prove() for several (gold, gate) pairs, in two Yosys runs (a text in several pairs,
    as a pass's output is the next one's input, is read once) that share `timeout`. A
    failure names the pair by its label (default: `pair k`) and the module."""
    labels = labels or [f"pair {k}" for k in range(len(pairs))]
    deadline = None if timeout is None else time.monotonic() + timeout
    names: dict[str, str] = {}
    for pair in pairs:
        for text in pair:
            names.setdefault(text, f"s{len(names)}")
    try:
        lowered = _prepare({names[text]: text for text in names}, timeout)
    except YosysError as exc:
        if exc.status == "timeout":
            raise ProofTimeout(f"proof timed out after {timeout:g} s reading and lowering the "
                               f"{len(names)} sides (proof step 1): neither proved nor disproved") from None
        raise
    modules = {name: _module_texts(text) for name, text in lowered.items()}
    files: dict[str, str] = {}
    script: list[str] = []
    where: dict[str, str] = {}
    for k, (gold, gate) in enumerate(pairs):
        a, b = names[gold], names[gate]
        if set(modules[a]) != set(modules[b]):
            raise NotEquivalent(f"pair {k}: the modules differ: {sorted(set(modules[a]) ^ set(modules[b]))}")
        same = set()
        if not isinstance(gold, Verilog) and not isinstance(gate, Verilog):
            before, after = _module_texts(gold), _module_texts(gate)
            same = {n for n in before if _canonical(before[n]) == _canonical(after.get(n, []))}
        todo = [n for n in sorted(modules[a]) if n not in same
                and _canonical(modules[a][n]) != _canonical(modules[b][n])]
        if not todo:
            continue
        sides = [{_key(m.name): m for m in Netlist(lowered[x]).modules} for x in (a, b)]
        for name in todo:
            tag = f"m{len(where)}"
            where[tag] = f"{labels[k]}, module {name}"
            files |= _module_pair(tag, sides[0][name], sides[1][name], sides[0], sides[1], where[tag])
            # init values are step 4's (done): opt_merge stops at two undriven wires' different ones
            script += [f"log proving {tag}", "design -reset", f"read_rtlil {tag}.il",
                       f"equiv_make -blacklist {tag}.bl gold gate equiv", "setattr -unset init equiv/w:*",
                       "opt_merge equiv", "equiv_simple equiv", "equiv_status -assert equiv"]
    if not script:
        return 0
    left = None if deadline is None else max(deadline - time.monotonic(), 0.01)
    try:
        run_yosys("\n".join(script) + "\n", files, timeout=left, what="proof")
    except YosysError as exc:
        failed = re.findall(r"^proving (m\d+)$", exc.log, re.M)
        at = where[failed[-1]] if failed else "?"
        if exc.status == "timeout":
            raise ProofTimeout(f"proof timed out after {timeout:g} s in {at if failed else 'its SAT run'} "
                               f"(module proof {len(failed)} of {len(where)}): neither proved nor disproved") from None
        unproved = re.findall(r"Unproven \$equiv \S+ (\S+ \[\d+\])_gold", exc.log)[:8]
        raise NotEquivalent(f"not proved equivalent: {at}"
                            f"{': unproved ' + ', '.join(unproved) if unproved else ''}\n{exc}") from None
    return len(where)


def _prepare(texts: dict[str, str], timeout: float | None = None) -> dict[str, str]:
    """Every side (name: RTLIL or Verilog text) read and lowered (step 1) in one Yosys run."""
    script = []
    for name, text in texts.items():
        reader = "read_verilog" if isinstance(text, Verilog) else "read_rtlil"
        script += ["design -reset", f"{reader} {name}.in", *PREPARE, f"write_rtlil {name}.il"]
    out = run_yosys("\n".join(script) + "\n", {f"{n}.in": str(t) for n, t in texts.items()},
                    [f"{n}.il" for n in texts], timeout=timeout, what="proof (prepare)")
    return {n: out[f"{n}.il"] for n in texts}


def _module_texts(text: str) -> dict[str, list[str]]:
    """The lines of each module of an RTLIL text, by name (renames undone)."""
    out: dict[str, list[str]] = {}
    lines: list[str] = []
    for line in text.splitlines():
        if line.startswith("module "):
            lines = out.setdefault(_key(line.split()[1]), [])
        elif line.startswith("end") and line.strip() == "end" and not line.startswith(" "):
            lines = []
        else:
            lines.append(line)
    return out


def _canonical(lines: list[str]) -> str:
    """A module's text without the attributes that do not change its function (NOTES) and
    the renames, its internal `$` names (not cell types) numbered in order of appearance:
    two modules with the same are the same netlist."""
    numbers: dict[str, str] = {}
    kept = []
    for line in lines:
        toks = line.split()
        if not toks or (toks[0] == "attribute" and toks[1] in NOTES):
            continue
        if toks[0] == "cell" and not toks[1].startswith("$"):
            toks[1] = _key(toks[1])
        kept.append(" ".join(toks))
    return INTERNAL.sub(lambda match: numbers.setdefault(match.group(0), f"${len(numbers)}"), "\n".join(kept))


def _module_pair(tag: str, g: Module, t: Module, gold: dict[str, Module], gate: dict[str, Module],
                 where: str) -> dict[str, str]:
    """The files of one module's proof: both sides cut (step 2), the wires not to pair."""
    cut_g, cut_t = _cut(g, gold), _cut(t, gate)
    if cut_g != cut_t:
        raise NotEquivalent(f"{where}: the instances or memories differ: {_differ(cut_g, cut_t)}")
    ports_g = {(w.name, w.width, w.output) for w in g.wires.values() if w.port}
    ports_t = {(w.name, w.width, w.output) for w in t.wires.values() if w.port}
    if ports_g != ports_t:
        raise NotEquivalent(f"{where}: the ports differ: {sorted(ports_g ^ ports_t)[:4]}")
    _cut_registers(g, t, where)
    inside = {n for m in (g, t) for n, w in m.wires.items() if not w.port}
    return {f"{tag}.il": _module_text(g, "\\gold") + _module_text(t, "\\gate"),
            f"{tag}.bl": "".join(f"{n}\n" for n in sorted(inside))}


def _cut(m: Module, side: dict[str, Module]) -> dict[str, dict[str, str]]:
    """Cut m's instances and memories out (ports in their place); the cut cells' signatures
    (type and parameters)."""
    signatures: dict[str, dict[str, str]] = {}
    cuts: list[tuple[str, str, list[Bit]]] = []
    kept: list[Item] = []
    for item in m.items:
        sub = side.get(_key(item.type)) if item.kind == "cell" else None
        if item.kind != "cell" or (sub is None and item.type not in CUT_TYPES):
            kept.append(item)
            continue
        if sub is not None:
            outputs = {w.name.lstrip("\\") for w in sub.wires.values() if w.output}
        else:
            outputs = DRIVES.get(item.type, set())
        signatures[item.name] = {"type": _key(item.type), **item.params}
        conns = dict(item.conns)
        if item.type == "$mem_v2":
            conns = _memory_ports(m, item, signatures[item.name], kept)
        for port, bits in sorted(conns.items()):
            cuts.append((f"\\cut:{item.name.lstrip(chr(92))}:{port}", "input" if port in outputs else "output", bits))
    m.items = kept
    for name, direction, bits in cuts:
        _add_port(m, name, direction, bits)
    return signatures


def _memory_ports(m: Module, item: Item, signature: dict[str, str], kept: list[Item]) -> dict[str, list[Bit]]:
    """The connections of a memory that matter, after memory_nordff (every read port
    asynchronous: its clock, enable and resets matter to no one): the read addresses and
    data, and each write port's enables, its data where enabled and its address where
    some bit is enabled (masking cells added to `kept`)."""
    if "1" in item.params.get("\\RD_CLK_ENABLE", "0").split("'")[-1]:
        return dict(item.conns)
    for key in ASYNC_DONT_CARE:
        signature.pop(key, None)
    conns = {k: v for k, v in item.conns.items() if k in ("RD_ADDR", "RD_DATA", "WR_EN")}
    width, abits, ports = (int(item.params[f"\\{k}"]) for k in ("WIDTH", "ABITS", "WR_PORTS"))
    en, data, addr = item.conns["WR_EN"], item.conns["WR_DATA"], item.conns["WR_ADDR"]
    conns["WR_DATA"] = _cell(m, kept, "$and", data, en)
    masked: list[Bit] = []
    for k in range(ports):
        any_en = _cell(m, kept, "$reduce_or", en[k * width:(k + 1) * width])
        masked += _cell(m, kept, "$and", addr[k * abits:(k + 1) * abits], any_en * abits)
    conns["WR_ADDR"] = masked
    return conns


def _cell(m: Module, kept: list[Item], kind: str, a: list[Bit], b: list[Bit] | None = None) -> list[Bit]:
    """A new cell of the proof (a bitwise $and, or $reduce_or) and its result bits."""
    n = len(kept) + len(m.items)
    width = 1 if kind == "$reduce_or" else len(a)
    y = f"$cut${n}"
    m.wires[y] = Wire(y, width, False, False, [f"  wire width {width} {y}"])
    params = {"\\A_SIGNED": "0", "\\A_WIDTH": str(len(a)), "\\Y_WIDTH": str(width)}
    conns: dict[str, list[Bit]] = {"A": a, "Y": [(y, k) for k in range(width)]}
    if b is not None:
        params |= {"\\B_SIGNED": "0", "\\B_WIDTH": str(len(b))}
        conns["B"] = b
    kept.append(Item("cell", [], type=kind, name=f"$cut$cell${n}", params=params, conns=conns))
    return conns["Y"]


def _differ(gold: dict[str, dict[str, str]], gate: dict[str, dict[str, str]]) -> str:
    if set(gold) != set(gate):
        return f"cells {sorted(set(gold) ^ set(gate))}"
    return "; ".join(f"{cell} {key}: {gold[cell].get(key)} / {gate[cell].get(key)}" for cell in sorted(gold)
                     for key in sorted(set(gold[cell]) | set(gate[cell])) if gold[cell].get(key) != gate[cell].get(key))


def _connect_sides(m: Module, item: Item) -> tuple[list[Bit], list[Bit]]:
    toks = tokens(item.lines[-1])[1:]
    lhs, pos = take_sig(toks, 0)
    return m.bits(lhs), m.bits(toks[pos:])


def _nets(m: Module) -> tuple[dict[Bit, Bit], dict[Bit, set[tuple[str, int]]]]:
    """Each wire bit's driver through connects, and each driver's public wire bits."""
    alias: dict[Bit, Bit] = {}
    for item in m.items:
        if item.kind == "connect":
            lhs, rhs = _connect_sides(m, item)
            alias.update(zip(lhs, rhs, strict=True))
    driver: dict[Bit, Bit] = {}
    names: dict[Bit, set[tuple[str, int]]] = {}
    for w in m.wires.values():
        for k in range(w.width):
            b: Bit = (w.name, k)
            seen = set()
            while b in alias and b not in seen:
                seen.add(b)
                b = alias[b]
            driver[(w.name, k)] = b
            if not w.name.startswith("$"):
                names.setdefault(b, set()).add((w.name, k))
    return driver, names


def _flip_flops(m: Module, where: str) -> list[tuple[Item, int]]:
    out = []
    for item in m.items:
        if item.kind == "cell" and item.type in FLIP_FLOPS:
            if item.type != "$dff":
                raise NotEquivalent(f"{where}: flip-flop {item.name} of type {item.type}: not supported")
            out += [(item, k) for k in range(len(item.conns["Q"]))]
    return out


def _init_values(m: Module, driver: dict[Bit, Bit]) -> dict[Bit, str]:
    """The initial value of each driven bit with an init attribute."""
    init: dict[Bit, str] = {}
    for w in m.wires.values():
        for line in w.lines:
            toks = line.split()
            if toks[:2] == ["attribute", "\\init"]:
                for k, value in enumerate(m.bits(toks[2:3])[:w.width]):
                    init[driver[(w.name, k)]] = value if isinstance(value, str) else "x"
    return init


def _cut_registers(g: Module, t: Module, where: str) -> None:
    """Step 3's registers: every flip-flop bit becomes an input (its value) and an output
    (its next value); a gold and a gate one are paired when their outputs share a public
    name, one to one, and their ports share that name (a port per wire: Yosys proves a
    wire's bits in one SAT model). Then the base case (module docstring, 4)."""
    sides = []
    for m in (g, t):
        driver, names = _nets(m)
        sides.append((driver, names, _init_values(m, driver), _flip_flops(m, where)))
    (drv_g, names_g, init_g, ffs_g), (drv_t, names_t, init_t, ffs_t) = sides
    gate_by_name = {name: (cell, k) for cell, k in ffs_t for name in names_t.get(cell.conns["Q"][k], ())}
    common: dict[tuple[int, int], tuple[str, int]] = {}      # (id(cell), bit), either side: the name paired by
    for cell, k in ffs_g:
        q = cell.conns["Q"][k]
        found = {(id(c), j): (c, j) for n in names_g.get(q, ()) if n in gate_by_name for c, j in [gate_by_name[n]]}
        if len(found) != 1 or next(iter(found)) in common:
            continue                              # unpaired: a free input on this side
        gi, gk = next(iter(found.values()))
        name = min(names_g[q] & names_t[gi.conns["Q"][gk]])
        common[(id(cell), k)] = common[(id(gi), gk)] = name
        what = f"register {name[0].lstrip(chr(92))}[{name[1]}]"
        clocks = [(_net_names(ff.conns["CLK"], drv, names), _value(ff.params.get("\\CLK_POLARITY", "1")))
                  for drv, names, ff in ((drv_g, names_g, cell), (drv_t, names_t, gi))]
        if clocks[0] != clocks[1]:
            raise NotEquivalent(f"{where}: {what} is clocked differently on the two sides")
        vg, vt = init_g.get(q, "x"), init_t.get(gi.conns["Q"][gk], "x")
        if vg != "x" and vg != vt:     # x on the gold side: it may start as the gate's
            raise NotEquivalent(f"{where}: {what} starts at {vg} on the gold side, {vt} on the gate side")
    for m, (_, _, _, ffs), side in ((g, sides[0], "gold"), (t, sides[1], "gate")):
        paired: dict[str, list[tuple[int, Bit, Bit]]] = {}
        for cell, k in ffs:
            if (id(cell), k) in common:
                wire, index = common[(id(cell), k)]
                paired.setdefault(wire, []).append((index, cell.conns["Q"][k], cell.conns["D"][k]))
            else:               # equiv_make pairs every port: the other side has it, unused
                only = f"\\reg_{side}_only:{cell.name.lstrip(chr(92))}:{k}"
                _add_port(m, only, "input", [cell.conns["Q"][k]])
                _add_port(t if m is g else g, only, "input", [])
        for wire, bits in sorted(paired.items()):
            bits.sort(key=lambda bit: bit[0])
            _add_port(m, f"\\reg:{wire.lstrip(chr(92))}", "input", [q for _, q, _ in bits])
            _add_port(m, f"\\next:{wire.lstrip(chr(92))}", "output", [d for _, _, d in bits])
        m.items = [item for item in m.items if not (item.kind == "cell" and item.type in FLIP_FLOPS)]


def _value(param: str) -> int:
    """A parameter's value, written as an integer or as a constant."""
    return int(param.split("'")[-1], 2) if "'" in param else int(param)


def _net_names(bits: list[Bit], driver: dict[Bit, Bit], names: dict[Bit, set[tuple[str, int]]]) -> list[Bit]:
    """A public name of each bit's net (a constant: itself)."""
    return [b if isinstance(b, str) else min(names.get(driver.get(b, b), {b})) for b in bits]


def _add_port(m: Module, name: str, direction: str, bits: list[Bit]) -> None:
    """A new port of m: an input drives `bits`, an output is driven by them."""
    width = len(bits) or 1          # no bits: an unused input
    m.wires[name] = Wire(name, width, True, direction == "output",
                         [f"  wire width {width} {direction} {next(PORT_IDS)} {name}"])
    if direction == "input":
        pairs = [(b, k) for k, b in enumerate(bits) if not isinstance(b, str)]
        if pairs:
            m.items.append(Item("connect", [f"  connect {sigspec([b for b, _ in pairs])} "
                                            f"{sigspec([(name, k) for _, k in pairs])}"]))
    elif bits:
        m.items.append(Item("connect", [f"  connect {name} {sigspec(bits)}"]))


def _module_text(m: Module, name: str) -> str:
    m.name, m.head = name, [f"module {name}"]
    return "\n".join(m.lines()) + "\n"
