"""Chess endgame tables: materials, the perfect index, the numba move generator move for move against
python-chess, known results (the longest KQvK and KRvK wins), the retrograde equations over every
position, a brute-force search of short mates agreeing with the tables, and the kind's answers."""

from __future__ import annotations

import random
from collections.abc import Iterator

import chess
import numpy as np
import pytest

from engine.errors import InvalidGameId, InvalidPosition, LimitExceeded
from engine.games.chess import TABLE, TABLES, ChessGame
from engine.games.chess_tables import (
    ChessTable,
    Material,
    all_materials,
    board_material,
    board_of_slot,
    material_graph,
    parse_material,
    slot_of_board,
)
from engine.kernels import chess_movegen as mg
from engine.kernels.retrograde import Packed
from engine.kind import Context
from engine.stored_bytes import encode_words
from engine.values import MoveValue, Value
from tests import chess_oracle as oracle
from tests.engine.contexts import StoredWords, engine_context, kind_settings

Tables = dict[str, ChessTable]


@pytest.fixture
def served(tablebase: Tables) -> Iterator[Context]:
    """A request's context whose storage holds the tables of `tablebase` as workers' jobs store them, and
    fresh keepers (no table kept in the process): the kind answers from them (`source` "table")."""
    stored = StoredWords()
    for table in tablebase.values():
        stored.words[(table.material.game_id, TABLE)] = encode_words(table.to_bytes())
    yield engine_context(stored)


def value_of(ctx: Context, name: str, fen: str) -> Value:
    """GetValue of `fen` in chess:NAME, as the service asks the kind."""
    game = ChessGame(parse_material(name))
    return game.value(game.parse(fen), ctx)


def moves_of(ctx: Context, name: str, fen: str) -> list[MoveValue]:
    """BestMove's moves of `fen` in chess:NAME (every one, best first), as the service asks the kind."""
    game = ChessGame(parse_material(name))
    return game.best_moves(game.parse(fen), None, ctx).moves


def valid_boards(material: Material, rng: random.Random, count: int) -> Iterator[tuple[int, chess.Board]]:
    found = 0
    while found < count:
        slot = rng.randrange(material.slots)
        board = board_of_slot(material, slot)
        if board is not None:
            found += 1
            yield slot, board


def disguise(board: chess.Board, rng: random.Random) -> chess.Board:
    """The same position under a random symmetry of the material (colours swapped, mirrored...)."""
    out = board.copy()
    if rng.random() < 0.5:
        out = out.transform(chess.flip_horizontal)
    if rng.random() < 0.5:
        out = out.mirror()  # flip vertically and swap the colours (and the side to move)
    if not any(p.piece_type == chess.PAWN for p in out.piece_map().values()):
        if rng.random() < 0.5:
            out = out.transform(chess.flip_diagonal)
        if rng.random() < 0.5:
            out = out.transform(chess.flip_vertical)
    return out


# -- materials and the index -----------------------------------------------------------------------------


def test_material_names() -> None:
    assert parse_material("KRvK").name == "KRvK"
    assert parse_material("KvKR").name == "KRvK"
    assert parse_material("KRQvK").name == "KQRvK"
    assert parse_material("KRvKQ").name == "KQvKR"
    assert parse_material("KNvKB").name == "KBvKN"
    assert parse_material("KvKP").name == "KPvK"
    for bad in ("KRK", "krvk", "KRvKX", "", "KQvKR "):
        with pytest.raises(InvalidGameId, match=repr(bad)):
            parse_material(bad)
    for unsupported in ("KQRvKR", "KPPvK", "KRPvK", "KPvKP"):
        with pytest.raises(InvalidGameId, match="not supported"):
            parse_material(unsupported)


def test_every_material_comes_after_those_it_leads_to() -> None:
    names = [m.name for m in all_materials()]
    for name in (
        "KQvK",
        "KRvK",
        "KBvK",
        "KNvK",
        "KQvKR",
        "KRvKB",
        "KRvKN",
        "KQvKQ",
        "KBNvK",
        "KBBvK",
        "KPvK",
    ):
        assert name in names
    assert len(names) == 26
    for i, material in enumerate(all_materials()):
        for sub in material.sub_materials():
            assert names.index(sub.name) < i
    assert {m.name for m in parse_material("KPvK").sub_materials()} == {"KvK", "KQvK", "KRvK", "KBvK", "KNvK"}
    assert {m.name for m in parse_material("KQvKR").sub_materials()} == {"KQvK", "KRvK"}


