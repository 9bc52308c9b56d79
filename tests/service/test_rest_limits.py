"""REST size caps and malformed bodies: every refusal is the contract's error body with its status, a body
over its route's cap is refused before it is read, and a URL or head too long for the parser still gets
the error shape (issue 12, case 6 and its minors)."""

from __future__ import annotations

import contextlib
import json
import resource
import socket
import sys
from collections.abc import Iterator

import httpx
import pytest

from service.limits import DEFAULT_LIMITS, Limits
from service.server import HEAD_ALLOWANCE
from tests.servers import running_server
from tests.service.fake_service import FakeService

from .test_rest import assert_error

BATCH_CAP = DEFAULT_LIMITS.batch_body_bytes
URL_CAP = DEFAULT_LIMITS.url_bytes
JSON = {"content-type": "application/json"}
#: The body of the issue's report: 300 MB.
HUGE = 300 * 1024 * 1024


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    with running_server(FakeService()) as ports:
        yield ports.http


@pytest.fixture(scope="module")
def http(port: int) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
        yield client


def exchange(port: int, head: bytes, body: bytes = b"") -> tuple[int, dict[str, str], bytes]:
    """Send a raw request (possibly incomplete: nothing more is ever sent) and read the answer, which the
    server must give and then close the connection, since the rest of the request will not come."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        # The server may refuse and close before taking it all; its answer is buffered all the same.
        with contextlib.suppress(OSError):
            sock.sendall(head + body)
        data = b""
        try:
            while chunk := sock.recv(1 << 16):
                data += chunk
        except ConnectionResetError:  # a close with unread input resets, after the answer
            pass
    start, _, rest = data.partition(b"\r\n\r\n")
    status_line, *lines = start.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, rest[: int(headers["content-length"])]


def assert_raw_error(answer: tuple[int, dict[str, str], bytes], status: int, code: str, message: str) -> None:
    got, headers, body = answer
    assert got == status, body
    assert headers["content-type"] == "application/json"
    assert json.loads(body) == {"error": {"code": code, "message": message}}


#: How a refusal of a batch body ends, whatever its size.
BATCH_CAP_TEXT = (
    f"is over the {BATCH_CAP}-byte cap of POST /v1/values:batch (NIMBASE_LIMITS_BATCH_BODY_BYTES)"
)


def batch_cap_message(size: str) -> str:
    return f"the request body of {size} {BATCH_CAP_TEXT}"


# ---- bodies over their route's cap -------------------------------------------------------------------


def test_a_declared_oversize_body_is_refused_before_any_of_it_is_sent(port: int) -> None:
    head = (
        b"POST /v1/values:batch HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\n"
        b"content-length: %d\r\n\r\n" % HUGE
    )
    # Only the head goes out: the answer cannot wait for the 300 MB.
    answer = exchange(port, head)
    assert_raw_error(answer, 413, "RESOURCE_EXHAUSTED", batch_cap_message(f"{HUGE} bytes"))
    assert answer[1]["connection"] == "close"


def test_a_chunked_oversize_body_is_refused_once_past_the_cap(port: int) -> None:
    head = (
        b"POST /v1/values:batch HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\n"
        b"transfer-encoding: chunked\r\n\r\n"
    )
    piece = b"[" * (1 << 20)
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for _ in range(BATCH_CAP // len(piece) + 1))
    # The cap and one more chunk go out, never the last chunk: the answer comes mid-stream.
    code, headers, body = exchange(port, head, chunks)
    assert code == 413 and headers["connection"] == "close"
    error = json.loads(body)["error"]
    received = int(error["message"].removeprefix("the request body of at least ").split()[0])
    assert BATCH_CAP < received <= BATCH_CAP + len(piece)
    assert error == {"code": "RESOURCE_EXHAUSTED", "message": batch_cap_message(f"at least {received} bytes")}


def _peak_rss() -> int:
    """This process's (the server's) peak resident memory in bytes."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "chunked"])
