"""Chess endgame tables: materials, the perfect index, the numba move generator move for move against
python-chess, known results (the longest KQvK and KRvK wins), the retrograde equations over sampled
positions (DTM and DTZ recomputed from python-chess's moves), a brute-force search of short mates
agreeing with the tables, and the kind's answers."""

from __future__ import annotations

import random
from collections.abc import Iterator

import chess
import numpy as np
import pytest
from numpy.typing import NDArray

from engine.errors import InvalidGameId, InvalidPosition, LimitExceeded
from engine.kind import Context
from engine.stored_bytes import encode_words
from engine.values import MoveValue, Value
from kinds.chess import tables as chess_tables
from kinds.chess.blocks import values_from_bytes
from kinds.chess.kernels import index as ix
from kinds.chess.kernels import movegen as mg
from kinds.chess.kernels import retro
from kinds.chess.kernels.values import NONE, after, better, zeroing
from kinds.chess.kind import TABLE, TABLES, ChessGame, TableKernel
from kinds.chess.tables import (
    ChessTable,
    Material,
    all_materials,
    board_material,
    board_of_slot,
    parse_material,
    slot_of_board,
)
from tests.engine.contexts import StoredWords, engine_context, kind_settings
from tests.kinds.chess import oracle

Tables = dict[str, ChessTable]


@pytest.fixture
def served(tablebase: Tables) -> Iterator[Context]:
    """A request's context whose storage holds the tables of `tablebase` as workers' jobs store them, and
    fresh keepers (no table kept in the process): the kind answers from them (`source` "table")."""
    stored = StoredWords()
    for table in tablebase.values():
        stored.words[(table.material.game_id, TABLE)] = encode_words(table.to_bytes())
    ChessGame(parse_material("KvK")).load_kernels()  # as a server does before ready, not under a deadline
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


def dtm_outcomes(table: ChessTable) -> tuple[NDArray[np.int8], NDArray[np.int32], NDArray[np.bool_]]:
    """Per slot: the DTM outcome (1, 0, -1), its remoteness in plies (-1 for a draw) and whether the
    slot names no position."""
    dtm = table.packed.dtm.astype(np.int32)
    remoteness = np.where(dtm > 0, dtm, np.where(dtm < 0, -dtm - 1, -1)).astype(np.int32)
    broken = ~ix.valid_mask(table.material.spec, 0, len(table.packed))
    return np.sign(dtm).astype(np.int8), remoteness, broken


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
    for name in ("KQRvKR", "KPPvK", "KRPvK", "KPvKP", "KPPvKP"):
        assert parse_material(name).name == name
    for too_many in ("KQRvKRR", "KPPPvKP"):
        with pytest.raises(InvalidGameId, match="at most 5 men"):
            parse_material(too_many)


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
        "KPvKP",
        "KRvKP",
        "KPPvK",
    ):
        assert name in names
    assert len(names) == 36  # KvK and the 35 materials of the 3- and 4-man Syzygy tables
    for i, material in enumerate(all_materials()):
        for sub in material.sub_materials():
            assert names.index(sub.name) < i
    assert {m.name for m in parse_material("KPvK").sub_materials()} == {"KvK", "KQvK", "KRvK", "KBvK", "KNvK"}
    assert {m.name for m in parse_material("KQvKR").sub_materials()} == {"KQvK", "KRvK"}


def test_index_sizes() -> None:
    assert (mg.KK_INDEX >= 0).sum() == 462
    assert parse_material("KQvKR").slots == 2 * 462 * 64 * 64
    assert parse_material("KBBvK").slots == 2 * 462 * 64 * 64
    assert parse_material("KPvK").slots == 24 * 2 * 4096
    assert parse_material("KPvKP").slots == 24 * 48 * 2 * 4096
    assert parse_material("KRvK").slots == 2 * 462 * 64
    assert parse_material("KQRvKR").slots == 2 * 462 * 64**3
    assert parse_material("KRPvKR").slots == 24 * 2 * 4096 * 64 * 64


def _men(material: Material) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], int]:
    sq = np.zeros(5, np.int64)
    kinds = np.zeros(5, np.int64)
    owners = np.zeros(5, np.int64)
    return sq, kinds, owners, int(ix.men_of(material.spec, kinds, owners))


def _board(sq: NDArray[np.int64], kinds: NDArray[np.int64], owners: NDArray[np.int64], n: int) -> chess.Board:
    board = chess.Board(None)
    for k in range(n):
        board.set_piece_at(int(sq[k]), chess.Piece(int(kinds[k]), bool(owners[k] == 0)))
    return board


INDEX_MATERIALS = [m.name for m in all_materials()] + ["KQRvKR", "KRPvKR", "KPPvKP", "KNNNvK", "KRPPvK"]


