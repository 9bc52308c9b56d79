"""One router per resource, in the order the app includes them (the order of `/openapi.json`'s paths);
the routes kinds declare (service.kind_plugins) come after them."""

from __future__ import annotations

from fastapi import APIRouter

from service.rest.routes import graphs, jobs, operations, pages, sequences, stats, values

#: The page and the docs first (outside the OpenAPI document), then the API's routers.
ROUTERS: tuple[APIRouter, ...] = (
    pages.router,
    values.router,
    sequences.router,
    stats.router,
    jobs.router,
    graphs.router,
    operations.router,
)
