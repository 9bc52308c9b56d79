"""A chess table's one side to move rebuilt from the other's values by a one-ply search (kinds.chess.sides,
kinds.chess.kernels.oneply): every slot of every 3-man material and of some 4-man ones (every 4-man
material with -m slow), either side rebuilt, equals the solver's arrays; positions sampled from them
equal the plain reference (tests.kinds.chess.rules' `expected`: python-chess's moves, the children
looked up board by board). Block format 6 (one side stored, kinds.chess.blocks) reads back, refuses a
damaged block, and is served: a position of the side not stored searched one ply."""

from __future__ import annotations

import random

import chess
import numpy as np
import pytest

from engine.keep import Keeper
from engine.kind import Context
from engine.precompute import StoredName
from engine.stored_bytes import encode_words
from kinds.chess import blocks as chess_blocks
from kinds.chess.blocks import (
    HEADER_BYTES,
    BlockedValues,
    BlockIndex,
    DamagedBlock,
    NotStored,
    SubTablesNeeded,
    WholeTables,
    needed,
    to_blocks,
    to_side_blocks,
    values_from_bytes,
)
from kinds.chess.format import ChessValues, CorruptTable
from kinds.chess.kind import BLOCKS, TABLE, TABLES, ChessGame, TableKernel
from kinds.chess.material import Material, materials_of, parse_material
from kinds.chess.records import ChessValue
from kinds.chess.sides import compact, compact_slots, half, one_side, rebuild, side_of, with_side
from kinds.chess.solve import solve_material
from kinds.chess.tables import ChessTable, board_squares
from tests.engine.contexts import StoredWords, engine_context
from tests.kinds.chess import rules
from tests.kinds.chess.test_syzygy import Solved

#: 4-man materials rebuilt by default (every one with -m slow, pawns and en passant among them; pawn
#: tables' sides are rebuilt by default in the job test below, from their 3-man sub-tables).
SOME_FOUR = ("KQvKR",)
#: The heavier 4-man cases, run with -m slow (a solve of each, tens of seconds: make test's time).
SLOW = pytest.mark.slow


class Whole(dict[str, ChessValues]):
    """The whole sub-tables a rebuild reads, from the tables at hand."""

    def __init__(self, tables: dict[str, ChessTable]) -> None:
        super().__init__()
        self.tables = tables

    def __missing__(self, name: str) -> ChessValues:
        return self.tables[name].packed


def check_sides(tables: dict[str, ChessTable], name: str, samples: int) -> None:
    """Either side of `name`'s table rebuilt from the other equals the solver's arrays (every slot);
    `samples` positions of each side equal the plain reference's values."""
    table = tables[name]
    material, values = table.material, table.packed
    rng = np.random.default_rng(len(name))
    for side in (0, 1):
        alone = one_side(values, material.spec, side)
        assert len(alone) == len(values) // 2
        again = with_side(alone, material.spec, side)
        rebuilt = rebuild(material, alone, side, Whole(tables))
        assert np.array_equal(rebuilt.dtm, values.dtm), (name, side)
        assert np.array_equal(rebuilt.dtz, values.dtz), (name, side)
        assert rebuilt.delta == values.delta
        # the sampled positions of the side rebuilt, by the plain reference
        other = [s for s in rng.permutation(len(values)).tolist() if side_of(material.spec, s) != side]
        checked = 0
        for slot in other:
            board = table.board_of_slot(slot)
            if board is None:
                continue
            assert again.lookup(slot) == (0, 0)
            assert rebuilt.lookup(slot) == rules.expected(board, lambda child: table.encoded(child)), (
                board.fen()
            )
            checked += 1
            if checked == samples:
                break
        assert checked == samples


def test_slots_of_one_side() -> None:
    """Side A's half of each slice, then side B's: a side's values in slot order."""
    material = parse_material("KPvK")
    spec, h = material.spec, half(material.spec)
    assert h == 4096 and material.slots == 24 * 2 * h
    assert [side_of(spec, s) for s in (0, h - 1, h, 2 * h - 1, 2 * h, 5 * h)] == [0, 0, 1, 1, 0, 1]
    assert [compact(spec, s) for s in (0, h - 1, h + 3, 2 * h, 3 * h + 5)] == [0, h - 1, 3, h, h + 5]
    slots = np.array([0, h + 3, 3 * h + 5], dtype=np.int64)
    assert compact_slots(spec, slots).tolist() == [0, 3, h + 5]
    values = ChessValues(np.arange(material.slots, dtype=np.int16), np.zeros(material.slots, np.int16))
    b = one_side(values, spec, 1)
    assert b.dtm[:3].tolist() == [h, h + 1, h + 2] and b.dtm[h] == 3 * h


