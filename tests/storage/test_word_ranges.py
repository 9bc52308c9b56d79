"""Ranges of stored values read as bytes on a real PostgreSQL (storage.word_ranges): chunks stored as plain
words give a range alone, exactly; chunks stored bit-packed or deflated (as before) still read, whole and
verified; damage a range read can see is refused; a repair keeps a chunk plain; payloads are EXTERNAL."""

from __future__ import annotations

import numpy as np
import pytest
import sqlalchemy as sa
from numpy.typing import NDArray

from storage.errors import CorruptChunk, MissingChunk, NotStored
from storage.jobs import JobQueue
from storage.packing import CHUNK_VALUES, DEFLATE, PLAIN_WIDTH, RAW
from storage.sequences import SequenceStore
from tests.storage.helpers import cut_payload, delete_chunk, flip_byte, store_whole

GAME, FAMILY = "graph:ranges", "heap"
#: Two whole chunks and a partial last one.
SIZE = 2 * CHUNK_VALUES + 777
#: Ranges within a chunk, across a chunk's end, a whole chunk, the partial last chunk's end, everything.
RANGES = [
    (0, 1),
    (5, 9),
    (CHUNK_VALUES - 3, CHUNK_VALUES + 4),
    (CHUNK_VALUES, 2 * CHUNK_VALUES),
    (2 * CHUNK_VALUES + 700, SIZE),
    (0, SIZE),
]


def random_words(seed: int = 1) -> NDArray[np.uint32]:
    """Words as a kind's compressed bytes look: no pattern to pack or deflate."""
    return np.random.default_rng(seed).integers(0, 1 << 32, SIZE, dtype=np.uint32)


def store(engine: sa.Engine, words: NDArray[np.uint32], *, plain: bool) -> SequenceStore:
    """`words` stored whole in one fenced write, as a worker stores an object made whole."""
    return store_whole(engine, GAME, words, plain=plain)


def forms(engine: sa.Engine) -> list[tuple[int, int]]:
    """(width, codec) of every stored chunk, in order."""
    with engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT width, codec FROM sequence_chunks ORDER BY chunk_index")).all()
    return [(int(width), int(codec)) for width, codec in rows]


def read(sequences: SequenceStore, start: int, stop: int) -> bytes:
    return b"".join(part.data for part in sequences.read_parts(GAME, FAMILY, start, stop))


