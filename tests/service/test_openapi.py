"""/openapi.json documents every answer and error, and every declared shape fits the real answers.

The shapes are declared once, in `nimbase.schema`; the REST routes name them as response models.
Each is checked against the answers the real REST app gives (over the fake service): validating an
answer must give it back unchanged, so an undeclared key, a missing one or a wrong type all fail.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from pydantic import TypeAdapter

from engine.errors import InvalidArgument, InvalidGameId, UnknownGame
from engine.graphs import MAX_NAME_CHARS, check_graph_name
from engine.registry import FAMILIES, MAX_GAME_ID_CHARS, list_games, parse_game_id
from nimbase import schema
from nimbase.client import NimbaseClient
from service.limits import Limits
from service.rest.app import create_app
from service.server import BoundPorts
from tests.servers import running_server
from tests.service.fake_service import ADMIN_TOKEN, FakeService

#: Routes whose 200 answer is not JSON, and its media type.
NOT_JSON = {
    ("get", "/metrics"): "text/plain",
    ("post", "/v1/values:columnar"): "application/octet-stream",
    ("get", "/v1/sequence:download"): "application/gzip",
}

#: The response model each route declares.
MODELS: dict[tuple[str, str], str] = {
    ("get", "/v1/games"): "GameList",
    ("get", "/v1/value"): "Value",
    ("get", "/v1/best-move"): "BestMove",
    ("get", "/v1/mainline"): "Mainline",
    ("get", "/v1/is-p-position"): "PPosition",
    ("post", "/v1/values:batch"): "Batch",
    ("get", "/v1/sequence"): "Sequence",
    ("get", "/v1/stats"): "Stats",
    ("post", "/v1/jobs"): "Job",
    ("get", "/v1/jobs"): "JobList",
    ("get", "/v1/jobs/{job_id}"): "Job",
    ("delete", "/v1/jobs/{job_id}"): "Job",
    ("post", "/v1/jobs/{job_id}:retry"): "Job",
    ("post", "/v1/graphs"): "GraphSummary",
    ("get", "/v1/graphs/{name}"): "Graph",
    ("get", "/healthz"): "Health",
    ("get", "/readyz"): "Health",
}

#: Error statuses each route must declare (it may declare more).
ERRORS_AT_LEAST: dict[tuple[str, str], set[str]] = {
    ("get", "/v1/value"): {"400", "404", "422", "503", "504"},
    ("get", "/v1/best-move"): {"400", "404", "422", "503", "504"},
    ("get", "/v1/mainline"): {"400", "404", "422", "503", "504"},
    ("get", "/v1/is-p-position"): {"400", "404", "409", "422", "503", "504"},
    ("post", "/v1/values:batch"): {"400", "404", "422", "503", "504"},
    ("post", "/v1/values:columnar"): {"400", "404", "409", "413", "422", "503", "504"},
    ("get", "/v1/sequence"): {"400", "404", "422", "503", "504"},
    ("get", "/v1/stats"): {"400", "404", "503"},
    ("post", "/v1/jobs"): {"400", "401", "403", "404", "409", "422", "503"},
    ("get", "/v1/jobs"): {"400", "503"},
    ("get", "/v1/jobs/{job_id}"): {"400", "404", "503"},
    ("delete", "/v1/jobs/{job_id}"): {"400", "401", "403", "404", "503"},
    ("post", "/v1/jobs/{job_id}:retry"): {"400", "401", "403", "404", "409", "503"},
    ("post", "/v1/graphs"): {"400", "401", "403", "409", "413", "503"},
    ("get", "/v1/graphs/{name}"): {"400", "404", "503"},
}

ADMIN = {"authorization": f"Bearer {ADMIN_TOKEN}"}


@pytest.fixture(scope="module")
def ports() -> Iterator[BoundPorts]:
    with running_server(FakeService()) as bound:
        yield bound


@pytest.fixture(scope="module")
def http(ports: BoundPorts) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=f"http://127.0.0.1:{ports.http}") as c:
        yield c


@pytest.fixture(scope="module")
def spec(http: httpx.Client) -> dict[str, Any]:
    reply = http.get("/openapi.json")
    assert reply.status_code == 200
    document: dict[str, Any] = reply.json()
    return document


def operations(spec: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            yield method, path, operation


def ref_name(schema_object: dict[str, Any]) -> str:
    return str(schema_object.get("$ref", "")).rsplit("/", 1)[-1]


def fits(shape: Any, answer: Any) -> None:
    """`answer` is an instance of `shape`, with nothing undeclared (validation keeps it as it is)."""
    assert TypeAdapter(shape).validate_python(answer, strict=True) == answer


def test_every_route_documents_its_200_answer(spec: dict[str, Any]) -> None:
    seen = set()
    for method, path, operation in operations(spec):
        seen.add((method, path))
        ok = operation["responses"]["200"]
        if (method, path) in NOT_JSON:
            assert list(ok["content"]) == [NOT_JSON[method, path]], path
            continue
        body = ok["content"]["application/json"]["schema"]
        assert "$ref" in body or "type" in body, (method, path, body)
        assert ref_name(body) == MODELS[method, path], (method, path)
        assert ref_name(body) in spec["components"]["schemas"]
    assert seen == set(MODELS) | set(NOT_JSON)


def test_error_statuses_are_declared_with_the_error_body(spec: dict[str, Any]) -> None:
    schemas = spec["components"]["schemas"]
    assert set(schemas["ErrorBody"]["required"]) == {"error"}
    assert ref_name(schemas["ErrorBody"]["properties"]["error"]) == "ErrorDetail"
    assert set(schemas["ErrorDetail"]["required"]) == {"code", "message"}
    for method, path, operation in operations(spec):
        errors = {status for status in operation["responses"] if status not in ("200", "304")}
        assert ERRORS_AT_LEAST.get((method, path), set()) <= errors, (method, path, errors)
        for status in errors:
            response = operation["responses"][status]
            assert response["description"].split(":")[0].isupper(), (method, path, status)
            assert ref_name(response["content"]["application/json"]["schema"]) == "ErrorBody"


def test_no_trace_of_fastapi_validation_errors(spec: dict[str, Any]) -> None:
    text = json.dumps(spec)
    assert "HTTPValidationError" not in text and "ValidationError" not in text


def test_parameters_are_described(spec: dict[str, Any]) -> None:
    for method, path, operation in operations(spec):
        for parameter in operation.get("parameters", []):
            assert parameter.get("description"), (method, path, parameter["name"])
            if parameter["name"] in ("game", "position"):
                assert parameter["schema"]["examples"], (method, path, parameter["name"])
    value = {p["name"]: p for p in spec["paths"]["/v1/value"]["get"]["parameters"]}
    # The examples are a listed game and one of its own positions (the registry's, not the REST layer's).
    [game] = value["game"]["schema"]["examples"]
    [position] = value["position"]["schema"]["examples"]
    listed = {info.id: info for info in list_games()}
    assert ":" in game and position in listed[game].examples
    parse_game_id(game).parse(position)
    first_of_each_family: dict[str, str] = {}
    for info in list_games():
        first_of_each_family.setdefault(info.id.partition(":")[0], info.position_syntax)
    for family, syntax in first_of_each_family.items():  # every family's position syntax is described
        assert f"`{family}`: {syntax}" in value["position"]["description"]
    assert value["x-deadline-ms"]["in"] == "header"
    submit = {p["name"]: p for p in spec["paths"]["/v1/jobs"]["post"]["parameters"]}
    assert submit["authorization"]["in"] == "header" and "Bearer" in submit["authorization"]["description"]


def test_move_fields_are_documented(spec: dict[str, Any]) -> None:
    move = spec["components"]["schemas"]["Move"]
    assert set(move["required"]) == {"move", "position"}  # a puzzle's press has no outcome
    assert {"outcome", "solvable", "heap", "pair", "to", "grundy", "remoteness"} <= set(move["properties"])
    for name in ("heap", "pair", "to"):
        assert move["properties"][name]["description"]
    for example in move["examples"]:
        fits(schema.Move, example)


def test_documented_examples_fit_their_shapes(spec: dict[str, Any]) -> None:
    for name, component in spec["components"]["schemas"].items():
        shape = getattr(schema, name, None)
        for example in component.get("examples", []):
            if shape is not None:
                fits(shape, example)


def test_values_fit_their_declarations(http: httpx.Client) -> None:
    for game, position in (("nim", "5 3"), ("nim", ""), ("nim:misere", "1 1")):
        params = {"game": game, "position": position}
        fits(schema.Value, http.get("/v1/value", params=params).json())
        fits(schema.PPosition, http.get("/v1/is-p-position", params=params).json())
        best = http.get("/v1/best-move", params=params).json()
        fits(schema.BestMove, best)
        fits(schema.Mainline, http.get("/v1/mainline", params=params).json())
    best = http.get("/v1/best-move", params={"game": "nim", "position": "1 2"}).json()
    assert {"heap", "to"} <= set(best["best_move"]) and all("heap" in m for m in best["moves"])
    batch = http.post("/v1/values:batch", json={"game": "nim", "positions": ["1 2", "x", "err:NOT_FOUND"]})
    fits(schema.Batch, batch.json())
    fits(schema.GameList, http.get("/v1/games").json())


def test_sequences_stats_and_health_fit_their_declarations(http: httpx.Client) -> None:
    for family in ("heap", "aperiodic"):
        params = {"game": "nim", "family": family, "start": 2, "stop": 9}
        fits(schema.Sequence, http.get("/v1/sequence", params=params).json())
    stats = http.get("/v1/stats", params={"game": "nim"}).json()
    fits(schema.Stats, stats)
    assert "big" in stats and "nested" in stats  # Stats stays open to keys it does not declare
    fits(schema.Health, http.get("/healthz").json())


def test_jobs_fit_their_declarations(http: httpx.Client) -> None:
    job = http.post("/v1/jobs", json={"game": "nim", "upto": 10}, headers=ADMIN).json()
    fits(schema.Job, job)
    fits(schema.Job, http.get(f"/v1/jobs/{job['id']}").json())
    fits(schema.JobList, http.get("/v1/jobs").json())
    fits(schema.Job, http.delete(f"/v1/jobs/{job['id']}", headers=ADMIN).json())
    assert "queued" in job and "queued" not in http.get(f"/v1/jobs/{job['id']}").json()
    page = http.get("/v1/jobs", params={"limit": 1}).json()
    fits(schema.JobList, page)
    assert set(page) == {"jobs", "next_cursor"}


@pytest.mark.parametrize(
    ("method", "path", "kwargs"),
    [
        ("GET", "/v1/value", {"params": {"game": "nim", "position": "x"}}),
        ("GET", "/v1/value", {"params": {"game": "nim"}}),
        ("GET", "/v1/value", {"params": {"game": "nim", "position": "err:RESOURCE_EXHAUSTED"}}),
        ("GET", "/v1/value", {"params": {"game": "nim", "position": "boom"}}),
        ("GET", "/v1/stats", {"params": {"game": "go"}}),
        ("POST", "/v1/jobs", {"json": {"game": "nim", "upto": 10}}),
        ("POST", "/v1/values:batch", {"content": b"{not json"}),
        ("GET", "/v1/jobs/999", {}),
        ("GET", "/v2/nothing", {}),
    ],
)
def test_errors_fit_the_error_body(
    http: httpx.Client, method: str, path: str, kwargs: dict[str, Any]
) -> None:
    reply = http.request(method, path, **kwargs)
    assert reply.status_code >= 400
    fits(schema.ErrorBody, reply.json())


def test_client_answers_fit_the_same_declarations(ports: BoundPorts, http: httpx.Client) -> None:
    """The client returns the very shapes it is annotated with, move fields included."""
    with NimbaseClient(f"127.0.0.1:{ports.grpc}", token=ADMIN_TOKEN) as client:
        best = client.best_move("nim", "1 2")
        fits(schema.BestMove, best)
        assert best == http.get("/v1/best-move", params={"game": "nim", "position": "1 2"}).json()
        assert {(m["heap"], tuple(m["to"])) for m in best["moves"]} == {(2, (1,)), (2, ()), (1, ())}
        fits(schema.Value, client.get_value("nim", "3 5"))
        line = client.mainline("nim", "1 2")
        fits(schema.Mainline, line)
        assert line == http.get("/v1/mainline", params={"game": "nim", "position": "1 2"}).json()
        fits(schema.Batch, client.batch_get_values("nim", ["1", "x"]))
        fits(schema.Sequence, client.get_sequence("nim", 0, 5))
        fits(schema.Stats, client.get_stats("nim"))
        fits(schema.JobList, client.list_jobs())


def _parameters(document: dict[str, Any], method: str, path: str) -> dict[str, dict[str, Any]]:
    return {p["name"]: p["schema"] for p in document["paths"][path][method]["parameters"]}


def test_bounds_follow_the_limits_the_app_is_built_with() -> None:
    """The document declares what the server checks, from the app's own `Limits` (not a copy)."""
    limits = Limits(listed_moves=77, batch_positions=5)
    document = create_app(FakeService(), limits=limits).openapi()
    best = _parameters(document, "get", "/v1/best-move")
    assert (best["limit"]["minimum"], best["limit"]["maximum"]) == (1, 77)
    assert best["x-deadline-ms"] == {**best["x-deadline-ms"], "type": "integer", "minimum": 1}
    assert _parameters(document, "get", "/v1/jobs")["limit"]["minimum"] == 1
    sequence = _parameters(document, "get", "/v1/sequence")
    assert sequence["start"]["minimum"] == 0 and sequence["stop"]["maximum"] == 2**63 - 1
    batch = document["components"]["schemas"]["BatchRequest"]["properties"]
    assert batch["positions"]["maxItems"] == 5 and batch["game"]["maxLength"] == MAX_GAME_ID_CHARS
    job = document["components"]["schemas"]["JobRequest"]["properties"]
    assert job["upto"]["minimum"] == 0 and job["game"]["pattern"] == batch["game"]["pattern"]
    for parameter in best.values():  # text on the wire: never JSON null
        assert "anyOf" not in parameter
    assert best["choose"]["enum"] == ["best", "random"] and best["seed"]["maximum"] == 2**63 - 1
    lines = create_app(FakeService(), limits=Limits(mainline_plies_max=9)).openapi()
    line = _parameters(lines, "get", "/v1/mainline")
    assert (line["max_plies"]["minimum"], line["max_plies"]["maximum"]) == (1, 9)


