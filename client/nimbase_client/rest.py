"""The REST clients (httpx): `RestClient` and `AsyncRestClient`, the same methods as the gRPC clients.

For where gRPC cannot go (a proxy that speaks only HTTP/1.1). The answers are the same records, since
they are the REST JSON; an error answer raises `NimbaseClientError` with the code its body names. An
unreachable server is UNAVAILABLE and a timeout DEADLINE_EXCEEDED, as over gRPC. A connection that
cannot be made is tried again (`attempts`), which is safe for every route: nothing was sent.
Columnar lookups and the streams are gRPC's only; a graph goes up in one JSON body here (capped by the
server), in a stream of parts over gRPC.
"""

from __future__ import annotations

import ssl
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any, Concatenate, ParamSpec, TypeVar, cast
from urllib.parse import quote

import httpx

from nimbase_client import asks, records
from nimbase_client.asks import Ask, Request
from nimbase_client.channel import DEFAULT_ATTEMPTS, DEFAULT_TIMEOUT
from nimbase_client.closing import AsyncClosing, Closing
from nimbase_client.errors import NimbaseClientError, from_error_body

__all__ = ["AsyncRestClient", "RestClient"]

T = TypeVar("T")
P = ParamSpec("P")
DEFAULT_BASE_URL = "http://localhost:8080"


def _health() -> Request[records.Health]:
    return Request("GET", "/healthz")


def _upload_graph(
    name: str, vertices: Iterable[str], edges: Iterable[Sequence[str]], terminals: Mapping[str, str] | None
) -> Request[records.GraphSummary]:
    body: dict[str, Any] = {"name": name, "vertices": list(vertices), "edges": [list(e) for e in edges]}
    if terminals:
        body["terminals"] = dict(terminals)
    return Request("POST", "/v1/graphs", body=body, auth=True)


def _get_graph(name: str) -> Request[records.Graph]:
    return Request("GET", f"/v1/graphs/{quote(name, safe='')}")


class _Base:
    """What both REST clients keep: the base URL, the admin token, each request's deadline, and the httpx
    client (made by the client's `_open`). The arguments are `RestClient`'s."""

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        token: str | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
        *,
        root_certificates: bytes | None = None,
        attempts: int = DEFAULT_ATTEMPTS,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._token = token
        self._timeout = timeout
        self._http = self._open(_verify(root_certificates), attempts - 1)

    def _open(self, verify: ssl.SSLContext | bool, retries: int) -> Any:
        """The httpx client on `base_url` (blocking or asyncio), retrying a connection `retries` times."""
        raise NotImplementedError

    def _headers(self, request: Request[Any]) -> dict[str, str]:
        headers = {}
        if self._timeout is not None:  # the server's own budget for the request, capped at its limit
            headers["x-deadline-ms"] = str(max(1, int(self._timeout * 1000)))
        if request.auth and self._token is not None:
            headers["authorization"] = f"Bearer {self._token}"
        return headers

    def _send_args(self, request: Request[Any]) -> dict[str, Any]:
        return {
            "method": request.method,
            "url": request.path,
            "params": request.params or None,
            "json": request.body,
            "headers": self._headers(request),
        }


def _verify(root_certificates: bytes | None) -> ssl.SSLContext | bool:
    return (
        True if root_certificates is None else ssl.create_default_context(cadata=root_certificates.decode())
    )


def _answer(response: httpx.Response) -> Any:
    try:
        body = response.json()
    except ValueError:
        body = response.text
    if response.status_code >= 400:
        raise from_error_body(response.status_code, body)
    return body


def _transport_error(exc: httpx.TransportError) -> NimbaseClientError:
    code = "DEADLINE_EXCEEDED" if isinstance(exc, httpx.TimeoutException) else "UNAVAILABLE"
    return NimbaseClientError(code, f"{type(exc).__name__}: {exc}")


