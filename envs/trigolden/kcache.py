"""Keeps numba's on-disk cache of the compiled TriGolden core consistent with its sources.

numba keys a cached function on its own file only, while the core's functions are compiled
together across ``kgeom``, ``kboard``, ``kpairs``, ``kobl``, ``kturn``, ``kdraw`` and
``kplay`` (callees are inlined), and ``kobs`` freezes ``kgeom``'s row layout: after a change
to ``kgeom.py`` alone, the cached ``kturn`` code would still hold the old predicates.
So the cache files of the core are dropped whenever the hash of all of its sources changes
(checked once, on import, before anything is compiled).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

MODULES = ("kgeom", "kboard", "kpairs", "kobl", "kturn", "kdraw", "kplay", "kobs")


def check() -> None:
    """Drop the core's cache files if its sources changed since they were written."""
    here = Path(__file__).parent
    digest = hashlib.sha256(b"".join((here / f"{m}.py").read_bytes() for m in MODULES))
    cache = here / "__pycache__"
    stamp = cache / "trigolden-core.sha256"
    try:
        if stamp.read_text() == digest.hexdigest():
            return
    except OSError:
        pass
    try:
        cache.mkdir(exist_ok=True)
        for path in cache.iterdir():
            if path.name.split(".")[0] in MODULES and path.suffix in (".nbi", ".nbc"):
                path.unlink(missing_ok=True)
        stamp.write_text(digest.hexdigest())
    except OSError:  # a read-only install: numba then does not cache either
        pass


check()
