"""The derived plan of a polynomial-ring multiplier (Algorithm.derive, once): the fast
filter's flattened structure (model.Structure; M = 1: FIR.PolyMult and the schoolbook), the
widths on the ports, for a prime q the lazy array (model.Lazy) and the output reduction,
and the timing, stated once here (the Algorithm forwards it).

Order for a prime q: the structure, then the lazy array's widths and its largest lane
value (top), then the reduction, whose beta must take that value, then its stages R.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .model import Lazy, Structure


@dataclasses.dataclass(frozen=True)
class PolyPlan:
    """One core: a window is n/M cycles (a polynomial streams in, one beat a cycle), a frame
    `group` products (Saber's l; else 1) whose sum leaves with the last; `windows`, the
    windows from an input beat to its output beat (1: the systolic array, a result streams
    out during the window after its product's; 2: the schoolbook, whose MACs compute in a
    window of their own in between). The array's pipeline registers (poly-fast's `pipeline`,
    S) and a prime q's reduction (R stages) add their cycles."""
    n: int
    structure: Structure      # the fast filter, flattened (M = 1: one product, the FIR)
    k: int                    # bits of a coefficient on the ports: k of 2^k, or a prime q's bit length
    b_bits: int               # bits of a b lane: sign-magnitude (small: a bit above the magnitude) or k
    group: int = 1            # products a frame sums into one result
    windows: int = 1          # windows of n/M cycles from an input beat to its output beat
    lazy: Lazy | None = None  # a prime q, the systolic array: its exact (lazy) widths, bound and offset
    offset: int = 0           # a prime q: the multiple of q a lane starts from (c + offset >= 0)
    top: int = 0              # a prime q: the largest value a lane carries into the reduction
    reduction: Any = None     # a prime q: the reduction's canonical parameters (family modmul)
    R: int = 0                # a prime q: the reduction's pipeline stages (0 for q = 2^k)
    stages: int = 0           # S: the systolic array's register stages (hw.PolyCore's pipeline)

    @property
    def M(self) -> int:
        """The parallelism: coefficients a beat of each operand and of the result."""
        return self.structure.M

    @property
    def beats(self) -> int:
        """n/M: the beats of one polynomial, the cycles of a window."""
        return self.n // self.M

    # --- the timing (Schedule) ----------------------------------------------------------------
    @property
    def frame_beats(self) -> int:
        """group n/M: each product's polynomials, one after another."""
        return self.group * self.beats

    @property
    def result_beats(self) -> int:
        """n/M: one polynomial, leaving with the frame's last product."""
        return self.beats

    @property
    def latency(self) -> int:
        """windows n/M + S + R: from an input beat (of the frame's last product) to its
        output beat: n/M + S for the systolic array, 2n for the schoolbook (stream in,
        compute)."""
        return self.windows * self.beats + self.stages + self.R

    @property
    def initiation_interval(self) -> int:
        """group n/M: a frame streams in back to back with the one before."""
        return self.frame_beats

    @property
    def cycles(self) -> int:
        """One frame, first input beat to last output beat: frame_beats + latency - 1, i.e.
        2n/M - 1 + S + R for one product of the array ((L + 1) n/M - 1 for Saber's l = L), 3n
        - 1 + R for the schoolbook."""
        return self.frame_beats + self.latency - 1
