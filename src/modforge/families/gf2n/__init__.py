"""GF(2)[t]/F(t) interleaved multipliers: Blakely, Montgomery, BMM, FIKO, RF-FIKO
(Oliva Madrigal et al., docs/references.md; corrections in docs/corrections.md). Importing registers them."""

from . import algorithms  # noqa: F401  (registers gf2n-*)
