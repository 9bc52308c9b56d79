"""The public contract end to end: real server and worker processes, real PostgreSQL, loopback."""

from __future__ import annotations

import itertools
import re
import secrets
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import make_url

from engine.registry import parse_game_id
from nimbase.client import NimbaseClientError
from storage.database import create_engine
from storage.migrate import upgrade_head
from storage.packing import CHUNK_VALUES
from storage.sequences import SequenceStore
from tests.facts import load_facts

from .oracle import subtraction_grundy, sum_outcome
from .processes import Server, start_server, start_worker, stop
from .proxy import DatabaseProxy

pytestmark = pytest.mark.e2e

LITERATURE = load_facts("literature")


def test_list_games_names_the_families(server: Server) -> None:
    with server.client() as client:
        ids = [game["id"] for game in client.list_games()["games"]]
    assert {"nim", "subtraction", "octal", "grundy", "wythoff"} <= {i.split(":")[0] for i in ids}
    response = server.http().get("/v1/games")
    assert response.status_code == 200
    assert [g["id"] for g in response.json()["games"]] == ids


def test_nim_values_from_the_formula(server: Server) -> None:
    with server.client() as client:
        marienbad = client.get_value("nim", "7 5 3 1")
        assert marienbad["outcome"] == "P" and marienbad["grundy"] == 0
        assert marienbad["position"] == "1 3 5 7" and marienbad["source"] == "formula"
        big = client.get_value("nim", f"{2**63 - 1} {2**63 - 2}")
        assert big["grundy"] == 1 and big["outcome"] == "N"
        moves = client.best_move("nim", "7 10 13 9 3 9")
    assert moves["grundy"] == 3
    assert moves["best_move"]["move"] == moves["moves"][0]["move"]
    assert "10 -> 9" in [m["move"] for m in moves["moves"] if m["outcome"] == "P"]
    assert len(moves["moves"]) == 7 + 10 + 13 + 9 + 3  # distinct heaps only: the two 9s move alike


def test_marienbad_has_48_p_positions_both_ways(server: Server) -> None:
    marienbad = LITERATURE["nim"]["marienbad"]
    below = itertools.product(*(range(heap + 1) for heap in marienbad["start"]))
    positions = [" ".join(map(str, p)) for p in below]
    assert len(positions) == marienbad["positions_componentwise_below_start"] == 384
    with server.client() as client:
        for game, key in (("nim", "p_positions_normal"), ("nim:misere", "p_positions_misere")):
            values = client.batch_get_values(game, positions)["values"]
            assert sum(v["outcome"] == "P" for v in values) == marienbad[key] == 48
    rest = server.http().post("/v1/values:batch", json={"game": "nim:misere", "positions": positions})
    assert sum(v["outcome"] == "P" for v in rest.json()["values"]) == marienbad["p_positions_misere"]


def test_take_one_to_three(server: Server) -> None:
    with server.client() as client:
        normal = client.get_sequence("subtraction:1,2,3", 0, 400)
        misere = client.get_sequence("subtraction:1,2,3:misere", 0, 400)
    assert [n for n, v in enumerate(normal["values"]) if v == 0] == list(range(0, 400, 4))
    assert [n for n, v in enumerate(misere["values"]) if v == 0] == list(range(1, 400, 4))
    assert normal["period"]["period"] == 4 and normal["period"]["certified"] is True


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    moves=st.lists(st.integers(1, 9), min_size=1, max_size=4, unique=True).map(lambda s: tuple(sorted(s))),
    heap=st.integers(0, 300),
)
def test_subtraction_values_match_the_oracle(server: Server, moves: tuple[int, ...], heap: int) -> None:
    game = "subtraction:" + ",".join(map(str, moves))
    with server.client() as client:
        value = client.get_value(game, str(heap))
    assert value["grundy"] == subtraction_grundy(moves, heap)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    moves=st.lists(st.integers(1, 5), min_size=1, max_size=3, unique=True).map(lambda s: tuple(sorted(s))),
    heaps=st.lists(st.integers(0, 9), min_size=1, max_size=3).map(lambda h: tuple(sorted(h))),
    misere=st.booleans(),
)
def test_sums_match_exhaustive_search(
    server: Server, moves: tuple[int, ...], heaps: tuple[int, ...], misere: bool
) -> None:
    game = "subtraction:" + ",".join(map(str, moves)) + (":misere" if misere else "")
    with server.client() as client:
        value = client.get_value(game, " ".join(map(str, heaps)))
    assert value["outcome"] == sum_outcome(moves, heaps, misere)


