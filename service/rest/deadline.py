"""The request's deadline: the `x-deadline-ms` header, capped at the server's request limit, counted
from the request's arrival.

Routes take the raw header (`DeadlineHeader`) and parse it where they always have, inside the call that
answers (`service.rest.answer`): a malformed header is then reported after the query's own errors and
after the body's, as before. The time counts from when the request reached the server
(service.rest.middleware.Recorder stamps it), not from when its route began: reading a large body, or
waiting for the event loop under load, is the client's time too.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Header
from starlette.requests import Request

from engine.errors import InvalidArgument
from engine.positions import parse_decimal
from service import convert
from service.limits import Limits

#: The key of the request's state under which the middleware keeps its arrival (a time.monotonic()).
ARRIVED = "arrived"

DeadlineHeader = Annotated[
    str | None,
    Header(
        alias="x-deadline-ms",
        description="Milliseconds the request may take from its arrival, a positive whole number, capped "
        "at the server's NIMBASE_LIMITS_REQUEST_SECONDS (also the default); past it 504 DEADLINE_EXCEEDED.",
        examples=[2000],
    ),
]


def arrival(request: Request) -> float | None:
    """When the request reached the server (time.monotonic()), if the middleware stamped it."""
    stamped = request.scope.get("state", {}).get(ARRIVED)
    return stamped if isinstance(stamped, float) else None


def deadline_at(header: str | None, limits: Limits, since: float | None = None) -> float:
    """The request's deadline: `x-deadline-ms` when sent, capped at `limits.request_seconds`, from
    `since` (the request's arrival; default now)."""
    if header is None:
        return convert.deadline_after(None, limits, since)
    millis = parse_decimal(
        header.strip(), what="header 'x-deadline-ms'", where=" (whole milliseconds)", error=InvalidArgument
    )
    if millis <= 0:
        raise InvalidArgument(f"header 'x-deadline-ms' must be positive; got {header!r}")
    return convert.deadline_after(millis / 1000.0, limits, since)
