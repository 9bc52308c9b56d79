"""Misère octal games through the public API: real gRPC and REST servers over a real `Nimbase` (and the
test PostgreSQL) on loopback; outcomes against the brute force of tests/kinds/heaps/test_misere.py."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa

from kinds.heaps.misere import Quotient
from kinds.heaps.misere.construct import Construction
from nimbase_client.errors import NimbaseClientError
from tests.engine.contexts import fresh_keepers
from tests.kinds.heaps.test_misere import brute_is_p
from tests.servers import Endpoints, serving_api
from worker.runner import Worker

TOKEN = "misere-token"
GAME = "octal:0.75:misere"


@pytest.fixture(scope="module")
def api(db_engine: sa.Engine) -> Iterator[Endpoints]:
    with serving_api(db_engine, TOKEN) as endpoints:
        yield endpoints


def test_values_over_both_transports(api: Endpoints) -> None:
    is_p = brute_is_p("0.75")
    for heaps in [(1,), (2, 3), (4, 5, 6), (1, 1, 7), (3, 8, 9, 10)]:
        text = " ".join(map(str, heaps))
        expected = "P" if is_p(heaps) else "N"
        answer = api.client.get_value(GAME, text)
        assert answer["outcome"] == expected and "grundy" not in answer
        assert isinstance(answer["element"], int)
        rest = api.http.get("/v1/value", params={"game": GAME, "position": text}).json()
        assert rest["outcome"] == expected and "grundy" not in rest and rest["element"] == answer["element"]
        assert api.client.is_p_position(GAME, text)["p_position"] == (expected == "P")


def test_best_moves_and_batches(api: Endpoints) -> None:
    is_p = brute_is_p("0.75")
    answer = api.client.best_move(GAME, "2 3 6")
    for move in answer["moves"]:
        reached = tuple(int(h) for h in move["position"].split())
        assert move["outcome"] == ("P" if is_p(reached) else "N")
        assert bool(move.get("best")) == (move["outcome"] == answer["moves"][0]["outcome"])
    batch = api.client.batch_get_values(GAME, ["1", "2 2", "x"])
    values: list[dict[str, Any]] = [dict(item) for item in batch["values"]]
    assert values[0]["outcome"] == "P" and values[1]["outcome"] == ("P" if is_p((2, 2)) else "N")
    assert values[2]["error"]["code"] == "INVALID_ARGUMENT"


def _sums(seed: int) -> list[str]:
    """Sums as clients send them: unsorted, zero heaps, odd spacing, heaps past the quotient's bound, a
    few of 1,000 heaps; and a bad one."""
    rng = random.Random(seed)
    sums = []
    for count in [0, 1, 2, 5, 40, 1000, 1000, *[rng.randint(0, 30) for _ in range(40)]]:
        heaps = [rng.choice([0, rng.randint(1, 30), rng.randint(1, 10**9)]) for _ in range(count)]
        sums.append(rng.choice([" ", "  ", "\t"]).join(map(str, heaps)))
    return [*sums, "3 x 4"]


def test_a_batch_answers_each_sum_as_alone(api: Endpoints) -> None:
    """BatchGetValues and StreamBatches (gRPC, their answers written from pieces) and POST
    /v1/values:batch answer each sum as GetValue and GET /v1/value do."""
    sums = _sums(3)
    batch: list[dict[str, Any]] = [dict(item) for item in api.client.batch_get_values(GAME, sums)["values"]]
    rest = api.http.post("/v1/values:batch", json={"game": GAME, "positions": sums}).json()["values"]
    streamed = [dict(answer) for answer in api.client.stream_batches([(GAME, sums), (GAME, sums[:3])])]
    assert streamed == [{"values": batch}, {"values": batch[:3]}]
    for text, value, rest_value in zip(sums, batch, rest, strict=True):
        try:
            alone: dict[str, Any] = dict(api.client.get_value(GAME, text))
        except NimbaseClientError as error:
            assert value["error"]["code"] == error.code and text in value["error"]["message"]
            assert rest_value["error"]["code"] == error.code
            continue
        assert value == alone, text
        assert rest_value == api.http.get("/v1/value", params={"game": GAME, "position": text}).json(), text


def test_stats_sequence_and_the_stored_quotient(api: Endpoints, monkeypatch: pytest.MonkeyPatch) -> None:
    stats = api.client.get_stats(GAME)
    quotient = stats["quotient"]  # type: ignore[typeddict-item]
    assert quotient["order"] == 8 and len(quotient["p_portion"]) == 2
    sequence = api.client.get_sequence(GAME, 0, 12)
    assert sequence["values"] == quotient["pretending_function"][:12]
    job = api.client.submit_job(GAME, 100)
    assert job["family"] == "quotient"
    Worker(api.db, poll_seconds=0.05).run_until_idle(threading.Event())
    assert api.client.get_job(job["id"])["status"] == "done"
    monkeypatch.setattr(api.service, "kept", fresh_keepers())
    api.service.tables.forget()
    assert api.client.get_stats(GAME)["source"] == "table"
    assert api.client.get_value(GAME, "2 3")["source"] in ("table", "period")


def test_bad_input(api: Endpoints) -> None:
    for game in ("chess:KRvK:misere", "wythoff:misere"):
        response = api.http.get("/v1/value", params={"game": game, "position": "1"})
        assert response.status_code == 400 and "misère" in response.text
    response = api.http.get("/v1/value", params={"game": GAME, "position": "3 x"})
    assert response.status_code == 400 and "3 x" in response.text


def test_a_jobs_upto_is_the_heap_bound_it_stores(api: Endpoints, monkeypatch: pytest.MonkeyPatch) -> None:
    """`nimbase precompute grundy:misere --upto 17` stores the quotient of heaps 0..16 (Grundy's game is
    never certified: the bound is the one asked, not the default)."""
    game = "grundy:misere"
    job = api.client.submit_job(game, 17)
    assert job["family"] == "quotient" and job["progress"]["total"] == 17
    Worker(api.db, poll_seconds=0.05).run_until_idle(threading.Event())
    assert api.client.get_job(job["id"])["status"] == "done"
    monkeypatch.setattr(api.service, "kept", fresh_keepers())
    api.service.tables.forget()
    stats = api.client.get_stats(game)
    assert stats["source"] == "table" and stats["computed_upto"] == 17
    assert stats["quotient"]["heap_bound"] == 16  # type: ignore[typeddict-item]


def test_a_quotient_cut_short_answers_and_queues_its_job(
    api: Endpoints, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A live walk of misère Kayles' quotient cut short (as by a deadline: here it is told its time is up
    after a few heaps, so that nothing depends on the machine's speed) answers from the heaps done, and
    the job storing the whole quotient is queued (automatic); asking again queues no other."""

    game = "octal:0.77:misere"

    real = Construction.run

    def short_of_time(self: Construction, *args: Any, **kwargs: Any) -> Quotient:
        heaps = iter(range(10_000))  # each request's walk stops before its eleventh heap
        return real(self, *args, **{**kwargs, "enough": lambda: next(heaps) >= 10})

    monkeypatch.setattr(Construction, "run", short_of_time)
    for _ in range(2):
        answer = api.http.get("/v1/value", params={"game": game, "position": "3 5 7"})
        assert answer.status_code == 200, answer.text
        assert answer.json()["outcome"] == ("P" if brute_is_p("0.77")((3, 5, 7)) else "N")
    jobs = [job for job in api.client.list_jobs()["jobs"] if job["game"] == game]
    try:
        assert [(job["family"], job["status"]) for job in jobs] == [("quotient", "queued")]
    finally:
        for job in jobs:
            api.client.cancel_job(job["id"])
