"""A BatchGetValues answer serialized from pieces, byte for byte what protobuf writes for the message that
`convert.batch_to_pb` fills.

A batch's values differ mostly by their position: a long batch of one game has a handful of (outcome,
grundy, remoteness, source, kind record) combinations. Each combination's Value is serialized once without
its position, and every value is written as that piece's game field, its own position field and the
piece's rest (protobuf writes a message's fields in the order of their numbers: `game` is 1, `position`
2, all others above). Filling a message per value and serializing the list copied each position twice
more and grew protobuf's buffer as it went (a 1,000-heap sum is 7 kB of text: a batch of 500 is 3.5 MB).

An item whose piece cannot be made that way (an error, a record that is not hashable, a number beyond the
wire's integers) is serialized as its own slot by `convert`, as before.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.values import Value
from service import convert
from service.errors import BeyondTheWire

#: The tag of field 1 (length-delimited): `BatchGetValuesResponse.values`, `ValueOrError.value` and
#: `Value.game`; and of field 2 (length-delimited), `Value.position`.
FIELD_1 = b"\x0a"
FIELD_2 = b"\x12"

#: Varints of the lengths below this are kept.
_SHORT = 1 << 14
_VARINTS = [bytes([n]) if n < 0x80 else bytes([(n & 0x7F) | 0x80, n >> 7]) for n in range(_SHORT)]


def varint(n: int) -> bytes:
    """Protobuf's base-128 varint of n >= 0."""
    if n < _SHORT:
        return _VARINTS[n]
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _field(tag: bytes, data: bytes) -> bytes:
    return tag + varint(len(data)) + data


def _piece(value: Value) -> tuple[bytes, bytes] | None:
    """(the game field, the fields after the position) of `value`'s serialized message, or None where the
    serialized message does not start with the game field as expected."""
    template = convert.value_to_pb(value._replace(position="")).SerializeToString()
    game = value.game.encode()
    head = _field(FIELD_1, game) if game else b""
    if not template.startswith(head) or template[len(head) : len(head) + 1] == FIELD_2:
        return None
    return head, template[len(head) :]


def _found(
    value: Value, pieces: dict[tuple[object, ...], tuple[bytes, bytes] | None]
) -> tuple[bytes, bytes] | None:
    """`value`'s piece, made the first time its combination is seen; None where it has none."""
    key = (value.game, value.outcome, value.grundy, value.remoteness, value.source, value.kind)
    try:
        return pieces[key]
    except KeyError:
        try:
            found = pieces[key] = _piece(value)
        except BeyondTheWire:
            found = pieces[key] = None
        return found
    except TypeError:  # a record that is not hashable
        return None


def batch_bytes(items: Sequence[Value | BaseException]) -> bytes:
    """`convert.batch_to_pb(items).SerializeToString()`, from pieces made once per combination."""
    parts: list[bytes] = []
    add = parts.append
    pieces: dict[tuple[object, ...], tuple[bytes, bytes] | None] = {}
    for item in items:
        found = _found(item, pieces) if isinstance(item, Value) else None
        if found is None:
            slot = convert.value_or_error_to_pb(item).SerializeToString()
            add(FIELD_1)
            add(varint(len(slot)))
            add(slot)
            continue
        assert isinstance(item, Value)
        head, tail = found
        position = item.position.encode()
        size = len(head) + len(tail)
        if position:
            size += 1 + len(varint(len(position))) + len(position)
        inner = varint(size)
        add(FIELD_1)
        add(varint(1 + len(inner) + size))
        add(FIELD_1)
        add(inner)
        add(head)
        if position:
            add(FIELD_2)
            add(varint(len(position)))
            add(position)
        add(tail)
    return b"".join(parts)
