"""HTTP done right (issue 11): CORS, ETag/304 and immutable caching, gzip, and rate limits over both
transports, on the real servers (the fake service, and a real Nimbase for table/period/live sources)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
import sqlalchemy as sa

from engine.values import Value
from nimbase.settings import RateLimitSettings, Settings
from nimbase.v1 import nimbase_pb2 as pb
from nimbase.v1 import nimbase_pb2_grpc
from service.calls import GetValue
from service.core import Nimbase
from service.http_cache import CACHE_CONTROL, GZIP_MINIMUM_BYTES
from service.limits import DEFAULT_LIMITS, Limits
from service.rate_limit import RateLimiter
from tests.servers import running_server
from tests.service.fake_service import ADMIN_TOKEN, FakeService

REPO = Path(__file__).resolve().parents[2]
ORIGIN = "https://board.example"


class LiveFake(FakeService):
    """The fake, answering `live N` as a value computed for the request."""

    def get_value(self, asked: GetValue) -> Value:
        if asked.position.startswith("live "):
            value = super().get_value(replace(asked, position=asked.position.removeprefix("live ")))
            return value._replace(source="live")
        return super().get_value(asked)


def serving(service: Any, limits: Limits = DEFAULT_LIMITS, **options: Any) -> Any:
    """`running_server`, with `serve`'s HTTP options (cors_origins, rate_limit)."""
    return running_server(service, limits, **options)


@pytest.fixture(scope="module")
def http() -> Iterator[httpx.Client]:
    with running_server(LiveFake()) as ports, httpx.Client(base_url=f"http://127.0.0.1:{ports.http}") as c:
        yield c


def value(http: httpx.Client, position: str, **headers: str) -> httpx.Response:
    return http.get("/v1/value", params={"game": "nim", "position": position}, headers=headers)


# ---- CORS ------------------------------------------------------------------------------------------


def preflight(
    http: httpx.Client, path: str, method: str, origin: str = ORIGIN, **params: str
) -> httpx.Response:
    headers = {
        "origin": origin,
        "access-control-request-method": method,
        "access-control-request-headers": "content-type, x-deadline-ms",
    }
    return http.options(path, params=params, headers=headers)


def test_cors_preflight_and_headers_on_a_get(http: httpx.Client) -> None:
    answer = preflight(http, "/v1/value", "GET", game="nim", position="3")
    assert answer.status_code == 200
    assert answer.headers["access-control-allow-origin"] == "*"
    assert "GET" in answer.headers["access-control-allow-methods"]
    assert "x-deadline-ms" in answer.headers["access-control-allow-headers"]
    got = value(http, "3 5", origin=ORIGIN)
    assert got.status_code == 200
    assert got.headers["access-control-allow-origin"] == "*"
    assert {"etag", "retry-after"} <= set(got.headers["access-control-expose-headers"].split(", "))


def test_cors_on_the_batch_post(http: httpx.Client) -> None:
    answer = preflight(http, "/v1/values:batch", "POST")
    assert answer.status_code == 200
    assert answer.headers["access-control-allow-origin"] == "*"
    assert "POST" in answer.headers["access-control-allow-methods"]
    assert "content-type" in answer.headers["access-control-allow-headers"]
    posted = http.post(
        "/v1/values:batch", json={"game": "nim", "positions": ["1"]}, headers={"origin": ORIGIN}
    )
    assert posted.status_code == 200
    assert posted.headers["access-control-allow-origin"] == "*"
    # POST is allowed there only: a GET route's preflight does not offer it.
    assert "POST" not in preflight(http, "/v1/value", "GET").headers["access-control-allow-methods"]


@pytest.mark.parametrize(
    ("path", "method"), [("/v1/jobs", "POST"), ("/v1/jobs/1", "DELETE"), ("/v1/jobs", "GET")]
)
def test_no_cors_on_the_job_routes(http: httpx.Client, path: str, method: str) -> None:
    answer = preflight(http, path, method)
    assert answer.status_code == 405
    assert not any(name.startswith("access-control-") for name in answer.headers)
    submitted = http.post(
        "/v1/jobs",
        json={"game": "nim", "upto": 10},
        headers={"origin": ORIGIN, "authorization": f"Bearer {ADMIN_TOKEN}"},
    )
    listed = http.get("/v1/jobs", headers={"origin": ORIGIN})
    for response in (submitted, listed):
        assert not any(name.startswith("access-control-") for name in response.headers)


