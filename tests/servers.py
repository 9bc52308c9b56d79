"""The real gRPC and REST servers in a background thread of the test process, on loopback ports the system
picks: over any service (`running_server`), or over a real `Nimbase` on the emptied test database with
clients at hand (`serving_api`). Shared by the tests of service, client, cli, worker, web and fuzz."""

from __future__ import annotations

import asyncio
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import sqlalchemy as sa

from nimbase.client import NimbaseClient
from nimbase.settings import Settings
from service.core import Nimbase, NimbaseService
from service.limits import DEFAULT_LIMITS, Limits
from service.server import BoundPorts, serve
from tests.database import empty_data_tables

#: One TLS context for test clients made again and again (httpx loads the CA bundle for each client that
#: has none: 30 ms of CPU), though they speak plain HTTP to loopback.
TLS = ssl.create_default_context()


@contextmanager
def running_server(
    service: NimbaseService, limits: Limits = DEFAULT_LIMITS, **options: Any
) -> Iterator[BoundPorts]:
    """Both servers over `service` (a real `Nimbase` or tests.service.fake_service's fake), bounded by
    `limits`, on loopback ports picked by the system, in a background event loop; `options` go to `serve`
    (e.g. cors_origins, rate_limit)."""
    ready = threading.Event()
    bound: list[BoundPorts] = []
    errors: list[BaseException] = []
    stops: list[asyncio.Event] = []
    loop = asyncio.new_event_loop()

    def on_ready(ports: BoundPorts) -> None:
        bound.append(ports)
        ready.set()

    async def main() -> None:
        stops.append(asyncio.Event())
        await serve(service, 0, 0, "127.0.0.1", stops[0], on_ready, limits=limits, **options)

    def run() -> None:
        try:
            loop.run_until_complete(main())
        except BaseException as exc:
            errors.append(exc)
            ready.set()

    thread = threading.Thread(target=run, name="test-service-server", daemon=True)
    thread.start()
    if not ready.wait(60) or errors:
        raise RuntimeError(f"the test server did not start: {errors!r}")
    try:
        yield bound[0]
    finally:
        loop.call_soon_threadsafe(stops[0].set)
        thread.join(60)
        loop.close()
    if errors:  # the server broke while running or stopping
        raise RuntimeError("the test server failed") from errors[0]


@dataclass
class Endpoints:
    """Both servers over a real `Nimbase` on the test database: REST, gRPC with the admin token and
    without it."""

    http: httpx.Client
    client: NimbaseClient
    anonymous: NimbaseClient
    db: sa.Engine
    service: Nimbase


@contextmanager
def serving_api(
    db_engine: sa.Engine,
    token: str,
    limits: Limits = DEFAULT_LIMITS,
    kind_variables: dict[str, str] | None = None,
) -> Iterator[Endpoints]:
    """Both servers over a real Nimbase with admin `token` (and the kinds' own variables given), on a
    database emptied first: a worker a test runs would also run any job an earlier test left queued, and
    uploads need names not taken."""
    empty_data_tables(db_engine)
    settings = Settings(admin_token=token, limits=limits, kind_variables=kind_variables or {})
    service = Nimbase(settings, db_engine)
    with (
        running_server(service, limits) as ports,
        httpx.Client(base_url=f"http://127.0.0.1:{ports.http}", timeout=60) as http,
        NimbaseClient(f"127.0.0.1:{ports.grpc}", token=token, timeout=60) as client,
        NimbaseClient(f"127.0.0.1:{ports.grpc}", timeout=60) as anonymous,
    ):
        yield Endpoints(http, client, anonymous, db_engine, service)
