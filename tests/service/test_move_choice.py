"""Moves for bots, through both transports over a real Nimbase: every move tying with the first says
`best: true`, `choose=random` draws the first uniformly from those (the same seed the same move, fresh
draws uncached), and a bad `choose` or seed is refused quoting it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from nimbase.client import NimbaseClientError
from service.calls import BestMove
from service.move_choice import parse_choice
from tests.servers import Endpoints, serving_api

TOKEN = "choice-token"
#: Positions with several best moves (three wins in 14, five presses, 21 losing moves of unknown length),
#: and two with a single winning move among others.
SEVERAL = [
    ("nim", "3 5 7"),
    ("lights-out:3x3", "111/111/111"),
    ("wythoff", "6,10"),
    ("wythoff", "4,9"),
    ("nim", "1 1 1 1 2"),
]


@pytest.fixture(scope="module")
def api(db_engine: sa.Engine) -> Iterator[Endpoints]:
    with serving_api(db_engine, TOKEN) as endpoints:
        yield endpoints


def best_move(api: Endpoints, game: str, position: str, **params: Any) -> Any:
    response = api.http.get("/v1/best-move", params={"game": game, "position": position, **params})
    assert response.status_code == 200, response.text
    return response.json()


def rank(move: dict[str, Any]) -> tuple[int, int]:
    """A move's rank but for its text, restated from BestMove's order: wins fastest first, then draws, then
    losses slowest first; a puzzle's presses leaving a solvable board fewest presses first."""
    remoteness = move.get("remoteness")
    if "outcome" not in move:
        return (3, 1 << 62 if remoteness is None else remoteness) if move.get("solvable") else (4, 0)
    if move["outcome"] == "P":
        return (0, 1 << 62 if remoteness is None else remoteness)
    if move["outcome"] == "D":
        return (1, 0)
    return (2, 1 if remoteness is None else -remoteness)


@pytest.mark.parametrize(("game", "position"), SEVERAL)
def test_every_move_tying_with_the_first_is_best(api: Endpoints, game: str, position: str) -> None:
    answer = best_move(api, game, position)
    assert api.client.best_move(game, position) == answer
    first = rank(answer["moves"][0])
    for move in answer["moves"]:
        assert move.get("best", False) is (rank(move) == first), move
        assert "best" not in move or move["best"] is True  # absent, not false, on the others
    assert answer["best_move"] == answer["moves"][0] and answer["best_move"]["best"] is True


def test_a_terminal_position_has_no_best_move(api: Endpoints) -> None:
    answer = best_move(api, "nim", "", choose="random", seed=1)
    assert answer["moves"] == [] and "best_move" not in answer


@pytest.mark.parametrize(("game", "position"), SEVERAL)
def test_random_draws_among_the_best_reproducibly_and_reach_them_all(
    api: Endpoints, game: str, position: str
) -> None:
    ranked = best_move(api, game, position)
    best = {m["move"] for m in ranked["moves"] if m.get("best")}
    drawn: Counter[str] = Counter()
    for seed in range(20 * len(best)):  # every one of k moves drawn but with odds of about k * e^-20
        answer = best_move(api, game, position, choose="random", seed=seed)
        first = answer["best_move"]
        assert first == answer["moves"][0] and first["move"] in best
        assert sorted(answer["moves"], key=lambda m: m["move"]) == sorted(
            ranked["moves"], key=lambda m: m["move"]
        )
        drawn[first["move"]] += 1
        if seed % 10 == 0:
            assert best_move(api, game, position, choose="random", seed=seed) == answer
            assert api.client.best_move(game, position, choose="random", seed=seed) == answer
    assert set(drawn) == best, (drawn, best)


