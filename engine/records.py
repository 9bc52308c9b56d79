"""What a kind adds to its answers: one record for a value, one for a move, declared by the kind.

Every game's value has the same core (`engine.values.Value`); a kind with more to say (bicolor-nim's
G-, a puzzle's solution, a move's heap or chess notation) declares a frozen dataclass deriving from
`ValueRecord` or `MoveRecord`, in its own module, with the text under each field as its documentation.
The service derives every conversion from the declaration: the REST JSON merges the record's fields
into the answer (`as_dict`), and the gRPC message carries it as the `kind` member whose message has the
record's class name (`nimbase.proto`). Adding a field is one line in the record and one in its message.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Self

__all__ = ["KindRecord", "MoveRecord", "ValueRecord", "record_fields"]


def record_fields(cls: type[KindRecord]) -> tuple[str, ...]:
    """The record's field names, in declaration order (read once per class)."""
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]
    return names


_FIELDS: dict[type[KindRecord], tuple[str, ...]] = {}


class KindRecord:
    """Base of the kind records (each one a frozen dataclass with slots)."""

    __slots__ = ()

    def as_dict(self) -> dict[str, object]:
        """The fields that are known (None left out), tuples as lists: what the JSON answer adds."""
        out: dict[str, object] = {}
        for name in record_fields(type(self)):
            value: Any = getattr(self, name)
            if value is None:
                continue
            out[name] = list(value) if isinstance(value, tuple) else value
        return out


class ValueRecord(KindRecord):
    """What a kind adds to the value of a position."""

    __slots__ = ()


class MoveRecord(KindRecord):
    """What a kind adds to a move, beside its text and the value of the position reached."""

    __slots__ = ()

    def reached(self, kind: ValueRecord | None) -> Self:
        """The record once the position the move leads to is valued (`kind`: that value's record): a kind
        whose move repeats something of it (bicolor-nim's G-) fills it here; most keep the record as it
        is."""
        return self
