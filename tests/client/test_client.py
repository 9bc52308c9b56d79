"""The client package in process: its four clients against a real service, gRPC's retries of the read
calls (and of nothing else), the job a refusal carries in its status details, TLS, and transport errors."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc
import pytest
from google.protobuf import any_pb2
from google.rpc import status_pb2

from nimbase.settings import TlsFiles
from nimbase_client import (
    AsyncNimbaseClient,
    AsyncRestClient,
    NimbaseClient,
    NimbaseClientError,
    RestClient,
    calls,
)
from nimbase_client.channel import service_config
from nimbase_client.v1 import nimbase_pb2 as pb
from nimbase_client.v1 import nimbase_pb2_grpc
from service.server import BoundPorts

from .served import ADMIN_TOKEN


def test_the_four_clients_give_the_same_records(ports: BoundPorts) -> None:
    target, base = f"127.0.0.1:{ports.grpc}", f"http://127.0.0.1:{ports.http}"
    with NimbaseClient(target) as grpc_client, RestClient(base) as rest:
        for game, position in (("nim", "3 5 7"), ("nim:misere", "1 1"), ("wythoff", "3,5")):
            assert grpc_client.get_value(game, position) == rest.get_value(game, position)
            assert grpc_client.best_move(game, position) == rest.best_move(game, position)
            assert grpc_client.is_p_position(game, position) == rest.is_p_position(game, position)
        assert grpc_client.list_games() == rest.list_games()
        assert grpc_client.get_sequence("nim", 3, 9) == rest.get_sequence("nim", 3, 9)
        positions = ["1 2", "x", ""]
        assert grpc_client.batch_get_values("nim", positions) == rest.batch_get_values("nim", positions)
        assert rest.health()["status"] == "ok"
        sync = grpc_client.get_value("nim", "3 5 7")

    async def asynchronous() -> tuple[Any, ...]:
        async with AsyncNimbaseClient(target) as client, AsyncRestClient(base) as rest:
            batches = [b async for b in client.stream_batches([("nim", ["1", "2 3"]), ("nim", ["x"])])]
            return await client.get_value("nim", "3 5 7"), await rest.get_value("nim", "3 5 7"), batches

    over_aio, over_rest, batches = asyncio.run(asynchronous())
    assert sync == over_aio == over_rest
    assert [v.get("grundy") for v in batches[0]["values"]] == [1, 1]
    assert batches[1]["values"][0]["error"]["code"] == "INVALID_ARGUMENT"  # type: ignore[typeddict-item]


def test_the_token_goes_with_job_calls_only(ports: BoundPorts, scripted: tuple[Scripted, str]) -> None:
    target, base = f"127.0.0.1:{ports.grpc}", f"http://127.0.0.1:{ports.http}"
    for client in (NimbaseClient(target, token=ADMIN_TOKEN), RestClient(base, token=ADMIN_TOKEN)):
        with client, pytest.raises(NimbaseClientError) as info:
            client.cancel_job(2**62)  # authorized: then there is no such job
        assert info.value.code == "NOT_FOUND"
    for client in (NimbaseClient(target), RestClient(base)):
        with client, pytest.raises(NimbaseClientError) as info:
            client.cancel_job(1)
        assert info.value.code == "UNAUTHENTICATED"
    for client in (NimbaseClient(target, token="wrong"), RestClient(base, token="wrong")):
        with client, pytest.raises(NimbaseClientError) as info:
            client.submit_job("subtraction:1,2,5", 1000)
        assert info.value.code == "PERMISSION_DENIED"
    # What goes over the wire: the token with SubmitJob, not with GetValue (nor any of its retries).
    servicer, scripted_target = scripted
    with NimbaseClient(scripted_target, token=ADMIN_TOKEN, timeout=10) as client:
        client.get_value("nim", "3 5 7")
        with pytest.raises(NimbaseClientError):
            client.submit_job("nim", 10)
    assert len(servicer.metadata["GetValue"]) == 3
    assert all("authorization" not in sent for sent in servicer.metadata["GetValue"])
    assert [sent.get("authorization") for sent in servicer.metadata["SubmitJob"]] == [f"Bearer {ADMIN_TOKEN}"]


def test_tls(tls_ports: BoundPorts, tls_files: TlsFiles) -> None:
    root = tls_files.cert.read_bytes()
    with NimbaseClient(f"127.0.0.1:{tls_ports.grpc}", root_certificates=root) as client:
        assert client.get_value("nim", "1 2 3")["grundy"] == 0
    with RestClient(f"https://127.0.0.1:{tls_ports.http}", root_certificates=root) as rest:
        assert rest.get_value("nim", "1 2 3")["grundy"] == 0
    # Plaintext is refused, and so is a certificate the client does not trust (the system's CAs).
    for tls in (False, True):
        with NimbaseClient(f"127.0.0.1:{tls_ports.grpc}", tls=tls, timeout=5) as client:
            with pytest.raises(NimbaseClientError) as info:
                client.get_value("nim", "1 2 3")
            assert info.value.code == "UNAVAILABLE"
    with RestClient(f"https://127.0.0.1:{tls_ports.http}") as rest, pytest.raises(NimbaseClientError) as info:
        rest.get_value("nim", "1 2 3")
    assert info.value.code == "UNAVAILABLE"


# -- gRPC behaviour against a scripted server -------------------------------------------------------


class Scripted(nimbase_pb2_grpc.NimbaseServicer):
    """GetValue fails UNAVAILABLE `failures` times, then answers; SubmitJob always fails UNAVAILABLE;
    GetStats is refused RESOURCE_EXHAUSTED naming a queued job in its status details. Each call of the
    first two is counted, and its metadata kept."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls: dict[str, int] = {}
        self.metadata: dict[str, list[dict[str, str | bytes]]] = {}

    def _count(self, method: str, context: grpc.ServicerContext) -> int:
        self.calls[method] = self.calls.get(method, 0) + 1
        self.metadata.setdefault(method, []).append(dict(context.invocation_metadata()))
        return self.calls[method]

    def GetValue(self, request: pb.GetValueRequest, context: grpc.ServicerContext) -> pb.Value:
        if self._count("GetValue", context) <= self.failures:
            context.abort(grpc.StatusCode.UNAVAILABLE, "restarting")
        return pb.Value(game=request.game, position=request.position, outcome="N", grundy=1, source="formula")

    def SubmitJob(self, request: pb.SubmitJobRequest, context: grpc.ServicerContext) -> pb.Job:
        self._count("SubmitJob", context)
        context.abort(grpc.StatusCode.UNAVAILABLE, "restarting")

    def GetStats(self, request: pb.GetStatsRequest, context: grpc.ServicerContext) -> pb.GetStatsResponse:
        job = pb.Job(id=7, game=request.game, family="heap", upto=1 << 24, status="queued", created_at="now")
        job.progress.total = 1 << 24
        detail = any_pb2.Any()
        detail.Pack(job)
        code = grpc.StatusCode.RESOURCE_EXHAUSTED
        status = status_pb2.Status(code=code.value[0], message="job 7 is queued", details=[detail])
        context.abort_with_status(_Status(code, "job 7 is queued", status.SerializeToString()))


