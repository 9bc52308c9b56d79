"""Caps on the size of a REST request, its URL and its body (one cap per route), enforced before the
app reads what is too big.

A body is refused as soon as it is known to be over its route's cap: at once when its Content-Length
says so, else while it streams in (chunked uploads), by counting the bytes the app reads. Nothing past
the cap is read: the app is told the client left, and the refusal closes the connection. Refusals are
the contract's error body: RESOURCE_EXHAUSTED (413) for a body, INVALID_ARGUMENT (400) for a URL, each
naming the cap and the variable that sets it. A plain ASGI middleware, like the metrics recorder, so a
request within its caps costs a few comparisons.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from nimbase.settings import Limits, variable_name
from service import convert

#: The HTTP status of a body over its cap (API.md, "Errors"); RESOURCE_EXHAUSTED is otherwise 422.
BODY_STATUS = 413


@dataclass(frozen=True, slots=True)
class Cap:
    """A size bound in bytes and the variable that sets it (quoted by refusals)."""

    bytes: int
    variable: str

    @classmethod
    def of(cls, limits: Limits, field: str) -> Cap:
        """The cap of `limits.<field>`, e.g. `Cap.of(limits, "batch_body_bytes")`."""
        return cls(getattr(limits, field), variable_name(("limits", field)))


class RequestCaps:
    """Refuses a request whose URL is over `url`, or whose body is over its route's cap: `routes` maps
    (method, path) to a cap, and every other request gets `body`."""

    def __init__(self, app: ASGIApp, *, url: Cap, body: Cap, routes: Mapping[tuple[str, str], Cap]) -> None:
        self._app = app
        self._url = url
        self._body = body
        self._routes = dict(routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        url = len(scope.get("raw_path") or b"") + (
            len(scope["query_string"]) + 1 if scope["query_string"] else 0
        )
        if url > self._url.bytes:
            message = f"the URL of {url} bytes is over the {self._url.bytes}-byte cap ({self._url.variable})"
            await _refuse(scope, send, "INVALID_ARGUMENT", message)
            return
        route = (scope["method"], scope["path"])
        cap = self._routes.get(route, self._body)
        declared = _content_length(scope)
        if declared is not None and declared > cap.bytes:
            await _refuse(
                scope, send, "RESOURCE_EXHAUSTED", _over(f"{declared} bytes", cap, route), BODY_STATUS
            )
            return
        body = _CountedBody(scope, receive, send, cap, route)
        await self._app(scope, body.receive, body.send)
        if body.refused:  # the app's own error (the client "left") must not be what the metrics count
            scope["state"]["code"] = "RESOURCE_EXHAUSTED"


class _CountedBody:
    """What the app reads of one request, counted: past the cap the refusal is sent instead of an answer,
    and the app is told the client left, so it stops reading and whatever it answers is dropped."""

    def __init__(self, scope: Scope, receive: Receive, send: Send, cap: Cap, route: tuple[str, str]) -> None:
        self._scope = scope
        self._receive = receive
        self._send = send
        self._cap = cap
        self._route = route
        self._received = 0
        self._over = False
        self.started = False
        self.refused = False

    async def receive(self) -> Message:
        if self._over:
            return {"type": "http.disconnect"}
        message = await self._receive()
        if message["type"] == "http.request":
            self._received += len(message.get("body", b""))
            if self._received > self._cap.bytes:
                self._over = True
                if not self.started:  # an app answering while it reads keeps its answer, cut short
                    self.refused = True
                    text = _over(f"at least {self._received} bytes", self._cap, self._route)
                    await _refuse(self._scope, self._send, "RESOURCE_EXHAUSTED", text, BODY_STATUS)
                return {"type": "http.disconnect"}
        return message

    async def send(self, message: Message) -> None:
        if self.refused:
            return
        if message["type"] == "http.response.start":
            self.started = True
        await self._send(message)


def _over(size: str, cap: Cap, route: tuple[str, str]) -> str:
    method, path = route
    return f"the request body of {size} is over the {cap.bytes}-byte cap of {method} {path} ({cap.variable})"


def _content_length(scope: Scope) -> int | None:
    """The body's declared size; None when not declared (chunked) or unreadable (the HTTP parser has
    refused a malformed one already)."""
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _refuse(scope: Scope, send: Send, code: str, message: str, status: int | None = None) -> None:
    """Answer with the contract's error body, recording `code` for the metrics, and close the connection:
    what the client is still sending is not worth reading."""
    body = json.dumps(convert.error_body(code, message), separators=(",", ":")).encode()
    scope.setdefault("state", {})["code"] = code
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    status = convert.http_status(code) if status is None else status
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
