"""How a chess solve reads its sub-tables: a promotion's table only for the slices where a pawn stands on
its seventh rank, let go after the last of them (what lets a five-man material with a pawn fit beside the
five-man tables its promotions lead to), and the same values as with every table at hand."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import chess
import numpy as np
import pytest

from kinds.chess import kind as kind_module
from kinds.chess import solve as solve_module
from kinds.chess.blocks import to_blocks, to_side_blocks, values_from_bytes
from kinds.chess.format import ChessValues
from kinds.chess.kind import TableKernel, reached
from kinds.chess.material import Material, parse_material
from kinds.chess.solve import held_sub_slots, solve_material
from tests.kinds.chess.test_syzygy import Solved


class Counting(Mapping[str, ChessValues]):
    """Tables by name, counting how often each is asked for."""

    def __init__(self, tables: dict[str, ChessValues]) -> None:
        self.tables = tables
        self.asked: list[str] = []

    def __getitem__(self, name: str) -> ChessValues:
        self.asked.append(name)
        return self.tables[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.tables)

    def __len__(self) -> int:
        return len(self.tables)


@pytest.mark.slow  # KRPvK solved once more; KPvK's count of held sub-tables below runs by default
def test_promotion_tables_are_read_for_the_promoting_slices_only() -> None:
    material = parse_material("KRPvK")
    # The sub-tables as the Syzygy checks solved and cached them (solved here on an empty cache).
    solved = Solved()
    tables = {sub.name: solved.table(sub.name).packed for sub in material.sub_materials()}
    counting = Counting(tables)
    values = solve_material(material, counting)
    # The table as a worker solves it from every sub-table handed over (kind.TableKernel), cached on disk
    # by the same checks: solving it a second time here would repeat their work.
    whole = solved.table(material.name).packed
    assert values.to_bytes() == whole.to_bytes()
    promoted = {sub.name for _c, pm, _p, sub, _f, _m in material.exits() if pm >= 0}
    captured = {sub.name for _c, pm, _p, sub, _f, _m in material.exits() if pm < 0}
    assert promoted - captured and captured
    # every table once for the slices with the pawn on the seventh rank (solved first), then the
    # capture tables alone once for the others
    for name in promoted - captured:
        assert counting.asked.count(name) == 1, name
    for name in captured:
        assert counting.asked.count(name) == 2, name
    first = len(promoted | captured)
    assert set(counting.asked[:first]) == promoted | captured
    assert set(counting.asked[first:]) == captured
    assert chess.PAWN in material.a


@pytest.mark.parametrize("name", ["KPvK", pytest.param("KPvKP", marks=pytest.mark.slow)])
def test_the_sub_table_slots_a_solve_holds_are_what_its_estimate_counts(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """`held_sub_slots` (what a job's memory estimate counts for the sub-tables, kinds.chess.kind's
    `job_memory`) is the most the solve's concatenated sub-table values ever hold for its slices: every
    promotion's table at once for the first slices, but those with a pawn (two pawns), each read in a
    pass of its own."""
    held: list[int] = []
    children = solve_module._children

    def counted(solving: Material, subs: list[Material], tables: Mapping[str, ChessValues]) -> Any:
        found = children(solving, subs, tables)
        if solving.name == name and not set(subs) & solve_module.deferred_subs(solving):  # not a pass
            held.append(sum(sub.slots for sub in subs))
        return found

    material = parse_material(name)
    solved = Solved()
    tables = {sub.name: solved.table(sub.name).packed for sub in material.sub_materials()}
    monkeypatch.setattr(solve_module, "_children", counted)
    solve_material(material, tables)
    assert max(held) == held_sub_slots(material)
    promoted = {sub for _c, pm, _p, sub, _f, _m in material.exits() if pm >= 0}
    held_promoted = promoted - solve_module.deferred_subs(material)
    assert held_sub_slots(material) >= sum(sub.slots for sub in held_promoted)


def test_a_job_counts_the_rebuild_of_the_side_its_promotions_reach() -> None:
    """A job of KNPPvK reads KNQPvK (a pawn promoted) with Black to move: where White's side is stored,
    that side is rebuilt from the tables Black's moves lead to alone (its captures: four men), not the
    five-man tables White's promotions lead to, which a job of it ran out of a 12 GiB cap holding; the
    estimate (kinds.chess.kind's `job_memory`) counts that read as the largest of those it makes."""
    reader, read = parse_material("KNPPvK"), parse_material("KNQPvK")
    assert read in solve_module.deferred_subs(reader)
    both = frozenset((0, 1))
    assert kind_module._read_slots(reader, read, both) == read.slots + held_sub_slots(read, 1)
    captured = {sub for _c, pm, _p, sub, _f, _m in read.exits() if pm < 0}
    assert held_sub_slots(read, 1) == sum(sub.slots for sub in captured)  # KNPvK, KQPvK, KQNvK
    promoted = [sub for sub in read.sub_materials() if sub.men == 5]  # KQQNvK, ...: not read
    assert len(promoted) == 4 and held_sub_slots(read, 0) > sum(sub.slots for sub in promoted)
    assert kind_module.job_memory(reader) < 12 << 30


def random_tables(material: Material, seed: int, every: bool = False) -> dict[str, ChessValues]:
    """Sub-tables of random values (any value but NONE): how a move is valued does not depend on what
    the table it reaches holds, so the two ways of valuing promotions must agree on these too, without
    solving a table. With `every`, those of every table a job of `material` is given (down to KvK)."""
    rng = np.random.default_rng(seed)
    tables = {}
    for sub in reached(material) if every else material.sub_materials():
        dtm, dtz = (rng.integers(-300, 300, sub.slots).astype(np.int16) for _ in range(2))
        tables[sub.name] = ChessValues(dtm, dtz, not sub.pawnful)
    return tables


def solved_both_ways(
    monkeypatch: pytest.MonkeyPatch, name: str, tables: Mapping[str, ChessValues]
) -> tuple[ChessValues, ChessValues]:
    """`name` solved with the promotions into tables with a pawn valued apart, each such table held alone
    (checked), then holding every table at once (`prepare` valuing every move: the reference)."""
    material = parse_material(name)
    deferred = {sub.name for sub in solve_module.deferred_subs(material)}
    assert deferred and all(parse_material(sub).pawnful for sub in deferred)
    held: list[set[str]] = []
    children = solve_module._children

    def counted(solving: Material, subs: list[Material], tables: Mapping[str, ChessValues]) -> Any:
        if solving.name == name:
            held.append({sub.name for sub in subs})
        return children(solving, subs, tables)

    with monkeypatch.context() as patch:
        patch.setattr(solve_module, "_children", counted)
        apart = solve_material(material, tables)
    assert all(len(names & deferred) <= 1 for names in held) and deferred <= set().union(*held)
    return apart, _solved_together(material, tables)


@pytest.mark.slow  # by default the read-back test below compares a job's deferred solve the same way
def test_promotions_into_tables_with_a_pawn_valued_apart_give_the_same_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With two pawns, the tables with a pawn the promotions lead to are read one at a time, their
    promotions valued in passes of their own (kinds.chess.kernels.promotions): byte for byte the table
    solved holding every table at once, over sub-tables of random values."""
    for seed in (1, 2):
        apart, together = solved_both_ways(monkeypatch, "KPPvK", random_tables(parse_material("KPPvK"), seed))
        assert apart.to_bytes() == together.to_bytes()


def _solved_together(material: Material, tables: Mapping[str, ChessValues]) -> ChessValues:
    """`material` solved holding every sub-table at once (no table deferred)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(solve_module, "deferred_subs", lambda _material: frozenset())
        return solve_material(material, tables)


def _read_back(
    values: ChessValues, material: Material, stored: int, tables: Mapping[str, ChessValues]
) -> tuple[ChessValues, list[set[Material]]]:
    """`values` stored with side `stored` alone, read back whole (the other side rebuilt), and the sets of
    sub-tables each of the rebuild's passes held."""
    children = solve_module._children
    held: list[set[Material]] = []

    def counted(solving: Material, subs: list[Material], tables: Mapping[str, ChessValues]) -> Any:
        held.append(set(subs))
        return children(solving, subs, tables)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(solve_module, "_children", counted)
        return values_from_bytes(to_side_blocks(values, material, stored), tables), held


def test_the_side_of_two_pawns_promoting_is_rebuilt_as_solved() -> None:
    """The side whose pawns promote (side A), not stored, rebuilt by the one-ply search when a table with
    two pawns is read back whole: its promotions into tables with a pawn are valued in passes of their
    own, each such table held alone, as the solve values them (the rebuild once took them for no move:
    KPvKP's 8/p3P3/8/8/8/k1K5/8/8 w read DTZ 3 where e8=Q gives 1). The whole job's way, and the other
    side, in the test below (-m slow)."""
    material = parse_material("KPPvK")
    tables = random_tables(material, 1, every=True)
    expected = _solved_together(material, tables)
    read, held = _read_back(expected, material, 1, tables)
    assert np.array_equal(read.dtm, expected.dtm) and np.array_equal(read.dtz, expected.dtz)
    apart = [subs for subs in held if subs & solve_module.deferred_subs(material)]
    assert apart and all(len(subs) == 1 for subs in apart)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_a_table_with_two_pawns_stored_one_side_reads_back_whole(seed: int) -> None:
    """A job of a material with two pawns (TableKernel, given its sub-tables' stored bytes) stores one
    side to move; read back whole, its other side rebuilt by the one-ply search (kinds.chess.sides: as
    a job reading it as a sub-table, or a whole-table reader, reads it), it is the table solved holding
    every sub-table at once, whichever side is stored. The rebuild values the promotions into tables
    with a pawn in passes of their own, as the solve does (it once took them for no move: KPvKP's
    8/p3P3/8/8/8/k1K5/8/8 w read DTZ 3 where e8=Q gives 1). Sub-tables of random values, stored with
    both sides (a move's value does not depend on what its table holds)."""
    material = parse_material("KPPvK")
    tables = random_tables(material, seed, every=True)
    kernel = TableKernel(material)
    kernel.give({need: to_blocks(tables[need.game_id.partition(":")[2]]) for need in kernel.needs()})
    made = kernel.make()
    expected = _solved_together(material, tables)
    read = values_from_bytes(made, tables)
    assert np.array_equal(read.dtm, expected.dtm) and np.array_equal(read.dtz, expected.dtz)
    deferred = solve_module.deferred_subs(material)
    for stored in (0, 1):
        read, held = _read_back(expected, material, stored, tables)
        assert np.array_equal(read.dtm, expected.dtm) and np.array_equal(read.dtz, expected.dtz)
        # the rebuild holds the tables the other side's moves lead to, but those with a pawn, each
        # read alone (side A's pawns promote, side B's king captures a pawn: KPvK alone)
        rebuilt = 1 - stored
        apart = [subs for subs in held if subs & deferred]
        assert all(len(subs) == 1 for subs in apart) and bool(apart) == (rebuilt == 0)
        together = [sum(sub.slots for sub in subs) for subs in held if not subs & deferred]
        assert max(together) == held_sub_slots(material, rebuilt)
    by_side = [held_sub_slots(material, side) for side in (0, 1)]
    assert sum(by_side) == held_sub_slots(material) and by_side[1] == parse_material("KPvK").slots


@pytest.mark.slow
def test_promotions_valued_apart_solve_the_real_table() -> None:
    """The same with the real sub-tables of KPvKP (both sides' pawns promote into tables with a pawn),
    and the table the Syzygy checks solve and compare with the Syzygy files."""
    monkeypatch = pytest.MonkeyPatch()
    material = parse_material("KPvKP")
    solved = Solved()
    tables = {sub.name: solved.table(sub.name).packed for sub in material.sub_materials()}
    try:
        apart, together = solved_both_ways(monkeypatch, "KPvKP", tables)
    finally:
        monkeypatch.undo()
    assert apart.to_bytes() == together.to_bytes() == solved.table("KPvKP").packed.to_bytes()
