"""Model-made vectors, the generated Verilog testbench and the simulator runners."""