@pytest.mark.parametrize("name", [m.name for m in materials_of(3) if m.men == 3])
def test_every_three_man_side_is_rebuilt(tablebase: dict[str, ChessTable], name: str) -> None:
    check_sides(tablebase, name, 300)


@pytest.fixture(scope="module")
def solved() -> Solved:
    return Solved()


def _four(solved: Solved, name: str) -> None:
    table = solved.table(name)
    check_sides(solved.tables, table.material.name, 100)


@pytest.mark.parametrize("name", SOME_FOUR)
def test_some_four_man_sides_are_rebuilt(solved: Solved, name: str) -> None:
    _four(solved, name)


@pytest.mark.slow
@pytest.mark.timeout(3600)
@pytest.mark.parametrize("name", [m.name for m in materials_of(4) if m.men == 4 and m.name not in SOME_FOUR])
def test_every_four_man_side_is_rebuilt(solved: Solved, name: str) -> None:
    _four(solved, name)


# -- block format 6: one side to move stored ----------------------------------------------------------


def blocked(data: bytes, keeper: Keeper | None = None) -> BlockedValues:
    """Stored blocked bytes read as a server reads them: the header, the index, then blocks on demand."""

    def read(start: int, stop: int) -> bytes:
        return data[start:stop]

    index = BlockIndex(data[:HEADER_BYTES], read)
    return BlockedValues(index, read, keeper or Keeper(64 << 20), ("test", id(data)), "a test table")


