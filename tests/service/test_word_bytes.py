"""An object stored whole read by byte ranges through the service's tables on a real PostgreSQL
(`SequenceTables.word_bytes`, engine.stored_bytes.read_stored_range): exactly its bytes; a range of plain
words does not pull its chunk into the chunk cache, which whole reads still fill and range reads then use;
chunks stored as before still read; damage is refused (UNAVAILABLE naming the repair), never answered."""

from __future__ import annotations

import numpy as np
import pytest
import sqlalchemy as sa

from engine.errors import LimitExceeded
from engine.stored_bytes import (
    StoredBytes,
    encode_words,
    read_stored,
    read_stored_range,
    read_stored_ranges,
    stored_object_size,
)
from nimbase.settings import Limits
from service.errors import Unavailable
from service.gate import DatabaseGate
from service.sequences.stored import HEAD_WORDS
from service.sequences.tables import SequenceTables
from storage.packing import CHUNK_VALUES
from storage.sequences import SequenceStore
from tests.engine.contexts import engine_context
from tests.storage.helpers import corruption_reports, repair_jobs, store_whole

GAME, FAMILY = "graph:ranges", "heap"
#: An object of a little over two chunks of words, as a kind's compressed bytes look.
DATA = np.random.default_rng(5).bytes(4 * (2 * CHUNK_VALUES + 100) + 3)
#: Byte ranges: unaligned within a chunk, across a chunk's end, the object's end, all of it.
RANGES = [
    (0, 1),
    (3, 10),
    (4 * CHUNK_VALUES - 13, 4 * CHUNK_VALUES + 5),
    (len(DATA) - 9, len(DATA)),
    (0, len(DATA)),
]


def store(engine: sa.Engine, *, plain: bool, data: bytes = DATA) -> None:
    store_whole(engine, GAME, encode_words(data), plain=plain)


def tables(engine: sa.Engine) -> SequenceTables:
    return SequenceTables(SequenceStore(engine), DatabaseGate(), Limits(live_values=1 << 16))


def test_ranges_of_plain_words_are_read_alone(clean_db: sa.Engine) -> None:
    store(clean_db, plain=True)
    sequences = tables(clean_db)
    ctx = engine_context(sequences)
    assert stored_object_size(GAME, FAMILY, ctx) == len(DATA)
    for start, stop in RANGES:
        assert read_stored_range(GAME, FAMILY, ctx, start, stop) == DATA[start:stop], (start, stop)
    assert sequences.cached_bytes()["chunks"] == 0  # no chunk read whole, none kept
    # a whole reader reads verified chunks, kept; range reads then come from them
    assert read_stored(GAME, FAMILY, ctx, "a test object", bytes) == DATA
    assert sequences.cached_bytes()["chunks"] > 0
    for start, stop in RANGES:
        assert read_stored_range(GAME, FAMILY, ctx, start, stop) == DATA[start:stop], (start, stop)
    with pytest.raises(LimitExceeded, match="not all stored"):
        sequences.word_bytes(StoredBytes(GAME, FAMILY), 0, 2 * CHUNK_VALUES + 200)


