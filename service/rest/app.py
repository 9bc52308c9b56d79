"""`create_app`: the FastAPI app of the REST transport, put together from the routers and the layers
around them."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from fastapi import APIRouter, FastAPI

from service.core import NimbaseService
from service.kind_plugins import kind_plugins
from service.limits import DEFAULT_LIMITS, Limits
from service.metrics import Metrics
from service.pooled import compute_lane_threads
from service.rate_limit import RateLimiter
from service.rest.assets import mount_assets
from service.rest.context import RestContext, attach
from service.rest.errors import add_error_handlers
from service.rest.kept import KeptAnswers
from service.rest.middleware import add_middleware
from service.rest.openapi import document
from service.rest.routes import ROUTERS
from service.rest.routes.pages import OAUTH2_REDIRECT_URL


def create_app(
    service: NimbaseService,
    metrics: Metrics | None = None,
    limits: Limits = DEFAULT_LIMITS,
    *,
    cors_origins: Sequence[str] = ("*",),
    limiter: RateLimiter | None = None,
) -> FastAPI:
    """The REST app answering from `service`; `metrics` is shared with the gRPC server when given,
    `limits` bounds each request's size and deadline (the settings' limits, as the service's).

    `cors_origins` may call the read-only routes from a web page (none when empty); `limiter`, when
    given (shared with the gRPC server), refuses clients over their rate limit.
    """
    meter = metrics if metrics is not None else Metrics()
    meter.watch_caches(service)
    app = FastAPI(
        title="nimbase",
        version="1",
        description="Values, best moves and P-positions of combinatorial games, and precompute jobs. "
        'Every error is `{"error": {"code", "message"}}` (code: the gRPC status code name).',
        docs_url=None,  # served by routes.pages from local assets, not FastAPI's CDN links
        redoc_url=None,
        swagger_ui_oauth2_redirect_url=OAUTH2_REDIRECT_URL,
    )
    lane = compute_lane_threads(service)
    computing = (
        ThreadPoolExecutor(max_workers=lane, thread_name_prefix="nimbase-rest-compute") if lane else None
    )
    attach(app, RestContext(service, limits, meter, computing))
    mount_assets(app)
    document(app, limits)
    app.add_middleware(KeptAnswers, answers=service.answers)  # innermost: inside every other layer
    add_middleware(app, limits, meter, cors_origins, limiter)
    add_error_handlers(app)
    for router in ROUTERS:
        include_routes(app, router)
    for plugin in kind_plugins():  # the routes kinds declare, after the API's own
        if plugin.routes is not None:
            include_routes(app, plugin.routes())
    return app


def include_routes(app: FastAPI, router: APIRouter) -> None:
    """Put `router`'s routes in the app's own route table, as if each had been declared on the app.

    Not `app.include_router`: this FastAPI wraps an included router whole, and matching a request then
    walks every router in front of the one that answers, twice, on each request (some 200 more Python
    calls for GET /v1/value, 450 for /healthz). The routes hold nothing of an app; they read the
    service from the request (`context_of`), so several apps may share them (they do not see an
    app's `dependency_overrides`, which nothing here uses).
    """
    app.router.routes.extend(router.routes)
