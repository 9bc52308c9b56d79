"""Table objects mirroring the migrated schema, for building queries.

Alembic migrations are the only definition of the schema; these objects restate it for SQLAlchemy
Core, and a test compares them with a freshly migrated database so the two cannot drift apart.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

metadata = sa.MetaData()

sequences = sa.Table(
    "sequences",
    metadata,
    sa.Column("game_id", sa.Text(), nullable=False),
    sa.Column("family", sa.Text(), nullable=False),
    sa.Column("computed_upto", sa.BigInteger(), nullable=False, server_default="0"),
    sa.Column("max_value", sa.BigInteger(), nullable=True),
    sa.Column("max_value_at", sa.BigInteger(), nullable=True),
    sa.Column("preperiod", sa.BigInteger(), nullable=True),
    sa.Column("period", sa.BigInteger(), nullable=True),
    sa.Column("saltus", sa.BigInteger(), nullable=True),
    sa.Column("certified", sa.Boolean(), nullable=True),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
    sa.Column("stats", postgresql.JSONB(), nullable=True),
    sa.Column("stats_upto", sa.BigInteger(), nullable=True),
    sa.PrimaryKeyConstraint("game_id", "family", name="pk_sequences"),
    sa.CheckConstraint("computed_upto >= 0", name="ck_sequences_computed_upto"),
)

sequence_chunks = sa.Table(
    "sequence_chunks",
    metadata,
    sa.Column("game_id", sa.Text(), nullable=False),
    sa.Column("family", sa.Text(), nullable=False),
    sa.Column("chunk_index", sa.BigInteger(), nullable=False),
    sa.Column("count", sa.Integer(), nullable=False),
    sa.Column("width", sa.SmallInteger(), nullable=False),
    sa.Column("payload", sa.LargeBinary(), nullable=False),
    sa.Column("checksum", sa.BigInteger(), nullable=False),
    sa.Column("codec", sa.SmallInteger(), nullable=False, server_default="0"),
    sa.PrimaryKeyConstraint("game_id", "family", "chunk_index", name="pk_sequence_chunks"),
    sa.ForeignKeyConstraint(
        ["game_id", "family"],
        ["sequences.game_id", "sequences.family"],
        name="fk_sequence_chunks_sequences",
        ondelete="CASCADE",
    ),
    sa.CheckConstraint("width IN (0, 1, 2, 4, 8, 16, 32)", name="ck_sequence_chunks_width"),
    sa.CheckConstraint("count > 0", name="ck_sequence_chunks_count"),
    sa.CheckConstraint("codec IN (0, 1)", name="ck_sequence_chunks_codec"),
)

jobs = sa.Table(
    "jobs",
    metadata,
    sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
    sa.Column("game_id", sa.Text(), nullable=False),
    sa.Column("family", sa.Text(), nullable=False),
    sa.Column("upto", sa.BigInteger(), nullable=False),
    sa.Column("fill", sa.Boolean(), nullable=False, server_default=sa.false()),
    sa.Column("kind", sa.Text(), nullable=False, server_default="extend"),
    sa.Column("chunk_index", sa.BigInteger(), nullable=True),
    sa.Column("status", sa.Text(), nullable=False, server_default="queued"),
    sa.Column("done", sa.BigInteger(), nullable=False, server_default="0"),
    sa.Column("total", sa.BigInteger(), nullable=False, server_default="0"),
    sa.Column("lease_owner", sa.Text(), nullable=True),
    sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"),
    sa.Column("error", sa.Text(), nullable=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
    sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    sa.Column("origin", sa.Text(), nullable=False, server_default="admin"),
    sa.Column("max_seconds", sa.Double(), nullable=True),
    sa.Column("client", sa.Text(), nullable=True),
    sa.Column("waits_for", postgresql.ARRAY(sa.BigInteger()), nullable=False, server_default="{}"),
    #: The computing process's peak its kind estimated as it was queued: a worker claims it only within its
    #: cap (None: its kind gives no estimate of its own, the cap decides as it runs; or a repair, or a job
    #: queued before estimates were kept).
    sa.Column("memory_bytes", sa.BigInteger(), nullable=True),
    sa.PrimaryKeyConstraint("id", name="pk_jobs"),
    sa.CheckConstraint(
        "status IN ('queued', 'running', 'done', 'failed', 'cancelled')", name="ck_jobs_status"
    ),
    sa.CheckConstraint("kind IN ('extend', 'repair')", name="ck_jobs_kind"),
    sa.CheckConstraint("(kind = 'repair') = (chunk_index IS NOT NULL)", name="ck_jobs_chunk_index"),
    sa.CheckConstraint("upto >= 0", name="ck_jobs_upto"),
    sa.CheckConstraint("origin IN ('admin', 'auto')", name="ck_jobs_origin"),
    sa.CheckConstraint("max_seconds > 0", name="ck_jobs_max_seconds"),
    sa.Index("ix_jobs_open", "id", postgresql_where=sa.text("status IN ('queued', 'running')")),
    sa.Index(
        "ux_jobs_open_repair",
        "game_id",
        "family",
        "chunk_index",
        unique=True,
        postgresql_where=sa.text("kind = 'repair' AND status IN ('queued', 'running')"),
    ),
    sa.Index("ix_jobs_waits_for", "waits_for", postgresql_using="gin"),
    sa.Index(
        "ux_jobs_open_extend",
        "game_id",
        "family",
        unique=True,
        postgresql_where=sa.text("kind = 'extend' AND status IN ('queued', 'running')"),
    ),
)

corruption_reports = sa.Table(
    "corruption_reports",
    metadata,
    sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
    sa.Column("game_id", sa.Text(), nullable=False),
    sa.Column("family", sa.Text(), nullable=False),
    sa.Column("chunk_index", sa.BigInteger(), nullable=False),
    sa.Column("detail", sa.Text(), nullable=True),
    sa.Column("detected_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
    sa.Column("repaired_at", sa.DateTime(timezone=True), nullable=True),
    sa.PrimaryKeyConstraint("id", name="pk_corruption_reports"),
    sa.Index(
        "ux_corruption_reports_open",
        "game_id",
        "family",
        "chunk_index",
        unique=True,
        postgresql_where=sa.text("repaired_at IS NULL"),
    ),
)

graphs = sa.Table(
    "graphs",
    metadata,
    sa.Column("name", sa.Text(), nullable=False),
    sa.Column("vertex_count", sa.BigInteger(), nullable=False),
    sa.Column("edge_count", sa.BigInteger(), nullable=False),
    sa.Column("terminal_count", sa.BigInteger(), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
    sa.PrimaryKeyConstraint("name", name="pk_graphs"),
    sa.CheckConstraint(
        "vertex_count > 0 AND edge_count >= 0 AND terminal_count >= 0", name="ck_graphs_counts"
    ),
)

graph_chunks = sa.Table(
    "graph_chunks",
    metadata,
    sa.Column("graph_name", sa.Text(), nullable=False),
    sa.Column("part", sa.Text(), nullable=False),
    sa.Column("chunk_index", sa.Integer(), nullable=False),
    sa.Column("count", sa.Integer(), nullable=False),
    sa.Column("payload", sa.LargeBinary(), nullable=False),
    sa.Column("checksum", sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint("graph_name", "part", "chunk_index", name="pk_graph_chunks"),
    sa.ForeignKeyConstraint(
        ["graph_name"], ["graphs.name"], name="fk_graph_chunks_graphs", ondelete="CASCADE"
    ),
    sa.CheckConstraint("part IN ('vertices', 'edges', 'terminals')", name="ck_graph_chunks_part"),
    sa.CheckConstraint("count > 0", name="ck_graph_chunks_count"),
)

job_checkpoints = sa.Table(
    "job_checkpoints",
    metadata,
    sa.Column("game_id", sa.Text(), nullable=False),
    sa.Column("family", sa.Text(), nullable=False),
    sa.Column("record", sa.Integer(), nullable=False),
    sa.Column("part", sa.Integer(), nullable=False),
    sa.Column("parts", sa.Integer(), nullable=False),
    sa.Column("job_id", sa.BigInteger(), nullable=False),
    sa.Column("payload", sa.LargeBinary(), nullable=False),
    sa.Column("checksum", sa.BigInteger(), nullable=False),
    sa.Column("written_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
    sa.PrimaryKeyConstraint("game_id", "family", "record", "part", name="pk_job_checkpoints"),
    sa.CheckConstraint("record >= 0 AND part >= 0 AND part < parts", name="ck_job_checkpoints_part"),
)

#: Tables holding data (everything but Alembic's version table), in an order safe for truncation.
DATA_TABLES: tuple[sa.Table, ...] = (
    sequence_chunks,
    sequences,
    jobs,
    corruption_reports,
    graph_chunks,
    graphs,
    job_checkpoints,
)
