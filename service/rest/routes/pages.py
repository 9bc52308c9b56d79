"""The web page at `/` (its assets under /static/, `assets.mount_assets`), and the interactive docs
(/docs, /redoc) from locally shipped Swagger UI and ReDoc, so neither needs any other host. None is in
the OpenAPI document."""

from __future__ import annotations

from typing import Any, cast

from fastapi import APIRouter, FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse, Response

from service.rest.assets import DOCS_ASSETS_PREFIX, web_page_assets

#: Where Swagger UI's OAuth2 login comes back to (FastAPI's default, given to the app by `create_app`).
OAUTH2_REDIRECT_URL = "/docs/oauth2-redirect"
FAVICON = f"{DOCS_ASSETS_PREFIX}/favicon.png"

router = APIRouter(include_in_schema=False)


@router.api_route("/", methods=["GET", "HEAD"])
async def web_page(request: Request) -> Response:
    """The page: pick a game, look up positions, play against the service, plot sequences."""
    return await web_page_assets(request).get_response("index.html", request.scope)


@router.get("/docs")
def swagger_ui(request: Request) -> HTMLResponse:
    """Swagger UI over /openapi.json, its script and style served by this server."""
    app = cast(FastAPI, request.app)
    return get_swagger_ui_html(
        **_over_openapi(app, "Swagger UI"),
        swagger_js_url=f"{DOCS_ASSETS_PREFIX}/swagger-ui-bundle.js",
        swagger_css_url=f"{DOCS_ASSETS_PREFIX}/swagger-ui.css",
        swagger_favicon_url=FAVICON,
        oauth2_redirect_url=app.swagger_ui_oauth2_redirect_url,
        swagger_ui_parameters={"validatorUrl": None},  # no badge fetched from swagger.io
    )


@router.get(OAUTH2_REDIRECT_URL)
def swagger_ui_redirect() -> HTMLResponse:
    return get_swagger_ui_oauth2_redirect_html()


@router.get("/redoc")
def redoc(request: Request) -> HTMLResponse:
    """ReDoc over /openapi.json, without Google Fonts or a CDN."""
    return get_redoc_html(
        **_over_openapi(cast(FastAPI, request.app), "ReDoc"),
        redoc_js_url=f"{DOCS_ASSETS_PREFIX}/redoc.standalone.js",
        redoc_favicon_url=FAVICON,
        with_google_fonts=False,
    )


def _over_openapi(app: FastAPI, viewer: str) -> dict[str, Any]:
    """What both viewers are given: the app's OpenAPI document, and a title naming the viewer."""
    return {"openapi_url": app.openapi_url or "/openapi.json", "title": f"{app.title} - {viewer}"}
