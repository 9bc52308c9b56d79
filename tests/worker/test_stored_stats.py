"""Whole-table statistics stored by the worker beside the table it stores (engine.kind.SequenceKernel
.stats_part): a sequence's, combined range by range as jobs extend it (equal to those made of the whole
table at once), an object's once it is whole, and a table stored before statistics were gets them from
the next job that finds it stored."""

from __future__ import annotations

import threading

import numpy as np
import sqlalchemy as sa

from engine.precompute import plan_job
from engine.registry import parse_game_id, plan_stored
from storage.jobs import JobQueue
from storage.packing import CHUNK_VALUES
from storage.schema import sequences
from storage.sequences import SequenceStore
from worker.runner import Worker

GAME = "octal:0.6"


def run_all(engine: sa.Engine, **settings: int) -> None:
    Worker(engine, worker_id="stats-worker", **settings).run_until_idle(threading.Event())


def whole_table_stats(game_id: str, values: np.ndarray) -> dict[str, object] | None:
    kernel = parse_game_id(game_id).kernel_for("heap")
    assert kernel is not None
    return kernel.stats_part(values, 0)


def test_a_sequence_extended_by_jobs_has_the_stats_of_its_whole_table(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    store = SequenceStore(clean_db)
    for upto in (5000, CHUNK_VALUES + 123, 2 * CHUNK_VALUES + 7):
        queue.submit(GAME, "heap", upto)
        run_all(clean_db, step_values=CHUNK_VALUES // 2)
        info = store.info(GAME, "heap")
        assert info is not None and info.computed_upto == upto and info.stats_current
        found = store.stats(GAME, "heap")
        assert found is not None and found[0] == upto
        assert found[1] == whole_table_stats(GAME, store.read_prefix(GAME, "heap", upto))


def test_a_table_stored_before_stats_were_gets_them_from_its_next_job(clean_db: sa.Engine) -> None:
    queue = JobQueue(clean_db)
    store = SequenceStore(clean_db)
    queue.submit(GAME, "heap", 7000)
    run_all(clean_db)
    with clean_db.begin() as conn:  # as a table stored before this revision
        conn.execute(sequences.update().values(stats=None, stats_upto=None))
    info = store.info(GAME, "heap")
    assert info is not None and not info.stats_current and store.stats(GAME, "heap") is None
    # Its kind stores statistics, so the table is not stored whole until they are: a job is queued.
    plan = plan_job(parse_game_id(GAME), 7000, False, "heap")
    queued = queue.queue(plan, plan_stored)
    assert queued.queued
    run_all(clean_db)
    found = store.stats(GAME, "heap")
    assert found is not None and found[0] == 7000
    assert found[1] == whole_table_stats(GAME, store.read_prefix(GAME, "heap", 7000))
    again = queue.queue(plan, plan_stored)
    assert not again.queued  # stored now, statistics included
    done = queue.get(queued.queued[-1].id)
    assert done is not None and done.status == "done"


def test_wythoff_and_bicolor_families_store_the_stats_of_their_whole_tables(clean_db: sa.Engine) -> None:
    """Their jobs store statistics beside the tables, in steps, equal to those of the whole table."""
    queue = JobQueue(clean_db)
    store = SequenceStore(clean_db)
    wythoff = parse_game_id("wythoff")
    jobs = [(wythoff, "pairs", 512, plan_job(wythoff, 512, False, "pairs").values)]
    bicolor = parse_game_id("bicolor-nim")
    jobs += [(bicolor, "f_3", 300, 2)]  # it may stop at its certified period
    for kind, family, upto, values in jobs:
        queue.queue(plan_job(kind, upto, False, family), plan_stored)
        run_all(clean_db, step_values=CHUNK_VALUES // 2)
        info = store.info(kind.game_id, family)
        assert info is not None and info.computed_upto >= min(values, 2) and info.stats_current
        found = store.stats(kind.game_id, family)
        kernel = kind.kernel_for(family)
        assert found is not None and kernel is not None
        table = store.read_prefix(kind.game_id, family, info.computed_upto)
        assert found[0] == info.computed_upto and found[1] == kernel.stats_part(table, 0)