class _Status(grpc.Status):
    def __init__(self, code: grpc.StatusCode, details: str, rich: bytes) -> None:
        self.code, self.details = code, details
        self.trailing_metadata = (("grpc-status-details-bin", rich),)


@pytest.fixture
def scripted() -> Iterator[tuple[Scripted, str]]:
    servicer = Scripted(failures=2)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    nimbase_pb2_grpc.add_NimbaseServicer_to_server(servicer, server)  # type: ignore[no-untyped-call]
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield servicer, f"127.0.0.1:{port}"
    finally:
        server.stop(None)


def test_read_calls_are_retried_on_unavailable(scripted: tuple[Scripted, str]) -> None:
    servicer, target = scripted
    with NimbaseClient(target, timeout=10) as client:
        assert client.get_value("nim", "3 5 7")["grundy"] == 1
    assert servicer.calls["GetValue"] == 3  # two refusals, then the answer


def test_job_submission_is_never_retried(scripted: tuple[Scripted, str]) -> None:
    servicer, target = scripted
    with NimbaseClient(target, token="t", timeout=10) as client, pytest.raises(NimbaseClientError) as info:
        client.submit_job("nim", 10)
    assert info.value.code == "UNAVAILABLE" and servicer.calls["SubmitJob"] == 1


def test_retries_can_be_turned_off(scripted: tuple[Scripted, str]) -> None:
    servicer, target = scripted
    with NimbaseClient(target, attempts=1) as client, pytest.raises(NimbaseClientError) as info:
        client.get_value("nim", "3 5 7")
    assert info.value.code == "UNAVAILABLE" and servicer.calls["GetValue"] == 1