def call(ask: Callable[P, Ask[T]]) -> Callable[Concatenate[RestClient, P], T]:
    """`RestClient`'s method for the call `ask`, taking its fields."""

    def made(self: RestClient, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return self._call(ask(*args, **kwargs).rest())

    asks.method(made, ask)  # type: ignore[arg-type]
    return made


def call_async(ask: Callable[P, Ask[T]]) -> Callable[Concatenate[AsyncRestClient, P], Awaitable[T]]:
    """`AsyncRestClient`'s method for the call `ask`, taking its fields."""

    async def made(self: AsyncRestClient, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._call(ask(*args, **kwargs).rest())

    asks.method(made, ask)  # type: ignore[arg-type]
    return made


class RestClient(_Base, Closing):
    """Blocking client of a nimbase server's REST API.

    `base_url` is e.g. `http://localhost:8080` (`https://…` for TLS, trusting the system's CAs, or
    `root_certificates`, PEM bytes, instead). `token` is the admin token, `timeout` the seconds each
    request may take.
    """

    _http: httpx.Client

    def _open(self, verify: ssl.SSLContext | bool, retries: int) -> httpx.Client:
        transport = httpx.HTTPTransport(verify=verify, retries=retries)
        return httpx.Client(base_url=self.base_url, timeout=self._timeout, transport=transport)

    def close(self) -> None:
        self._http.close()

    def _call(self, request: Request[T]) -> T:
        try:
            response = self._http.request(**self._send_args(request))
        except httpx.TransportError as exc:
            raise _transport_error(exc) from None
        return cast(T, _answer(response))

    list_games = call(asks.ListGames)
    get_value = call(asks.GetValue)
    best_move = call(asks.BestMove)
    mainline = call(asks.Mainline)
    is_p_position = call(asks.IsPPosition)
    batch_get_values = call(asks.BatchGetValues)
    get_sequence = call(asks.GetSequence)
    get_stats = call(asks.GetStats)
    submit_job = call(asks.SubmitJob)
    retry_job = call(asks.RetryJob)
    get_job = call(asks.GetJob)
    list_jobs = call(asks.ListJobs)
    cancel_job = call(asks.CancelJob)

    def upload_graph(
        self,
        name: str,
        vertices: Iterable[str],
        edges: Iterable[Sequence[str]] = (),
        terminals: Mapping[str, str] | None = None,
    ) -> records.GraphSummary:
        """Stores a graph (needs the admin token) in one JSON body, of at most the server's
        NIMBASE_LIMITS_GRAPH_BODY_BYTES (64 MiB by default); the gRPC client streams larger ones."""
        return self._call(_upload_graph(name, vertices, edges, terminals))

    def get_graph(self, name: str) -> records.Graph:
        return self._call(_get_graph(name))

    def health(self) -> records.Health:
        return self._call(_health())


class AsyncRestClient(_Base, AsyncClosing):
    """The asyncio REST client: the same methods and arguments as `RestClient`, awaited."""

    _http: httpx.AsyncClient

    def _open(self, verify: ssl.SSLContext | bool, retries: int) -> httpx.AsyncClient:
        transport = httpx.AsyncHTTPTransport(verify=verify, retries=retries)
        return httpx.AsyncClient(base_url=self.base_url, timeout=self._timeout, transport=transport)

    async def close(self) -> None:
        await self._http.aclose()

    async def _call(self, request: Request[T]) -> T:
        try:
            response = await self._http.request(**self._send_args(request))
        except httpx.TransportError as exc:
            raise _transport_error(exc) from None
        return cast(T, _answer(response))

    list_games = call_async(asks.ListGames)
    get_value = call_async(asks.GetValue)
    best_move = call_async(asks.BestMove)
    mainline = call_async(asks.Mainline)
    is_p_position = call_async(asks.IsPPosition)
    batch_get_values = call_async(asks.BatchGetValues)
    get_sequence = call_async(asks.GetSequence)
    get_stats = call_async(asks.GetStats)
    submit_job = call_async(asks.SubmitJob)
    retry_job = call_async(asks.RetryJob)
    get_job = call_async(asks.GetJob)
    list_jobs = call_async(asks.ListJobs)
    cancel_job = call_async(asks.CancelJob)

    async def upload_graph(
        self,
        name: str,
        vertices: Iterable[str],
        edges: Iterable[Sequence[str]] = (),
        terminals: Mapping[str, str] | None = None,
    ) -> records.GraphSummary:
        return await self._call(_upload_graph(name, vertices, edges, terminals))

    async def get_graph(self, name: str) -> records.Graph:
        return await self._call(_get_graph(name))

    async def health(self) -> records.Health:
        return await self._call(_health())