def test_index_sizes() -> None:
    assert (mg.KK_INDEX >= 0).sum() == 462 and (mg.KKP_INDEX >= 0).sum() == 1806
    assert parse_material("KQvKR").slots == 2 * 462 * 62 * 61
    assert parse_material("KBBvK").slots == 2 * 462 * 1891
    assert parse_material("KPvK").slots == 2 * 1806 * 48
    assert parse_material("KRvK").slots == 2 * 462 * 62


@pytest.mark.parametrize("name", [m.name for m in all_materials()])
def test_canonical_slot_is_the_least_symmetric_image(name: str) -> None:
    material = parse_material(name)
    spec = material.spec
    rng = random.Random(name)
    sq = np.empty(4, np.int64)
    transforms = 2 if material.pawnful else 8
    checked = 0
    for _ in range(300):
        slot = rng.randrange(material.slots)
        stm = mg.decode(spec, slot, sq)
        if stm < 0:
            continue
        checked += 1
        ka, kb, s0, s1 = [int(s) for s in sq[: 2 + len(material.pieces)]] + [-1] * (2 - len(material.pieces))
        least = mg.canonical(spec, ka, kb, s0, s1, stm)
        assert least == mg.canonical_by_search(spec, ka, kb, s0, s1, stm)
        diagonal = (ka & 7) == (ka >> 3) and (kb & 7) == (kb >> 3)
        if not diagonal or material.pawnful:
            assert least == slot
        for t in range(transforms):
            image = [mg._transform(s, t) if s >= 0 else -1 for s in (ka, kb, s0, s1)]
            assert mg.canonical(spec, image[0], image[1], image[2], image[3], stm) == least
    assert checked >= 250  # only a pawn on a king's square fails to decode (KPvK: 290 of the 300)


# -- the move generator against python-chess ---------------------------------------------------------------


@pytest.mark.parametrize("name", [m.name for m in all_materials()])
def test_move_generator_matches_python_chess(name: str) -> None:
    material = parse_material(name)
    spec = material.spec
    rows = material.children()
    children = np.full((len(rows), 9), -1, dtype=np.int64)
    for r, entry in enumerate(rows):
        if entry is not None:
            children[r, :6] = entry[0].spec
            children[r, 6] = int(entry[1])
            children[r, 7 : 7 + len(entry[2])] = entry[2]
    rng = random.Random(name)
    sq = np.empty(4, np.int64)
    kinds = np.empty(4, np.int64)
    owners = np.empty(4, np.int64)
    out = np.empty(4 * mg.MAX_MOVES, np.int64)
    n = 2 + len(material.pieces)
    checked = broken = 0
    while checked < 60:
        slot = rng.randrange(material.slots)
        stm = mg.setup(spec, slot, sq, kinds, owners)
        # the slot's men as a board, legal or not
        if mg.decode(spec, slot, np.empty(4, np.int64)) < 0:
            assert stm < 0  # a pawn on a king's square
            continue
        board = chess.Board(None)
        for k in range(n):
            board.set_piece_at(int(sq[k]), chess.Piece(int(kinds[k]), bool(owners[k] == 0)))
        board.turn = bool(mg.decode(spec, slot, np.empty(4, np.int64)) == 0)
        legal = not (board.status() & ~(chess.STATUS_IMPOSSIBLE_CHECK | chess.STATUS_TOO_MANY_CHECKERS))
        assert (stm >= 0) == legal, board.fen()
        if stm < 0:
            broken += 1
            continue
        checked += 1
        count = mg.legal_moves(sq, kinds, owners, n, stm, out)
        ours: dict[str, tuple[int, int]] = {}
        for i in range(count):
            j, to, promo, cap = (int(x) for x in out[4 * i : 4 * i + 4])
            move = chess.Move(int(sq[j]), to, promo or None)
            ours[move.uci()] = mg.child_of(spec, children, sq, kinds, n, stm, j, to, promo, cap)
        assert set(ours) == {m.uci() for m in board.legal_moves}, board.fen()
        if count == 0:
            assert board.is_checkmate() or board.is_stalemate()
        for move in board.legal_moves:
            at, child = ours[move.uci()]
            board.push(move)
            found, _ = board_material(board)
            if at < 0:
                assert found == material
            else:
                target = rows[at]
                assert target is not None and target[0] == found
            assert child == slot_of_board(found, board), (board.fen(), move.uci())
            board.pop()
    assert checked == 60


