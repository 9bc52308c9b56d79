"""The server's malloc settings keep large blocks out of the arenas (service.malloc).

glibc raises its mmap threshold to the size of each large mapped block freed, so after one 16 MiB answer
a 1 MiB array is carved out of an arena, where its memory stays resident once freed; with the threshold
fixed by `malloc.configure` it gets a mapping of its own. Each case runs in a fresh interpreter, so the
threshold starts where glibc starts it and this test process's heap is left alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from service import malloc
from storage.packing import CHUNK_VALUES

REPO = Path(__file__).resolve().parents[2]

#: Prints the bytes mapped apart for a 1 MiB block allocated after a 16 MiB one was freed.
PROBE = """
import ctypes, sys
from service import malloc

class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
        "keepcost")]

libc = malloc._LIBC
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
libc.free.restype, libc.free.argtypes = None, [ctypes.c_void_p]
libc.mallinfo2.restype = MallInfo2
if sys.argv[1] == "configured":
    malloc.configure()
libc.free(libc.malloc(16 << 20))  # a large answer, come and gone
before = libc.mallinfo2().hblkhd
block = libc.malloc(1 << 20)
print(libc.mallinfo2().hblkhd - before)
libc.free(block)
"""


def _mapped_apart(mode: str) -> int:
    path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path}
    for name in [k for k in env if k.startswith("MALLOC_") or k == "GLIBC_TUNABLES"]:
        del env[name]  # glibc's own settings would fix the threshold too
    done = subprocess.run(
        [sys.executable, "-c", PROBE, mode], env=env, capture_output=True, text=True, timeout=60, check=True
    )
    return int(done.stdout.strip())


glibc_only = pytest.mark.skipif(
    malloc._LIBC is None or not hasattr(malloc._LIBC, "mallinfo2"), reason="glibc 2.33 or later only"
)


@glibc_only
def test_without_the_setting_a_freed_large_block_moves_large_arrays_into_the_arenas() -> None:
    assert _mapped_apart("default") == 0


@glibc_only
def test_configured_large_arrays_keep_a_mapping_of_their_own() -> None:
    assert _mapped_apart("configured") >= 1 << 20


#: Prints the bytes given back to the system as ten blocks of 100 KiB (each below the mmap threshold)
#: are freed, with the mmap threshold alone fixed (`threshold`) or the server's settings (`configured`).
TRIM_PROBE = """
import ctypes, sys
from service import malloc

class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
        "keepcost")]

libc = malloc._LIBC
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
libc.free.restype, libc.free.argtypes = None, [ctypes.c_void_p]
libc.mallinfo2.restype = MallInfo2
if sys.argv[1] == "configured":
    malloc.configure()
else:
    libc.mallopt(-3, malloc.MMAP_THRESHOLD_BYTES)
blocks = [libc.malloc(100 << 10) for _ in range(10)]
grown = libc.mallinfo2().arena
for block in reversed(blocks):
    libc.free(block)
print(grown - libc.mallinfo2().arena)
"""


def _given_back(mode: str) -> int:
    path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}
    done = subprocess.run(
        [sys.executable, "-c", TRIM_PROBE, mode],
        env={**env, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return int(done.stdout.strip())


@glibc_only
def test_blocks_freed_below_the_trim_threshold_stay_for_the_next_request() -> None:
    """Fixing the mmap threshold fixes glibc's trim threshold at 128 KiB: a batch's parts of 100 KiB
    blocks gave the heap's top back as they were freed, and faulted it in again for the next part.
    Configured, what they free stays (the periodic trim gives it back)."""
    assert _given_back("threshold") >= 512 << 10
    assert _given_back("configured") == 0


def test_a_stored_chunk_is_above_the_threshold() -> None:
    """The chunks the server caches and drops are the blocks that fragmented the arenas."""
    assert CHUNK_VALUES * np.dtype(np.uint32).itemsize >= malloc.MMAP_THRESHOLD_BYTES


#: Prints how many malloc arenas the process has once 12 threads have allocated at once, with the
#: settings made before any thread (`early`) or after 12 threads allocated (`late`).
ARENAS_PROBE = """
import ctypes, os, sys, tempfile, threading
from service import malloc

libc = malloc._LIBC
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
libc.free.restype, libc.free.argtypes = None, [ctypes.c_void_p]
libc.fopen.restype, libc.fopen.argtypes = ctypes.c_void_p, [ctypes.c_char_p, ctypes.c_char_p]
libc.fclose.argtypes = [ctypes.c_void_p]
libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]

def allocate_at_once(threads):
    barrier = threading.Barrier(threads)
    def run():
        block = libc.malloc(4096)
        barrier.wait()
        libc.free(block)
    started = [threading.Thread(target=run) for _ in range(threads)]
    for thread in started:
        thread.start()
    for thread in started:
        thread.join()

if sys.argv[1] == "early":
    malloc.configure()
allocate_at_once(12)
if sys.argv[1] == "late":
    malloc.configure()
allocate_at_once(12)
path = os.path.join(tempfile.mkdtemp(), "info.xml")
out = libc.fopen(path.encode(), b"w")
libc.malloc_info(0, out)
libc.fclose(out)
print(open(path).read().count("<heap nr="))
"""


def _arenas(mode: str) -> int:
    path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k != "GLIBC_TUNABLES"}
    done = subprocess.run(
        [sys.executable, "-c", ARENAS_PROBE, mode],
        env={**env, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return int(done.stdout.strip())


@glibc_only
def test_the_arena_cap_holds_only_if_set_before_threads_allocate() -> None:
    """glibc fixes its arena limit once more than 8 arenas exist: set later, the cap is never applied
    (the soak's server had 16 arenas, each keeping its own free memory), so the server sets it first."""
    assert _arenas("early") <= malloc.ARENAS
    assert _arenas("late") > malloc.ARENAS
