"""Hostile input over both transports (issue 12, cases 1-4 and the Bearer scheme): never a 500.

Real gRPC and REST servers on loopback over a real `Nimbase` and PostgreSQL. Every bad request gets
the exact status and code, the error body `{"error": {"code", "message"}}` quoting (a prefix of) the
offending text, and changes no stored data: each test compares the row counts of every data table
(and the jobs' statuses) before and after. The last test fuzzes the value routes with
tests/strategies.py.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import grpc
import httpx
import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import InvalidArgument, InvalidPosition, NimbaseError
from engine.positions import MAX_HEAP, parse_decimal, parse_heaps, quote_int
from engine.registry import parse_game_id
from kinds.heaps.subtraction import SubtractionGame
from kinds.wythoff.kind import parse_pairs
from nimbase.client import NimbaseClient, NimbaseClientError
from nimbase.settings import AutoJobSettings, Limits, Settings
from nimbase.v1 import nimbase_pb2 as pb
from nimbase.v1 import nimbase_pb2_grpc
from service.calls import JobPage, SubmitJob, UploadGraph
from service.core import Nimbase
from storage.schema import DATA_TABLES, jobs
from tests import strategies
from tests.servers import running_server
from worker.runner import Worker

TOKEN = "hostile-test-token"
#: Small live bounds and no automatic jobs: fuzzed requests stay cheap and queue nothing.
LIMITS = Limits(live_values=1 << 12, request_seconds=5.0, search_states=20_000, listed_moves=100)
SUB = "subtraction:1,3,4"
#: 5,000 digits: beyond Python's 4,300-digit int-conversion limit.
HUGE = "1" * 5000
TEN_TO_30 = 10**30


@dataclass
class Endpoints:
    service: Nimbase
    http: httpx.Client
    client: NimbaseClient
    stub: Any
    engine: sa.Engine


@pytest.fixture(scope="module")
def servers(db_engine: sa.Engine) -> Iterator[Endpoints]:
    service = Nimbase(Settings(admin_token=TOKEN, limits=LIMITS, auto=AutoJobSettings(jobs=0)), db_engine)
    with (
        running_server(service, LIMITS) as ports,
        httpx.Client(base_url=f"http://127.0.0.1:{ports.http}", timeout=60) as http,
        NimbaseClient(f"127.0.0.1:{ports.grpc}", token=TOKEN, timeout=60) as client,
        grpc.insecure_channel(f"127.0.0.1:{ports.grpc}") as channel,
    ):
        stub = nimbase_pb2_grpc.NimbaseStub(channel)  # type: ignore[no-untyped-call]
        yield Endpoints(service, http, client, stub, db_engine)


def snapshot(engine: sa.Engine) -> tuple[dict[str, int], list[tuple[int, str]]]:
    """Row counts of every data table, and each job's status."""
    with engine.connect() as conn:
        counts = {
            table.name: int(conn.execute(sa.select(sa.func.count()).select_from(table)).scalar_one())
            for table in DATA_TABLES
        }
        statuses = [(int(r[0]), str(r[1])) for r in conn.execute(sa.select(jobs.c.id, jobs.c.status))]
    return counts, sorted(statuses)


@pytest.fixture
def api(servers: Endpoints, clean_db: sa.Engine) -> Iterator[Endpoints]:
    """The servers over a database holding a stored table of subtraction:1,3,4 (its job done), one
    queued job and a graph; whatever the test sends, the stored data is the same afterwards."""
    servers.service.submit_job(SubmitJob(SUB, 2048, token=TOKEN))
    Worker(clean_db).run_until_idle(threading.Event())
    servers.service.submit_job(SubmitJob("subtraction:2,5,7", 1000, token=TOKEN))
    servers.service.upload_graph(UploadGraph("stored", ["a", "b"], [["a", "b"]], {"b": "loss"}, token=TOKEN))
    servers.service.tables.forget()
    before = snapshot(clean_db)
    assert all(
        before[0][t.name] > 0 for t in DATA_TABLES if t.name not in ("corruption_reports", "job_checkpoints")
    )
    yield servers
    assert snapshot(clean_db) == before


