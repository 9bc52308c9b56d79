"""Every REST route, fuzzed from `/openapi.json`: no 5xx, every error in the contract's shape, every
answer exactly its declared schema, every deadline kept, every request the document allows accepted.

Two tests per route, and one of chains of calls. In the first, schemathesis generates the requests (the
schema's examples, the boundary values of every parameter, requests with undeclared methods or without
required headers, then random valid and invalid requests) and every check it has judges the answers
(`schemathesis run --checks all`): the document must say what the server enforces. In the second,
`steer` replaces most of its random values by real game ids, hostile positions and numbers (this
module's and tests/strategies.py's: 2^63, over 4,300 digits, Unicode digits, NULs, long texts), odd
deadlines, admin tokens with and without their scheme, and raw bodies no JSON encoder writes, so the
fuzzer reaches the service and not only the request parsing. The third follows the links between routes
(a job submitted then read and cancelled, a graph uploaded then read).

Each answer must pass schemathesis' checks and this module's: the error shape, no undeclared field, the
deadline kept, the admin token required, no number read from non-ASCII digits. Two of schemathesis'
checks are bent, each saying why: positive_data_acceptance spares the rules that bind several values
at once, which no parameter's schema can hold (`beyond_any_parameter_schema`), and use_after_free does
not apply to CancelJob (the chains' test). Steered requests skip the checks that judge a request by
whether schemathesis made it valid, which `steer` changes after the fact.

The routes are collected from the OpenAPI document `create_app` builds (it needs no database), so each
route is its own test item; the requests go to a real server over the test database, which must serve
that same document. `make test` runs 25 derandomized examples per route and test; `make fuzz` runs
`FUZZ_EXAMPLES` random ones (see conftest.py). A failure shows the request as curl; the body of a
steered call is the raw one its note names where it has one.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

import httpx
import hypothesis
import jsonschema_rs
import schemathesis
import sqlalchemy as sa
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    positive_data_acceptance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
    use_after_free,
)

from engine import registry
from nimbase.settings import Settings
from service.core import Nimbase
from service.rest.app import create_app
from tests import strategies as hostile
from tests.database import empty_data_tables
from tests.fuzz.conftest import LIMITS, OPTIONS, TOKEN, FuzzTarget, fuzz_config, warm_up

#: The REST API's own description of itself, as every server built by `create_app` serves it.
DOCUMENT: dict[str, Any] = create_app(
    Nimbase(Settings(admin_token=TOKEN, limits=LIMITS), None), limits=LIMITS
).openapi()

#: Schemathesis' own requests: the schema's examples, each parameter's boundary values, random ones.
schema = schemathesis.openapi.from_dict(DOCUMENT, config=fuzz_config())

#: The (path, method) of every route that reads `x-deadline-ms`.
DEADLINE_ROUTES = {
    (path, method.upper())
    for path, item in DOCUMENT["paths"].items()
    for method, operation in item.items()
    if any(p.get("name") == "x-deadline-ms" for p in operation.get("parameters", []))
}
#: Random requests only, some of whose values `steer` replaces (schemathesis cannot combine its own
#: examples with a test that draws more data).
steered_schema = schemathesis.openapi.from_dict(DOCUMENT, config=fuzz_config(examples_and_coverage=False))

#: Every (HTTP status, error code) pair the contract allows (API.md, "Errors"; 405 from routing itself).
ERROR_CODES: dict[int, set[str]] = {
    400: {"INVALID_ARGUMENT"},
    401: {"UNAUTHENTICATED"},
    403: {"PERMISSION_DENIED"},
    404: {"NOT_FOUND"},
    405: {"UNIMPLEMENTED"},
    409: {"ALREADY_EXISTS", "FAILED_PRECONDITION"},
    413: {"RESOURCE_EXHAUSTED"},
    422: {"RESOURCE_EXHAUSTED"},
    429: {"RESOURCE_EXHAUSTED"},
    500: {"INTERNAL"},
    503: {"UNAVAILABLE"},
    504: {"DEADLINE_EXCEEDED"},
}

#: How much longer than the server's request deadline any answer may take (scheduling, a first JIT).
DEADLINE_SLACK_SECONDS = 8.0

# -- what the fuzzer sends besides schemathesis' own values -----------------------------------------

#: Game ids the service knows, closed forms, stored-table kinds and live ones alike.
KNOWN_GAMES = [
    "nim",
    "nim:misere",
    "subtraction:1,3,4",
    "subtraction:1,3,4:misere",
    "subtraction:2,5,7",
    "octal:0.77",
    "octal:0.07",
    "octal:0.137",
    "octal:0.16",
    "octal:0.127",
    "grundy",
    "wythoff",
    "lights-out:3x3",
    "lights-out:5x5:torus",
    "lights-out:100000x100000",
    "lights-out:graph:fuzz",
]

#: Numbers as text that a parser must refuse or bound: 2^63 and around it, past Python's 4,300-digit
#: int-conversion limit, Unicode digits (Arabic-Indic, fullwidth, superscript), signs, exponents.
HOSTILE_NUMBERS = [
    *(str(n) for n in (2**22, 2**31, 2**32, 2**63 - 2, 2**63 - 1, 2**63, 2**64, 10**30, -(2**63) - 1)),
    "9" * 4301,
    "1" * 5000,
    "٣",
    "３",
    "²",
    "-1",
    "+1",
    "1.5",
    "1e3",
    "0x1",
    "",
]
_hostile_number = st.sampled_from(HOSTILE_NUMBERS)
#: Heap sizes as text: small ones half of the time, hostile ones the other half.
_heap = st.one_of(
    st.integers(0, 40).map(str), st.integers(0, 10**6).map(str), _hostile_number, _hostile_number
)
_heaps = st.lists(_heap, min_size=1, max_size=5).map(" ".join)
_pairs = st.lists(st.tuples(_heap, _heap), min_size=1, max_size=3).map(
    lambda pairs: " ".join(f"{a},{b}" for a, b in pairs)
)
#: Malformed texts: signs, Unicode digits, NULs, empty parts, whitespace.
_odd_texts = st.sampled_from(
    ["", " ", "0", "٣,٥", "３ ５", "1\x00", "1,", ",1", "1,,2", "1  2", "\t1\n", "a"]
)
#: Sums of many heaps: long to list moves of, to nim-sum, to search; the last one's URL is over 16 KiB.
_big_sums = st.sampled_from(
    [" ".join(["1000"] * 1000), " ".join(str(n) for n in range(1, 3001)), " ".join(["1"] * 10_000)]
)
#: Whole numbers as text, for integer parameters: small ones half of the time, hostile ones else.
INTEGERS: st.SearchStrategy[str] = st.one_of(st.integers(-3, 100).map(str), st.just("10000"), _hostile_number)
#: Families of GetSequence: heaps, Wythoff rows (`row:K`) with hostile K, and nonsense.
FAMILIES: st.SearchStrategy[str] = st.one_of(
    st.sampled_from(["heap", "row:0", "row:3", "row:", "f_3", "g'_1", ""]),
    INTEGERS.map(lambda n: f"row:{n}"),
)
#: `x-deadline-ms` values; a header travels as latin-1 without surrounding spaces, so its odd digit is
#: `²` (isdigit, not decimal).
DEADLINES: st.SearchStrategy[str] = st.one_of(
    st.sampled_from(["1", "50", "2000", "9" * 400]),
    INTEGERS.filter(lambda text: text.isascii() or text == "²"),
)
#: Request bodies no JSON encoder would write, by name (the name is what a failure report shows): deep
#: nesting, bytes that are not UTF-8, a batch over the 10,000 positions, one over 16 MiB, none at all.
RAW_BODIES: dict[str, bytes] = {
    "nested-arrays": b"[" * 100_000 + b"]" * 100_000,
    "nested-positions": b'{"game": "nim", "positions": ' + b"[" * 10_000 + b"]" * 10_000 + b"}",
    "not-utf8": b"\xff\xfe\x00{",
    "over-16MiB": b'{"game": "nim", "positions": ["' + b"1" * (16 << 20) + b'"]}',
    "20000-positions": b'{"game": "nim", "positions": [' + b",".join([b'"1"'] * 20_000) + b"]}",
    "empty": b"",
}


#: Game ids: the known ones (the three of the issue's cases twice as often), and hostile ones.
GAMES: st.SearchStrategy[str] = st.one_of(
    st.sampled_from(KNOWN_GAMES), st.sampled_from(["wythoff", "subtraction:1,3,4", "nim"]), hostile.game_ids
)


#: Lights Out boards: rows of 0/1 joined by '/', of the right size or not, with odd characters now and then.
_boards = st.lists(st.text("01", min_size=1, max_size=6), min_size=1, max_size=6).map(
    "/".join
) | st.sampled_from(["000/011/011", "00000/01100/01100/00000/00000", "000/01/011", "0a0/000/000", "0", "01/"])


def positions_of(game: object) -> st.SearchStrategy[str]:
    """Positions for `game`: pairs for Wythoff, boards for Lights Out, heaps for the others, malformed and
    hostile ones."""
    name = game if isinstance(game, str) else ""
    if name.startswith("lights-out"):
        own = _boards
    else:
        own = _pairs if name.startswith("wythoff") else st.one_of(_heaps, _big_sums)
    return st.one_of(own, own, _odd_texts, hostile.positions_for(name))


#: What an admin route may be sent as its authorization header; only the first two may be accepted.
AUTHORIZATIONS = [
    "Bearer {token}",
    "bearer {token}",
    "{token}",
    "Basic {token}",
    "Bearer {token}x",
    "Bearer",
    "Bearer ",
    "",
]


def is_admin_route(path: str, method: str) -> bool:
    """The routes that change data and so need the admin token: job submission and cancelling, uploads."""
    return (path.startswith("/v1/jobs") and method in ("POST", "DELETE")) or (
        path == "/v1/graphs" and method == "POST"
    )


def steer(case: schemathesis.Case, data: st.DataObject, target: FuzzTarget) -> dict[str, Any]:
    """Replace most of schemathesis' values (each drawn: about a quarter are kept) by real game ids,
    hostile positions, numbers, families and deadlines, the admin token, or a raw body; return the
    extra arguments of the call (a raw body, and its name under "raw body")."""

    def maybe(strategy: st.SearchStrategy[Any], label: str) -> Any:
        if data.draw(st.integers(0, 3), label=f"replace {label}?") == 0:
            return None
        return data.draw(strategy, label=label)

    method = case.method.upper()
    if is_admin_route(case.operation.path, method):
        authorization = maybe(st.sampled_from(AUTHORIZATIONS), "authorization")
        if authorization is not None:
            case.headers["authorization"] = authorization.format(token=target.token)
    if (case.operation.path, method) in DEADLINE_ROUTES and (
        deadline := maybe(DEADLINES, "deadline")
    ) is not None:
        case.headers["x-deadline-ms"] = deadline
    for container, label in ((case.query, "query"), (case.path_parameters, "path")):
        if not isinstance(container, dict):
            continue
        for name in sorted(container, key=lambda name: name != "game"):  # the game first: positions follow it
            strategy = {"game": GAMES, "family": FAMILIES}.get(name, INTEGERS)
            if name == "position":
                strategy = positions_of(container.get("game"))
            if label == "path":  # an empty segment would be another route (/v1/jobs/ redirects to /v1/jobs)
                strategy = strategy.filter(bool)
            if (value := maybe(strategy, f"{label} {name}")) is not None:
                container[name] = value
    query = case.query
    if isinstance(query, dict) and {"start", "stop"} <= set(query):
        # A short window from the start drawn, so a valid far window is tried too (2^63 - 2 to 2^63 + 2).
        start = str(query["start"])
        width = maybe(st.integers(0, 5), "window")
        if width is not None and len(start) < 100 and start.isascii() and start.lstrip("-").isdigit():
            query["stop"] = str(int(start) + width)
    body = case.body
    if isinstance(body, dict):
        if isinstance(body.get("game"), str) and (game := maybe(GAMES, "body game")) is not None:
            body["game"] = game
        positions = body.get("positions")
        if isinstance(positions, list) and all(isinstance(p, str) for p in positions):
            replaced = maybe(st.lists(positions_of(body.get("game")), max_size=20), "body positions")
            if replaced is not None:
                body["positions"] = replaced
    raw = data.draw(
        st.one_of(st.none(), st.none(), st.none(), st.sampled_from(sorted(RAW_BODIES))), "raw body"
    )
    if method == "POST" and raw is not None:
        return {"data": RAW_BODIES[raw], "raw body": raw}
    return {}


# -- the checks beyond schemathesis' own --------------------------------------------------------------


def error_shape(
    ctx: schemathesis.CheckContext, response: schemathesis.Response, case: schemathesis.Case
) -> None:
    """Every 4xx and 5xx is JSON, exactly `{"error": {"code", "message"}}` (plus `job` for 422), with
    a code that goes with its status and a message that is no stack trace."""
    status = response.status_code
    if status < 400:
        return
    content_type = (response.headers.get("content-type") or [""])[0]
    assert content_type.startswith("application/json"), (
        f"error {status} is not JSON: content-type {content_type!r}, body {response.content[:200]!r}"
    )
    try:
        body = json.loads(response.content)
    except ValueError as exc:
        raise AssertionError(
            f"error {status} has a body that is not JSON: {response.content[:200]!r}"
        ) from exc
    assert isinstance(body, dict) and set(body) == {"error"}, f"error {status}: not the error shape: {body!r}"
    error = body["error"]
    assert isinstance(error, dict), f"error {status}: `error` is not an object: {body!r}"
    assert set(error) in ({"code", "message"}, {"code", "message", "job"}), (
        f"error {status}: `error` holds {sorted(error)}, not code and message (and job): {body!r}"
    )
    code, message = error["code"], error["message"]
    assert isinstance(code, str) and isinstance(message, str) and message, f"error {status}: {body!r}"
    assert code in ERROR_CODES.get(status, set()), f"error {status} has code {code!r}: {body!r}"
    assert "Traceback" not in message, f"error {status} carries a stack trace: {message!r}"
    if "job" in error:
        assert status == 422 and code == "RESOURCE_EXHAUSTED", f"`job` in a {status} {code}: {body!r}"
        assert isinstance(error["job"], dict) and isinstance(error["job"].get("id"), int), body


@cache
def _closed_validator(status: str, path: str, method: str) -> Any:
    """A validator of the answer DOCUMENT declares, in which every object that declares its properties
    and does not say it is open (Stats) allows no other property; None where no JSON is declared."""
    spec = copy.deepcopy(DOCUMENT)
    content = spec["paths"][path][method]["responses"][status].get("content", {})
    declared = content.get("application/json", {}).get("schema")
    if declared is None:
        return None

    def close(node: Any) -> Any:
        if isinstance(node, dict):
            node = {key: close(value) for key, value in node.items()}
            if "properties" in node and "additionalProperties" not in node:
                node["additionalProperties"] = False
            return node
        if isinstance(node, list):
            return [close(item) for item in node]
        return node

    root = {"$schema": "https://json-schema.org/draft/2020-12/schema", **close(declared)}
    root["components"] = close(spec.get("components", {}))
    return jsonschema_rs.validator_for(root)


def no_undeclared_field(
    ctx: schemathesis.CheckContext, response: schemathesis.Response, case: schemathesis.Case
) -> None:
    """An answer carries only fields its schema declares (response_schema_conformance lets any extra
    field through, as the TypedDicts' schemas do not close their objects)."""
    responses = case.operation.definition.raw.get("responses", {})
    status = str(response.status_code)
    if status not in responses or not response.content:
        return
    content_type = (response.headers.get("content-type") or [""])[0]
    if not content_type.startswith("application/json"):
        return
    validator = _closed_validator(status, case.operation.path, case.operation.method.lower())
    if validator is None:
        return
    instance = json.loads(response.content)
    problems = [
        f"{'/'.join(map(str, e.instance_path))}: {e.message}" for e in validator.iter_errors(instance)
    ]
    assert not problems, f"{status} answer does not match its declared (closed) schema: {problems[:5]}"


def deadline_kept(
    ctx: schemathesis.CheckContext, response: schemathesis.Response, case: schemathesis.Case
) -> None:
    """No answer takes much longer than the server's request deadline (NIMBASE_LIMITS_REQUEST_SECONDS)."""
    limit = LIMITS.request_seconds + DEADLINE_SLACK_SECONDS
    assert response.elapsed <= limit, (
        f"answered after {response.elapsed:.1f} s; the deadline was {limit:.1f} s"
    )


def admin_token_required(
    ctx: schemathesis.CheckContext, response: schemathesis.Response, case: schemathesis.Case
) -> None:
    """Submitting or cancelling a job, or uploading a graph, succeeds only with `authorization: Bearer <the
    admin token>`."""
    if not is_admin_route(case.operation.path, case.method.upper()):
        return
    if not 200 <= response.status_code < 300:
        return
    sent = response.request.headers.get("authorization")
    text = sent.decode("latin-1") if isinstance(sent, bytes) else (sent or "")
    scheme, _, token = text.partition(" ")
    route = f"{case.method.upper()} {case.operation.path}"
    assert scheme.lower() == "bearer" and token.strip() == TOKEN, (
        f"{route} answered {response.status_code} to authorization {sent!r}"
    )


def _numbers_sent(case: schemathesis.Case) -> list[str]:
    texts: list[str] = []
    for container in (case.query, case.path_parameters, case.body if isinstance(case.body, dict) else None):
        if isinstance(container, dict):
            for name in ("game", "position", "family", "positions", "job_id"):
                value = container.get(name)
                texts.extend(v for v in (value if isinstance(value, list) else [value]) if isinstance(v, str))
    return texts


def ascii_digits_only(
    ctx: schemathesis.CheckContext, response: schemathesis.Response, case: schemathesis.Case
) -> None:
    """A number written with other than ASCII digits (`٣`, `３`) is refused, never read as a number."""
    if not 200 <= response.status_code < 300 or case.operation.path == "/v1/values:batch":
        return
    foreign = [t for t in _numbers_sent(case) if any(ch.isdigit() and not ch.isascii() for ch in t)]
    assert not foreign, (
        f"{response.status_code} answer to non-ASCII digits {foreign!r}: {response.content[:200]!r}"
    )


def ascii_digits_only_in_batches(
    ctx: schemathesis.CheckContext, response: schemathesis.Response, case: schemathesis.Case
) -> None:
    """In a batch, a position with non-ASCII digits gets an error in its slot."""
    if case.operation.path != "/v1/values:batch" or response.status_code != 200:
        return
    positions = case.body.get("positions") if isinstance(case.body, dict) else None
    body = response.request.body
    sent = json.loads(body) if isinstance(body, (str, bytes)) and body else None
    if not isinstance(sent, dict) or sent.get("positions") != positions or not isinstance(positions, list):
        return
    values = json.loads(response.content).get("values", [])
    for position, slot in zip(positions, values, strict=False):
        if isinstance(position, str) and any(ch.isdigit() and not ch.isascii() for ch in position):
            assert isinstance(slot, dict) and "error" in slot, f"batch slot for {position!r} is {slot!r}"


def _game_of(case: schemathesis.Case) -> str | None:
    for container in (case.query, case.body):
        if isinstance(container, dict) and isinstance(container.get("game"), str):
            return str(container["game"])
    return None


#: Most values of one range, by route (the bound on `stop - start`, which no parameter's schema holds).
RANGE_LIMITS = {"/v1/sequence": LIMITS.sequence_values, "/v1/sequence:download": LIMITS.download_values}


def beyond_any_parameter_schema(case: schemathesis.Case, sent: object) -> str | None:
    """Why a request valid by the document may still be invalid, where an OpenAPI document cannot say it,
    each parameter having a schema of its own; None if it can. Four rules bind several values at once:
    once the game id names a family the engine knows, the rest is read by that game's grammar (its id's
    parameters, its positions, its families); a range must not run backwards nor hold more values than
    the route's limit; a columnar body is whole 8-byte integers (a binary string's schema has no length
    rule); a graph's edges and terminals name its vertices. `sent` is the body as sent."""
    game = _game_of(case)
    if game is not None and game.partition(":")[0] in registry.FAMILIES:
        return f"game {game!r} reads the rest of the request by its own grammar"
    query = case.query if isinstance(case.query, dict) else {}
    most = RANGE_LIMITS.get(case.operation.path)
    if most is not None and "stop" in query:
        start, stop = int(query.get("start", 0)), int(query["stop"])
        if not 0 <= stop - start <= most:
            return f"range {start}..{stop} runs backwards or holds more than {most} values"
    if case.operation.path == "/v1/values:columnar" and isinstance(sent, bytes) and len(sent) % 8:
        return f"a columnar body of {len(sent)} bytes is not whole 8-byte integers"
    if case.operation.path == "/v1/graphs" and isinstance(case.body, dict):
        return _graph_beyond_schema(case.body)
    return None


def _graph_beyond_schema(body: dict[str, Any]) -> str | None:
    """A graph's edges and terminals must name listed vertices, and its names be printable as Python
    counts it (the document's pattern refuses control characters; Unicode's other unprintable classes
    need a regex feature the generators lack)."""
    vertices = body.get("vertices") if isinstance(body.get("vertices"), list) else []
    named = [v for edge in body.get("edges") or [] if isinstance(edge, list) for v in edge]
    named += list(body.get("terminals") or {})
    if not set(named) <= set(vertices):
        return "an edge or terminal names a vertex that is not listed"
    if not all(isinstance(v, str) and v.isprintable() for v in [*vertices, *named]):
        return "a vertex name is not printable"
    return None


def positive_data_acceptance_per_parameter(
    ctx: schemathesis.CheckContext, response: schemathesis.Response, case: schemathesis.Case
) -> None:
    """schemathesis' positive_data_acceptance (a request valid by the document is not refused with 400),
    but for the rules between values that no parameter's schema can hold (`beyond_any_parameter_schema`):
    the bounds the document declares (limits, graph names, game ids, deadlines, heaps) are held whole."""
    try:
        positive_data_acceptance(ctx, response, case)
    except AssertionError:
        if (
            response.status_code == 400
            and beyond_any_parameter_schema(case, response.request.body) is not None
        ):
            return
        raise


#: This module's checks, beside schemathesis' own.
OWN_CHECKS = [
    positive_data_acceptance_per_parameter,
    error_shape,
    no_undeclared_field,
    deadline_kept,
    admin_token_required,
    ascii_digits_only,
    ascii_digits_only_in_batches,
]
#: The checks of a steered call: schemathesis' checks of the answer alone, then this module's. Not those
#: that judge an answer by whether schemathesis generated the request valid or invalid
#: (positive_data_acceptance, negative_data_rejection): `steer` replaces its values after it decided, so
#: it cannot tell which a steered request is.
STEERED_CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    *(check for check in OWN_CHECKS if check is not positive_data_acceptance_per_parameter),
]


