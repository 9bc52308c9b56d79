"""The wire shapes of every answer, as the server publishes them.

The shapes are declared once, in the client package (`nimbase_client.records`): each JSON answer of the
REST routes is one `TypedDict` there, with the text under each field as its documentation, and the
client returns them. The fields a kind adds to a value or a move come from nimbase.proto, through the
generated `nimbase_client.v1.kind_records` (documented by the .proto's comments). This module re-
exports the shapes for the server and adds what only the server needs, pydantic's view of them for
`/openapi.json`: the field texts as descriptions, examples, and which shapes are open (`Stats`). The
service builds its answers as these types (mypy checks each builder against the declaration) and the
REST app declares them as its response models. They are plain dicts at run time: nothing is validated
per answer.
"""

from __future__ import annotations

import ast
import inspect
import sys
from functools import cache
from typing import Any

from pydantic import ConfigDict, with_config

from nimbase_client import records
from nimbase_client.records import *  # noqa: F403  (re-exported: the shapes are `records.__all__`)

__all__ = records.__all__

#: Real answers, shown as examples in /openapi.json.
_VALUE_EXAMPLE: dict[str, Any] = {
    "game": "nim",
    "position": "1 3 5 7",
    "outcome": "P",
    "grundy": 0,
    "remoteness": 16,
    "source": "formula",
}
_HEAP_MOVE_EXAMPLE: dict[str, Any] = {
    "move": "12 -> 8",
    "position": "8 10",
    "outcome": "P",
    "grundy": 0,
    "remoteness": 12,
    "heap": 12,
    "to": [8],
}
_PAIR_MOVE_EXAMPLE: dict[str, Any] = {
    "move": "4,6 -> 3,5",
    "position": "3,5",
    "outcome": "P",
    "grundy": 0,
    "pair": [4, 6],
    "to": [3, 5],
}
_BEST_MOVE_EXAMPLE: dict[str, Any] = {
    "game": "subtraction:1,3,4",
    "position": "10 12",
    "outcome": "N",
    "grundy": 2,
    "remoteness": 13,
    "source": "period",
    "moves": [_HEAP_MOVE_EXAMPLE],
    "best_move": _HEAP_MOVE_EXAMPLE,
}
_PUZZLE_VALUE_EXAMPLE: dict[str, Any] = {
    "game": "lights-out:3x3",
    "position": "000/011/011",
    "solvable": True,
    "solution": ["12", "21", "22", "23", "32", "33"],
    "remoteness": 6,
    "source": "live",
}
_PRESS_EXAMPLE: dict[str, Any] = {
    "move": "22",
    "position": "010/100/001",
    "solvable": True,
    "remoteness": 5,
}
_CHESS_MOVE_EXAMPLE: dict[str, Any] = {
    "move": "b1e4",
    "position": "8/8/8/8/4Q3/2k5/8/K7 b - - 0 1",
    "outcome": "P",
    "remoteness": 10,
    "uci": "b1e4",
    "san": "Qe4",
}
_GRAPH_EXAMPLE: dict[str, Any] = {
    "name": "path4",
    "vertices": ["a", "b", "c", "d"],
    "edges": [["a", "b"], ["b", "c"], ["c", "d"]],
    "terminals": {"d": "loss"},
}
_ERROR_EXAMPLE: dict[str, Any] = {
    "error": {"code": "INVALID_ARGUMENT", "message": "position 'x' is not heap sizes"}
}

#: The examples of each shape, and the shapes whose JSON schema is open (a game may add stats).
_EXAMPLES: dict[type[Any], list[dict[str, Any]]] = {
    records.Value: [_VALUE_EXAMPLE, _PUZZLE_VALUE_EXAMPLE],
    records.Move: [_HEAP_MOVE_EXAMPLE, _PAIR_MOVE_EXAMPLE, _PRESS_EXAMPLE, _CHESS_MOVE_EXAMPLE],
    records.Graph: [_GRAPH_EXAMPLE],
    records.BestMove: [_BEST_MOVE_EXAMPLE],
    records.PPosition: [{"p_position": True, **_VALUE_EXAMPLE}],
    records.ErrorBody: [_ERROR_EXAMPLE],
}
_OPEN: frozenset[type[Any]] = frozenset({records.Stats})


@cache
def _module_docs(module: str) -> dict[str, dict[str, str]]:
    """The text under each field of every class of a module, by class name (its source parsed once)."""
    tree = ast.parse(inspect.getsource(sys.modules[module]))
    docs: dict[str, dict[str, str]] = {}
    for body in tree.body:
        if not isinstance(body, ast.ClassDef):
            continue
        fields = docs[body.name] = {}
        for node, following in zip(body.body, body.body[1:], strict=False):
            if (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and isinstance(following, ast.Expr)
                and isinstance(following.value, ast.Constant)
                and isinstance(following.value.value, str)
            ):
                fields[node.target.id] = " ".join(following.value.value.split())
    return docs


def _is_typed_dict(obj: object) -> bool:
    return isinstance(obj, type) and hasattr(obj, "__required_keys__")


def field_docs(cls: type[Any]) -> dict[str, str]:
    """The text under each field of a TypedDict, its own fields' and its bases' (whitespace folded)."""
    docs: dict[str, str] = {}
    for base in reversed(getattr(cls, "__orig_bases__", ())):
        if _is_typed_dict(base):
            docs.update(field_docs(base))
    docs.update(_module_docs(cls.__module__).get(cls.__qualname__, {}))
    return docs


def _document(cls: type[Any]) -> None:
    """Gives pydantic (and so /openapi.json) the shape's field texts and examples; an open shape says so
    (`additionalProperties`), a closed one ignores unknown keys whatever shape holds it."""
    docs = field_docs(cls)
    examples = _EXAMPLES.get(cls)

    def describe(schema: dict[str, Any]) -> None:
        for name, prop in schema.get("properties", {}).items():
            if name in docs:
                prop["description"] = docs[name]
        if examples is not None:
            schema["examples"] = examples

    with_config(ConfigDict(extra="allow" if cls in _OPEN else "ignore", json_schema_extra=describe))(cls)


for _name in records.__all__:  # every shape, so a record added there is documented here too
    _shape = getattr(records, _name)
    if _is_typed_dict(_shape):  # not the Literal and union aliases
        _document(_shape)
