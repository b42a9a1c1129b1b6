"""Word-serial multipliers for RSA-sized integers: rsa-montgomery (FIOS Montgomery with a
chain of processing elements, the modulus loaded at run time). Importing registers them."""

from . import algorithms  # noqa: F401  (registers rsa-montgomery)
