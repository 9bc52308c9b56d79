"""A chess table's one side to move rebuilt from the other's values by a one-ply search (kinds.chess.sides,
kinds.chess.kernels.oneply): every slot of every 3-man material and of some 4-man ones (every 4-man
material with -m slow), either side rebuilt, equals the solver's arrays; positions sampled from them
equal the plain reference (tests.kinds.chess.rules' `expected`: python-chess's moves, the children
looked up board by board)."""

from __future__ import annotations

import numpy as np
import pytest

from kinds.chess.format import ChessValues
from kinds.chess.material import materials_of, parse_material
from kinds.chess.sides import compact, compact_slots, half, one_side, rebuild, side_of, with_side
from kinds.chess.tables import ChessTable
from tests.kinds.chess import rules
from tests.kinds.chess.test_syzygy import Solved

#: 4-man materials rebuilt by default (every one with -m slow): pawnless, a pawn against a piece
#: (promotions, captures into 3-man tables), and pawns on both sides (en passant).
SOME_FOUR = ("KQvKR", "KRvKP", "KPvKP")


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
