"""The Python client: same dicts as the REST JSON for the same questions, errors as exceptions."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from nimbase.client import NimbaseClient, NimbaseClientError
from service.server import BoundPorts
from tests.servers import running_server
from tests.service.fake_service import ADMIN_TOKEN, ERRORS, SECRET, FakeService


@pytest.fixture(scope="module")
def fake() -> FakeService:
    return FakeService()


@pytest.fixture(scope="module")
def ports(fake: FakeService) -> Iterator[BoundPorts]:
    with running_server(fake) as bound:
        yield bound


@pytest.fixture(scope="module")
def client(ports: BoundPorts) -> Iterator[NimbaseClient]:
    with NimbaseClient(f"127.0.0.1:{ports.grpc}", token=ADMIN_TOKEN) as c:
        yield c


@pytest.fixture(scope="module")
def http(ports: BoundPorts) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=f"http://127.0.0.1:{ports.http}") as c:
        yield c


@pytest.mark.parametrize(
    ("game", "position"), [("nim", "5 3 0"), ("nim", ""), ("nim:misere", "1 1"), ("nim", "2 2")]
)
def test_values_match_rest(client: NimbaseClient, http: httpx.Client, game: str, position: str) -> None:
    params = {"game": game, "position": position}
    assert client.get_value(game, position) == http.get("/v1/value", params=params).json()
    assert client.is_p_position(game, position) == http.get("/v1/is-p-position", params=params).json()
    assert client.best_move(game, position) == http.get("/v1/best-move", params=params).json()
    limited = http.get("/v1/best-move", params={**params, "limit": 1}).json()
    assert client.best_move(game, position, limit=1) == limited


def test_lists_batches_sequences_and_stats_match_rest(client: NimbaseClient, http: httpx.Client) -> None:
    assert client.list_games() == http.get("/v1/games").json()
    positions = ["1 2", "x", "err:DEADLINE_EXCEEDED", ""]
    rest_batch = http.post("/v1/values:batch", json={"game": "nim", "positions": positions}).json()
    assert client.batch_get_values("nim", positions) == rest_batch
    for family in (None, "aperiodic"):
        params: dict[str, str | int] = {"game": "nim", "start": 3, "stop": 9}
        if family is not None:
            params["family"] = family
        rest = http.get("/v1/sequence", params=params).json()
        assert client.get_sequence("nim", 3, 9, family=family) == rest
    assert client.get_stats("nim") == http.get("/v1/stats", params={"game": "nim"}).json()


def test_jobs_match_rest(client: NimbaseClient, http: httpx.Client) -> None:
    job = client.submit_job("nim", 50, fill=True)
    assert [queued["id"] for queued in job.pop("queued")] == [job["id"]]  # the submission's answer only
    assert job == http.get(f"/v1/jobs/{job['id']}").json() == client.get_job(int(str(job["id"])))
    assert client.list_jobs() == http.get("/v1/jobs").json()
    assert client.list_jobs(limit=1) == http.get("/v1/jobs", params={"limit": 1}).json()
    first = http.get("/v1/jobs", params={"limit": 1}).json()
    if first["next_cursor"] is not None:
        cursor = first["next_cursor"]
        assert (
            client.list_jobs(1, cursor) == http.get("/v1/jobs", params={"limit": 1, "cursor": cursor}).json()
        )
    cancelled = client.cancel_job(int(str(job["id"])))
    assert cancelled["status"] == "cancelled"
    assert cancelled == http.get(f"/v1/jobs/{job['id']}").json()


def test_tokens(ports: BoundPorts) -> None:
    with NimbaseClient(f"127.0.0.1:{ports.grpc}") as anonymous, pytest.raises(NimbaseClientError) as info:
        anonymous.submit_job("nim", 5)
    assert info.value.code == "UNAUTHENTICATED"
    with (
        NimbaseClient(f"127.0.0.1:{ports.grpc}", token="wrong") as wrong,
        pytest.raises(NimbaseClientError) as info,
    ):
        wrong.cancel_job(1)
    assert info.value.code == "PERMISSION_DENIED"


@pytest.mark.parametrize("code", sorted(ERRORS))
def test_errors_raise_with_code_and_message(client: NimbaseClient, code: str) -> None:
    with pytest.raises(NimbaseClientError) as info:
        client.get_value("nim", f"err:{code}")
    assert info.value.code == code and f"err:{code}" in info.value.message


def test_internal_error_hides_details(client: NimbaseClient) -> None:
    with pytest.raises(NimbaseClientError) as info:
        client.get_value("nim", "boom")
    assert info.value.code == "INTERNAL" and SECRET not in str(info.value)


def test_stream_values_is_lazy_and_ordered(client: NimbaseClient) -> None:
    positions = ["x" if n % 7 == 0 else f"{n} {n // 3}" for n in range(700)]
    sent: list[int] = []

    def requests() -> Iterator[tuple[str, str]]:
        for n, position in enumerate(positions):
            sent.append(n)
            yield ("nim", position)

    answers = list(client.stream_values(requests()))
    assert sent == list(range(len(positions)))
    # BatchGetValues is the oracle: the same answers, slot by slot.
    assert answers == client.batch_get_values("nim", positions)["values"]
    assert answers[0]["error"] == {"code": "INVALID_ARGUMENT", "message": "position 'x' is not heap sizes"}


def test_grpc_calls_show_in_the_shared_metrics(client: NimbaseClient, http: httpx.Client) -> None:
    with pytest.raises(NimbaseClientError):
        client.get_value("nim", "err:NOT_FOUND")
    client.get_value("nim", "1")
    text = http.get("/metrics").text
    assert 'nimbase_requests_total{code="NOT_FOUND",method="GetValue",transport="grpc"}' in text
    assert 'nimbase_requests_total{code="OK",method="GetValue",transport="grpc"}' in text


def test_both_ports_were_picked_by_the_system(ports: BoundPorts) -> None:
    assert ports.grpc > 0 and ports.http > 0 and ports.grpc != ports.http


def test_unreachable_server_is_an_error() -> None:
    with NimbaseClient("127.0.0.1:1", timeout=5) as nowhere, pytest.raises(NimbaseClientError) as info:
        nowhere.list_games()
    assert info.value.code == "UNAVAILABLE"
