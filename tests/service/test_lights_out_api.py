"""Lights Out and graph uploads through the public API: real gRPC and REST servers over a real `Nimbase`
(and the test PostgreSQL) on loopback.

The seed's facts (tests/data/lights_out.json) are checked as a client sees them, and the other answers
against a breadth-first search from the rules (`distances`: the fewest presses of every board of a small
shape, straight from the gluing rules of kinds.lights_out.grid_neighbourhoods_reference, or a
graph's neighbourhoods).
"""

from __future__ import annotations

import itertools
import math
import threading
from collections import deque
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from kinds.lights_out.shape import grid_neighbourhoods_reference
from nimbase.client import NimbaseClientError
from nimbase.settings import Settings
from service.calls import UploadGraph
from service.core import Nimbase
from service.errors import PermissionDenied
from tests.engine.contexts import fresh_keepers
from tests.facts import load_facts
from tests.servers import Endpoints, running_server, serving_api
from worker.runner import Worker

FACTS = load_facts("lights_out")["lights_out"]
TOKEN = "lights-out-token"


@pytest.fixture(scope="module")
def api(db_engine: sa.Engine) -> Iterator[Endpoints]:
    with serving_api(db_engine, TOKEN) as endpoints:
        yield endpoints


# -- the oracle: the rules, one press at a time --------------------------------------------------------


def grid_flips(rows: int, cols: int, topology: str) -> list[int]:
    """Each press's flip set as a bit mask (bit r * cols + c), from the gluing rules."""
    return [
        sum(1 << (r * cols + c) for r, c in cells)
        for cells in grid_neighbourhoods_reference(rows, cols, topology)
    ]


def graph_flips(n: int, edges: list[tuple[int, int]]) -> list[int]:
    flips = [1 << v for v in range(n)]
    for a, b in edges:
        flips[a] |= 1 << b
        flips[b] |= 1 << a
    return flips


def distances(flips: list[int]) -> dict[int, int]:
    """Fewest presses from the all-white board to every board reachable (a breadth-first search)."""
    seen = {0: 0}
    queue = deque([0])
    while queue:
        board = queue.popleft()
        for flip in flips:
            if board ^ flip not in seen:
                seen[board ^ flip] = seen[board] + 1
                queue.append(board ^ flip)
    return seen


def board_text(board: int, rows: int, cols: int) -> str:
    flat = "".join("1" if board >> i & 1 else "0" for i in range(rows * cols))
    return "/".join(flat[r * cols : (r + 1) * cols] for r in range(rows))


def parse_board(text: str) -> int:
    return sum(1 << i for i, ch in enumerate(text.replace("/", "")) if ch == "1")


def press_index(name: str, cols: int) -> int:
    return (int(name[0]) - 1) * cols + int(name[1]) - 1


def histogram(found: dict[int, int]) -> list[int]:
    counts = [0] * (max(found.values()) + 1)
    for d in found.values():
        counts[d] += 1
    return counts


def rest_error(response: httpx.Response) -> tuple[int, str, str]:
    body = response.json()
    assert set(body) == {"error"}, body
    return response.status_code, body["error"]["code"], body["error"]["message"]


def grpc_error(call: Any) -> NimbaseClientError:
    with pytest.raises(NimbaseClientError) as info:
        call()
    return info.value


# -- values ----------------------------------------------------------------------------------------------


def test_the_seeds_example_over_both_transports(api: Endpoints) -> None:
    example = FACTS["grid_3x3"]["example"]
    board, presses = example["board"], example["presses"]
    rest = api.http.get("/v1/value", params={"game": "lights-out:3x3", "position": board})
    assert rest.status_code == 200
    value = rest.json()
    assert "outcome" not in value and "grundy" not in value
    assert value["solvable"] is True and value["remoteness"] == len(presses) == 6
    assert set(value["solution"]) == set(presses) and len(value["solution"]) == 6
    assert value["game"] == "lights-out:3x3" and value["position"] == board
    assert value["source"] in ("live", "table")
    assert api.client.get_value("lights-out:3x3", board) == value
    assert list(api.client.get_value("lights-out:3x3", board)) == list(value)  # the same keys, in order
    # pressing the solution clears the board, by the rules
    flips = grid_flips(3, 3, "plane")
    cleared = parse_board(board)
    for press in value["solution"]:
        cleared ^= flips[press_index(press, 3)]
    assert cleared == 0


