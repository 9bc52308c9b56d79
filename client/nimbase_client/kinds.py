"""The kinds' records on the wire: the `kind` oneof of the Value and Move messages, read and filled from
the descriptors alone.

A kind (a coloured-heap game, a puzzle, an endgame, ...) adds a few fields to a value or a move; on the
wire they are one message per kind record, the member of `kind` whose message type has the record's name.
The REST JSON has the same fields flat, beside the core ones. Nothing here names a kind or a field: how
each field travels is read from its descriptor once per message type (a scalar set as it is, an `optional`
one only when present, a repeated one as a list, a `StringList` as a list that may be absent).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from google.protobuf.message import Message

__all__ = [
    "KIND_ONEOF",
    "Carry",
    "Member",
    "Spec",
    "UndeclaredKind",
    "carry",
    "fill_kind",
    "kind_fields",
    "member",
    "put",
]

#: The oneof of Value and Move that holds the kind's record.
KIND_ONEOF = "kind"


class UndeclaredKind(ValueError):
    """A kind record, or one of its fields, that the wire message does not declare."""


class Carry(Enum):
    """How one field of a kind message travels."""

    #: A scalar, always given (its default when unset).
    PLAIN = "plain"
    #: An `optional` scalar: given only when present.
    OPTIONAL = "optional"
    #: A repeated scalar: always a list (maybe empty).
    REPEATED = "repeated"
    #: A message of one repeated field (`StringList`): a list that may be absent.
    LIST = "list"


def carry(field: Any) -> tuple[Carry, Any]:
    """How `field` (a FieldDescriptor) travels, and the field that holds its items (for LIST, the
    wrapper's one field)."""
    if field.is_repeated:
        return Carry.REPEATED, field
    if field.message_type is not None:
        items = field.message_type.fields
        if len(items) != 1 or not items[0].is_repeated or items[0].message_type is not None:
            raise UndeclaredKind(
                f"field {field.full_name!r} of a kind message is a message other than a list of scalars"
            )
        return Carry.LIST, items[0]
    return (Carry.OPTIONAL if field.has_presence else Carry.PLAIN), field


#: How one field of a kind message travels, and the name of the field holding its items (itself, or a
#: LIST wrapper's one field).
Spec = tuple[Carry, str]


@dataclass(frozen=True, slots=True)
class Member:
    """One member of a `kind` oneof: its name and how each field of its message travels (by name, in
    the message's order)."""

    name: str
    fields: dict[str, Spec]


_MEMBERS: dict[tuple[str, str], Member] = {}
_BY_FIELD: dict[str, Member] = {}


def _member_of(field: Any) -> Member:
    """The member that oneof field (a FieldDescriptor) is (read once)."""
    found = _BY_FIELD.get(field.full_name)
    if found is None:
        fields: dict[str, Spec] = {}
        for item in field.message_type.fields:
            how, holder = carry(item)
            fields[item.name] = (how, holder.name)
        found = _BY_FIELD[field.full_name] = Member(field.name, fields)
    return found


def member(container: Any, kind: str) -> Member:
    """The member of the kind oneof of `container` (a Value or Move Descriptor) whose message is named
    `kind` (looked up once)."""
    key = (container.full_name, kind)
    found = _MEMBERS.get(key)
    if found is None:
        for field in container.oneofs_by_name[KIND_ONEOF].fields:
            if field.message_type.name == kind:
                found = _MEMBERS[key] = _member_of(field)
                break
        else:
            raise UndeclaredKind(
                f"kind record {kind!r} has no message in the {KIND_ONEOF!r} oneof of {container.name}"
            )
    return found


def put(sub: Any, name: str, spec: Spec, value: Any) -> None:
    """Sets one field of a kind message (`sub`) from its JSON form (a list for repeated and LIST)."""
    how, holder = spec
    if how is Carry.REPEATED:
        getattr(sub, name).extend(value)
    elif how is Carry.LIST:
        wrapper = getattr(sub, name)
        wrapper.SetInParent()
        getattr(wrapper, holder).extend(value)
    else:
        setattr(sub, name, value)


def fill_kind(msg: Message, kind: str, fields: Mapping[str, Any]) -> None:
    """Sets the `kind` member of `msg` (a Value or a Move) whose message is named `kind` from the
    record's fields as the JSON has them (absent ones left out; lists as lists)."""
    found = member(msg.DESCRIPTOR, kind)
    sub: Any = getattr(msg, found.name)
    sub.SetInParent()  # present even when every field is at its default
    for name, value in fields.items():
        spec = found.fields.get(name)
        if spec is None:
            raise UndeclaredKind(f"field {name!r} of kind record {kind!r} is not in its message")
        put(sub, name, spec, value)


def kind_fields(msg: Message) -> dict[str, Any]:
    """The fields of the `kind` member set in `msg` (a Value or a Move), as the REST JSON has them;
    empty when no kind record is set."""
    name = msg.WhichOneof(KIND_ONEOF)
    if name is None:
        return {}
    sub: Any = getattr(msg, name)
    member = _member_of(msg.DESCRIPTOR.fields_by_name[name])
    out: dict[str, Any] = {}
    for field, (how, holder) in member.fields.items():
        if how is Carry.PLAIN:
            out[field] = getattr(sub, field)
        elif how is Carry.REPEATED:
            out[field] = list(getattr(sub, field))
        elif not sub.HasField(field):
            continue
        elif how is Carry.LIST:
            out[field] = list(getattr(getattr(sub, field), holder))
        else:
            out[field] = getattr(sub, field)
    return out