def test_a_300_mb_upload_is_neither_read_nor_held(port: int, declared: bool) -> None:
    """The issue's case: a 300 MB batch streamed from a generator (the client holds none of it either)."""
    item = b'"1 2 3 4 5 6 7",'
    head, tail = b'{"game": "nim", "positions": [', b'"1"]}'
    count = (HUGE - len(head) - len(tail)) // len(item)
    total = len(head) + count * len(item) + len(tail)
    sent = 0

    def body() -> Iterator[bytes]:
        nonlocal sent
        block = item * 4096
        for part in (head, *(block for _ in range(count // 4096)), item * (count % 4096), tail):
            yield part
            sent += len(part)

    headers = {**JSON, "content-length": str(total)} if declared else JSON
    peak = _peak_rss()
    with httpx.Client(timeout=60) as client:
        reply = client.post(f"http://127.0.0.1:{port}/v1/values:batch", content=body(), headers=headers)
    size = f"of {total} bytes" if declared else "of at least "
    assert_error(reply, 413, "RESOURCE_EXHAUSTED", size, BATCH_CAP_TEXT)
    assert sent < total // 4, "the server read the upload to its end"
    assert _peak_rss() - peak < 128 << 20


def test_the_jobs_route_and_every_other_route_have_their_own_caps(http: httpx.Client) -> None:
    job = {"game": "n" * DEFAULT_LIMITS.job_body_bytes, "upto": 10}
    content = json.dumps(job).encode()
    size = len(content)
    reply = http.post("/v1/jobs", content=content, headers=JSON)
    assert_error(
        reply,
        413,
        "RESOURCE_EXHAUSTED",
        f"the request body of {size} bytes is over the {DEFAULT_LIMITS.job_body_bytes}-byte cap of "
        "POST /v1/jobs (NIMBASE_LIMITS_JOB_BODY_BYTES)",
    )
    other = http.request("GET", "/v1/games", content=b"x" * (DEFAULT_LIMITS.body_bytes + 1))
    assert_error(
        other,
        413,
        "RESOURCE_EXHAUSTED",
        f"the request body of {DEFAULT_LIMITS.body_bytes + 1} bytes is over the "
        f"{DEFAULT_LIMITS.body_bytes}-byte cap of GET /v1/games (NIMBASE_LIMITS_BODY_BYTES)",
    )


def test_caps_are_configurable_and_a_body_at_the_cap_is_taken() -> None:
    limits = Limits(batch_body_bytes=1000)
    at_cap = b'{"game": "nim", "positions": ["1 2"]}'.ljust(1000)
    with (
        running_server(FakeService(), limits) as ports,
        httpx.Client(base_url=f"http://127.0.0.1:{ports.http}") as http,
    ):
        taken = http.post("/v1/values:batch", content=at_cap, headers=JSON)
        assert taken.status_code == 200 and taken.json()["values"][0]["grundy"] == 3
        streamed = http.post("/v1/values:batch", content=iter([at_cap[:500], at_cap[500:]]), headers=JSON)
        assert streamed.status_code == 200
        for content in (at_cap + b" ", iter([at_cap, b" "])):
            over = http.post("/v1/values:batch", content=content, headers=JSON)
            assert_error(over, 413, "RESOURCE_EXHAUSTED", "1001 bytes", "1000-byte cap", "BATCH_BODY_BYTES")
        metrics = http.get("/metrics").text.splitlines()
    refusals = [
        line for line in metrics if line.startswith('nimbase_requests_total{code="RESOURCE_EXHAUSTED"')
    ]
    assert sum(float(line.rsplit(" ", 1)[1]) for line in refusals) == 2


def test_a_full_batch_of_long_positions_fits_the_cap(http: httpx.Client) -> None:
    """10,000 positions of 80 heaps of 19 digits each: about 16 MB of JSON."""
    position = " ".join([str(10**18 + 7)] * 80)
    positions = [position] * DEFAULT_LIMITS.batch_positions
    content = json.dumps({"game": "nim", "positions": positions}).encode()
    assert 15_000_000 < len(content) <= BATCH_CAP
    reply = http.post("/v1/values:batch", content=content, headers=JSON)
    assert reply.status_code == 200, reply.text[:300]
    values = reply.json()["values"]
    assert len(values) == DEFAULT_LIMITS.batch_positions and values[0]["grundy"] == 0


# ---- malformed bodies --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "headers", "message"),
    [
        (
            b"[" * 100_000,
            JSON,
            "POST /v1/values:batch: the request body nests too deeply to be parsed as JSON",
        ),
        (
            b'{"game": "nim", "positions": ["\xff"]}',
            JSON,
            "POST /v1/values:batch: the request body is not UTF-8 JSON (invalid start byte at byte 31)",
        ),
        (b"game=nim", JSON, "the request body is not valid JSON: Expecting value"),
        (b"", JSON, "the request body is empty; it must be a JSON object"),
        (
            b'{"game": "nim", "positions": ["1"]}',
            {"content-type": "text/plain"},
            "the request body must be JSON sent as content-type application/json; got 'text/plain'",
        ),
        (
            b'{"game": "nim", "positions": ["1"]}',
            {},
            "the request body must be JSON sent as content-type application/json; got none",
        ),
    ],
    ids=["nested", "not-utf8", "not-json", "empty", "text-plain", "no-content-type"],
)
def test_malformed_bodies_are_invalid_argument(
    http: httpx.Client, content: bytes, headers: dict[str, str], message: str
) -> None:
    reply = http.post("/v1/values:batch", content=content, headers=headers)
    assert_error(reply, 400, "INVALID_ARGUMENT")
    assert reply.json()["error"]["message"] == message


def test_a_body_of_the_wrong_type_is_quoted_briefly(http: httpx.Client) -> None:
    reply = http.post("/v1/values:batch", content=json.dumps([12345] * 100_000), headers=JSON)
    assert_error(reply, 400, "INVALID_ARGUMENT", "body field '(whole body)'", "[12345, 12345", "characters)")
    assert len(reply.content) < 1000


# ---- URLs --------------------------------------------------------------------------------------------


def _get(path: bytes) -> bytes:
    return b"GET " + path + b" HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n"


def test_a_url_over_its_cap_is_invalid_argument(port: int) -> None:
    path = b"/v1/games?pad=" + b"x" * (URL_CAP - len(b"/v1/games?pad=") + 1)
    assert_raw_error(
        exchange(port, _get(path)),
        400,
        "INVALID_ARGUMENT",
        f"the URL of {URL_CAP + 1} bytes is over the {URL_CAP}-byte cap (NIMBASE_LIMITS_URL_BYTES)",
    )


def test_a_long_url_within_its_cap_is_served(port: int) -> None:
    """1 MiB: far over h11's default bound of 16 KiB for a request's head."""
    code, _, body = exchange(port, _get(b"/v1/games?pad=" + b"x" * (1 << 20)))
    assert code == 200 and json.loads(body)["games"]


@pytest.mark.parametrize(
    "request_head", [_get(b"/" + b"x" * 2 * (URL_CAP + HEAD_ALLOWANCE)), b"NONSENSE\r\n\r\n"]
)
def test_what_the_http_parser_refuses_is_in_the_error_shape(port: int, request_head: bytes) -> None:
    bound = URL_CAP + HEAD_ALLOWANCE
    assert_raw_error(
        exchange(port, request_head),
        400,
        "INVALID_ARGUMENT",
        f"invalid HTTP request: malformed, or its request line and headers are over {bound} bytes",
    )