def test_the_server_serves_the_fuzzed_document(fuzz_target: FuzzTarget) -> None:
    """The document the routes were collected from is the one the server serves."""
    served = httpx.get(f"{fuzz_target.base_url}/openapi.json", timeout=30)
    assert served.status_code == 200 and served.json() == DOCUMENT


@schema.parametrize()
def test_every_route_answers_in_its_declared_shape(case: schemathesis.Case, fuzz_target: FuzzTarget) -> None:
    case.call_and_validate(
        base_url=fuzz_target.base_url,
        additional_checks=OWN_CHECKS,
        excluded_checks=[positive_data_acceptance],  # narrowed: positive_data_acceptance_per_parameter
    )


@steered_schema.parametrize()
@steered_schema.given(data=st.data())
def test_every_route_survives_real_games_and_hostile_values(
    case: schemathesis.Case, data: st.DataObject, fuzz_target: FuzzTarget
) -> None:
    extra = steer(case, data, fuzz_target)
    raw = extra.pop("raw body", None)
    try:
        case.call_and_validate(base_url=fuzz_target.base_url, checks=STEERED_CHECKS, **extra)
    except Exception as exc:
        if raw is not None:  # schemathesis' report shows the generated body, not the one sent
            exc.add_note(f"The body sent was RAW_BODIES[{raw!r}], not the one shown above.")
        raise


