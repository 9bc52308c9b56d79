"""HTTP caching of answers that never change, and compression of large ones.

A value from a closed form, the stored table or a certified period is a fact: the same request is
answered the same way for good. Such answers carry a strong ETag (a hash of the answer's bytes) and
`Cache-Control: public, max-age=86400, immutable`, and a request whose `If-None-Match` names the tag is
answered 304 with no body. Live answers carry `Cache-Control: no-store`: the value is just as true, but
the answer is about to change its `source` once the value is stored.

Large answers are gzipped (`Compression`) for clients that accept it. A strong ETag names one sequence
of bytes, so a gzipped answer's tag gets a `-gzip` suffix; `If-None-Match` matches either form.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from fastapi.responses import Response, StreamingResponse
from starlette.middleware.gzip import DEFAULT_EXCLUDED_CONTENT_TYPES, GZipResponder
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.rest.json_body import PiecewiseJSONResponse, around, list_in_pieces

#: `source` values whose answers never change (API.md: formula, table, certified period).
IMMUTABLE_SOURCES = frozenset({"formula", "table", "period"})
#: A day: `immutable` keeps browsers from revalidating at all; shared caches may still evict.
CACHE_CONTROL = "public, max-age=86400, immutable"
NOT_CACHED = "no-store"
#: Answers at least this long are gzipped, when the client accepts it; a single value stays below.
GZIP_MINIMUM_BYTES = 1024
#: zlib's default level: level 9 takes nearly twice as long on a 1M-value sequence of Nim for no gain.
GZIP_LEVEL = 6
GZIP_SUFFIX = "-gzip"
#: Bodies (or pieces of a streamed one) at least this long are compressed in a thread, not on the event loop
#: (a piece of a long sequence is about 100 kB, a few milliseconds of zlib).
GZIP_THREAD_BYTES = 32 * 1024
#: Never gzipped: what starlette leaves alone (already compressed, streams of events), and the packed
#: arrays of columnar answers, whose clients ask for speed (compressing 4 MB of them took more of the
#: server's time than the whole lookup).
NOT_GZIPPED = (*DEFAULT_EXCLUDED_CONTENT_TYPES, "application/octet-stream")


def value_is_immutable(body: Mapping[str, Any]) -> bool:
    """A value (GetValue, IsPPosition, BestMove): its own source decides. The moves of BestMove carry
    values only, no source: values are facts whichever way they were found, and their ranking is fixed."""
    return body.get("source") in IMMUTABLE_SOURCES


def never(body: Mapping[str, Any]) -> bool:
    """An answer drawn anew each time (BestMove's `choose=random` without a seed): never cached."""
    return False


def sequence_is_immutable(body: Mapping[str, Any]) -> bool:
    """GetSequence: its values are facts, but a `period` not yet known (or not certified) may be later,
    so only a closed form or a certified period makes the whole answer final."""
    if body.get("source") not in IMMUTABLE_SOURCES:
        return False
    period = body.get("period")
    return body["source"] == "formula" if period is None else bool(period.get("certified"))


def respond(body: Any, if_none_match: str | None, immutable: bool) -> Response:
    """The answer: with its ETag and cache headers when `immutable` (304 when the client has it),
    else marked not to be stored."""
    response = PiecewiseJSONResponse(body)
    if not immutable:
        response.headers["cache-control"] = NOT_CACHED
        return response
    tag = hashlib.blake2b(response.body, digest_size=16).hexdigest()
    if if_none_match is not None:
        held = _matching(if_none_match, tag)
        if held is not None:  # the client's own form of the tag: its copy may be the gzipped one
            return Response(status_code=304, headers={"etag": held, "cache-control": CACHE_CONTROL})
    response.headers["etag"] = f'"{tag}"'
    response.headers["cache-control"] = CACHE_CONTROL
    return response


def respond_streamed(
    body: dict[str, Any],
    key: str,
    pieces: Iterable[list[Any]],
    if_none_match: str | None,
    immutable: bool,
    producing: Callable[[Iterator[bytes]], Iterator[bytes]] = lambda chunks: chunks,
) -> Response:
    """`respond` for an answer whose list `key` (empty in `body`) is written a piece at a time as the
    client reads (json_body.list_in_pieces), with the transport's backpressure: the bytes are those
    `respond` would send; `producing` wraps the making of each piece (a bound on the threads making
    them). Its ETag is a hash of the text around the list: an immutable answer's values are facts that
    the rest of it (game, family, range, period, source) determines."""
    head, tail = around(body, key)
    tag = hashlib.blake2b(f"{head}]{tail}".encode(), digest_size=16).hexdigest()
    if immutable and if_none_match is not None:
        held = _matching(if_none_match, tag)
        if held is not None:
            return Response(status_code=304, headers={"etag": held, "cache-control": CACHE_CONTROL})
    headers = {"cache-control": NOT_CACHED}
    if immutable:
        headers = {"etag": f'"{tag}"', "cache-control": CACHE_CONTROL}
    content = producing(list_in_pieces(head, pieces, tail))
    return StreamingResponse(content, media_type="application/json", headers=headers)


def _matching(header: str, tag: str) -> str | None:
    """The entity tag of `If-None-Match` that names `tag` (weak comparison, either encoding), if any."""
    for item in header.split(","):
        candidate = item.strip()
        if candidate == "*":
            return f'"{tag}"'
        opaque = candidate.removeprefix("W/").strip('"')
        if opaque.removesuffix(GZIP_SUFFIX) == tag:
            return candidate
    return None


class Compression:
    """gzip for answers of at least `minimum` bytes to clients that accept it, re-tagging their ETag.

    A request without `Accept-Encoding: gzip` goes straight to the app, so the small hot lookups pay
    one header scan; a small answer to one that accepts it is sent as it is.
    """

    def __init__(self, app: ASGIApp, minimum: int = GZIP_MINIMUM_BYTES) -> None:
        self._app = app
        self._minimum = minimum

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _accepts_gzip(scope):
            await self._app(scope, receive, send)
            return

        async def retag(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = message["headers"]
                if (b"content-encoding", b"gzip") in headers:
                    message["headers"] = [
                        (name, value[:-1] + GZIP_SUFFIX.encode() + b'"' if name == b"etag" else value)
                        for name, value in headers
                    ]
            await send(message)

        responder = GZipResponder(
            self._app,
            self._minimum,
            GZIP_LEVEL,
            thread_minimum_size=GZIP_THREAD_BYTES,
            exclude_content_types=NOT_GZIPPED,
        )
        await responder(scope, receive, retag)


def _accepts_gzip(scope: Scope) -> bool:
    for name, value in scope["headers"]:
        if name == b"accept-encoding":
            return b"gzip" in value
    return False
