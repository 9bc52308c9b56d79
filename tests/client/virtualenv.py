"""The virtualenv a user gets from `pip install ./client`: what it may hold, and what it holds."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: What the client package may bring into a virtualenv: itself, its three dependencies and theirs.
CLIENT_DISTRIBUTIONS = {
    "nimbase-client",
    "grpcio",
    "protobuf",
    "httpx",
    "httpcore",
    "h11",
    "anyio",
    "sniffio",
    "idna",
    "certifi",
    "typing-extensions",
    "exceptiongroup",
    "pip",
    "setuptools",
    "wheel",
}


def installed(python: Path) -> set[str]:
    """The distributions installed in a virtualenv (`pip list`), by normalized name."""
    listing = subprocess.run(
        [str(python), "-m", "pip", "list", "--format", "json", "--disable-pip-version-check"],
        check=True,
        capture_output=True,
        text=True,
    )
    return {item["name"].lower().replace("_", "-") for item in json.loads(listing.stdout)}
