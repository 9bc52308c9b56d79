"""JSON answers encoded a piece at a time, so a large one does not hold the GIL from the event loop.

`json.dumps` is one C call that keeps the GIL until it is done: a sequence of a million values took
137-186 ms beside the soak's load, during which the event loop (every REST and gRPC request) could not
run; the soak's loop stalls of 116-171 ms had a thread inside that encoder (service.loop_lag's log).
Encoding long lists in pieces of `PIECE` items gives the other threads the GIL between pieces. The bytes
are those `json.dumps` gives (compact, UTF-8, no NaN).

An answer too long to hold whole (a sequence of a million values) is written as its client reads:
`around` gives the text of the answer before and after its long list, and `list_in_pieces` the bytes of the
whole, its list's items encoded a piece at a time as they come.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from fastapi.responses import JSONResponse

#: Items of a list encoded in one C call (a few milliseconds of the GIL).
PIECE = 4096
#: A list of at most this many scalars, or a dict of scalars, is encoded as one item of a piece.
FLAT_ITEMS = 64

_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":"))
_dumps = _ENCODER.encode
#: The types JSON answers hold besides dicts and lists (checked by type, in C, before any item is looked at).
_SCALARS = {int, str, float, bool, type(None)}


def _scalar(value: Any) -> bool:
    return not isinstance(value, (dict, list))


def _flat(item: Any) -> bool:
    """An item a piece may hold: a scalar, a dict of scalars, or a short list of scalars."""
    if isinstance(item, dict):
        return all(map(_scalar, item.values()))
    if isinstance(item, list):
        return len(item) <= FLAT_ITEMS and all(map(_scalar, item))
    return True


def encode(content: Any) -> str:
    """`content` as compact JSON text, its long lists (at any depth of dicts and lists) a piece at a
    time; the text `json.dumps` gives with JSONResponse's options."""
    if isinstance(content, dict):
        if not all(isinstance(key, str) for key in content) or all(map(_scalar, content.values())):
            return _dumps(content)
        return "{" + ",".join(f"{_dumps(key)}:{encode(value)}" for key, value in content.items()) + "}"
    if isinstance(content, list):
        parts = []
        for start in range(0, len(content), PIECE):
            piece = content[start : start + PIECE]
            if not set(map(type, piece)) - _SCALARS or all(map(_flat, piece)):
                parts.append(_dumps(piece)[1:-1])
            else:
                parts.append(",".join(map(encode, piece)))
        return "[" + ",".join(parts) + "]"
    return _dumps(content)


def around(content: dict[str, Any], key: str) -> tuple[str, str]:
    """The text `encode` gives `content`, whose list `key` is empty, before and after that list's items."""
    text = encode(content)
    marker = f"{_dumps(key)}:[]"
    # Unique: in the text of a string every '"' is escaped, and a number or a constant holds none.
    head, found, tail = text.partition(marker)
    assert found, f"{key!r} is not a key of the object, or its list is not empty"
    return head + marker[:-1], "]" + tail


def list_in_pieces(head: str, pieces: Iterable[list[Any]], tail: str) -> Iterator[bytes]:
    """The bytes of `head`, the items of every piece in order, comma-separated, then `tail` (`around`'s
    parts): each piece encoded when the caller asks for it (a million values are never text at once)."""
    yield head.encode()
    separator = ""
    for piece in pieces:
        if piece:
            yield (separator + _items(piece)).encode()
            separator = ","
    yield tail.encode()


def _items(piece: list[Any]) -> str:
    """The items of a piece as JSON text; numpy integers (which `json` cannot encode) made ints first, as
    the answers' conversion makes them."""
    try:
        return encode(piece)[1:-1]
    except TypeError:
        return encode([int(item) for item in piece])[1:-1]


class PiecewiseJSONResponse(JSONResponse):
    """A JSONResponse whose body is encoded by `encode`."""

    def render(self, content: Any) -> bytes:
        return encode(content).encode("utf-8")
