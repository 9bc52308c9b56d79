"""A GetValue answer serialized from pieces, byte for byte what protobuf writes for the message that
`convert.value_to_pb` fills.

Distinct lookups of one game differ mostly by their position, Grundy value and remoteness: the rest of
the answer (game, outcome, source, kind record) takes a handful of combinations. Each combination is
serialized once, without those three, and cut where they go (protobuf writes a message's fields in the
order of their numbers: `game` 1, `position` 2, `outcome` 3, `grundy` 4, `remoteness` 5, all others
above). Filling a message and serializing it costs a microsecond a call; joining the pieces about half.

A combination whose pieces cannot be made that way (a record that is not hashable, a number beyond the
wire's integers, a message not laid out as expected) is serialized by `convert`, as before.
"""

from __future__ import annotations

from engine.values import Value
from service import convert
from service.batch_wire import FIELD_1, FIELD_2, varint
from service.errors import BeyondTheWire

#: The tags of `Value.outcome` (field 3, length-delimited), `Value.grundy` and `Value.remoteness`
#: (fields 4 and 5, varints).
FIELD_3 = b"\x1a"
FIELD_4 = b"\x20"
FIELD_5 = b"\x28"
#: The largest number written from pieces: int64's, beyond which `convert` refuses it.
MOST = (1 << 63) - 1
#: Combinations kept; past it they are forgotten and made again as asked.
KEPT = 4096

Pieces = tuple[bytes, bytes, bytes]


def _field(tag: bytes, data: bytes) -> bytes:
    return tag + varint(len(data)) + data


def _pieces(value: Value) -> Pieces | None:
    """(what goes before the position, between position and Grundy value, after the remoteness) of
    `value`'s serialized message, or None where the message is not laid out as expected."""
    bare = value._replace(position="", grundy=None, remoteness=None)
    template = convert.value_to_pb(bare).SerializeToString()
    game = value.game.encode()
    head = _field(FIELD_1, game) if game else b""
    outcome = _field(FIELD_3, value.outcome.encode()) if value.outcome else b""
    if not template.startswith(head + outcome):
        return None
    tail = template[len(head) + len(outcome) :]
    if tail[:1] in (FIELD_1, FIELD_2, FIELD_3, FIELD_4, FIELD_5):
        return None
    return head, outcome, tail


def _joined(pieces: Pieces, value: Value) -> bytes:
    head, outcome, tail = pieces
    position = value.position.encode()
    grundy, remoteness = value.grundy, value.remoteness
    return b"".join(
        (
            head,
            FIELD_2 + varint(len(position)) + position if position else b"",
            outcome,
            b"" if grundy is None else FIELD_4 + varint(grundy),
            b"" if remoteness is None else FIELD_5 + varint(remoteness),
            tail,
        )
    )


class ValueWire:
    """Writes GetValue answers from the pieces of the combinations seen so far (at most `KEPT`), on one
    thread (the event loop)."""

    def __init__(self) -> None:
        self._pieces: dict[tuple[object, ...], Pieces | None] = {}

    def answer(self, value: Value) -> bytes:
        """`convert.value_to_pb(value).SerializeToString()`."""
        grundy, remoteness = value.grundy, value.remoteness
        if (grundy is not None and not 0 <= grundy <= MOST) or (
            remoteness is not None and not 0 <= remoteness <= MOST
        ):
            return convert.value_to_pb(value).SerializeToString()
        key = (value.game, value.outcome, value.source, value.kind)
        try:
            found = self._pieces[key]
        except KeyError:
            found = self._made(key, value)
        except TypeError:  # a record that is not hashable
            found = None
        if found is None:
            return convert.value_to_pb(value).SerializeToString()
        return _joined(found, value)

    def _made(self, key: tuple[object, ...], value: Value) -> Pieces | None:
        if len(self._pieces) >= KEPT:
            self._pieces.clear()
        try:
            found = _pieces(value)
            # The first value of each combination is checked against protobuf's own bytes.
            if found is not None and _joined(found, value) != convert.value_to_pb(value).SerializeToString():
                found = None
        except BeyondTheWire:
            found = None
        self._pieces[key] = found
        return found