def check_format_six(tables: dict[str, ChessTable], name: str) -> None:
    """Either side stored in format 6 reads back: the side stored slot by slot, the whole table rebuilt,
    in fewer bytes than format 5 (the smaller side chosen when none is named)."""
    table = tables[name]
    material, values = table.material, table.packed
    subs = Whole(tables)
    both = len(to_blocks(values))
    sizes = []
    for side in (0, 1):
        data = to_side_blocks(values, material, side)
        sizes.append(len(data))
        read = blocked(data)
        assert (read.index.version, read.side, read.index.material) == (6, side, material)
        assert len(read) == len(values) == 2 * read.index.slots
        slots = np.arange(len(values), dtype=np.int64)
        held = slots[np.array([read.holds(s) for s in slots.tolist()])]
        assert len(held) == len(values) // 2 and all(
            side_of(material.spec, s) == side for s in held[:50].tolist()
        )
        dtm, dtz = read.lookup_slots(held)
        assert np.array_equal(dtm, values.dtm[held]) and np.array_equal(dtz, values.dtz[held])
        for slot in held[:: max(1, len(held) // 500)].tolist():
            assert read.lookup(slot) == values.lookup(slot)
        with pytest.raises(NotStored):
            read.lookup(int(slots[~np.isin(slots, held)][0]))
        with pytest.raises(SubTablesNeeded):
            read.whole()
        for whole in (read.whole(subs), values_from_bytes(data, subs)):
            assert np.array_equal(whole.dtm, values.dtm) and np.array_equal(whole.dtz, values.dtz)
            assert whole.delta == values.delta
    assert max(sizes) < both
    assert len(to_side_blocks(values, material)) == min(sizes)


@pytest.mark.parametrize("name", [m.name for m in materials_of(3) if m.men == 3])
def test_format_six_reads_back_every_three_man_table(tablebase: dict[str, ChessTable], name: str) -> None:
    check_format_six(tablebase, name)


@pytest.mark.parametrize("name", ["KQvKR", pytest.param("KRvKP", marks=SLOW)])
def test_format_six_reads_back_four_man_tables(solved: Solved, name: str) -> None:
    solved.table(name)
    check_format_six(solved.tables, name)


def test_a_damaged_block_of_format_six_is_refused(tablebase: dict[str, ChessTable]) -> None:
    values = tablebase["KRvK"].packed
    material = tablebase["KRvK"].material
    data = bytearray(to_side_blocks(values, material, 1))
    index = BlockIndex(bytes(data[:HEADER_BYTES]), lambda a, b: bytes(data[a:b]))
    start, stop = int(index.offsets[0]), int(index.offsets[1])
    data[index.base + (start + stop) // 2] ^= 0x40  # block 0 damaged
    table = blocked(bytes(data))
    slot = half(material.spec) + 5  # side B's first slots: block 0
    with pytest.raises(DamagedBlock, match="block 0 of a test table fails its checksum"):
        table.lookup(slot)
    with pytest.raises(DamagedBlock):
        values_from_bytes(bytes(data), Whole(tablebase))
    # A damaged side or material: not a table.
    for where, why in (
        (chess_blocks._HEADER.size, "index"),
        (chess_blocks._HEADER.size + 1, "material|index"),
    ):
        broken = bytearray(to_side_blocks(values, material, 1))
        broken[where] ^= 1
        with pytest.raises(CorruptTable, match=why):
            blocked(bytes(broken))


def served(tables: dict[str, ChessTable]) -> tuple[StoredWords, Context]:
    """A context whose storage holds `tables` in format 6 (each its smaller side)."""
    stored = StoredWords()
    for table in tables.values():
        data = to_side_blocks(table.packed, table.material)
        stored.words[(table.material.game_id, TABLE)] = encode_words(data)
    return stored, engine_context(stored)


@pytest.mark.parametrize("name", ["KRvK", "KPvK"])
def test_the_kind_serves_tables_of_one_side(tablebase: dict[str, ChessTable], name: str) -> None:
    """GetValue and BestMove of positions of either side to move from tables storing one side answer as
    the table in memory; a position of the side not stored reads only the blocks its children need."""
    _, ctx = served(tablebase)
    table = tablebase[name]
    game = ChessGame(table.material)
    stored_side = blocked(to_side_blocks(table.packed, table.material)).side
    rng = random.Random(name)
    sides = set()
    for slot in rng.sample(range(table.material.slots), 400):
        board = table.board_of_slot(slot)
        if board is None:
            continue
        sides.add(side_of(table.material.spec, slot))
        value = game.value(board, ctx)
        expected = table.value(board)
        assert (value.outcome, value.remoteness) == (expected.outcome, expected.remoteness), board.fen()
        assert isinstance(value.kind, ChessValue) and table.probe(board).dtz == value.kind.dtz
        if len(sides) == 2 and rng.random() < 0.1:
            best = game.best_moves(board, None, ctx)
            assert {m.move: (m.value.outcome, m.value.remoteness) for m in best.moves} == {
                m.move: (m.value.outcome, m.value.remoteness) for m in table.moves(board)
            }
    assert sides == {0, 1} and stored_side in sides
    # One position of the side not stored, in a fresh process: the blocks of its children alone.
    _, fresh = served(tablebase)
    other = next(
        b
        for s in range(table.material.slots)
        if side_of(table.material.spec, s) != stored_side and (b := table.board_of_slot(s)) is not None
    )
    assert game.value(other, fresh).remoteness == table.value(other).remoteness
    # its own side's blocks its children fall in, and its captures' and promotions' tables' (a block each)
    assert 0 < fresh.kept.keeper(BLOCKS).kept_bytes <= 4 * chess_blocks.BLOCK_SLOTS * 6
    kept = fresh.kept.keeper(TABLES).peek(("chess", name))
    assert kept is not None and kept.weight < 4096  # the index alone
    assert game.stats(fresh)["positions"] == table.stats()["positions"]  # rebuilt whole from storage


#: Positions of the side not stored probed one by one per table (`check_stored_form`).
SEARCHED = 300


def check_stored_form(
    material: Material, values: ChessValues, data: bytes, tables: WholeTables, others: dict[str, ChessTable]
) -> int:
    """Every slot of `material`'s table through its format-6 bytes `data` against the solver's `values`:
    the side stored slot by slot (shuffled, so that blocks are left and come back), the other side
    rebuilt by the one-ply search (the whole-table read), and SEARCHED of its positions probed as a server
    probes them (the tables they lead to from `others`); the slots checked."""
    read = blocked(data, Keeper(4 << 20))
    assert read.index.version == 6 and read.index.material == material and len(read) == len(values)
    side = read.side
    assert side is not None
    order = np.random.default_rng(len(values)).permutation(len(values)).astype(np.int64)
    held = order[(order // half(material.spec)) % 2 == side]
    for at in range(0, len(held), 1 << 16):
        slots = held[at : at + (1 << 16)]
        dtm, dtz = read.lookup_slots(slots)
        assert np.array_equal(dtm, values.dtm[slots]) and np.array_equal(dtz, values.dtz[slots])
    whole = values_from_bytes(data, tables)
    assert np.array_equal(whole.dtm, values.dtm) and np.array_equal(whole.dtz, values.dtz)
    # positions of the side not stored probed one by one as a server probes them (a one-ply search)
    served = ChessTable(material, read, others)
    searched = 0
    for slot in order[(order // half(material.spec)) % 2 != side].tolist():
        board = served.board_of_slot(slot)
        if board is not None:
            assert served.encoded(board) == values.lookup(slot), board.fen()
            searched += 1
            if searched == SEARCHED:
                break
    return len(values)


@pytest.mark.slow
@pytest.mark.timeout(7200)  # every 3- and 4-man table solved, written and read back
def test_every_position_of_the_three_and_four_man_set_through_format_six() -> None:
    """Every 3- and 4-man table solved and stored as a worker's job stores it (format 6, its sub-tables
    read back from their stored bytes), then every slot read back through the stored form equals the
    solver's values (count checked)."""
    stored: dict[str, bytes] = {}
    tables = WholeTables(stored)
    others: dict[str, ChessTable] = {}
    checked = 0
    materials = materials_of(4)
    for material in materials:
        values = solve_material(material, tables)
        data = to_side_blocks(values, material)
        stored[material.name] = data
        checked += check_stored_form(material, values, data, WholeTables(stored), others)
        others[material.name] = ChessTable(material, values, others)
    assert checked == sum(m.slots for m in materials)


@pytest.mark.parametrize("name", ["KRvK", "KPvK", "KQvKR", pytest.param("KPvKP", marks=SLOW)])
def test_rows_of_the_side_not_stored_are_searched_at_once(
    tablebase: dict[str, ChessTable], solved: Solved, name: str
) -> None:
    """`encoded_rows` of a table of one side to move values the rows of the side not stored one ply on
    (the children in the table by kinds.chess.kernels.lookup's `children_many` and `best_many`, the
    others board by board) as the plain reference does (tests.kinds.chess.rules' `expected`)."""
    if name not in tablebase:
        solved.table(name)
    tables = tablebase if name in tablebase else solved.tables
    table = tables[name]
    material = table.material
    served = ChessTable(material, blocked(to_side_blocks(table.packed, material)), tables)
    rng = random.Random(name)
    boards: list[chess.Board] = []
    rows: list[list[int]] = []
    stms: list[int] = []
    while len(boards) < 300:
        slot = rng.randrange(material.slots)
        board = table.board_of_slot(slot)
        if board is not None:
            boards.append(board)
            rows.append(board_squares(material, board, False))
            stms.append(side_of(material.spec, slot))
    found = served.encoded_rows(np.array(rows, dtype=np.int64), np.array(stms, dtype=np.int64))
    assert found is not None
    searched = leaving = 0
    for board, (vm, vz) in zip(boards, found.tolist(), strict=True):
        assert (vm, vz) == rules.expected(board, lambda child: table.encoded(child)), board.fen()
        if not served.values.holds(table.slot(board)):  # type: ignore[union-attr]
            searched += 1
            moves = list(board.legal_moves)
            leaving += any(board.is_capture(m) or m.promotion or board.is_zeroing(m) for m in moves)
    assert leaving > 0
    assert searched > 50


@pytest.mark.parametrize(
    "name",
    [
        "KPvK",
        "KQvKR",
        pytest.param("KNvKP", marks=SLOW),
        pytest.param("KRvKP", marks=SLOW),
        pytest.param("KPvKP", marks=SLOW),
    ],
)
def test_a_job_reading_tables_of_one_side_solves_the_same_table(
    tablebase: dict[str, ChessTable], solved: Solved, name: str
) -> None:
    """A job given its sub-tables in format 6 (each rebuilt only on the side its moves reach,
    blocks.WholeTables) stores the same table as a solve from the whole sub-tables in memory; the
    sides a material's moves reach in a sub-table are the other side to the mover's."""
    if name not in tablebase:
        solved.table(name)
    tables = tablebase if name in tablebase else solved.tables
    material = parse_material(name)
    kernel = TableKernel(material)
    given: dict[StoredName, bytes] = {}
    for need in kernel.needs():
        sub = parse_material(need.game_id.partition(":")[2])
        given[need] = to_side_blocks(tables[sub.name].packed, sub)
    kernel.give(given)
    subs = {sub.name: tables[sub.name].packed for sub in material.sub_materials()}
    made = values_from_bytes(kernel.make(), subs)
    expected = solve_material(material, subs)
    assert np.array_equal(made.dtm, expected.dtm) and np.array_equal(made.dtz, expected.dtz)
    # KQvKR: side A capturing the rook leaves KQvK with side B to move, side B capturing the queen
    # leaves KRvK (its side A, our B) with our side A, its side B, to move
    kqkr = parse_material("KQvKR")
    assert needed(kqkr, parse_material("KQvK"), frozenset((0,))) == {1}
    assert needed(kqkr, parse_material("KRvK"), frozenset((1,))) == {1}
    assert needed(kqkr, parse_material("KQvK"), frozenset((1,))) == set()
    assert needed(None, parse_material("KQvK"), frozenset((0,))) == {0, 1}
