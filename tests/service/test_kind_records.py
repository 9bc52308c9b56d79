"""The kinds' records agree everywhere they are declared: the engine's dataclasses, the messages of
nimbase.proto (`kind` oneofs of Value and Move), and the client's generated shapes."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import pkgutil
import sys
import types
import typing
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.descriptor import FieldDescriptor

import kinds
from engine.records import KindRecord, MoveRecord, ValueRecord, record_fields
from nimbase import schema
from nimbase.v1 import nimbase_pb2 as pb
from nimbase_client.kinds import Carry, carry
from nimbase_client.v1 import kind_records

ROOT = Path(__file__).resolve().parents[2]


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location(
        "generate_kind_records", ROOT / "proto" / "generate_kind_records.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _records() -> list[type[KindRecord]]:
    """Every kind record: the kinds' modules (each kind's package, its edge aside) and the tests' toy
    kind, imported."""
    for info in pkgutil.walk_packages(kinds.__path__, "kinds."):
        if ".edge" not in info.name:
            importlib.import_module(info.name)
    importlib.import_module("tests.service.toy_kind")
    found: list[type[KindRecord]] = []
    pending: list[type[KindRecord]] = [ValueRecord, MoveRecord]
    while pending:
        for sub in pending.pop().__subclasses__():
            pending.append(sub)
            # the module's own class: not the class a slots dataclass replaced, nor one a test made up
            if getattr(sys.modules[sub.__module__], sub.__qualname__, None) is sub:
                found.append(sub)
    return found


RECORDS = _records()
#: The message of each side's kind oneof, by name.
SIDES = {ValueRecord: pb.Value.DESCRIPTOR, MoveRecord: pb.Move.DESCRIPTOR}
_PROTO_TYPES = {
    int: {"TYPE_INT64", "TYPE_INT32", "TYPE_UINT64", "TYPE_UINT32", "TYPE_SINT64", "TYPE_SINT32"},
    bool: {"TYPE_BOOL"},
    str: {"TYPE_STRING"},
    float: {"TYPE_DOUBLE", "TYPE_FLOAT"},
}


def _message(record: type[KindRecord]) -> Any:
    side = SIDES[ValueRecord if issubclass(record, ValueRecord) else MoveRecord]
    members = {field.message_type.name: field.message_type for field in side.oneofs_by_name["kind"].fields}
    assert record.__name__ in members, f"{record.__name__} has no message in the kind oneof of {side.name}"
    return members[record.__name__]


def _split(annotation: Any) -> tuple[Any, bool, bool]:
    """(item type, repeated, may be None) of a record field's annotation."""
    optional = False
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        assert len(args) == 1, annotation
        annotation, optional = args[0], True
    if typing.get_origin(annotation) is tuple:
        items = {a for a in typing.get_args(annotation) if a is not Ellipsis}
        assert len(items) == 1, annotation
        return items.pop(), True, optional
    return annotation, False, optional


#: Each protobuf field type's name, by its number.
_TYPE_NAMES = {getattr(FieldDescriptor, n): n for n in dir(FieldDescriptor) if n.startswith("TYPE_")}


def _type_name(field: Any) -> str:
    return _TYPE_NAMES[field.type]


def test_the_generated_client_shapes_are_up_to_date() -> None:
    generator = _generator()
    text = generator.render(generator.descriptor_set())
    assert text == generator.TARGET.read_text(), "run `make proto`: kind_records.py is out of date"


def test_every_kind_message_has_its_engine_record() -> None:
    names = {record.__name__ for record in RECORDS}
    for side in SIDES.values():
        for field in side.oneofs_by_name["kind"].fields:
            assert field.message_type.name in names, f"{field.message_type.name} has no engine record"
    assert len(names) == len(RECORDS), "two kind records share a name"


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.__name__)
def test_each_engine_record_agrees_with_its_message(record: type[KindRecord]) -> None:
    message = _message(record)
    assert list(record_fields(record)) == [f.name for f in message.fields]
    hints = typing.get_type_hints(record, vars(sys.modules[record.__module__]))
    for field in message.fields:
        item, repeated, optional = _split(hints[field.name])
        how, holder = carry(field)
        assert _type_name(holder) in _PROTO_TYPES[item], (record.__name__, field.name)
        if repeated:
            assert how is (Carry.LIST if optional else Carry.REPEATED), (record.__name__, field.name)
        else:
            assert how is (Carry.OPTIONAL if optional else Carry.PLAIN), (record.__name__, field.name)


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.__name__)
def test_each_record_field_is_documented(record: type[KindRecord]) -> None:
    tree = ast.parse(inspect.getsource(record))
    body = tree.body[0]
    assert isinstance(body, ast.ClassDef)
    documented = {
        node.target.id
        for node, following in zip(body.body, body.body[1:], strict=False)
        if isinstance(node, ast.AnnAssign)
        and isinstance(node.target, ast.Name)
        and isinstance(following, ast.Expr)
        and isinstance(following.value, ast.Constant)
        and isinstance(following.value.value, str)
    }
    assert documented == set(record_fields(record))


def test_the_client_shapes_carry_every_kind_field_flat_and_documented() -> None:
    for record in RECORDS:
        union = kind_records.ValueKinds if issubclass(record, ValueRecord) else kind_records.MoveKinds
        shape = schema.Value if issubclass(record, ValueRecord) else schema.Move
        for name in record_fields(record):
            assert name in union.__optional_keys__ and name in shape.__optional_keys__, (record, name)
            assert schema.field_docs(shape)[name], (record, name)