def test_a_fresh_draw_is_among_the_best_and_never_cached(api: Endpoints) -> None:
    ranked = best_move(api, "nim", "3 5 7")
    best = {m["move"] for m in ranked["moves"] if m.get("best")}
    seen = set()
    for _ in range(40):
        response = api.http.get(
            "/v1/best-move", params={"game": "nim", "position": "3 5 7", "choose": "random"}
        )
        assert response.headers["cache-control"] == "no-store" and "etag" not in response.headers
        seen.add(response.json()["best_move"]["move"])
        seen.add(api.client.best_move("nim", "3 5 7", choose="random")["best_move"]["move"])
    assert seen == best
    seeded = api.http.get(
        "/v1/best-move", params={"game": "nim", "position": "3 5 7", "choose": "random", "seed": 5}
    )
    assert "immutable" in seeded.headers["cache-control"] and "etag" in seeded.headers


def test_choose_best_is_the_default(api: Endpoints) -> None:
    assert best_move(api, "nim", "3 5 7", choose="best", seed=3) == best_move(api, "nim", "3 5 7")
    assert api.client.best_move("nim", "3 5 7", choose="best") == best_move(api, "nim", "3 5 7")


@pytest.mark.parametrize(
    ("params", "quoted"),
    [
        ({"choose": "worst"}, "'worst'"),
        ({"choose": "RANDOM"}, "'RANDOM'"),
        ({"choose": "random", "seed": "abc"}, "'abc'"),
        ({"choose": "random", "seed": "1.5"}, "'1.5'"),
        ({"choose": "random", "seed": str(2**63)}, str(2**63)),
    ],
)
def test_a_bad_choice_is_refused_quoting_it(api: Endpoints, params: dict[str, str], quoted: str) -> None:
    response = api.http.get("/v1/best-move", params={"game": "nim", "position": "3 5", **params})
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "INVALID_ARGUMENT" and quoted in error["message"], error


def test_a_bad_choice_over_grpc_is_refused_quoting_it(api: Endpoints) -> None:
    with pytest.raises(NimbaseClientError) as refused:
        api.client.best_move("nim", "3 5", choose="worst")
    assert refused.value.code == "INVALID_ARGUMENT" and "'worst'" in refused.value.message


def test_the_seed_spans_a_signed_64_bit_integer() -> None:
    assert parse_choice("random", -(2**63)).seed == -(2**63)
    assert parse_choice("random", 2**63 - 1).seed == 2**63 - 1
    assert parse_choice(None, 7).random is False and parse_choice("", None).random is False


@pytest.mark.parametrize(("game", "position"), [("nim", "3 5 7"), ("wythoff", "6,10")])
def test_random_with_a_limit_draws_among_every_best_move(api: Endpoints, game: str, position: str) -> None:
    """`limit` bounds the moves listed, not the draw: with limit=1 the seed still chooses among all the best
    moves (it used to draw among the one move the limit kept, the same whatever the seed)."""
    ranked = best_move(api, game, position)
    best = {m["move"] for m in ranked["moves"] if m.get("best")}
    assert len(best) >= 2
    drawn: Counter[str] = Counter()
    for seed in range(20 * len(best)):
        answer = best_move(api, game, position, choose="random", seed=seed, limit=1)
        assert len(answer["moves"]) == 1 and answer["best_move"] == answer["moves"][0]
        assert answer["best_move"]["move"] in best and answer["best_move"]["best"] is True
        whole = best_move(api, game, position, choose="random", seed=seed)
        assert answer["best_move"] == whole["best_move"]  # the same draw as without the limit
        assert api.client.best_move(game, position, limit=1, choose="random", seed=seed) == answer
        drawn[answer["best_move"]["move"]] += 1
    assert set(drawn) == best, (drawn, best)


def test_a_draw_ranks_every_move_and_cuts_to_the_limit_after_drawing(api: Endpoints) -> None:
    """What both services (in process and pooled) do with a limit: rank every move for a draw, draw, then
    keep `limit` moves, the drawn one first."""
    ranked = api.service.best_move(BestMove("nim", "3 5 7"))
    choice = parse_choice("random", 11)
    assert choice.ranked(1) is None and parse_choice("best", 11).ranked(1) == 1
    whole = choice.apply(ranked)
    cut = choice.apply(ranked, 1)
    assert cut.moves == whole.moves[:1] and cut.value == whole.value
