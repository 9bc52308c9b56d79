"""The test database's one shared chore: emptying every data table between tests that need a clean slate
(a worker a test runs would also run any job an earlier test left queued; uploads need names not taken)."""

from __future__ import annotations

import sqlalchemy as sa

from storage.schema import DATA_TABLES


def empty_data_tables(engine: sa.Engine) -> None:
    """TRUNCATE every data table (the schema's version table stays)."""
    names = ", ".join(table.name for table in DATA_TABLES)
    with engine.begin() as conn:
        conn.execute(sa.text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
