"""Jobs that wait for other jobs: a chess material's job waits for the tables its captures lead to, a
tier's job for the tiers its moves lead to.

`waits_for` holds the ids of the jobs that must be done before a worker may claim this one (empty: none).
The index on it serves the claim's test and the failing of jobs whose dependency failed.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "jobs",
        sa.Column("waits_for", postgresql.ARRAY(sa.BigInteger()), nullable=False, server_default="{}"),
    )
    op.create_index("ix_jobs_waits_for", "jobs", ["waits_for"], postgresql_using="gin")


def downgrade() -> None:
    op.drop_index("ix_jobs_waits_for", table_name="jobs")
    op.drop_column("jobs", "waits_for")
