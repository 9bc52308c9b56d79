"""Columnar bulk lookups: a million heaps of one game in, their Grundy values out, as packed arrays.

BatchGetValues pays for a Python object (and a message or a JSON object) per value; here positions
travel as one array of heap sizes (and, for sums, one array of offsets), the kind answers the heaps
with numpy straight from the stored chunks (`Tables.lookup_array`), sums are nim-sums of prefix XORs,
and the values go back as one uint32 array. The REST body is the raw little-endian uint64 array and
its answer the raw little-endian uint32 array (API.md); gRPC carries the same arrays as packed
repeated fields.

All or nothing: a malformed array, a heap beyond what can be answered now, or a value that does not
fit uint32 fails the whole call with its error; nothing is ever half-answered.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine.errors import InvalidArgument
from engine.kind import Context, GameKind
from nimbase.settings import Limits, variable_name
from nimbase_client import packed

#: The REST body's and answer's content type.
MEDIA_TYPE = "application/octet-stream"
#: Heap sizes on the REST wire: little-endian unsigned 64-bit integers.
HEAP_BYTES = np.dtype("<u8")
#: Grundy values on the REST wire: little-endian unsigned 32-bit integers.
GRUNDY_BYTES = np.dtype("<u4")
#: The largest value the answer can carry.
MAX_GRUNDY = (1 << 32) - 1


def heaps_from_body(body: bytes, content_type: str | None) -> NDArray[np.uint64]:
    """The heap sizes of a REST body (no copy): it must be sent as application/octet-stream and hold
    whole 8-byte integers. A body of another type is refused rather than guessed at, since JSON or a
    form would be read as numbers no client meant."""
    media_type = (content_type or "").partition(";")[0].strip().lower()
    if media_type != MEDIA_TYPE:
        sent = "none" if content_type is None else repr(content_type[:200])
        raise InvalidArgument(
            f"the request body must be little-endian uint64 heap sizes sent as content-type {MEDIA_TYPE}; "
            f"got {sent}"
        )
    if len(body) % HEAP_BYTES.itemsize:
        raise InvalidArgument(
            f"the request body of {len(body)} bytes is not whole little-endian uint64 heap sizes: its "
            f"length must be a multiple of {HEAP_BYTES.itemsize} ({len(body) % HEAP_BYTES.itemsize} bytes "
            "left over)"
        )
    return np.frombuffer(body, dtype=HEAP_BYTES)


def grundy_body(values: NDArray[np.uint32]) -> bytes:
    """The REST answer: the values as little-endian uint32, in order."""
    return values.astype(GRUNDY_BYTES, copy=False).tobytes()


def grundy_message(values: NDArray[np.uint32]) -> bytes:
    """The gRPC answer, a ColumnarValuesResponse, as bytes: its packed `grundy` field (field 1) written
    from the array, where building the message would cost a Python int per value."""
    return packed.uint_field(1, values)


def check_size(heaps: int, offsets: int | None, limits: Limits) -> None:
    """Refuse a call over `limits.columnar_values` heaps (its offsets at most one more), naming it."""
    most = limits.columnar_values
    if heaps > most or (offsets is not None and offsets > most + 1):
        what = f"{heaps} heaps" if heaps > most else f"{offsets} offsets"
        raise InvalidArgument(
            f"a columnar call holds at most {most} heaps ({variable_name(('limits', 'columnar_values'))}); "
            f"got {what}"
        )


def check_offsets(offsets: NDArray[np.uint64], heaps: int) -> NDArray[np.intp]:
    """Offsets of sums as indices: position i is heaps[offsets[i]:offsets[i+1]], so they start at 0,
    never decrease (equal ones make an empty position, of value 0) and end at the number of heaps."""
    if len(offsets) == 0 or offsets[0] != 0:
        first = "none" if len(offsets) == 0 else str(int(offsets[0]))
        raise InvalidArgument(f"offsets must start at 0 (position 0 starts at heap 0); the first is {first}")
    if int(offsets[-1]) != heaps:
        raise InvalidArgument(
            f"offsets must end at the number of heaps, {heaps}; the last (offsets[{len(offsets) - 1}]) is "
            f"{int(offsets[-1])}"
        )
    backwards = np.flatnonzero(offsets[1:] < offsets[:-1])
    if len(backwards):
        i = int(backwards[0])
        raise InvalidArgument(
            f"offsets must never decrease; offsets[{i + 1}] = {int(offsets[i + 1])} is below "
            f"offsets[{i}] = {int(offsets[i])}"
        )
    return offsets.astype(np.intp)


def grundy_values(
    kind: GameKind[Any], heaps: NDArray[np.uint64], offsets: NDArray[np.uint64] | None, ctx: Context
) -> NDArray[np.uint32]:
    """The Grundy value of each position, in order: each heap a position of its own (`offsets` None),
    or the sums `offsets` delimit (nim-sums, by XOR of prefix XORs: no loop over positions)."""
    bounds = check_offsets(offsets, len(heaps)) if offsets is not None else None
    singles = kind.columnar(heaps, ctx)
    if bounds is None:
        values = singles
    else:
        prefix = np.zeros(len(singles) + 1, dtype=np.int64)
        np.bitwise_xor.accumulate(singles, out=prefix[1:])
        values = prefix[bounds[1:]] ^ prefix[bounds[:-1]]
    if len(values) and values.max() > MAX_GRUNDY:  # one pass, no mask, in the common case
        i = int(np.argmax(values > MAX_GRUNDY))
        where = f"heap {int(heaps[i])}" if bounds is None else f"position {i}"
        raise InvalidArgument(
            f"{where} (at index {i}) of {kind.game_id!r} has Grundy value {int(values[i])}, beyond the "
            f"columnar answer's uint32 (at most {MAX_GRUNDY}); ask GetValue for it"
        )
    return values.astype(np.uint32, copy=False)