BAD_POSITIONS = ["3 -1", "3 x", "3,,5", str(2**63), " ".join(["1"] * 100_001)]
BAD_GAMES = [
    "subtraction:",
    "subtraction:0,2",
    "subtraction:1.5",
    "subtraction:1,2:misery",
    "subtraction:" + ",".join(map(str, range(1, 66))),
    "subtraction:1000001",
]


@pytest.mark.parametrize("position", BAD_POSITIONS, ids=lambda p: p[:12])
def test_bad_positions_are_invalid_arguments(server: Server, position: str) -> None:
    with server.client() as client, pytest.raises(NimbaseClientError) as error:
        client.get_value("nim", position)
    assert error.value.code == "INVALID_ARGUMENT"
    assert position.split()[-1][:10] in error.value.message or "100000" in error.value.message
    # REST: in a batch body (a 100,001-heap position does not fit in a URL).
    response = server.http().post("/v1/values:batch", json={"game": "nim", "positions": [position, "3"]})
    assert response.status_code == 200
    first, second = response.json()["values"]
    assert first["error"]["code"] == "INVALID_ARGUMENT" and second["grundy"] == 3
    if len(position) < 100:
        response = server.http().get("/v1/value", params={"game": "nim", "position": position})
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "INVALID_ARGUMENT"


@pytest.mark.parametrize("game", BAD_GAMES, ids=lambda g: g[:24])
def test_bad_game_ids_are_invalid_arguments(server: Server, game: str) -> None:
    with server.client() as client, pytest.raises(NimbaseClientError) as error:
        client.get_value(game, "3")
    assert error.value.code == "INVALID_ARGUMENT"
    assert server.http().get("/v1/value", params={"game": game, "position": "3"}).status_code == 400


def test_other_bad_requests(server: Server) -> None:
    with server.client() as client:
        for call, code in [
            (lambda: client.get_value("go:9x9", "3"), "NOT_FOUND"),
            (lambda: client.get_job(987654321), "NOT_FOUND"),
            (lambda: client.best_move("nim", "3 4", limit=0), "INVALID_ARGUMENT"),
            (lambda: client.get_sequence("subtraction:1,2", 10, 5), "INVALID_ARGUMENT"),
            (lambda: client.get_sequence("subtraction:1,2", 0, 1_000_001), "INVALID_ARGUMENT"),
            (lambda: client.best_move("nim", f"{2**40} 3"), "RESOURCE_EXHAUSTED"),
            (lambda: client.get_value("subtraction:1,3,40:misere", "999 1000 1000"), "RESOURCE_EXHAUSTED"),
        ]:
            with pytest.raises(NimbaseClientError) as error:
                call()
            assert error.value.code == code, error.value.message
    http = server.http()
    assert http.get("/v1/value", params={"game": "nim"}).status_code == 400
    assert http.get("/v1/best-move", params={"game": "nim", "position": "3", "limit": "0"}).status_code == 400
    assert http.get("/v1/jobs/987654321").status_code == 404


def test_best_move_with_huge_heaps_lists_the_winning_move_first(server: Server) -> None:
    big = 2**62
    with server.client() as client:
        answer = client.best_move("nim", f"{big} {big + 5}", limit=3)
    assert answer["best_move"]["position"] == f"{big} {big}"
    assert answer["best_move"]["outcome"] == "P"
    assert len(answer["moves"]) == 3


def test_batch_answers_every_slot(server: Server) -> None:
    with server.client() as client:
        values = client.batch_get_values("subtraction:1,3,4", ["7", "3 x", "14", "-2"])["values"]
    assert values[0]["grundy"] == subtraction_grundy((1, 3, 4), 7)
    assert values[1]["error"]["code"] == "INVALID_ARGUMENT" and "x" in values[1]["error"]["message"]
    assert values[2]["grundy"] == subtraction_grundy((1, 3, 4), 14)
    assert values[3]["error"]["code"] == "INVALID_ARGUMENT"
    with server.client() as client, pytest.raises(NimbaseClientError) as error:
        client.batch_get_values("nim", ["1"] * 10_001)
    assert error.value.code == "INVALID_ARGUMENT" and "10000" in error.value.message.replace(",", "")