# -- known results ---------------------------------------------------------------------------------------


def test_longest_wins(served: Context) -> None:
    """KQvK: mate in 10 moves at most (19 plies for the side to move winning); KRvK: 16 (31)."""
    for name, plies in (("KQvK", 19), ("KRvK", 31)):
        stats = ChessGame(parse_material(name)).stats(served)
        assert stats["longest_win"] == plies and stats["longest_loss"] == plies + 1
        fen = str(stats["longest_win_position"])
        assert fen.split()[1] == "w"
        value = value_of(served, name, fen)
        assert (value.outcome, value.remoteness) == ("N", plies)
        assert stats["wins"] + stats["losses"] + stats["draws"] == stats["positions"]  # type: ignore[operator]
    for name in ("KvK", "KBvK", "KNvK"):
        stats = ChessGame(parse_material(name)).stats(served)
        assert stats["wins"] == stats["losses"] == 0 and stats["draws"] == stats["positions"]


def test_mates_and_stalemates(served: Context) -> None:
    mated = value_of(served, "KQvK", "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1")
    assert (mated.outcome, mated.remoteness) == ("P", 0)
    stalemate = value_of(served, "KQvK", "k7/8/1Q6/8/8/8/8/K7 b - - 0 1")
    assert (stalemate.outcome, stalemate.remoteness) == ("D", None)
    assert moves_of(served, "KQvK", "k7/8/1Q6/8/8/8/8/K7 b - - 0 1") == []
    one = value_of(served, "KRvK", "k7/8/1K6/8/8/8/8/7R w - - 0 1")
    assert (one.outcome, one.remoteness) == ("N", 1)
    best = moves_of(served, "KRvK", "k7/8/1K6/8/8/8/8/7R w - - 0 1")[0]
    assert best.move == "h1h8" and best.as_dict()["san"] == "Rh8#"
    assert (best.value.outcome, best.value.remoteness) == ("P", 0)
    # the same with the colours the other way round, and mirrored
    flipped = value_of(served, "KRvK", "7r/8/8/8/8/1k6/8/K7 b - - 0 1")
    assert (flipped.outcome, flipped.remoteness) == ("N", 1)
    # Black to move can take the undefended rook: a draw (KvK).
    take = value_of(served, "KRvK", "8/8/8/8/8/8/kR6/7K b - - 0 1")
    assert take.outcome == "D"
    assert moves_of(served, "KRvK", "8/8/8/8/8/8/kR6/7K b - - 0 1")[0].move == "a2b2"


def test_kpvk_promotion_leads_into_the_promoted_table(served: Context) -> None:
    fen = "8/4P3/8/8/8/k7/8/4K3 w - - 0 1"
    moves = {m.move: m for m in moves_of(served, "KPvK", fen)}
    assert {"e7e8q", "e7e8r", "e7e8b", "e7e8n"} <= set(moves)
    queen = moves["e7e8q"]
    assert queen.value == value_of(served, "KQvK", queen.value.position)  # GetValue in chess:KQvK
    # the promoted position's value, from the brute-force KQvK (White holding the queen, Black to move)
    promoted = oracle.solve("KQvK")
    i = promoted.class_of_board(chess.Board(queen.value.position))
    assert i >= 0 and (int(promoted.outcome[i]), int(promoted.remoteness[i])) == (-1, queen.value.remoteness)
    assert queen.as_dict()["san"] == "e8=Q"
    assert moves["e7e8b"].value.outcome == "D"  # KBvK
    value = value_of(served, "KPvK", fen)
    assert value.outcome == "N" and value.remoteness == queen.value.remoteness + 1  # type: ignore[operator]


# -- every position against the retrograde equations ------------------------------------------------------