def rest_error(response: httpx.Response, status: int, code: str, *quoted: str) -> str:
    """The message of an error answer, after checking its status, code and exact shape."""
    assert response.status_code == status, response.text[:500]
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    assert body["error"]["code"] == code
    message: str = body["error"]["message"]
    for text in quoted:
        assert text in message, (text, message[:500])
    return message


def grpc_error(call: Callable[[], object], code: str, *quoted: str) -> str:
    """The message of a failed gRPC call, after checking its code."""
    with pytest.raises(NimbaseClientError) as info:
        call()
    assert info.value.code == code, info.value.message[:500]
    for text in quoted:
        assert text in info.value.message, (text, info.value.message[:500])
    return info.value.message


def slot_error(item: dict[str, Any], code: str, *quoted: str) -> None:
    """A batch or stream slot holding exactly an error of `code`."""
    assert set(item) == {"error"} and set(item["error"]) >= {"code", "message"}, item
    assert item["error"]["code"] == code
    for text in quoted:
        assert text in item["error"]["message"]


@cache
def subtraction_134() -> list[int]:
    """g(n) of subtraction:1,3,4 by brute-force mex, 0 <= n < 200."""
    values: list[int] = []
    for n in range(200):
        seen = {values[n - s] for s in (1, 3, 4) if s <= n}
        values.append(next(v for v in range(6) if v not in seen))
    return values


def oracle_134(n: int) -> int:
    """g(n) for any n: the brute-force values repeat with period 7 from 0 (checked on 200 values)."""
    values = subtraction_134()
    assert all(values[i] == values[i % 7] for i in range(len(values)))
    return values[n % 7]


# ---- 1. sequence indices beyond 2^63 - 1 ----------------------------------------------------------


def sequence(api: Endpoints, game: str, start: int, stop: int, **extra: str) -> httpx.Response:
    return api.http.get("/v1/sequence", params={"game": game, "start": start, "stop": stop, **extra})


@pytest.mark.parametrize(
    ("start", "stop", "name"),
    [
        (TEN_TO_30, TEN_TO_30 + 3, "start"),
        (0, TEN_TO_30, "stop"),
        (MAX_HEAP - 1, MAX_HEAP + 3, "stop"),  # the IndexError of the issue
        (MAX_HEAP - 1, MAX_HEAP + 1, "stop"),  # stop at most 2^63-1, as in the gRPC message
        (-1, 3, "start"),
        (-TEN_TO_30, 3, "start"),
    ],
)
def test_sequence_bounds_over_rest(api: Endpoints, start: int, stop: int, name: str) -> None:
    for game in (SUB, "nim", "octal:0.77"):
        offending = str(start if name == "start" else stop)
        message = rest_error(sequence(api, game, start, stop), 400, "INVALID_ARGUMENT", offending)
        assert message.startswith(name)


def test_sequence_bounds_over_grpc(api: Endpoints) -> None:
    """int64 carries no 2^63 over gRPC: negative bounds are what can go wrong there."""
    client = api.client
    grpc_error(lambda: client.get_sequence(SUB, -1, 3), "INVALID_ARGUMENT", "start -1")
    grpc_error(lambda: client.get_sequence(SUB, -(2**63), 3), "INVALID_ARGUMENT", str(-(2**63)))
    grpc_error(lambda: client.get_sequence(SUB, 5, -(2**63)), "INVALID_ARGUMENT", "stop")
    grpc_error(lambda: client.get_sequence(SUB, MAX_HEAP, MAX_HEAP - 1), "INVALID_ARGUMENT", str(MAX_HEAP))


