"""Keep the C heap of a long-running server from growing with its threads and its large answers.

glibc gives each thread its own malloc arena (up to 8 per core), and memory freed inside an arena is kept
by the process: capping the arenas and trimming the heap now and then returns much of it to the system.
The cap must be set first thing in the process: glibc fixes its arena limit (8 per core) for good once
more than 8 arenas exist, and a cap set after that is never applied. It used to be set in `serve`, after
the live processes' threads and gRPC's had allocated: a server started as the soak starts it ran with 16
arenas, each keeping its own free memory, and under the soak's mixed load the memory resident in them grew
by 24 MiB in five minutes while the memory in use grew by 9; with the cap set first, by 5 MiB under twice
the requests, and the server's RSS ended 8 MiB lower.

Large blocks are the other half. glibc maps each allocation of at least its mmap threshold apart (128 KiB
at first) and unmaps it when freed, but each such block freed raises the threshold to its size (up to
32 MiB). From then on the transient arrays of answers (stored chunks of 256 KiB, sequences, batches, the
pickled answers of the live processes) are carved out of the arenas, where what they free stays resident
and fragments the heap, and the RSS steps up whenever a larger block than before comes and goes (in the
soak, once by about 40 MiB, after a database outage). Fixing the threshold, which stops glibc from moving
it, keeps every large block in a mapping of its own, returned to the system the moment it is freed. It
must stay below the stored chunks' size: with it fixed at 1 MiB the arenas' free memory grew as before.
The price is a large block's page faults each time it is made (a few hundred microseconds per MiB), small
beside the work of the answers that make such blocks.

Fixing the threshold also fixes glibc's trim threshold (free memory at the top of an arena beyond which
`free` gives it back) at its initial 128 KiB, which glibc otherwise raises with the mmap threshold. A
request whose transient blocks are each below the mmap threshold but together above 128 KiB (a batch of
long positions handled in parts of 100 KiB) then gave its arena's top back as it freed them and faulted
it in again for the next part: 26.8 us instead of 5.8 to join and encode 100 KiB of positions. The trim
threshold is set to TRIM_THRESHOLD_BYTES: what a request frees stays for the next up to that much, and
the periodic trim gives the rest back. A no-op where the C library is not glibc.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging

log = logging.getLogger(__name__)

#: mallopt's parameter number for the arena cap (glibc's M_ARENA_MAX).
_M_ARENA_MAX = -8
#: mallopt's parameter number for the mmap threshold (glibc's M_MMAP_THRESHOLD).
_M_MMAP_THRESHOLD = -3
#: Arenas the server's threads share: enough that they rarely wait on one another's allocations.
ARENAS = 2
#: Allocations of at least this many bytes get a mapping of their own, unmapped when freed (glibc's
#: initial threshold, kept: a stored chunk of 256 KiB is above it, a request's objects are below).
MMAP_THRESHOLD_BYTES = 128 << 10
#: mallopt's parameter number for the trim threshold (glibc's M_TRIM_THRESHOLD).
_M_TRIM_THRESHOLD = -1
#: Free memory at the top of an arena kept by `free` (the periodic trim gives it back).
TRIM_THRESHOLD_BYTES = 8 << 20
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


def configure() -> None:
    """Cap the malloc arenas and fix the mmap threshold; call first in a server's process, before any of
    its threads allocate (threads then share the arenas), and again at will (it changes nothing then)."""
    if _LIBC is None:
        return
    if not _LIBC.mallopt(_M_ARENA_MAX, ARENAS):
        log.warning("could not cap the malloc arenas")
    if not _LIBC.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES):
        log.warning("could not fix the malloc mmap threshold")
    if not _LIBC.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES):
        log.warning("could not set the malloc trim threshold")


def trim() -> None:
    """Give the free memory at the top of every arena back to the system."""
    if _LIBC is not None:
        _LIBC.malloc_trim(0)