def test_every_3x3_board_of_every_topology_against_the_rules(api: Endpoints) -> None:
    for topology in ("plane", "torus", "klein", "projective", "cylinder", "moebius"):
        game = "lights-out:3x3" + ("" if topology == "plane" else f":{topology}")
        flips = grid_flips(3, 3, topology)
        found = distances(flips)
        boards = [board_text(b, 3, 3) for b in range(512)]
        batch = api.client.batch_get_values(game, boards)["values"]
        assert api.http.post("/v1/values:batch", json={"game": game, "positions": boards}).json() == {
            "values": batch
        }
        for b, value in enumerate(batch):
            assert "error" not in value, value
            assert value["solvable"] == (b in found), (game, b)
            if b in found:
                assert value.get("remoteness") == found[b] == len(value["solution"]), (game, b)
                cleared = b
                for press in value["solution"]:
                    cleared ^= flips[press_index(press, 3)]
                assert cleared == 0
            else:
                assert "solution" not in value and "remoteness" not in value


def test_a_solved_board_has_an_empty_solution(api: Endpoints) -> None:
    value = api.client.get_value("lights-out:3x3", "000/000/000")
    assert value["solvable"] is True and value["solution"] == [] and value["remoteness"] == 0
    assert (
        api.http.get("/v1/value", params={"game": "lights-out:3x3", "position": "000/000/000"}).json()
        == value
    )


def test_an_unsolvable_board(api: Endpoints) -> None:
    # on the 4 x 4 board a single black corner cannot be solved (nullity 4)
    board = "1000/0000/0000/0000"
    value = api.client.get_value("lights-out:4x4", board)
    assert value["solvable"] is False and "solution" not in value and "remoteness" not in value
    assert api.http.get("/v1/value", params={"game": "lights-out:4x4", "position": board}).json() == value
    moves = api.client.best_move("lights-out:4x4", board)["moves"]
    assert len(moves) == 16 and all(m["solvable"] is False for m in moves)


def test_best_move_lists_every_press_best_first(api: Endpoints) -> None:
    board = FACTS["grid_3x3"]["example"]["board"]
    answer = api.client.best_move("lights-out:3x3", board)
    rest = api.http.get("/v1/best-move", params={"game": "lights-out:3x3", "position": board}).json()
    assert rest == answer
    found = distances(grid_flips(3, 3, "plane"))
    flips = grid_flips(3, 3, "plane")
    moves = answer["moves"]
    assert sorted(m["move"] for m in moves) == [f"{r}{c}" for r in (1, 2, 3) for c in (1, 2, 3)]
    assert answer["best_move"] == moves[0] and moves[0]["remoteness"] == answer["remoteness"] - 1
    remoteness = [m["remoteness"] for m in moves]
    assert remoteness == sorted(remoteness)
    for move in moves:
        reached = parse_board(board) ^ flips[press_index(move["move"], 3)]
        assert move["position"] == board_text(reached, 3, 3)
        assert move["remoteness"] == found[reached] and move["solvable"] is True
        assert "outcome" not in move
    # the presses of the solution are exactly those that bring the board one press nearer
    assert {m["move"] for m in moves if m["remoteness"] == 5} == set(answer["solution"])
    limited = api.client.best_move("lights-out:3x3", board, limit=2)
    assert limited["moves"] == moves[:2]


