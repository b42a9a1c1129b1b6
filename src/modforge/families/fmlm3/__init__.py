"""FFT-based Montgomery multiplication FMLM3 (Dai et al. 2017, docs/references.md): the FFT/FFT^-1
unit as fmlm3-transform, and the multiplier rsa-fmlm3 around one such unit. Importing
registers them."""

from . import algorithms  # noqa: F401  (registers fmlm3-transform and rsa-fmlm3)
