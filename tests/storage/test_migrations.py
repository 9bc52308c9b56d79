"""The migrations are the schema; storage/schema.py must restate them exactly."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from numpy.typing import NDArray
from sqlalchemy.engine import make_url

from storage.migrate import alembic_config, upgrade_head
from storage.packing import CHUNK_VALUES
from storage.schema import metadata
from storage.sequences import SequenceStore
from tests.storage.helpers import store_whole, write_whole


def _diff(engine: sa.Engine, target: sa.MetaData) -> list[object]:
    with engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "compare_server_default": True}
        )
        return list(compare_metadata(context, target))


def _check_constraints(engine: sa.Engine) -> dict[str, set[str]]:
    inspector = sa.inspect(engine)
    return {
        table.name: {str(c["name"]) for c in inspector.get_check_constraints(table.name)}
        for table in metadata.sorted_tables
    }


def test_migrated_database_matches_schema_module(db_engine: sa.Engine) -> None:
    assert _diff(db_engine, metadata) == []
    declared = {
        table.name: {str(c.name) for c in table.constraints if isinstance(c, sa.CheckConstraint)}
        for table in metadata.sorted_tables
    }
    assert _check_constraints(db_engine) == declared


def test_the_comparison_notices_a_difference(db_engine: sa.Engine) -> None:
    altered = sa.MetaData()
    for table in metadata.sorted_tables:
        table.to_metadata(altered)
    altered.tables["jobs"].append_column(sa.Column("priority", sa.Integer()))
    assert any("priority" in repr(d) for d in _diff(db_engine, altered))


def test_database_is_at_head(db_engine: sa.Engine) -> None:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    with db_engine.connect() as conn:
        assert MigrationContext.configure(conn).get_current_revision() == head


@pytest.fixture
def empty_database_url(database_url: str) -> Iterator[str]:
    name = f"nimbase_mig_{secrets.token_hex(4)}"
    admin = sa.create_engine(database_url, isolation_level="AUTOCOMMIT", poolclass=sa.NullPool)
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(database_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def test_concurrent_upgrades_are_safe(
    empty_database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the migrations are found from any working directory
    errors: list[BaseException] = []

    def upgrade() -> None:
        try:
            upgrade_head(empty_database_url)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=upgrade) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    engine = sa.create_engine(empty_database_url, poolclass=sa.NullPool)
    try:
        assert _diff(engine, metadata) == []
    finally:
        engine.dispose()


def _migrate(url: str, revision: str, *, down: bool = False) -> None:
    engine = sa.create_engine(url, poolclass=sa.NullPool)
    try:
        with engine.connect() as conn:
            config = alembic_config()
            config.attributes["connection"] = conn
            (command.downgrade if down else command.upgrade)(config, revision)
            conn.commit()
    finally:
        engine.dispose()


def test_automatic_jobs_migration_upgrades_existing_jobs_and_downgrades(empty_database_url: str) -> None:
    _migrate(empty_database_url, "0002")
    engine = sa.create_engine(empty_database_url, poolclass=sa.NullPool)
    try:
        with engine.begin() as conn:
            conn.execute(
                sa.text("INSERT INTO jobs (game_id, family, upto, total) VALUES ('nim', 'heap', 5, 5)")
            )
        _migrate(empty_database_url, "0003")
        with engine.connect() as conn:
            row = conn.execute(sa.text("SELECT origin, max_seconds FROM jobs")).one()
        assert tuple(row) == ("admin", None)  # jobs queued before are an administrator's, unbounded
        for values in ("'other', NULL", "'auto', 0", "'auto', -1"):
            with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:
                conn.execute(
                    sa.text(
                        "INSERT INTO jobs (game_id, family, upto, total, origin, max_seconds) "
                        f"VALUES ('nim', 'heap', 5, 5, {values})"
                    )
                )
        with engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO jobs (game_id, family, upto, total, origin, max_seconds) "
                    "VALUES ('nim', 'heap', 5, 5, 'auto', 1.5)"
                )
            )
        _migrate(empty_database_url, "0002", down=True)
        columns = {c["name"] for c in sa.inspect(engine).get_columns("jobs")}
        assert "origin" not in columns and "max_seconds" not in columns
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT count(*) FROM jobs")).scalar_one() == 2
        _migrate(empty_database_url, "head")
        assert _diff(engine, metadata) == []
    finally:
        engine.dispose()


def test_reported_once_migration_closes_repaired_reports_and_drops_duplicates(
    empty_database_url: str,
) -> None:
    """Before 0004 every read of a damaged chunk added a report: the upgrade keeps one open report per
    chunk still damaged, and closes those whose chunk a repair job rewrote afterwards."""
    _migrate(empty_database_url, "0003")
    engine = sa.create_engine(empty_database_url, poolclass=sa.NullPool)
    try:
        with engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO corruption_reports (game_id, family, chunk_index, detected_at) VALUES "
                    "('grundy', 'heap', 1, now() - interval '2 hours'), "
                    "('grundy', 'heap', 1, now() - interval '2 hours'), "
                    "('grundy', 'heap', 2, now() - interval '1 hour'), "
                    "('grundy', 'heap', 2, now() - interval '1 hour'), "
                    "('grundy', 'heap', 2, now() - interval '1 hour')"
                )
            )
            conn.execute(
                sa.text(
                    "INSERT INTO jobs (game_id, family, upto, total, kind, chunk_index, status, finished_at) "
                    "VALUES ('grundy', 'heap', 131072, 1, 'repair', 1, 'done', now() - interval '1 hour')"
                )
            )
        _migrate(empty_database_url, "0004")
        with engine.connect() as conn:
            rows = conn.execute(
                sa.text("SELECT id, chunk_index, repaired_at IS NOT NULL FROM corruption_reports ORDER BY id")
            ).all()
        assert [tuple(r) for r in rows] == [(1, 1, True), (2, 1, True), (3, 2, False)]
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO corruption_reports (game_id, family, chunk_index) "
                    "VALUES ('grundy', 'heap', 2)"
                )
            )
        _migrate(empty_database_url, "0003", down=True)
        columns = {c["name"] for c in sa.inspect(engine).get_columns("corruption_reports")}
        assert "repaired_at" not in columns
        _migrate(empty_database_url, "head")
        assert _diff(engine, metadata) == []
    finally:
        engine.dispose()


def test_checkpoints_migration_downgrades_and_upgrades_again(empty_database_url: str) -> None:
    _migrate(empty_database_url, "head")
    engine = sa.create_engine(empty_database_url, poolclass=sa.NullPool)
    try:
        assert "job_checkpoints" in sa.inspect(engine).get_table_names()
        _migrate(empty_database_url, "0007", down=True)
        assert "job_checkpoints" not in sa.inspect(engine).get_table_names()
        _migrate(empty_database_url, "head")
        assert _diff(engine, metadata) == []
    finally:
        engine.dispose()


def test_one_open_job_migration_merges_open_duplicates(empty_database_url: str) -> None:
    """Before 0009 one object could have several open jobs: the upgrade keeps the running one (else
    the oldest), cancels the others naming it, and points the jobs waiting for them at it."""
    _migrate(empty_database_url, "0008")
    engine = sa.create_engine(empty_database_url, poolclass=sa.NullPool)
    try:
        with engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO jobs (id, game_id, family, upto, total, status, waits_for) VALUES "
                    "(1, 'chess:KBNvK', 'table', 9, 9, 'queued', '{}'), "
                    "(2, 'chess:KBNvK', 'table', 9, 9, 'running', '{}'), "
                    "(3, 'chess:KBNvK', 'table', 9, 9, 'done', '{}'), "
                    "(4, 'nim', 'heap', 5, 5, 'queued', '{}'), "
                    "(5, 'chess:KBNvKN', 'table', 9, 9, 'queued', '{1, 4}')"
                )
            )
        _migrate(empty_database_url, "0009")
        with engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT id, status, error, waits_for FROM jobs ORDER BY id")).all()
        assert [(r[0], r[1], r[3]) for r in rows] == [
            (1, "cancelled", []),
            (2, "running", []),
            (3, "done", []),
            (4, "queued", []),
            (5, "queued", [2, 4]),
        ]
        assert rows[0][2] == "merged into job 2, which computes the same object"
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:
            conn.execute(
                sa.text("INSERT INTO jobs (game_id, family, upto, total) VALUES ('nim', 'heap', 7, 7)")
            )
        _migrate(empty_database_url, "0008", down=True)
        _migrate(empty_database_url, "head")
        assert _diff(engine, metadata) == []
    finally:
        engine.dispose()


def _store_whole_at_0010(engine: sa.Engine, game_id: str, words: NDArray[np.uint32]) -> None:
    """`words` stored as plain words by a job running under lease "w1", its row written with the columns
    jobs had at 0010 (today's queue writes columns added since)."""
    with engine.begin() as conn:
        job_id = conn.execute(
            sa.text(
                "INSERT INTO jobs (game_id, family, upto, status, lease_owner, lease_expires_at) "
                "VALUES (:game, 'heap', :upto, 'running', 'w1', now() + interval '1 hour') RETURNING id"
            ),
            {"game": game_id, "upto": len(words)},
        ).scalar_one()
    write_whole(engine, job_id, "w1", game_id, "heap", words, plain=True)


def test_external_payload_migration_keeps_rows_written_before_readable(empty_database_url: str) -> None:
    """Before 0011 PostgreSQL compressed large payloads (EXTENDED): such a row still reads by
    ranges once payloads are EXTERNAL, and a row written after is stored uncompressed; the downgrade
    restores EXTENDED."""
    storage = sa.text(
        "SELECT attstorage FROM pg_attribute "
        "WHERE attrelid = 'sequence_chunks'::regclass AND attname = 'payload'"
    )
    compressed = sa.text(
        "SELECT pg_column_compression(payload) IS NOT NULL FROM sequence_chunks ORDER BY game_id, chunk_index"
    )
    words = ((np.arange(CHUNK_VALUES + 10) % 5) << 24).astype(np.uint32)  # plain words PostgreSQL compresses
    _migrate(empty_database_url, "0010")
    engine = sa.create_engine(empty_database_url, poolclass=sa.NullPool)
    try:
        with engine.connect() as conn:
            assert conn.execute(storage).scalar_one() == "x"
        _store_whole_at_0010(engine, "graph:1-before", words)
        with engine.connect() as conn:
            assert conn.execute(compressed).scalars().all() == [True, False]  # the short last one inline
        _migrate(empty_database_url, "head")
        with engine.connect() as conn:
            assert conn.execute(storage).scalar_one() == "e"
        sequences = SequenceStore(engine)
        for game in ("graph:1-before", "graph:2-after"):
            if game == "graph:2-after":
                store_whole(engine, game, words, plain=True)
            parts = sequences.read_parts(game, "heap", CHUNK_VALUES - 5, CHUNK_VALUES + 5)
            assert (
                b"".join(part.data for part in parts) == words[CHUNK_VALUES - 5 : CHUNK_VALUES + 5].tobytes()
            )
        with engine.connect() as conn:
            assert conn.execute(compressed).scalars().all() == [True, False, False, False]
        _migrate(empty_database_url, "0010", down=True)
        with engine.connect() as conn:
            assert conn.execute(storage).scalar_one() == "x"
    finally:
        engine.dispose()