def test_configured_origins_only() -> None:
    allowed = "http://localhost:3000"
    with (
        serving(FakeService(), cors_origins=(ORIGIN, allowed)) as ports,
        httpx.Client(base_url=f"http://127.0.0.1:{ports.http}") as http,
    ):
        assert value(http, "3", origin=allowed).headers["access-control-allow-origin"] == allowed
        assert "access-control-allow-origin" not in value(http, "3", origin="https://evil.example").headers
        assert preflight(http, "/v1/value", "GET", origin="https://evil.example").status_code == 400
        assert preflight(http, "/v1/value", "GET", origin=ORIGIN).status_code == 200


def test_cors_can_be_turned_off() -> None:
    with (
        serving(FakeService(), cors_origins=()) as ports,
        httpx.Client(base_url=f"http://127.0.0.1:{ports.http}") as http,
    ):
        assert "access-control-allow-origin" not in value(http, "3", origin=ORIGIN).headers
        assert preflight(http, "/v1/value", "GET").status_code == 405


# ---- ETag and Cache-Control ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/v1/value", {"game": "nim", "position": "3 5"}),
        ("/v1/is-p-position", {"game": "nim", "position": "3 5"}),
        ("/v1/best-move", {"game": "nim", "position": "3 5", "limit": "2"}),
        ("/v1/sequence", {"game": "nim", "start": "0", "stop": "30"}),
    ],
)
def test_etag_immutable_and_304(http: httpx.Client, path: str, params: dict[str, str]) -> None:
    first = http.get(path, params=params)
    assert first.status_code == 200
    tag = first.headers["etag"]
    assert re.fullmatch(r'"[0-9a-f]{32}"', tag)
    assert first.headers["cache-control"] == CACHE_CONTROL == "public, max-age=86400, immutable"
    assert http.get(path, params=params).headers["etag"] == tag  # from the answer's bytes: stable
    for held in (tag, f'"other", {tag}', f"W/{tag}", "*"):
        again = http.get(path, params=params, headers={"if-none-match": held})
        assert again.status_code == 304, held
        assert again.content == b""
        assert again.headers["cache-control"] == CACHE_CONTROL
        assert "etag" in again.headers
    changed = http.get(path, params=params, headers={"if-none-match": '"0123"'})
    assert changed.status_code == 200 and changed.json() == first.json()


def test_different_answers_have_different_tags(http: httpx.Client) -> None:
    assert value(http, "3 5").headers["etag"] != value(http, "3 6").headers["etag"]


def test_live_answers_are_not_cached(http: httpx.Client) -> None:
    live = value(http, "live 3 5")
    assert live.json()["source"] == "live"
    assert "etag" not in live.headers
    assert live.headers["cache-control"] == "no-store"
    # A sequence whose period is not known may be given one later: not final either.
    sequence = http.get("/v1/sequence", params={"game": "nim", "stop": "10", "family": "aperiodic"})
    assert sequence.json()["period"] is None
    assert "etag" not in sequence.headers and sequence.headers["cache-control"] == "no-store"


def test_errors_and_batches_carry_no_cache_headers(http: httpx.Client) -> None:
    for response in (
        value(http, "err:INVALID_ARGUMENT"),
        http.post("/v1/values:batch", json={"game": "nim", "positions": ["1"]}),
    ):
        assert "etag" not in response.headers and "cache-control" not in response.headers


def test_sources_of_a_real_service(clean_db: sa.Engine) -> None:
    """formula, period and live as a real Nimbase gives them (table: the same rule, tested above)."""
    with (
        running_server(Nimbase(Settings(), clean_db)) as ports,  # type: ignore[arg-type]
        httpx.Client(base_url=f"http://127.0.0.1:{ports.http}", timeout=30) as http,
    ):

        def get(game: str, position: str) -> httpx.Response:
            return http.get("/v1/value", params={"game": game, "position": position})

        formula, live = get("nim", "3 5"), get("subtraction:1,3,4", "10")
        assert live.status_code == 200, live.text
        sources = {r.json().get("source") for r in (formula, live)}
        assert sources == {"formula", "live"}
        assert live.headers["cache-control"] == "no-store" and "etag" not in live.headers
        assert formula.headers["cache-control"] == CACHE_CONTROL
        period = get("subtraction:1,3,4", str(10**12))
        assert period.json()["source"] == "period"
        assert period.headers["cache-control"] == CACHE_CONTROL
        held = http.get(
            "/v1/value",
            params={"game": "subtraction:1,3,4", "position": str(10**12)},
            headers={"if-none-match": period.headers["etag"]},
        )
        assert held.status_code == 304


