"""What the routes are handed: the service, the request limits, the metrics and the compute lane.

They are kept on the app's state, not in module globals or closures, because the routers are built
once at import while each server (and each test) builds its own app over its own service.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import cast

from fastapi import FastAPI, Request

from service.core import NimbaseService
from service.limits import Limits
from service.metrics import Metrics


@dataclass(frozen=True, slots=True)
class RestContext:
    """One app's service, the limits bounding each request's size and deadline, and its metrics."""

    service: NimbaseService
    limits: Limits
    meter: Metrics
    #: Threads for the calls that wait for a live process (service.pooled), apart from starlette's, which
    #: the reads keep; None where the service computes in the calling thread.
    computing: ThreadPoolExecutor | None = None


def attach(app: FastAPI, context: RestContext) -> None:
    """Hand `context` to every route of `app`."""
    app.state.nimbase = context


def context_of(request: Request) -> RestContext:
    """The context of the app serving `request`."""
    return cast(RestContext, request.app.state.nimbase)


def service_of(request: Request) -> NimbaseService:
    """The service answering `request`."""
    return context_of(request).service
