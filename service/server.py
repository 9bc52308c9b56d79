"""One process serving gRPC and REST: a grpc.aio server and a uvicorn server in one event loop.

Both transports share the service object and the metrics. Ports may be 0 (the system picks free
ones); the bound ports are reported through `on_ready`, which is how tests find them.

uvicorn parses HTTP with h11, which holds a request's line and headers in memory until they are
complete: its bound is the URL cap (`Limits.url_bytes`, which the app enforces in the error shape) plus
`HEAD_ALLOWANCE`, and what h11 itself refuses is answered in the error shape too.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
import socket
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from nimbase import collector
from nimbase.settings import DEFAULT_RATE_LIMIT, RateLimitSettings, Settings, TlsFiles
from service import convert, malloc
from service.core import Nimbase, NimbaseService
from service.grpc_server import create_grpc_server
from service.isolation import ProcessPool
from service.limits import DEFAULT_LIMITS, Limits
from service.loop_lag import LoopWatch
from service.metrics import Metrics
from service.pooled import PooledService
from service.ports import bind_port
from service.rate_limit import RateLimiter
from service.readiness import SharedNote
from service.rest.answer import open_reads_lane
from service.rest.app import create_app
from service.warm_up import WarmUp

log = logging.getLogger(__name__)

#: Seconds in-flight calls get to finish once a stop is asked for.
SHUTDOWN_GRACE_S = 5.0
#: Bytes h11 holds of a request's line and headers beyond the URL cap: the headers' room.
HEAD_ALLOWANCE = 64 << 10


@dataclass(frozen=True, slots=True)
class BoundPorts:
    grpc: int
    http: int


class _Uvicorn(uvicorn.Server):
    """uvicorn without its own signal handlers: stopping is `serve`'s job, for both transports."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class _H11(H11Protocol):
    """uvicorn's h11 protocol, answering a request h11 refuses (malformed, or a head over its bound) with
    the contract's error body instead of plain text, and closing a connection whose request head is not
    complete `head_seconds` after it began (uvicorn bounds idle keep-alive connections, not a head sent
    a byte at a time)."""

    #: Set per server by `_h11_protocol` (`Limits.head_seconds`).
    head_seconds: float = DEFAULT_LIMITS.head_seconds
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_head_timer()

    def data_received(self, data: bytes) -> None:
        if self._head_timer is None and self.conn.their_state is h11.IDLE:
            self._arm_head_timer()  # a request begins on a kept-alive connection
        super().data_received(data)
        if self._head_timer is not None and self.conn.their_state is not h11.IDLE:
            self._disarm_head_timer()  # the head is complete: the request is the app's to time

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_head_timer()
        super().connection_lost(exc)

    def _arm_head_timer(self) -> None:
        self._head_timer = self.loop.call_later(self.head_seconds, self._head_too_slow)

    def _disarm_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_too_slow(self) -> None:
        self._head_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()

    def send_400_response(self, msg: str) -> None:
        bound = self.config.h11_max_incomplete_event_size
        message = f"invalid HTTP request: malformed, or its request line and headers are over {bound} bytes"
        body = json.dumps(convert.error_body("INVALID_ARGUMENT", message), separators=(",", ":")).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        response = h11.Response(status_code=400, headers=headers, reason=b"Bad Request")
        for event in (response, h11.Data(data=body), h11.EndOfMessage()):
            self.transport.write(self.conn.send(event))
        self.transport.close()


def _h11_protocol(limits: Limits) -> type[_H11]:
    """The protocol class of one server, with its head timeout (uvicorn instantiates the class itself)."""
    return type("H11WithHeadTimeout", (_H11,), {"head_seconds": limits.head_seconds})


def _grpc_address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _http_socket(host: str, port: int, reuse_port: bool = False) -> socket.socket:
    sock = bind_port(host, port, "the HTTP port", reuse_port)
    sock.listen(2048)
    sock.setblocking(False)
    return sock


