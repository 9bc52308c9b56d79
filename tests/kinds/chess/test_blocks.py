"""Chess tables stored by blocks (kinds.chess.blocks): every slot of every 3-man material and of a few
4-man ones (every 4-man material with -m slow) probed through the blocked form (format 5, zstd with the
second metric ranked beside DTM; and formats 4, zstd, and 3, deflated, as written before) equals the
values of the table stored whole (count checked); a
probe reads only the blocks it needs; a damaged block is refused, never answered; tables stored whole
before blocks are still served."""

from __future__ import annotations

import random
import zlib
from collections.abc import Sequence

import numpy as np
import pytest
import zstandard

from engine.errors import NimbaseError
from engine.keep import Keeper
from engine.kind import Context
from engine.stored_bytes import encode_words
from kinds.chess import block_codec
from kinds.chess import blocks as chess_blocks
from kinds.chess.blocks import BlockedValues, BlockIndex, DamagedBlock, to_blocks, values_from_bytes
from kinds.chess.format import ChessValues, CorruptTable
from kinds.chess.kind import BLOCKS, TABLE, TABLES, ChessGame
from kinds.chess.material import materials_of, parse_material
from kinds.chess.tables import ChessTable
from tests.engine.contexts import StoredWords, engine_context
from tests.kinds.chess.test_syzygy import Solved

#: 4-man materials checked by default (every one with -m slow): one whose sub-tables have three men.
SOME_FOUR = ("KQvKR",)


#: A format-4 block's first byte when its DTM codes are dense.
DENSE = bytes([block_codec.DENSE])


def blocked(data: bytes, keeper: Keeper | None = None, reads: list[object] | None = None) -> BlockedValues:
    """Stored blocked bytes read as a server reads them: the header, the index, then blocks on demand, one
    by one or several together (each read noted in `reads`: a range, or a list of them)."""

    def read(start: int, stop: int) -> bytes:
        if reads is not None:
            reads.append((start, stop))
        return data[start:stop]

    def read_many(ranges: Sequence[tuple[int, int]]) -> list[bytes]:
        if reads is not None:
            reads.append(list(ranges))
        return [data[start:stop] for start, stop in ranges]

    index = BlockIndex(data[: chess_blocks.HEADER_BYTES], read)
    key = ("test", id(data))
    return BlockedValues(index, read, keeper or Keeper(64 << 20), key, "a test table", read_many)


def check_every_slot(
    values: ChessValues, shift: int = chess_blocks.BLOCK_SHIFT, one_by_one: bool = False, version: int = 5
) -> int:
    """Probe every slot of `values` through its blocked form (in a shuffled order, so that blocks are
    left and come back) against the table stored whole and read back; the slots checked."""
    old = ChessValues.from_bytes(values.to_bytes())
    new = blocked(to_blocks(values, shift, version), Keeper(4 << 20))
    assert new.index.version == version
    n = len(values)
    assert len(new) == n == len(old)
    order = np.random.default_rng(n).permutation(n).astype(np.int64)
    checked = 0
    for at in range(0, n, 1 << 16):
        slots = order[at : at + (1 << 16)]
        dtm, dtz = new.lookup_slots(slots)
        assert np.array_equal(dtm, old.dtm[slots]) and np.array_equal(dtz, old.dtz[slots])
        checked += len(slots)
    if one_by_one:
        for slot in order.tolist():
            assert new.lookup(slot) == old.lookup(slot)
    whole = new.whole()
    assert np.array_equal(whole.dtm, old.dtm) and np.array_equal(whole.dtz, old.dtz)
    return checked


@pytest.mark.parametrize("version", [3, 4, 5])
@pytest.mark.parametrize("delta", [False, True])
@pytest.mark.parametrize("slots", [0, 1, 7, 1000, 1024, 4099])
def test_random_values_read_back_by_blocks(delta: bool, slots: int, version: int) -> None:
    """Any int16 values read back exactly, DTM values or not (a block with a value outside DTM's
    encoding is written in zigzag codes)."""
    rng = np.random.default_rng(slots)
    dtm = rng.integers(-32768, 32767, slots).astype(np.int16)
    dtz = rng.integers(-32768, 32767, slots).astype(np.int16)
    values = ChessValues(dtm, dtz, delta)
    assert check_every_slot(values, shift=10, one_by_one=True, version=version) == slots
    again = values_from_bytes(to_blocks(values, 10, version))
    assert np.array_equal(again.dtm, dtm) and np.array_equal(again.dtz, dtz) and again.delta == delta


