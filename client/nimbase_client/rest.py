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
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast
from urllib.parse import quote

import httpx

from nimbase_client import records
from nimbase_client.channel import DEFAULT_ATTEMPTS, DEFAULT_TIMEOUT
from nimbase_client.closing import AsyncClosing, Closing
from nimbase_client.errors import NimbaseClientError, from_error_body

__all__ = ["AsyncRestClient", "RestClient"]

T = TypeVar("T")
DEFAULT_BASE_URL = "http://localhost:8080"


@dataclass(frozen=True, slots=True)
class Request(Generic[T]):
    """One route: method, path, query, JSON body, whether it needs the admin token; `T` is its answer."""

    method: str
    path: str
    params: dict[str, str | int] = field(default_factory=dict)
    body: dict[str, Any] | None = None
    auth: bool = False


def _list_games() -> Request[records.GameList]:
    return Request("GET", "/v1/games")


def _get_value(game: str, position: str) -> Request[records.Value]:
    return Request("GET", "/v1/value", {"game": game, "position": position})


def _best_move(
    game: str, position: str, limit: int | None, choose: str | None, seed: int | None
) -> Request[records.BestMove]:
    params: dict[str, str | int] = {"game": game, "position": position}
    if limit is not None:
        params["limit"] = limit
    if choose is not None:
        params["choose"] = choose
    if seed is not None:
        params["seed"] = seed
    return Request("GET", "/v1/best-move", params)


def _mainline(
    game: str, position: str, max_plies: int | None, metric: str | None
) -> Request[records.Mainline]:
    params: dict[str, str | int] = {"game": game, "position": position}
    if max_plies is not None:
        params["max_plies"] = max_plies
    if metric is not None:
        params["metric"] = metric
    return Request("GET", "/v1/mainline", params)


def _is_p_position(game: str, position: str) -> Request[records.PPosition]:
    return Request("GET", "/v1/is-p-position", {"game": game, "position": position})


def _batch_get_values(game: str, positions: Iterable[str]) -> Request[records.Batch]:
    return Request("POST", "/v1/values:batch", body={"game": game, "positions": list(positions)})


def _get_sequence(game: str, start: int, stop: int, family: str | None) -> Request[records.Sequence]:
    params: dict[str, str | int] = {"game": game, "start": start, "stop": stop}
    if family is not None:
        params["family"] = family
    return Request("GET", "/v1/sequence", params)


def _get_stats(game: str) -> Request[records.Stats]:
    return Request("GET", "/v1/stats", {"game": game})


def _submit_job(
    game: str, upto: int | None, fill: bool, family: str | None, men: int | None = None
) -> Request[records.Job]:
    body: dict[str, Any] = {"game": game, "fill": fill}
    for key, value in (("upto", upto), ("family", family), ("men", men)):
        if value is not None:
            body[key] = value
    return Request("POST", "/v1/jobs", body=body, auth=True)


def _retry_job(job_id: int) -> Request[records.Job]:
    return Request("POST", f"/v1/jobs/{int(job_id)}:retry", auth=True)


def _get_job(job_id: int) -> Request[records.Job]:
    return Request("GET", f"/v1/jobs/{int(job_id)}")


def _list_jobs(limit: int | None, cursor: str | None = None) -> Request[records.JobList]:
    query: dict[str, Any] = {} if limit is None else {"limit": limit}
    if cursor is not None:
        query["cursor"] = cursor
    return Request("GET", "/v1/jobs", query)


def _cancel_job(job_id: int) -> Request[records.Job]:
    return Request("DELETE", f"/v1/jobs/{int(job_id)}", auth=True)


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

    def list_games(self) -> records.GameList:
        return self._call(_list_games())

    def get_value(self, game: str, position: str) -> records.Value:
        return self._call(_get_value(game, position))

    def best_move(
        self,
        game: str,
        position: str,
        limit: int | None = None,
        choose: str | None = None,
        seed: int | None = None,
    ) -> records.BestMove:
        return self._call(_best_move(game, position, limit, choose, seed))

    def mainline(
        self, game: str, position: str, max_plies: int | None = None, metric: str | None = None
    ) -> records.Mainline:
        return self._call(_mainline(game, position, max_plies, metric))

    def is_p_position(self, game: str, position: str) -> records.PPosition:
        return self._call(_is_p_position(game, position))

    def batch_get_values(self, game: str, positions: Iterable[str]) -> records.Batch:
        return self._call(_batch_get_values(game, positions))

    def get_sequence(self, game: str, start: int, stop: int, family: str | None = None) -> records.Sequence:
        return self._call(_get_sequence(game, start, stop, family))

    def get_stats(self, game: str) -> records.Stats:
        return self._call(_get_stats(game))

    def submit_job(
        self,
        game: str,
        upto: int | None = None,
        fill: bool = False,
        family: str | None = None,
        men: int | None = None,
    ) -> records.Job:
        return self._call(_submit_job(game, upto, fill, family, men))

    def retry_job(self, job_id: int) -> records.Job:
        return self._call(_retry_job(job_id))

    def get_job(self, job_id: int) -> records.Job:
        return self._call(_get_job(job_id))

    def list_jobs(self, limit: int | None = None, cursor: str | None = None) -> records.JobList:
        return self._call(_list_jobs(limit, cursor))

    def cancel_job(self, job_id: int) -> records.Job:
        return self._call(_cancel_job(job_id))

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

    async def list_games(self) -> records.GameList:
        return await self._call(_list_games())

    async def get_value(self, game: str, position: str) -> records.Value:
        return await self._call(_get_value(game, position))

    async def best_move(
        self,
        game: str,
        position: str,
        limit: int | None = None,
        choose: str | None = None,
        seed: int | None = None,
    ) -> records.BestMove:
        return await self._call(_best_move(game, position, limit, choose, seed))

    async def mainline(
        self, game: str, position: str, max_plies: int | None = None, metric: str | None = None
    ) -> records.Mainline:
        return await self._call(_mainline(game, position, max_plies, metric))

    async def is_p_position(self, game: str, position: str) -> records.PPosition:
        return await self._call(_is_p_position(game, position))

    async def batch_get_values(self, game: str, positions: Iterable[str]) -> records.Batch:
        return await self._call(_batch_get_values(game, positions))

    async def get_sequence(
        self, game: str, start: int, stop: int, family: str | None = None
    ) -> records.Sequence:
        return await self._call(_get_sequence(game, start, stop, family))

    async def get_stats(self, game: str) -> records.Stats:
        return await self._call(_get_stats(game))

    async def submit_job(
        self,
        game: str,
        upto: int | None = None,
        fill: bool = False,
        family: str | None = None,
        men: int | None = None,
    ) -> records.Job:
        return await self._call(_submit_job(game, upto, fill, family, men))

    async def retry_job(self, job_id: int) -> records.Job:
        return await self._call(_retry_job(job_id))

    async def get_job(self, job_id: int) -> records.Job:
        return await self._call(_get_job(job_id))

    async def list_jobs(self, limit: int | None = None, cursor: str | None = None) -> records.JobList:
        return await self._call(_list_jobs(limit, cursor))

    async def cancel_job(self, job_id: int) -> records.Job:
        return await self._call(_cancel_job(job_id))

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
