"""GET /standard as a lean route (service.rest.lean) answers what it answered as a FastAPI route
(`fastapi_routes`, the route it was, held here), byte for byte: the status, the body and every header, on
many random positions of several materials (tables solved live: three men), on lila's errors, on a
malformed deadline header, on a wrong method, and with gzip asked for or not; and the metrics count it
under its path."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from unittest import mock

import chess
import httpx
import pytest
import sqlalchemy as sa
from fastapi import APIRouter, FastAPI, Request, Response

from kinds.chess.edge import lila, lila_routes
from kinds.chess.fen import material_name
from kinds.chess.tables import board_of_slot, parse_material
from nimbase.settings import Settings
from service.core import Nimbase
from service.metrics import Metrics
from service.rest.app import create_app
from service.rest.deadline import DeadlineHeader
from tests.database import empty_data_tables

#: Materials the random positions are drawn from (solved live; half the boards with the colours
#: swapped), with promotions among their moves where a pawn is.
MATERIALS = ("KRvK", "KQvK", "KPvK", "KBvK", "KNvK")
#: A position answering every kind of error, each asked as lila's clients ask it.
SPECIAL = [
    "8/8/8/8/8/2k5/8/KR6 w - - 0 1",
    "8/8/8/8/8/2k5/8/KR6_w_-_-_0_1",
    "8/8/8/8/8/2k5/8/KR6 w KQkq - 0 1",
    "6k1/5Q2/6K1/8/8/8/8/8 b - - 12 40",
    "k7/2Q5/1K6/8/8/8/8/8 b - - 0 1",
    "R1k5/8/2K5/8/8/8/8/8 b - - 0 1",
    "8/8/8/8/3k4/8/4P3/4K3 w - - 99 80",
    "8/8/8/8/3k4/8/4P3/4K3 w - - 100 80",
    "8/8/8/8/4P3/2k5/8/K7 b - e3 0 1",
    "not a fen",
    "",
    "8/8/8/8/8/8/8/Kk5R w - - 0 1",
    "4k2r/8/8/8/8/8/8/4K3 b k - 0 1",
    "4k3/8/8/8/8/8/PPPP4/4K3 w - - 0 1",
    "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
    "8/8/8/8/8/8/8/8 w - - 0 1",
]
#: Materials not stored and past the live solve: the answer names the job queued, whose state it tells
#: as it changes (queued, then how far done), so only its status and start are compared.
NOT_STORED = ["4k3/8/8/8/8/8/PP6/4K3 w - - 0 1", "8/2p5/8/3P4/8/8/8/K1k5 b - - 0 1"]


def random_fens(count: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    fens: list[str] = []
    while len(fens) < count:
        material = parse_material(rng.choice(MATERIALS))
        board = board_of_slot(material, rng.randrange(material.slots))
        if board is not None:
            board = board.mirror() if rng.random() < 0.5 else board
            board.halfmove_clock = rng.choice((0, 0, 1, 37, 99, 100, 120))
            fens.append(board.fen())
    return fens


async def fastapi_standard(
    request: Request,
    fen: lila_routes.Fen = None,
    dtc: lila_routes.Dtc = None,
    x_deadline: DeadlineHeader = None,
) -> Response:
    """GET /standard through FastAPI's parameters, as it was before it was lean."""
    return await lila_routes._memory_first(
        request, x_deadline, lila_routes._lila(lila.standard, request, fen)
    )


def fastapi_routes() -> APIRouter:
    """lila's routes with GET /standard as the FastAPI route it was: what the lean route must answer."""
    routes = APIRouter()
    routes.get("/standard", include_in_schema=False)(fastapi_standard)
    routes.routes.extend(r for r in lila_routes.router.routes if getattr(r, "path", None) != "/standard")
    return routes


@pytest.fixture(scope="module")
def apps(db_engine: sa.Engine) -> Iterator[tuple[FastAPI, FastAPI, Metrics]]:
    """The app as served (GET /standard lean) and the app with the FastAPI route it was, over one service."""
    empty_data_tables(db_engine)
    service = Nimbase(Settings(admin_token="lean-token"), db_engine)
    metrics = Metrics()
    lean = create_app(service, metrics)
    with mock.patch.object(lila_routes, "routes", fastapi_routes):
        previous = create_app(service)
    yield lean, previous, metrics