@pytest.mark.parametrize("game", [SUB, "octal:0.77", "nim", "nim:misere", "subtraction:1,2,3"])
def test_sequences_up_to_the_largest_stop_answer(api: Endpoints, game: str) -> None:
    """stop = 2^63-1 exactly: answered from the period (or formula), the same as GetValue one by one,
    over both transports."""
    start, stop = MAX_HEAP - 9, MAX_HEAP
    answer = sequence(api, game, start, stop)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert (body["start"], body["stop"], len(body["values"])) == (start, stop, 9)
    singles = [
        api.http.get("/v1/value", params={"game": game, "position": str(n)}).json()
        for n in range(start, stop)
    ]
    if game in ("nim", "subtraction:1,2,3", SUB, "octal:0.77"):
        assert body["values"] == [v["grundy"] for v in singles]
    else:  # misère: values are misère Grundy values, 0 exactly at P-positions
        assert [v == 0 for v in body["values"]] == [s["outcome"] == "P" for s in singles]
    if game == SUB:
        assert body["values"] == [oracle_134(n) for n in range(start, stop)]
    assert api.client.get_sequence(game, start, stop) == body


def test_the_tables_answer_every_int64_index_and_refuse_beyond(api: Endpoints) -> None:
    """The cause of the IndexError: n past 2^63-1 wrapped in an int64 array and was read as a negative
    index. Heaps up to 2^63-1 itself are answered; one past it is refused, not wrapped."""
    service = api.service
    kind = SubtractionGame((1, 3, 4))
    values, source = service.tables.values(kind, MAX_HEAP - 2, MAX_HEAP + 1)
    assert values.tolist() == [oracle_134(n) for n in (MAX_HEAP - 2, MAX_HEAP - 1, MAX_HEAP)]
    assert source == "period"
    with pytest.raises(InvalidArgument, match=str(MAX_HEAP + 2)):
        service.tables.values(kind, MAX_HEAP - 1, MAX_HEAP + 2)


# ---- 2. integers over 4,300 digits ------------------------------------------------------------------


def test_huge_wythoff_pile_over_rest(api: Endpoints) -> None:
    position = f"{HUGE},1"
    for route in ("/v1/value", "/v1/is-p-position", "/v1/best-move"):
        answer = api.http.get(route, params={"game": "wythoff", "position": position})
        rest_error(answer, 400, "INVALID_ARGUMENT", "1" * 40, "above the limit", "Wythoff pair")


def test_huge_wythoff_pile_over_grpc(api: Endpoints) -> None:
    position = f"1,{HUGE}"
    client = api.client
    calls: list[Callable[[], object]] = [
        lambda: client.get_value("wythoff", position),
        lambda: client.is_p_position("wythoff", position),
        lambda: client.best_move("wythoff", position),
    ]
    for call in calls:
        grpc_error(call, "INVALID_ARGUMENT", "1" * 40, "above the limit")


def test_huge_wythoff_row(api: Endpoints) -> None:
    family = f"row:{HUGE}"
    answer = sequence(api, "wythoff", 0, 3, family=family)
    rest_error(answer, 400, "INVALID_ARGUMENT", "'row:" + "1" * 36, "above the limit")
    grpc_error(
        lambda: api.client.get_sequence("wythoff", 0, 3, family=family), "INVALID_ARGUMENT", "row:1111"
    )
    # The largest row that fits is answered (the pile of size 0 has g(K, 0) = K).
    top = sequence(api, "wythoff", 0, 1, family=f"row:{MAX_HEAP}")
    assert top.status_code == 200 and top.json()["values"] == [MAX_HEAP]


@pytest.mark.parametrize(
    ("game", "bad"),
    [("wythoff", f"{HUGE},1"), ("nim", HUGE), ("subtraction:1,3,4", "0" * 3 + HUGE), ("grundy", f"3 {HUGE}")],
)
def test_one_huge_batch_item_fails_only_its_slot(api: Endpoints, game: str, bad: str) -> None:
    good = "3,5" if game == "wythoff" else "7"
    positions = [good, bad, good]
    answer = api.http.post("/v1/values:batch", json={"game": game, "positions": positions})
    assert answer.status_code == 200, answer.text[:500]
    items = answer.json()["values"]
    slot_error(items[1], "INVALID_ARGUMENT", "above the limit", "1" * 40)
    assert items[0] == items[2] and "grundy" in items[0]
    assert api.client.batch_get_values(game, positions) == answer.json()


