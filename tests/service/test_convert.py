"""Translation helpers: protobuf round trips against the dataclasses' own JSON, codes, tokens, limits."""

from __future__ import annotations

import time
from dataclasses import dataclass

import grpc
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import InvalidArgument, NimbaseError
from engine.periods import Period
from engine.records import MoveRecord
from engine.values import SOURCE_ORDER, Value
from kinds.bicolor.kind import BicolorMove, BicolorValue
from kinds.chess.records import ChessMove
from kinds.graphs.records import GraphValue
from kinds.heaps.base import HeapMove
from kinds.lights_out.records import LightsOutPress, LightsOutValue
from kinds.wythoff.kind import WythoffMove
from nimbase_client import convert as client
from nimbase_client.kinds import UndeclaredKind
from service import convert
from service.core import BestMoveResult, JobView, MoveValue, SequenceResult
from service.grpc_server import status_code
from service.limits import DEFAULT_LIMITS, Limits, check_batch_size
from tests.service.fake_service import ERRORS

int64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)
#: bicolor-nim's G- (never negative; up to 2^63, a heap of 2^63-1 white stones): an unsigned field.
uint64 = st.integers(min_value=0, max_value=2**64 - 1)
text = st.text(max_size=20)
optional_text = st.none() | text
pairs = st.tuples(int64, int64)
#: What two-player kinds add to a value: nothing, bicolor-nim's G-, a game graph's note.
game_records = st.none() | st.builds(BicolorValue, uint64) | st.builds(GraphValue, text)
#: Two-player values: an outcome, maybe a Grundy value, maybe the kind's record.
game_values = st.builds(
    Value,
    game=text,
    position=text,
    outcome=st.sampled_from(["P", "N", "D"]),
    grundy=st.none() | int64,
    remoteness=st.none() | int64,
    source=st.sampled_from(SOURCE_ORDER),
    kind=game_records,
)
#: One-player puzzles: no outcome; `solvable`, and a solution (maybe empty) exactly when it is true.
puzzle_values = st.booleans().flatmap(
    lambda solvable: st.builds(
        Value,
        game=text,
        position=text,
        outcome=st.none(),
        grundy=st.none(),
        remoteness=st.none() | int64 if solvable else st.none(),
        source=st.sampled_from(SOURCE_ORDER),
        kind=st.builds(
            LightsOutValue,
            st.just(solvable),
            st.lists(text, max_size=5).map(tuple) if solvable else st.none(),
            optional_text,
        ),
    )
)
values = game_values | puzzle_values


@given(values)
def test_value_round_trip_equals_rest_json(value: Value) -> None:
    rest = convert.value_as_dict(value)
    assert rest == value.as_dict() and list(rest) == list(value.as_dict())  # same keys, same order
    assert client.value_dict(convert.value_to_pb(value)) == rest
    assert list(client.value_dict(convert.value_to_pb(value))) == list(rest)


#: Move records as the kinds give them: none, a heap and what it leaves (maybe nothing, maybe a
#: split), a Wythoff pair and the pair it becomes, a bicolor heap, what it becomes, the stones of each
#: colour taken and maybe the G- reached, a press, or a chess move in UCI and SAN.
move_records = (
    st.none()
    | st.builds(HeapMove, int64, st.lists(int64, max_size=2).map(tuple))
    | st.builds(WythoffMove, pairs, pairs)
    | st.builds(BicolorMove, pairs, pairs, int64, int64, st.none() | uint64)
    | st.builds(LightsOutPress, st.booleans())
    | st.builds(ChessMove, text, text)
)


@given(values, st.lists(st.tuples(text, values, move_records), max_size=4))
def test_best_move_round_trip_equals_rest_json(
    value: Value, moves: list[tuple[str, Value, MoveRecord]]
) -> None:
    result = BestMoveResult(value, [MoveValue(m, v, r) for m, v, r in moves])
    msg = convert.best_move_to_pb(result)
    assert client.best_move_dict(msg) == convert.best_move_as_dict(result)
    # The REST JSON is the engine record's own: the typed builder adds nothing and drops nothing.
    rest = convert.best_move_as_dict(result)
    assert rest["moves"] == [m.as_dict() for m in result.moves]
    assert {k: v for k, v in rest.items() if k not in ("moves", "best_move")} == value.as_dict()


