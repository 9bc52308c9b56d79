"""Jobs over both transports on a real service and PostgreSQL: what the probe of issue 32 found (REST could
not queue what the CLI queues; identical jobs ran twice and stored tables again; one GET queued work that
could not finish; the list did not page), and the retry of a failed job."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from engine.registry import parse_game_id
from kinds.chess.kind import bulk_ids
from nimbase.client import NimbaseClientError
from nimbase.settings import DEFAULT_WORKER
from storage.jobs import JobQueue
from storage.schema import jobs, sequences
from tests.database import empty_data_tables
from tests.servers import Endpoints, serving_api

TOKEN = "job-api-token"
ADMIN = {"authorization": f"Bearer {TOKEN}"}
EMPTY_7X6 = "/".join(["......."] * 6)


@pytest.fixture(scope="module")
def api(db_engine: sa.Engine) -> Iterator[Endpoints]:
    with serving_api(db_engine, TOKEN) as endpoints:
        yield endpoints


@pytest.fixture
def fresh(api: Endpoints) -> Endpoints:
    empty_data_tables(api.db)
    return api


def post(api: Endpoints, body: dict[str, Any], status: int = 200) -> dict[str, Any]:
    reply = api.http.post("/v1/jobs", json=body, headers=ADMIN)
    assert reply.status_code == status, reply.text
    return dict(reply.json())


def rows(api: Endpoints) -> list[tuple[str, str]]:
    with api.db.connect() as conn:
        return [(r.game_id, r.family) for r in conn.execute(sa.select(jobs).order_by(jobs.c.id))]


def test_rest_queues_a_rules_game_whole_without_upto(fresh: Endpoints) -> None:
    """Finding 4: POST /v1/jobs {"game": "connect4:5x4"} was 400 "upto: Field required"."""
    answer = post(fresh, {"game": "connect4:5x4"})
    rules = parse_game_id("connect4:5x4").rules  # type: ignore[attr-defined]
    tiers = [f"tier:{t}" for t in rules.tiers()]  # the order they are solved in
    assert [j["family"] for j in answer["queued"]] == tiers  # in the order they run, tier 0 last
    assert answer["family"] == "tier:0" and answer["id"] == answer["queued"][-1]["id"]
    assert "stored" not in answer
    # Finding 8: a second precompute of it queued tier 0 twice. Now it is the same job, nothing queued,
    # over gRPC as over REST.
    again = fresh.client.submit_job("connect4:5x4")
    assert (again["id"], again["queued"]) == (answer["id"], [])
    assert len(rows(fresh)) == len(tiers)
    heaps = fresh.http.post("/v1/jobs", json={"game": "subtraction:1,2,5"}, headers=ADMIN)
    assert heaps.status_code == 400 and "needs upto" in heaps.json()["error"]["message"]


def test_rest_queues_a_familys_whole_set(fresh: Endpoints) -> None:
    """Finding 4: there was no REST form of `nimbase precompute chess --men 5`."""
    answer = post(fresh, {"game": "chess", "men": 3})
    assert sorted(j["game"] for j in answer["queued"]) == sorted(bulk_ids(3))
    assert sorted(game for game, _ in rows(fresh)) == sorted(bulk_ids(3))
    again = post(fresh, {"game": "chess", "men": 3})
    assert again["queued"] == []
    beyond = fresh.http.post("/v1/jobs", json={"game": "chess", "men": 6}, headers=ADMIN)
    assert beyond.status_code == 400 and "from 2 to 5 men, not 6" in beyond.json()["error"]["message"]
    with pytest.raises(NimbaseClientError, match="from 2 to 5 men, not 6") as refused:
        fresh.client.submit_job("chess", men=6)
    assert refused.value.code == "INVALID_ARGUMENT"
    none = fresh.http.post("/v1/jobs", json={"game": "nim", "men": 3}, headers=ADMIN)
    assert none.status_code == 400 and "'nim' has none" in none.json()["error"]["message"]


def test_identical_jobs_are_merged_and_stored_tables_answered_at_once(fresh: Endpoints) -> None:
    """Finding 8: chess:KBNvK posted twice ran two solves; chess:KNvK, stored, was solved again;
    chess:KQvKR ran twice when queued right after chess:KRvKP."""
    first = post(fresh, {"game": "chess:KBNvK"})
    second = post(fresh, {"game": "chess:KBNvK"})
    assert second["id"] == first["id"] and second["queued"] == []
    post(fresh, {"game": "chess:KRvKP"})
    krvkp = rows(fresh)
    assert ("chess:KQvKR", "table") in krvkp
    kqvkr = post(fresh, {"game": "chess:KQvKR"})
    assert kqvkr["queued"] == [] and rows(fresh) == krvkp
    with fresh.db.begin() as conn:
        conn.execute(  # stored whole with its statistics
            sa.insert(sequences).values(
                game_id="chess:KBBvK", family="table", computed_upto=99, stats={}, stats_upto=99
            )
        )
    stored = post(fresh, {"game": "chess:KBBvK"})
    assert stored["stored"] == {"game": "chess:KBBvK", "family": "table", "computed_upto": 99}
    assert stored["queued"] == [] and stored["id"] == 0 and stored["status"] == "done"
    assert fresh.client.submit_job("chess:KBBvK")["stored"] == stored["stored"]
    assert ("chess:KBBvK", "table") not in rows(fresh)


def test_nothing_is_queued_that_no_worker_can_finish(fresh: Endpoints) -> None:
    """Finding 7: one anonymous GET of connect4:7x6 queued 43 tier jobs that failed; dots-and-boxes:4x4
    was accepted with upto 0."""
    refused = fresh.http.get("/v1/value", params={"game": "connect4:7x6", "position": EMPTY_7X6})
    assert refused.status_code == 422, refused.text
    message = refused.json()["error"]["message"]
    cap = f"{DEFAULT_WORKER.memory_bytes:,} bytes (NIMBASE_WORKER_MEMORY_BYTES)"
    assert "no job is queued" in message and cap in message
    assert "job" not in refused.json()["error"]
    dots = fresh.http.post("/v1/jobs", json={"game": "dots-and-boxes:4x4", "upto": 0}, headers=ADMIN)
    assert dots.status_code == 422 and dots.json()["error"]["code"] == "RESOURCE_EXHAUSTED"
    assert "NIMBASE_WORKER_MEMORY_BYTES" in dots.json()["error"]["message"]
    with pytest.raises(NimbaseClientError, match="NIMBASE_WORKER_MEMORY_BYTES"):
        fresh.client.submit_job("connect4:6x5")
    assert rows(fresh) == []


def test_a_failed_job_is_retried_with_those_that_failed_waiting_for_it(fresh: Endpoints) -> None:
    """Finding 2's way on: a job failed by a stopped worker, and KRPvKR that waited for it."""
    top = post(fresh, {"game": "chess:KRvKN"})
    queue = JobQueue(fresh.db)
    first = queue.claim("w", 30)
    assert first is not None and queue.fail(first.id, "w", "ComputeError: exited (255)")
    queue.claim("w", 30)  # fails the jobs waiting for it
    assert fresh.http.get(f"/v1/jobs/{top['id']}").json()["status"] == "failed"
    unauthenticated = fresh.http.post(f"/v1/jobs/{first.id}:retry")
    assert unauthenticated.status_code == 401
    retried = fresh.http.post(f"/v1/jobs/{first.id}:retry", headers=ADMIN)
    assert retried.status_code == 200, retried.text
    body = retried.json()
    assert body["id"] == first.id and body["status"] == "queued"
    assert top["id"] in {j["id"] for j in body["queued"]}
    assert all(j["status"] == "queued" for j in body["queued"])
    again = fresh.http.post(f"/v1/jobs/{first.id}:retry", headers=ADMIN)
    assert again.status_code == 409
    assert again.json()["error"]["message"] == (
        f"job {first.id} is queued, not failed: only a failed job can be retried"
    )
    with pytest.raises(NimbaseClientError, match="is queued, not failed") as refused:
        fresh.client.retry_job(first.id)
    assert refused.value.code == "FAILED_PRECONDITION"
    assert fresh.http.post("/v1/jobs/999999:retry", headers=ADMIN).status_code == 404


def test_the_list_pages_and_refuses_a_limit_past_its_maximum(fresh: Endpoints) -> None:
    """Finding 10: `limit` stopped at 1,000 silently, with no cursor."""
    queue = JobQueue(fresh.db)
    ids = [queue.submit("subtraction:1,2,5", f"f{k}", 5).id for k in range(5)]
    seen: list[int] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"limit": 2} if cursor is None else {"limit": 2, "cursor": cursor}
        page = fresh.http.get("/v1/jobs", params=params).json()
        assert fresh.client.list_jobs(2, cursor) == page
        seen.extend(j["id"] for j in page["jobs"])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == ids[::-1]
    too_many = fresh.http.get("/v1/jobs", params={"limit": 5000})
    assert (
        too_many.status_code == 400 and "limit 5000 is outside 1..1000" in too_many.json()["error"]["message"]
    )
    with pytest.raises(NimbaseClientError, match="limit 5000") as refused:
        fresh.client.list_jobs(5000)
    assert refused.value.code == "INVALID_ARGUMENT"
    bad = fresh.http.get("/v1/jobs", params={"cursor": "abc"})
    assert bad.status_code == 400 and "'abc'" in bad.json()["error"]["message"]