@pytest.mark.parametrize("name", INDEX_MATERIALS)
def test_canonical_slot_is_the_least_symmetric_image(name: str) -> None:
    """`canonical` against its plain reference, on random slots and their symmetric images; a valid
    slot is its own canonical slot, and decoding it gives its men back."""
    material = parse_material(name)
    spec = material.spec
    rng = random.Random(name)
    sq, kinds, owners, n = _men(material)
    image = np.zeros(5, np.int64)
    checked = 0
    for _ in range(300):
        slot = rng.randrange(material.slots)
        stm = ix.valid(spec, slot, sq, kinds, owners, image)
        if stm < 0:
            continue
        checked += 1
        men = [int(s) for s in sq[:n]]
        assert ix.canonical(spec, sq, stm, image) == slot == ix.canonical_reference(spec, men, stm)
        assert ix.encode(spec, sq, stm) == slot
        for t in range(2 if material.pawnful else 8):
            moved = np.array([ix.transform_reference(s, t) for s in men] + [0] * (5 - n), np.int64)
            assert ix.canonical(spec, moved, stm, image) == slot
    assert checked >= 20


# -- the move generator against python-chess ---------------------------------------------------------------


@pytest.mark.parametrize("name", INDEX_MATERIALS)
def test_move_generator_matches_python_chess(name: str) -> None:
    """Every legal move of sampled positions, and the material each capture or promotion leads to;
    the predecessors of a position (un-moves) are the positions whose king or piece move reaches it."""
    material = parse_material(name)
    spec = material.spec
    rng = random.Random(name)
    sq, kinds, owners, n = _men(material)
    image = np.zeros(5, np.int64)
    out = np.empty(4 * mg.MAX_MOVES, np.int64)
    preds = np.empty(retro.MAX_PREDECESSORS, np.int64)
    work = np.empty(10, np.int64)
    exits = {(c, pm, promo): sub for c, pm, promo, sub, _, _ in material.exits()}
    checked = 0
    while checked < 30:
        slot = rng.randrange(material.slots)
        stm = ix.valid(spec, slot, sq, kinds, owners, image)
        if stm < 0:
            continue
        checked += 1
        board = _board(sq, kinds, owners, n)
        board.turn = stm == 0
        assert board.is_valid(), board.fen()
        count = mg.legal_moves(sq, kinds, owners, n, stm, out)
        ours = {}
        for i in range(count):
            j, to, promo, cap = (int(x) for x in out[4 * i : 4 * i + 4])
            ours[chess.Move(int(sq[j]), to, promo or None).uci()] = (j, cap, promo)
        assert set(ours) == {m.uci() for m in board.legal_moves}, board.fen()
        for move in board.legal_moves:
            j, cap, promo = ours[move.uci()]
            board.push(move)
            found, _ = board_material(board)
            if cap < 0 and not promo:
                assert found == material
            else:
                assert exits[(cap - 2 if cap >= 0 else -1, j - 2 if promo else -1, promo)] == found
            board.pop()
        # predecessors: every (canonical) position with a king or piece move into this one, no other
        count = retro.predecessors(spec, slot, sq, kinds, owners, stm, preds, work)
        ours_preds = {int(p) for p in preds[:count]}
        assert len(ours_preds) == count, board.fen()  # each predecessor once: `deg` counts distinct children
        expected: set[int] = set()
        mover = not board.turn
        for square, piece in board.piece_map().items():
            if piece.color != mover or piece.piece_type == chess.PAWN:
                continue
            for origin in chess.SQUARES:
                if board.piece_at(origin) is not None:
                    continue
                before = board.copy(stack=False)
                before.remove_piece_at(square)
                before.set_piece_at(origin, piece)
                before.turn = mover
                if not before.is_valid() or chess.Move(origin, square) not in before.legal_moves:
                    continue
                expected.add(slot_of_board(material, before))
        assert ours_preds == expected, board.fen()


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


def expected_values(table: ChessTable, board: chess.Board) -> tuple[int, int]:
    """(DTM, DTZ) of a board recomputed from its moves in plain Python (python-chess's moves, the
    tables' values of the positions they reach): the retrograde equations the solve must satisfy."""
    if not any(board.legal_moves):
        mated = board.is_check()
        return (-1, -1) if mated else (0, 0)
    best_m, best_z = NONE, NONE
    for move in list(board.legal_moves):
        zeroing_move = board.is_zeroing(move)
        board.push(move)
        vm, vz = table.encoded(board)
        board.pop()
        best_m = better(best_m, after(vm))
        best_z = better(best_z, zeroing(vz) if zeroing_move else after(vz))
    return best_m, best_z


#: Positions `make test` checks against the equations per material (python-chess lists each one's
#: moves: some milliseconds a position); marked slow, every position of KQvK and KRvK.
EQUATION_SAMPLE = 4000


