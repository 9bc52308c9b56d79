"""Mainline (GET /v1/mainline, the RPC) through both transports over a real Nimbase: each step of a line is
one of the best moves BestMove lists at that position, the line is as long as the position's remoteness
where that is known, a drawn line ends at a repetition, a puzzle's line solves the board in its fewest
presses, and bad bounds or metrics are refused quoting them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import chess
import pytest
import sqlalchemy as sa

from engine.errors import InvalidArgument
from nimbase.client import NimbaseClientError
from service.calls import BestMove, Mainline
from service.limits import Limits
from tests.servers import Endpoints, serving_api

TOKEN = "mainline-token"
#: Generous: KRvK is solved live the first time it is asked for, on a machine that may be busy.
LIMITS = Limits(request_seconds=300.0, mainline_plies_max=500)
#: A graph whose only line of best play goes round: from a, b; from b, back to a or on to the lost c.
CYCLE = {
    "vertices": ["a", "b", "c", "d"],
    "edges": [["a", "b"], ["b", "a"], ["b", "c"]],
    "terminals": {"c": "win"},
}


@pytest.fixture(scope="module")
def api(db_engine: sa.Engine) -> Iterator[Endpoints]:
    with serving_api(db_engine, TOKEN, LIMITS) as endpoints:
        endpoints.client.upload_graph("cycle", CYCLE["vertices"], CYCLE["edges"], CYCLE["terminals"])
        yield endpoints


def rest(api: Endpoints, route: str, **params: Any) -> Any:
    response = api.http.get(route, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def check_line(api: Endpoints, game: str, position: str, **params: Any) -> dict[str, Any]:
    """The line over both transports (the same answer), each move checked against BestMove at the
    position it is played from: among the moves marked best, reaching the same position and value."""
    line = rest(api, "/v1/mainline", game=game, position=position, **params)
    assert api.client.mainline(game, position, params.get("max_plies"), params.get("metric")) == line
    value = api.client.get_value(game, position)
    assert {k: v for k, v in line.items() if k not in ("moves", "end", "source")} == {
        k: v for k, v in value.items() if k != "source"
    }
    here = line["position"]
    for move in line["moves"]:
        answer = api.client.best_move(game, here)
        best = {m["move"]: m for m in answer["moves"] if m.get("best")}
        assert move["move"] in best, (here, move, list(best))
        assert move == best[move["move"]] and move["best"] is True
        here = move["position"]
    return line


@pytest.mark.parametrize(
    ("game", "position"),
    [
        ("nim", "3 5 7"),
        ("nim", "1 2 4 8"),
        ("nim:misere", "1 2 3"),
        ("subtraction:1,2,3", "10 7"),
        ("subtraction:1,3,4", "12"),
        ("wythoff", "4,7"),
        ("wythoff", "3,5"),
    ],
)
def test_a_line_is_best_play_as_long_as_the_remoteness(api: Endpoints, game: str, position: str) -> None:
    line = check_line(api, game, position)
    value = api.client.get_value(game, position)
    assert line["end"] == "terminal"
    if "remoteness" in value:
        assert len(line["moves"]) == value["remoteness"]
    last = line["moves"][-1]
    assert api.client.best_move(game, last["position"])["moves"] == []


def test_a_chess_line_mates_in_the_remoteness(api: Endpoints) -> None:
    """KRvK from a position of mate in 14 (27 plies): the line ends in mate, the loser delaying."""
    game, fen = "chess:KRvK", "8/8/8/4k3/8/8/8/R3K3 w - - 0 1"
    line = check_line(api, game, fen)
    assert (line["outcome"], line["remoteness"], line["end"]) == ("N", 27, "terminal")
    assert len(line["moves"]) == 27
    assert [m["remoteness"] for m in line["moves"]] == list(range(26, -1, -1))
    assert line["moves"][-1]["outcome"] == "P" and line["moves"][-1]["san"].endswith("#")


def test_a_capture_carries_the_line_into_the_material_it_leaves(api: Endpoints) -> None:
    """Black takes the undefended rook: the line goes on in KvK (a draw) until it repeats a position."""
    line = rest(api, "/v1/mainline", game="chess:KRvK", position="8/8/8/8/8/8/1k6/1R2K3 b - - 0 1")
    assert line["outcome"] == "D" and line["end"] == "repetition"
    assert line["moves"][0]["san"] == "Kxb1" and {m["outcome"] for m in line["moves"]} == {"D"}
    board = [" ".join(m["position"].split()[:4]) for m in line["moves"]]  # the FENs less their counters
    assert board[-1] in board[:-1]


def test_a_drawn_line_ends_at_a_repetition(api: Endpoints) -> None:
    line = check_line(api, "graph:cycle", "a")
    assert line["outcome"] == "D" and line["end"] == "repetition"
    assert [m["position"] for m in line["moves"]] == ["b", "a"]
    assert {m["outcome"] for m in line["moves"]} == {"D"}


def test_a_won_graph_line_ends_at_its_terminal(api: Endpoints) -> None:
    line = check_line(api, "graph:cycle", "c")
    assert (line["end"], line["moves"]) == ("terminal", [])


def test_a_puzzle_line_solves_the_board_in_its_fewest_presses(api: Endpoints) -> None:
    game, board = "lights-out:3x3", "000/011/011"
    line = check_line(api, game, board)
    assert line["end"] == "solved" and len(line["moves"]) == line["remoteness"] == 6
    assert line["moves"][-1]["position"] == "000/000/000"
    assert [m["remoteness"] for m in line["moves"]] == [5, 4, 3, 2, 1, 0]
    assert sorted(m["move"] for m in line["moves"]) == sorted(line["solution"])
    solved = rest(api, "/v1/mainline", game=game, position="000/000/000")
    assert (solved["end"], solved["moves"]) == ("solved", [])


def test_an_unsolvable_board_has_no_line(api: Endpoints) -> None:
    game = "lights-out:4x4"  # nullity 4: some boards cannot be solved
    board = "1000/0000/0000/0000"
    if api.client.get_value(game, board).get("solvable"):
        pytest.skip("this board is solvable")
    line = rest(api, "/v1/mainline", game=game, position=board)
    assert (line["end"], line["moves"]) == ("unknown", [])


def test_max_plies_cuts_the_line(api: Endpoints) -> None:
    line = check_line(api, "nim", "3 5 7", max_plies=4)
    assert (len(line["moves"]), line["end"]) == (4, "max_plies")
    whole = rest(api, "/v1/mainline", game="nim", position="1 2", max_plies=3)
    assert (len(whole["moves"]), whole["end"]) == (3, "terminal")  # the last move ends the game
    default = rest(api, "/v1/mainline", game="graph:cycle", position="a")
    assert default["end"] == "repetition"


@pytest.mark.parametrize("max_plies", ["0", "-3", "501", "99999999999999999999"])
def test_bad_max_plies_are_refused_quoting_them(api: Endpoints, max_plies: str) -> None:
    response = api.http.get("/v1/mainline", params={"game": "nim", "position": "3 5", "max_plies": max_plies})
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "INVALID_ARGUMENT" and max_plies in error["message"]
    if int(max_plies) < 2**63:
        with pytest.raises(NimbaseClientError) as refused:
            api.client.mainline("nim", "3 5", int(max_plies))
        assert refused.value.code == "INVALID_ARGUMENT" and max_plies in refused.value.message


def test_an_unknown_metric_is_refused_quoting_it(api: Endpoints) -> None:
    response = api.http.get("/v1/mainline", params={"game": "nim", "position": "3 5", "metric": "dtx"})
    assert response.status_code == 400
    assert "'dtx'" in response.json()["error"]["message"]
    with pytest.raises(NimbaseClientError) as refused:
        api.client.mainline("nim", "3 5", metric="dtx")
    assert refused.value.code == "INVALID_ARGUMENT" and "'dtx'" in refused.value.message


def test_a_bad_position_or_game_is_refused_as_by_get_value(api: Endpoints) -> None:
    assert api.http.get("/v1/mainline", params={"game": "nim", "position": "x"}).status_code == 400
    assert api.http.get("/v1/mainline", params={"game": "go", "position": "1"}).status_code == 404


def test_lines_of_formulas_and_tables_are_cached_like_values(api: Endpoints) -> None:
    """A line of formula values carries an ETag (304 when asked again with it); one found live does not."""
    params = {"game": "nim", "position": "3 5 7"}
    first = api.http.get("/v1/mainline", params=params)
    assert first.json()["source"] == "formula" and "immutable" in first.headers["cache-control"]
    again = api.http.get("/v1/mainline", params=params, headers={"if-none-match": first.headers["etag"]})
    assert again.status_code == 304
    live = api.http.get("/v1/mainline", params={"game": "lights-out:3x3", "position": "000/011/011"})
    assert live.json()["source"] == "live" and live.headers["cache-control"] == "no-store"


def test_the_live_processes_answer_lines_and_draws(db_engine: sa.Engine, database_url: str) -> None:
    """Through the pool of live processes (service.pooled) as `nimbase serve` runs: a line computed live
    comes back whole, and BestMove's draw is made in the server from the moves the process marked."""
    from nimbase.settings import Settings
    from service.core import Nimbase
    from service.server import isolated

    settings = Settings(limits=Limits(live_processes=1, request_seconds=120.0))
    plain = Nimbase(settings, db_engine)
    with isolated(Nimbase(settings, db_engine), settings, database_url) as pooled:
        assert type(pooled).__name__ == "PooledService"
        line = pooled.mainline(Mainline("grundy", "12"))
        assert [m.move for m in line.moves] == [
            m.move for m in plain.mainline(Mainline("grundy", "12")).moves
        ]
        assert line.end == "terminal" and all(m.best for m in line.moves)
        ranked = plain.best_move(BestMove("nim", "3 5 7"))
        best = {m.move for m in ranked.moves if m.best}
        drawn = {
            pooled.best_move(BestMove("nim", "3 5 7", None, "random", seed, deadline=None)).moves[0].move
            for seed in range(30)
        }
        assert drawn == best
        with pytest.raises(InvalidArgument):
            pooled.best_move(BestMove("nim", "3 5 7", None, "worst", deadline=None))
        with pytest.raises(InvalidArgument):
            pooled.mainline(Mainline("nim", "3 5 7", 0))


@pytest.mark.parametrize("metric", ["dtm", "dtz"])
def test_a_chess_line_follows_its_metric_to_mate(api: Endpoints, metric: str) -> None:
    """KRvK's longest win: by DTM the shortest mate, 31 plies; by DTZ (lila's ranking, the fifty-move rule
    kept) a mate too, as long here, where no move zeroes before the mate."""
    stats = api.client.get_stats("chess:KRvK")
    fen = str(stats["longest_win_position"])
    line = rest(api, "/v1/mainline", game="chess:KRvK", position=fen, metric=metric, max_plies=100)
    assert line["end"] == "terminal" and len(line["moves"]) == line["remoteness"] == 31
    assert line["moves"][-1]["outcome"] == "P" and chess.Board(line["moves"][-1]["position"]).is_checkmate()
    assert [m["remoteness"] for m in line["moves"]] == list(range(30, -1, -1))