def test_best_move_of_a_large_board_needs_a_limit(api: Endpoints) -> None:
    board = "/".join(["0" * 50] * 50)
    response = api.http.get("/v1/best-move", params={"game": "lights-out:50x50", "position": board})
    status, code, message = rest_error(response)
    assert (status, code) == (422, "RESOURCE_EXHAUSTED") and "limit" in message
    answer = api.client.best_move("lights-out:50x50", board, limit=3)
    assert [m["move"] for m in answer["moves"]] == ["1,1", "1,2", "1,3"]


def test_is_p_position_does_not_apply(api: Endpoints) -> None:
    response = api.http.get("/v1/is-p-position", params={"game": "lights-out:3x3", "position": "000/011/011"})
    status, code, message = rest_error(response)
    assert (status, code) == (409, "FAILED_PRECONDITION") and "puzzle" in message
    error = grpc_error(lambda: api.client.is_p_position("lights-out:3x3", "000/011/011"))
    assert error.code == "FAILED_PRECONDITION"


# -- stats -------------------------------------------------------------------------------------------


def test_3x3_stats(api: Endpoints) -> None:
    stats = api.client.get_stats("lights-out:3x3")
    assert api.http.get("/v1/stats", params={"game": "lights-out:3x3"}).json() == stats
    assert stats["distance_counts"] == FACTS["grid_3x3"]["distance_counts_from_all_white"]
    assert stats["distance_counts"] == [1, 9, 36, 84, 126, 126, 84, 36, 9, 1]
    assert stats["diameter"] == 9 and stats["rank"] == 9 and stats["nullity"] == 0
    assert stats["solvable_boards"] == 512 and stats["method"] == "elimination"


@pytest.mark.parametrize("topology", ["torus", "klein", "projective"])
def test_3x3_stats_on_glued_shapes(api: Endpoints, topology: str) -> None:
    found = distances(grid_flips(3, 3, topology))
    stats = api.client.get_stats(f"lights-out:3x3:{topology}")
    assert stats == api.http.get("/v1/stats", params={"game": f"lights-out:3x3:{topology}"}).json()
    counts = histogram(found)
    assert stats["distance_counts"] == counts and stats["diameter"] == len(counts) - 1
    assert stats["solvable_boards"] == len(found) == 2 ** stats["rank"]
    assert stats["rank"] + stats["nullity"] == 9
    # the seed: T12+T21+T23+T32 = 0 on the torus, so it is not always solvable (nor the Klein bottle's)
    if topology in ("torus", "klein"):
        assert stats["nullity"] > 0


def test_the_largest_shape_has_stats_by_the_polynomial_method(api: Endpoints) -> None:
    stats = api.client.get_stats("lights-out:100000x100000")
    assert api.http.get("/v1/stats", params={"game": "lights-out:100000x100000"}).json() == stats
    assert stats["method"] == "polynomial" and stats["source"] == "formula"
    assert stats["rank"] + stats["nullity"] == 10**10
    assert stats["solvable_boards"] == f"2^{stats['rank']}" and stats["distance_counts"] is None
    response = api.http.get("/v1/value", params={"game": "lights-out:100000x100000", "position": "0"})
    status, code, message = rest_error(response)
    assert (status, code) == (422, "RESOURCE_EXHAUSTED") and "256 x 256" in message
    assert grpc_error(lambda: api.client.get_value("lights-out:257x3", "0")).code == "RESOURCE_EXHAUSTED"


def test_large_counts_are_exact_text(api: Endpoints) -> None:
    stats = api.client.get_stats("lights-out:20x20")
    assert stats == api.http.get("/v1/stats", params={"game": "lights-out:20x20"}).json()
    counts = stats["distance_counts"]
    assert counts is not None and counts[200] == str(math.comb(400, 200))
    assert counts[1] == 400 and stats["solvable_boards"] == "2^400"