#: A request: its method, path, query and headers.
Asked = tuple[str, str, dict[str, str], dict[str, str]]
#: An answer: its status, its headers but the date and the server's time (sorted; the Server-Timing
#: header's presence kept), its body.
Answered = tuple[int, list[tuple[str, str]], bytes]


def exchange(app: FastAPI, requests: list[Asked]) -> list[Answered]:
    """Each request's status, headers (but the date, and the server's time only as there) and body bytes,
    asked in process."""

    async def run() -> list[Answered]:
        answers: list[Answered] = []
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://lila.test") as client:
            for method, path, params, headers in requests:
                response = await client.request(method, path, params=params, headers=headers)
                kept = sorted(
                    (k, "app;dur=*" if k == "server-timing" else v)
                    for k, v in response.headers.items()
                    if k != "date"
                )
                answers.append((response.status_code, kept, await response.aread()))
        return answers

    return asyncio.run(run())


def test_the_lean_route_answers_byte_for_byte_as_the_previous_one(
    apps: tuple[FastAPI, FastAPI, Metrics],
) -> None:
    lean, previous, _ = apps
    plain = {"accept-encoding": "identity"}
    requests: list[Asked] = []
    for fen in random_fens(400) + SPECIAL:
        requests.append(("GET", "/standard", {"fen": fen}, plain))
    for fen in SPECIAL[:3]:
        requests.append(("GET", "/standard", {"fen": fen}, {"accept-encoding": "gzip"}))
        requests.append(("GET", "/standard", {"fen": fen, "dtc": "always"}, plain))
        requests.append(("GET", "/standard", {"fen": fen}, {"x-deadline-ms": "soon", **plain}))
        requests.append(("GET", "/standard", {"fen": fen}, {"x-deadline-ms": "-5", **plain}))
        requests.append(("GET", "/standard", {"fen": fen}, {"x-deadline-ms": "5000", **plain}))
        requests.append(("GET", f"/standard?fen={fen.replace(' ', '_')}&fen=", {}, plain))
        requests.append(("HEAD", "/standard", {"fen": fen}, plain))
        requests.append(("POST", "/standard", {"fen": fen}, plain))
        requests.append(("OPTIONS", "/standard", {"fen": fen}, {"origin": "http://a.test", **plain}))
    requests.append(("GET", "/standard", {}, plain))
    requests.append(("GET", "/standard/", {"fen": SPECIAL[0]}, plain))
    exchange(previous, requests)  # each table solved, each job queued: the answers to compare are settled
    before, after = exchange(previous, requests), exchange(lean, requests)
    assert len(after) == len(requests)
    for request, old, new in zip(requests, before, after, strict=True):
        assert new == old, (request, old, new)
    statuses = {answer[0] for answer in after}
    assert {200, 400, 404, 405} <= statuses
    queued = [("GET", "/standard", {"fen": fen}, plain) for fen in NOT_STORED]
    for old, new in zip(exchange(previous, queued), exchange(lean, queued), strict=True):
        assert old[0] == new[0] == 404
        assert old[2].startswith(b"required table not found: the table of")
        assert new[2].startswith(b"required table not found: the table of")


def test_the_metrics_count_the_lean_route_by_its_path(apps: tuple[FastAPI, FastAPI, Metrics]) -> None:
    lean, _, metrics = apps
    seen: list[tuple[str, str, str]] = []
    observe = metrics.observe

    def record(transport: str, method: str, code: str, seconds: float) -> None:
        seen.append((transport, method, code))
        observe(transport, method, code, seconds)

    with mock.patch.object(metrics, "observe", record):
        exchange(
            lean, [("GET", "/standard", {"fen": SPECIAL[0]}, {}), ("GET", "/standard", {"fen": "x"}, {})]
        )
        exchange(lean, [("POST", "/standard", {"fen": SPECIAL[0]}, {})])
    assert seen == [
        ("rest", "GET /standard", "OK"),
        ("rest", "GET /standard", "INVALID_ARGUMENT"),
        ("rest", "POST /standard", "UNIMPLEMENTED"),
    ]


def test_a_board_of_each_material_is_drawn() -> None:
    fens = random_fens(400)
    kinds = {material_name(chess.Board(fen)) for fen in fens}
    assert len(kinds) == 2 * len(MATERIALS)
