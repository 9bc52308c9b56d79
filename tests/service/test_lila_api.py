"""lichess's tablebase API (`GET /standard`, `GET /standard/mainline`) against lila-tablebase's documented
shape: real servers over a real `Nimbase` on loopback, nimbase's own tables (three men, solved live).

Checked: lila's field names, their order and types (src/response.rs: `PositionInfo` flattened beside
`moves`, each move `uci`, `san`, `zeroing`, `conversion` and the same fields); lila's category rules with
the halfmove clock (a position's own clock before the move counts: at 100 a win is cursed, a loss
blessed); its move order; its errors (400 plain text for a FEN it cannot read or an illegal position, 404
for castling rights, too many men, or a table it lacks); and a client written the way lichess's
tablebase clients are (a base URL, `GET {base}/standard?fen=` with underscores for spaces).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import chess
import httpx
import pytest
import sqlalchemy as sa

from tests.servers import Endpoints, serving_api

POSITION_FIELDS = [
    "checkmate",
    "stalemate",
    "variant_win",
    "variant_loss",
    "insufficient_material",
    "dtz",
    "precise_dtz",
    "dtm",
    "dtw",
    "dtc",
    "category",
]
MOVE_FIELDS = ["uci", "san", "zeroing", "conversion", *POSITION_FIELDS]
CATEGORIES = {"win", "unknown", "syzygy-win", "maybe-win", "cursed-win", "draw", "blessed-loss"}
CATEGORIES |= {"maybe-loss", "syzygy-loss", "loss"}
#: KRvK, White to move, mates in 27 plies.
KRVK = "8/8/8/8/8/2k5/8/KR6 w - - 0 1"
KRVK_MATE = "R1k5/8/2K5/8/8/8/8/8 b - - 0 1"
KQVK_STALEMATE = "k7/2Q5/1K6/8/8/8/8/8 b - - 0 1"


@pytest.fixture(scope="module")
def api(db_engine: sa.Engine) -> Iterator[Endpoints]:
    with serving_api(db_engine, "lila-token") as endpoints:
        yield endpoints


class LichessTablebase:
    """A client written as scripts of lichess's tablebase are: a base URL and `requests`-style GETs, the
    FEN with underscores for spaces, the JSON read as lila documents it."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url.rstrip("/")

    def probe(self, fen: str) -> dict[str, Any]:
        response = httpx.get(f"{self.base_url}/standard", params={"fen": fen.replace(" ", "_")}, timeout=60)
        response.raise_for_status()
        return dict(response.json())

    def mainline(self, fen: str) -> dict[str, Any]:
        response = httpx.get(f"{self.base_url}/standard/mainline", params={"fen": fen}, timeout=60)
        response.raise_for_status()
        return dict(response.json())


def lichess(api: Endpoints) -> LichessTablebase:
    return LichessTablebase(str(api.http.base_url))


def check_position_fields(info: dict[str, Any]) -> None:
    for flag in ("checkmate", "stalemate", "variant_win", "variant_loss", "insufficient_material"):
        assert isinstance(info[flag], bool)
    assert info["variant_win"] is False and info["variant_loss"] is False
    for metric in ("dtz", "precise_dtz", "dtm", "dtw", "dtc"):
        assert info[metric] is None or isinstance(info[metric], int)
    assert info["dtw"] is None and info["dtc"] is None
    assert info["category"] in CATEGORIES


def test_the_shape_is_lilas(api: Endpoints) -> None:
    answer = lichess(api).probe(KRVK)
    assert list(answer) == [*POSITION_FIELDS, "moves"]
    check_position_fields(answer)
    assert answer["category"] == "win" and answer["dtm"] == 27 and answer["checkmate"] is False
    board = chess.Board(KRVK)
    assert sorted(m["uci"] for m in answer["moves"]) == sorted(m.uci() for m in board.legal_moves)
    for move in answer["moves"]:
        assert list(move) == MOVE_FIELDS
        check_position_fields(move)
        played = chess.Move.from_uci(move["uci"])
        assert move["san"] == board.san(played)
        assert move["zeroing"] == board.is_zeroing(played)
        assert move["conversion"] == (board.is_capture(played) or played.promotion is not None)
    # the best move first: to the opponent's loss, the fastest mate (lila's DTM order)
    best = answer["moves"][0]
    assert best["category"] == "loss" and best["dtm"] == -26
    losses = [m["dtm"] for m in answer["moves"] if m["category"] == "loss"]
    assert losses == sorted(losses, reverse=True)


def test_moves_are_in_lilas_order(api: Endpoints) -> None:
    """Category (the opponent's: loss first), then DTM (the opponent's loss nearest first, its win
    farthest first)."""
    order = ["loss", "blessed-loss", "draw", "cursed-win", "win"]
    for fen in (KRVK, "8/8/8/8/8/8/k7/1R5K b - - 0 1", "8/4P3/8/8/8/8/k7/4K3 w - - 0 1"):
        moves = lichess(api).probe(fen)["moves"]
        ranks = [order.index(m["category"]) for m in moves]
        assert ranks == sorted(ranks), fen
        for category in ("loss", "win"):
            dtms = [abs(m["dtm"]) for m in moves if m["category"] == category]
            assert dtms == sorted(dtms, reverse=category == "win"), fen


