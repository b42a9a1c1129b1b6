"""The metrics record: one shape for every synthesis target.

Keys (None where a target has no such figure):

  target, top, status        "ok", "failed" or "timeout"; message and log_tail say why
  directory, seconds         where the scripts, logs and reports are kept; tool time
  freq_mhz                   the requested clock (ecp5 place and route), else None
  cycles, latency_cycles, initiation_interval    from design.json
  lut, lut_by_size           LUTs (xc7/xcup: LUT1..LUT6; ecp5: post-route TRELLIS_COMB
                             slots, which include carry halves; lut_by_size: the mapped
                             cell types LUT4/CCU2C/... for ecp5)
  lutram                     xc7/xcup: LUTs used as distributed RAM or shift registers
                             (RAM32M16, SRLC32E, ...), not in lut; counted in area
  srl                        xc7/xcup: of lutram, the LUTs used as shift registers (SRL16E,
                             SRLC32E): chains of registers without reset
  dsp_registers              xc7/xcup: the register stages packed into the DSP cells (their
                             AREG, BREG, CREG, DREG, ADREG, MREG and PREG), not among ff;
                             Yosys packs registers into DSP48E1 (xc7) only, so xcup has 0
  ff, carry, dsp, bram       flip-flops; CARRY4/CARRY8 (xc*) or CCU2C (ecp5); DSP48E1/E2
                             or MULT18X18D; block RAMs in 36 Kb (xc*) or DP16KD (ecp5)
  gates, gates_by_type, depth    generic: two-input gates and inverters (each
                             type in gates_by_type; asic: cells by type), logic depth in gates (`ltp -noff`)
  cells, cell_area_um2, critical_path_ns    asic: OSU 0.18 um standard cells, area
                             (um^2, flip-flops included) and the estimated critical path
  fmax_mhz                   ecp5: post-route Fmax from nextpnr's report;
                             asic: 1000 / critical_path_ns; generic, xc7, xcup: None
  latency_ns                 latency_cycles * 1000 / fmax_mhz
  throughput_mops            results per microsecond: fmax_mhz / initiation_interval
  area, area_unit            "LUT-eq" = LUT + LUTRAM + FF/2 + 100*DSP + 300*BRAM (FPGA targets),
                             "um2" (asic), "gates" = gates + FF (generic)
  area_time                  area * latency in us (ATP: area x operation latency), its unit
                             "<area_unit> x us"; every target with a clock (ecp5, asic)
  atp                        the same number on FPGA targets only: the name the first
                             results were stored under (the store's column, `best --minimize
                             atp`, the reports); synth prints the one figure, area_time
"""

from __future__ import annotations

import dataclasses

#: ecp5-static: the ecp5 flow with nextpnr's electrostatic placer, which spreads a large core
#: where the default HeAP packs it densely enough to stall the router (a 32-bit NTT, PE = 16)
ECP5_TARGETS = ("ecp5", "ecp5-static")
FPGA_TARGETS = ("xc7", "xcup", *ECP5_TARGETS)

STATUSES = ("ok", "failed", "timeout")


@dataclasses.dataclass
class Metrics:
    target: str
    top: str
    status: str = "ok"
    message: str | None = None
    log_tail: str | None = None
    directory: str | None = None
    seconds: float | None = None
    device: str | None = None  # the part placed on (ecp5: the smallest LFE5U it fills to at most 75%)
    tool_seconds: dict | None = None  # wall seconds per tool (yosys, nextpnr)
    freq_mhz: float | None = None
    cycles: int | None = None
    latency_cycles: int | None = None
    initiation_interval: int | None = None
    lut: int | None = None
    lut_by_size: dict | None = None
    lutram: int | None = None
    srl: int | None = None
    dsp_registers: int | None = None
    ff: int | None = None
    carry: int | None = None
    dsp: int | None = None
    bram: float | None = None
    gates: int | None = None
    gates_by_type: dict | None = None
    depth: int | None = None
    cells: int | None = None
    cell_area_um2: float | None = None
    critical_path_ns: float | None = None
    fmax_mhz: float | None = None
    latency_ns: float | None = None
    throughput_mops: float | None = None
    area: float | None = None
    area_unit: str | None = None
    area_time: float | None = None
    atp: float | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)

    def finish(self) -> Metrics:
        """Derive latency, throughput, area, area x time and ATP from the counts and Fmax."""
        if self.fmax_mhz and self.latency_cycles is not None:
            self.latency_ns = self.latency_cycles * 1000.0 / self.fmax_mhz
        if self.fmax_mhz and self.initiation_interval:
            self.throughput_mops = self.fmax_mhz / self.initiation_interval
        fpga = self.target in FPGA_TARGETS
        if fpga and self.lut is not None:
            self.area = lut_equivalent(self.lut + (self.lutram or 0), self.ff or 0, self.dsp or 0, self.bram or 0)
            self.area_unit = "LUT-eq"
        elif self.target == "asic" and self.cell_area_um2 is not None:
            self.area, self.area_unit = self.cell_area_um2, "um2"
        elif self.target == "generic" and self.gates is not None:
            self.area, self.area_unit = self.gates + (self.ff or 0), "gates"
        if self.area is not None and self.latency_ns is not None:
            self.area_time = self.area * self.latency_ns / 1000.0
            if fpga:
                self.atp = self.area_time
        return self


def lut_equivalent(lut: float, ff: float, dsp: float, bram: float) -> float:
    return lut + ff / 2 + 100 * dsp + 300 * bram
