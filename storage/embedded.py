"""The embedded local PostgreSQL used when DATABASE_URL is unset.

The server outlives the process that started it (cleanup_mode=None), so the service, the workers and
the CLI started one after another all share one database under ./var/.
"""

from __future__ import annotations

import os
from pathlib import Path

from storage.database import normalize_url


def start_embedded(data_dir: Path) -> str:
    """Start (or reuse, when already running) the embedded server in `data_dir`; its SQLAlchemy URL."""
    from pgserver.postgres_server import get_server  # only the embedded set-up needs it

    data_dir = Path(data_dir).resolve()
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    server = get_server(str(data_dir), cleanup_mode=None)
    return normalize_url(str(server.get_uri()))


def database_url(var_dir: Path = Path("var")) -> str:
    """DATABASE_URL when set, else the embedded server under `var_dir`/postgres."""
    url = os.environ.get("DATABASE_URL", "").strip()
    if url:
        return normalize_url(url)
    return start_embedded(var_dir / "postgres")
