"""Materials of six and seven men are games of the user's Syzygy files only: their ids parse up to seven
men (eight do not), a position of one is routed to the files the kind is handed (engine.kind_resources:
here a stand-in prober, since no six- or seven-man files are at hand), and without files that hold it
the answer names nimbase's own five-man limit. Nimbase's own tables stay at five men (no job, no
statistics past them)."""

from __future__ import annotations

from dataclasses import replace

import chess
import pytest

from engine.errors import InvalidArgument, InvalidGameId, InvalidPosition
from engine.kind import Context
from engine.kind_resources import Resources
from engine.registry import parse_game_id
from kinds.chess.kind import SYZYGY, BeyondTables, ChessGame
from kinds.chess.probe import ChessProbe
from kinds.chess.records import ChessValue
from tests.engine.contexts import engine_context

#: KRPPvKRP, White to move: seven men; Rxd8+ leaves six (KRPPvKP).
SEVEN = "3r2k1/7p/8/8/8/8/PP6/3R2K1 w - - 0 1"


class DrawnFiles:
    """A stand-in for opened Syzygy files: holds every material of `least` men or more, every position
    drawn; remembers the materials it was asked about and the boards it probed."""

    def __init__(self, least: int = 6) -> None:
        self.least = least
        self.asked: list[str] = []
        self.probed: list[str] = []

    def has(self, material: str) -> bool:
        self.asked.append(material)
        return len(material) - 1 >= self.least  # letters less the "v": the men

    def probe(self, board: chess.Board) -> ChessProbe:
        self.probed.append(board.fen())
        return ChessProbe(0, 0, None, precise_dtz=True)


def with_files(files: object | None) -> Context:
    return replace(engine_context(), resources=Resources({SYZYGY: files} if files is not None else {}))


def seven_men() -> ChessGame:
    kind = parse_game_id("chess:KRPPvKRP")
    assert isinstance(kind, ChessGame)
    return kind


def test_ids_parse_up_to_seven_men() -> None:
    assert seven_men().material.men == 7
    assert parse_game_id("chess:KQRvKQ").game_id == "chess:KQRvKQ"
    with pytest.raises(InvalidGameId, match="8 men: tables hold at most 7"):
        parse_game_id("chess:KRPPPvKRP")


def test_a_seven_man_position_is_routed_to_the_files() -> None:
    files = DrawnFiles()
    kind = seven_men()
    board = kind.parse(SEVEN)
    value = kind.value(board, with_files(files))
    assert (value.game, value.source, value.outcome, value.remoteness) == (
        "chess:KRPPvKRP",
        "syzygy",
        "D",
        None,
    )
    assert isinstance(value.kind, ChessValue)
    assert (value.kind.dtz, value.kind.dtm, value.kind.category) == (0, None, "draw")
    assert files.probed == [SEVEN] and "KRPPvKRP" in files.asked
    moves = kind.best_moves(board, None, with_files(files)).moves
    assert {m.move for m in moves} == {m.uci() for m in board.legal_moves}
    assert all(m.value.source == "syzygy" for m in moves)
    games = {m.move: m.value.game for m in moves}
    assert games.pop("d1d8") == "chess:KRPPvKP"  # the capture: the six-man material, in the files too
    assert set(games.values()) == {"chess:KRPPvKRP"}


def test_without_files_the_limit_is_named() -> None:
    kind = seven_men()
    board = kind.parse(SEVEN)
    limit = r"'KRPPvKRP' has 7 men: nimbase's own tables hold at most 5 men, and no Syzygy files are set"
    with pytest.raises(BeyondTables, match=limit + r" \(NIMBASE_SYZYGY_PATH\)") as unset:
        kind.value(board, with_files(None))
    assert not unset.value.syzygy_set and unset.value.code == "INVALID_ARGUMENT"
    with pytest.raises(BeyondTables, match="do not hold it") as lacking:
        kind.value(board, with_files(DrawnFiles(least=8)))
    assert lacking.value.syzygy_set


def test_nimbases_own_tables_stay_at_five_men() -> None:
    kind = seven_men()
    with pytest.raises(InvalidArgument, match="at most 5 men"):
        kind.plan_job(0)
    with pytest.raises(BeyondTables, match="statistics"):
        kind.stats(with_files(DrawnFiles()))
    with pytest.raises(InvalidPosition, match="6 men: tables hold at most 5"):
        parse_game_id("chess:KQRvKR").parse("4k3/8/8/8/8/8/PPPP4/4K3 w - - 0 1")
    with pytest.raises(InvalidPosition, match="8 men: tables hold at most 7"):
        seven_men().parse("3r2k1/6pp/8/8/8/8/PP6/3R2K1 w - - 0 1")
    for game in ("chess:KRPPvKRP", "chess:KPPPPPvK", "chess:KQRBNvKQ"):
        example = parse_game_id(game).info().examples[0]  # a legal position of the material
        assert parse_game_id(game).parse(example) is not None
