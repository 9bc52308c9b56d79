"""Engine creation and the mapping of connection failures to StorageUnavailable.

Every process (service, workers, CLI) reaches PostgreSQL through `create_engine`, so they all fail
fast when the database is down and recover by themselves (pre-ping) when it comes back.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import sqlalchemy
from sqlalchemy import exc as sa_exc

from storage.errors import StorageUnavailable

#: Seconds to wait for a connection before declaring the database unavailable.
CONNECT_TIMEOUT_SECONDS = 3


def normalize_url(url: str) -> str:
    """The SQLAlchemy URL for psycopg 3 (plain `postgresql://` or `postgres://` URLs are accepted)."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    if url.startswith("postgresql+psycopg://"):
        return url
    raise ValueError(f"not a PostgreSQL URL: {url!r} (expected postgresql://...)")


def create_engine(url: str, pool_size: int = 5) -> sqlalchemy.Engine:
    """A pooled engine that checks connections before use and gives up connecting after a few seconds."""
    return sqlalchemy.create_engine(
        normalize_url(url),
        pool_pre_ping=True,
        pool_size=pool_size,
        max_overflow=10,
        pool_timeout=CONNECT_TIMEOUT_SECONDS * 2,
        connect_args={"connect_timeout": CONNECT_TIMEOUT_SECONDS, "application_name": "nimbase"},
    )


@contextmanager
def unavailable_on_disconnect() -> Iterator[None]:
    """Re-raise connection problems as StorageUnavailable; other database errors pass unchanged."""
    try:
        yield
    except (sa_exc.OperationalError, sa_exc.InterfaceError, psycopg.OperationalError) as exc:
        raise StorageUnavailable(f"database unavailable: {_first_line(exc)}") from exc
    except sa_exc.TimeoutError as exc:
        raise StorageUnavailable(f"database unavailable: no connection free ({_first_line(exc)})") from exc
    except sa_exc.DBAPIError as exc:
        if exc.connection_invalidated:
            raise StorageUnavailable(f"database unavailable: {_first_line(exc)}") from exc
        raise


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
