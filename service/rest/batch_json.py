"""A POST /v1/values:batch answer written from pieces, byte for byte what `json_body.encode` writes for
`convert.batch_as_dict` (the REST form of service.batch_wire).

json's encoder looks at every character of every string for one to escape (about 2 ns a character): a
batch of 500 sums of 1,000 heaps holds 3.4 MB of positions, and encoding it cost 17 us a value, more than
answering them. A batch's values differ mostly by their position, so each combination of the other fields
is encoded once with an empty position and cut there, and each value is written as that piece's head, its
own position as it is, and the piece's tail. A position goes in as it is where it holds no character JSON
escapes: no '"' or '\\' (str's own search, a memchr) and no control character (below 0x20, looked for
once in the whole answer by numpy: the pieces hold none, since the encoder escaped them).

An error, a value whose piece cannot be made that way, or a position that needs escaping, is encoded by
`json_body.encode`, as before.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.values import Value
from service import convert
from service.rest.json_body import encode

Piece = tuple[bytes, bytes]


def _piece(value: Value) -> Piece | None:
    """(the text before the position's characters, the text after them) of `value`'s JSON, or None where
    its JSON does not start with its game and position as expected."""
    text = encode(convert.value_as_dict(value._replace(position="")))
    head = '{"game":' + encode(value.game) + ',"position":"'
    if not text.startswith(head) or text[len(head) : len(head) + 1] != '"':
        return None
    return head.encode(), text[len(head) :].encode()


def _clean(position: str) -> bytes | None:
    """The position's UTF-8 bytes where JSON writes it as it is (control characters aside), else None."""
    if '"' in position or "\\" in position:
        return None
    try:
        return position.encode()
    except UnicodeEncodeError:  # a lone surrogate: the encoder's affair
        return None


def _item(item: Value | BaseException) -> bytes:
    return encode(
        convert.value_as_dict(item) if isinstance(item, Value) else convert.error_as_dict(item)
    ).encode()


def batch_json(items: Sequence[Value | BaseException]) -> bytes:
    """`encode(convert.batch_as_dict(items)).encode()`, from pieces made once per combination."""
    parts: list[bytes] = [b'{"values":[']
    add = parts.append
    pieces: dict[tuple[object, ...], Piece | None] = {}
    pieced = False
    for i, item in enumerate(items):
        if i:
            add(b",")
        piece = None
        position = None
        if isinstance(item, Value):
            key = (item.game, item.outcome, item.grundy, item.remoteness, item.source, item.kind)
            try:
                piece = pieces[key]
            except KeyError:
                piece = pieces[key] = _piece(item)
            except TypeError:  # a record that is not hashable
                piece = None
            if piece is not None:
                position = _clean(item.position)
        if piece is None or position is None:
            add(_item(item))
            continue
        add(piece[0])
        add(position)
        add(piece[1])
        pieced = True
    add(b"]}")
    body = b"".join(parts)
    if pieced and body and int(np.frombuffer(body, dtype=np.uint8).min()) < 0x20:
        return encode(convert.batch_as_dict(items)).encode()  # a control character in a position
    return body