def test_one_huge_stream_item_fails_only_its_slot(api: Endpoints) -> None:
    requests = [("wythoff", "3,5"), ("wythoff", f"{HUGE},1"), ("nim", HUGE), ("nim", "3"), ("wythoff", "1,2")]
    answers = list(api.client.stream_values(requests))
    assert len(answers) == 5
    slot_error(answers[1], "INVALID_ARGUMENT", "1" * 40)  # type: ignore[arg-type]
    slot_error(answers[2], "INVALID_ARGUMENT", "1" * 40)  # type: ignore[arg-type]
    assert [answers[i].get("position") for i in (0, 3, 4)] == ["3,5", "3", "1,2"]
    batches = list(api.client.stream_batches([("wythoff", ["3,5", f"{HUGE},1"]), ("nim", ["3"])]))
    slot_error(batches[0]["values"][1], "INVALID_ARGUMENT", "1" * 40)  # type: ignore[arg-type]
    assert batches[1]["values"][0].get("grundy") == 3


def test_huge_subtraction_element(api: Endpoints) -> None:
    game = "subtraction:1," + "9" * 1000
    rest_error(
        api.http.get("/v1/value", params={"game": game, "position": "3"}), 400, "INVALID_ARGUMENT", "9" * 40
    )
    grpc_error(lambda: api.client.get_value(game, "3"), "INVALID_ARGUMENT", "above the limit of 1000000")


# ---- 3. digits that are not ASCII ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "position", "quoted"),
    [
        ("wythoff", "٣,٥", "٣,٥"),
        ("wythoff", "３,５", "３,５"),
        ("wythoff", "3,5 ٤,٧", "٤,٧"),
        ("wythoff", "3,²", "3,²"),
        ("wythoff", "3,5\u00a04,7", "3,5\u00a04,7"),
        ("nim", "٣", "٣"),
        ("nim", "3 ５", "５"),
        ("nim", "3\u00a05", "3\u00a05"),
        ("octal:0.77", "²", "²"),
    ],
)
def test_unicode_digits_in_positions(api: Endpoints, game: str, position: str, quoted: str) -> None:
    for route in ("/v1/value", "/v1/is-p-position", "/v1/best-move"):
        answer = api.http.get(route, params={"game": game, "position": position})
        rest_error(answer, 400, "INVALID_ARGUMENT", repr(quoted))
    grpc_error(lambda: api.client.get_value(game, position), "INVALID_ARGUMENT", repr(quoted))
    batch = api.http.post("/v1/values:batch", json={"game": game, "positions": [position]}).json()
    slot_error(batch["values"][0], "INVALID_ARGUMENT", repr(quoted))


@pytest.mark.parametrize("family", ["row:٣", "row:３", "row:²", "row:+3", "row: 3", "row:", "row:1_0"])
def test_unicode_digits_in_wythoff_rows(api: Endpoints, family: str) -> None:
    rest_error(sequence(api, "wythoff", 0, 3, family=family), 400, "INVALID_ARGUMENT", repr(family))
    grpc_error(
        lambda: api.client.get_sequence("wythoff", 0, 3, family=family), "INVALID_ARGUMENT", repr(family)
    )


@pytest.mark.parametrize(
    ("game", "quoted"),
    [
        ("subtraction:١,٣", "subtraction:١,٣"),
        ("subtraction:1,３", "subtraction:1,３"),
        ("subtraction:²", "subtraction:²"),
        ("octal:0.٧٧", "0.٧٧"),  # octal codes are quoted alone
    ],
)
def test_unicode_digits_in_game_ids(api: Endpoints, game: str, quoted: str) -> None:
    answer = api.http.get("/v1/value", params={"game": game, "position": "3"})
    rest_error(answer, 400, "INVALID_ARGUMENT", repr(quoted))
    grpc_error(lambda: api.client.get_value(game, "3"), "INVALID_ARGUMENT", repr(quoted))


