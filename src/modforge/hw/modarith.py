"""Modular addition, subtraction and halving: combinational Amaranth expressions, one
conditional correction each (no multiplier). q is an int or a Value (a run-time modulus);
`width` is the result's width in bits (default: q's). Every function expects its inputs
reduced as stated and returns a value in [0, q). A correction reads the sign of one
difference (x - q, one bit wider than its operands: its top bit is the borrow) rather than
a comparison beside the subtraction: one carry chain, not two.

  add_mod(a, b, q)    (a + b) mod q        a, b in [0, q)
  sub_mod(a, b, q)    (a - b) mod q        a, b in [0, q)
  reduce_once(x, q)   x mod q              x in [0, 2q) (a lazy sum)
  reduce_signed(x, q) x mod q              x in [-q, 2q), signed
  reduce_once_split(x, q_h, k, low_zero)   x mod q, q = q_h 2^k + 1, x in [0, 2q), low_zero: x mod 2^k == 0
  half_mod(x, q)      x / 2 mod q          x in [0, q), q odd: x >> 1, or (x + q) >> 1 if x is odd
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Mux, Value, ValueLike


def _width(q: ValueLike, width: int | None) -> int:
    if width is not None:
        return width
    return len(q) if isinstance(q, Value) else int(q).bit_length()


def add_mod(a: Value, b: Value, q: ValueLike, width: int | None = None) -> Value:
    return reduce_once(a + b, q, width)


def sub_mod(a: Value, b: Value, q: ValueLike, width: int | None = None) -> Value:
    d = a - b
    return Mux(d[-1], d + q, d)[:_width(q, width)]


def reduce_once(x: Value, q: ValueLike, width: int | None = None) -> Value:
    d = x - q
    return Mux(d[-1], x, d)[:_width(q, width)]


def reduce_once_split(x: Value, q_h: ValueLike, k: int, low_zero: Value, width: int | None = None) -> Value:
    # x - q = (x_h - q_h - low_zero) 2^k + (x_l - 1 mod 2^k): one carry chain over the high part
    # (its borrow-in low_zero, from a stage before); the low bits as logic, bit i flipped when
    # x >= q and x[:i] == 0. Where a carry chain takes a LUT per bit ahead of it (Xilinx), this
    # drops x_l - 1's inverters and the low multiplexers; where it does not (ECP5's CCU2), the
    # logic costs more than the chain it saves.
    high_width = len(x) - k + 1
    q_h = Value.cast(q_h)
    high = (Cat(x[k:], Const(0, 1)) + ~Cat(q_h, Const(0, high_width - len(q_h))) + ~low_zero)[:high_width]
    keep = high[-1]                         # the borrow: x < q
    low = Cat(x[i] ^ (~keep & (x[:i] == 0)) for i in range(k))
    return Cat(low, Mux(keep, x[k:], high))[:width if width is not None else len(q_h) + k]


def reduce_signed(x: Value, q: ValueLike, width: int | None = None) -> Value:
    high = x - q
    return Mux(x < 0, x + q, Mux(high < 0, x, high))[:_width(q, width)]


def half_mod(x: Value, q: ValueLike, width: int | None = None) -> Value:
    # (x + q) >> 1 = (x >> 1) + (q >> 1) + 1 for odd x and q: the choice gates an addend and
    # x[0] is the carry-in, so no multiplexer follows the adder
    return ((x >> 1) + Mux(x[0], q >> 1, 0) + x[0])[:_width(q, width)]