def dtm_values(count: int, seed: int) -> np.ndarray:
    """Values of DTM's encoding: draws, wins in odd plies, losses in even plies (-(d + 1))."""
    rng = np.random.default_rng(seed)
    d = rng.integers(0, 16000, count)
    kind = rng.integers(0, 3, count)
    return np.where(kind == 0, 0, np.where(kind == 1, 2 * d + 1, -(2 * d + 1))).astype(np.int16)


def forms(data: bytes) -> list[int]:
    """The form byte of each block of stored blocked bytes."""
    index = blocked(data).index
    return [data[index.base + int(index.offsets[b])] for b in range(index.blocks)]


def test_the_blocks_a_lookup_of_many_slots_misses_are_read_together() -> None:
    """`lookup_slots` reads the blocks it misses in one read of several ranges (one round trip to the
    database), keeps them, and refuses a damaged one among them."""
    values = ChessValues(dtm_values(8000, 3), dtm_values(8000, 4), False)
    data = to_blocks(values, 10, 5)
    reads: list[object] = []
    table = blocked(data, Keeper(4 << 20), reads)
    reads.clear()  # the index's read
    slots = np.array([5, 1030, 3000, 1031, 7999, 4], dtype=np.int64)  # blocks 0, 1, 2 and 7
    dtm, dtz = table.lookup_slots(slots)
    assert np.array_equal(dtm, values.dtm[slots]) and np.array_equal(dtz, values.dtz[slots])
    assert len(reads) == 1 and isinstance(reads[0], list) and len(reads[0]) == 4
    again = np.array([6, 7998], dtype=np.int64)
    assert np.array_equal(table.lookup_slots(again)[0], values.dtm[again]) and len(reads) == 1  # kept
    assert np.array_equal(table.lookup_slots(np.array([6000], np.int64))[1], values.dtz[[6000]])
    assert reads[1:] == [table._span(5)]  # one block missed: read alone
    damaged = bytearray(data)
    damaged[table._span(3)[0] + 2] ^= 0xFF
    broken = blocked(bytes(damaged), Keeper(4 << 20))
    with pytest.raises(DamagedBlock, match="block 3"):
        broken.lookup_slots(np.array([10, 3100, 7000], dtype=np.int64))


@pytest.mark.parametrize("version", [4, 5])
def test_dtm_values_are_written_densely_and_read_back(version: int) -> None:
    dtm, dtz = dtm_values(5000, 1), dtm_values(5000, 2)
    dtm[:3] = [32767, -32767, 0]  # the extremes of the encoding
    data = to_blocks(ChessValues(dtm, dtz, True), 10, version)
    assert {form & block_codec.DENSE for form in forms(data)} == {block_codec.DENSE}
    assert check_every_slot(ChessValues(dtm, dtz, True), 10, True, version) == 5000
    dtm[4000] = 2  # a win in an even count of plies: no DTM value, its block (3) in zigzag codes
    data = to_blocks(ChessValues(dtm, dtz, True), 10, version)
    dense = [form & block_codec.DENSE for form in forms(data)]
    assert dense == [block_codec.DENSE] * 3 + [block_codec.ZIGZAG] + [block_codec.DENSE]
    assert check_every_slot(ChessValues(dtm, dtz, True), 10, True, version) == 5000


@pytest.mark.parametrize("version", [3, 4, 5])
def test_every_three_man_slot(tablebase: dict[str, ChessTable], version: int) -> None:
    materials = [m for m in materials_of(3) if m.men == 3]
    assert {m.name for m in materials} <= tablebase.keys()
    for material in materials:
        values = tablebase[material.name].packed
        assert check_every_slot(values, one_by_one=True, version=version) == material.slots


def test_format_four_is_smaller(tablebase: dict[str, ChessTable]) -> None:
    """The stored bytes of each 3-man table by zstd and dense DTM codes are fewer than deflate's."""
    for name in ("KQvK", "KRvK", "KPvK"):
        values = tablebase[name].packed
        assert len(to_blocks(values, version=4)) < len(to_blocks(values, version=3))


