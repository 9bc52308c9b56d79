"""Sequence storage on a real PostgreSQL: verified reads, fenced writes, corruption reports."""

from __future__ import annotations

import socket

import numpy as np
import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import InvalidArgument
from engine.periods import Period
from storage.database import create_engine
from storage.errors import (
    CorruptChunk,
    LeaseLost,
    MissingChunk,
    NotStored,
    StaleWrite,
    StorageUnavailable,
)
from storage.jobs import JobQueue
from storage.packing import CHUNK_VALUES, checksum, encode
from storage.sequences import SequenceStore
from tests.storage.helpers import (
    corruption_reports,
    delete_chunk,
    flip_byte,
    oracle_values,
    repair_jobs,
    running_job,
)

GAME = "subtraction:1,3,4"
MOVES = (1, 3, 4)


def write_steps(engine: sa.Engine, values: np.ndarray, cuts: list[int], game: str = GAME) -> SequenceStore:
    store = SequenceStore(engine)
    job = running_job(engine, game, len(values))
    start = 0
    for cut in [*cuts, len(values)]:
        store.write_extension(
            job_id=job.id,
            worker_id="w1",
            game_id=game,
            family="heap",
            start=start,
            values=values[:cut],
            period=None,
            done=cut,
            total=len(values),
        )
        start = cut
    return store


def test_stepwise_writes_read_back_exactly(clean_db: sa.Engine) -> None:
    values = oracle_values(MOVES, 3 * CHUNK_VALUES + 1234)
    values[CHUNK_VALUES + 5] = 100_000  # a wide value in one chunk only
    cuts = [10, CHUNK_VALUES - 1, CHUNK_VALUES + 7, 2 * CHUNK_VALUES, 2 * CHUNK_VALUES + 99]
    store = write_steps(clean_db, values, cuts)
    assert np.array_equal(store.read_prefix(GAME, "heap", len(values)), values)
    assert np.array_equal(store.read_chunk(GAME, "heap", 1), values[CHUNK_VALUES : 2 * CHUNK_VALUES])
    assert np.array_equal(store.read_chunk(GAME, "heap", 3), values[3 * CHUNK_VALUES :])
    info = store.info(GAME, "heap")
    assert info is not None
    assert (info.computed_upto, info.max_value, info.max_value_at) == (len(values), 100_000, CHUNK_VALUES + 5)
    assert info.period is None
    with clean_db.connect() as conn:
        widths = (
            conn.execute(sa.text("SELECT width FROM sequence_chunks ORDER BY chunk_index")).scalars().all()
        )
        job = conn.execute(sa.text("SELECT done, total FROM jobs")).one()
    assert widths == [2, 32, 2, 2]
    assert tuple(job) == (len(values), len(values))


def test_max_value_at_is_the_first_occurrence(clean_db: sa.Engine) -> None:
    values = np.array([0, 5, 1, 5, 2, 7, 7, 3], dtype=np.uint32)
    store = write_steps(clean_db, values, [2, 5])
    info = store.info(GAME, "heap")
    assert info is not None and (info.max_value, info.max_value_at) == (7, 5)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_read_range_matches_slicing(
    stored_game: tuple[SequenceStore, np.ndarray], data: st.DataObject
) -> None:
    store, values = stored_game
    start = data.draw(st.integers(0, len(values)))
    stop = data.draw(st.integers(start, len(values)))
    assert np.array_equal(store.read_range(GAME, "heap", start, stop), values[start:stop])


@pytest.fixture
def stored_game(clean_db: sa.Engine) -> tuple[SequenceStore, np.ndarray]:
    values = oracle_values(MOVES, 2 * CHUNK_VALUES + 10)
    return write_steps(clean_db, values, [CHUNK_VALUES + 3]), values


def test_reads_beyond_the_stored_prefix_are_refused(stored_game: tuple[SequenceStore, np.ndarray]) -> None:
    store, values = stored_game
    with pytest.raises(NotStored, match=r"values 0\.\.131083 .* not stored \(stored: 0\.\.131082\)"):
        store.read_prefix(GAME, "heap", len(values) + 1)
    with pytest.raises(NotStored):
        store.read_chunk(GAME, "heap", 3)
    with pytest.raises(NotStored, match=r"stored: 0\.\.0"):
        store.read_range("subtraction:2", "heap", 0, 1)
    assert store.read_range(GAME, "heap", 5, 5).size == 0


