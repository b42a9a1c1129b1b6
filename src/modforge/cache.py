"""The one cache folder of modforge: $MODFORGE_CACHE, else ~/.cache/modforge, else a
folder in the temp dir (the first that is writable). Things kept there are keyed by a
hash of what made them, so a stale entry is never used."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def cache_dir(sub: str = "") -> Path:
    env = os.environ.get("MODFORGE_CACHE")
    candidates = [Path(env)] if env else []
    candidates += [Path.home() / ".cache" / "modforge", Path(tempfile.gettempdir()) / "modforge-cache"]
    for base in candidates:
        d = base / sub if sub else base
        try:
            d.mkdir(parents=True, exist_ok=True)
            if os.access(d, os.W_OK):
                return d
        except OSError:
            continue
    raise OSError("no writable cache directory (set MODFORGE_CACHE)")
