"""The algorithm families. Each is a package here that registers its algorithms when it is
imported; the registry imports the ones this list names (a family of another package
registers itself through the `modforge.families` entry-point group instead)."""

FAMILIES = (
    "gf2n",
    "digitserial",
    "modmul",
    "ntt",
    "polyring",
    "wordserial",
    "fmlm3",
)
