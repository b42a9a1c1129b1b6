"""hw.systolic: the weight-stationary negacyclic multiplier on its own, windows back to back
with random pauses (advance low): every result slot of every window against the schoolbook
product, and the look-ahead against the next slot; a small signed x and a full one."""

import random

import pytest
from amaranth.sim import Simulator

from modforge.families.polyring.model import negacyclic
from modforge.hw.systolic import NegacyclicFir, RegisteredFir


def simulate(fir, bench):
    sim = Simulator(fir)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()


async def position(ctx, fir, rng, p, w):
    """Random pauses (advance low: nothing moves), then window position p advancing: its
    `fresh` thermometer and `load` one-hot, weight w in."""
    taps = fir.taps
    while rng.random() < 0.2:
        ctx.set(fir.advance, 0)
        await ctx.tick()
    ctx.set(fir.advance, 1)
    ctx.set(fir.fresh, sum(1 << j for j in range(taps - 1 - p, taps)))
    ctx.set(fir.load, 1 << (taps - 1 - p))
    ctx.set(fir.w_in, w)


def run(taps, width, small, windows=4, seed=1):
    rng = random.Random(seed)
    q = 1 << width
    fir = NegacyclicFir(taps, width, small, lookahead=True)
    A = [[rng.randrange(q) for _ in range(taps)] for _ in range(windows)]
    B = [[rng.randint(-small, small) if small else rng.randrange(q) for _ in range(taps)] for _ in range(windows)]
    C = [negacyclic(a, b, q) for a, b in zip(A, B, strict=False)]
    seen = []

    async def bench(ctx):
        for W in range(windows):
            for p in range(taps):
                await position(ctx, fir, rng, p, A[W][p])
                x = B[W][taps - 1 - p]
                ctx.set(fir.x_sign, int(x < 0))
                ctx.set(fir.x_mag, abs(x) if small else x)
                # slot s of window W-1 (s = p + 1) or, at p = taps - 1, slot 0 of window W
                frame, s = (W, 0) if p == taps - 1 else (W - 1, p + 1)
                if frame >= 0:
                    y, ahead = ctx.get(fir.y), ctx.get(fir.y_next)
                    assert y == C[frame][taps - 1 - s], (frame, s)
                    if s < taps - 1:
                        assert ahead == C[frame][taps - 2 - s], (frame, s, "look-ahead")
                    seen.append((frame, s))
                await ctx.tick()

    simulate(fir, bench)
    assert len(seen) == (windows - 1) * taps + 1


@pytest.mark.parametrize("taps,width,small", [(2, 8, 3), (5, 13, 4), (8, 10, 0), (7, 13, 9), (6, 13, 16), (3, 4, 20)])
def test_windows_back_to_back(taps, width, small):
    run(taps, width, small)


def run_registered(taps, width, small, windows=4, seed=1, x_copies=1):
    """RegisteredFir: w and x also one advance early (w_next, x_next, and its copies for the tap groups);
    every slot of every window (after a first window of zeros: the control registers start from zero) as y,
    y_part beyond slot 0, and slot 0 as y_part at the window's last position plus load_sum at the next."""
    rng = random.Random(seed)
    q = 1 << width
    fir = RegisteredFir(taps, width, small, x_copies=x_copies)
    A = [[0] * taps] + [[rng.randrange(q) for _ in range(taps)] for _ in range(windows - 1)]
    B = [[0] * taps] + [[rng.randint(-small, small) if small else rng.randrange(q) for _ in range(taps)]
                        for _ in range(windows - 1)]
    C = [negacyclic(a, b, q) for a, b in zip(A, B, strict=False)]
    xs = [B[W][taps - 1 - p] for W in range(windows) for p in range(taps)] + [0]
    seen, part = [], [0]

    def code(x):
        return (int(x < 0), abs(x)) if small else (0, x)

    async def bench(ctx):
        for W in range(windows):
            for p in range(taps):
                await position(ctx, fir, rng, p, A[W][p])
                ctx.set(fir.w_next, A[W][p + 1] if p + 1 < taps else A[W + 1][0] if W + 1 < windows else 0)
                now = W * taps + p
                for sig, value in zip((fir.x_sign, fir.x_mag, fir.x_sign_next, fir.x_mag_next),
                                      code(xs[now]) + code(xs[now + 1]), strict=True):
                    ctx.set(sig, value)
                for sig, value in zip((s for copy in fir.x_next_copies for s in copy),
                                      code(xs[now + 1]) * len(fir.x_next_copies), strict=True):
                    ctx.set(sig, value)
                frame, s = (W, 0) if p == taps - 1 else (W - 1, p + 1)
                if frame >= 0:
                    y = ctx.get(fir.y)
                    assert y == C[frame][taps - 1 - s], (frame, s)
                    if s:
                        assert ctx.get(fir.y_part) == y, (frame, s, "y_part")
                    seen.append((frame, s))
                if p == 0 and W:
                    assert (part[0] + ctx.get(fir.load_sum)) % q == C[W - 1][taps - 1], (W, "load_sum")
                part[0] = ctx.get(fir.y_part)
                await ctx.tick()

    simulate(fir, bench)
    assert len(seen) == (windows - 1) * taps + 1


@pytest.mark.parametrize("taps,width,small", [(2, 8, 3), (5, 13, 4), (8, 10, 0), (7, 13, 9), (6, 13, 16), (3, 4, 20),
                                              (4, 13, 42)])
def test_registered_windows_back_to_back(taps, width, small):
    run_registered(taps, width, small, windows=5)


@pytest.mark.parametrize("taps,width,small,x_copies", [(7, 13, 9, 3), (5, 10, 0, 2), (2, 8, 3, 2)])
def test_registered_tap_groups(taps, width, small, x_copies):
    """Tap groups with their own copies of the next x and of the shift register's last x (2 taps: the
    last x is the one the advance brings)."""
    run_registered(taps, width, small, windows=5, x_copies=x_copies)
