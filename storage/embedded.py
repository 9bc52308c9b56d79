"""The embedded local PostgreSQL used when DATABASE_URL is unset.

The server outlives the process that started it (cleanup_mode=None), so the service, the workers and
the CLI started one after another all share one database under NIMBASE_VAR_DIR (by default the user data
directory, `make run` included, whatever the working directory).
Both values come from `nimbase.settings.Settings`; this module reads no environment.
"""

from __future__ import annotations

from pathlib import Path

from storage.database import normalize_url


def start_embedded(data_dir: Path) -> str:
    """Start (or reuse, when already running) the embedded server in `data_dir`; its SQLAlchemy URL."""
    from pgserver.postgres_server import get_server  # only the embedded set-up needs it

    data_dir = Path(data_dir).resolve()
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    server = get_server(str(data_dir), cleanup_mode=None)
    return normalize_url(str(server.get_uri()))


def database_url(url: str | None, var_dir: Path) -> str:
    """`url` (Settings.database_url, from DATABASE_URL) when set, else the embedded server under
    `var_dir`/postgres (Settings.var_dir)."""
    if url is not None and url.strip():
        return normalize_url(url.strip())
    return start_embedded(Path(var_dir) / "postgres")