def test_stream_keeps_order_and_survives_bad_items(server: Server) -> None:
    requests = [("nim", str(n)) if n % 7 else ("nim", "bad") for n in range(1, 200)]
    with server.client() as client:
        answers = list(client.stream_values(iter(requests)))
    assert len(answers) == len(requests)
    for (_, position), answer in zip(requests, answers, strict=True):
        if position == "bad":
            assert answer["error"]["code"] == "INVALID_ARGUMENT"
        else:
            assert answer["grundy"] == int(position)


def test_job_submission_needs_the_token(server: Server) -> None:
    with server.client() as admin:
        before = len(admin.list_jobs()["jobs"])
    for token, code, status in [(None, "UNAUTHENTICATED", 401), ("wrong", "PERMISSION_DENIED", 403)]:
        with server.client(token=token) as client, pytest.raises(NimbaseClientError) as error:
            client.submit_job("subtraction:1,3,4", 1000)
        assert error.value.code == code
        headers = {"authorization": f"Bearer {token}"} if token else {}
        response = server.http().post(
            "/v1/jobs", json={"game": "subtraction:1,3,4", "upto": 1000}, headers=headers
        )
        assert response.status_code == status
    with server.client() as admin:
        assert len(admin.list_jobs()["jobs"]) == before


def test_precompute_then_answer_from_table_and_period(
    server: Server, worker: subprocess.Popen[bytes], db_proxy: DatabaseProxy, tmp_path: Path
) -> None:
    game = "subtraction:2,5,7"
    with server.client() as client:
        job = client.submit_job(game, 300_000, fill=True)
        assert job["status"] == "queued"
        deadline = time.monotonic() + 120
        while client.get_job(job["id"])["status"] not in ("done", "failed", "cancelled"):
            assert time.monotonic() < deadline, "the worker did not finish the job"
            time.sleep(0.2)
        finished = client.get_job(job["id"])
        assert finished["status"] == "done", finished
        assert finished["progress"]["done"] == finished["progress"]["total"]
        deadline = time.monotonic() + 30
        # The server reads the stored headers again every couple of seconds: asked until it has.
        while (stored := client.get_value(game, "299999"))["source"] != "table":
            assert time.monotonic() < deadline, stored
            time.sleep(0.2)
        assert stored["grundy"] == subtraction_grundy((2, 5, 7), 299_999)
        far = client.get_value(game, str(10**18 + 3))
        assert far["source"] == "period"
        stats = client.get_stats(game)
        assert stats["computed_upto"] == 300_000 and stats["period"]["certified"] is True
    # A restarted service answers from the table at once.
    # Without live processes (not what this asks): a table's answer is the server process's own.
    again = start_server(db_proxy.url, tmp_path / "again.log", NIMBASE_LIMITS_LIVE_PROCESSES="0")
    try:
        with again.client() as client:
            assert client.get_value(game, "299999")["source"] == "table"
    finally:
        stop(again.process)