@pytest.mark.parametrize("name", ["KQvK", "KRvK", "KPvK"])
def test_every_value_satisfies_the_retrograde_equations(tablebase: Tables, name: str) -> None:
    """Wins are 1 + the quickest move to a loss, losses 1 + the slowest move (all to wins), draws have
    no move to a loss and one not to a win. Holding at every position, these determine the values."""
    table = tablebase[name]
    graph = material_graph(table.material, tablebase)
    outcome, remoteness, broken = table.packed.unpack()
    n = outcome.shape[0]
    child = np.repeat(np.arange(n), np.diff(graph.rev_indptr))
    parent = graph.rev_indices.astype(np.int64)
    ext = graph.external
    big = np.iinfo(np.int32).max
    lost_min = np.where(ext.lost_min >= 0, ext.lost_min, big).astype(np.int64)
    lost = outcome[child] < 0
    np.minimum.at(lost_min, parent[lost], remoteness[child[lost]])
    not_won = ext.count - ext.won_count  # external moves to losses and draws
    np.add.at(not_won, parent, outcome[child] <= 0)
    slowest = np.where(ext.won_count > 0, ext.won_max, -1).astype(np.int64)
    np.maximum.at(slowest, parent, remoteness[child])
    moves = graph.degree + ext.count
    expect_o = np.zeros(n, np.int8)
    expect_r = np.full(n, -1, np.int64)
    win = lost_min < big
    expect_o[win], expect_r[win] = 1, lost_min[win] + 1
    loss = ~win & (moves > 0) & (not_won == 0)
    expect_o[loss], expect_r[loss] = -1, slowest[loss] + 1
    ends = moves == 0
    expect_o[ends] = graph.terminal[ends]
    expect_r[ends & (graph.terminal != 0)] = 0
    assert (outcome[~broken] == expect_o[~broken]).all()
    assert (remoteness[~broken] == expect_r[~broken]).all()
    assert table.packed.nbytes == table.material.slots  # one byte per slot, no escapes


def oracle_value(board: chess.Board) -> tuple[str, int | None] | None:
    """The brute-force value of a board (tests.chess_oracle) for the side to move, where it has one: a
    bare KvK is drawn; one man of MATERIALS is looked up with White holding it (the board mirrored
    if need be); other material is None."""
    men = [piece for piece in board.piece_map().values() if piece.piece_type != chess.KING]
    if not men:
        return ("D", None)
    name = f"K{men[0].symbol().upper()}vK"
    if len(men) != 1 or name not in oracle.MATERIALS:
        return None
    solved = oracle.solve(name)
    i = solved.class_of_board(board if men[0].color == chess.WHITE else board.mirror())
    assert i >= 0, board.fen()
    outcome, remoteness = int(solved.outcome[i]), int(solved.remoteness[i])
    return ({1: "N", -1: "P", 0: "D"}[outcome], None if outcome == 0 else remoteness)


@pytest.mark.parametrize("name", ["KQvK", "KRvK", "KPvK"])
def test_sampled_positions_agree_with_python_chess(served: Context, name: str) -> None:
    """Every move python-chess lists is reported, and each move's value is the brute force's for the
    position it leads to (tests.chess_oracle: no index, no move generator of the tables'); the value
    follows from the moves' values."""
    rng = random.Random(7)
    for _, board in valid_boards(parse_material(name), rng, 150):
        board = disguise(board, rng)
        fen = board.fen()
        value = value_of(served, name, fen)
        moves = moves_of(served, name, fen)
        assert {m.move for m in moves} == {m.uci() for m in board.legal_moves}
        for m in moves:
            move = chess.Move.from_uci(m.move)
            assert board.san(move) == m.as_dict()["san"]
            after = board.copy()
            after.push(move)
            assert m.value.position == after.fen(en_passant="legal")  # the clocks advanced
            known = oracle_value(after)
            if known is not None:  # the brute force has it: KQvK, KRvK, KPvK, or a bare KvK
                assert (m.value.outcome, m.value.remoteness) == known, (fen, m.move)
        if not moves:
            assert (value.outcome, value.remoteness) == (("P", 0) if board.is_checkmate() else ("D", None))
            continue
        best = moves[0].value
        if value.outcome == "N":
            assert best.outcome == "P" and value.remoteness == best.remoteness + 1  # type: ignore[operator]
        elif value.outcome == "P":
            assert all(m.value.outcome == "N" for m in moves)
            assert value.remoteness == 1 + max(m.value.remoteness or 0 for m in moves)
            assert best.remoteness == value.remoteness - 1
        else:
            assert all(m.value.outcome != "P" for m in moves) and best.outcome == "D"