# -- bad input ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "position", "quoted"),
    [
        ("lights-out:3x3", "000/01/011", "'01'"),  # rows of unequal length
        ("lights-out:3x3", "000/021/011", "'2'"),  # a character other than 0 and 1
        ("lights-out:3x3", "000/011", "'000/011'"),  # wrong size
        ("lights-out:3x3", "0000/0110/0110", "'0000'"),
        ("lights-out:0x3", "0", "'lights-out:0x3'"),  # size 0
        ("lights-out:3x3:sphere", "000/000/000", "'sphere'"),  # unknown topology
        ("lights-out:3by3", "000/000/000", "'3by3'"),
        ("lights-out", "0", "'lights-out'"),
        ("lights-out:100001x2", "0", "100001"),
    ],
)
def test_bad_input_is_refused_quoting_it(api: Endpoints, game: str, position: str, quoted: str) -> None:
    response = api.http.get("/v1/value", params={"game": game, "position": position})
    status, code, message = rest_error(response)
    assert (status, code) == (400, "INVALID_ARGUMENT") and quoted in message, message
    error = grpc_error(lambda: api.client.get_value(game, position))
    assert error.code == "INVALID_ARGUMENT" and error.message == message


def test_lights_out_is_listed(api: Endpoints) -> None:
    games = {g["id"]: g for g in api.client.list_games()["games"]}
    assert "lights-out:5x5" in games and "lights-out:5x5:torus" in games
    examples = games["lights-out:5x5:torus"]["examples"]
    assert examples
    flips = grid_flips(5, 5, "torus")
    for example in examples:
        answer = api.client.get_value("lights-out:5x5:torus", example)
        board = parse_board(example)
        assert answer["solvable"] == (board in distances(flips))
        if answer["solvable"]:  # its solution's presses clear the board
            for press in answer["solution"]:
                board ^= flips[press_index(press, 5)]
            assert board == 0


# -- graphs -------------------------------------------------------------------------------------------


def path(n: int) -> tuple[list[str], list[list[str]]]:
    return [f"v{i}" for i in range(n)], [[f"v{i}", f"v{i + 1}"] for i in range(n - 1)]


def cycle(n: int) -> tuple[list[str], list[list[str]]]:
    return [f"v{i}" for i in range(n)], [[f"v{i}", f"v{(i + 1) % n}"] for i in range(n)]


def graph_rows(db: sa.Engine) -> tuple[int, int]:
    with db.connect() as conn:
        graphs = conn.execute(sa.text("SELECT count(*) FROM graphs")).scalar_one()
        chunks = conn.execute(sa.text("SELECT count(*) FROM graph_chunks")).scalar_one()
    return int(graphs), int(chunks)


def upload_rest(api: Endpoints, body: dict[str, Any], token: str | None = TOKEN) -> httpx.Response:
    headers = {} if token is None else {"authorization": f"Bearer {token}"}
    return api.http.post("/v1/graphs", json=body, headers=headers)


def test_paths_and_cycles_uploaded_over_both_transports(api: Endpoints) -> None:
    assert FACTS["path_L_n_always_solvable_iff"] == "n != 3k+2"
    assert FACTS["cycle_C_n_always_solvable_iff"] == "n != 2 and n != 3k"
    for n in range(1, 10):
        vertices, edges = path(n)
        response = upload_rest(api, {"name": f"L{n}", "vertices": vertices, "edges": edges})
        assert response.status_code == 200, response.text
        summary = response.json()
        assert summary["name"] == f"L{n}" and summary["vertex_count"] == n
        assert summary["edge_count"] == n - 1 and summary["terminal_count"] == 0
        stats = api.client.get_stats(f"lights-out:graph:L{n}")
        assert (stats["nullity"] == 0) == (n % 3 != 2), n
    for n in range(3, 10):
        vertices, edges = cycle(n)
        summary = api.client.upload_graph(f"C{n}", vertices, edges)
        assert summary["name"] == f"C{n}" and summary["edge_count"] == n
        stats = api.http.get("/v1/stats", params={"game": f"lights-out:graph:C{n}"}).json()
        assert (stats["nullity"] == 0) == (n % 3 != 0), n
    # boards against the rules, one press at a time
    for name, (vertices, edges) in (("L5", path(5)), ("C6", cycle(6))):
        n = len(vertices)
        flips = graph_flips(n, [(int(a[1:]), int(b[1:])) for a, b in edges])
        found = distances(flips)
        boards = ["".join("1" if b >> i & 1 else "0" for i in range(n)) for b in range(1 << n)]
        values = api.client.batch_get_values(f"lights-out:graph:{name}", boards)["values"]
        for b, value in enumerate(values):
            assert value["solvable"] == (b in found)
            if b in found:
                assert value["remoteness"] == found[b] and set(value["solution"]) <= set(vertices)
    # the middle of a path of three clears it: the press is the vertex's name
    value = api.client.get_value("lights-out:graph:L3", "111")
    assert value["solution"] == ["v1"] and value["remoteness"] == 1
    moves = api.http.get("/v1/best-move", params={"game": "lights-out:graph:L3", "position": "111"}).json()
    assert moves["best_move"]["move"] == "v1" and moves["best_move"]["position"] == "000"