def test_a_puzzle_value_has_no_outcome() -> None:
    value = Value("lights-out:3x3", "000/000/000", None, None, 0, "live", LightsOutValue(True, ()))
    rest = convert.value_as_dict(value)
    assert rest == {
        "game": "lights-out:3x3",
        "position": "000/000/000",
        "solvable": True,
        "solution": [],
        "remoteness": 0,
        "source": "live",
    }
    msg = convert.value_to_pb(value)
    assert msg.outcome == "" and msg.WhichOneof("kind") == "lights_out"
    assert msg.lights_out.HasField("solution") and list(msg.lights_out.solution.values) == []
    assert client.value_dict(msg) == rest
    unsolvable = value._replace(remoteness=None, kind=LightsOutValue(False))
    assert client.value_dict(convert.value_to_pb(unsolvable)) == convert.value_as_dict(unsolvable)
    assert "solution" not in convert.value_as_dict(unsolvable)


def test_a_kind_record_rides_in_its_oneof_member_and_flat_in_the_json() -> None:
    value = Value("bicolor-nim", "2/1", "N", 3, 4, "live", BicolorValue(0))
    msg = convert.value_to_pb(value)
    assert msg.WhichOneof("kind") == "bicolor" and msg.bicolor.grundy_black == 0
    assert convert.value_as_dict(value)["grundy_black"] == 0 == client.value_dict(msg)["grundy_black"]
    move = MoveValue("3 -> 1", Value("nim", "1", "N", 1, 1, "formula"), HeapMove(3, (1,)))
    assert convert.move_to_pb(move).heap_game.heap == 3
    assert convert.move_as_dict(move) == {
        "move": "3 -> 1",
        "position": "1",
        "outcome": "N",
        "grundy": 1,
        "remoteness": 1,
        "heap": 3,
        "to": [1],
    }
    vanishes = MoveValue("3 -> 0", Value("nim", "", "P", 0, 0, "formula"), HeapMove(3, ()))
    assert client.move_dict(convert.move_to_pb(vanishes))["to"] == []  # kept when empty


def test_a_bicolor_move_takes_the_g_minus_of_the_position_reached() -> None:
    record = BicolorMove((2, 1), (0, 1), 2, 0)
    assert record.reached(BicolorValue(1)).grundy_black == 1
    assert record.reached(None).grundy_black is None
    assert HeapMove(1, ()).reached(None) == HeapMove(1, ())


def test_an_undeclared_kind_record_is_refused() -> None:
    @dataclass(frozen=True, slots=True)
    class Colour(MoveRecord):
        colour: str
        """A record no message declares."""

    move = MoveValue("1 -> 0", Value("nim", "", "P", 0, 0, "formula"), Colour("white"))
    with pytest.raises(UndeclaredKind, match="'Colour'"):
        convert.move_to_pb(move)

    @dataclass(frozen=True, slots=True)
    class ToyMove(MoveRecord):  # the toy's message, with a field it does not declare
        colour: str
        """A field no message declares."""

    with pytest.raises(UndeclaredKind, match="'colour'"):
        convert.move_to_pb(MoveValue("1 -> 0", move.value, ToyMove("white")))


@given(
    st.builds(
        JobView,
        id=int64,
        game=text,
        family=text,
        upto=int64,
        fill=st.booleans(),
        status=st.sampled_from(["queued", "running", "done", "failed", "cancelled"]),
        done=int64,
        total=int64,
        error=optional_text,
        created_at=text,
        started_at=optional_text,
        finished_at=optional_text,
    )
)
def test_job_round_trip_equals_rest_json(job: JobView) -> None:
    assert client.job_dict(convert.job_to_pb(job)) == convert.job_as_dict(job) == job.as_dict()