def _forced_mate(board: chess.Board, plies: int) -> bool:
    """The side to move mates within `plies` plies whatever the defence (plain search, no tables)."""
    if plies <= 0:
        return False
    for move in board.legal_moves:
        board.push(move)
        try:
            if board.is_checkmate() or _forced_loss(board, plies - 1):
                return True
        finally:
            board.pop()
    return False


def _forced_loss(board: chess.Board, plies: int) -> bool:
    """The side to move is mated within `plies` plies whatever it does."""
    if board.is_checkmate():
        return True
    if plies <= 0 or board.is_stalemate():
        return False
    for move in board.legal_moves:
        board.push(move)
        try:
            if not _forced_mate(board, plies - 1):
                return False
        finally:
            board.pop()
    return True


@pytest.mark.parametrize("name", ["KQvK", "KRvK", "KPvK"])
def test_short_mates_agree_with_a_brute_force_search(tablebase: Tables, name: str) -> None:
    table = tablebase[name]
    outcome, remoteness, broken = table.packed.unpack()
    rng = random.Random(3)
    for r in (1, 2, 3, 4):
        slots = np.flatnonzero((remoteness == r) & ~broken)
        assert slots.size, f"no {name} position at remoteness {r}"
        for slot in rng.sample(slots.tolist(), min(4, slots.size)):
            board = table.board_of_slot(slot)
            assert board is not None
            board = disguise(board, rng)
            if r % 2:
                assert outcome[slot] == 1
                assert _forced_mate(board, r) and not _forced_mate(board, r - 2), board.fen()
            else:
                assert outcome[slot] == -1
                assert _forced_loss(board, r) and not _forced_loss(board, r - 2), board.fen()
    # and positions that are not short mates are not found so by the search
    for slot in rng.sample(np.flatnonzero(((remoteness > 4) | (outcome == 0)) & ~broken).tolist(), 5):
        board = table.board_of_slot(slot)
        assert board is not None
        assert not _forced_mate(board, 3) and not _forced_loss(board, 2)


# -- the kind ----------------------------------------------------------------------------------------


def test_bad_positions_are_refused_quoting_them() -> None:
    krk = ChessGame(parse_material("KRvK"))
    cases = {
        "not a fen": "malformed",
        "8/8/8/8/8/8/8/KR5k x - - 0 1": "malformed",
        "8/8/8/8/8/8/R7/Kk6 w - - 0 1": "not to move is in check",  # kings adjacent
        "k7/8/8/8/8/8/8/R6K w - - 0 1": "not to move is in check",
        "k7/8/8/8/8/8/8/1Q5K w - - 0 1": "KQvK, not the material",
        "k7/8/8/8/8/8/8/1RR4K w - - 0 1": "KRRvK, not the material",
        "k7/8/8/8/8/8/8/4K2R w K - 0 1": "castling",
        "8/8/8/8/8/8/8/KR6 w - - 0 1": "Black has no king",
    }
    for fen, why in cases.items():
        with pytest.raises(InvalidPosition, match=why) as error:
            krk.parse(fen)
        assert repr(fen) in str(error.value)


def test_kind_answers(served: Context) -> None:
    krk = ChessGame(parse_material("KRvK"))
    assert krk.game_id == "chess:KRvK"
    board = krk.parse("k7/8/1K6/8/8/8/8/7R w - - 12 40")
    fen = krk.format(board)
    assert fen == "k7/8/1K6/8/8/8/8/7R w - - 12 40" == board.fen()  # the clocks are kept
    answer = krk.best_moves(board, 3, served)
    assert answer.value.as_dict() == {
        "game": "chess:KRvK", "position": fen, "outcome": "N", "remoteness": 1, "source": "table",
        "dtm": 1, "category": "win", "checkmate": False, "stalemate": False,
        "insufficient_material": False,
    }  # fmt: skip
    first = answer.moves[0].as_dict()
    assert first["move"] == "h1h8" and first["san"] == "Rh8#" and first["uci"] == "h1h8"
    assert first["zeroing"] is False and first["conversion"] is False
    assert first["position"] == "k6R/8/1K6/8/8/8/8/8 b - - 13 40" and first["outcome"] == "P"
    assert len(answer.moves) == 3
    assert krk.format(board) == fen  # the board is left as parsed
    assert krk.value(board, served) == answer.value
    stats = krk.stats(served)
    assert stats["longest_win"] == 31 and stats["wins"] and stats["draws"] and stats["source"] == "table"
    for name in ("KRvK", "KvK", "KPvK"):
        game = ChessGame(parse_material(name))
        examples = game.info().examples
        assert examples
        for example in examples:
            assert game.format(game.parse(example)) == example
            assert game.value(game.parse(example), served).position == example


