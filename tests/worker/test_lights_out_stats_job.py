"""Lights Out's statistics job (family "stats") end to end: submitted through the real gRPC and REST
servers over a real `Nimbase` (and the test PostgreSQL) on loopback, run by a worker in-process, and read
back by GetStats with `source: "table"`, past the limits of the live answer. Also: a shape whose
elimination was made live picks up the elimination a job stores later, without a restart."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from engine import keep
from nimbase.client import NimbaseClientError
from storage.jobs import JobQueue
from tests.servers import Endpoints, serving_api
from worker.runner import Worker

TOKEN = "lights-out-stats-token"
COUNTS_3X3 = [1, 9, 36, 84, 126, 126, 84, 36, 9, 1]


@pytest.fixture(scope="module")
def api(db_engine: sa.Engine) -> Iterator[Endpoints]:
    with serving_api(db_engine, TOKEN) as endpoints:
        yield endpoints


def run_worker(api: Endpoints) -> None:
    """Run every queued job, then drop the service's cached headers (a new table shows at once)."""
    Worker(api.db, worker_id="lights-out-stats-worker", poll_seconds=0.05).run_until_idle(threading.Event())
    api.service.tables.forget()


def both(api: Endpoints, game: str) -> dict[str, Any]:
    """GetStats over gRPC, checked equal to the REST answer."""
    stats = dict(api.client.get_stats(game))
    assert api.http.get("/v1/stats", params={"game": game}).json() == stats
    return stats


def grpc_error(call: Any) -> NimbaseClientError:
    with pytest.raises(NimbaseClientError) as info:
        call()
    return info.value


def test_the_3x3_statistics_come_from_the_table(api: Endpoints) -> None:
    game = "lights-out:3x3"
    assert both(api, game)["source"] == "live"
    job = api.client.submit_job(game, 0, family="stats")
    assert (job["game"], job["family"], job["status"]) == (game, "stats", "queued")
    run_worker(api)
    assert api.client.get_job(job["id"])["status"] == "done"
    stats = both(api, game)
    assert stats["source"] == "table" and stats["method"] == "elimination"
    assert stats["distance_counts"] == COUNTS_3X3 and stats["diameter"] == 9
    assert (stats["rank"], stats["nullity"], stats["solvable_boards"]) == (9, 0, 512)
    assert "note" not in stats


def test_a_shape_past_the_live_limits_gets_its_counts_from_a_job(api: Endpoints) -> None:
    """32 x 33 (1,056 cells, nullity 1): live, the diameter only and a note naming the job; stored, the
    distance counts too, summing to 2^rank."""
    game = "lights-out:32x33"
    live = both(api, game)
    assert live["source"] == "live" and live["distance_counts"] is None and live["nullity"] == 1
    assert '"stats"' in live["note"]
    submitted = api.http.post(
        "/v1/jobs",
        json={"game": game, "upto": 0, "family": "stats"},
        headers={"authorization": f"Bearer {TOKEN}"},
    )
    assert submitted.status_code == 200, submitted.json()
    run_worker(api)
    assert api.http.get(f"/v1/jobs/{submitted.json()['id']}").json()["status"] == "done"
    stats = both(api, game)
    assert stats["source"] == "table" and "note" not in stats
    counts = stats["distance_counts"]
    assert isinstance(counts, list) and counts[:2] == [1, 1056]
    assert sum(int(c) for c in counts) == 2 ** stats["rank"] and stats["rank"] == 1055
    assert stats["solvable_boards"] == "2^1055"
    assert stats["diameter"] == live["diameter"] == len(counts) - 1


def test_stats_jobs_beyond_reach_are_refused(api: Endpoints) -> None:
    error = grpc_error(lambda: api.client.submit_job("lights-out:300x300", 0, family="stats"))
    assert error.code == "FAILED_PRECONDITION" and "polynomial method" in str(error)
    error = grpc_error(lambda: api.client.submit_job("lights-out:2000x2000:torus", 0, family="stats"))
    assert error.code == "RESOURCE_EXHAUSTED" and "lights-out:2000x2000:torus" in str(error)
    error = grpc_error(lambda: api.client.submit_job("lights-out:3x3", 0, family="heap"))
    assert error.code == "INVALID_ARGUMENT" and "'stats'" in str(error)
    # 9 x 9's walk (nullity 8) is past a stats job's work, which shows only once the job has the null
    # space (the plan eliminates nothing): the job is queued, and fails saying why
    job = api.client.submit_job("lights-out:9x9", 0, family="stats")
    assert job["status"] == "queued"
    run_worker(api)
    failed = api.client.get_job(job["id"])
    assert failed["status"] == "failed"
    assert failed["error"] is not None and failed["error"].startswith("LimitExceeded: ")
    assert "lights-out:9x9 (nullity 8) is beyond a stats job" in failed["error"]
    # so does one queued past the service's plan (straight into the queue)
    queued = JobQueue(api.db).submit("lights-out:9x9", "stats", 1, fill=True)
    run_worker(api)
    failed = api.client.get_job(queued.id)
    assert failed["status"] == "failed" and "lights-out:9x9" in (failed["error"] or "")
    assert both(api, "lights-out:9x9")["source"] == "live"


def test_a_live_elimination_gives_way_to_a_stored_one(
    api: Endpoints, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = "lights-out:7x5:torus"
    board = "/".join(["10000"] * 7)
    monkeypatch.setattr(keep, "STORED_RECHECK_SECONDS", 3600.0)
    before = api.client.get_value(game, board)
    assert before["source"] == "live"
    job = api.client.submit_job(game, 0, family="elimination")
    run_worker(api)
    assert api.client.get_job(job["id"])["status"] == "done"
    # the server keeps the live elimination until it looks in storage again (every few seconds)
    assert api.client.get_value(game, board)["source"] == "live"
    monkeypatch.setattr(keep, "STORED_RECHECK_SECONDS", 0.0)
    assert api.client.get_value(game, board) == {**before, "source": "table"}
