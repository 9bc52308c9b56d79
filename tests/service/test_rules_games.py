"""Games defined by their rules (plugins of nimbase_rules), served end to end: real gRPC and REST servers
over a real `Nimbase` (and the test PostgreSQL) on loopback list them and answer them, a game past the
live limit is refused naming its tier's job, and a worker solves it tier by tier (each tier's job
waiting for the tiers its moves lead to) into tables the service then answers from."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from nimbase.client import NimbaseClientError
from tests.servers import Endpoints, serving_api
from worker.runner import Worker

TOKEN = "rules-games-token"
EMPTY = ".../.../..."


@pytest.fixture(scope="module")
def api(db_engine: sa.Engine) -> Iterator[Endpoints]:
    with serving_api(db_engine, TOKEN) as endpoints:
        yield endpoints


def both(api: Endpoints, route: str, call: str, **params: Any) -> dict[str, Any]:
    """One answer over REST, checked equal to gRPC's."""
    answer = api.http.get(route, params=params).json()
    assert getattr(api.client, call)(*params.values()) == answer
    return dict(answer)


def test_rules_games_are_listed(api: Endpoints) -> None:
    games = {g["id"]: g for g in api.http.get("/v1/games").json()["games"]}
    for game_id in ["tictactoe", "tictactoe:misere", "connect4:4x4", "dots-and-boxes:2x2", "rules-nim:3,4,5"]:
        assert game_id in games and games[game_id]["examples"]
    assert api.client.list_games() == api.http.get("/v1/games").json()


def test_tictactoe_over_both_transports(api: Endpoints) -> None:
    value = both(api, "/v1/value", "get_value", game="tictactoe", position=EMPTY)
    assert value == {
        "game": "tictactoe",
        "position": EMPTY,
        "outcome": "D",
        "remoteness": 9,
        "source": "live",
    }
    moves = both(api, "/v1/best-move", "best_move", game="tictactoe", position="xx./oo./...")
    assert moves["best_move"] == {
        "move": "c1",
        "position": "xxx/oo./...",
        "outcome": "P",
        "remoteness": 0,
        "best": True,
    }
    assert [m["outcome"] for m in moves["moves"]][:1] == ["P"]
    p = both(api, "/v1/is-p-position", "is_p_position", game="tictactoe", position="xxx/oo./...")
    assert p["p_position"] is True
    stats = api.client.get_stats("tictactoe")
    assert api.http.get("/v1/stats", params={"game": "tictactoe"}).json() == stats
    assert stats["positions"] == 5478 and stats["initial"]["outcome"] == "D"


def test_score_games_carry_their_margin(api: Endpoints) -> None:
    value = both(api, "/v1/value", "get_value", game="dots-and-boxes:2x2", position="1" * 11 + "0")
    assert value["margin"] == 1 and value["outcome"] == "N"
    moves = both(api, "/v1/best-move", "best_move", game="dots-and-boxes:2x2", position="1" * 11 + "0")
    assert moves["moves"] == [
        {"move": "v1,2", "position": "1" * 12, "outcome": "D", "remoteness": 0, "margin": 1, "best": True}
    ]


@pytest.mark.parametrize(
    ("game", "position", "status", "quoted"),
    [
        ("tictactoe", "xx", 400, "'xx'"),
        ("tictactoe", "ooo/.../...", 400, "'ooo/.../...'"),
        ("connect4:4x4", "x.../..../..../....", 400, "'x.../..../..../....'"),
        ("connect4:4", "", 400, "'connect4:4'"),
        ("tic-tac-toe", EMPTY, 404, "'tic-tac-toe'"),
    ],
)
def test_bad_input(api: Endpoints, game: str, position: str, status: int, quoted: str) -> None:
    answer = api.http.get("/v1/value", params={"game": game, "position": position})
    assert answer.status_code == status and quoted in answer.json()["error"]["message"]
    with pytest.raises(NimbaseClientError) as info:
        api.client.get_value(game, position)
    assert quoted in str(info.value)


@pytest.fixture
def limited(db_engine: sa.Engine) -> Iterator[Endpoints]:
    with serving_api(
        db_engine, TOKEN, kind_variables={"NIMBASE_LIMITS_RULES_LIVE_CODES_PLAIN": "1000"}
    ) as endpoints:
        yield endpoints


def test_a_game_past_the_live_limit_is_solved_tier_by_tier_by_a_worker(limited: Endpoints) -> None:
    api = limited
    refused = api.http.get("/v1/value", params={"game": "tictactoe", "position": EMPTY})
    assert refused.status_code == 422 and "tier 0 of tictactoe" in refused.json()["error"]["message"]
    jobs = api.http.get("/v1/jobs").json()["jobs"]
    assert {j["family"] for j in jobs if j["game"] == "tictactoe"} == {f"tier:{t}" for t in range(10)}
    Worker(api.db, worker_id="rules-worker", poll_seconds=0.05).run_until_idle(threading.Event())
    api.service.tables.forget()
    jobs = api.http.get("/v1/jobs").json()["jobs"]
    assert all(j["status"] == "done" for j in jobs if j["game"] == "tictactoe"), jobs
    value = both(api, "/v1/value", "get_value", game="tictactoe", position=EMPTY)
    assert value == {
        "game": "tictactoe",
        "position": EMPTY,
        "outcome": "D",
        "remoteness": 9,
        "source": "table",
    }
    assert api.client.get_stats("tictactoe")["positions"] == 5478