@pytest.mark.parametrize(
    "name",
    ["petersen", "a.b_c~d-e", "...", ".x", "x" * MAX_NAME_CHARS, ".", "..", "", "a/b", "é", "a b", "x" * 201],
)
def test_the_graph_name_pattern_is_the_engines(spec: dict[str, Any], name: str) -> None:
    declared = _parameters(spec, "get", "/v1/graphs/{name}")["name"]
    fits_schema = declared["minLength"] <= len(name) <= declared["maxLength"] and re.search(
        declared["pattern"], name
    )
    try:
        check_graph_name(name)
        accepted = True
    except InvalidArgument:
        accepted = False
    assert bool(fits_schema) == accepted, (name, declared)


@pytest.mark.parametrize(
    "game", ["nim", "nim:misere", "subtraction:1,3,4", "a-b:x", "", "Nim", "1nim", ":x", "ni m"]
)
def test_the_game_id_pattern_is_the_registrys(spec: dict[str, Any], game: str) -> None:
    """A game id the document allows reaches its family (found or not); one it refuses, the server does."""
    declared = _parameters(spec, "get", "/v1/value")["game"]
    fits_schema = bool(re.search(declared["pattern"], game)) and len(game) >= declared["minLength"]
    try:
        parse_game_id(game)
        refused_as_malformed = False
    except InvalidGameId:
        refused_as_malformed = game.partition(":")[0] not in FAMILIES
    except UnknownGame:
        refused_as_malformed = False
    assert fits_schema != refused_as_malformed, (game, declared)