def test_the_async_client_retries_too(scripted: tuple[Scripted, str]) -> None:
    servicer, target = scripted

    async def ask() -> int | None:
        async with AsyncNimbaseClient(target, timeout=10) as client:
            return (await client.get_value("nim", "3 5 7")).get("grundy")

    assert asyncio.run(ask()) == 1 and servicer.calls["GetValue"] == 3


def test_a_refusal_names_its_queued_job_without_grpcio_status(scripted: tuple[Scripted, str]) -> None:
    _, target = scripted
    with NimbaseClient(target) as client, pytest.raises(NimbaseClientError) as info:
        client.get_stats("octal:0.6")
    assert (info.value.code, info.value.message) == ("RESOURCE_EXHAUSTED", "job 7 is queued")
    assert info.value.job is not None
    assert (info.value.job["id"], info.value.job["status"], info.value.job["progress"]["total"]) == (
        7,
        "queued",
        1 << 24,
    )

    async def ask() -> NimbaseClientError:
        async with AsyncNimbaseClient(target) as client:
            try:
                await client.get_stats("octal:0.6")
            except NimbaseClientError as error:
                return error
        raise AssertionError("no refusal")

    assert asyncio.run(ask()).job == info.value.job


def test_the_retry_policy_covers_exactly_the_read_rpcs() -> None:
    config = json.loads(service_config())
    [method_config] = config["methodConfig"]
    service = pb.DESCRIPTOR.services_by_name["Nimbase"]
    assert {name["service"] for name in method_config["name"]} == {service.full_name}
    named = {name["method"] for name in method_config["name"]}
    rpcs = set(service.methods_by_name)
    assert named <= rpcs  # every name is an RPC of the service (a typo would retry nothing)
    assert rpcs - named == {
        "SubmitJob",
        "CancelJob",
        "RetryJob",
        "StreamValues",
        "StreamBatches",
        "UploadGraph",
    }
    assert method_config["retryPolicy"]["retryableStatusCodes"] == ["UNAVAILABLE"]
    assert "methodConfig" not in json.loads(service_config(attempts=1))
    with pytest.raises(ValueError, match="between 1 and 5"):
        service_config(attempts=6)


def test_an_unreachable_server_is_unavailable_over_both_transports() -> None:
    with NimbaseClient("127.0.0.1:1", timeout=5) as client, pytest.raises(NimbaseClientError) as info:
        client.list_games()
    assert info.value.code == "UNAVAILABLE"
    with RestClient("http://127.0.0.1:1", timeout=5) as rest, pytest.raises(NimbaseClientError) as info:
        rest.list_games()
    assert info.value.code == "UNAVAILABLE"


