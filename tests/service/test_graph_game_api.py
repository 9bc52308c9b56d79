"""Game graphs (`graph:NAME`) through the public API: real gRPC and REST servers over a real `Nimbase` (and
the test PostgreSQL) on loopback, graphs uploaded by hand, a real worker storing a solution.

Every value is checked against what the rules give by hand (a cycle with no exit draws, a chain of n
moves is won or lost in n, terminal labels), or against the plain-Python reference of the kernel.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from engine import keep
from engine.kernels.retrograde import csr_from_edges, solve_graph_reference
from nimbase.client import NimbaseClientError
from storage.sequences import SequenceStore
from tests.servers import Endpoints, serving_api
from worker.runner import Worker

TOKEN = "graph-game-token"
#: Graphs with more edges are not solved for a request on this test server.
LIVE_EDGES = 40


@pytest.fixture(scope="module")
def api(db_engine: sa.Engine) -> Iterator[Endpoints]:
    """Both servers over a real Nimbase solving graphs of up to LIVE_EDGES edges live, on an emptied
    database."""
    with serving_api(
        db_engine, TOKEN, kind_variables={"NIMBASE_LIMITS_GRAPH_LIVE_EDGES": str(LIVE_EDGES)}
    ) as endpoints:
        yield endpoints


def upload(
    api: Endpoints,
    name: str,
    vertices: list[str],
    edges: list[list[str]],
    terminals: dict[str, str] | None = None,
) -> None:
    api.client.upload_graph(name, vertices, edges, terminals)


def value(api: Endpoints, game: str, vertex: str) -> dict[str, Any]:
    """GetValue over both transports (they must agree)."""
    answer = dict(api.client.get_value(game, vertex))
    response = api.http.get("/v1/value", params={"game": game, "position": vertex})
    assert response.status_code == 200, response.text
    assert response.json() == answer
    return answer


def rest_error(response: httpx.Response) -> tuple[int, str, str]:
    body = response.json()
    return response.status_code, body["error"]["code"], body["error"]["message"]


def chain(prefix: str, n: int) -> tuple[list[str], list[list[str]]]:
    """v0 -> v1 -> ... -> v(n-1): the last vertex has no move."""
    names = [f"{prefix}{i}" for i in range(n)]
    return names, [[names[i], names[i + 1]] for i in range(n - 1)]


# -- values ----------------------------------------------------------------------------------------------


def test_a_cycle_with_no_exit_is_a_draw(api: Endpoints) -> None:
    names = ["c0", "c1", "c2"]
    upload(api, "cycle3", names, [["c0", "c1"], ["c1", "c2"], ["c2", "c0"]])
    for name in names:
        answer = value(api, "graph:cycle3", name)
        note = answer.pop("note")
        assert answer == {"game": "graph:cycle3", "position": name, "outcome": "D", "source": "live"}
        assert "∞()" in note  # normal play: the loopy Grundy value is infinity of the empty set
    moves = api.client.best_move("graph:cycle3", "c0")["moves"]
    assert [(m["move"], m["position"], m["outcome"]) for m in moves] == [("c1", "c1", "D")]


def test_a_chain_gives_remoteness_n(api: Endpoints) -> None:
    """n moves from the end: lost for the player to move when n is even, won when odd, in n plies;
    normal play, acyclic: Grundy values 0, 1, 0, 1, ..."""
    names, edges = chain("a", 8)
    upload(api, "chain8", names, edges)
    for i, name in enumerate(names):
        n = len(names) - 1 - i
        answer = value(api, "graph:chain8", name)
        assert answer["outcome"] == ("N" if n % 2 else "P") and answer["remoteness"] == n
        assert answer["grundy"] == n % 2 and answer["source"] == "live"
        assert api.client.is_p_position("graph:chain8", name)["p_position"] is (n % 2 == 0)
    stats = api.client.get_stats("graph:chain8")
    assert (stats["wins"], stats["losses"], stats["draws"], stats["longest_win"]) == (4, 4, 0, 7)
    assert stats["kernel"] == ["a1", "a3", "a5", "a7"]


def test_terminal_labels(api: Endpoints) -> None:
    """A vertex with no move is lost by default; labelled, won or drawn for the player to move there."""
    upload(
        api,
        "labels",
        ["s", "won", "lost", "drawn", "plain", "to-won", "to-drawn"],
        [["s", "won"], ["s", "lost"], ["s", "drawn"], ["to-won", "won"], ["to-drawn", "drawn"]],
        {"won": "win", "lost": "loss", "drawn": "draw"},
    )
    expected = {
        "won": ("N", 0),
        "lost": ("P", 0),
        "drawn": ("D", None),
        "plain": ("P", 0),
        "to-won": ("P", 1),
        "to-drawn": ("D", None),
        "s": ("N", 1),
    }
    for name, (outcome, remoteness) in expected.items():
        answer = value(api, "graph:labels", name)
        assert (answer["outcome"], answer.get("remoteness")) == (outcome, remoteness), name
        assert "grundy" not in answer  # a terminal is won or drawn: not normal play, no Grundy values
    assert "kernel" not in api.client.get_stats("graph:labels")


def test_terminals_past_a_message_limit_go_up_and_come_back_in_parts(api: Endpoints) -> None:
    """Every vertex of a graph may be labelled: 300,000 terminals of 60-character names take more than
    the 16 MiB a message may hold, so both streams split them (UploadGraph's and GetGraph's)."""
    labels = ("win", "loss", "draw")
    vertices = [f"{i:07}-" + "t" * 52 for i in range(300_000)]
    terminals = {v: labels[i % 3] for i, v in enumerate(vertices)}
    upload(api, "labelled", vertices, [], terminals)
    graph = api.client.get_graph("labelled")
    assert graph["vertices"] == vertices and graph["edges"] == []
    assert graph["terminals"] == terminals
    assert value(api, "graph:labelled", vertices[4])["outcome"] == "P"  # 4 % 3 == 1: "loss"


def test_best_move_ranks_fastest_win_then_draw_then_longest_loss(api: Endpoints) -> None:
    names, edges = chain("x", 5)  # x4 lost in 0, x3 won in 1, x2 lost in 2, x1 won in 3, x0 lost in 4
    vertices = [*names, "loop", "win-here", "draw-here", "lose-here"]
    edges += [
        ["loop", "loop"],
        # a win: lost positions at 2 and 0 (the faster first), then a draw, then won ones
        ["win-here", "x2"],
        ["win-here", "x1"],
        ["win-here", "loop"],
        ["win-here", "x4"],
        ["win-here", "x3"],
        # a draw: the draw before the wins
        ["draw-here", "x1"],
        ["draw-here", "loop"],
        ["draw-here", "x3"],
        # a loss: every move wins for the opponent; the slowest (x1, won in 3) first
        ["lose-here", "x3"],
        ["lose-here", "x1"],
    ]
    upload(api, "ranks", vertices, edges)
    game = "graph:ranks"
    answer = api.client.best_move(game, "win-here")
    assert (answer["outcome"], answer["remoteness"]) == ("N", 1)
    assert [(m["move"], m["outcome"], m.get("remoteness")) for m in answer["moves"]] == [
        ("x4", "P", 0),
        ("x2", "P", 2),
        ("loop", "D", None),
        ("x1", "N", 3),
        ("x3", "N", 1),
    ]
    assert answer["best_move"] == answer["moves"][0]
    response = api.http.get("/v1/best-move", params={"game": game, "position": "win-here", "limit": 2})
    assert [m["move"] for m in response.json()["moves"]] == ["x4", "x2"]
    draw = api.client.best_move(game, "draw-here")
    assert draw["outcome"] == "D" and [m["move"] for m in draw["moves"]] == ["loop", "x1", "x3"]
    loss = api.client.best_move(game, "lose-here")
    assert (loss["outcome"], loss["remoteness"]) == ("P", 4)
    assert [(m["move"], m["remoteness"]) for m in loss["moves"]] == [("x1", 3), ("x3", 1)]
    terminal = api.client.best_move(game, "x4")
    assert terminal["moves"] == [] and "best_move" not in terminal


def test_loopy_grundy_values(api: Endpoints) -> None:
    """Normal play with cycles: gamma finite where v + *n is a P-position for some n (`grundy`), infinite
    (absent) otherwise. p <-> q, p -> t (t terminal), q -> q: gamma(t) = 0, gamma(p) = infinity({0})."""
    upload(api, "loopy", ["p", "q", "t", "u"], [["p", "q"], ["q", "p"], ["p", "t"], ["q", "q"], ["u", "t"]])
    assert value(api, "graph:loopy", "t")["grundy"] == 0
    assert value(api, "graph:loopy", "u")["grundy"] == 1
    p = value(api, "graph:loopy", "p")
    assert p["outcome"] == "N" and "grundy" not in p and "∞(0)" in p["note"]
    assert "note" not in value(api, "graph:loopy", "u")
    stats = api.client.get_stats("graph:loopy")
    assert stats["infinite_grundy"] == 2 and "kernel" not in stats and stats["acyclic"] is False


def test_stats_and_the_kernel_of_an_acyclic_graph(api: Endpoints) -> None:
    """The subtraction game {1, 2} on heaps 0..9 as a graph: P-positions (the kernel) the multiples of 3."""
    names = [f"h{n}" for n in range(10)]
    edges = [[f"h{n}", f"h{n - s}"] for n in range(10) for s in (1, 2) if n >= s]
    upload(api, "sub12", names, edges)
    stats = api.client.get_stats("graph:sub12")
    assert stats["kernel"] == ["h0", "h3", "h6", "h9"]
    assert (stats["wins"], stats["losses"], stats["draws"]) == (6, 4, 0)
    indptr, indices = csr_from_edges(10, [int(a[1:]) for a, _ in edges], [int(b[1:]) for _, b in edges])
    _, remoteness = solve_graph_reference(indptr, indices)
    assert stats["longest_win"] == max(r for n, r in enumerate(remoteness) if n % 3)
    assert [value(api, "graph:sub12", f"h{n}")["remoteness"] for n in range(10)] == remoteness
    assert [value(api, "graph:sub12", f"h{n}")["grundy"] for n in range(10)] == [n % 3 for n in range(10)]
    assert api.http.get("/v1/stats", params={"game": "graph:sub12"}).json()["kernel"] == stats["kernel"]


# -- jobs and stored solutions ---------------------------------------------------------------------------


def test_a_worker_stores_the_solution(api: Endpoints, monkeypatch: pytest.MonkeyPatch) -> None:
    names, edges = chain("w", 12)
    upload(api, "stored12", names, [*edges, ["w0", "w0"]])
    before = value(api, "graph:stored12", "w3")
    assert before["source"] == "live"
    job = api.client.submit_job("graph:stored12", 0)
    assert (job["family"], job["status"]) == ("solution", "queued")
    Worker(api.db, poll_seconds=0.05).run_until_idle(threading.Event())
    done = api.client.get_job(job["id"])
    assert done["status"] == "done" and done["progress"]["done"] == done["progress"]["total"] > 0
    api.service.tables.forget()  # the stored header is seen at once (not after its two seconds)
    # The live solution looks for a stored one only every STORED_RECHECK_SECONDS, not at every request.
    monkeypatch.setattr(keep, "STORED_RECHECK_SECONDS", 3600.0)
    assert value(api, "graph:stored12", "w3") == before
    monkeypatch.setattr(keep, "STORED_RECHECK_SECONDS", 0.0)
    assert value(api, "graph:stored12", "w3") == {**before, "source": "table"}
    assert api.client.get_stats("graph:stored12")["source"] == "table"
    with pytest.raises(NimbaseClientError) as info:
        api.client.submit_job("graph:stored12", 0, family="heap")
    assert info.value.code == "INVALID_ARGUMENT"


def test_a_large_graph_waits_for_its_solve(api: Endpoints) -> None:
    """Past the live limit, a query before the solve is FAILED_PRECONDITION saying the solve is pending,
    naming the job queued for it; once a worker has run it, the answers come from the stored solution."""
    names, edges = chain("b", LIVE_EDGES + 10)
    upload(api, "big", names, edges)
    response = api.http.get("/v1/value", params={"game": "graph:big", "position": "b0"})
    status, code, message = rest_error(response)
    assert (status, code) == (409, "FAILED_PRECONDITION") and "solve of graph 'big' is pending" in message
    job = response.json()["error"]["job"]
    assert (job["game"], job["family"], job["status"]) == ("graph:big", "solution", "queued")
    with pytest.raises(NimbaseClientError) as info:
        api.client.best_move("graph:big", "b0")
    assert info.value.code == "FAILED_PRECONDITION" and "pending" in info.value.message
    assert info.value.job is not None and info.value.job["id"] == job["id"]
    with pytest.raises(NimbaseClientError) as info:
        api.client.get_stats("graph:big")
    assert info.value.code == "FAILED_PRECONDITION"
    Worker(api.db, poll_seconds=0.05).run_until_idle(threading.Event())
    assert api.client.get_job(job["id"])["status"] == "done"
    api.service.tables.forget()
    n = len(names) - 1
    answer = value(api, "graph:big", "b0")
    assert (answer["outcome"], answer["remoteness"], answer["source"]) == ("N" if n % 2 else "P", n, "table")
    assert api.client.get_stats("graph:big")["longest_win"] == n - (n % 2 == 0)
    # stored at about a byte a vertex (a few words of header), not a row per vertex
    info_row = SequenceStore(api.db).info("graph:big", "solution")
    assert info_row is not None and info_row.computed_upto * 4 < 4 * len(names) + 64


# -- refusals --------------------------------------------------------------------------------------------


def test_bad_positions_and_games(api: Endpoints) -> None:
    names, edges = chain("e", 3)
    upload(api, "errs", names, edges)
    status, code, message = rest_error(
        api.http.get("/v1/value", params={"game": "graph:errs", "position": "zz"})
    )
    assert (status, code) == (400, "INVALID_ARGUMENT") and "'zz'" in message
    status, code, message = rest_error(
        api.http.get("/v1/value", params={"game": "graph:nope", "position": "a"})
    )
    assert (status, code) == (404, "NOT_FOUND") and "'nope'" in message
    status, code, _ = rest_error(
        api.http.get("/v1/value", params={"game": "graph:bad name", "position": "a"})
    )
    assert (status, code) == (400, "INVALID_ARGUMENT")
    status, code, _ = rest_error(api.http.get("/v1/sequence", params={"game": "graph:errs", "stop": 3}))
    assert (status, code) == (404, "NOT_FOUND")


@pytest.mark.parametrize(
    ("body", "quoted"),
    [
        ({"vertices": ["a", "b"], "edges": [["a", "z"]]}, "'z'"),
        ({"vertices": ["a", "a"], "edges": []}, "'a'"),
        ({"vertices": ["a", "b"], "edges": [["a", "b"]], "terminals": {"b": "tie"}}, "'tie'"),
        ({"vertices": ["a", "b"], "edges": [["a", "b"]], "terminals": {"a": "win"}}, "has a move"),
        ({"vertices": ["a"], "edges": [], "terminals": {"q": "win"}}, "'q'"),
    ],
)
def test_bad_uploads_are_refused(api: Endpoints, body: dict[str, Any], quoted: str) -> None:
    response = api.http.post(
        "/v1/graphs", json={"name": "refused", **body}, headers={"authorization": f"Bearer {TOKEN}"}
    )
    status, code, message = rest_error(response)
    assert (status, code) == (400, "INVALID_ARGUMENT") and quoted in message
    status, code, _ = rest_error(api.http.get("/v1/value", params={"game": "graph:refused", "position": "a"}))
    assert (status, code) == (404, "NOT_FOUND")  # nothing was stored


def test_an_upload_without_the_token_is_refused_before_its_body_is_read(api: Endpoints) -> None:
    """Without the token the body is not parsed: malformed JSON gets 401 or 403, not 400."""
    for headers, expected in (
        ({}, (401, "UNAUTHENTICATED")),
        ({"authorization": "Bearer no"}, (403, "PERMISSION_DENIED")),
    ):
        response = api.http.post(
            "/v1/graphs", content=b"{not json", headers={"content-type": "application/json", **headers}
        )
        assert rest_error(response)[:2] == expected


def test_a_name_taken_is_409(api: Endpoints) -> None:
    upload(api, "taken", ["a"], [])
    response = api.http.post(
        "/v1/graphs",
        json={"name": "taken", "vertices": ["b"], "edges": []},
        headers={"authorization": f"Bearer {TOKEN}"},
    )
    assert rest_error(response)[:2] == (409, "ALREADY_EXISTS")
    with pytest.raises(NimbaseClientError) as info:
        api.client.upload_graph("taken", ["c"], [])
    assert info.value.code == "ALREADY_EXISTS"
    assert value(api, "graph:taken", "a")["outcome"] == "P"