def test_get_graph_round_trips_over_both_transports(api: Endpoints) -> None:
    body = {
        "name": "kite",
        "vertices": ["a", "b", "c", "d", "tip"],
        "edges": [["a", "b"], ["b", "c"], ["c", "a"], ["c", "d"], ["d", "tip"], ["a", "b"]],
        "terminals": {"tip": "win"},
    }
    assert upload_rest(api, body).status_code == 200
    assert api.http.get("/v1/graphs/kite").json() == body
    assert api.client.get_graph("kite") == body
    kite = graph_flips(5, [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4)])
    assert api.client.get_value("lights-out:graph:kite", "11000")["solvable"] == (0b00011 in distances(kite))
    response = api.http.get("/v1/graphs/nosuch")
    status, code, message = rest_error(response)
    assert (status, code) == (404, "NOT_FOUND") and "'nosuch'" in message
    assert grpc_error(lambda: api.client.get_graph("nosuch")).code == "NOT_FOUND"
    status, code, _ = rest_error(api.http.get("/v1/graphs/a%20b"))
    assert (status, code) == (400, "INVALID_ARGUMENT")


def test_a_large_graph_over_grpc(api: Endpoints) -> None:
    """A graph larger than one gRPC message: a 300 x 300 grid (90,000 vertices, 179,400 edges)."""
    side = 300
    vertices = [f"r{r}c{c}" for r in range(side) for c in range(side)]
    edges = [[f"r{r}c{c}", f"r{r}c{c + 1}"] for r in range(side) for c in range(side - 1)]
    edges += [[f"r{r}c{c}", f"r{r + 1}c{c}"] for r in range(side - 1) for c in range(side)]
    summary = api.client.upload_graph("grid300", iter(vertices), iter(edges))
    assert summary["vertex_count"] == side * side and summary["edge_count"] == len(edges)
    graph = api.client.get_graph("grid300")
    assert graph["vertices"] == vertices and graph["edges"] == edges and graph["terminals"] == {}
    assert api.http.get("/v1/graphs/grid300").json() == graph  # streamed JSON
    stats = api.client.get_stats("lights-out:graph:grid300")
    plane = api.client.get_stats("lights-out:300x300")
    assert stats["rank"] == plane["rank"] and stats["nullity"] == plane["nullity"]


def test_a_graph_that_is_not_there(api: Endpoints) -> None:
    response = api.http.get("/v1/value", params={"game": "lights-out:graph:absent", "position": "0"})
    status, code, message = rest_error(response)
    assert (status, code) == (404, "NOT_FOUND") and "'absent'" in message
    assert grpc_error(lambda: api.client.get_stats("lights-out:graph:absent")).code == "NOT_FOUND"
    # uploaded afterwards, it is found
    api.client.upload_graph("absent", ["x", "y"], [["x", "y"]])
    assert api.client.get_value("lights-out:graph:absent", "11")["remoteness"] == 1


