"""Chess endgames (`chess:MATERIAL`) through the public API: real gRPC and REST servers over a real
`Nimbase` (and the test PostgreSQL) on loopback, a real worker storing a table.

Known results are checked as a client sees them (the longest KQvK and KRvK wins, a mate, a stalemate),
and every move BestMove lists against python-chess: legal, its UCI and SAN, the FEN it reaches, and the
value of that position as GetValue gives it, consistent with the value of the position moved from.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from typing import Any

import chess
import numpy as np
import pytest
import sqlalchemy as sa

from engine import keep
from engine.stored_bytes import decode_words
from kinds.chess.blocks import HEADER_BYTES, BlockIndex, is_blocked
from nimbase.client import NimbaseClientError
from storage.packing import CHUNK_VALUES
from storage.sequences import SequenceStore
from tests.engine.contexts import fresh_keepers
from tests.servers import Endpoints, serving_api
from worker.runner import Worker

TOKEN = "chess-token"
#: A mate (Black to move, mated by the rook), a stalemate (Black to move) and KRvK's longest win.
KRVK_MATE = "R1k5/8/2K5/8/8/8/8/8 b - - 0 1"
KQVK_STALEMATE = "k7/2Q5/1K6/8/8/8/8/8 b - - 0 1"


@pytest.fixture(scope="module")
def api(db_engine: sa.Engine) -> Iterator[Endpoints]:
    """Both servers over a real Nimbase (its own keepers: no table kept in the process), on an emptied
    database."""
    with serving_api(db_engine, TOKEN) as endpoints:
        yield endpoints


def rest(api: Endpoints, route: str, **params: Any) -> Any:
    response = api.http.get(route, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def canonical(board: chess.Board) -> str:
    return f"{board.board_fen()} {'w' if board.turn else 'b'} - - 0 1"


def random_boards(pieces: str, count: int, seed: int) -> Iterator[chess.Board]:
    """Legal positions with the kings and `pieces` (White's, upper case) on random squares, either side to
    move."""
    rng = random.Random(seed)
    found = 0
    while found < count:
        board = chess.Board(None)
        squares = rng.sample(chess.SQUARES, 2 + len(pieces))
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        for symbol, square in zip(pieces, squares[2:], strict=True):
            board.set_piece_at(square, chess.Piece.from_symbol(symbol))
        board.turn = rng.random() < 0.5
        if board.is_valid():
            found += 1
            yield board


# -- known results -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("material", "plies"), [("KQvK", 19), ("KRvK", 31)])
def test_the_longest_wins(api: Endpoints, material: str, plies: int) -> None:
    """The longest KQvK win is a mate in 10 (19 plies), KRvK's a mate in 16 (31 plies), White to move."""
    game = f"chess:{material}"
    stats = api.client.get_stats(game)
    assert stats["longest_win"] == plies
    assert stats["wins"] > 0 and stats["losses"] > 0 and stats["draws"] > 0
    assert rest(api, "/v1/stats", game=game)["longest_win"] == plies
    fen = str(stats["longest_win_position"])
    assert chess.Board(fen).turn == chess.WHITE
    value = api.client.get_value(game, fen)
    assert value == {
        "game": game, "position": fen, "outcome": "N", "remoteness": plies, "source": "live",
        "dtz": plies, "precise_dtz": plies, "dtm": plies, "category": "win", "checkmate": False,
        "stalemate": False, "insufficient_material": False,
    }  # fmt: skip
    assert rest(api, "/v1/value", game=game, position=fen) == value


def test_a_mate_is_lost_at_remoteness_0_and_has_no_move(api: Endpoints) -> None:
    assert chess.Board(KRVK_MATE).is_checkmate()
    value = api.client.get_value("chess:KRvK", KRVK_MATE)
    assert (value["outcome"], value["remoteness"]) == ("P", 0) and "grundy" not in value
    assert api.client.is_p_position("chess:KRvK", KRVK_MATE)["p_position"] is True
    answer = rest(api, "/v1/best-move", game="chess:KRvK", position=KRVK_MATE)
    assert answer["moves"] == [] and "best_move" not in answer


def test_a_stalemate_is_a_draw(api: Endpoints) -> None:
    assert chess.Board(KQVK_STALEMATE).is_stalemate()
    value = api.client.get_value("chess:KQvK", KQVK_STALEMATE)
    assert value["outcome"] == "D" and "remoteness" not in value
    assert api.client.is_p_position("chess:KQvK", KQVK_STALEMATE)["p_position"] is False


def test_either_colouring_and_any_fen_spelling(api: Endpoints) -> None:
    """Black with the rook is the same table; the answer's position is the canonical FEN."""
    white = api.client.get_value("chess:KRvK", "8/8/8/8/8/2k5/8/KR6 w - - 0 1")
    black = api.client.get_value("chess:KRvK", "kr6/8/2K5/8/8/8/8/8 b - - 12 40")
    assert black["position"] == "kr6/8/2K5/8/8/8/8/8 b - - 12 40"  # the clocks are kept
    assert (white["outcome"], white["remoteness"]) == (black["outcome"], black["remoteness"])
    assert api.client.get_value("chess:KvKR", KRVK_MATE)["game"] == "chess:KRvK"


# -- moves ---------------------------------------------------------------------------------------------


def check_moves(api: Endpoints, game: str, board: chess.Board) -> None:
    """BestMove over both transports: every legal move once, in UCI and SAN with the FEN reached and its
    value (GetValue's), best first, consistent with the value of the position moved from."""
    fen = canonical(board)
    answer = api.client.best_move(game, fen)
    assert rest(api, "/v1/best-move", game=game, position=fen) == answer
    assert sorted(m["uci"] for m in answer["moves"]) == sorted(m.uci() for m in board.legal_moves)
    for move in answer["moves"]:
        played = chess.Move.from_uci(move["uci"])
        assert move["move"] == move["uci"] and move["san"] == board.san(played)
        after = board.copy()
        after.push(played)
        assert move["position"] == after.fen(en_passant="legal")  # the clocks counted on
        assert move["zeroing"] == board.is_zeroing(played)
        assert move["conversion"] == (board.is_capture(played) or played.promotion is not None)
        reached = api.client.get_value(_game_of(after), move["position"])
        assert {k: reached.get(k) for k in ("outcome", "remoteness")} == {
            k: move.get(k) for k in ("outcome", "remoteness")
        }
    outcomes = [m["outcome"] for m in answer["moves"]]
    if answer["outcome"] == "N":  # the fastest win: to a lost position one ply nearer the end
        assert outcomes[0] == "P" and answer["moves"][0]["remoteness"] == answer["remoteness"] - 1
        assert answer["best_move"] == answer["moves"][0]
        assert answer["remoteness"] - 1 == min(
            m["remoteness"] for m in answer["moves"] if m["outcome"] == "P"
        )
    elif answer["outcome"] == "P":  # every move wins for the opponent; the loser delays
        assert set(outcomes) <= {"N"}
        if outcomes:
            assert answer["remoteness"] - 1 == max(m["remoteness"] for m in answer["moves"])
            assert answer["moves"][0]["remoteness"] == answer["remoteness"] - 1
    else:  # a draw: no move to a lost position, and one to a draw (or none at all: stalemate)
        assert "P" not in outcomes
        assert not outcomes or outcomes[0] == "D"


def _game_of(board: chess.Board) -> str:
    """The game id of a board's material (another one after a capture or a promotion)."""
    men = [p for p in board.piece_map().values() if p.piece_type != chess.KING]
    white = "".join(p.symbol().upper() for p in men if p.color == chess.WHITE)
    black = "".join(p.symbol().upper() for p in men if p.color == chess.BLACK)
    return f"chess:K{white}vK{black}"


@pytest.mark.parametrize(("material", "pieces"), [("KQvK", "Q"), ("KRvK", "R")])
def test_best_moves_are_legal_and_consistent(api: Endpoints, material: str, pieces: str) -> None:
    for board in random_boards(pieces, 12, seed=len(material) + ord(pieces)):
        check_moves(api, f"chess:{material}", board)


def test_a_capture_leads_into_the_smaller_table(api: Endpoints) -> None:
    """Black takes the undefended rook: KvK, a draw; so the position is a draw."""
    fen = "8/8/8/8/8/8/k7/1R5K b - - 0 1"
    answer = api.client.best_move("chess:KRvK", fen)
    assert answer["outcome"] == "D"
    best = answer["best_move"]
    assert (best["uci"], best["san"], best["outcome"]) == ("a2b1", "Kxb1", "D")
    assert best["position"] == "8/8/8/8/8/8/8/1k5K w - - 0 2"  # a capture: the clock reset, Black moved
    assert best["zeroing"] is True and best["conversion"] is True
    assert api.client.get_value("chess:KvK", best["position"])["outcome"] == "D"
    check_moves(api, "chess:KRvK", chess.Board(fen))


def test_kpvk_promotions(api: Endpoints) -> None:
    """A pawn about to promote: the promotions (to queen, rook, bishop, knight) lead into their tables."""
    board = chess.Board("8/4P3/8/8/8/8/k7/4K3 w - - 0 1")
    answer = api.client.best_move("chess:KPvK", canonical(board))
    assert answer["outcome"] == "N"
    promotions = {m["uci"]: m for m in answer["moves"] if len(m["uci"]) == 5}
    assert set(promotions) == {"e7e8q", "e7e8r", "e7e8b", "e7e8n"}
    assert promotions["e7e8q"]["san"] == "e8=Q" and promotions["e7e8b"]["outcome"] == "D"
    check_moves(api, "chess:KPvK", board)


# -- refusals ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "fen", "why"),
    [
        ("chess:KRvK", "not a fen", "malformed FEN"),
        ("chess:KRvK", "8/8/8/8/8/8/8/Kk5R w - - 0 1", "illegal position"),
        ("chess:KRvK", "8/8/8/8/8/2k5/8/KQ6 w - - 0 1", "is KQvK, not the material"),
        ("chess:KRvK", "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "castling rights"),
        ("chess:KRvK", "8/8/8/8/8/2k5/8/KR6 x - - 0 1", "malformed FEN"),
        ("chess:KQvK", "", "malformed FEN"),
    ],
)
def test_bad_fens_are_refused_quoting_them(api: Endpoints, game: str, fen: str, why: str) -> None:
    for route in ("/v1/value", "/v1/best-move", "/v1/is-p-position"):
        response = api.http.get(route, params={"game": game, "position": fen})
        assert response.status_code == 400, response.text
        error = response.json()["error"]
        assert (
            error["code"] == "INVALID_ARGUMENT" and repr(fen) in error["message"] and why in error["message"]
        )
    with pytest.raises(NimbaseClientError) as info:
        api.client.get_value(game, fen)
    assert info.value.code == "INVALID_ARGUMENT" and repr(fen) in info.value.message


@pytest.mark.parametrize(
    "game", ["chess:KRRRvK", "chess:KPPvK", "chess:KRvKP", "chess:Kv", "chess:krvk", "chess"]
)
def test_unsupported_materials_are_refused(api: Endpoints, game: str) -> None:
    response = api.http.get("/v1/value", params={"game": game, "position": "8/8/8/8/8/2k5/8/KR6 w - - 0 1"})
    assert response.status_code == 400 and response.json()["error"]["code"] == "INVALID_ARGUMENT"


def test_a_four_man_table_not_stored_names_its_job(api: Endpoints) -> None:
    """Four men are not solved for a request: RESOURCE_EXHAUSTED (422) naming the job queued to store it."""
    fen = "8/8/8/8/8/2k5/8/KQ3r2 w - - 0 1"
    response = api.http.get("/v1/value", params={"game": "chess:KQvKR", "position": fen})
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["code"] == "RESOURCE_EXHAUSTED" and "NIMBASE_LIMITS_CHESS_LIVE_MEN" in error["message"]
    job = error["job"]
    assert (job["game"], job["family"], job["status"]) == ("chess:KQvKR", "table", "queued")
    assert f"job {job['id']}" in error["message"]
    with pytest.raises(NimbaseClientError) as info:
        api.client.best_move("chess:KQvKR", fen)
    assert info.value.code == "RESOURCE_EXHAUSTED" and info.value.job is not None
    assert info.value.job["id"] == job["id"]
    # the job waits for the jobs storing the tables it reads (KQvK, KRvK, and KvK, which they read: a
    # table of one side to move is read whole from its own sub-tables), queued with it
    waits_for = api.client.get_job(job["id"])["waits_for"]
    assert len(waits_for) == 3
    for queued in [job["id"], *waits_for]:
        api.client.cancel_job(queued)  # the worker test below runs every queued job


# -- the stored table ----------------------------------------------------------------------------------


def test_a_worker_stores_the_krvk_table(api: Endpoints, monkeypatch: pytest.MonkeyPatch) -> None:
    fen = "8/8/8/8/8/2k5/8/KR6 w - - 0 1"
    # The live table looks for a stored one only every STORED_RECHECK_SECONDS, not at every request
    # (not even once the jobs below, KRvK's and KvK's, have taken longer than that).
    monkeypatch.setattr(keep, "STORED_RECHECK_SECONDS", 3600.0)
    before = api.client.get_value("chess:KRvK", fen)
    assert before["source"] == "live"
    job = api.client.submit_job("chess:KRvK", 0)
    assert (job["family"], job["status"]) == ("table", "queued")
    Worker(api.db, poll_seconds=0.05).run_until_idle(threading.Event())
    done = api.client.get_job(job["id"])
    assert done["status"] == "done" and done["progress"]["done"] == done["progress"]["total"] > 0
    # stored at under a byte a position: words of 4 bytes, fewer than a quarter of the positions
    info = SequenceStore(api.db).info("chess:KRvK", "table")
    stats = api.client.get_stats("chess:KRvK")
    assert info is not None and 4 * info.computed_upto < int(stats["positions"])
    api.service.tables.forget()  # the stored header is seen at once (not after its two seconds)
    assert api.client.get_value("chess:KRvK", fen) == before
    monkeypatch.setattr(keep, "STORED_RECHECK_SECONDS", 0.0)
    after = api.client.get_value("chess:KRvK", fen)
    assert after == {**before, "source": "table"}
    assert api.client.get_stats("chess:KRvK")["source"] == "table"
    # as a server started afresh: read from storage once, then kept
    monkeypatch.setattr(api.service, "kept", fresh_keepers())
    assert api.client.get_value("chess:KRvK", fen)["source"] == "table"
    check_moves(api, "chess:KRvK", chess.Board("8/8/8/3k4/8/8/8/KR6 b - - 0 1"))
    with pytest.raises(NimbaseClientError) as info_error:
        api.client.submit_job("chess:KRvK", 0, family="heap")
    assert info_error.value.code == "INVALID_ARGUMENT"


def test_a_stored_table_is_read_by_blocks_and_a_damaged_block_refused(
    api: Endpoints, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker stored KRvK's table as plain words, so a block is read from the database by its range
    alone, unchecked by the chunk's checksum: a block damaged in the database fails its own CRC-32 and is
    refused (UNAVAILABLE), never answered; stored right again, it answers."""
    fen = "8/8/8/8/8/2k5/8/KR6 w - - 0 1"
    key = {"g": "chess:KRvK", "f": "table"}
    with api.db.connect() as conn:
        rows = conn.execute(
            sa.text(
                "SELECT chunk_index, width, codec, payload FROM sequence_chunks "
                "WHERE game_id = :g AND family = :f ORDER BY chunk_index"
            ),
            key,
        ).all()
    assert rows and all((row.width, row.codec) == (32, 0) for row in rows)
    stored = b"".join(bytes(row.payload) for row in rows)
    data = decode_words(np.frombuffer(stored, dtype="<u4").astype(np.uint32))
    assert is_blocked(data)
    index = BlockIndex(data[:HEADER_BYTES], lambda start, stop: data[start:stop])
    damaged = bytearray(stored)
    for block in range(index.blocks):  # a byte of every block flipped, after the two words of its size
        damaged[8 + index.base + int(index.offsets[block])] ^= 1

    def put(payload: bytes) -> None:
        with api.db.begin() as conn:
            for row in rows:
                at = 4 * CHUNK_VALUES * row.chunk_index
                conn.execute(
                    sa.text(
                        "UPDATE sequence_chunks SET payload = :p "
                        "WHERE game_id = :g AND family = :f AND chunk_index = :i"
                    ),
                    {**key, "i": row.chunk_index, "p": payload[at : at + len(row.payload)]},
                )
        api.service.tables.forget()  # no chunk kept from before
        monkeypatch.setattr(api.service, "kept", fresh_keepers())  # no block kept either

    monkeypatch.setattr(keep, "STORED_RECHECK_SECONDS", 0.0)
    put(bytes(damaged))
    try:
        response = api.http.get("/v1/value", params={"game": "chess:KRvK", "position": fen})
        assert response.status_code == 503, response.text
        error = response.json()["error"]
        assert (
            error["code"] == "UNAVAILABLE"
            and "of the stored table of KRvK fails its checksum" in error["message"]
        )
    finally:
        put(stored)
    assert rest(api, "/v1/value", game="chess:KRvK", position=fen)["source"] == "table"


def test_chess_is_listed(api: Endpoints) -> None:
    games = {game["id"]: game for game in api.client.list_games()["games"]}
    assert "chess:KRvK" in games and "graph:NAME" in games
    examples = games["chess:KRvK"]["examples"]
    assert examples
    for fen in examples:
        value = api.client.get_value("chess:KRvK", fen)
        assert value["outcome"] in ("N", "P", "D") and value["position"] == fen
        assert canonical(chess.Board(fen)) == fen
