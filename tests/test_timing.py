"""synth/timing.py: the ECP5 delay model on a hand-made netlist (stages, merged registers as
wires, the clock-enable path) and the DP over stage groupings on synthetic delays."""

import itertools
import random

import pytest

from modforge.synth.timing import Choice, Delays, Netlist, StageTiming, choose

D = Delays(lut=1.0, mux=1.0, carry_in=1.0, carry=0.1, carry_sum=1.0, mult=4.0, alu=4.0, ram=2.0, clk_to_q=0.5,
           setup=0.2, route=0.3, route_fanout=0.0, route_local=0.3)
FF_PINS = {"CLK": "input", "CE": "input", "LSR": "input", "DI": "input", "Q": "output"}
LUT_PINS = {"A": "input", "B": "input", "C": "input", "D": "input", "Z": "output"}


def ff(di, q, ce):
    return {"type": "TRELLIS_FF", "port_directions": FF_PINS,
            "connections": {"CLK": [2], "CE": [ce], "LSR": ["0"], "DI": [di], "Q": [q]}}


def lut(a, z, b="0"):
    return {"type": "LUT4", "port_directions": LUT_PINS, "connections": {"A": [a], "B": [b], "C": ["0"], "D": ["0"],
                                                                          "Z": [z]}}


def chain() -> dict:
    """port i (bit 3) -> FF1 -> LUT -> LUT -> FF2 -> LUT -> FF3; FF3 and port r (bit 4) -> LUT -> CE of all."""
    cells = {"ff1": ff(3, 10, 20), "la": lut(10, 11), "lb": lut(11, 12), "ff2": ff(12, 13, 20), "lc": lut(13, 14),
             "ff3": ff(14, 15, 20), "en": lut(15, 20, b=4)}
    ports = {"clk": {"direction": "input", "bits": [2]}, "i": {"direction": "input", "bits": [3]},
             "r": {"direction": "input", "bits": [4]}, "o": {"direction": "output", "bits": [15]}}
    return {"modules": {"top": {"ports": ports, "cells": cells, "netnames": {}}}}


def test_stages_and_group_delays():
    net = Netlist(chain(), "top", D)
    assert net.stage == {"ff1": 1, "ff2": 2, "ff3": 3}
    t = net.timing(3)
    assert t.bits == (0, 1, 1, 1)
    assert t.groups[(1, 1)] == pytest.approx(0.5 + 0.3 + 0.2)                     # port, as from a register
    assert t.groups[(2, 2)] == pytest.approx(0.5 + 0.3 + 1 + 0.3 + 1 + 0.3 + 0.2)  # two LUTs
    assert t.groups[(3, 3)] == pytest.approx(0.5 + 0.3 + 1 + 0.3 + 0.2)
    # stage 2 merged: its register a wire, the net from LUT b runs on to LUT c (one routing delay)
    assert t.groups[(2, 3)] == pytest.approx(t.groups[(2, 2)] + t.groups[(3, 3)] - 0.5 - 0.2 - 0.3)
    assert t.control == pytest.approx(0.5 + 0.3 + 1 + 0.3 + 0.2)                  # FF3 -> enable LUT -> CE
    assert t.period([True, True, True]) == pytest.approx(3.6)
    assert t.period([True, False, True]) == pytest.approx(4.9)
    with pytest.raises(ValueError, match="3 register stages, the pipeline 2"):
        Netlist(chain(), "top", D).timing(2)


def test_ports_untimed_like_nextpnr():
    t = Netlist(chain(), "top", D).timing(ports=False)
    assert (1, 1) not in t.groups and t.group(1, 1) == t.control


def test_choice_on_the_hand_made_netlist():
    t = Netlist(chain(), "top", D).timing(3)
    assert choose(t, 5.0) == Choice((False, False, True), pytest.approx(4.9), True)   # one stage: the latency 1
    assert choose(t, 4.0).mask == "011"                        # FF1 merged: 3.6 ns, then 2.3 ns
    slow = choose(t, 3.0)                                      # even every stage kept misses 3 ns
    assert slow.mask == "111" and not slow.met and slow.mhz == pytest.approx(1000 / 3.6)


def synthetic(delays: list[float], bits: list[int]) -> StageTiming:
    n = len(delays)
    groups = {(i, j): sum(delays[i - 1:j]) for i in range(1, n + 1) for j in range(i, n + 1)}
    return StageTiming(n, groups, 0.0, (0, *bits))


def test_dp_all_stages_for_a_high_target_fewer_for_a_low_one():
    t = synthetic([2, 3, 2, 4, 1], [10, 10, 10, 10, 10])
    assert choose(t, 1000 / 250).mask == "11111"             # 4 ns: no two stages fit together
    assert choose(t, 1000 / 50).mask == "00001"              # 20 ns: the whole datapath in one stage
    assert sum(choose(t, 1000 / 150).keep) < 5


def test_dp_ties_go_to_fewer_register_bits():
    t = synthetic([1, 1, 1], [10, 5, 7])
    assert choose(t, 2.0).mask == "011"                      # 101 also has two stages, but 17 bits


@pytest.mark.parametrize("seed", range(5))
def test_dp_is_the_best_mask(seed):
    rng = random.Random(seed)
    n = rng.randint(3, 8)
    t = synthetic([rng.uniform(0.5, 4) for _ in range(n)], [rng.randint(1, 100) for _ in range(n)])
    period = rng.uniform(3, 9)
    masks = [m + (True,) for m in itertools.product([False, True], repeat=n - 1)]
    fits = [m for m in masks if t.period(m) <= period]
    got = choose(t, period)
    if not fits:
        assert not got.met and all(got.keep)
        return
    best = min((sum(m), sum(t.bits[k + 1] for k, f in enumerate(m) if f)) for m in fits)
    assert got.met and t.period(got.keep) <= period
    assert (sum(got.keep), sum(t.bits[k + 1] for k, f in enumerate(got.keep) if f)) == best