async def serve(
    service: NimbaseService,
    grpc_port: int,
    http_port: int,
    host: str = "0.0.0.0",
    stop: asyncio.Event | None = None,
    on_ready: Callable[[BoundPorts], None] | None = None,
    *,
    limits: Limits = DEFAULT_LIMITS,
    cors_origins: Sequence[str] = ("*",),
    rate_limit: RateLimitSettings = DEFAULT_RATE_LIMIT,
    tls: TlsFiles | None = None,
    reuse_port: bool = False,
    metrics: Metrics | None = None,
) -> BoundPorts:
    """Serve gRPC and REST until `stop` is set (or forever); returns the ports that were bound.

    `limits` bounds each call's batch size and deadline in both transports: pass the service's
    (`Settings.limits`), so the wire and the service agree. `cors_origins` may call the REST API from
    web pages (`Settings.cors_origins`); `rate_limit` (`Settings.rate_limit`) bounds each client
    address's requests over both transports together. With `tls` (`Settings.tls`) both serve TLS only.
    `reuse_port` lets other processes serve the same ports (service.processes), `metrics` theirs too.
    """
    metrics = metrics if metrics is not None else Metrics()
    limiter = RateLimiter.of(rate_limit)
    grpc_server, servicer = await create_grpc_server(service, metrics, limits, limiter, reuse_port)
    if tls is None:
        bound_grpc = grpc_server.add_insecure_port(_grpc_address(host, grpc_port))
    else:
        credentials = grpc.ssl_server_credentials([(tls.key.read_bytes(), tls.cert.read_bytes())])
        bound_grpc = grpc_server.add_secure_port(_grpc_address(host, grpc_port), credentials)
    if bound_grpc == 0:
        raise OSError(f"cannot bind the gRPC port {host}:{grpc_port}")
    sock = _http_socket(host, http_port, reuse_port)
    ports = BoundPorts(grpc=bound_grpc, http=sock.getsockname()[1])

    config = uvicorn.Config(
        create_app(service, metrics, limits, cors_origins=cors_origins, limiter=limiter),
        http=_h11_protocol(limits),
        h11_max_incomplete_event_size=limits.url_bytes + HEAD_ALLOWANCE,
        log_config=None,
        access_log=False,
        lifespan="off",
        ssl_certfile=None if tls is None else str(tls.cert),
        ssl_keyfile=None if tls is None else str(tls.key),
    )
    http_server = _Uvicorn(config)
    malloc.configure()
    await grpc_server.start()
    http_task = asyncio.create_task(http_server.serve(sockets=[sock]))
    trimmer = asyncio.create_task(_trim_now_and_then())
    watch = asyncio.create_task(LoopWatch(metrics.loop_lag.observe).run())
    try:
        while not http_server.started:
            if http_task.done():
                await http_task
                raise RuntimeError("the HTTP server stopped while starting")
            await asyncio.sleep(0.01)
        await open_reads_lane()
        secure = "" if tls is None else " (TLS)"
        log.info("serving gRPC on %s:%d and HTTP on %s:%d%s", host, ports.grpc, host, ports.http, secure)
        if on_ready is not None:
            on_ready(ports)
        waiters: list[asyncio.Future[Any]] = [http_task]
        if stop is not None:
            waiters.append(asyncio.ensure_future(stop.wait()))
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        for waiter in waiters[1:]:
            waiter.cancel()
    finally:
        log.info("stopping: in-flight calls get %.0f s", SHUTDOWN_GRACE_S)
        http_server.should_exit = True
        await grpc_server.stop(SHUTDOWN_GRACE_S)
        with contextlib.suppress(asyncio.CancelledError):
            await http_task
        trimmer.cancel()
        watch.cancel()
        servicer.close()
        sock.close()
    return ports


async def _trim_now_and_then() -> None:
    """Return freed C heap to the system every `malloc.TRIM_SECONDS` (see service.malloc)."""
    while True:
        await asyncio.sleep(malloc.TRIM_SECONDS)
        malloc.trim()


#: How long a thread keeps the GIL from another that asks for it (Python's default is 5 ms). The event loop
#: gives the GIL up at every socket write and wait; with threads encoding long answers, each time it
#: waited up to the whole interval to get it back, and a hundred answers being written made cheap lookups
#: wait hundreds of milliseconds.
SWITCH_SECONDS = 0.0005


def run_configured(
    service: NimbaseService,
    settings: Settings,
    *,
    reuse_port: bool = False,
    metrics: Metrics | None = None,
    database_url: str | None = None,
    worker: SharedNote | None = None,
) -> None:
    """`serve` on the settings' ports, host, limits, CORS origins, rate limit and TLS until SIGINT or
    SIGTERM, then stop gracefully (the `nimbase serve` entry point, and each process of `nimbase serve
    --processes N`). Given the `database_url` the service was built on, its computations run in
    `Limits.live_processes` processes (service.isolation), unless that is 0. The server is ready once
    this process has compiled the kernels its requests may run (service.warm_up, in the background:
    /healthz answers meanwhile) and, given `worker` (`nimbase run`'s word on its worker), while that
    says nothing is wrong."""

    async def main(served: NimbaseService) -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await serve(
            served,
            settings.grpc_port,
            settings.http_port,
            settings.host,
            stop,
            limits=settings.limits,
            cors_origins=settings.cors_origins,
            rate_limit=settings.rate_limit,
            tls=settings.tls,
            reuse_port=reuse_port,
            metrics=metrics,
        )

    # the service, its kinds and the modules: out of every full collection; the collector on before the
    # warm-up compiles anything (nimbase.collector)
    collector.freeze_startup()
    if isinstance(service, Nimbase):
        service.readiness.require("kernels", WarmUp(settings, service).start().reason)
        if worker is not None:
            service.readiness.require("worker", worker.read)
    sys.setswitchinterval(SWITCH_SECONDS)
    with isolated(service, settings, database_url, wait=False) as served:
        asyncio.run(main(served))


@contextlib.contextmanager
def isolated(
    service: NimbaseService, settings: Settings, database_url: str | None, *, wait: bool = True
) -> Iterator[NimbaseService]:
    """`service` with its computations in a `ProcessPool` of processes built on the same settings and
    database (stopped on leaving); `service` itself when the pool is off or no URL is given. Without
    `wait` the service is handed over while the processes still start (a server then answers what it
    can by itself at once)."""
    if database_url is None or settings.limits.live_processes == 0 or not isinstance(service, Nimbase):
        yield service
        return
    pool = ProcessPool(settings, database_url, adopt=service.adopt)
    pool.start(wait=wait)
    try:
        yield PooledService(service, pool)
    finally:
        pool.close()