def test_format_five_is_smaller(tablebase: dict[str, ChessTable]) -> None:
    """Ranking the second metric beside DTM takes bytes off a 3-man table with pawns (KPvK's blocks are
    all written ranked and swapped)."""
    values = tablebase["KPvK"].packed
    data = to_blocks(values)
    assert len(data) < len(to_blocks(values, version=4))
    assert set(forms(data)) == {block_codec.DENSE | block_codec.RANKED | block_codec.SWAPPED}
    # No block of KQvK is written ranked: its ranks are not stored.
    ranks = blocked(to_blocks(tablebase["KQvK"].packed)).index.ranks
    assert ranks is not None and len(ranks.seconds) == 0


@pytest.fixture(scope="module")
def solved() -> Solved:
    return Solved()


@pytest.mark.parametrize("name", SOME_FOUR)
def test_every_slot_of_some_four_man_materials(solved: Solved, name: str) -> None:
    table = solved.table(name)
    assert check_every_slot(table.packed) == table.material.slots
    # Its blocks take each form format 5 chooses from: ranked or not, swapped or not.
    found = set(forms(to_blocks(table.packed)))
    assert {form & block_codec.RANKED for form in found} == {0, block_codec.RANKED}
    assert {form & block_codec.SWAPPED for form in found} == {0, block_codec.SWAPPED}


@pytest.mark.slow
@pytest.mark.timeout(3600)  # every 4-man table solved first where none is kept on disk
def test_every_four_man_slot(solved: Solved) -> None:
    checked = 0
    four = [m for m in materials_of(4) if m.men == 4]
    for material in four:
        checked += check_every_slot(solved.table(material.name).packed)
    assert checked == sum(m.slots for m in four)


