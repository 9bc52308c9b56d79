"""Static files served with a `Cache-Control` of their own: the web page's and the docs' assets."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path as FilePath
from typing import cast

import fastapi_offline
from fastapi import FastAPI, Request
from fastapi.responses import Response
from starlette.datastructures import Headers
from starlette.responses import FileResponse
from starlette.routing import BaseRoute
from starlette.staticfiles import NotModifiedResponse, StaticFiles
from starlette.types import Receive, Scope, Send

from service import http_cache

#: The package holding the web page (`/`) and its assets as data (no build step, nothing from a CDN).
WEB_PACKAGE = "web"
#: Swagger UI and ReDoc, shipped by the fastapi-offline package, so /docs and /redoc work offline.
DOCS_ASSETS_DIR = FilePath(fastapi_offline.__file__).resolve().parent / "static"
WEB_PREFIX = "/static"
DOCS_ASSETS_PREFIX = "/static/docs"
#: The page's own files change with each release under the same names: browsers keep them but ask
#: again (a 304 from their ETag) before each use, so an upgraded server is seen at once.
WEB_CACHE_CONTROL = "no-cache"
#: The docs' vendored assets change only with the fastapi-offline version: a day without asking.
DOCS_ASSETS_CACHE_CONTROL = "public, max-age=86400"


class PageNotOnDisk(RuntimeError):
    """The page's package is not a folder of files (a zipped install): StaticFiles serves only those."""


def web_dir() -> FilePath:
    """The folder of the page's package, wherever it is installed."""
    root = resources.files(WEB_PACKAGE)
    if not isinstance(root, FilePath):
        raise PageNotOnDisk(f"the web page's package {WEB_PACKAGE!r} is not a folder on disk: {root!r}")
    return root


class Assets(StaticFiles):
    """Static files with a `Cache-Control` of their own, whose ETag also matches in its gzipped form
    (`http_cache.Compression` adds `-gzip` to the tag of what it compresses)."""

    def __init__(self, directory: FilePath, cache_control: str) -> None:
        super().__init__(directory=directory, follow_symlink=False)
        self._cache_control = cache_control
        self._route: BaseRoute | None = None

    def mount_on(self, app: FastAPI, prefix: str, name: str) -> None:
        app.mount(prefix, self, name=name)
        self._route = app.router.routes[-1]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._route is not None:  # the metrics' label (`GET /static`): a mount sets no route itself
            scope["route"] = self._route
        await super().__call__(scope, receive, send)

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = FileResponse(full_path, status_code=status_code, stat_result=stat_result)
        response.headers["cache-control"] = self._cache_control
        if status_code != 200:
            return response
        request = Headers(scope=scope)
        if_none_match = request.get("if-none-match")
        if if_none_match is not None:  # as http_cache.respond: the client's own form of the tag comes back
            held = http_cache._matching(if_none_match, response.headers["etag"].strip('"'))
            if held is None:
                return response
            not_modified = NotModifiedResponse(response.headers)
            not_modified.headers["etag"] = held
            return not_modified
        if self.is_not_modified(response.headers, request):  # If-Modified-Since
            return NotModifiedResponse(response.headers)
        return response


def mount_assets(app: FastAPI) -> None:
    """The page's assets under /static/ and the docs' under /static/docs/; the page itself is served by
    `routes.pages` from the same `Assets` (`web_page_assets`)."""
    page = Assets(web_dir(), WEB_CACHE_CONTROL)
    # The docs' assets first: /static would otherwise take /static/docs/... and find nothing.
    Assets(DOCS_ASSETS_DIR, DOCS_ASSETS_CACHE_CONTROL).mount_on(app, DOCS_ASSETS_PREFIX, "docs-assets")
    page.mount_on(app, WEB_PREFIX, "web")
    app.state.web_page = page


def web_page_assets(request: Request) -> Assets:
    """The web page's files, as `mount_assets` mounted them on the app serving `request`."""
    return cast(Assets, request.app.state.web_page)