@pytest.mark.parametrize(
    ("name", "sample"),
    [
        ("KQvK", EQUATION_SAMPLE),
        ("KRvK", EQUATION_SAMPLE),
        ("KPvK", EQUATION_SAMPLE),
        pytest.param("KQvK", None, id="KQvK-every", marks=pytest.mark.slow),
        pytest.param("KRvK", None, id="KRvK-every", marks=pytest.mark.slow),
    ],
)
def test_values_satisfy_the_retrograde_equations(tablebase: Tables, name: str, sample: int | None) -> None:
    """DTM: wins are 1 + the quickest move to a loss, losses 1 + the slowest move (all to wins), draws
    neither; DTZ the same with zeroing moves valued from the fifty-move rule's outcome they reach.
    Holding at every position, these determine the values: checked on `sample` random positions of
    each material, and (slow) on every position of KQvK and KRvK (tests.chess_equations checks every
    position of all three in `make test` with its own move generation)."""
    table = tablebase[name]
    valid = np.flatnonzero(ix.valid_mask(table.material.spec, 0, len(table.packed)))
    rng = np.random.default_rng(7)
    slots = valid if sample is None else rng.choice(valid, sample, replace=False)
    wrong = []
    for slot in slots.tolist():
        board = table.board_of_slot(slot)
        assert board is not None
        if expected_values(table, board) != table.packed.lookup(slot):
            wrong.append((board.fen(), expected_values(table, board), table.packed.lookup(slot)))
    assert not wrong, wrong[:5]


def oracle_value(board: chess.Board) -> tuple[str, int | None] | None:
    """The brute-force value of a board (tests.kinds.chess.oracle) for the side to move, where it has one: a
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
    position it leads to (tests.kinds.chess.oracle: no index, no move generator of the tables'); the value
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
    outcome, remoteness, broken = dtm_outcomes(table)
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
        "dtz": 1, "precise_dtz": 1, "dtm": 1, "category": "win", "checkmate": False, "stalemate": False,
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
    again = values_from_bytes(krk.to_bytes(), {"KvK": tablebase["KvK"].packed})
    assert np.array_equal(again.dtm, krk.packed.dtm) and np.array_equal(again.dtz, krk.packed.dtz)
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
        ChessTable(krk.material, values_from_bytes(tablebase["KvK"].to_bytes()))
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


def test_stats_stored_beside_a_table_are_those_of_the_table(tablebase: Tables) -> None:
    """The statistics the job's kernel makes as it solves a table (stored beside it) are the table's own
    (`ChessTable.stats`), and GetStats answers from them without reading the table."""
    for name in ("KRvK", "KQvK", "KPvK"):
        material = parse_material(name)
        kernel = TableKernel(material)
        kernel.give({need: tablebase[need.game_id.partition(":")[2]].to_bytes() for need in kernel.needs()})
        words = kernel.words()
        stats = kernel.stats_part(words, 0)
        assert kernel.stores_stats
        subs = {sub.name: tablebase[sub.name].packed for sub in material.sub_materials()}
        assert stats == ChessTable(material, values_from_bytes(kernel.make(), subs), {}, "table").stats()
        assert stats is not None and kernel.stats_part(words[:-1], 0) is None
        stored = StoredWords()  # the statistics stored, not the table: GetStats reads only them
        stored.stats[(material.game_id, TABLE)] = stats
        assert ChessGame(material).stats(engine_context(stored)) == stats
        with_table = StoredWords()
        with_table.words[(material.game_id, TABLE)] = words
        assert ChessGame(material).stats(engine_context(with_table)) == stats


def whole_table_stats(table: ChessTable) -> dict[str, object]:
    """The statistics counted over the whole table at once (how they were counted before pieces): the
    reference `ChessTable.stats` is compared with."""
    packed = table.packed
    dtm = packed.dtm
    once = ix.valid_mask(table.material.spec, 0, len(packed))
    wins, losses = (dtm > 0) & once, (dtm < 0) & once
    remoteness = np.where(dtm > 0, dtm, -dtm.astype(np.int32) - 1)
    out: dict[str, object] = {
        "positions": int(once.sum()),
        "wins": int(wins.sum()),
        "losses": int(losses.sum()),
        "draws": int(((dtm == 0) & once).sum()),
        "longest_win": int(remoteness[wins].max(initial=0)),
        "longest_loss": int(remoteness[losses].max(initial=0)),
    }
    for key, mask in (("longest_win_position", wins), ("longest_loss_position", losses)):
        if mask.any():
            board = table.board_of_slot(int(np.flatnonzero(mask)[np.argmax(remoteness[mask])]))
            assert board is not None
            out[key] = chess_tables.canonical_fen(board)
    return out


@pytest.mark.parametrize("piece", [1000, 4096, 1 << 24])
def test_stats_counted_by_pieces_are_those_of_the_whole_table(
    tablebase: Tables, monkeypatch: pytest.MonkeyPatch, piece: int
) -> None:
    """Counted a piece at a time (a five-man table's temporaries would take more than its values), the
    statistics are those of the whole table at once, the first longest positions among them."""
    monkeypatch.setattr(chess_tables, "STATS_PIECE", piece)
    for name in ("KvK", "KQvK", "KRvK", "KPvK"):
        table = tablebase[name]
        fresh = ChessTable(table.material, table.packed, tablebase)
        stats = fresh.stats()
        expected = whole_table_stats(fresh)
        for key, value in expected.items():
            if key.endswith("_position"):
                assert chess.Board(str(stats[key])).board_fen() == chess.Board(str(value)).board_fen(), (
                    name,
                    key,
                )
            else:
                assert stats[key] == value, (name, key)
        assert ("longest_loss_position" in stats) == ("longest_loss_position" in expected)
