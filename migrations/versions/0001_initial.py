"""Initial schema: sequences, their packed chunks, the job queue and corruption reports.

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sequences",
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
        sa.PrimaryKeyConstraint("game_id", "family", name="pk_sequences"),
        sa.CheckConstraint("computed_upto >= 0", name="ck_sequences_computed_upto"),
    )
    op.create_table(
        "sequence_chunks",
        sa.Column("game_id", sa.Text(), nullable=False),
        sa.Column("family", sa.Text(), nullable=False),
        sa.Column("chunk_index", sa.BigInteger(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("width", sa.SmallInteger(), nullable=False),
        sa.Column("payload", sa.LargeBinary(), nullable=False),
        sa.Column("checksum", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "family", "chunk_index", name="pk_sequence_chunks"),
        sa.ForeignKeyConstraint(
            ["game_id", "family"],
            ["sequences.game_id", "sequences.family"],
            name="fk_sequence_chunks_sequences",
            ondelete="CASCADE",
        ),
        sa.CheckConstraint("width IN (0, 1, 2, 4, 8, 16, 32)", name="ck_sequence_chunks_width"),
        sa.CheckConstraint("count > 0", name="ck_sequence_chunks_count"),
    )
    op.create_table(
        "jobs",
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
        sa.PrimaryKeyConstraint("id", name="pk_jobs"),
        sa.CheckConstraint(
            "status IN ('queued', 'running', 'done', 'failed', 'cancelled')", name="ck_jobs_status"
        ),
        sa.CheckConstraint("kind IN ('extend', 'repair')", name="ck_jobs_kind"),
        sa.CheckConstraint("(kind = 'repair') = (chunk_index IS NOT NULL)", name="ck_jobs_chunk_index"),
        sa.CheckConstraint("upto >= 0", name="ck_jobs_upto"),
    )
    # Claiming scans only open jobs, in id order.
    op.create_index(
        "ix_jobs_open", "jobs", ["id"], postgresql_where=sa.text("status IN ('queued', 'running')")
    )
    # At most one open repair job per chunk, so reporting a corruption twice queues one repair.
    op.create_index(
        "ux_jobs_open_repair",
        "jobs",
        ["game_id", "family", "chunk_index"],
        unique=True,
        postgresql_where=sa.text("kind = 'repair' AND status IN ('queued', 'running')"),
    )
    op.create_table(
        "corruption_reports",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("game_id", sa.Text(), nullable=False),
        sa.Column("family", sa.Text(), nullable=False),
        sa.Column("chunk_index", sa.BigInteger(), nullable=False),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.Column("detected_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        sa.PrimaryKeyConstraint("id", name="pk_corruption_reports"),
    )


def downgrade() -> None:
    op.drop_table("corruption_reports")
    op.drop_index("ux_jobs_open_repair", table_name="jobs")
    op.drop_index("ix_jobs_open", table_name="jobs")
    op.drop_table("jobs")
    op.drop_table("sequence_chunks")
    op.drop_table("sequences")
