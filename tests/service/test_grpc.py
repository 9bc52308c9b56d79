"""The gRPC server: every RPC's shape, error codes, limits, streaming, health and reflection."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import descriptor_pool
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

from nimbase.v1 import nimbase_pb2 as pb
from nimbase.v1 import nimbase_pb2_grpc
from service.grpc_server import MAX_MESSAGE_BYTES, STREAM_CHUNK
from service.limits import DEFAULT_LIMITS, Limits
from tests.servers import running_server
from tests.service.fake_service import ADMIN_TOKEN, ERRORS, SECRET, FakeService

MAX_BATCH = DEFAULT_LIMITS.batch_positions
MAX_DEADLINE_S = DEFAULT_LIMITS.request_seconds

RPCS = {
    "ListGames",
    "GetValue",
    "BestMove",
    "Mainline",
    "IsPPosition",
    "BatchGetValues",
    "StreamValues",
    "GetSequence",
    "GetStats",
    "SubmitJob",
    "GetJob",
    "ListJobs",
    "CancelJob",
    "UploadGraph",
    "GetGraph",
}
#: RPCs beyond the contract's, each proposed for it: bulk lookups at batch speed over one stream.
EXTRA_RPCS = {"StreamBatches", "ColumnarValues", "RetryJob"}  # RetryJob: POST /v1/jobs/{id}:retry


@pytest.fixture(scope="module")
def fake() -> FakeService:
    return FakeService()


@pytest.fixture(scope="module")
def channel(fake: FakeService) -> Iterator[grpc.Channel]:
    with running_server(fake) as ports, grpc.insecure_channel(f"127.0.0.1:{ports.grpc}") as ch:
        yield ch


@pytest.fixture(scope="module")
def stub(channel: grpc.Channel) -> Any:
    return nimbase_pb2_grpc.NimbaseStub(channel)  # type: ignore[no-untyped-call]


def rpc_error(call: Any, *args: Any, **kwargs: Any) -> grpc.Call:
    with pytest.raises(grpc.RpcError) as info:
        call(*args, **kwargs)
    assert isinstance(info.value, grpc.Call)
    return info.value


def test_list_games(stub: Any) -> None:
    reply = stub.ListGames(pb.ListGamesRequest())
    assert [g.id for g in reply.games] == ["nim", "nim:misere"]
    assert list(reply.games[0].examples) == ["3 5 7", "1 2 3"]
    assert reply.games[0].position_syntax


def test_get_value_present_and_absent_fields(stub: Any) -> None:
    value = stub.GetValue(pb.GetValueRequest(game="nim", position="5 3 0"))
    assert (value.game, value.position, value.outcome, value.source) == ("nim", "3 5", "N", "formula")
    assert value.HasField("grundy") and value.grundy == 6
    assert value.HasField("remoteness") and value.remoteness == 8
    misere = stub.GetValue(pb.GetValueRequest(game="nim:misere", position="1 1"))
    assert not misere.HasField("grundy") and not misere.HasField("remoteness")


def test_answers_from_memory_skip_the_worker_thread(stub: Any, fake: FakeService) -> None:
    before = fake.memory_answers
    fake.from_memory = True
    try:
        value = stub.GetValue(pb.GetValueRequest(game="nim", position="5 3"))
        assert (value.position, value.grundy) == ("3 5", 6)
        answer = stub.IsPPosition(pb.IsPPositionRequest(game="nim", position="4 4"))
        assert answer.p_position and answer.value.position == "4 4"
        error = rpc_error(stub.GetValue, pb.GetValueRequest(game="nim", position="x"))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
        refused = rpc_error(stub.IsPPosition, pb.IsPPositionRequest(game="nim:misere", position="1"))
        assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION
    finally:
        fake.from_memory = False
    assert fake.memory_answers == before + 4


def test_get_value_passes_a_deadline_within_the_client_timeout(stub: Any, fake: FakeService) -> None:
    stub.GetValue(pb.GetValueRequest(game="nim", position="1"), timeout=1.0)
    deadline = fake.deadlines[-1]
    # The server counts the timeout from when the call arrived: allow for the trip.
    assert deadline is not None and deadline <= time.monotonic() + 1.5
    stub.GetValue(pb.GetValueRequest(game="nim", position="1"))
    deadline = fake.deadlines[-1]
    assert deadline is not None and deadline <= time.monotonic() + MAX_DEADLINE_S


def test_best_move(stub: Any) -> None:
    reply = stub.BestMove(pb.BestMoveRequest(game="nim", position="1 2"))
    assert reply.value.position == "1 2"
    assert [m.move for m in reply.moves][:1] == ["2 -> 1"]
    assert reply.moves[0].outcome == "P" and reply.moves[0].position == "1 1"
    assert reply.best_move == reply.moves[0]
    assert len(reply.moves) == 3
    # The heap game's record beside the text: the heap moved in and what it leaves (nothing when it vanishes).
    assert reply.moves[0].WhichOneof("kind") == "heap_game"
    assert (reply.moves[0].heap_game.heap, list(reply.moves[0].heap_game.to)) == (2, [1])
    vanishing = next(m for m in reply.moves if m.move == "1 -> 0")
    assert (vanishing.heap_game.heap, list(vanishing.heap_game.to)) == (1, [])
    limited = stub.BestMove(pb.BestMoveRequest(game="nim", position="1 2", limit=1))
    assert list(limited.moves) == list(reply.moves[:1])
    terminal = stub.BestMove(pb.BestMoveRequest(game="nim", position=""))
    assert not terminal.moves and not terminal.HasField("best_move")
    err = rpc_error(stub.BestMove, pb.BestMoveRequest(game="nim", position="1", limit=0))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and "0" in (err.details() or "")


def test_is_p_position(stub: Any) -> None:
    reply = stub.IsPPosition(pb.IsPPositionRequest(game="nim", position="2 2"))
    assert reply.p_position and reply.value.outcome == "P"
    assert not stub.IsPPosition(pb.IsPPositionRequest(game="nim", position="2")).p_position
    err = rpc_error(stub.IsPPosition, pb.IsPPositionRequest(game="nim:misere", position="1"))
    assert err.code() == grpc.StatusCode.FAILED_PRECONDITION


@pytest.mark.parametrize("code", sorted(ERRORS))
def test_each_error_class_maps_to_its_status(stub: Any, code: str) -> None:
    err = rpc_error(stub.GetValue, pb.GetValueRequest(game="nim", position=f"err:{code}"))
    assert err.code() == grpc.StatusCode[code]
    assert f"err:{code}" in (err.details() or "")


def test_unexpected_exception_is_internal_without_details(stub: Any) -> None:
    err = rpc_error(stub.GetValue, pb.GetValueRequest(game="nim", position="boom"))
    assert err.code() == grpc.StatusCode.INTERNAL
    assert SECRET not in (err.details() or "") and "Traceback" not in (err.details() or "")


def test_batch_answers_in_order_with_errors_in_slots(stub: Any) -> None:
    positions = ["1 2", "x", "3", "err:RESOURCE_EXHAUSTED", ""]
    reply = stub.BatchGetValues(pb.BatchGetValuesRequest(game="nim", positions=positions))
    kinds = [v.WhichOneof("result") for v in reply.values]
    assert kinds == ["value", "error", "value", "error", "value"]
    assert reply.values[0].value.position == "1 2" and reply.values[2].value.grundy == 3
    assert reply.values[1].error.code == "INVALID_ARGUMENT" and "'x'" in reply.values[1].error.message
    assert reply.values[3].error.code == "RESOURCE_EXHAUSTED"


def test_batch_with_a_bad_game_fails_whole(stub: Any) -> None:
    err = rpc_error(stub.BatchGetValues, pb.BatchGetValuesRequest(game="chess", positions=["1"]))
    assert err.code() == grpc.StatusCode.NOT_FOUND and "chess" in (err.details() or "")


def test_batch_limit(stub: Any) -> None:
    full = stub.BatchGetValues(pb.BatchGetValuesRequest(game="nim", positions=["1"] * MAX_BATCH))
    assert len(full.values) == MAX_BATCH
    err = rpc_error(
        stub.BatchGetValues, pb.BatchGetValuesRequest(game="nim", positions=["1"] * (MAX_BATCH + 1))
    )
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert str(MAX_BATCH) in (err.details() or "") and str(MAX_BATCH + 1) in (err.details() or "")


def test_limits_given_to_the_server_bound_its_calls() -> None:
    fake = FakeService()
    with (
        running_server(fake, Limits(batch_positions=2, request_seconds=0.25)) as ports,
        grpc.insecure_channel(f"127.0.0.1:{ports.grpc}") as channel,
    ):
        stub: Any = nimbase_pb2_grpc.NimbaseStub(channel)  # type: ignore[no-untyped-call]
        assert (
            len(stub.BatchGetValues(pb.BatchGetValuesRequest(game="nim", positions=["1", "2"])).values) == 2
        )
        err = rpc_error(stub.BatchGetValues, pb.BatchGetValuesRequest(game="nim", positions=["1"] * 3))
        assert (
            err.code() == grpc.StatusCode.INVALID_ARGUMENT and "at most 2 positions; got 3" in err.details()
        )
        stub.GetValue(pb.GetValueRequest(game="nim", position="1"), timeout=30.0)
        deadline = fake.deadlines[-1]
        assert deadline is not None and deadline <= time.monotonic() + 0.25


def test_oversized_message_is_refused_naming_the_limit(stub: Any) -> None:
    huge = "1" * (MAX_MESSAGE_BYTES // 2 + 1)
    err = rpc_error(stub.BatchGetValues, pb.BatchGetValuesRequest(game="nim", positions=[huge, huge]))
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert str(MAX_MESSAGE_BYTES) in (err.details() or "")
    # The server is unharmed.
    assert stub.GetValue(pb.GetValueRequest(game="nim", position="1")).grundy == 1


def test_stream_keeps_order_and_survives_bad_items(stub: Any) -> None:
    requests = []
    for n in range(3 * STREAM_CHUNK + 7):
        game = "chess" if n % 97 == 5 else ("nim:misere" if n % 50 == 1 else "nim")
        position = "x" if n % 31 == 3 else ("boom" if n % 211 == 7 else f"{n} 1")
        requests.append(pb.StreamValuesRequest(game=game, position=position))
    replies = list(stub.StreamValues(iter(requests)))
    assert len(replies) == len(requests)
    for request, reply in zip(requests, replies, strict=True):
        if request.game == "chess":
            assert reply.error.code == "NOT_FOUND"
        elif request.position == "x":
            assert reply.error.code == "INVALID_ARGUMENT"
        elif request.position == "boom":  # the fake raises outside its per-item errors
            assert reply.error.code == "INTERNAL" and SECRET not in reply.error.message
        else:
            n = int(request.position.split()[0])
            assert reply.value.game == request.game
            assert reply.value.position == " ".join(map(str, sorted([n, 1]) if n else [1]))


def test_stream_of_nothing(stub: Any) -> None:
    assert list(stub.StreamValues(iter([]))) == []


def test_sequence(stub: Any) -> None:
    reply = stub.GetSequence(pb.GetSequenceRequest(game="nim", start=2, stop=7))
    assert list(reply.values) == [2, 0, 1, 2, 0] and reply.family == "heap"
    assert reply.HasField("period") and (reply.period.period, reply.period.certified) == (3, True)
    bare = stub.GetSequence(pb.GetSequenceRequest(game="nim", family="aperiodic", start=0, stop=1))
    assert not bare.HasField("period") and bare.family == "aperiodic"
    err = rpc_error(stub.GetSequence, pb.GetSequenceRequest(game="nim", start=5, stop=1))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_stats_struct(stub: Any) -> None:
    reply = stub.GetStats(pb.GetStatsRequest(game="nim"))
    fields = reply.stats.fields
    assert fields["computed_upto"].number_value == 1000
    assert fields["rare_mask"].WhichOneof("kind") == "null_value"
    assert [v.number_value for v in fields["p_positions"].list_value.values] == [0, 4, 8]
    assert fields["nested"].struct_value.fields["ok"].bool_value is True
    err = rpc_error(stub.GetStats, pb.GetStatsRequest(game="go"))
    assert err.code() == grpc.StatusCode.NOT_FOUND


def test_jobs_need_the_token(stub: Any, fake: FakeService) -> None:
    request = pb.SubmitJobRequest(game="nim", upto=100, fill=True)
    before = dict(fake.jobs)
    assert rpc_error(stub.SubmitJob, request).code() == grpc.StatusCode.UNAUTHENTICATED
    wrong = [("authorization", "Bearer nope")]
    assert rpc_error(stub.SubmitJob, request, metadata=wrong).code() == grpc.StatusCode.PERMISSION_DENIED
    assert fake.jobs == before
    job = stub.SubmitJob(request, metadata=[("authorization", f"Bearer {ADMIN_TOKEN}")])
    assert (job.game, job.upto, job.fill, job.status) == ("nim", 100, True, "queued")
    assert (job.progress.done, job.progress.total) == (0, 100)
    assert not job.HasField("error") and not job.HasField("started_at") and job.created_at
    assert [j.id for j in job.queued] == [job.id]
    del job.queued[:]  # what the submission queued: its answer only
    assert stub.GetJob(pb.GetJobRequest(id=job.id)) == job
    assert job.id in [j.id for j in stub.ListJobs(pb.ListJobsRequest()).jobs]
    assert len(stub.ListJobs(pb.ListJobsRequest(limit=1)).jobs) == 1
    err = rpc_error(stub.CancelJob, pb.CancelJobRequest(id=job.id))
    assert err.code() == grpc.StatusCode.UNAUTHENTICATED
    cancelled = stub.CancelJob(
        pb.CancelJobRequest(id=job.id), metadata=[("authorization", f"Bearer {ADMIN_TOKEN}")]
    )
    assert cancelled.status == "cancelled" and cancelled.error and cancelled.finished_at
    assert rpc_error(stub.GetJob, pb.GetJobRequest(id=10**9)).code() == grpc.StatusCode.NOT_FOUND


def test_health_serving(channel: grpc.Channel) -> None:
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", "nimbase.v1.Nimbase"):
        reply = health.Check(health_pb2.HealthCheckRequest(service=service))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_reflection_lists_the_service_and_its_methods(channel: grpc.Channel) -> None:
    database = ProtoReflectionDescriptorDatabase(channel)
    services = set(database.get_services())
    assert {"nimbase.v1.Nimbase", "grpc.health.v1.Health"} <= services
    pool = descriptor_pool.DescriptorPool(database)
    service = pool.FindServiceByName("nimbase.v1.Nimbase")
    assert {m.name for m in service.methods} == RPCS | EXTRA_RPCS
    assert pool.FindMessageTypeByName("nimbase.v1.Value").fields_by_name["grundy"].has_presence


def test_proto_declares_exactly_the_contract_rpcs() -> None:
    assert set(pb.DESCRIPTOR.services_by_name["Nimbase"].methods_by_name) == RPCS | EXTRA_RPCS


def test_stream_batches_answer_each_batch_in_order(stub: Any) -> None:
    requests = [
        pb.BatchGetValuesRequest(game="nim", positions=["1 2", "x"]),
        pb.BatchGetValuesRequest(game="unknown", positions=["1", "2"]),
        pb.BatchGetValuesRequest(game="nim", positions=["1"] * (MAX_BATCH + 1)),
        pb.BatchGetValuesRequest(game="nim", positions=["4 4"]),
    ]
    replies = list(stub.StreamBatches(iter(requests)))
    # A message over the per-message limit is answered by ONE error (it was one copy per position:
    # 10,001 errors, about 1 MB, each telling to use StreamBatches), and the stream goes on.
    assert [len(r.values) for r in replies] == [2, 2, 1, 1]
    assert replies[0].values[0].value.grundy == 3 and replies[0].values[1].error.code == "INVALID_ARGUMENT"
    assert {v.error.code for v in replies[1].values} == {"NOT_FOUND"}
    oversized = replies[2].values[0].error
    assert oversized.code == "INVALID_ARGUMENT" and f"at most {MAX_BATCH} positions" in oversized.message
    assert str(MAX_BATCH + 1) in oversized.message and "use StreamBatches" not in oversized.message
    assert "split it" in oversized.message
    assert replies[3].values[0].value.outcome == "P"


def test_upload_graph_in_parts_and_get_it_back(stub: Any, fake: FakeService) -> None:
    token = [("authorization", f"Bearer {ADMIN_TOKEN}")]
    parts = [
        pb.GraphPart(name="parts", terminals={"c": "draw"}),
        pb.GraphPart(vertices=["a", "b"], sources=["a"], targets=["b"]),
        pb.GraphPart(name="parts", vertices=["c"], sources=["b"], targets=["c"]),
    ]
    summary = stub.UploadGraph(iter(parts), metadata=token)
    assert (summary.name, summary.vertex_count, summary.edge_count, summary.terminal_count) == (
        "parts",
        3,
        2,
        1,
    )
    replies = list(stub.GetGraph(pb.GetGraphRequest(name="parts")))
    assert replies[0].name == "parts" and dict(replies[0].terminals) == {"c": "draw"}
    assert [v for r in replies for v in r.vertices] == ["a", "b", "c"]
    assert [(a, b) for r in replies for a, b in zip(r.sources, r.targets, strict=True)] == [
        ("a", "b"),
        ("b", "c"),
    ]
    assert (
        rpc_error(lambda: list(stub.GetGraph(pb.GetGraphRequest(name="none")))).code()
        == grpc.StatusCode.NOT_FOUND
    )


@pytest.mark.parametrize(
    ("parts", "token", "code", "quoted"),
    [
        ([pb.GraphPart(name="g1", vertices=["a"])], None, grpc.StatusCode.UNAUTHENTICATED, ""),
        ([pb.GraphPart(name="g2", vertices=["a"])], "wrong", grpc.StatusCode.PERMISSION_DENIED, ""),
        ([], ADMIN_TOKEN, grpc.StatusCode.INVALID_ARGUMENT, "naming the graph"),
        ([pb.GraphPart(vertices=["a"])], ADMIN_TOKEN, grpc.StatusCode.INVALID_ARGUMENT, "''"),
        (
            [pb.GraphPart(name="g3", vertices=["a"]), pb.GraphPart(name="g4")],
            ADMIN_TOKEN,
            grpc.StatusCode.INVALID_ARGUMENT,
            "'g4'",
        ),
        (
            [pb.GraphPart(name="g5", vertices=["a"], sources=["a"], targets=["zz"])],
            ADMIN_TOKEN,
            grpc.StatusCode.INVALID_ARGUMENT,
            "'zz'",
        ),
        (
            [pb.GraphPart(name="g6", vertices=["a"], sources=["a", "a"], targets=["a"])],
            ADMIN_TOKEN,
            grpc.StatusCode.INVALID_ARGUMENT,
            "2 edge sources but 1",
        ),
        (
            [pb.GraphPart(name="parts0", vertices=["a"]), pb.GraphPart(terminals={"a": "tie"})],
            ADMIN_TOKEN,
            grpc.StatusCode.INVALID_ARGUMENT,
            "'tie'",
        ),
    ],
)
def test_bad_uploads_are_refused(
    stub: Any, fake: FakeService, parts: list[Any], token: str | None, code: grpc.StatusCode, quoted: str
) -> None:
    metadata = None if token is None else [("authorization", f"Bearer {token}")]
    before = set(fake.graphs)
    error = rpc_error(stub.UploadGraph, iter(parts), metadata=metadata)
    assert error.code() == code and quoted in (error.details() or "")
    assert set(fake.graphs) == before
