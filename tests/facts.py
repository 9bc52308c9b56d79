"""Published facts the tests check the engine and the service against, committed in `tests/data/`.

Each file there is named in `tests/data/README.md` with where its facts come from; a test reads one
by its name without the `.json` suffix, so the tests need nothing outside the repository.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"


@cache
def _read(name: str) -> str:
    return (DATA / f"{name}.json").read_text(encoding="utf-8")


def load_facts(name: str) -> dict[str, Any]:
    """The parsed `tests/data/<name>.json`, a fresh copy on every call (callers may mutate it)."""
    facts: dict[str, Any] = json.loads(_read(name))
    return facts
