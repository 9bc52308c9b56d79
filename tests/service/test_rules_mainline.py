"""The main line of games defined by their rules (plugins of nimbase_rules), through both transports over a
real Nimbase: each step is one of the best moves BestMove lists at that position, the line is as long
as the remoteness and ends at the end of the game (tic-tac-toe's in a tie on a full board, in both its
forms; Connect Four's in a tie or a win), and a score game's line keeps the margin of best play."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from service.limits import Limits
from tests.servers import Endpoints, serving_api

TOKEN = "rules-mainline-token"
#: Generous: Connect Four 4 x 4 is solved live the first time it is asked for, on a machine that may be busy.
LIMITS = Limits(request_seconds=300.0)
EMPTY = ".../.../..."


@pytest.fixture(scope="module")
def api(db_engine: sa.Engine) -> Iterator[Endpoints]:
    with serving_api(db_engine, TOKEN, LIMITS) as endpoints:
        yield endpoints


def line_of(api: Endpoints, game: str, position: str) -> dict[str, Any]:
    """The line over REST, equal to gRPC's, its value GetValue's, each move checked against BestMove at
    the position it is played from (marked best there, the same entry), and the line ending at a
    position without moves after as many moves as the remoteness."""
    response = api.http.get("/v1/mainline", params={"game": game, "position": position})
    assert response.status_code == 200, response.text
    line: dict[str, Any] = response.json()
    assert api.client.mainline(game, position) == line
    value = api.client.get_value(game, position)
    assert {k: v for k, v in line.items() if k not in ("moves", "end", "source")} == {
        k: v for k, v in value.items() if k != "source"
    }
    here = line["position"]
    for move in line["moves"]:
        best = {m["move"]: m for m in api.client.best_move(game, here)["moves"] if m.get("best")}
        assert move["move"] in best, (here, move, list(best))
        assert move == best[move["move"]] and move["best"] is True
        here = move["position"]
    assert line["end"] == "terminal"
    assert len(line["moves"]) == line["remoteness"]
    assert [m["remoteness"] for m in line["moves"]] == list(range(line["remoteness"] - 1, -1, -1))
    assert api.client.best_move(game, here)["moves"] == []
    return line


@pytest.mark.parametrize("game", ["tictactoe", "tictactoe:misere"])
def test_tictactoe_from_the_start_ties_on_a_full_board(api: Endpoints, game: str) -> None:
    line = line_of(api, game, EMPTY)
    assert (line["outcome"], line["remoteness"]) == ("D", 9)
    assert {m["outcome"] for m in line["moves"]} == {"D"}
    last = line["moves"][-1]["position"]
    assert "." not in last and last.count("x") == 5 and last.count("o") == 4
    assert line["moves"][0]["position"].count("x") == 1  # x moves first


def test_a_misere_line_differs_where_three_in_a_row_loses(api: Endpoints) -> None:
    """x to move with two in a row: in the normal game x completes it at once; in misère x may not."""
    board = "xx./oo./..."
    normal = line_of(api, "tictactoe", board)
    assert (normal["outcome"], normal["remoteness"]) == ("N", 1)
    assert normal["moves"] == [
        {"move": "c1", "position": "xxx/oo./...", "outcome": "P", "remoteness": 0, "best": True}
    ]
    misere = line_of(api, "tictactoe:misere", board)
    assert misere["moves"][0]["move"] != "c1"
    assert not misere["moves"][0]["position"].startswith("xxx")


def test_connect4_4x4_from_the_start_ties_after_sixteen_plies(api: Endpoints) -> None:
    line = line_of(api, "connect4:4x4", "..../..../..../....")
    assert (line["outcome"], line["remoteness"]) == ("D", 16)
    assert "." not in line["moves"][-1]["position"]  # a full board
    assert all(m["move"] in {"1", "2", "3", "4"} for m in line["moves"])


def test_a_connect4_4x4_win_hurries_and_the_loss_delays(api: Endpoints) -> None:
    """o to move wins in 13 plies, the last of the board: the line alternates losses and wins for the
    player left to move, and ends with four of o's in a line."""
    line = line_of(api, "connect4:4x4", "..../..../..../.xxo")
    assert (line["outcome"], line["remoteness"]) == ("N", 13)
    assert [m["outcome"] for m in line["moves"]] == ["P", "N"] * 6 + ["P"]
    rows = line["moves"][-1]["position"].split("/")
    lines = [*rows, *("".join(col) for col in zip(*rows, strict=True))]
    lines += ["".join(rows[i][i] for i in range(4)), "".join(rows[i][3 - i] for i in range(4))]
    assert "oooo" in lines and "xxxx" not in lines


def test_dots_and_boxes_2x2_keeps_the_margin_along_the_line(api: Endpoints) -> None:
    """A score game: each move's margin (the mover's, by that move) is the margin of the position it is
    played from, best play keeping it; the line ends when every line is drawn."""
    game, start = "dots-and-boxes:2x2", "0" * 12
    line = line_of(api, game, start)
    assert (line["outcome"], line["margin"], line["remoteness"]) == ("N", 2, 12)
    here = start
    for move in line["moves"]:
        assert move["margin"] == api.client.get_value(game, here)["margin"], (here, move)
        here = move["position"]
    assert here == "1" * 12
    assert api.client.get_value(game, here)["margin"] == 0
    assert line["moves"][0]["margin"] == line["margin"]