@pytest.fixture
def own_database_url(database_url: str) -> Iterator[str]:
    """A freshly migrated database of its own, so that only this test's processes use it (the module's
    worker, connected straight to the shared database, cannot take this test's job)."""
    name = f"nimbase_outage_{secrets.token_hex(4)}"
    admin = sa.create_engine(database_url, isolation_level="AUTOCOMMIT", poolclass=sa.NullPool)
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        url = make_url(database_url).set(database=name).render_as_string(hide_password=False)
        upgrade_head(url)
        yield url
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def test_database_outage(own_database_url: str, tmp_path: Path) -> None:
    """The database is cut while a worker extends a table of octal:0.6 (no known period) through the
    same proxy as the server. Meanwhile formula and live answers go on, a heap only the table holds
    (live computation stops at 1000 here) is UNAVAILABLE over both transports, and once the database
    is back the service recovers by itself and the interrupted job is resumed from its checkpoint and
    finishes with the values a fresh computation gives."""
    game, upto, heap = "octal:0.6", 1 << 20, 5000
    proxy = DatabaseProxy(own_database_url)
    # One live process (of the default two): live answers still go through the pool.
    server = start_server(
        proxy.url,
        tmp_path / "server.log",
        NIMBASE_LIMITS_LIVE_VALUES="1000",
        NIMBASE_LIMITS_LIVE_PROCESSES="1",
    )
    worker = start_worker(
        proxy.url,
        tmp_path / "worker.log",
        NIMBASE_WORKER_LEASE_SECONDS="3",
        NIMBASE_WORKER_POLL_SECONDS="0.2",
        NIMBASE_WORKER_STEP="131072",
    )
    engine = create_engine(own_database_url)
    try:
        with server.client() as client:
            job_id = client.submit_job(game, upto)["id"]
            deadline = time.monotonic() + 60
            while client.get_job(job_id)["progress"]["done"] < 2 * CHUNK_VALUES:
                assert time.monotonic() < deadline, "the worker did not start the job"
                time.sleep(0.05)
            assert client.get_value(game, str(CHUNK_VALUES + 5))["source"] == "table"
            proxy.cut()
            cut_at = time.monotonic()
            try:
                assert client.get_value("nim", "3 5 6")["grundy"] == 0
                assert client.get_value("subtraction:1,2,5", "40")["source"] in ("live", "period")  # no table
                with pytest.raises(NimbaseClientError) as error:
                    client.get_value(game, str(heap))  # only the table holds it, and its chunk is not cached
                assert error.value.code == "UNAVAILABLE"
                response = server.http().get("/v1/value", params={"game": game, "position": str(heap)})
                assert response.status_code == 503 and response.json()["error"]["code"] == "UNAVAILABLE"
                assert "database is unreachable" in response.json()["error"]["message"]
                with pytest.raises(NimbaseClientError) as error:
                    client.list_jobs()
                assert error.value.code == "UNAVAILABLE"
                assert server.http().get("/v1/jobs").status_code == 503
                assert server.http().get("/healthz").status_code == 200
                time.sleep(max(0.0, cut_at + 3 - time.monotonic()))  # past the worker's lease
                # Until the worker gives the job up (its next write fails): a step under load can
                # outlast any fixed cut, and a heartbeat that fails alone does not interrupt the job.
                given_up = re.compile(rf"worker \S+: job {job_id}: ")  # runner.Worker.run_once
                deadline = time.monotonic() + 120
                while not given_up.search((tmp_path / "worker.log").read_text(errors="replace")):
                    assert time.monotonic() < deadline, "the worker did not notice the outage"
                    time.sleep(0.2)
            finally:
                proxy.restore()
            deadline = time.monotonic() + 30
            while True:
                try:
                    client.list_jobs()
                    break
                except NimbaseClientError:
                    assert time.monotonic() < deadline, "the service did not recover"
                    time.sleep(0.5)
            deadline = time.monotonic() + 180
            while (job := client.get_job(job_id))["status"] in ("queued", "running"):
                assert time.monotonic() < deadline, f"the interrupted job did not finish: {job}"
                time.sleep(0.2)
            assert job["status"] == "done" and job["progress"]["done"] == upto, job
            answer = client.get_value(game, str(heap))
        with engine.connect() as conn:
            attempts = conn.execute(
                sa.text("SELECT attempts FROM jobs WHERE id = :i"), {"i": job_id}
            ).scalar_one()
        assert attempts >= 2, "the job was not interrupted by the outage: nothing was tested"
        kernel = parse_game_id(game).kernel_for("heap")
        assert kernel is not None
        expected = kernel.extend(np.zeros(0, dtype=np.uint32), upto)
        assert np.array_equal(SequenceStore(engine).read_prefix(game, "heap", upto), expected)
        assert (answer["source"], answer["grundy"]) == ("table", int(expected[heap]))
        assert server.process.poll() is None and worker.poll() is None
    finally:
        engine.dispose()
        stop(worker)
        stop(server.process)
        proxy.close()


def test_stream_batches_answer_each_batch_in_order(server: Server) -> None:
    batches = [("nim", [str(n), f"{n} {n}"]) for n in range(1, 50)]
    batches.insert(10, ("go:9x9", ["1"]))
    batches.insert(20, ("subtraction:1,3,4", ["7", "x"]))
    with server.client() as client:
        answers = list(client.stream_batches(iter(batches)))
    assert len(answers) == len(batches)
    for (game, positions), answer in zip(batches, answers, strict=True):
        values = answer["values"]
        assert len(values) == len(positions)
        if game == "nim":
            assert values[0]["grundy"] == int(positions[0]) and values[1]["grundy"] == 0
    assert answers[10]["values"][0]["error"]["code"] == "NOT_FOUND"
    assert answers[20]["values"][0]["grundy"] == subtraction_grundy((1, 3, 4), 7)
    assert answers[20]["values"][1]["error"]["code"] == "INVALID_ARGUMENT"
