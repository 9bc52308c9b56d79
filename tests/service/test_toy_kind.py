"""A kind that is not a heap game, served end to end: one module (toy_kind), one registry entry and
its records' messages in nimbase.proto.

The toy table is registered for this module only, and real gRPC and REST servers over a real
`Nimbase` (and PostgreSQL) answer it on loopback; nothing in service/ or in the client knows about it,
yet the fields its answers add (`parity`, and `children` in its moves) reach both transports and
/openapi.json.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
import sqlalchemy as sa

from engine import registry
from nimbase.client import NimbaseClient, NimbaseClientError
from nimbase.settings import InvalidSetting, Settings
from service.calls import GetStats
from service.core import Nimbase
from tests.servers import running_server
from tests.service.toy_kind import toy_family

TOKEN = "toy-token"

#: Worked out by hand from the table: (grundy, remoteness) of each position.
EXPECTED = {"end": (0, 0), "a": (1, 1), "b": (2, 1), "c": (0, 2), "d": (3, 3), "start": (1, 3)}


@pytest.fixture(scope="module")
def endpoints(db_engine: sa.Engine) -> Iterator[tuple[httpx.Client, NimbaseClient]]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(registry.FAMILIES, "toy", toy_family())
        service = Nimbase(Settings(admin_token=TOKEN), db_engine)
        with (
            running_server(service) as ports,  # type: ignore[arg-type]
            httpx.Client(base_url=f"http://127.0.0.1:{ports.http}", timeout=30) as http,
            NimbaseClient(f"127.0.0.1:{ports.grpc}", token=TOKEN) as client,
        ):
            yield http, client


def test_listed_with_the_other_games(endpoints: tuple[httpx.Client, NimbaseClient]) -> None:
    http, client = endpoints
    ids = [g["id"] for g in http.get("/v1/games").json()["games"]]
    assert "toy" in ids and "nim" in ids
    assert client.list_games() == http.get("/v1/games").json()


@pytest.mark.parametrize("position", sorted(EXPECTED))
def test_values_over_both_transports(endpoints: tuple[httpx.Client, NimbaseClient], position: str) -> None:
    http, client = endpoints
    grundy, remoteness = EXPECTED[position]
    expected = {
        "game": "toy",
        "position": position,
        "outcome": "P" if grundy == 0 else "N",
        "grundy": grundy,
        "remoteness": remoteness,
        "source": "live",
        "parity": "odd" if grundy % 2 else "even",
    }
    assert http.get("/v1/value", params={"game": "toy", "position": position}).json() == expected
    assert client.get_value("toy", position) == expected
    p = http.get("/v1/is-p-position", params={"game": "toy", "position": position}).json()
    assert p["p_position"] is (grundy == 0) and client.is_p_position("toy", position) == p


def test_best_moves_ranked(endpoints: tuple[httpx.Client, NimbaseClient]) -> None:
    http, client = endpoints
    answer = http.get("/v1/best-move", params={"game": "toy", "position": "d"}).json()
    assert [m["move"] for m in answer["moves"]] == ["d -> c", "d -> a", "d -> b"]
    assert answer["best_move"]["position"] == "c" and answer["best_move"]["outcome"] == "P"
    assert [m["children"] for m in answer["moves"]] == [1, 1, 2]  # c, a, b have that many moves
    assert answer["parity"] == "odd" and answer["best_move"]["children"] == 1
    assert client.best_move("toy", "d") == answer
    assert client.best_move("toy", "d")["moves"][0]["move"] == "d -> c"
    limited = http.get("/v1/best-move", params={"game": "toy", "position": "d", "limit": 1}).json()
    assert len(limited["moves"]) == 1
    terminal = client.best_move("toy", "end")
    assert terminal["moves"] == [] and "best_move" not in terminal


def test_batch_stats_and_errors(endpoints: tuple[httpx.Client, NimbaseClient]) -> None:
    http, client = endpoints
    batch = http.post("/v1/values:batch", json={"game": "toy", "positions": ["c", "nowhere", "start"]}).json()
    assert [v.get("grundy") for v in batch["values"]] == [0, None, 1]
    assert batch["values"][1]["error"]["code"] == "INVALID_ARGUMENT"
    assert "'nowhere'" in batch["values"][1]["error"]["message"]
    assert client.batch_get_values("toy", ["c", "nowhere", "start"]) == batch
    stats = http.get("/v1/stats", params={"game": "toy"}).json()
    assert stats["p_positions"] == ["c", "end"] and client.get_stats("toy") == stats
    missing = http.get("/v1/sequence", params={"game": "toy", "stop": 3})
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "NOT_FOUND"
    with pytest.raises(NimbaseClientError) as refused:
        client.submit_job("toy", 10)
    assert refused.value.code == "FAILED_PRECONDITION"
    bad = http.get("/v1/value", params={"game": "toy:x", "position": "a"})
    assert bad.status_code == 400 and "toy:x" in bad.json()["error"]["message"]


def test_the_kind_fields_are_documented(endpoints: tuple[httpx.Client, NimbaseClient]) -> None:
    http, _ = endpoints
    schemas = http.get("/openapi.json").json()["components"]["schemas"]
    parity = schemas["Value"]["properties"]["parity"]
    children = schemas["Move"]["properties"]["children"]
    assert parity["type"] == "string" and "parity" in parity["description"]
    assert children["type"] == "integer" and "moves" in children["description"]
    assert "parity" not in schemas["Value"].get("required", [])
    assert "children" not in schemas["Move"].get("required", [])


def test_its_own_setting_reaches_it_through_the_service() -> None:
    """The toy declares NIMBASE_LIMITS_TOY_LISTED_P_POSITIONS in its module and its registry entry only:
    the service reads it with the others (a bad value stops it, naming the variable) and lends it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(registry.FAMILIES, "toy", toy_family())
        assert Nimbase(Settings(), None).get_stats(GetStats("toy"))["p_positions"] == ["c", "end"]
        few = Settings(kind_variables={"NIMBASE_LIMITS_TOY_LISTED_P_POSITIONS": "1"})
        stats = Nimbase(few, None).get_stats(GetStats("toy"))
        assert stats["p_positions"] is None and stats["p_position_count"] == 2
        bad = Settings(kind_variables={"NIMBASE_LIMITS_TOY_LISTED_P_POSITIONS": "none"})
        with pytest.raises(InvalidSetting, match=r"NIMBASE_LIMITS_TOY_LISTED_P_POSITIONS='none' is invalid"):
            Nimbase(bad, None)
    with pytest.MonkeyPatch.context() as patch:
        patch.delitem(registry.FAMILIES, "toy", raising=False)
        unknown = "NIMBASE_LIMITS_TOY_LISTED_P_POSITIONS='1' is not a nimbase setting"
        with pytest.raises(InvalidSetting, match=unknown):
            Nimbase(few, None)  # no toy registered: no such setting
