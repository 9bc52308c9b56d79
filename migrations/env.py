"""Alembic environment: runs migrations on a given connection, or on DATABASE_URL.

storage/migrate.py passes an open connection (holding the migration advisory lock) in
`config.attributes["connection"]`; the `alembic` command line falls back to DATABASE_URL or the
embedded server under NIMBASE_VAR_DIR (both from `nimbase.settings`).
"""

from __future__ import annotations

from logging.config import fileConfig

from alembic import context
from sqlalchemy.engine import Connection

from nimbase.settings import Settings
from storage.database import create_engine
from storage.embedded import database_url

config = context.config

# Only the alembic command line configures logging; a service calling upgrade_head keeps its own.
if config.cmd_opts is not None and config.config_file_name is not None:
    fileConfig(config.config_file_name)


def _url() -> str:
    """sqlalchemy.url from alembic.ini, else the settings' database (the `alembic` command line only)."""
    configured = config.get_main_option("sqlalchemy.url")
    if configured:
        return configured
    settings = Settings.from_env()
    return database_url(settings.database_url, settings.var_dir)


def _run(connection: Connection) -> None:
    context.configure(connection=connection, target_metadata=None, transaction_per_migration=False)
    with context.begin_transaction():
        context.run_migrations()


def run_offline() -> None:
    context.configure(url=_url(), literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    connection = config.attributes.get("connection")
    if isinstance(connection, Connection):
        _run(connection)
        return
    engine = create_engine(_url(), pool_size=1)
    try:
        with engine.connect() as conn:
            _run(conn)
            conn.commit()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