def test_a_mate_and_a_stalemate(api: Endpoints) -> None:
    mate = lichess(api).probe(KRVK_MATE)
    assert (mate["checkmate"], mate["category"], mate["dtz"], mate["dtm"], mate["moves"]) == (
        True,
        "loss",
        -1,
        0,
        [],
    )
    stalemate = lichess(api).probe(KQVK_STALEMATE)
    assert (stalemate["stalemate"], stalemate["category"], stalemate["dtz"], stalemate["moves"]) == (
        True,
        "draw",
        0,
        [],
    )
    bare = lichess(api).probe("8/8/8/8/8/2k5/8/K7 w - - 0 1")
    assert bare["insufficient_material"] is True and bare["category"] == "draw"


@pytest.mark.parametrize(
    ("clock", "position", "best_move"),
    [
        (0, "win", "loss"),
        (73, "win", "loss"),  # DTZ 27: the winner zeroes at the hundredth ply, in time
        (74, "cursed-win", "blessed-loss"),  # one ply late: a draw can be claimed before the win
        (120, "cursed-win", "blessed-loss"),
    ],
)
def test_the_halfmove_clock_curses_a_win(api: Endpoints, clock: int, position: str, best_move: str) -> None:
    fen = f"8/8/8/8/8/2k5/8/KR6 w - - {clock} 70"
    answer = lichess(api).probe(fen)
    assert (answer["category"], answer["moves"][0]["category"]) == (position, best_move)
    assert api.client.get_value("chess:KRvK", fen)["category"] == position  # GetValue agrees


@pytest.mark.parametrize(("clock", "category"), [(0, "loss"), (100, "loss"), (101, "blessed-loss")])
def test_a_mate_after_the_fifty_moves_is_blessed(api: Endpoints, clock: int, category: str) -> None:
    """lila counts the mated position's clock before the mating move (one less): mate at 100 still
    loses, past it the draw was claimable first."""
    fen = KRVK_MATE.replace(" 0 1", f" {clock} 80")
    assert lichess(api).probe(fen)["category"] == category


def test_the_mainline_mates(api: Endpoints) -> None:
    line = lichess(api).mainline(KRVK)
    assert list(line) == ["mainline", "winner", "dtz", "precise_dtz"]
    assert line["winner"] == "w" and len(line["mainline"]) == 27
    board = chess.Board(KRVK)
    for step in line["mainline"]:
        assert list(step) == ["uci", "san", "dtz", "precise_dtz"]
        move = chess.Move.from_uci(step["uci"])
        assert move in board.legal_moves and board.san(move) == step["san"]
        board.push(move)
    assert board.is_checkmate()


def test_the_mainline_of_a_draw_is_empty(api: Endpoints) -> None:
    line = lichess(api).mainline("8/8/8/8/8/8/k7/1R5K b - - 0 1")
    assert line == {"mainline": [], "winner": None, "dtz": 0, "precise_dtz": 0}
    assert lichess(api).mainline(KQVK_STALEMATE) == {
        "mainline": [],
        "winner": None,
        "dtz": 0,
        "precise_dtz": 0,
    }


@pytest.mark.parametrize(
    ("fen", "status", "why"),
    [
        ("not a fen", 400, "invalid fen"),
        (None, 400, "missing field `fen`"),
        ("8/8/8/8/8/8/8/Kk5R w - - 0 1", 400, "illegal position"),
        ("R3k3/8/8/8/8/8/8/4K3 w - - 0 1", 400, "illegal position"),  # White may take the king
        ("4k2r/8/8/8/8/8/8/4K3 b k - 0 1", 404, "castling"),
        ("4k3/8/8/8/8/8/PPPP4/4K3 w - - 0 1", 404, "too many pieces"),
        ("4k3/8/8/8/8/8/PP6/4K3 w - - 0 1", 404, "required table not found"),  # KPPvK: no table
        ("4k3/8/8/8/8/8/8/3QKR2 w - - 0 1", 404, "required table not found"),  # KQRvK: not stored
        # En passant squares no double step could have made (lila: 400, as /v1/value), not dropped:
        ("8/8/8/8/8/2k5/8/K7 w - a3 0 1", 400, "en passant"),
        ("4k3/8/8/3Pp3/8/8/8/4K3 w - e3 0 1", 400, "en passant"),
        # A clock in other digits than ASCII's (int() reads '٣' as 3; lila does not):
        ("8/8/8/8/8/2k5/8/KR6 w - - ٣ 1", 400, "invalid fen"),
        ("8/8/8/8/8/2k5/8/KR6 w - - 0 ٣", 400, "invalid fen"),
    ],
)
def test_lilas_errors(api: Endpoints, fen: str | None, status: int, why: str) -> None:
    for route in ("/standard", "/standard/mainline"):
        response = api.http.get(route, params={} if fen is None else {"fen": fen})
        assert response.status_code == status, response.text
        assert response.headers["content-type"].startswith("text/plain") and why in response.text


def test_what_lila_ignores(api: Endpoints) -> None:
    """Castling rights the board contradicts (no rook, no king at home) and an en passant square no pawn
    can take on are dropped, as lila drops them."""
    plain = lichess(api).probe(KRVK)
    assert lichess(api).probe("8/8/8/8/8/2k5/8/KR6 w KQkq - 0 1") == plain
    kpk = "8/8/8/8/4P3/2k5/8/K7 b - - 0 1"
    assert lichess(api).probe("8/8/8/8/4P3/2k5/8/K7 b - e3 0 1") == lichess(api).probe(kpk)
