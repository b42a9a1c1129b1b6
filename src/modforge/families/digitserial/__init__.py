"""Digit-serial GF(p^m) multipliers (MSE and LSE first, pipelined, NAM) from the survey
by Beuchat et al.; importing this package registers its algorithms."""

from . import algorithms  # noqa: F401  (registers the algorithms)
