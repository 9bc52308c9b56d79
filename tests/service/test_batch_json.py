"""service.rest.batch_json: a POST /v1/values:batch answer written from pieces is byte for byte the JSON the
encoder writes for `convert.batch_as_dict`, on values of every shape a batch may hold and on positions
that need escaping."""

from __future__ import annotations

import random

import pytest

from engine.errors import InvalidArgument, LimitExceeded
from engine.values import Value
from service import convert
from service.rest import batch_json as batch_json_module
from service.rest.batch_json import batch_json
from service.rest.json_body import encode
from tests.service.wire_shapes import RECORDS, positions

#: Positions JSON escapes or the pieces cannot take as they are.
ESCAPED = ['say "hi"', "a\\b", "1\n2", "tab\there", "\x01", "\ud800 lone", "\x7f del", "é \u2028"]


def _items(rng: random.Random, texts: list[str]) -> list[Value | BaseException]:
    items: list[Value | BaseException] = []
    for _ in range(200):
        draw = rng.random()
        if draw < 0.05:
            items.append(InvalidArgument(f"position {rng.choice(texts)[:20]!r} does not parse"))
        elif draw < 0.08:
            items.append(LimitExceeded("beyond the live search budget"))
        else:
            items.append(
                Value(
                    rng.choice(["nim", "octal:0.75:misere", "graph:g"]),
                    rng.choice(texts),
                    rng.choice(["P", "N", "D", None]),
                    rng.choice([None, 0, 3, 2**40, 2**70]),
                    rng.choice([None, 0, 12]),
                    rng.choice(["table", "period", "formula", "live"]),
                    rng.choice(RECORDS),
                )
            )
    return items


def _encoded(items: list[Value | BaseException]) -> bytes:
    try:
        return encode(convert.batch_as_dict(items)).encode()
    except UnicodeEncodeError:
        return b"refused"


def _written(items: list[Value | BaseException]) -> bytes:
    try:
        return batch_json(items)
    except UnicodeEncodeError:
        return b"refused"


def test_a_batch_written_from_pieces_is_the_encoders_own_text() -> None:
    rng = random.Random(5)
    for _ in range(10):
        items = _items(rng, positions(rng))
        assert batch_json(items) == encode(convert.batch_as_dict(items)).encode()
    assert batch_json([]) == b'{"values":[]}' == encode(convert.batch_as_dict([])).encode()


@pytest.mark.parametrize("escaped", ESCAPED)
def test_positions_that_need_escaping_are_escaped_as_the_encoder_does(escaped: str) -> None:
    rng = random.Random(6)
    items = _items(rng, [*positions(rng), escaped])
    assert _written(items) == _encoded(items)


def test_clean_positions_are_not_encoded_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch of values whose positions need no escaping is written from pieces: the encoder sees only
    each combination once, with an empty position."""
    seen: list[object] = []

    def spy(content: object) -> str:
        seen.append(content)
        return encode(content)

    monkeypatch.setattr(batch_json_module, "encode", spy)
    items: list[Value | BaseException] = [
        Value("octal:0.75:misere", f"{n} {n + 1}", "N" if n % 2 else "P", None, None, "period")
        for n in range(1, 100)
    ]
    assert batch_json(items) == encode(convert.batch_as_dict(items)).encode()
    assert all(not isinstance(s, dict) or s["position"] == "" for s in seen)
    assert len(seen) <= 4
