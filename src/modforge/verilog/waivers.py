"""Every lint waiver of the generated Verilog, in one place: the Verilator rule, what it
applies to, and why the warning is right to leave.

A waiver is an RTLIL wire attribute, `lint_unused`, whose value is the reason: set by the
pass below (mark_carry_bits), or by the generator itself (`Signal(attrs={"lint_unused": why})`
for bits unread by design). write_verilog prints it as `(* lint_unused = "why" *)` above the
declaration, and `waive_unused` turns that into `verilator lint_off/lint_on` around the
declaration alone: no other signal, and no other rule, is exempt.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from .rtlil import analyse

if TYPE_CHECKING:
    from .rtlil import Netlist

ATTRIBUTE = "lint_unused"


@dataclasses.dataclass(frozen=True)
class Waiver:
    rule: str           # the Verilator warning
    applies_to: str
    reason: str


CARRY_BITS = ("not every bit of this sum, difference or product is read: low bits carry into the read ones; "
              "a sum keeps its width for synthesis")

UNREAD_RESET = ("the clock domain's reset port: this module's registers are datapath registers, which take no "
                "reset (only valid and control registers do); the port stays so every module has the same clock "
                "and reset inputs")

WAIVERS = (
    Waiver("UNUSEDSIGNAL",
           "the result wire of an arithmetic operator ($add, $sub, $mul, $neg, $shl) with unread bits",
           CARRY_BITS),
    Waiver("UNUSEDSIGNAL",
           "a signal the generator marks Signal(attrs={'lint_unused': why})",
           "its bits are unread by design; the attribute's value says why"),
    Waiver("UNUSEDSIGNAL", "a module's rst input that nothing in the module reads", UNREAD_RESET),
)

ARITH = {"$add", "$sub", "$mul", "$neg", "$shl"}


def mark_carry_bits(net: Netlist) -> None:
    """An arithmetic result read only above some bits (a product's high half, the +1 of an
    add/sub carried in through bit 0), or a sum kept at its width (keep_add_width), leaves
    bits unread, as it must: mark the wire (attribute lint_unused) so that its declaration
    is exempt from UNUSEDSIGNAL (waive_unused). An attribute: no change of function."""
    outputs = net.outputs()
    for m in net.modules:
        analyse(m, outputs)
        read = {b for item in m.items for b in item.reads if not isinstance(b, str)}
        for item in m.items:
            if item.kind != "cell" or item.type not in ARITH:
                continue
            wire = m.whole_wire(item.conns["Y"])
            if wire is not None and any(b not in read for b in item.conns["Y"]):
                wire.lines.insert(-1, f"  attribute \\{ATTRIBUTE} \"{CARRY_BITS}\"")


def mark_unread_reset(net: Netlist) -> None:
    """A module whose registers all go without reset (a pipeline's datapath in a module of
    its own: hw.pipeline.LaneDatapath) still gets its clock domain's rst port, unread: mark it
    exempt from UNUSEDSIGNAL (waive_unused). An attribute: no change of function."""
    outputs = net.outputs()
    for m in net.modules:
        rst = m.wires.get("\\rst")
        if rst is None or not rst.port or rst.output:
            continue
        analyse(m, outputs)
        if not any(not isinstance(b, str) and b[0] == rst.name for item in m.items for b in item.reads):
            rst.lines.insert(-1, f"  attribute \\{ATTRIBUTE} \"{UNREAD_RESET}\"")


def waive_unused(text: str) -> str:
    """The Verilog of write_verilog with each declaration marked lint_unused exempt from
    Verilator's UNUSEDSIGNAL, and that declaration alone (a port's: its input and wire lines)."""
    return re.sub(rf'( *)\(\* {ATTRIBUTE} = "([^"]*)" \*\)\n((?: *input [^;]*;\n)?)( *)(wire|reg)([^;]*;)\n',
                  r"\1/* verilator lint_off UNUSEDSIGNAL */  // \2\n\3\4\5\6\n\1/* verilator lint_on UNUSEDSIGNAL */\n",
                  text)
