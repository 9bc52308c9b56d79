"""Which database a command uses, and whether it is ready: the one place the CLI finds it.

The database is DATABASE_URL, else the embedded PostgreSQL under NIMBASE_VAR_DIR, never a function of
the working directory. Only `migrate` and `run` create it; any other command that finds none, or finds
it not migrated, stops with a `CommandError` that says so in one line with the fix.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from nimbase.settings import Settings

if TYPE_CHECKING:
    from sqlalchemy import Engine


class CommandError(Exception):
    """A failure the user can fix, said in one line (`nimbase: ...`, exit status 1), never a traceback."""


def _where(settings: Settings) -> str:
    """The database as a person names it: DATABASE_URL without its password, or the embedded one's folder."""
    if settings.database_url is not None:
        from sqlalchemy.engine import make_url

        from storage.database import normalize_url

        try:
            return make_url(normalize_url(settings.database_url)).render_as_string(hide_password=True)
        except ValueError:
            return "DATABASE_URL"
    return str(settings.var_dir.resolve())


def missing_database(settings: Settings) -> CommandError | None:
    """The error of a command that needs the database when there is none (no DATABASE_URL, no embedded
    data under NIMBASE_VAR_DIR), else None."""
    embedded = settings.var_dir / "postgres"
    if settings.database_url is None and not (embedded / "PG_VERSION").is_file():
        return CommandError(
            f"no nimbase database at {_where(settings)}: run `nimbase migrate` (or `make run`) first"
        )
    return None


def database_url(settings: Settings, *, create: bool = False) -> str:
    """DATABASE_URL, else the embedded server under NIMBASE_VAR_DIR: started when its data exists, and
    created only when `create` (migrate, run), never just to find it empty."""
    from storage.embedded import database_url as embedded_database_url

    missing = None if create else missing_database(settings)
    if missing is not None:
        raise missing
    return embedded_database_url(settings.database_url, settings.var_dir)


def _check_schema(url: str, settings: Settings, *, unreachable_ok: bool = False) -> None:
    """Refuse a database whose schema is not this version's (never migrated, or behind). A database
    that does not answer passes when `unreachable_ok` (the long-running processes recover by themselves
    once it is back), else it is refused too."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    from storage.database import create_engine, unavailable_on_disconnect
    from storage.errors import StorageUnavailable
    from storage.migrate import alembic_config

    alembic_log = logging.getLogger("alembic")
    level = alembic_log.level
    alembic_log.setLevel(logging.WARNING)  # reading a revision is no news
    engine = create_engine(url, pool_size=1)
    try:
        heads = set(ScriptDirectory.from_config(alembic_config()).get_heads())
        with unavailable_on_disconnect(), engine.connect() as conn:
            current = set(MigrationContext.configure(conn).get_current_heads())
    except StorageUnavailable as error:
        if unreachable_ok:
            return
        raise CommandError(f"cannot reach the nimbase database at {_where(settings)}: {error}") from None
    finally:
        alembic_log.setLevel(level)
        engine.dispose()
    if not current:
        raise CommandError(
            f"the nimbase database at {_where(settings)} is not migrated: run `nimbase migrate` first"
        )
    if current != heads:
        raise CommandError(
            f"the nimbase database at {_where(settings)} has schema revision {', '.join(sorted(current))}, "
            f"not this nimbase's {', '.join(sorted(heads))}: run `nimbase migrate` first"
        )


def ready_database(settings: Settings, *, unreachable_ok: bool = False) -> str:
    """The URL of an existing, migrated database (CommandError otherwise)."""
    url = database_url(settings)
    _check_schema(url, settings, unreachable_ok=unreachable_ok)
    return url


def open_engine(url: str) -> Engine:
    from storage.database import create_engine

    return create_engine(url)
