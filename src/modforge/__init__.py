"""modforge: generator of verified modular-multiplier hardware."""

__version__ = "0.1.0"