@given(
    st.lists(st.integers(min_value=0, max_value=2**32 - 1), max_size=30),
    st.none() | st.builds(Period, int64, int64, int64, st.booleans()),
)
def test_sequence_to_pb_keeps_values_and_period(seq: list[int], period: Period | None) -> None:
    result = SequenceResult("nim", "heap", 0, len(seq), seq, period, "table")
    msg = convert.sequence_to_pb(result)
    assert list(msg.values) == seq
    assert msg.HasField("period") == (period is not None)
    if period is not None:
        p = msg.period
        assert Period(p.preperiod, p.period, p.saltus, p.certified) == period
    assert convert.sequence_as_dict(result)["values"] == seq


def test_every_public_code_has_its_http_status_and_grpc_status() -> None:
    for code, (cls, status) in ERRORS.items():
        assert cls.code == code
        assert convert.http_status(code) == status
        assert status_code(code) == grpc.StatusCode[code]
    assert convert.http_status("INTERNAL") == 500 and convert.http_status("WHATEVER") == 500
    assert status_code("WHATEVER") == grpc.StatusCode.INTERNAL


def test_public_error_hides_unexpected_exceptions() -> None:
    assert convert.public_error(InvalidArgument("bad 'x'")) == ("INVALID_ARGUMENT", "bad 'x'")
    code, message = convert.public_error(KeyError("secret"))
    assert code == "INTERNAL" and "secret" not in message

    class Odd(NimbaseError):
        code = "NOT_A_CODE"

    assert convert.public_error(Odd("x"))[0] == "INTERNAL"


@pytest.mark.parametrize(
    ("header", "token"),
    [
        (None, None),
        ("Bearer abc", "abc"),
        ("bearer  abc ", "abc"),
        ("Basic abc", None),  # another scheme is no token: 401, never a match
        ("Bearer", None),
    ],
)
def test_bearer_token(header: str | None, token: str | None) -> None:
    assert convert.bearer_token(header) == token


def test_batch_limit_names_the_limit() -> None:
    most = DEFAULT_LIMITS.batch_positions
    check_batch_size(most, DEFAULT_LIMITS)
    with pytest.raises(InvalidArgument, match=f"{most}.*{most + 1}"):
        check_batch_size(most + 1, DEFAULT_LIMITS)


def test_batch_limit_is_the_one_given() -> None:
    small = Limits(batch_positions=3)
    check_batch_size(3, small)
    with pytest.raises(InvalidArgument, match="at most 3 positions; got 4"):
        check_batch_size(4, small)


def test_deadline_is_capped() -> None:
    cap = DEFAULT_LIMITS.request_seconds
    before = time.monotonic()
    assert convert.deadline_after(1e9, DEFAULT_LIMITS) <= time.monotonic() + cap
    assert before <= convert.deadline_after(-5, DEFAULT_LIMITS) <= time.monotonic()
    assert convert.deadline_after(None, DEFAULT_LIMITS) >= before + cap


def test_deadline_cap_is_the_one_given() -> None:
    short = Limits(request_seconds=0.5)
    before = time.monotonic()
    assert before + 0.5 <= convert.deadline_after(None, short) <= time.monotonic() + 0.5
    assert convert.deadline_after(60.0, short) <= time.monotonic() + 0.5


def test_jsonable_and_stats_struct() -> None:
    stats = {"a": (1, 2), "b": {3, 1}, "c": Period(0, 3), "d": None, "e": {"f": [True, 2.5]}}
    expected = {"a": [1, 2], "b": [1, 3], "c": Period(0, 3).as_dict(), "d": None, "e": {"f": [True, 2.5]}}
    assert convert.jsonable(stats) == expected
    msg = convert.stats_to_pb(stats)
    from google.protobuf import json_format

    assert client.whole_numbers(json_format.MessageToDict(msg.stats)) == expected