# ---- 4. job ids no job can have --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "job_id", ["99999999999999999999999", str(2**63), str(MAX_HEAP), "0", "-1", "-" + str(2**63 + 1)]
)
def test_impossible_job_ids_over_rest(api: Endpoints, job_id: str) -> None:
    rest_error(api.http.get(f"/v1/jobs/{job_id}"), 404, "NOT_FOUND", f"no job {job_id}")
    admin = {"authorization": f"Bearer {TOKEN}"}
    rest_error(api.http.delete(f"/v1/jobs/{job_id}", headers=admin), 404, "NOT_FOUND", f"no job {job_id}")
    rest_error(api.http.delete(f"/v1/jobs/{job_id}"), 401, "UNAUTHENTICATED")


@pytest.mark.parametrize("job_id", [0, -1, -(2**63), MAX_HEAP])
def test_impossible_job_ids_over_grpc(api: Endpoints, job_id: int) -> None:
    grpc_error(lambda: api.client.get_job(job_id), "NOT_FOUND", f"no job {job_id}")
    grpc_error(lambda: api.client.cancel_job(job_id), "NOT_FOUND", f"no job {job_id}")


# ---- a token without the Bearer scheme -------------------------------------------------------------------


#: Authorization headers that carry no Bearer token: the bare token, other schemes, an empty Bearer.
NOT_BEARER = [TOKEN, f"Basic {TOKEN}", f"Token {TOKEN}", f"Bearer:{TOKEN}", f"{TOKEN} Bearer", "Bearer", ""]


@pytest.mark.parametrize("header", [*NOT_BEARER, f"Bearer\t{TOKEN}"])  # gRPC metadata may not hold a tab
def test_a_token_without_the_bearer_scheme_is_refused_over_rest(api: Endpoints, header: str) -> None:
    queued = api.service.job_page(JobPage())[0][0]
    assert queued.status == "queued"
    auth = {"authorization": header}
    submit = api.http.post("/v1/jobs", json={"game": "subtraction:3,8", "upto": 100}, headers=auth)
    for answer in (submit, api.http.delete(f"/v1/jobs/{queued.id}", headers=auth)):
        message = rest_error(answer, 401, "UNAUTHENTICATED", "Bearer")
        assert TOKEN not in message


@pytest.mark.parametrize("header", NOT_BEARER)
def test_a_token_without_the_bearer_scheme_is_refused_over_grpc(api: Endpoints, header: str) -> None:
    queued = api.service.job_page(JobPage())[0][0]
    metadata = [("authorization", header)]
    calls: list[Callable[[], object]] = [
        lambda: api.stub.SubmitJob(pb.SubmitJobRequest(game="subtraction:3,8", upto=100), metadata=metadata),
        lambda: api.stub.CancelJob(pb.CancelJobRequest(id=queued.id), metadata=metadata),
    ]
    for call in calls:
        with pytest.raises(grpc.RpcError) as info:
            call()
        assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
        details = info.value.details() or ""
        assert "Bearer" in details and TOKEN not in details


def test_the_bearer_scheme_is_case_insensitive(api: Endpoints) -> None:
    """The control: the same token in the Bearer scheme (any case) gets past authentication; the id
    is one no job has, so nothing changes."""
    for scheme in ("Bearer", "bearer", "BEARER"):
        answer = api.http.delete("/v1/jobs/0", headers={"authorization": f"{scheme} {TOKEN}"})
        rest_error(answer, 404, "NOT_FOUND")
        with pytest.raises(grpc.RpcError) as info:
            api.stub.CancelJob(pb.CancelJobRequest(id=0), metadata=[("authorization", f"{scheme} {TOKEN}")])
        assert info.value.code() == grpc.StatusCode.NOT_FOUND


