"""Writes the client's kind shapes (`nimbase_client/v1/kind_records.py`) from nimbase.proto.

Every member of the `kind` oneof of Value and Move is one kind record; the client, which cannot import
the engine, gets one TypedDict per record (field types from the descriptors, documentation from the
comments in the .proto), and the flat union of each side (`ValueKinds`, `MoveKinds`: every field a kind
may add, none required) that `nimbase_client.records` adds to its Value and Move. Run by `make proto`
after protoc; a test checks the committed file is what this writes.

    python proto/generate_kind_records.py [--check]
"""

from __future__ import annotations

import argparse
import importlib.resources
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.descriptor import FieldDescriptor
from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
#: The .proto as protoc names it (the generated modules' home is the client package).
PROTO = "nimbase_client/v1/nimbase.proto"
INCLUDE = f"-Inimbase_client/v1={ROOT / 'proto' / 'nimbase' / 'v1'}"
TARGET = ROOT / "client" / "nimbase_client" / "v1" / "kind_records.py"
#: The messages whose `kind` oneof lists the records, and the name of the union of each.
SIDES = (("Value", "ValueKinds", "a value"), ("Move", "MoveKinds", "a move"))
WIDTH = 110

_SCALARS = {
    FieldDescriptor.TYPE_BOOL: "bool",
    FieldDescriptor.TYPE_STRING: "str",
    FieldDescriptor.TYPE_BYTES: "bytes",
    FieldDescriptor.TYPE_DOUBLE: "float",
    FieldDescriptor.TYPE_FLOAT: "float",
}
for _int in ("INT32", "INT64", "UINT32", "UINT64", "SINT32", "SINT64", "FIXED32", "FIXED64", "SFIXED32"):
    _SCALARS[getattr(FieldDescriptor, f"TYPE_{_int}")] = "int"
_SCALARS[FieldDescriptor.TYPE_SFIXED64] = "int"

HEADER = '''"""The fields each kind adds to a value or a move, one TypedDict per kind record of nimbase.proto.

Generated from the .proto by proto/generate_kind_records.py (`make proto`): do not edit. The text under
each field is the comment of the .proto field; `ValueKinds` and `MoveKinds` are every field a kind may
add, flat as the JSON answers have them (`nimbase_client.records` adds them to its Value and Move).
"""

from __future__ import annotations

from typing import NotRequired

from nimbase_client.typed_dict import TypedDict
'''


class KindProtoError(ValueError):
    """A kind message the shapes cannot be derived from."""


def descriptor_set() -> descriptor_pb2.FileDescriptorSet:
    """nimbase.proto and its imports as protoc reads them, comments included."""
    includes = importlib.resources.files("grpc_tools") / "_proto"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "nimbase.pb"
        args = ["protoc", INCLUDE, f"-I{includes}", f"--descriptor_set_out={out}"]
        if protoc.main([*args, "--include_source_info", "--include_imports", PROTO]) != 0:
            raise KindProtoError(f"protoc could not read {PROTO!r}")
        return descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())


def _comments(file: descriptor_pb2.FileDescriptorProto) -> dict[tuple[int, ...], str]:
    """The leading comment of each message and field, by its source path, whitespace folded."""
    return {
        tuple(location.path): " ".join(location.leading_comments.split())
        for location in file.source_code_info.location
        if location.leading_comments
    }


def _type(field: Any) -> tuple[str, bool]:
    """The Python type of a kind message's field, and whether it is always given."""
    if field.message_type is not None:  # a list that may be absent: a message of one repeated scalar
        items = field.message_type.fields
        if len(items) != 1 or not items[0].is_repeated or items[0].type not in _SCALARS:
            raise KindProtoError(f"field {field.full_name!r} is a message other than a list of scalars")
        return f"list[{_SCALARS[items[0].type]}]", False
    if field.type not in _SCALARS:
        raise KindProtoError(f"field {field.full_name!r} has a type the kind shapes do not know")
    if field.is_repeated:
        return f"list[{_SCALARS[field.type]}]", True
    return _SCALARS[field.type], not field.has_presence


def _doc(text: str, indent: str) -> list[str]:
    """A docstring of `text`, wrapped to the line length."""
    lines = textwrap.wrap(f'"""{text}"""', WIDTH - len(indent), break_on_hyphens=False)
    return [indent + line for line in lines]


def render(files: descriptor_pb2.FileDescriptorSet) -> str:
    """The text of kind_records.py."""
    pool = descriptor_pool.DescriptorPool()
    for file in files.file:
        pool.Add(file)
    main = next(f for f in files.file if f.name == PROTO)
    comments = _comments(main)
    index = {message.name: i for i, message in enumerate(main.message_type)}

    def comment(*path: int) -> str:
        return comments.get(path, "")

    out = [HEADER]
    names: list[str] = []
    unions: list[str] = []
    for side, union, what in SIDES:
        container = pool.FindMessageTypeByName(f"{main.package}.{side}")
        merged: dict[str, tuple[str, list[str]]] = {}
        for member in container.oneofs_by_name["kind"].fields:
            message = member.message_type
            at = index[message.name]
            names.append(message.name)
            out.append("")
            out.append("")
            out.append(f"class {message.name}(TypedDict):")
            out.extend(_doc(comment(4, at) or f"What a kind adds to {what}.", "    "))
            for j, field in enumerate(message.fields):
                annotation, given = _type(field)
                doc = comment(4, at, 2, j)
                if not doc:
                    raise KindProtoError(f"field {field.full_name!r} has no comment to document it")
                out.append("")
                out.append(f"    {field.name}: {annotation if given else f'NotRequired[{annotation}]'}")
                out.extend(_doc(doc, "    "))
                seen = merged.setdefault(field.name, (annotation, []))
                if seen[0] != annotation:
                    raise KindProtoError(
                        f"field {field.name!r} is {seen[0]} in one kind message and {annotation} in "
                        f"{message.name}: the flat JSON needs one type"
                    )
                if doc not in seen[1]:
                    seen[1].append(doc)
        unions.append(union)
        out.append("")
        out.append("")
        out.append(f"class {union}(TypedDict, total=False):")
        out.extend(_doc(f"Every field a kind may add to {what}, flat (each kind gives its own).", "    "))
        for name, (annotation, docs) in merged.items():
            out.append("")
            out.append(f"    {name}: {annotation}")
            out.extend(_doc(" ".join(docs), "    "))
    exported = "".join(f'    "{name}",\n' for name in sorted([*names, *unions]))
    out.insert(1, f"__all__ = [\n{exported}]")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether the file is up to date")
    args = parser.parse_args(argv)
    text = render(descriptor_set())
    if args.check:
        if TARGET.read_text() != text:
            print(f"{TARGET.relative_to(ROOT)} is out of date: run `make proto`", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
