"""The REST app: every route's JSON shape, error statuses and bodies, validation, operations routes."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest

from service.limits import DEFAULT_LIMITS, Limits
from tests.servers import running_server
from tests.service.fake_service import ADMIN_TOKEN, ERRORS, SECRET, FakeService

MAX_BATCH = DEFAULT_LIMITS.batch_positions
MAX_DEADLINE_S = DEFAULT_LIMITS.request_seconds


@pytest.fixture(scope="module")
def fake() -> FakeService:
    return FakeService()


@pytest.fixture(scope="module")
def http(fake: FakeService) -> Iterator[httpx.Client]:
    with running_server(fake) as ports, httpx.Client(base_url=f"http://127.0.0.1:{ports.http}") as client:
        yield client


def assert_error(response: httpx.Response, status: int, code: str, *quoted: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
    assert body["error"]["code"] == code
    for text in quoted:
        assert text in body["error"]["message"]
    assert "Traceback" not in response.text


def test_games(http: httpx.Client) -> None:
    body = http.get("/v1/games").json()
    assert body["games"][0] == {
        "id": "nim",
        "name": "Nim",
        "description": "Take any number from one heap.",
        "position_syntax": "heap sizes: 3 5 7",
        "examples": ["3 5 7", "1 2 3"],
    }


def test_value(http: httpx.Client) -> None:
    reply = http.get("/v1/value", params={"game": "nim", "position": "5 3 0"})
    assert reply.status_code == 200
    assert reply.json() == {
        "game": "nim",
        "position": "3 5",
        "outcome": "N",
        "grundy": 6,
        "remoteness": 8,
        "source": "formula",
    }
    misere = http.get("/v1/value", params={"game": "nim:misere", "position": "1 1"}).json()
    assert "grundy" not in misere and "remoteness" not in misere
    empty = http.get("/v1/value", params={"game": "nim", "position": ""}).json()
    assert (empty["position"], empty["outcome"]) == ("", "P")


def test_deadline_header(http: httpx.Client, fake: FakeService) -> None:
    http.get("/v1/value", params={"game": "nim", "position": "1"}, headers={"x-deadline-ms": "500"})
    deadline = fake.deadlines[-1]
    assert deadline is not None and deadline <= time.monotonic() + 0.5
    http.get("/v1/value", params={"game": "nim", "position": "1"}, headers={"x-deadline-ms": "99999999"})
    deadline = fake.deadlines[-1]
    assert deadline is not None and deadline <= time.monotonic() + MAX_DEADLINE_S
    bad = http.get("/v1/value", params={"game": "nim", "position": "1"}, headers={"x-deadline-ms": "soon"})
    assert_error(bad, 400, "INVALID_ARGUMENT", "x-deadline-ms", "'soon'")


def test_best_move(http: httpx.Client) -> None:
    body = http.get("/v1/best-move", params={"game": "nim", "position": "1 2"}).json()
    assert body["position"] == "1 2" and body["grundy"] == 3
    assert body["moves"][0] == {
        "move": "2 -> 1",
        "position": "1 1",
        "outcome": "P",
        "grundy": 0,
        "remoteness": 2,
        "heap": 2,
        "to": [1],
    }
    vanishing = next(m for m in body["moves"] if m["move"] == "1 -> 0")
    assert (vanishing["heap"], vanishing["to"]) == (1, [])
    assert body["best_move"] == body["moves"][0] and len(body["moves"]) == 3
    limited = http.get("/v1/best-move", params={"game": "nim", "position": "1 2", "limit": 2}).json()
    assert limited["moves"] == body["moves"][:2]
    terminal = http.get("/v1/best-move", params={"game": "nim", "position": ""}).json()
    assert terminal["moves"] == [] and "best_move" not in terminal
    zero = http.get("/v1/best-move", params={"game": "nim", "position": "1", "limit": 0})
    assert_error(zero, 400, "INVALID_ARGUMENT", "limit")


def test_is_p_position(http: httpx.Client) -> None:
    body = http.get("/v1/is-p-position", params={"game": "nim", "position": "2 2"}).json()
    assert body == {
        "p_position": True,
        "game": "nim",
        "position": "2 2",
        "outcome": "P",
        "grundy": 0,
        "remoteness": 4,
        "source": "formula",
    }
    puzzle = http.get("/v1/is-p-position", params={"game": "nim:misere", "position": "1"})
    assert_error(puzzle, 409, "FAILED_PRECONDITION")


@pytest.mark.parametrize("code", sorted(ERRORS))
def test_each_error_class_maps_to_its_status_and_body(http: httpx.Client, code: str) -> None:
    reply = http.get("/v1/value", params={"game": "nim", "position": f"err:{code}"})
    assert_error(reply, ERRORS[code][1], code, f"err:{code}")


def test_unexpected_exception_is_500_without_details(http: httpx.Client) -> None:
    reply = http.get("/v1/value", params={"game": "nim", "position": "boom"})
    assert_error(reply, 500, "INTERNAL")
    assert SECRET not in reply.text


@pytest.mark.parametrize(
    ("path", "params", "quoted"),
    [
        ("/v1/value", {"game": "nim"}, ["position"]),
        ("/v1/value", {"position": "1"}, ["game"]),
        ("/v1/best-move", {"game": "nim", "position": "1", "limit": "many"}, ["limit", "'many'"]),
        ("/v1/sequence", {"game": "nim", "start": "0"}, ["stop"]),
        ("/v1/sequence", {"game": "nim", "start": "1.5", "stop": "3"}, ["start", "'1.5'"]),
        ("/v1/jobs/abc", {}, ["job_id", "'abc'"]),
        ("/v1/jobs", {"limit": "x"}, ["limit"]),
    ],
)
def test_malformed_query_is_400_quoting_the_field(
    http: httpx.Client, path: str, params: dict[str, str], quoted: list[str]
) -> None:
    assert_error(http.get(path, params=params), 400, "INVALID_ARGUMENT", *quoted)


def test_batch(http: httpx.Client) -> None:
    reply = http.post(
        "/v1/values:batch", json={"game": "nim", "positions": ["1 2", "x", "3", "err:UNAVAILABLE"]}
    )
    values = reply.json()["values"]
    assert values[0]["position"] == "1 2" and values[2]["grundy"] == 3
    assert values[1]["error"]["code"] == "INVALID_ARGUMENT" and "'x'" in values[1]["error"]["message"]
    assert values[3] == {
        "error": {"code": "UNAVAILABLE", "message": "fake UNAVAILABLE for position 'err:UNAVAILABLE'"}
    }
    full = http.post("/v1/values:batch", json={"game": "nim", "positions": ["1"] * MAX_BATCH})
    assert len(full.json()["values"]) == MAX_BATCH
    over = http.post("/v1/values:batch", json={"game": "nim", "positions": ["1"] * (MAX_BATCH + 1)})
    assert_error(over, 400, "INVALID_ARGUMENT", str(MAX_BATCH), str(MAX_BATCH + 1))
    assert_error(
        http.post("/v1/values:batch", json={"game": "go", "positions": ["1"]}), 404, "NOT_FOUND", "go"
    )


@pytest.mark.parametrize(
    ("content", "quoted"),
    [
        (b"{not json", ["JSON"]),
        (b'{"game": "nim"}', ["positions"]),
        (b'{"game": "nim", "positions": [1, "2"]}', ["positions.0"]),
        (b'{"game": "nim", "positions": "1 2"}', ["positions"]),
        (b'{"game": "nim", "positions": [], "extra": 1}', ["extra"]),
    ],
)
def test_bad_batch_body_is_400(http: httpx.Client, content: bytes, quoted: list[str]) -> None:
    reply = http.post("/v1/values:batch", content=content, headers={"content-type": "application/json"})
    assert_error(reply, 400, "INVALID_ARGUMENT", *quoted)


def test_sequence(http: httpx.Client) -> None:
    body = http.get("/v1/sequence", params={"game": "nim", "start": 2, "stop": 7}).json()
    assert body == {
        "game": "nim",
        "family": "heap",
        "start": 2,
        "stop": 7,
        "values": [2, 0, 1, 2, 0],
        "period": {"preperiod": 0, "period": 3, "saltus": 0, "certified": True},
        "source": "table",
    }
    bare = http.get("/v1/sequence", params={"game": "nim", "family": "aperiodic", "stop": 1}).json()
    assert bare["period"] is None and bare["start"] == 0
    assert_error(
        http.get("/v1/sequence", params={"game": "nim", "start": 5, "stop": 1}), 400, "INVALID_ARGUMENT"
    )


def test_stats(http: httpx.Client) -> None:
    body = http.get("/v1/stats", params={"game": "nim"}).json()
    assert body["computed_upto"] == 1000 and body["p_positions"] == [0, 4, 8] and body["big"] == 2**40
    assert body["rare_mask"] is None and body["nested"] == {"ok": True, "name": "x"}
    assert_error(http.get("/v1/stats", params={"game": "go"}), 404, "NOT_FOUND")


def test_jobs(http: httpx.Client, fake: FakeService) -> None:
    before = dict(fake.jobs)
    assert_error(http.post("/v1/jobs", json={"game": "nim", "upto": 10}), 401, "UNAUTHENTICATED")
    wrong = {"authorization": "Bearer nope"}
    assert_error(
        http.post("/v1/jobs", json={"game": "nim", "upto": 10}, headers=wrong), 403, "PERMISSION_DENIED"
    )
    admin = {"authorization": f"Bearer {ADMIN_TOKEN}"}
    bad = http.post("/v1/jobs", json={"game": "nim", "upto": "ten"}, headers=admin)
    assert_error(bad, 400, "INVALID_ARGUMENT", "upto", "'ten'")
    assert fake.jobs == before
    job = http.post("/v1/jobs", json={"game": "nim", "upto": 10, "fill": True}, headers=admin).json()
    assert job["status"] == "queued" and job["progress"] == {"done": 0, "total": 10} and job["fill"] is True
    assert job["error"] is None and job["started_at"] is None and job["finished_at"] is None
    assert set(job) == {
        "id",
        "game",
        "family",
        "upto",
        "fill",
        "status",
        "progress",
        "error",
        "created_at",
        "started_at",
        "finished_at",
        "waits_for",
        "queued",
    }
    assert job["waits_for"] == [] and [j["id"] for j in job["queued"]] == [job["id"]]
    del job["queued"]  # what the submission queued: its answer only
    assert http.get(f"/v1/jobs/{job['id']}").json() == job
    assert job in http.get("/v1/jobs").json()["jobs"]
    assert len(http.get("/v1/jobs", params={"limit": 1}).json()["jobs"]) == 1
    assert_error(http.delete(f"/v1/jobs/{job['id']}"), 401, "UNAUTHENTICATED")
    cancelled = http.delete(f"/v1/jobs/{job['id']}", headers=admin).json()
    assert cancelled["status"] == "cancelled" and cancelled["finished_at"]
    assert_error(http.get("/v1/jobs/999999"), 404, "NOT_FOUND", "999999")


def test_unknown_route_and_method(http: httpx.Client) -> None:
    assert_error(http.get("/v2/nothing"), 404, "NOT_FOUND", "/v2/nothing")
    reply = http.put("/v1/games")
    assert reply.status_code == 405 and reply.json()["error"]["code"] == "UNIMPLEMENTED"


def test_healthz_reports_the_database(http: httpx.Client, fake: FakeService) -> None:
    assert http.get("/healthz").json() == {"status": "ok", "database": True}
    fake.database = False
    try:
        reply = http.get("/healthz")
        assert reply.status_code == 200 and reply.json() == {"status": "ok", "database": False}
    finally:
        fake.database = True


def test_readyz_waits_for_the_live_processes(http: httpx.Client, fake: FakeService) -> None:
    """/healthz is 200 while the process serves; /readyz only once it computes at full strength."""
    assert http.get("/readyz").status_code == 200
    fake.ready = False
    try:
        reply = http.get("/readyz")
        assert reply.status_code == 503 and reply.json()["error"]["code"] == "UNAVAILABLE"
        assert http.get("/healthz").status_code == 200
    finally:
        fake.ready = True


def test_openapi_and_docs(http: httpx.Client) -> None:
    spec = http.get("/openapi.json").json()
    for path in (
        "/v1/games",
        "/v1/value",
        "/v1/best-move",
        "/v1/is-p-position",
        "/v1/values:batch",
        "/v1/sequence",
        "/v1/stats",
        "/v1/jobs",
        "/v1/jobs/{job_id}",
        "/healthz",
        "/readyz",
        "/metrics",
    ):
        assert path in spec["paths"], path
    docs = http.get("/docs")
    assert docs.status_code == 200 and "openapi.json" in docs.text


def test_metrics_count_requests_by_transport_method_and_code(http: httpx.Client) -> None:
    http.get("/v1/value", params={"game": "nim", "position": "err:NOT_FOUND"})
    http.get("/v1/value", params={"game": "nim", "position": "1"})
    reply = http.get("/metrics")
    assert reply.status_code == 200 and reply.headers["content-type"].startswith("text/plain")
    text = reply.text
    assert 'nimbase_requests_total{code="NOT_FOUND",method="GET /v1/value",transport="rest"}' in text
    assert 'nimbase_requests_total{code="OK",method="GET /v1/value",transport="rest"}' in text
    assert "nimbase_request_duration_seconds_bucket" in text


def test_answers_from_memory_keep_the_same_shapes(http: httpx.Client, fake: FakeService) -> None:
    threaded = http.get("/v1/is-p-position", params={"game": "nim", "position": "2 2"}).json()
    before = fake.memory_answers
    fake.from_memory = True
    try:
        quick = http.get("/v1/is-p-position", params={"game": "nim", "position": "2 2"}).json()
        assert quick == threaded
        assert http.get("/v1/value", params={"game": "nim", "position": "3 5"}).json()["grundy"] == 6
        bad = http.get("/v1/value", params={"game": "nim", "position": "x"})
        assert_error(bad, 400, "INVALID_ARGUMENT")
        puzzle = http.get("/v1/is-p-position", params={"game": "nim:misere", "position": "1"})
        assert_error(puzzle, 409, "FAILED_PRECONDITION")
    finally:
        fake.from_memory = False
    assert fake.memory_answers == before + 4


def test_limits_given_to_the_server_bound_its_requests() -> None:
    fake = FakeService()
    with (
        running_server(fake, Limits(batch_positions=2, request_seconds=0.25)) as ports,
        httpx.Client(base_url=f"http://127.0.0.1:{ports.http}") as client,
    ):
        ok = client.post("/v1/values:batch", json={"game": "nim", "positions": ["1", "2"]})
        assert len(ok.json()["values"]) == 2
        over = client.post("/v1/values:batch", json={"game": "nim", "positions": ["1"] * 3})
        assert_error(over, 400, "INVALID_ARGUMENT", "at most 2 positions; got 3")
        client.get("/v1/value", params={"game": "nim", "position": "1"}, headers={"x-deadline-ms": "30000"})
        deadline = fake.deadlines[-1]
        assert deadline is not None and deadline <= time.monotonic() + 0.25


def _route_methods(http: httpx.Client) -> dict[str, set[str]]:
    """Every path of the API (the document's) and of the page and docs, with the methods it takes."""
    document = http.get("/openapi.json").json()
    paths = {
        path.replace("{job_id}", "1").replace("{name}", "g"): {method.upper() for method in item}
        for path, item in document["paths"].items()
    }
    pages = ("/", "/docs", "/redoc", "/docs/oauth2-redirect", "/openapi.json", "/static/index.html")
    paths.update({page: {"GET"} for page in pages})
    paths["/static/docs/favicon.png"] = {"GET"}
    return paths


def test_a_wrong_method_gets_405_with_allow_naming_every_method_of_the_path(http: httpx.Client) -> None:
    """RFC 9110: a 405 carries `Allow`, here exactly the methods the path takes (Starlette's own named
    only the first route of a path: GET /v1/jobs, not its POST), on every route, the page's included."""
    candidates = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE")
    for path, declared in _route_methods(http).items():
        refused = {method: http.request(method, path) for method in candidates}
        taken = {method for method, reply in refused.items() if reply.status_code != 405}
        assert declared <= taken, (path, declared, taken)
        for method, reply in refused.items():
            if method in taken:
                continue
            if method != "HEAD":  # an answer to HEAD has no body
                assert_error(reply, 405, "UNIMPLEMENTED", path)
            assert set(reply.headers["allow"].split(", ")) == taken, (method, path, reply.headers)
    assert http.put("/v1/jobs").headers["allow"] == "GET, POST"


def test_a_job_s_upto_is_any_json_integer(http: httpx.Client) -> None:
    """`upto` is JSON Schema's integer, as the document declares it: `10.0` is 10 (the fuzzer sent
    13279597.0, which the document allows); a fraction, a string or a bool is still refused."""
    admin = {"authorization": f"Bearer {ADMIN_TOKEN}"}
    job = http.post("/v1/jobs", json={"game": "nim", "upto": 10.0}, headers=admin).json()
    assert job["upto"] == 10 and isinstance(job["upto"], int)
    for upto in (10.5, "10", True, 1e300):
        refused = http.post("/v1/jobs", json={"game": "nim", "upto": upto}, headers=admin)
        assert_error(refused, 400, "INVALID_ARGUMENT", "upto")
