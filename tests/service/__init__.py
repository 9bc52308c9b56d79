"""In-process tests of the service layer: a real `Nimbase` over the test PostgreSQL, called directly
(test_core) or through the real gRPC and REST servers on loopback (test_concurrency); no subprocess."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from service.core import NimbaseService
from service.limits import DEFAULT_LIMITS, Limits
from service.server import BoundPorts, serve


@contextmanager
def running_server(
    service: NimbaseService, limits: Limits = DEFAULT_LIMITS, **options: Any
) -> Iterator[BoundPorts]:
    """Both servers over `service` (a real `Nimbase` or tests.transport's fake), bounded by `limits`, on
    loopback ports picked by the system, in a background event loop; `options` go to `serve` (e.g.
    cors_origins, rate_limit)."""
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