# ---- gzip ----------------------------------------------------------------------------------------


def test_gzip_on_a_large_answer(http: httpx.Client) -> None:
    params = {"game": "nim", "start": "0", "stop": "100000"}
    identity = http.get("/v1/sequence", params=params, headers={"accept-encoding": "identity"})
    assert "content-encoding" not in identity.headers
    zipped = http.get("/v1/sequence", params=params, headers={"accept-encoding": "gzip"})
    assert zipped.headers["content-encoding"] == "gzip"
    assert "accept-encoding" in zipped.headers["vary"].lower()
    assert zipped.json() == identity.json()  # httpx inflates it
    assert zipped.num_bytes_downloaded * 10 < identity.num_bytes_downloaded
    # A strong tag names one encoding: the gzipped answer's differs, and either one is recognized.
    assert zipped.headers["etag"] == identity.headers["etag"][:-1] + '-gzip"'
    for tag in (zipped.headers["etag"], identity.headers["etag"]):
        held = http.get(
            "/v1/sequence", params=params, headers={"accept-encoding": "gzip", "if-none-match": tag}
        )
        assert held.status_code == 304 and held.headers["etag"] == tag


def test_small_answers_are_not_compressed(http: httpx.Client) -> None:
    small = value(http, "3 5 7", **{"accept-encoding": "gzip"})
    assert len(small.content) < GZIP_MINIMUM_BYTES
    assert "content-encoding" not in small.headers
    assert small.headers["etag"].endswith('"') and "-gzip" not in small.headers["etag"]


def test_gzip_keeps_the_body_cap_and_batches() -> None:
    """The caps' refusal passes through the compression as it was (413, the error shape, closed), and a
    large batch answer is compressed."""
    with (
        serving(FakeService(), Limits(batch_body_bytes=4096)) as ports,
        httpx.Client(base_url=f"http://127.0.0.1:{ports.http}") as http,
    ):
        gzipped = {"accept-encoding": "gzip"}
        refused = http.post(
            "/v1/values:batch", json={"game": "nim", "positions": ["1"] * 2000}, headers=gzipped
        )
        assert refused.status_code == 413
        assert refused.json()["error"]["code"] == "RESOURCE_EXHAUSTED"
        assert "NIMBASE_LIMITS_BATCH_BODY_BYTES" in refused.json()["error"]["message"]
        assert "content-encoding" not in refused.headers and refused.headers["connection"] == "close"
        batch = http.post("/v1/values:batch", json={"game": "nim", "positions": ["x"] * 200}, headers=gzipped)
        assert batch.headers["content-encoding"] == "gzip"
        assert [item["error"]["code"] for item in batch.json()["values"]] == ["INVALID_ARGUMENT"] * 200


# ---- rate limits ---------------------------------------------------------------------------------


def test_rate_limit_is_off_by_default(http: httpx.Client) -> None:
    assert Settings().rate_limit.per_second == 0
    assert RateLimiter.of(Settings().rate_limit) is None
    assert all(value(http, "3").status_code == 200 for _ in range(100))


def test_rate_limit_over_rest_and_grpc() -> None:
    """Two requests at once, then one every 100 s: the third is refused over either transport."""
    limit = RateLimitSettings(per_second=0.01, burst=2)
    with (
        serving(FakeService(), rate_limit=limit) as ports,
        httpx.Client(base_url=f"http://127.0.0.1:{ports.http}") as http,
        grpc.insecure_channel(f"127.0.0.1:{ports.grpc}") as channel,
    ):
        stub: Any = nimbase_pb2_grpc.NimbaseStub(channel)  # type: ignore[no-untyped-call]
        assert value(http, "3").status_code == 200
        assert stub.GetValue(pb.GetValueRequest(game="nim", position="3")).grundy == 3  # the same bucket
        refused = value(http, "3", origin=ORIGIN)
        assert refused.status_code == 429
        body = refused.json()
        assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
        assert body["error"]["code"] == "RESOURCE_EXHAUSTED"
        message = body["error"]["message"]
        assert "client 127.0.0.1 is over the rate limit of 0.01 requests per second" in message
        assert "NIMBASE_RATE_LIMIT_PER_SECOND" in message
        retry = int(refused.headers["retry-after"])
        assert 90 <= retry <= 100 and f"retry after {retry} s" in message
        assert refused.headers["access-control-allow-origin"] == "*"  # a browser can read the refusal

        with pytest.raises(grpc.RpcError) as info:
            stub.GetValue(pb.GetValueRequest(game="nim", position="3"))
        error: Any = info.value
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        strip = functools.partial(re.sub, r"retry after \d+ s", "retry after N s")
        assert strip(error.details()) == strip(message)
        trailing = {m.key: m.value for m in error.trailing_metadata()}
        assert abs(int(trailing["retry-after"]) - retry) <= 1
        with pytest.raises(grpc.RpcError) as streamed:  # a stream is one call, refused as a whole
            list(stub.StreamValues(iter([pb.StreamValuesRequest(game="nim", position="1")])))
        assert streamed.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED  # type: ignore[attr-defined]

        # Health, metrics and the docs are never limited; the metrics count the refusals.
        assert http.get("/healthz").status_code == 200
        assert http.get("/openapi.json").status_code == 200
        metrics = http.get("/metrics").text
        assert 'code="RESOURCE_EXHAUSTED"' in metrics


