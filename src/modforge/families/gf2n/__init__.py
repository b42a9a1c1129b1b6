"""GF(2)[t]/F(t) interleaved multipliers: Blakely, Montgomery, BMM, FIKO, RF-FIKO
(reduction-free-gf2n-fiko-rffiko.txt with errata.md). Importing registers them."""

from . import algorithms  # noqa: F401  (registers gf2n-*)
