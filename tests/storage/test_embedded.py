"""The embedded server (no database URL configured) and URL handling."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from storage.database import create_engine, normalize_url
from storage.embedded import database_url, start_embedded


def test_urls_are_normalised_for_psycopg() -> None:
    assert normalize_url("postgresql://u:p@h:5/db") == "postgresql+psycopg://u:p@h:5/db"
    assert normalize_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalize_url("postgresql+psycopg://u@h/db") == "postgresql+psycopg://u@h/db"
    with pytest.raises(ValueError, match=r"not a PostgreSQL URL: 'sqlite:///x\.db'"):
        normalize_url("sqlite:///x.db")


def test_database_url_prefers_the_configured_url(tmp_path: Path) -> None:
    assert database_url(" postgresql://u@h/db ", tmp_path) == "postgresql+psycopg://u@h/db"
    assert not (tmp_path / "postgres").exists()


def test_the_embedded_server_starts_once_and_is_reused(tmp_path: Path) -> None:
    from pgserver.postgres_server import get_server

    url = database_url(None, tmp_path / "var")
    try:
        assert url.startswith("postgresql+psycopg://")
        assert start_embedded(tmp_path / "var" / "postgres") == url
        engine = create_engine(url)
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT 1")).scalar_one() == 1
        engine.dispose()
    finally:
        server = get_server(str(tmp_path / "var" / "postgres"))
        server.cleanup_mode = "delete"  # the embedded server outlives its starter; not in a test
        server.cleanup()
