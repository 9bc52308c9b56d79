"""Lean routes: a hot GET route answered by a plain endpoint `(request) -> Response`, without FastAPI's
per-request work (solving the parameters' dependencies and validating each one, some 0.2 ms of a
loaded core), for routes whose few parameters are plain strings the endpoint reads itself.

Everything around the route stays: the middleware (the URL cap, gzip, CORS, the rate limit, the metrics
recorder, which counts the request under the route's path as for any route), the error handlers (a
wrong method is 405 in the contract's error body, as FastAPI's routes answer it: GET only, no implicit
HEAD), and the app's route table (`service.rest.app.include_routes` takes a lean route as it takes
FastAPI's). A lean route is not in the OpenAPI document.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Match, Route
from starlette.types import Scope

#: A lean route's endpoint.
Endpoint = Callable[[Request], Awaitable[Response]]


class LeanRoute(Route):
    """A GET route answered by `endpoint` itself (see the module docstring)."""

    def __init__(self, path: str, endpoint: Endpoint) -> None:
        super().__init__(path, endpoint, methods=["GET"], include_in_schema=False)
        self.methods = {"GET"}  # starlette adds HEAD to a GET route; FastAPI's routes take GET alone

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        """Starlette's match, naming the route in the scope as FastAPI's routes do (the metrics read it)."""
        match, child = super().matches(scope)
        if match != Match.NONE:
            child["route"] = self
        return match, child


def query_value(request: Request, name: str) -> str | None:
    """A query parameter as FastAPI reads an optional string: the last value given, else None."""
    return request.query_params.get(name)
