"""rsa-montgomery's derived plan: the words, the rounds of the hardware's chain of processing
elements (hw.MontgomeryCore follows them), the cfg word, and the timing, all constants of
(l, w, pe) (model.py holds the values, FIOS word by word):

  s = l / w        words of x, y, N and t; a frame is s beats
  D = PE_DELAY     cycles from a word entering a processing element (PE) to the word of the
                   same index leaving it (2 for m, then products, their sum, the carry add)
  R = s / pe       rounds: PE k handles outer iterations i = r pe + k of round r
  T = max(s + 1, pe D + 2)   cycles between rounds (a round streams the s + 1 words of t
                   through the chain, the top one t_s the last carry; the next round reads
                   the last one's t from a RAM, two cycles after its PE wrote it)
  U = (R - 1) T + pe D + s + 3   cycles from the first input beat to the first read of the
                   result RAM: round 0 starts while the frame loads (the feed reads word j
                   of y one cycle after beat j wrote it; PE 0 takes word 0 two cycles after
                   the first beat), the rounds (the last one's s + 1 words through the chain
                   of pe D cycles), 1 to decide the subtraction
  latency = U + 3 (input beat j to output beat j: the read-out's 3); initiation interval = U
  (the next frame loads, and runs its rounds, while the result leaves: its last round writes
  word j of the result RAM well after the read-out has read it); one multiplication (first
  input beat to last output beat) = U + s + 2.
Without stalls; a beat that comes late holds the chain (round 0 needs it), and so does a
result word the read-out cannot yet take (back-pressure): a stall adds cycles, nothing else.

banks = 2 (x and y RAMs of two banks): a frame's rounds start after its whole load (the
cycle of its last beat), and the next frame loads into the other bank during them, its
first beat taken s cycles before they end: U = (R - 1) T + pe D + 2 s + 2 (s - 1 more),
initiation interval R T (the last round keeps its T cycles: its PEs have taken their x words
before the next frame's round 0 starts). A late beat then holds no rounds, only its own
frame's start; back-pressure holds the chain as before.
"""

from __future__ import annotations

import dataclasses

from ...registry import Timing

PE_DELAY = 6     # cycles a word spends in one PE (hw.MontgomeryCore.processing_element)
READOUT = 3      # a result RAM read to its beat on o (hw.stream.ReadOut)


@dataclasses.dataclass(frozen=True)
class MontgomeryPlan(Timing):
    """The derived plan of one configuration (the module docstring gives the formulas)."""
    l: int  # noqa: E741  (the operand bits, as the parameter)
    w: int
    pe: int
    s: int                  # words, l / w
    rounds: int             # R = s / pe
    round_cycles: int       # T = max(s + 1, pe D + 2)
    first_read: int         # U = (R - 1) T + pe D + s + 3 (+ s - 1 with two banks)
    banks: int              # 1: round 0 overlaps the load; 2: the next frame loads during the rounds
    word_bits: int          # the cfg word's index field: log2 s bits, at least 1
    cfg_width: int          # Cat(data[w], word[word_bits], sel[1])

    @classmethod
    def of(cls, l: int, w: int, pe: int, banks: int = 1) -> MontgomeryPlan:  # noqa: E741
        """The plan of l-bit operands in words of w bits on pe PEs (pe divides s = l/w)."""
        s = l // w
        rounds, round_cycles = s // pe, max(s + 1, pe * PE_DELAY + 2)
        first_read = (rounds - 1) * round_cycles + pe * PE_DELAY + s + 3 + (s - 1 if banks == 2 else 0)
        word_bits = max(1, (s - 1).bit_length())
        return cls(l, w, pe, s, rounds, round_cycles, first_read, banks, word_bits, w + word_bits + 1,
                   cycles=first_read + s + 2, latency=first_read + READOUT,
                   initiation_interval=rounds * round_cycles if banks == 2 else first_read, frame_beats=s)