@pytest.mark.parametrize("part_bytes", [1, 40, 700, 5000, 1 << 20])
def test_graph_parts_hold_every_name_in_order_within_the_part_size(part_bytes: int) -> None:
    rng = random.Random(part_bytes)
    vertices = [
        "".join(rng.choice("ab€😀") for _ in range(rng.choice([1, 3, 40, 300]))) + str(i) for i in range(600)
    ]
    edges = [(rng.choice(vertices), rng.choice(vertices)) for _ in range(9000)]
    edges += [(vertices[0], "x" * 1000)] * 20  # the names grow longer than the first ones
    for parts in (
        list(calls.graph_parts("g", vertices, edges, part_bytes=part_bytes)),
        list(calls.graph_parts("g", iter(vertices), (list(edge) for edge in edges), part_bytes=part_bytes)),
    ):
        assert parts[0] == pb.GraphPart(name="g")
        assert [v for part in parts for v in part.vertices] == vertices
        pairs = [(a, b) for part in parts for a, b in zip(part.sources, part.targets, strict=True)]
        assert pairs == edges
        for part in parts[1:]:
            items = len(part.vertices) + len(part.sources)
            # the message itself, tags and lengths included, not the client's own count of it
            assert items > 0 and (part.ByteSize() <= part_bytes or items == 1)
    assert list(calls.graph_parts("g", [], [], part_bytes=part_bytes)) == [pb.GraphPart(name="g")]


@pytest.mark.parametrize("part_bytes", [1, 50, 5000])
def test_graph_parts_split_terminals_within_the_part_size(part_bytes: int) -> None:
    """Terminals come first, the name's message holding the first of them, then the vertices; each
    message within the part size (but for one terminal longer than it)."""
    rng = random.Random(part_bytes)
    vertices = [
        "".join(rng.choice("ab€") for _ in range(rng.choice([1, 20, 300]))) + str(i) for i in range(500)
    ]
    terminals = {v: rng.choice(["win", "loss", "draw"]) for v in vertices[::2]}
    parts = list(calls.graph_parts("g", vertices, [], terminals, part_bytes=part_bytes))
    assert parts[0].name == "g" and not any(part.name for part in parts[1:])
    labelled = [i for i, part in enumerate(parts) if part.terminals]
    assert labelled[0] == 0 and labelled == list(range(len(labelled)))  # all before any vertex
    assert not any(part.vertices for part in parts[: len(labelled)])
    gathered = {vertex: label for part in parts for vertex, label in part.terminals.items()}
    assert gathered == terminals
    for part in parts[1 : len(labelled)]:
        assert part.ByteSize() <= part_bytes or len(part.terminals) == 1
    assert [v for part in parts for v in part.vertices] == vertices


def test_graph_parts_of_long_names_stay_under_the_message_limit() -> None:
    """Counted in UTF-8, not in characters: 1,000 three-byte characters are 3,000 bytes."""
    vertices = [f"{i:03}" + "€" * 997 for i in range(100)]
    edges = [(vertices[i % 100], vertices[(7 * i) % 100]) for i in range(2000)]  # 12 MB of names
    parts = list(calls.graph_parts("g", vertices, edges))
    assert len(parts) > 3
    # No part passes part_bytes (the server takes up to 16 MiB).
    assert max(part.ByteSize() for part in parts) <= calls.GRAPH_PART_BYTES
    assert [v for part in parts for v in part.vertices] == vertices
    sources = [s for part in parts for s in part.sources]
    targets = [t for part in parts for t in part.targets]
    assert list(zip(sources, targets, strict=True)) == edges


def test_graph_parts_name_an_edge_that_is_not_a_pair() -> None:
    edges = [("a", "b")] * 5 + [("a", "b", "c")]
    with pytest.raises(ValueError, match=r"edge \('a', 'b', 'c'\) is not a pair of vertex names"):
        list(calls.graph_parts("g", ["a", "b", "c"], edges))


def test_graph_parts_take_bytes_names_as_protobuf_does() -> None:
    vertices: list[Any] = [b"a", "€"]  # typed as text, but protobuf takes UTF-8 bytes as well
    parts = list(calls.graph_parts("g", vertices, [vertices], part_bytes=12))
    assert parts[1:] == [pb.GraphPart(vertices=["a", "€"]), pb.GraphPart(sources=["a"], targets=["€"])]