def test_plain_chunks_give_each_range_alone_exactly(clean_db: sa.Engine) -> None:
    words = random_words()
    sequences = store(clean_db, words, plain=True)
    assert forms(clean_db) == [(PLAIN_WIDTH, RAW)] * 3
    for start, stop in RANGES:
        parts = sequences.read_parts(GAME, FAMILY, start, stop)
        assert [part.index for part in parts] == list(
            range(start // CHUNK_VALUES, (stop - 1) // CHUNK_VALUES + 1)
        )
        assert all(part.chunk is None for part in parts), (start, stop)  # no chunk read whole
        assert b"".join(part.data for part in parts) == words[start:stop].astype("<u4").tobytes(), (
            start,
            stop,
        )
    assert sequences.read_parts(GAME, FAMILY, 7, 7) == []
    # whole reads are as before: verified chunks
    assert np.array_equal(sequences.read_prefix(GAME, FAMILY, SIZE), words)


@pytest.mark.parametrize(
    ("values", "form"),
    [
        (np.random.default_rng(0).integers(0, 16, SIZE, dtype=np.uint32), (4, RAW)),  # bit-packed
        ((np.arange(SIZE, dtype=np.uint32) % 3) << 20, (32, DEFLATE)),  # deflated
    ],
)
def test_chunks_stored_as_before_still_read_by_ranges(
    clean_db: sa.Engine, values: NDArray[np.uint32], form: tuple[int, int]
) -> None:
    """A chunk stored bit-packed or deflated (every chunk stored before plain ones) is read whole and
    verified, and given whole beside its part, so that a cache may keep it."""
    sequences = store(clean_db, values, plain=False)
    assert forms(clean_db)[0] == form
    for start, stop in RANGES:
        parts = sequences.read_parts(GAME, FAMILY, start, stop)
        assert b"".join(part.data for part in parts) == values[start:stop].astype("<u4").tobytes()
        for part in parts:
            assert part.chunk is not None
            base = part.index * CHUNK_VALUES
            assert np.array_equal(part.chunk, values[base : base + CHUNK_VALUES])


def test_damage_a_range_read_can_see_is_refused(clean_db: sa.Engine) -> None:
    words = random_words(2)
    sequences = store(clean_db, words, plain=True)
    with pytest.raises(NotStored):
        read(sequences, SIZE - 1, SIZE + 1)
    with pytest.raises(NotStored):
        SequenceStore(clean_db).read_parts("graph:none", FAMILY, 0, 1)
    cut_payload(clean_db, GAME, 1, 400)  # a payload cut short: every range of it is refused, even its first
    with pytest.raises(CorruptChunk, match=r"chunk 1 .* bytes of plain words"):
        read(sequences, CHUNK_VALUES, CHUNK_VALUES + 10)
    with pytest.raises(CorruptChunk, match="chunk 1"):
        read(sequences, CHUNK_VALUES - 10, CHUNK_VALUES + 10)
    assert read(sequences, 0, 10) == words[:10].astype("<u4").tobytes()  # the chunks before still read
    delete_chunk(clean_db, GAME, 2)
    with pytest.raises(MissingChunk):
        read(sequences, 2 * CHUNK_VALUES, 2 * CHUNK_VALUES + 1)


def test_a_flipped_byte_is_a_whole_readers_refusal_and_the_range_readers_to_find(clean_db: sa.Engine) -> None:
    """A range of plain words is not checked against its chunk's checksum (which covers the whole chunk):
    the bytes come as stored, for the reader's own checksum to refuse; a whole read refuses the chunk."""
    words = random_words(3)
    sequences = store(clean_db, words, plain=True)
    flip_byte(clean_db, GAME, 0, 4 * 100)
    damaged = read(sequences, 100, 101)
    assert damaged != words[100:101].astype("<u4").tobytes()
    assert int.from_bytes(damaged, "little") == int(words[100]) ^ 1
    with pytest.raises(CorruptChunk, match="checksum"):
        sequences.read_chunk(GAME, FAMILY, 0)


def test_a_damaged_packed_chunk_is_refused_by_a_range_read(clean_db: sa.Engine) -> None:
    values = np.arange(SIZE, dtype=np.uint32) % 7
    sequences = store(clean_db, values, plain=False)
    flip_byte(clean_db, GAME, 1, 50)
    with pytest.raises(CorruptChunk, match=r"chunk 1 .*checksum"):
        read(sequences, CHUNK_VALUES + 1, CHUNK_VALUES + 2)
    assert read(sequences, 1, 2) == values[1:2].astype("<u4").tobytes()


def test_a_repaired_chunk_stays_plain(clean_db: sa.Engine) -> None:
    words = random_words(4)
    sequences = store(clean_db, words, plain=True)
    flip_byte(clean_db, GAME, 1, 8)
    repair = sequences.report_corruption(GAME, FAMILY, 1, "found by a whole reader")
    claimed = JobQueue(clean_db).claim("w1", 60)
    assert claimed is not None and claimed.id == repair.id
    sequences.rewrite_chunk(
        job_id=repair.id,
        worker_id="w1",
        game_id=GAME,
        family=FAMILY,
        chunk_index=1,
        values=words[CHUNK_VALUES : 2 * CHUNK_VALUES],
    )
    assert forms(clean_db) == [(PLAIN_WIDTH, RAW)] * 3
    assert read(sequences, 0, SIZE) == words.astype("<u4").tobytes()
    assert np.array_equal(sequences.read_prefix(GAME, FAMILY, SIZE), words)


def test_payloads_are_stored_external(clean_db: sa.Engine) -> None:
    """Out of line and never compressed by PostgreSQL (what lets substring read a range's pages alone)."""
    with clean_db.connect() as conn:
        storage = conn.execute(
            sa.text(
                "SELECT attstorage FROM pg_attribute "
                "WHERE attrelid = 'sequence_chunks'::regclass AND attname = 'payload'"
            )
        ).scalar_one()
    assert storage == "e"


@pytest.mark.parametrize("form", ["plain", "packed", "deflated"])
def test_several_ranges_read_together_give_what_each_read_alone_gives(clean_db: sa.Engine, form: str) -> None:
    """`read_parts_of` (one statement) gives each range's parts as `read_parts` gives them alone; a chunk
    read whole is read once and given with every range that needs it."""
    values: NDArray[np.uint32] = {
        "plain": random_words(4),
        "packed": np.random.default_rng(4).integers(0, 16, SIZE, dtype=np.uint32),
        "deflated": ((np.arange(SIZE, dtype=np.uint32) % 5) << 20).astype(np.uint32),
    }[form]
    sequences = store(clean_db, values, plain=form == "plain")
    asked = [*RANGES, (3, 4), *reversed(RANGES)]
    together = sequences.read_parts_of(GAME, FAMILY, asked)
    assert len(together) == len(asked)
    for (start, stop), parts in zip(asked, together, strict=True):
        alone = sequences.read_parts(GAME, FAMILY, start, stop)
        assert [(p.index, p.start, p.stop, p.data) for p in parts] == [
            (p.index, p.start, p.stop, p.data) for p in alone
        ], (start, stop)
        assert b"".join(part.data for part in parts) == values[start:stop].astype("<u4").tobytes()
        for part in parts:
            assert (part.chunk is None) == (form == "plain")
            if part.chunk is not None:
                base = part.index * CHUNK_VALUES
                assert np.array_equal(part.chunk, values[base : base + CHUNK_VALUES])
    assert sequences.read_parts_of(GAME, FAMILY, []) == []


def test_several_ranges_are_refused_as_one_is(clean_db: sa.Engine) -> None:
    """Past the stored values, or with a chunk gone or damaged among them, the whole read is refused as
    the one range would be alone."""
    words = random_words(5)
    sequences = store(clean_db, words, plain=True)
    with pytest.raises(NotStored):
        sequences.read_parts_of(GAME, FAMILY, [(0, 1), (SIZE - 1, SIZE + 1)])
    with pytest.raises(NotStored):
        SequenceStore(clean_db).read_parts_of("graph:none", FAMILY, [(0, 1), (2, 3)])
    with pytest.raises(ValueError, match="invalid range"):
        sequences.read_parts_of(GAME, FAMILY, [(0, 1), (5, 5)])
    cut_payload(clean_db, GAME, 1, 400)
    with pytest.raises(CorruptChunk, match=r"chunk 1 .* bytes of plain words"):
        sequences.read_parts_of(GAME, FAMILY, [(0, 10), (CHUNK_VALUES, CHUNK_VALUES + 10)])
    delete_chunk(clean_db, GAME, 2)
    with pytest.raises(MissingChunk):
        sequences.read_parts_of(GAME, FAMILY, [(0, 10), (2 * CHUNK_VALUES, 2 * CHUNK_VALUES + 1)])
    assert [
        b"".join(p.data for p in parts)
        for parts in sequences.read_parts_of(GAME, FAMILY, [(0, 10), (20, 30)])
    ] == [
        words[0:10].astype("<u4").tobytes(),
        words[20:30].astype("<u4").tobytes(),
    ]