def test_chains_of_calls_pass_every_check(fuzz_target: FuzzTarget, db_engine: sa.Engine) -> None:
    """Schemathesis' stateful phase: chains of calls linked by what an answer gives the next (a job
    submitted, then read, listed and cancelled; a graph uploaded, then read), with the admin token, under
    every check, the stateful ones included, but use_after_free: it expects a 404 for a resource after
    its DELETE, and DELETE /v1/jobs/{job_id} is CancelJob, which keeps the job to be read with its status
    `cancelled` (API.md); the cancelled job's answer is checked by the others (its schema)."""
    stateful = schemathesis.openapi.from_dict(DOCUMENT, config=fuzz_config(stateful=True))
    workflow: Any = stateful.as_state_machine()
    # Each chain starts from empty tables, job ids from 1: hypothesis replays a chain (to explore from it,
    # to shrink a failure) and must find the server as the chain first found it, else the links it
    # follows change and hypothesis reports only that the runs differed. Failures are gathered rather
    # than raised, so a failing chain is reported as it ran.
    failures: list[Exception] = []

    class Chains(workflow):  # type: ignore[misc, valid-type]
        def setup(self) -> None:
            empty_data_tables(db_engine)

        def get_call_kwargs(self, case: schemathesis.Case) -> dict[str, Any]:
            return {"base_url": fuzz_target.base_url, "headers": {"authorization": f"Bearer {TOKEN}"}}

        def validate_response(
            self, response: schemathesis.Response, case: schemathesis.Case, *_: Any, **kwargs: Any
        ) -> None:
            try:
                case.validate_response(
                    response,
                    additional_checks=OWN_CHECKS,
                    excluded_checks=[positive_data_acceptance, use_after_free],
                    transport_kwargs=kwargs,
                    recorder=self.recorder,
                )
            except Exception as exc:
                failures.append(exc)

    try:
        Chains.run(
            settings=hypothesis.settings(
                max_examples=OPTIONS.examples,
                stateful_step_count=6,
                derandomize=not OPTIONS.randomized,
                database=None,
                deadline=None,
                suppress_health_check=list(hypothesis.HealthCheck),
            )
        )
    finally:
        warm_up(fuzz_target.base_url)  # the fuzzer's graph again, for the tests that play on it
    if failures:
        raise ExceptionGroup(f"{len(failures)} calls of the chains failed their checks", failures[:5])
