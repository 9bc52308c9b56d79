"""Checkpoints of objects made whole: what a stopped job (its worker killed) resumes from.

A job whose kernel makes its object in stages (a chess table's solve) stores a record as each stage ends,
so that whichever worker takes the job up next, after the lease runs out, goes on from the last one.
Records are keyed by the object the job stores (game id and family), numbered in order from 0, and split
in parts of at most a few megabytes, each checksummed over its identity and bytes (CRC32); `job_id` is
the job whose lease wrote it. A record's parts are written in one transaction, under the job's lease;
the records are deleted once the object is stored whole. No reader of values ever sees them.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "job_checkpoints",
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


def downgrade() -> None:
    op.drop_table("job_checkpoints")
