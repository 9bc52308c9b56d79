"""`alembic upgrade head`, programmatically, safe to run from several processes at once."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy
from alembic import command
from alembic.config import Config

from storage.database import create_engine, unavailable_on_disconnect

#: The repository root: migrations live beside the packages (the package is installed editable).
REPO_ROOT = Path(__file__).resolve().parent.parent
MIGRATIONS_DIR = REPO_ROOT / "migrations"
#: Key of the session advisory lock that serialises concurrent upgrades ("nimbase" in ASCII).
MIGRATION_LOCK_KEY = 0x6E696D62617365


def alembic_config() -> Config:
    """The Alembic configuration, with paths independent of the current directory."""
    ini = REPO_ROOT / "alembic.ini"
    config = Config(str(ini)) if ini.exists() else Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config


def upgrade_head(url: str) -> None:
    """Apply every migration not yet applied; concurrent callers wait for each other."""
    if not MIGRATIONS_DIR.is_dir():
        raise FileNotFoundError(f"migrations folder not found: {MIGRATIONS_DIR}")
    engine = create_engine(url, pool_size=1)
    try:
        with unavailable_on_disconnect(), engine.connect() as conn:
            lock = {"key": MIGRATION_LOCK_KEY}
            conn.execute(sqlalchemy.text("SELECT pg_advisory_lock(:key)"), lock)
            conn.commit()
            try:
                config = alembic_config()
                config.attributes["connection"] = conn
                command.upgrade(config, "head")
                conn.commit()
            finally:
                conn.rollback()
                conn.execute(sqlalchemy.text("SELECT pg_advisory_unlock(:key)"), lock)
                conn.commit()
    finally:
        engine.dispose()