def test_an_objects_first_reads_are_one_read(clean_db: sa.Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a reader by ranges reads first (the size, a header, an index: ranges within its first 64 KiB)
    comes from one read of the database, kept; a range further on is read by itself."""
    store(clean_db, plain=True)
    store_reads: list[tuple[int, int]] = []
    sequences = tables(clean_db)
    ctx = engine_context(sequences)
    read_parts = SequenceStore.read_parts

    def counted(self: SequenceStore, game_id: str, family: str, start: int, stop: int) -> object:
        store_reads.append((start, stop))
        return read_parts(self, game_id, family, start, stop)

    monkeypatch.setattr(SequenceStore, "read_parts", counted)
    assert stored_object_size(GAME, FAMILY, ctx) == len(DATA)
    assert read_stored_range(GAME, FAMILY, ctx, 0, 40) == DATA[:40]
    assert read_stored_range(GAME, FAMILY, ctx, 40, 30000) == DATA[40:30000]
    assert store_reads == [(0, HEAD_WORDS)]
    assert read_stored_range(GAME, FAMILY, ctx, 70000, 90000) == DATA[70000:90000]
    assert store_reads == [(0, HEAD_WORDS), (2 + 70000 // 4, 2 + 90000 // 4)]
    assert sequences.cached_bytes()["chunks"] == 0
    sequences.forget(GAME)
    assert read_stored_range(GAME, FAMILY, ctx, 0, 40) == DATA[:40]
    assert store_reads[-1] == (0, HEAD_WORDS)
    # not verified by a chunk's checksum, a head is kept as long as a header (a table stored again is read
    # again): here not at all
    store_reads.clear()
    unkept = engine_context(SequenceTables(SequenceStore(clean_db), DatabaseGate(), Limits(), header_ttl=0.0))
    for _ in range(2):
        assert read_stored_range(GAME, FAMILY, unkept, 0, 40) == DATA[:40]
    assert store_reads == [(0, HEAD_WORDS)] * 2


def test_chunks_stored_as_before_read_whole_and_are_kept(clean_db: sa.Engine) -> None:
    """Chunks deflated (as every chunk was stored before plain ones) are read whole, verified, and kept."""
    data = (b"deflates well" * len(DATA))[: len(DATA)]
    store(clean_db, plain=False, data=data)
    with clean_db.connect() as conn:
        codecs = conn.execute(sa.text("SELECT codec FROM sequence_chunks ORDER BY chunk_index")).scalars()
        assert list(codecs) == [1, 1, 0]  # the last too short to deflate: stored raw, plain words in fact
    sequences = tables(clean_db)
    ctx = engine_context(sequences)
    for start, stop in RANGES:
        assert read_stored_range(GAME, FAMILY, ctx, start, stop) == data[start:stop], (start, stop)
    assert sequences.cached_bytes()["chunks"] == 4 * 2 * CHUNK_VALUES  # the deflated ones, verified


def test_a_damaged_chunk_is_refused_naming_its_repair(clean_db: sa.Engine) -> None:
    store(clean_db, plain=True)
    with clean_db.begin() as conn:  # a payload cut short
        conn.execute(
            sa.text(
                "UPDATE sequence_chunks SET payload = substring(payload from 1 for 64) "
                "WHERE game_id = :g AND chunk_index = 1"
            ),
            {"g": GAME},
        )
    sequences = tables(clean_db)
    ctx = engine_context(sequences)
    assert read_stored_range(GAME, FAMILY, ctx, 0, 10) == DATA[:10]
    for _ in range(2):  # reported once, then remembered
        with pytest.raises(
            Unavailable, match=r"being repaired: their stored chunk 1 is damaged .*repair job"
        ):
            read_stored_range(GAME, FAMILY, ctx, 4 * CHUNK_VALUES, 4 * CHUNK_VALUES + 8)
    assert corruption_reports(clean_db, GAME) == [(1, False)]
    assert [(index, status) for _, index, status in repair_jobs(clean_db, GAME)] == [(1, "queued")]


@pytest.mark.parametrize("data", [DATA, bytes(len(DATA))], ids=["plain words", "packed"])
def test_several_ranges_are_read_together(
    clean_db: sa.Engine, monkeypatch: pytest.MonkeyPatch, data: bytes
) -> None:
    """`read_stored_ranges` gives each range's bytes as `read_stored_range` does, those not in memory read
    from the database in one statement; ranges in the head or in chunks kept are not read again."""
    store(clean_db, plain=data is DATA, data=data)
    sequences = tables(clean_db)
    ctx = engine_context(sequences)
    statements: list[int] = []
    read_parts_of = SequenceStore.read_parts_of

    def counted(self: SequenceStore, game_id: str, family: str, ranges: list[tuple[int, int]]) -> object:
        statements.append(len(ranges))
        return read_parts_of(self, game_id, family, ranges)

    monkeypatch.setattr(SequenceStore, "read_parts_of", counted)
    far = [(300_000, 300_100), (4 * CHUNK_VALUES - 13, 4 * CHUNK_VALUES + 5), (len(DATA) - 9, len(DATA))]
    asked = [(0, 40), (7, 7), *far]
    assert read_stored_ranges(GAME, FAMILY, ctx, asked) == [data[a:b] for a, b in asked]
    assert statements == [len(far)]  # the head's range from the head, the empty one from nothing
    if data is not DATA:  # packed chunks are read whole, and kept: nothing is read again
        assert sequences.cached_bytes()["chunks"] > 0
        assert read_stored_ranges(GAME, FAMILY, ctx, far) == [data[a:b] for a, b in far]
        assert statements == [len(far)]
    with pytest.raises(ValueError, match="invalid byte range"):
        read_stored_ranges(GAME, FAMILY, ctx, [(5, 4)])
    with pytest.raises(LimitExceeded, match="not all stored"):
        sequences.word_bytes_of(StoredBytes(GAME, FAMILY), [(0, 2), (0, 2 * CHUNK_VALUES + 200)])
