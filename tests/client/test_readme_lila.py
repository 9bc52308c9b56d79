"""The README's lichess client (the block after `<!-- lila-client -->`) runs as written against a real
service on loopback, only its base URL's port changed: it prints what its comments say it prints."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa

from nimbase.settings import Limits, Settings
from service.core import Nimbase
from service.server import BoundPorts
from tests.servers import running_server

from .served import ADMIN_TOKEN
from .virtualenv import REPO

BASE = "http://localhost:8080"
#: The snippet's position (KRvK, white to move).
FEN = "8/8/8/8/8/2k5/8/KR6 w - - 0 1"
#: The client tests' service and server, but whose requests may run long enough for a cold start (below).
LIMITS = Limits(request_seconds=300.0)


@pytest.fixture(scope="module")
def service(db_engine: sa.Engine) -> Nimbase:
    return Nimbase(Settings(admin_token=ADMIN_TOKEN, limits=LIMITS), db_engine)


@pytest.fixture(scope="module")
def ports(service: Nimbase) -> Iterator[BoundPorts]:
    with running_server(service, LIMITS) as bound:
        yield bound


def readme_lila_client() -> str:
    readme = (REPO / "README.md").read_text()
    found = re.search(r"<!-- lila-client -->\n( *)```python\n(.*?)\n\1```", readme, re.DOTALL)
    assert found is not None, "the README has no lila client block"
    return textwrap.dedent(found.group(2))


def printed_in_comments(code: str) -> list[str]:
    """What each `print(...)` line's trailing comment says it prints."""
    return [line.split("#", 1)[1].strip() for line in code.splitlines() if line.startswith("print(")]


def test_the_readme_lila_client_prints_what_it_says(ports: BoundPorts, tmp_path: Path) -> None:
    code = readme_lila_client()
    assert f'base = "{BASE}"' in code and "import httpx" in code and FEN in code
    assert printed_in_comments(code) == ["win Rd1", "27 w"]
    base = f"http://127.0.0.1:{ports.http}"
    # The snippet keeps httpx's 5 s timeout: the first answers, which compile the solver's kernels when
    # their cache is cold (a clean clone) and solve KRvK live, are asked for once before, with no timeout.
    for path in ("/standard", "/standard/mainline"):
        assert httpx.get(f"{base}{path}", params={"fen": FEN}, timeout=None).status_code == 200
    script = tmp_path / "lila_client.py"
    script.write_text(code.replace(BASE, base))
    # The test environment's python: it has httpx, as a user of lichess's API would.
    done = subprocess.run([sys.executable, "-I", str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == printed_in_comments(code)