def test_a_damaged_block_is_refused_never_answered(
    tablebase: dict[str, ChessTable], caplog: pytest.LogCaptureFixture
) -> None:
    values = tablebase["KRvK"].packed
    data = bytearray(to_blocks(values))
    index = BlockIndex(bytes(data[: chess_blocks.HEADER_BYTES]), lambda a, b: bytes(data[a:b]))
    start, stop = int(index.offsets[1]), int(index.offsets[2])
    data[index.base + (start + stop) // 2] ^= 0x40  # block 1 damaged
    table = blocked(bytes(data))
    assert table.lookup(5) == values.lookup(5)  # block 0 reads
    slot = (1 << chess_blocks.BLOCK_SHIFT) + 3
    with pytest.raises(DamagedBlock, match="block 1 of a test table fails its checksum") as raised:
        table.lookup(slot)
    assert isinstance(raised.value, NimbaseError) and raised.value.code == "UNAVAILABLE"
    assert "block 1 of a test table fails its checksum" in caplog.text  # reported
    with pytest.raises(DamagedBlock):
        table.lookup(slot)  # never kept: refused again
    with pytest.raises(DamagedBlock):
        values_from_bytes(bytes(data))
    # A damaged index or header: not a table (the service reads it as not stored).
    for where in (chess_blocks.HEADER_BYTES - 2, chess_blocks.HEADER_BYTES + 3, index.base - 3):
        broken = bytearray(to_blocks(values))  # the ranks' length, the ranks, the index
        broken[where] ^= 1
        with pytest.raises(CorruptTable, match="index"):
            blocked(bytes(broken))
    with pytest.raises(CorruptTable):
        blocked(b"NBCHBLK" + bytes(40))


@pytest.mark.parametrize(
    ("version", "bad", "why"),
    [
        (3, zlib.compress(bytes(10)), "holds 10 bytes, not 4096"),
        (3, b"not deflated", "does not inflate"),
        (4, DENSE + zstandard.ZstdCompressor().compress(bytes(10)), "holds 10 bytes"),
        (4, DENSE + zstandard.ZstdCompressor().compress(bytes(5000)), "holds 5000 bytes"),
        (4, DENSE + b"not zstd", "does not inflate"),
        (4, bytes([7]) + zstandard.ZstdCompressor().compress(bytes(4096)), "has no known form"),
        (4, b"", "has no known form"),
        (5, DENSE + zstandard.ZstdCompressor().compress(bytes(10)), "holds 10 bytes"),
        (5, DENSE + b"not zstd", "does not inflate"),
        (5, bytes([8]) + zstandard.ZstdCompressor().compress(bytes(4096)), "has no known form"),
        (5, b"", "has no known form"),
        # A block of 1,024 slots is no whole 64 x 64 squares: it is never written swapped.
        (5, bytes([3]) + zstandard.ZstdCompressor().compress(bytes(4096)), "has no known form"),
        # DTM 0 (dense code 0) pairs with one second value only: its rank 1 names none.
        (
            5,
            bytes([5]) + zstandard.ZstdCompressor().compress(bytes(2048) + b"\x01" * 1024 + bytes(1024)),
            "a rank past",
        ),
        # A dense DTM code (999: a loss) the table does not hold.
        (
            5,
            bytes([5]) + zstandard.ZstdCompressor().compress(b"\xe7" * 1024 + b"\x03" * 1024 + bytes(2048)),
            "a DTM value",
        ),
    ],
)
def test_a_block_whose_bytes_check_but_do_not_decode_is_refused(version: int, bad: bytes, why: str) -> None:
    """Bytes that pass the block's checksum (made to match) but are no block of its slots: refused."""
    # Wins in scattered odd plies, DTZ a function of DTM (so that format 5 ranks it), the first block draws.
    dtm = (np.random.default_rng(7).integers(0, 50, 3000) * 2 + 1).astype(np.int16)
    dtm[:1024] = 0
    values = ChessValues(dtm, (dtm - dtm * 7 % 13).astype(np.int16))
    data = to_blocks(values, 10, version)
    assert version != 5 or block_codec.RANKED & forms(data)[1]
    index = BlockIndex(data[: chess_blocks.HEADER_BYTES], lambda a, b: data[a:b])
    index.crcs[0] = zlib.crc32(bad)
    with pytest.raises(DamagedBlock, match=f"block 0 of t {why}"):
        index.decode(0, bad, "t")


def served(tables: dict[str, ChessTable], form: str) -> tuple[StoredWords, Context]:
    """A context whose storage holds `tables` in `form` ("blocks", or "whole" as before blocks)."""
    stored = StoredWords()
    for table in tables.values():
        data = to_blocks(table.packed) if form == "blocks" else table.packed.to_bytes()
        stored.words[(table.material.game_id, TABLE)] = encode_words(data)
    return stored, engine_context(stored)


@pytest.mark.parametrize("form", ["blocks", "whole"])
def test_the_kind_serves_either_stored_form(tablebase: dict[str, ChessTable], form: str) -> None:
    """Tables stored by blocks and tables stored whole before blocks answer alike, from storage; a
    blocked table keeps only its index as a table, its blocks in the block keeper, and a probe reads the
    block it needs."""
    _, ctx = served(tablebase, form)
    krk = tablebase["KRvK"]
    game = ChessGame(parse_material("KRvK"))
    rng = random.Random(4)
    valid = np.flatnonzero(
        np.array([krk.board_of_slot(s) is not None for s in range(0, krk.material.slots, 97)])
    )
    for k in rng.sample(list(valid), 20):
        board = krk.board_of_slot(97 * int(k))
        assert board is not None
        value = game.value(board, ctx)
        assert (value.outcome, value.remoteness, value.source) == (
            krk.value(board).outcome,
            krk.value(board).remoteness,
            "table",
        )
        best = game.best_moves(board, None, ctx)
        assert {m.move: (m.value.outcome, m.value.remoteness) for m in best.moves} == {
            m.move: (m.value.outcome, m.value.remoteness) for m in krk.moves(board)
        }
    blocks = ctx.kept.keeper(BLOCKS)
    if form == "blocks":
        read = 4 * (krk.material.slots + tablebase["KvK"].material.slots)  # its captures lead into KvK
        assert 0 < blocks.kept_bytes <= read
        kept = ctx.kept.keeper(TABLES).peek(("chess", "KRvK"))
        assert kept is not None and kept.weight < 1024  # the index alone
    else:
        assert blocks.kept_bytes == 0
    assert game.stats(ctx)["positions"] == krk.stats()["positions"]


def test_a_probe_reads_only_its_block(tablebase: dict[str, ChessTable]) -> None:
    """One GetValue on a stored blocked table reads the object's size, the header, the index and one
    block's range (each one read of the stored words), not the table."""
    stored, ctx = served(tablebase, "blocks")
    game = ChessGame(parse_material("KRvK"))
    game.value(game.parse("8/8/8/8/8/2k5/8/KR6 w - - 0 1"), ctx)
    assert stored.ranges_read == 4
    game.value(game.parse("8/8/8/8/8/2k5/8/KR6 w - - 0 1"), ctx)
    assert stored.ranges_read == 4  # the block is kept
