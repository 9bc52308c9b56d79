"""Keep the C heap of a long-running server from growing with its threads: glibc gives each thread its
own malloc arena (up to 8 per core), and memory freed in an arena is kept by the process, so a server
whose worker threads build large transient answers (batches, sequences) sees its resident memory creep
up long after its caches are full. Capping the arenas and trimming the heap now and then returns that
memory to the system. A no-op where the C library is not glibc.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

log = logging.getLogger(__name__)

#: mallopt's parameter number for the arena cap (glibc's M_ARENA_MAX).
_M_ARENA_MAX = -8
#: Arenas the server's threads share: enough that they rarely wait on one another's allocations.
ARENAS = 2
#: Seconds between two trims of the heap (each takes a few milliseconds).
TRIM_SECONDS = 30.0


def _glibc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        libc = ctypes.CDLL(name)
        libc.mallopt  # noqa: B018 - glibc has it; other C libraries may not
        libc.malloc_trim  # noqa: B018
    except (OSError, AttributeError):
        return None
    return libc


_LIBC = _glibc()


def cap_arenas() -> None:
    """Limit the malloc arenas; call before the server's threads start (later threads then share)."""
    if _LIBC is not None and not _LIBC.mallopt(_M_ARENA_MAX, ARENAS):
        log.warning("could not cap the malloc arenas")


def trim() -> None:
    """Give the free memory at the top of every arena back to the system."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)
