"""Repeated REST lookups answered from the service's answer cache (service.answers) before routing, as
gRPC answers repeated GetValue and IsPPosition calls: a bot asking its hot positions again costs the server
a dictionary lookup, not FastAPI's parameter validation, the lookup, the JSON and its ETag each time.

A memory answer that never changes (`AnswerCache.keep` decides by its source) is kept under its route and
its query string as received, with its ETag. A request of the same route and query string that sends none
of `VARYING` (a deadline to check, a tag to compare) gets those bytes; any other goes the usual way. Only
small answers are kept (those `Compression` never gzips), so a kept answer is the same bytes the route
sends whatever the client accepts.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from service.answers import AnswerCache
from service.http_cache import CACHE_CONTROL, GZIP_MINIMUM_BYTES

#: The routes whose memory answers are kept.
KEPT_PATHS = frozenset({"/v1/value", "/v1/is-p-position"})
#: Request headers that may change the answer (a malformed deadline is refused; a matching tag gets 304):
#: a request sending one is answered by its route.
VARYING = frozenset({b"x-deadline-ms", b"if-none-match"})
_CONTENT_TYPE = (b"content-type", b"application/json")
_CACHE_CONTROL = (b"cache-control", CACHE_CONTROL.encode())


class _Route:
    """What the metrics recorder reads of the route that answers (`path`), for a kept answer."""

    __slots__ = ("path",)

    def __init__(self, path: str) -> None:
        self.path = path


_ROUTES = {path: _Route(path) for path in KEPT_PATHS}


def _plain(scope: Scope) -> bool:
    """A GET of a kept route that sends none of `VARYING`."""
    if scope["method"] != "GET" or scope["path"] not in KEPT_PATHS:
        return False
    return not any(name in VARYING for name, _ in scope["headers"])


def keep(answers: AnswerCache, request: Request, response: Response, body: Any) -> None:
    """Keep the memory answer `response` to `request` if it never changes (its ETag says the route found
    it immutable) and the request is one `KeptAnswers` may answer."""
    etag = response.headers.get("etag")
    if etag is None or response.status_code != 200 or len(response.body) >= GZIP_MINIMUM_BYTES:
        return
    scope = request.scope
    if not _plain(scope) or not isinstance(body, dict):
        return
    packed = _pack(etag, bytes(response.body))
    answers.keep(f"GET {scope['path']}", scope["query_string"], body.get("source"), packed)


def _pack(etag: str, body: bytes) -> bytes:
    return etag.encode() + b"\n" + body


class KeptAnswers:
    """Answers a request asked before from the answer cache (see the module docstring)."""

    def __init__(self, app: ASGIApp, answers: AnswerCache) -> None:
        self._app = app
        self._answers = answers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and _plain(scope):
            path = scope["path"]
            kept = self._answers.get(f"GET {path}", scope["query_string"])
            if kept is not None:
                etag, _, body = kept.partition(b"\n")
                scope["route"] = _ROUTES[path]
                headers = [
                    (b"content-length", str(len(body)).encode()),
                    _CONTENT_TYPE,
                    (b"etag", etag),
                    _CACHE_CONTROL,
                ]
                await send({"type": "http.response.start", "status": 200, "headers": headers})
                await send({"type": "http.response.body", "body": body})
                return
        await self._app(scope, receive, send)