def test_a_fen_is_parsed_once_per_request(served: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    """GetValue and BestMove read the FEN once (the kind's `parse`); the tables look the board up."""
    game = ChessGame(parse_material("KRvK"))
    fen = "8/8/8/8/8/8/kR6/7K b - - 0 1"  # its moves lead into KvK too
    game.best_moves(game.parse(fen), None, served)  # the tables read from storage first
    parsed: list[str] = []
    set_fen = chess.Board.set_fen

    def counted(board: chess.Board, text: str) -> None:
        parsed.append(text)
        set_fen(board, text)

    monkeypatch.setattr(chess.Board, "set_fen", counted)
    game.best_moves(game.parse(fen), None, served)
    assert parsed == [fen]
    parsed.clear()
    game.value(game.parse(fen), served)
    assert parsed == [fen]


def test_the_kind_answers_as_its_tables(tablebase: Tables, served: Context) -> None:
    """The kind, reading the tables from storage and parsing FENs, answers as the tables' lookups on
    the boards; a table's bytes read back as the same table."""
    krk = tablebase["KRvK"]
    assert np.array_equal(Packed.from_bytes(krk.to_bytes()).codes, krk.packed.codes)
    rng = random.Random(1)
    for _, board in valid_boards(krk.material, rng, 50):
        fen = board.fen()
        assert value_of(served, "KRvK", fen)._replace(kind=None) == krk.value(board)
        served_moves = {m.move: m for m in moves_of(served, "KRvK", fen)}
        table_moves = {m.move: m for m in krk.moves(board)}
        assert served_moves.keys() == table_moves.keys()
        for uci, move in table_moves.items():  # the same values; the kind's positions count the clocks on
            served_value, table_value = served_moves[uci].value, move.value
            assert (served_value.outcome, served_value.remoteness) == (
                table_value.outcome,
                table_value.remoteness,
            )
            assert served_value.position.split()[:2] == table_value.position.split()[:2]
    with pytest.raises(ValueError):
        ChessTable(krk.material, Packed.from_bytes(tablebase["KvK"].to_bytes()))
    # A table whose sub-tables are not loaded answers values, and refuses moves leading into them.
    alone = ChessTable(krk.material, krk.packed)
    board = chess.Board("8/8/8/8/8/8/kR6/7K b - - 0 1")
    assert alone.value(board).outcome == "D"
    with pytest.raises(LimitExceeded, match="KvK"):
        alone.moves(board)


class Refusing(StoredWords):
    """Nothing stored, and a refusal that says what it refuses (the service's names the queued job)."""

    def refusal(
        self, game_id: str, family: str, message: str, *, precondition: bool = False
    ) -> LimitExceeded:
        return LimitExceeded(f"{game_id} {family}: {message}")


def test_the_kinds_own_settings_reach_it() -> None:
    """NIMBASE_LIMITS_CHESS_LIVE_MEN and NIMBASE_CACHE_CHESS_TABLE_BYTES, read as the service reads them:
    two men refuse a three-man table no worker stored; a one-byte budget keeps no table."""
    fen = "k7/8/1K6/8/8/8/8/7R w - - 0 1"
    two = engine_context(Refusing(), settings=kind_settings(NIMBASE_LIMITS_CHESS_LIVE_MEN="2"))
    with pytest.raises(
        LimitExceeded, match=r"only tables of up to 2 men .*\(NIMBASE_LIMITS_CHESS_LIVE_MEN\)"
    ):
        value_of(two, "KRvK", fen)
    assert value_of(two, "KvK", "k7/8/1K6/8/8/8/8/8 w - - 0 1").source == "live"  # two men: solved
    assert value_of(engine_context(Refusing()), "KRvK", fen).source == "live"  # the default, 3
    tiny = engine_context(Refusing(), settings=kind_settings(NIMBASE_CACHE_CHESS_TABLE_BYTES="1"))
    assert value_of(tiny, "KRvK", fen).source == "live"
    assert tiny.kept.keeper(TABLES).max_bytes == 1 and tiny.kept.keeper(TABLES).kept_bytes == 0
