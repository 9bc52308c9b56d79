"""Every KQvK, KRvK and KPvK position of the chess tables against a brute-force solve
(tests.kinds.chess.oracle) that shares nothing with them but python-chess's rules: no index, no symmetry
code, no move generator, no retrograde queue. The tables' values must be the oracle's at every position
(and at a seventh of them again with the colours swapped), and their legal slots must be the oracle's
positions up to symmetry, each reached once, twice where the tables' index keeps a symmetric pair apart."""

from __future__ import annotations

import chess
import numpy as np
import pytest
from numpy.typing import NDArray

from kinds.chess.kernels import index as ix
from kinds.chess.tables import ChessTable, canonical_fen, slot_of_board
from tests.kinds.chess import oracle

NAMES = ("KQvK", "KRvK", "KPvK")
#: Disagreements quoted in a failure message.
SHOWN = 20
#: Every how many oracle positions is also looked up with the colours swapped.
MIRROR_STRIDE = 7


def _value(outcome: int, remoteness: int) -> str:
    return {1: f"win in {remoteness}", -1: f"loss in {remoteness}", 0: "draw"}.get(
        outcome, f"outcome {outcome}, remoteness {remoteness}"
    )


def _disagreements(
    solved: oracle.Solved,
    classes: NDArray[np.int64],
    outcome: NDArray[np.int8],
    remoteness: NDArray[np.int32],
) -> list[str]:
    """Where the tables' values (`outcome`, `remoteness`) at oracle positions `classes` differ from the
    oracle's, quoted by FEN (White holding the man) with both values."""
    expect_outcome, expect_remoteness = solved.outcome[classes], solved.remoteness[classes]
    wrong = np.flatnonzero((outcome != expect_outcome) | (remoteness != expect_remoteness))
    lines = [
        f"{canonical_fen(solved.board(int(classes[k])))}: "
        f"oracle {_value(int(expect_outcome[k]), int(expect_remoteness[k]))}, "
        f"tables {_value(int(outcome[k]), int(remoteness[k]))}"
        for k in wrong[:SHOWN].tolist()
    ]
    return lines + ([f"... {wrong.size} in all"] if wrong.size > SHOWN else [])


def test_the_brute_force_finds_the_longest_wins() -> None:
    """The textbook results from the oracle alone: KQvK mates in 10 moves at most (19 plies for White
    to move), KRvK in 16 (31); the loser to move holds out one ply more."""
    for name, plies in (("KQvK", 19), ("KRvK", 31)):
        solved = oracle.solve(name)
        wins = solved.white_to_move & (solved.outcome == 1)
        assert int(solved.remoteness[wins].max()) == plies
        assert int(solved.remoteness[solved.outcome == -1].max()) == plies + 1
        assert solved.mates > 0 and solved.stalemates > 0
    kqk = oracle.solve("KQvK")
    mated, stalemate = "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1", "k7/8/1Q6/8/8/8/8/K7 b - - 0 1"
    for fen, value in ((mated, (-1, 0)), (stalemate, (0, -1))):
        i = kqk.class_of_board(chess.Board(fen))
        assert (int(kqk.outcome[i]), int(kqk.remoteness[i])) == value


@pytest.mark.parametrize("name", NAMES)
def test_every_position_agrees_with_the_brute_force(tablebase: dict[str, ChessTable], name: str) -> None:
    solved = oracle.solve(name)
    table = tablebase[name]
    material = table.material
    dtm = table.packed.dtm.astype(np.int32)
    fast_outcome = np.sign(dtm).astype(np.int8)
    fast_remoteness = np.where(dtm > 0, dtm, np.where(dtm < 0, -dtm - 1, -1)).astype(np.int32)
    broken = ~ix.valid_mask(material.spec, 0, len(table.packed))
    everyone = np.arange(len(solved), dtype=np.int64)

    # Every oracle position by its slot (one board rearranged, as building each would double the time).
    board = chess.Board.empty()
    slots = np.array([slot_of_board(material, solved.arrange(board, i)) for i in range(len(solved))])
    assert not broken[slots].any()
    wrong = _disagreements(solved, everyone, fast_outcome[slots], fast_remoteness[slots])
    assert not wrong, "\n".join(wrong)
    assert np.unique(slots).size == len(solved)  # no two oracle positions share a slot

    # The same with the colours swapped (Black holding the man), on every MIRROR_STRIDE-th position.
    sample = everyone[::MIRROR_STRIDE]
    mirrored = np.array([slot_of_board(material, solved.board(i).mirror()) for i in sample.tolist()])
    wrong = _disagreements(solved, sample, fast_outcome[mirrored], fast_remoteness[mirrored])
    assert not wrong, "\n".join(wrong)

    # Every legal slot is an oracle position: the index keeps one slot per position (the least of its
    # symmetric images), so none is left over.
    legal = np.flatnonzero(~broken)
    assert np.setdiff1d(legal, slots).size == 0
    stats = table.stats()  # each position counted once, as the oracle's classes
    assert stats["positions"] == len(solved)
    assert (stats["wins"], stats["losses"], stats["draws"]) == tuple(
        int((solved.outcome == outcome).sum()) for outcome in (1, -1, 0)
    )
