"""The request's deadline: the `x-deadline-ms` header, capped at the server's request limit.

Routes take the raw header (`DeadlineHeader`) and parse it where they always have, inside the call that
answers (`service.rest.answer`): a malformed header is then reported after the query's own errors and
after the body's, as before.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Header

from engine.errors import InvalidArgument
from engine.positions import parse_decimal
from service import convert
from service.limits import Limits

DeadlineHeader = Annotated[
    str | None,
    Header(
        alias="x-deadline-ms",
        description="Milliseconds the request may take, a positive whole number, capped at the server's "
        "NIMBASE_LIMITS_REQUEST_SECONDS (also the default); past it 504 DEADLINE_EXCEEDED.",
        examples=[2000],
    ),
]


def deadline_at(header: str | None, limits: Limits) -> float:
    """The request's deadline: `x-deadline-ms` when sent, capped at `limits.request_seconds`."""
    if header is None:
        return convert.deadline_after(None, limits)
    millis = parse_decimal(
        header.strip(), what="header 'x-deadline-ms'", where=" (whole milliseconds)", error=InvalidArgument
    )
    if millis <= 0:
        raise InvalidArgument(f"header 'x-deadline-ms' must be positive; got {header!r}")
    return convert.deadline_after(millis / 1000.0, limits)
