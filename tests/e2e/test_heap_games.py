"""Octal games, Grundy's game and Wythoff end to end, and corrupted chunks never served."""

from __future__ import annotations

import subprocess
import time
from functools import cache

import numpy as np
import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.registry import parse_game_id
from nimbase.client import NimbaseClient, NimbaseClientError
from storage.database import create_engine
from storage.packing import CHUNK_VALUES, checksum, encode
from tests.facts import load_facts

from .oracle import mex
from .processes import Server

pytestmark = pytest.mark.e2e

LITERATURE = load_facts("literature")


@cache
def kayles(n: int) -> int:
    """Kayles by the definition: remove 1 or 2 adjacent pins, leaving up to two rows."""
    options = set()
    for take in (1, 2):
        for left in range(0, n - take + 1):
            options.add(kayles(left) ^ kayles(n - take - left))
    return mex(options)


@cache
def grundy_game(n: int) -> int:
    return mex({grundy_game(a) ^ grundy_game(n - a) for a in range(1, (n + 1) // 2) if a != n - a})


def wait_done(client: NimbaseClient, job_id: int, seconds: float = 180) -> dict[str, object]:
    deadline = time.monotonic() + seconds
    while True:
        job = client.get_job(job_id)
        if job["status"] in ("done", "failed", "cancelled"):
            return job
        assert time.monotonic() < deadline, f"job {job_id} did not finish: {job}"
        time.sleep(0.2)


def test_list_games_names_the_classics(server: Server) -> None:
    with server.client() as client:
        games = {g["id"]: g["name"] for g in client.list_games()["games"]}
    assert games["octal:0.77"] == "Kayles"
    assert games["octal:0.07"] == "Dawson's Kayles"
    assert {"octal:0.137", "octal:0.6", "octal:0.16", "octal:0.56", "grundy", "wythoff"} <= set(games)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(heaps=st.lists(st.integers(0, 60), min_size=1, max_size=3))
def test_kayles_matches_the_definition(server: Server, heaps: list[int]) -> None:
    with server.client() as client:
        value = client.get_value("octal:0.77", " ".join(map(str, heaps)))
    want = 0
    for h in heaps:
        want ^= kayles(h)
    assert value["grundy"] == want


def test_kayles_period_answers_any_heap(server: Server) -> None:
    with server.client() as client:
        sequence = client.get_sequence("octal:0.77", 0, 200)
        period = sequence["period"]
        assert period["certified"] is True and period["period"] == 12
        far = client.get_value("octal:0.77", str(10**15 + 7))
    assert far["source"] == "period"
    n = 10**15 + 7
    reduced = period["preperiod"] + (n - period["preperiod"]) % period["period"]
    assert far["grundy"] == kayles(reduced)
    assert sequence["values"] == [kayles(n) for n in range(200)]


def test_grundy_game_facts_from_seed_003(server: Server) -> None:
    facts = LITERATURE["grundy_game"]
    with server.client() as client:
        values = client.get_sequence("grundy", 0, 1223)["values"]
        assert [n for n, v in enumerate(values) if v == 0] == facts["p_positions_single_heap_up_to_1222"]
        for heap, grundy in facts["types_are_grundy_values"].items():
            assert values[int(heap)] == grundy
        for losing in facts["losing_sums_from_the_seed"]:
            answer = client.is_p_position("grundy", losing.replace("+", " "))
            assert answer["p_position"] is True, losing
    assert values[:200] == [grundy_game(n) for n in range(200)]


def test_grundy_beyond_the_live_limit_names_the_largest_heap(server: Server) -> None:
    with server.client() as client, pytest.raises(NimbaseClientError) as error:
        client.get_value("grundy", str(10**9))
    assert error.value.code == "RESOURCE_EXHAUSTED"
    assert "largest answerable heap" in error.value.message


def test_wythoff_p_positions(server: Server) -> None:
    ranks = LITERATURE["wythoff"]["p_positions_rank_0_to_8"]
    with server.client() as client:
        for a, b in ranks[1:]:
            assert client.is_p_position("wythoff", f"{a},{b}")["p_position"] is True
            assert client.is_p_position("wythoff", f"{b},{a}")["p_position"] is True
            assert client.is_p_position("wythoff", f"{a},{b + 1}")["p_position"] is False
        # Closed form for huge pairs: rank n = 10^18.
        n = 10**18
        from math import isqrt

        lower = (n + isqrt(5 * n * n)) // 2
        assert client.get_value("wythoff", f"{lower},{lower + n}")["outcome"] == "P"
        near = client.best_move("wythoff", f"{lower},{lower + n + 3}", limit=1)
        assert near["best_move"]["outcome"] == "P"
        summed = client.get_value("wythoff", "3,5 4,7 1,2")
        assert summed["outcome"] == "P" and summed["grundy"] == 0


@pytest.mark.parametrize(
    ("game", "position", "fields", "best"),
    [
        ("subtraction:1,3,4", "10 12", {"heap", "to"}, {"heap": 12, "to": [8]}),
        ("octal:0.77", "9", {"heap", "to"}, {"heap": 9, "to": [4, 4]}),  # a split leaves two heaps
        ("nim", "3", {"heap", "to"}, {"heap": 3, "to": []}),  # the heap vanishes
        ("wythoff", "4,6", {"pair", "to"}, {"pair": [4, 6], "to": [3, 5]}),
    ],
)
def test_moves_carry_structured_fields_alike_over_rest_and_grpc(
    server: Server, game: str, position: str, fields: set[str], best: dict[str, object]
) -> None:
    with server.client() as client:
        client.best_move(game, position, limit=3)  # any period or table a first answer finds is found
        over_grpc = client.best_move(game, position, limit=3)
    with server.http() as http:
        reply = http.get("/v1/best-move", params={"game": game, "position": position, "limit": 3})
    assert reply.status_code == 200, reply.text
    assert reply.json() == over_grpc
    assert all(fields <= set(move) and not {"heap", "pair"} <= set(move) for move in over_grpc["moves"])
    assert {k: over_grpc["best_move"][k] for k in best} == best and over_grpc["best_move"]["outcome"] == "P"


@pytest.mark.parametrize(
    ("game", "position"),
    [
        ("octal:0.8", "3"),
        ("octal:.", "3"),
        ("octal:0.", "3"),
        ("octal:1.2.3", "3"),
        ("octal:0." + "7" * 33, "3"),
        ("octal:0.77", "-3"),
        ("octal:0.77", "2.5"),
        ("wythoff", "3"),
        ("wythoff", "3,4,5"),
        ("wythoff", "a,b"),
        ("wythoff", "-1,2"),
    ],
)
def test_bad_heap_game_input(server: Server, game: str, position: str) -> None:
    with server.client() as client, pytest.raises(NimbaseClientError) as error:
        client.get_value(game, position)
    assert error.value.code == "INVALID_ARGUMENT"
    response = server.http().get("/v1/value", params={"game": game, "position": position})
    assert response.status_code == 400


def test_precomputed_grundy_and_wythoff_tables(server: Server, worker: subprocess.Popen[bytes]) -> None:
    with server.client() as client:
        grundy = wait_done(client, client.submit_job("grundy", 20_000)["id"])
        wythoff = wait_done(client, client.submit_job("wythoff", 512)["id"])
        assert grundy["status"] == "done" and wythoff["status"] == "done"
        time.sleep(2.5)
        stats = client.get_stats("grundy")
        assert stats["computed_upto"] >= 20_000  # or more, where another test of the folder stored more
        assert stats["rare_mask"] is not None and stats["rare_count"] > 0
        assert client.get_value("grundy", "19999")["source"] == "table"
        assert client.get_value("wythoff", "300,500")["source"] == "table"
        assert client.get_stats("wythoff")["table_side"] >= 512  # as the Grundy table's: or more


def test_a_corrupted_chunk_is_never_served(
    server: Server, worker: subprocess.Popen[bytes], database_url: str
) -> None:
    """A byte overwritten in a stored chunk of Grundy's game, which has no period: only the table or live
    computation can answer its heaps. The damaged chunk is never served (the heap is computed live),
    it is reported once however often it is read, its own repair job runs, and the repaired bytes are
    those of a fresh computation."""
    game, upto, index = "grundy", 3 * CHUNK_VALUES, 1
    first, stop = index * CHUNK_VALUES, (index + 1) * CHUNK_VALUES
    engine = create_engine(database_url)
    chunk = sa.text(
        "SELECT count, width, codec, payload, checksum FROM sequence_chunks "
        "WHERE game_id = :game AND family = 'heap' AND chunk_index = :index"
    )
    key = {"game": game, "index": index}
    try:
        with server.client() as client:
            assert wait_done(client, client.submit_job(game, upto)["id"])["status"] == "done"
            with engine.begin() as connection:
                before = tuple(connection.execute(chunk, key).one())
                connection.execute(
                    sa.text(
                        "UPDATE sequence_chunks SET payload = overlay(payload placing "
                        "set_byte('\\x00'::bytea, 0, get_byte(payload, 9) # 255) from 10) "
                        "WHERE game_id = :game AND family = 'heap' AND chunk_index = :index"
                    ),
                    key,
                )
                damaged = bytes(connection.execute(chunk, key).one().payload)
            payload = bytes(before[3])
            assert len(damaged) == len(payload)
            assert [i for i in range(len(payload)) if payload[i] != damaged[i]] == [9]  # one byte changed
            time.sleep(2.5)  # the server refreshes stored headers every couple of seconds
            kernel = parse_game_id(game).kernel_for("heap")
            assert kernel is not None
            fresh = kernel.extend(np.zeros(0, dtype=np.uint32), upto)
            heap = first + 100
            rest = server.http().get("/v1/value", params={"game": game, "position": str(heap)}).json()
            answers = [rest, client.get_value(game, str(heap))]
            assert [a["source"] for a in answers] == ["live", "live"]  # not the damaged bytes
            for _ in range(3):
                answers.append(client.get_value(game, str(heap + 1)))
                answers.append(client.batch_get_values(game, [str(heap)])["values"][0])
            assert [a["grundy"] for a in answers] == [
                fresh[heap],
                fresh[heap],
                *[fresh[heap + 1], fresh[heap]] * 3,
            ]
            deadline = time.monotonic() + 60
            with engine.connect() as connection:
                while True:
                    repairs = connection.execute(
                        sa.text(
                            "SELECT id, status, attempts FROM jobs WHERE kind = 'repair' AND game_id = :game "
                            "AND chunk_index = :index"
                        ),
                        key,
                    ).all()
                    connection.commit()
                    if repairs and repairs[0].status == "done":
                        break
                    assert time.monotonic() < deadline, f"the damaged chunk was not repaired: {repairs}"
                    time.sleep(0.3)
                assert len(repairs) == 1 and repairs[0].attempts == 1
                assert client.get_job(repairs[0].id)["status"] == "done"
                reports = connection.execute(
                    sa.text(
                        "SELECT chunk_index, repaired_at IS NOT NULL FROM corruption_reports "
                        "WHERE game_id = :game"
                    ),
                    key,
                ).all()
                assert [tuple(r) for r in reports] == [(index, True)]  # reported once, closed by the repair
                after = tuple(connection.execute(chunk, key).one())
            width, codec, packed = encode(fresh[first:stop])
            expected = (
                CHUNK_VALUES,
                width,
                codec,
                packed,
                checksum(game, "heap", index, CHUNK_VALUES, width, packed, codec),
            )
            assert (*after[:3], bytes(after[3]), after[4]) == expected
            assert (*before[:3], bytes(before[3]), before[4]) == expected
            deadline = time.monotonic() + 30
            while (value := client.get_value(game, str(heap)))["source"] != "table":
                assert time.monotonic() < deadline, f"the repaired chunk is not served: {value}"
                time.sleep(0.3)
            assert value["grundy"] == fresh[heap]
    finally:
        engine.dispose()