def test_a_flipped_byte_is_detected_and_its_repair_queued(
    stored_game: tuple[SequenceStore, np.ndarray],
) -> None:
    store, _ = stored_game
    engine = store._engine
    flip_byte(engine, GAME, 1, offset=100)
    with pytest.raises(CorruptChunk, match=r"corrupt chunk 1 of game 'subtraction:1,3,4' family 'heap'"):
        store.read_chunk(GAME, "heap", 1)
    with pytest.raises(CorruptChunk):
        store.read_prefix(GAME, "heap", CHUNK_VALUES + 1)
    assert store.read_prefix(GAME, "heap", CHUNK_VALUES).size == CHUNK_VALUES  # chunk 0 is fine
    first = store.report_corruption(GAME, "heap", 1, "read check")
    second = store.report_corruption(GAME, "heap", 1)
    assert first.id == second.id
    assert (first.kind, first.chunk_index, first.status) == ("repair", 1, "queued")
    assert corruption_reports(engine, GAME) == [(1, False)]  # reported once, however often found


def test_a_missing_chunk_is_damage_not_the_end_of_the_table(
    stored_game: tuple[SequenceStore, np.ndarray],
) -> None:
    store, values = stored_game
    engine = store._engine
    delete_chunk(engine, GAME, 1)
    missing = (
        r"corrupt chunk 1 of game 'subtraction:1,3,4' family 'heap': "
        r"its row is missing, though values 0\.\.131082"
    )
    with pytest.raises(MissingChunk, match=missing):
        store.read_chunk(GAME, "heap", 1)
    with pytest.raises(MissingChunk, match=missing):
        store.read_range(GAME, "heap", 5, CHUNK_VALUES + 1)
    with pytest.raises(MissingChunk, match=missing):
        store.read_prefix(GAME, "heap", len(values))
    assert np.array_equal(store.read_chunk(GAME, "heap", 2), values[2 * CHUNK_VALUES :])
    assert np.array_equal(store.read_prefix(GAME, "heap", CHUNK_VALUES), values[:CHUNK_VALUES])
    with pytest.raises(NotStored):  # beyond the stored prefix a chunk is absent, not missing
        store.read_chunk(GAME, "heap", 3)
    assert issubclass(MissingChunk, CorruptChunk)  # every reader treats it as damage


def test_a_chunk_shorter_than_the_stored_prefix_is_corrupt(
    stored_game: tuple[SequenceStore, np.ndarray],
) -> None:
    """A chunk row holding fewer values than the header claims, even with a matching checksum, is
    never served (its missing values would be read past its end)."""
    store, values = stored_game
    short = values[CHUNK_VALUES : CHUNK_VALUES + 100]
    width, codec, payload = encode(short)
    with store._engine.begin() as conn:
        conn.execute(
            sa.text(
                "UPDATE sequence_chunks SET count = :c, width = :w, codec = :k, payload = :p, checksum = :s "
                "WHERE game_id = :g AND chunk_index = 1"
            ),
            {
                "c": len(short),
                "w": width,
                "k": codec,
                "p": payload,
                "s": checksum(GAME, "heap", 1, len(short), width, payload, codec),
                "g": GAME,
            },
        )
    with pytest.raises(CorruptChunk, match=r"chunk 1 .*: it holds 100 values, though values 0\.\.131082"):
        store.read_chunk(GAME, "heap", 1)
    with pytest.raises(CorruptChunk, match=r"chunk 1 .*: it holds 100 values"):
        store.read_range(GAME, "heap", CHUNK_VALUES, CHUNK_VALUES + 200)


def test_a_report_stays_open_until_the_chunk_is_rewritten(
    stored_game: tuple[SequenceStore, np.ndarray],
) -> None:
    store, values = stored_game
    engine = store._engine
    repair = store.report_corruption(GAME, "heap", 1, "found by a reader")
    store.report_corruption(GAME, "heap", 1, "found by another")
    store.report_corruption(GAME, "heap", 0)
    assert corruption_reports(engine, GAME) == [(1, False), (0, False)]
    queue = JobQueue(engine)
    for job in queue.list():
        if job.kind == "extend":  # the fixture's writer, still running
            assert queue.finish(job.id, "w1")
    claimed = queue.claim("w1", 60)
    assert claimed is not None and claimed.id == repair.id
    store.rewrite_chunk(
        job_id=repair.id,
        worker_id="w1",
        game_id=GAME,
        family="heap",
        chunk_index=1,
        values=values[CHUNK_VALUES : 2 * CHUNK_VALUES],
    )
    assert corruption_reports(engine, GAME) == [(1, True), (0, False)]
    assert queue.finish(repair.id, "w1")
    # a reader that read the damaged chunk before the repair and reports it after: answered by that repair
    late = store.report_corruption(GAME, "heap", 1, "read before the repair")
    assert (late.id, late.status) == (repair.id, "done")
    assert corruption_reports(engine, GAME) == [(1, True), (0, False)]
    flip_byte(engine, GAME, 1, offset=100)
    again = store.report_corruption(GAME, "heap", 1, "damaged again")
    assert again.id != repair.id and again.status == "queued"
    assert corruption_reports(engine, GAME) == [(1, True), (0, False), (1, False)]
    assert [(index, status) for _, index, status in repair_jobs(engine, GAME)] == [
        (1, "done"),
        (0, "queued"),
        (1, "queued"),
    ]


