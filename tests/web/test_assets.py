"""The web page's files over HTTP, and as shipped: the HTML names no other host, every asset loads with
its caching headers, each module's imports name files and exports that exist (the page is native ES
modules with no build step, so nothing else would notice a broken import before a browser does), and the
package data ships every file of the page."""

from __future__ import annotations

import re
import tomllib
from html.parser import HTMLParser
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parents[2]
WEB = REPO / "web"
#: `import {a, b as c} from "./x.js"`, `import x from "./x.js"`, `export {default} from "./x.js"`.
IMPORT = re.compile(r"^(?:import|export)\s+(?:([\w$]+)|\{([^}]*)\})\s+from\s+\"([^\"]+)\"", re.MULTILINE)
#: What a module exports by name, and whether it has a default export.
EXPORT = re.compile(r"^export\s+(?:async\s+)?(?:function|const|let|class)\s+([\w$]+)", re.MULTILINE)
DEFAULT = re.compile(r"^export\s+(?:default\b|\{\s*default\s*\}\s+from)", re.MULTILINE)


def modules() -> list[Path]:
    return sorted(WEB.rglob("*.js"))


def exported(module: Path) -> set[str]:
    text = module.read_text()
    names = set(EXPORT.findall(text))
    return names | ({"default"} if DEFAULT.search(text) else set())


@pytest.mark.parametrize("module", modules(), ids=lambda path: str(path.relative_to(WEB)))
def test_each_import_names_a_module_and_its_exports(module: Path) -> None:
    for default, names, source in IMPORT.findall(module.read_text()):
        assert source.startswith("."), f"{module.name} imports {source!r}: the page loads nothing else"
        target = (module.parent / source).resolve()
        assert target.is_file(), f"{module.name} imports {source!r}, which is not a file"
        wanted = {default and "default"} | {name.split(" as ")[0].strip() for name in names.split(",")}
        missing = {name for name in wanted if name} - exported(target)
        assert not missing, (
            f"{module.name} imports {sorted(missing)} from {source!r}, which does not export them"
        )


def test_the_package_ships_every_file_of_the_page() -> None:
    """pyproject's package-data globs (matched as setuptools matches them) cover the web folder."""
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "web" in setuptools["packages"]["find"]["include"]
    shipped = {path for pattern in setuptools["package-data"]["web"] for path in WEB.glob(pattern)}
    files = {path for path in WEB.rglob("*") if path.is_file() and path.suffix not in (".py", ".pyc")}
    assert files - shipped == set()


class _Links(HTMLParser):
    """Every `src` and `href` of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.links += [value for name, value in attrs if name in ("src", "href") and value]


def links(html: str) -> list[str]:
    parser = _Links()
    parser.feed(html)
    return parser.links


@pytest.mark.parametrize("path", ["/docs", "/redoc", "/"])
def test_pages_name_no_other_host_and_their_assets_load(api: httpx.Client, path: str) -> None:
    page = api.get(path)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert re.findall(r"(?:https?:)?//[\w.-]+", page.text.replace("http://www.w3.org/2000/svg", "")) == []
    assets = [link for link in links(page.text) if link.startswith("/static/")]
    assert len(assets) >= 2
    for asset in assets:
        answer = api.get(asset)
        assert answer.status_code == 200, asset
        assert answer.headers["cache-control"] and answer.headers["etag"], asset
    if path == "/docs":
        assert "/static/docs/swagger-ui-bundle.js" in assets and "/static/docs/swagger-ui.css" in assets


def test_static_files_are_cached_and_revalidated(api: httpx.Client) -> None:
    script = api.get("/static/app.js", headers={"accept-encoding": "identity"})
    assert script.headers["cache-control"] == "no-cache"  # a new release is seen at once
    tag = script.headers["etag"]
    again = api.get("/static/app.js", headers={"if-none-match": tag})
    assert again.status_code == 304 and again.content == b""
    gzipped = api.get("/static/app.js", headers={"accept-encoding": "gzip"})
    assert gzipped.headers["content-encoding"] == "gzip" and gzipped.headers["etag"] == tag[:-1] + '-gzip"'
    held = api.get(
        "/static/app.js", headers={"accept-encoding": "gzip", "if-none-match": gzipped.headers["etag"]}
    )
    assert held.status_code == 304 and held.headers["etag"] == gzipped.headers["etag"]
    vendored = api.get("/static/docs/swagger-ui.css")
    assert vendored.headers["cache-control"] == "public, max-age=86400"
    assert api.get("/").headers["cache-control"] == "no-cache"
    missing = api.get("/static/nothing.js")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "NOT_FOUND"
    metrics = api.get("/metrics").text
    assert 'method="GET /static"' in metrics and 'method="GET /static/docs"' in metrics


def test_modules_are_served_as_javascript(api: httpx.Client) -> None:
    """A browser runs a module only when its content-type is JavaScript's."""
    for module in modules():
        answer = api.get(f"/static/{module.relative_to(WEB).as_posix()}")
        assert answer.status_code == 200, module
        assert answer.headers["content-type"].split(";")[0] in ("text/javascript", "application/javascript")
