"""`nimbase precompute FAMILY --men N`: a family's whole set queued, each job after those it reads.

The commands run in the test's own process (`in_process`): test_jobs_cli runs `precompute` as a real
process."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa

from kinds.chess.kind import bulk_ids
from kinds.chess.material import parse_material
from tests.cli.test_cli import in_process
from tests.database import empty_data_tables


def test_a_family_is_queued_whole_in_dependency_order(
    tmp_path: Path, database_url: str, db_engine: sa.Engine
) -> None:
    from storage.jobs import JobQueue

    empty_data_tables(db_engine)  # nothing stored: a stored table is answered, not queued again
    queue = JobQueue(db_engine)
    before = max((job.id for job in queue.list(limit=1000)), default=0)
    env = {"DATABASE_URL": database_url}
    done = in_process(tmp_path, "precompute", "chess", "--men", "3", **env)
    assert done.returncode == 0, done.stderr
    jobs = {job.game_id: job for job in queue.list(limit=1000) if job.id > before}
    try:
        assert set(jobs) == set(bulk_ids(3)) and all(job.family == "table" for job in jobs.values())
        by_id = {job.id: game_id for game_id, job in jobs.items()}
        for game_id, job in jobs.items():
            needs = {sub.game_id for sub in parse_material(game_id.partition(":")[2]).sub_materials()}
            assert {by_id[i] for i in job.waits_for} == needs, game_id
        again = in_process(tmp_path, "precompute", "chess", "--men", "3", **env)
        assert again.returncode == 0 and "0 queued" in again.stdout
    finally:
        for job in jobs.values():
            queue.cancel(job.id)
    wrong = in_process(tmp_path, "precompute", "nim", "--men", "3", **env)
    assert wrong.returncode == 2 and "chess" in wrong.stderr
    too_many = in_process(tmp_path, "precompute", "chess", "--men", "6", **env)
    assert too_many.returncode == 2 and "5 men" in too_many.stderr
    no_upto = in_process(tmp_path, "precompute", "nim")
    assert no_upto.returncode == 2 and "--upto" in no_upto.stderr


def test_an_object_made_whole_needs_no_upto(tmp_path: Path, database_url: str, db_engine: sa.Engine) -> None:
    """An endgame table is made whole (its kernel's own `length`), so `precompute chess:X` queues it, and
    what it reads, without --upto; a heap game's open-ended sequence still asks for one."""
    from storage.jobs import JobQueue

    empty_data_tables(db_engine)  # nothing stored: a stored table is answered, not queued again
    queue = JobQueue(db_engine)
    before = max((job.id for job in queue.list(limit=1000)), default=0)
    env = {"DATABASE_URL": database_url}
    done = in_process(tmp_path, "precompute", "chess:KPvK", "--detach", **env)
    jobs = {job.game_id: job for job in queue.list(limit=1000) if job.id > before}
    try:
        assert done.returncode == 0, done.stderr
        assert "chess:KPvK table, made whole" in done.stdout
        needs = {f"chess:{sub.name}" for sub in parse_material("KPvK").sub_materials()}
        assert set(jobs) == {"chess:KPvK", *needs} and all(job.family == "table" for job in jobs.values())
        assert {jobs[game_id].id for game_id in needs} == set(jobs["chess:KPvK"].waits_for)
    finally:
        for job in jobs.values():
            queue.cancel(job.id)
    heaps = in_process(tmp_path, "precompute", "subtraction:1,2,5", **env)
    assert heaps.returncode == 2 and "needs --upto" in heaps.stderr
    too_many = in_process(tmp_path, "precompute", "chess:KQRvKQR", **env)
    assert too_many.returncode == 2 and "5 men" in too_many.stderr
