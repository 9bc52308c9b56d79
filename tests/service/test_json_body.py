"""JSON answers encoded a piece at a time (service.rest.json_body): the bytes of `json.dumps`, and no C call
over more than a piece of a long list."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.responses import JSONResponse
from hypothesis import given, settings
from hypothesis import strategies as st

from service.rest import json_body
from service.rest.json_body import PiecewiseJSONResponse, encode

scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
)
documents = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=40) | st.dictionaries(st.text(max_size=5), inner, max_size=6),
    max_leaves=300,
)


@settings(max_examples=300, deadline=None)
@given(documents)
def test_the_text_is_json_dumps_text(document: Any) -> None:
    with pytest.MonkeyPatch.context() as patch:  # pieces small enough for hypothesis's documents
        patch.setattr(json_body, "PIECE", 3)
        patch.setattr(json_body, "FLAT_ITEMS", 2)
        assert encode(document) == JSONResponse(document).body.decode()
    assert PiecewiseJSONResponse(document).body == JSONResponse(document).body


def test_a_sequence_answer_is_the_same_bytes() -> None:
    body = {
        "game": "grundy",
        "start": 0,
        "values": list(range(100_000)),
        "period": {"period": 3, "certified": True},
    }
    assert PiecewiseJSONResponse(body).body == JSONResponse(body).body


def test_non_text_keys_and_unicode_as_json_dumps_gives_them() -> None:
    for document in ({1: [1, 2, 3, 4, 5], "é": "ü"}, [{"a": [1] * 10}] * 7, [[1, 2, 3]] * 9, []):
        assert PiecewiseJSONResponse(document).body == JSONResponse(document).body


def test_no_c_call_encodes_more_than_a_piece(monkeypatch: pytest.MonkeyPatch) -> None:
    largest = 0
    dumps = json_body._dumps

    def counting(content: Any) -> str:
        nonlocal largest
        if isinstance(content, list):
            largest = max(largest, len(content))
        return dumps(content)

    monkeypatch.setattr(json_body, "_dumps", counting)
    body = {
        "values": list(range(50_000)),
        "results": [{"position": str(i), "moves": list(range(100))} for i in range(9000)],
    }
    assert json.loads(encode(body)) == body
    assert 0 < largest <= json_body.PIECE


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(st.text(max_size=5).filter(lambda key: key != "values"), scalars, max_size=4),
    st.lists(st.lists(st.integers(), max_size=20), max_size=6),
)
def test_a_list_written_in_pieces_is_the_whole_answers_bytes(
    rest: dict[str, Any], pieces: list[list[int]]
) -> None:
    whole = {**rest, "values": [item for piece in pieces for item in piece], "after": rest}
    head, tail = json_body.around({**whole, "values": []}, "values")
    assert b"".join(json_body.list_in_pieces(head, iter(pieces), tail)) == JSONResponse(whole).body
