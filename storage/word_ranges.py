"""Ranges of stored values read as bytes, without the rest of their chunks where the chunks allow it.

An object stored whole as words (engine.stored_bytes) may be far larger than what one use of it needs: a
table read by blocks of a few kilobytes out of chunks of 256 KiB. A chunk stored as plain words
(storage.packing.encode_plain) holds value i at bytes 4i..4i+4 of its payload, so the database gives
the range alone (SQL substring; with the payload column stored EXTERNAL, uncompressed, PostgreSQL reads
only the TOAST pages that hold it). Such a part cannot be checked against its chunk's checksum, which
covers the whole payload: what is checked is its shape (the chunk's row is there, holds every stored
value of its range, and is as long as plain words of them), and the caller checks what it reads by
checksums of its own (a kind's blocks carry their CRC). A chunk stored otherwise (bit-packed, deflated:
an older table, a sequence) is read whole and verified, as `SequenceStore.read_range` reads it, and
given whole too, so that the caller may keep it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sqlalchemy as sa
from numpy.typing import NDArray

from storage.errors import CorruptChunk, InvalidPayload, MissingChunk, NotStored
from storage.packing import CHUNK_VALUES, PLAIN_WIDTH, RAW, checksum, decode, is_plain
from storage.schema import sequence_chunks, sequences


@dataclass(frozen=True, slots=True)
class WordsPart:
    """What one chunk gives of a range: `data`, the values start..stop (absolute indices) of the range
    in this chunk as little-endian uint32 bytes; `chunk`, its whole values, verified, where it was not
    stored as plain words and had to be read whole (None where only the range was read)."""

    index: int
    start: int
    stop: int
    data: bytes
    chunk: NDArray[np.uint32] | None


def _statement() -> sa.Select[Any]:
    """The header and the chunks holding values :start..:stop in one statement (one snapshot): of a plain
    chunk only the bytes of the range, of any other its whole payload. Made once, its values bound at
    each read: building a statement costs more than running this one."""
    c = sequence_chunks.c
    start, stop = sa.bindparam("start", type_=sa.BigInteger), sa.bindparam("stop", type_=sa.BigInteger)
    base = c.chunk_index * CHUNK_VALUES
    lo = sa.func.greatest(start - base, 0)
    hi = sa.func.least(stop - base, CHUNK_VALUES)
    part = sa.func.substring(c.payload, sa.cast(lo * 4 + 1, sa.Integer), sa.cast((hi - lo) * 4, sa.Integer))
    data = sa.case((sa.and_(c.codec == RAW, c.width == PLAIN_WIDTH), part), else_=c.payload)
    chunks = sa.and_(
        c.game_id == sequences.c.game_id,
        c.family == sequences.c.family,
        c.chunk_index.between(
            sa.bindparam("first", type_=sa.BigInteger), sa.bindparam("last", type_=sa.BigInteger)
        ),
    )
    return (
        sa.select(
            sequences.c.computed_upto.label("stored"),
            c.chunk_index,
            c.count.label("held"),  # not `count`: a row's tuple method
            c.width,
            c.codec,
            c.checksum,
            sa.func.octet_length(c.payload).label("size"),
            sa.type_coerce(data, sa.LargeBinary).label("data"),
        )
        .select_from(sequences.outerjoin(sequence_chunks, chunks))
        .where(sequences.c.game_id == sa.bindparam("game_id"), sequences.c.family == sa.bindparam("family"))
        .order_by(c.chunk_index)
    )


_RANGE = _statement()


def _ranges_statement() -> sa.TextClause:
    """The header and, for each range `n` of the arrays :starts and :stops, the chunks holding its values,
    in one statement: of a plain chunk only the bytes of the range, of any other its whole payload, given
    once (with the first range that needs it; NULL with the others, which take it from that one). Written
    as text: the chunks are found by their index range (integer division, so the primary key's range
    scan), and a payload is read only where it is given."""
    chunks, heads = sequence_chunks.name, sequences.name
    return sa.text(
        f"""
        WITH asked AS (
            SELECT * FROM unnest(CAST(:ns AS bigint[]), CAST(:starts AS bigint[]), CAST(:stops AS bigint[]))
                AS a(n, start, stop)
        )
        SELECT asked.n, s.computed_upto AS stored, c.chunk_index, c.count AS held, c.width, c.codec,
            c.checksum, octet_length(c.payload) AS size,
            CASE
                WHEN c.codec = :raw AND c.width = :plain THEN substring(
                    c.payload
                    FROM CAST(greatest(asked.start - c.chunk_index * :chunk, 0) * 4 + 1 AS integer)
                    FOR CAST((least(asked.stop - c.chunk_index * :chunk, :chunk)
                        - greatest(asked.start - c.chunk_index * :chunk, 0)) * 4 AS integer))
                WHEN asked.n = (
                    SELECT min(o.n) FROM asked o
                    WHERE c.chunk_index BETWEEN o.start / :chunk AND (o.stop - 1) / :chunk
                ) THEN c.payload
            END AS data
        FROM asked CROSS JOIN {heads} s
        LEFT JOIN {chunks} c ON c.game_id = s.game_id AND c.family = s.family
            AND c.chunk_index BETWEEN asked.start / :chunk AND (asked.stop - 1) / :chunk
        WHERE s.game_id = :game_id AND s.family = :family
        ORDER BY asked.n, c.chunk_index
        """
    ).bindparams(
        sa.bindparam("raw", RAW, type_=sa.SmallInteger),
        sa.bindparam("plain", PLAIN_WIDTH, type_=sa.SmallInteger),
        sa.bindparam("chunk", CHUNK_VALUES, type_=sa.BigInteger),
    )


_RANGES = _ranges_statement()


def read_word_parts(conn: sa.Connection, game_id: str, family: str, start: int, stop: int) -> list[WordsPart]:
    """The parts of values start..stop (start < stop), chunk by chunk, in order. NotStored beyond the
    stored prefix; CorruptChunk for a chunk that fails its checks (MissingChunk when its row is gone)."""
    bound = {"game_id": game_id, "family": family, "start": start, "stop": stop}
    first, last = start // CHUNK_VALUES, (stop - 1) // CHUNK_VALUES
    rows = conn.execute(_RANGE, {**bound, "first": first, "last": last}).all()
    stored = 0 if not rows else int(rows[0].stored)
    return _walk(game_id, family, rows, start, stop, stored, {})


def read_word_ranges(
    conn: sa.Connection, game_id: str, family: str, ranges: Sequence[tuple[int, int]]
) -> list[list[WordsPart]]:
    """`read_word_parts` of each range (start < stop) of `ranges`, in one statement: a reader that needs
    several ranges of one object at once (a position's moves reaching several blocks of one table) pays
    one round trip to the database, not one a range. A chunk read whole is read once for all."""
    if not ranges:
        return []
    bound = {
        "game_id": game_id,
        "family": family,
        "ns": list(range(len(ranges))),
        "starts": [start for start, _ in ranges],
        "stops": [stop for _, stop in ranges],
    }
    rows = conn.execute(_RANGES, bound).all()
    stored = 0 if not rows else int(rows[0].stored)
    by_range: list[list[sa.Row[Any]]] = [[] for _ in ranges]
    for row in rows:
        by_range[int(row.n)].append(row)
    whole: dict[int, NDArray[np.uint32]] = {}
    return [
        _walk(game_id, family, found, start, stop, stored, whole)
        for found, (start, stop) in zip(by_range, ranges, strict=True)
    ]


def _walk(
    game_id: str,
    family: str,
    rows: Sequence[sa.Row[Any]],
    start: int,
    stop: int,
    stored: int,
    whole: dict[int, NDArray[np.uint32]],
) -> list[WordsPart]:
    """The parts of start..stop from its chunks' `rows` (in order), each checked; `whole` holds the chunks
    read whole so far (by index), for rows that name one without its payload."""
    parts: list[WordsPart] = []
    covered = start
    for row in rows:
        if row.chunk_index is None:
            break
        index = int(row.chunk_index)
        base = index * CHUNK_VALUES
        if base > covered:
            break
        end = min(stop, base + CHUNK_VALUES)
        if row.data is None:  # a chunk read whole, given with an earlier range
            values = whole[index]
            hi = min(end, base + len(values))
            part = WordsPart(
                index, covered, hi, values[covered - base : hi - base].astype("<u4").tobytes(), values
            )
        else:
            part = _part(game_id, family, row, covered, end, stored)
            if part.chunk is not None:
                whole[index] = part.chunk
        parts.append(part)
        covered = part.stop
        if covered < end:
            break
    if covered < stop:
        if covered < stored:
            raise MissingChunk(game_id, family, covered // CHUNK_VALUES, stored)
        raise NotStored(game_id, family, start, stop, stored)
    return parts


def _part(game_id: str, family: str, row: sa.Row[Any], start: int, stop: int, stored: int) -> WordsPart:
    """One chunk's part of the range (start..stop within it), checked."""
    index, count, width, codec = int(row.chunk_index), int(row.held), int(row.width), int(row.codec)
    base = index * CHUNK_VALUES
    expected = min(CHUNK_VALUES, stored - base)
    if count < expected:
        raise CorruptChunk(
            game_id, family, index, f"it holds {count} values, though values 0..{stored} are stored"
        )
    data = bytes(row.data)
    if is_plain(width, codec):
        if int(row.size) != 4 * count:
            raise CorruptChunk(game_id, family, index, f"{row.size} bytes of plain words for {count} values")
        stop = min(stop, base + count)
        if len(data) != 4 * (stop - start):
            raise CorruptChunk(game_id, family, index, f"{len(data)} bytes read for values {start}..{stop}")
        return WordsPart(index, start, stop, data, None)
    if checksum(game_id, family, index, count, width, data, codec) != int(row.checksum):
        raise CorruptChunk(game_id, family, index)
    try:
        values = decode(width, codec, count, data)
    except InvalidPayload as exc:
        raise CorruptChunk(game_id, family, index, str(exc)) from exc
    stop = min(stop, base + len(values))
    return WordsPart(index, start, stop, values[start - base : stop - base].astype("<u4").tobytes(), values)
