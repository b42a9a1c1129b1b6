"""Verilog texts of the reference relations: functions a family's `Algorithm.reference` body
(the `mf_reference` module `modforge prove` checks a core against) calls. Written
independently of the cores, from the definition of the product alone; a leaf module, so a
family's reference does not depend on the proof harness.
"""

from __future__ import annotations


def gf2_mulmod(name: str, f: int) -> str:
    """A Verilog function `name(a, b)` = a*b mod f over GF(2) (bit i: the coefficient of t^i),
    the schoolbook way: the whole carry-less product, then reduced from its top bit down."""
    n = f.bit_length() - 1
    w = 2 * n - 1
    return f"""\
  function [{n - 1}:0] {name}(input [{n - 1}:0] a, input [{n - 1}:0] b);
    reg [{w - 1}:0] p, wide_a, wide_f;
    integer i;
    begin
      p = 0;
      wide_a = a;
      for (i = 0; i < {n}; i = i + 1)
        if (b[i]) p = p ^ (wide_a << i);
      wide_f = {w}'h{f:x};
      for (i = {w - 1}; i >= {n}; i = i - 1)
        if (p[i]) p = p ^ (wide_f << (i - {n}));
      {name} = p[{n - 1}:0];
    end
  endfunction
"""


def gfp_mulmod(name: str, p: int, f: tuple[int, ...]) -> str:
    """A Verilog function `name(a, b)` = a*b mod f over GF(p), p odd: coefficients of k =
    coeff_bits(p) bits, coefficient i of x^i lowest; schoolbook product, then reduced by the
    monic f (coefficients low first) from the top coefficient down."""
    m = len(f) - 1
    k = (p - 1).bit_length()
    w = 8 + 2 * k                       # room for a sum of products before `% p`
    lines = []
    for i, fi in enumerate(f[:m]):
        if fi:
            lines.append(f"          c[{i} + j] = (c[{i} + j] + {p}*{p} - top * {fi}) % {p};")
    return f"""\
  function [{m * k - 1}:0] {name}(input [{m * k - 1}:0] a, input [{m * k - 1}:0] b);
    reg [{w - 1}:0] c [0:{2 * m - 2}];
    reg [{w - 1}:0] top;
    integer i, j;
    begin
      for (i = 0; i < {2 * m - 1}; i = i + 1) c[i] = 0;
      for (i = 0; i < {m}; i = i + 1)
        for (j = 0; j < {m}; j = j + 1)
          c[i + j] = (c[i + j] + a[{k}*i +: {k}] * b[{k}*j +: {k}]) % {p};
      for (j = {m - 2}; j >= 0; j = j - 1) begin   // x^(m+j) = -(f - x^m) x^j
        top = c[{m} + j];
{chr(10).join(lines)}
      end
      for (i = 0; i < {m}; i = i + 1) {name}[{k}*i +: {k}] = c[i];
    end
  endfunction
"""
