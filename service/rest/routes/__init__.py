"""One router per resource, in the order the app includes them (the order of `/openapi.json`'s paths)."""

from __future__ import annotations

from fastapi import APIRouter

from service.rest.routes import graphs, jobs, operations, sequences, stats, values

#: The API's routers; the page and the docs (`pages`) are added apart, with the assets they mount.
ROUTERS: tuple[APIRouter, ...] = (
    values.router,
    sequences.router,
    stats.router,
    jobs.router,
    graphs.router,
    operations.router,
)
