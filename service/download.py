"""A range of a sequence as one compressed file: a gzipped `.npy` (little-endian uint32), streamed.

For users who want whole tables rather than answers. The service reads the range block by block through
GetSequence's own path (stored chunks, certified periods, live values within the limits), and each block
is compressed and sent before the next is read, so a download holds one block in memory however long
it is. The file opens with `numpy.load(gzip.open(path))`.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable, Iterator

import numpy as np
from numpy.typing import NDArray

#: gzip level: the values are small integers, which level 6 already packs to a fraction of their size.
GZIP_LEVEL = 6
_UNSAFE = re.compile(r"[^A-Za-z0-9.,_-]+")


def npy_header(count: int) -> bytes:
    """The `.npy` (format 1.0) header of `count` little-endian uint32 values."""
    text = f"{{'descr': '<u4', 'fortran_order': False, 'shape': ({count},), }}"
    # magic (6) + version (2) + length (2) + text + newline, padded with spaces to a multiple of 64
    padding = -(10 + len(text) + 1) % 64
    header = (text + " " * padding + "\n").encode("latin1")
    return b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header


def gzipped_npy(count: int, blocks: Iterable[NDArray[np.uint32]]) -> Iterator[bytes]:
    """The gzip stream of an `.npy` file of `count` values, given in order by `blocks`."""
    compressor = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, 31)  # 31: a gzip container
    yield compressor.compress(npy_header(count))
    for block in blocks:
        data = compressor.compress(block.astype("<u4", copy=False).tobytes())
        if data:
            yield data
    yield compressor.flush()


def file_name(game: str, family: str | None, start: int, stop: int) -> str:
    """A file name saying what the file holds (game ids hold ':' and ',', kept readable)."""
    parts = [game.replace(":", "_"), *([family] if family else []), f"{start}-{stop}"]
    return _UNSAFE.sub("_", "_".join(parts)) + ".npy.gz"