def test_a_name_is_taken_for_good(api: Endpoints) -> None:
    assert upload_rest(api, {"name": "taken", "vertices": ["a"]}).status_code == 200
    before = graph_rows(api.db)
    status, code, message = rest_error(upload_rest(api, {"name": "taken", "vertices": ["b", "c"]}))
    assert (status, code) == (409, "ALREADY_EXISTS") and "'taken'" in message
    error = grpc_error(lambda: api.client.upload_graph("taken", ["b"], []))
    assert error.code == "ALREADY_EXISTS"
    assert graph_rows(api.db) == before
    assert api.client.get_graph("taken")["vertices"] == ["a"]


def test_concurrent_uploads_of_one_name_store_one(api: Endpoints) -> None:
    results: list[str] = []

    def upload(i: int) -> None:
        vertices = [f"u{i}_{k}" for k in range(2000)]
        try:
            api.client.upload_graph("race", vertices, [])
            results.append(f"ok {i}")
        except NimbaseClientError as error:
            results.append(error.code)

    threads = [threading.Thread(target=upload, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results)[:3] == ["ALREADY_EXISTS"] * 3 and results.count("ALREADY_EXISTS") == 3
    winner = next(r for r in results if r.startswith("ok")).split()[1]
    assert api.client.get_graph("race")["vertices"][0] == f"u{winner}_0"


@pytest.mark.parametrize(
    ("body", "quoted"),
    [
        ({"name": "bad1", "vertices": ["a", "b"], "edges": [["a", "z"]]}, "'z'"),
        ({"name": "bad2", "vertices": ["a", "b", "a"]}, "'a'"),
        ({"name": "bad3", "vertices": ["a", "b"], "edges": [["a", "b"]], "terminals": {"b": "tie"}}, "'tie'"),
        ({"name": "bad4", "vertices": ["a", "b"], "terminals": {"q": "win"}}, "'q'"),
        ({"name": "bad5", "vertices": ["a", "b"], "edges": [["a", "b"]], "terminals": {"a": "win"}}, "'a'"),
        ({"name": "bad 6", "vertices": ["a"]}, "'bad 6'"),
        ({"name": "bad7", "vertices": []}, "no vertex"),
        ({"name": "bad8", "vertices": ["a\nb"]}, "'a\\nb'"),
        ({"name": "bad9", "vertices": ["a"], "edges": [["a"]]}, "edges"),
        ({"name": "bad10", "vertices": ["a"], "colour": "red"}, "colour"),
    ],
)
def test_bad_graphs_are_refused_and_nothing_is_stored(
    api: Endpoints, body: dict[str, Any], quoted: str
) -> None:
    before = graph_rows(api.db)
    status, code, message = rest_error(upload_rest(api, body))
    assert (status, code) == (400, "INVALID_ARGUMENT") and quoted in message, message
    if "colour" not in body and len(body.get("edges", [[0, 0]])[0]) == 2:
        error = grpc_error(
            lambda: api.client.upload_graph(
                body["name"], body["vertices"], body.get("edges", []), body.get("terminals")
            )
        )
        assert error.code == "INVALID_ARGUMENT" and quoted in error.message, error.message
    assert graph_rows(api.db) == before


def test_a_self_loop_is_refused_by_lights_out(api: Endpoints) -> None:
    """A graph game may move from a vertex to itself; Lights Out refuses such a graph, quoting the loop."""
    api.client.upload_graph("loopy", ["a", "b"], [["a", "b"], ["b", "b"]])
    response = api.http.get("/v1/value", params={"game": "lights-out:graph:loopy", "position": "10"})
    status, code, message = rest_error(response)
    assert (status, code) == (400, "INVALID_ARGUMENT") and "['b', 'b']" in message and "self-loop" in message


def test_uploads_need_the_token(api: Endpoints) -> None:
    before = graph_rows(api.db)
    body = {"name": "secret", "vertices": ["a"]}
    status, code, _ = rest_error(upload_rest(api, body, token=None))
    assert (status, code) == (401, "UNAUTHENTICATED")
    status, code, _ = rest_error(upload_rest(api, body, token="wrong"))
    assert (status, code) == (403, "PERMISSION_DENIED")
    assert grpc_error(lambda: api.anonymous.upload_graph("secret", ["a"])).code == "UNAUTHENTICATED"
    assert graph_rows(api.db) == before
    assert api.http.get("/v1/graphs/secret").status_code == 404


def test_uploads_are_refused_without_an_admin_token_configured(db_engine: sa.Engine) -> None:
    service = Nimbase(Settings(), db_engine)
    with pytest.raises(PermissionDenied, match="graph upload is disabled"):
        service.upload_graph(UploadGraph("g0", ["a"], [], token="x"))


def test_a_body_over_its_cap_is_refused(db_engine: sa.Engine) -> None:
    from service.limits import Limits

    limits = Limits(graph_body_bytes=1000)
    service = Nimbase(Settings(admin_token=TOKEN, limits=limits), db_engine)
    vertices = [f"vertex{i}" for i in range(500)]
    with (
        running_server(service, limits) as ports,
        httpx.Client(base_url=f"http://127.0.0.1:{ports.http}", timeout=60) as http,
    ):
        response = http.post(
            "/v1/graphs",
            json={"name": "big", "vertices": vertices},
            headers={"authorization": f"Bearer {TOKEN}"},
        )
        status, code, message = rest_error(response)
        assert (status, code) == (413, "RESOURCE_EXHAUSTED") and "NIMBASE_LIMITS_GRAPH_BODY_BYTES" in message


# -- the stored elimination ---------------------------------------------------------------------------


def test_a_worker_stores_the_elimination(api: Endpoints, monkeypatch: pytest.MonkeyPatch) -> None:
    game = "lights-out:7x6:klein"
    before = api.client.get_value(game, "/".join(["100000"] * 7))
    assert before["source"] == "live"
    job = api.client.submit_job(game, 0, family="elimination")
    assert job["family"] == "elimination" and job["status"] == "queued"
    Worker(api.db, poll_seconds=0.05).run_until_idle(threading.Event())
    assert api.client.get_job(job["id"])["status"] == "done"
    # as a server started afresh: the elimination is read from storage
    monkeypatch.setattr(api.service, "kept", fresh_keepers())
    api.service.tables.forget()
    assert api.client.get_stats(game)["source"] == "table"
    after = api.client.get_value(game, "/".join(["100000"] * 7))
    assert after == {**before, "source": "table"}
    # a shape whose boards are not valued has no elimination to store
    error = grpc_error(lambda: api.client.submit_job("lights-out:300x300", 0, family="elimination"))
    assert error.code == "FAILED_PRECONDITION"
    error = grpc_error(lambda: api.client.submit_job("lights-out:3x3", 0, family="heap"))
    assert error.code == "INVALID_ARGUMENT"


def test_uploaded_graphs_elimination_is_stored_too(api: Endpoints, monkeypatch: pytest.MonkeyPatch) -> None:
    vertices, edges = cycle(12)
    api.client.upload_graph("C12w", vertices, edges)
    game = "lights-out:graph:C12w"
    board = "1" * 12
    before = api.client.get_value(game, board)
    job = api.client.submit_job(game, 0)
    Worker(api.db, poll_seconds=0.05).run_until_idle(threading.Event())
    assert api.client.get_job(job["id"])["status"] == "done"
    monkeypatch.setattr(api.service, "kept", fresh_keepers())
    api.service.tables.forget()
    assert api.client.get_value(game, board) == {**before, "source": "table"}


def test_the_3x3_table_of_presses(api: Endpoints) -> None:
    """Every press's remoteness from the example board equals the distance of the board it leaves."""
    found = distances(grid_flips(3, 3, "plane"))
    for board in itertools.islice(found, 0, 512, 37):
        text = board_text(board, 3, 3)
        answer = api.client.best_move("lights-out:3x3", text)
        assert answer["remoteness"] == found[board]
        for move in answer["moves"]:
            assert move["remoteness"] == found[parse_board(move["position"])]