def test_token_bucket_refills() -> None:
    now = [0.0]
    limiter = RateLimiter(RateLimitSettings(per_second=2, burst=3), clock=lambda: now[0])
    assert [limiter.wait("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limiter.wait("a") == pytest.approx(0.5)
    assert limiter.wait("b") == 0.0  # per address
    now[0] = 0.5
    assert limiter.wait("a") == 0.0
    assert limiter.wait("a") == pytest.approx(0.5)
    now[0] = 100.0
    assert [limiter.wait("a") for _ in range(4)][-1] > 0  # refilled to the burst, no more
    assert limiter.refusal("a", 0.2)[0] == 1  # Retry-After is at least a second
    assert RateLimiter(RateLimitSettings(per_second=2.5)).burst == 3  # default burst: a second's worth


# ---- the documentation ---------------------------------------------------------------------------


def test_openapi_declares_429_and_describes_304(http: httpx.Client) -> None:
    paths = http.get("/openapi.json").json()["paths"]
    for path in ("/v1/value", "/v1/is-p-position", "/v1/best-move", "/v1/sequence"):
        operation = paths[path]["get"]
        assert "429" in operation["responses"]
        described = operation["description"].lower()
        assert "304" in described or "cached as get /v1/value" in described
    for path, item in paths.items():
        if path.startswith("/v1/"):
            assert all("429" in operation["responses"] for operation in item.values()), path


def test_readme_lists_the_http_settings() -> None:
    readme = (REPO / "README.md").read_text()
    for name in ("NIMBASE_CORS_ORIGINS", "NIMBASE_RATE_LIMIT_PER_SECOND", "NIMBASE_RATE_LIMIT_BURST"):
        assert f"| `{name}` |" in readme


# ---- slow request heads -----------------------------------------------------------------------------


def test_a_head_sent_a_byte_at_a_time_is_cut_off() -> None:
    """A connection that has not finished its request line and headers `head_seconds` after it began is
    closed (connections trickling a head stayed open for a minute and more), on a fresh connection and on
    a kept-alive one; a request sent whole is answered, and kept-alive connections stay usable."""
    import socket
    import time

    limits = Limits(head_seconds=0.5)
    with running_server(LiveFake(), limits) as ports:

        def closed_within(sock: socket.socket, seconds: float) -> bool:
            """Whether the server closes the connection within `seconds` (what it still sends of an
            earlier answer is read and ignored)."""
            end = time.monotonic() + seconds
            while (left := end - time.monotonic()) > 0:
                sock.settimeout(left)
                try:
                    if sock.recv(65536) == b"":
                        return True
                except TimeoutError:
                    return False
            return False

        with socket.create_connection(("127.0.0.1", ports.http)) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nhost: x\r\n")  # and then nothing more
            start = time.monotonic()
            assert closed_within(sock, 5.0)
            assert time.monotonic() - start < 3.0
        with socket.create_connection(("127.0.0.1", ports.http)) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n")
            sock.settimeout(5.0)
            assert sock.recv(65536).startswith(b"HTTP/1.1 200")
            time.sleep(0.8)  # idle between requests is the keep-alive timeout's, not the head's
            sock.sendall(b"GET /healthz HTTP/1.1\r\n")
            assert closed_within(sock, 5.0)