def test_write_is_fenced_by_the_lease(clean_db: sa.Engine) -> None:
    store = SequenceStore(clean_db)
    queue = JobQueue(clean_db)
    job = running_job(clean_db, GAME, 100)
    values = oracle_values(MOVES, 100)

    def write(worker_id: str, start: int = 0) -> None:
        store.write_extension(
            job_id=job.id, worker_id=worker_id, game_id=GAME, family="heap", start=start,
            values=values, period=None, done=100, total=100,
        )  # fmt: skip

    with pytest.raises(LeaseLost, match=f"job {job.id}: worker 'intruder' no longer holds its lease"):
        write("intruder")
    with pytest.raises(StaleWrite, match="expected 5 stored values, found 0"):
        write("w1", start=5)
    queue.cancel(job.id)
    with pytest.raises(LeaseLost):
        write("w1")
    assert store.info(GAME, "heap") is None or store.info(GAME, "heap").computed_upto == 0  # type: ignore[union-attr]
    with clean_db.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM sequence_chunks")).scalar_one() == 0


def test_certified_period_and_finish_in_one_write(clean_db: sa.Engine) -> None:
    store = SequenceStore(clean_db)
    job = running_job(clean_db, GAME, 1000, fill=False)
    values = oracle_values(MOVES, 50)
    store.write_extension(
        job_id=job.id, worker_id="w1", game_id=GAME, family="heap", start=0, values=values,
        period=Period(0, 7), done=50, total=1000, finish=True,
    )  # fmt: skip
    info = store.info(GAME, "heap")
    assert info is not None and info.period == Period(0, 7, 0, True)
    done = JobQueue(clean_db).get(job.id)
    assert done is not None and (done.status, done.done, done.total) == ("done", 1000, 1000)
    assert [i.game_id for i in store.list_sequences(GAME)] == [GAME]
    assert store.list_sequences("nim") == []
    assert store.table_bytes() > 0


def test_an_unreachable_database_is_reported_as_unavailable() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    engine = create_engine(f"postgresql://nobody@127.0.0.1:{port}/nimbase")
    try:
        with pytest.raises(StorageUnavailable, match="database unavailable"):
            SequenceStore(engine).info(GAME, "heap")
        with pytest.raises(StorageUnavailable):
            JobQueue(engine).claim("w", 5)
    finally:
        engine.dispose()


def test_list_sequences_all_gives_every_header_most_recent_first(clean_db: sa.Engine) -> None:
    store = SequenceStore(clean_db)
    assert store.list_sequences_all() == []
    write_steps(clean_db, oracle_values((1, 2), 100), [], game="subtraction:1,2")
    write_steps(clean_db, oracle_values((2, 5, 7), 100), [], game="subtraction:2,5,7")
    job = running_job(clean_db, GAME, 100)
    store.write_extension(
        job_id=job.id, worker_id="w1", game_id=GAME, family="heap", start=0,
        values=oracle_values(MOVES, 100), period=Period(0, 7), done=100, total=100,
    )  # fmt: skip
    # Distinct update times, in an order unlike the names'.
    with clean_db.begin() as conn:
        for game, minutes in (("subtraction:1,2", 30), (GAME, 10), ("subtraction:2,5,7", 20)):
            conn.execute(
                sa.text(
                    "UPDATE sequences SET updated_at = now() - make_interval(mins => :m) WHERE game_id = :g"
                ),
                {"m": minutes, "g": game},
            )
    listed = store.list_sequences_all()
    assert [i.game_id for i in listed] == [GAME, "subtraction:2,5,7", "subtraction:1,2"]
    assert listed[0] == store.info(GAME, "heap")
    assert (listed[0].computed_upto, listed[0].period) == (100, Period(0, 7, 0, True))
    assert listed[1].period is None
    assert [i.game_id for i in store.list_sequences_all(limit=2)] == [GAME, "subtraction:2,5,7"]
    with pytest.raises(InvalidArgument, match="limit must be >= 1, got 0"):
        store.list_sequences_all(limit=0)