# ---- the parsers themselves ------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.data_too_large])
@given(text=st.one_of(strategies.numbers, strategies.any_text))
def test_parse_decimal_is_int_on_ascii_digits_only(text: str) -> None:
    """The shared number parser: the value of plain ASCII digits up to the limit, else InvalidPosition
    quoting a prefix of the text; never ValueError (Unicode digits, over 4,300 digits)."""
    plain = text.isascii() and text.isdigit() and len(text.lstrip("0")) <= 19
    if plain and int(text) <= MAX_HEAP:
        assert parse_decimal(text, what="heap") == int(text)
        return
    with pytest.raises(InvalidPosition) as info:
        parse_decimal(text, what="heap")
    assert repr(text[:40])[:-1] in str(info.value)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.data_too_large])
@given(position=strategies.positions, game=strategies.game_ids)
def test_parsers_raise_only_public_errors(position: str, game: str) -> None:
    """Heap and pair positions and game ids: a parse, or an error with a public code; what parses is
    written in ASCII digits, blanks and commas, and every heap fits a signed 64-bit integer."""
    for parse in (parse_heaps, parse_pairs):
        try:
            parsed = parse(position)
        except NimbaseError as error:
            assert error.code == "INVALID_ARGUMENT"
            continue
        assert set(position) <= strategies.ANSWERABLE_CHARACTERS
        flat = [n for item in parsed for n in (item if isinstance(item, tuple) else (item,))]
        assert all(0 <= n <= MAX_HEAP for n in flat)
    try:
        parse_game_id(game)
    except NimbaseError as error:
        assert error.code in ("INVALID_ARGUMENT", "NOT_FOUND")


def test_quote_int_never_fails() -> None:
    assert quote_int(-5) == "-5" and quote_int(10**30) == str(10**30)
    assert quote_int(10**100).startswith("1" + "0" * 39 + "...") and "101 digits" in quote_int(10**100)
    assert quote_int(10**5000) == f"(an integer of {(10**5000).bit_length()} bits)"
    assert quote_int(-(10**5000)).startswith("-(an integer")


# ---- fuzzing the value routes ----------------------------------------------------------------------------


def assert_clean(answer: httpx.Response, position: str | None = None) -> None:
    """200, or a 4xx in the error shape: never a 5xx; and a position is answered only when it is
    written in ASCII digits, blanks and commas."""
    assert answer.status_code < 500, (answer.status_code, answer.text[:500])
    if answer.status_code == 200:
        assert position is None or set(position) <= strategies.ANSWERABLE_CHARACTERS, position[:200]
        return
    assert 400 <= answer.status_code < 500
    body = answer.json()
    assert set(body) == {"error"} and {"code", "message"} <= set(body["error"]), body
    assert body["error"]["code"] not in ("INTERNAL", "UNKNOWN"), body


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
@given(
    game=st.one_of(st.sampled_from(strategies.GAMES), strategies.game_ids),
    limit=st.sampled_from([None, 1, 3]),
    data=st.data(),
)
def test_value_routes_never_fail_on_hostile_input(
    api: Endpoints, game: str, limit: int | None, data: st.DataObject
) -> None:
    position = data.draw(strategies.positions_for(game), label="position")
    batch = data.draw(st.lists(strategies.positions_for(game), max_size=4), label="batch")
    params = {"game": game, "position": position}
    assert_clean(api.http.get("/v1/value", params=params), position)
    assert_clean(api.http.get("/v1/is-p-position", params=params), position)
    best = api.http.get("/v1/best-move", params=params if limit is None else {**params, "limit": limit})
    assert_clean(best, position)
    answer = api.http.post("/v1/values:batch", json={"game": game, "positions": [position, *batch]})
    assert_clean(answer)
    if answer.status_code == 200:
        items = answer.json()["values"]
        assert len(items) == 1 + len(batch)
        for text, item in zip([position, *batch], items, strict=True):
            if "error" in item:
                assert item["error"]["code"] not in ("INTERNAL", "UNKNOWN"), item
            else:
                assert set(text) <= strategies.ANSWERABLE_CHARACTERS, text[:200]
