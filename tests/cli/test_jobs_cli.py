"""`nimbase precompute` and `nimbase jobs` as the service has them: one job per object, what no worker can
finish refused, a failed job retried, the list paged."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa

from storage.jobs import JobQueue
from storage.schema import sequences
from tests.cli.test_cli import in_process, nimbase
from tests.database import empty_data_tables


def test_precompute_queues_an_object_once_and_answers_what_is_stored(
    tmp_path: Path, database_url: str, db_engine: sa.Engine
) -> None:
    """Finding 8: two `nimbase precompute connect4:5x4` queued tier 0 twice."""
    empty_data_tables(db_engine)
    env = {"DATABASE_URL": database_url}
    first = nimbase(tmp_path, "precompute", "connect4:5x4", "--detach", **env)
    assert first.returncode == 0, first.stderr
    queue = JobQueue(db_engine)
    count = len(queue.list(limit=1000))
    second = in_process(tmp_path, "precompute", "connect4:5x4", "--detach", **env)
    assert second.returncode == 0 and "already computes connect4:5x4" in second.stdout, second.stdout
    assert len(queue.list(limit=1000)) == count
    with db_engine.begin() as conn:
        conn.execute(  # stored whole with its statistics
            sa.insert(sequences).values(
                game_id="chess:KBBvK", family="table", computed_upto=9, stats={}, stats_upto=9
            )
        )
    stored = in_process(tmp_path, "precompute", "chess:KBBvK", **env)
    assert stored.returncode == 0 and "is stored already (9 values): nothing queued" in stored.stdout
    assert len(queue.list(limit=1000)) == count


def test_precompute_refuses_what_no_worker_can_finish(
    tmp_path: Path, database_url: str, db_engine: sa.Engine
) -> None:
    """Finding 7: connect4:7x6's tiers were queued, and failed."""
    empty_data_tables(db_engine)
    env = {"DATABASE_URL": database_url}
    refused = in_process(tmp_path, "precompute", "connect4:7x6", **env)
    assert refused.returncode == 2 and "NIMBASE_WORKER_MEMORY_BYTES" in refused.stderr, refused.stderr
    assert "Traceback" not in refused.stderr
    assert JobQueue(db_engine).list() == []
    larger = nimbase(
        tmp_path, "precompute", "chess:KRPvKR", "--detach", **env, NIMBASE_WORKER_MEMORY_BYTES=str(12 << 30)
    )
    assert larger.returncode == 0, larger.stderr  # a worker allowed more takes it


def test_jobs_pages_and_retries(tmp_path: Path, database_url: str, db_engine: sa.Engine) -> None:
    """Finding 10 (the list pages) and `nimbase jobs retry N`."""
    empty_data_tables(db_engine)
    env = {"DATABASE_URL": database_url}
    queue = JobQueue(db_engine)
    ids = [queue.submit("subtraction:1,2,5", f"f{k}", 5).id for k in range(3)]
    page = in_process(tmp_path, "jobs", "--limit", "2", **env)
    assert page.returncode == 0, page.stderr
    assert f"more: nimbase jobs --cursor {ids[1]}" in page.stdout
    rest = in_process(tmp_path, "jobs", "--limit", "2", "--cursor", str(ids[1]), **env)
    assert [int(line.split()[0]) for line in rest.stdout.splitlines()] == [ids[0]]
    too_many = in_process(tmp_path, "jobs", "--limit", "5000", **env)
    assert too_many.returncode == 2 and "1..1000" in too_many.stderr
    claimed = queue.claim("w", 30)
    assert claimed is not None and queue.fail(claimed.id, "w", "the worker was stopped")
    retried = in_process(tmp_path, "jobs", "retry", str(claimed.id), **env)
    assert retried.returncode == 0 and f"queued again: job {claimed.id}" in retried.stdout, retried.stderr
    again = in_process(tmp_path, "jobs", "retry", str(claimed.id), **env)
    assert again.returncode == 2 and "is queued, not failed" in again.stderr
    missing = in_process(tmp_path, "jobs", "retry", "999999", **env)
    assert missing.returncode == 2 and "no job 999999" in missing.stderr
