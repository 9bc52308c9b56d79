"""Automatic jobs: a job's origin ('admin' or 'auto') and its bound in worker time.

The service queues 'auto' jobs by itself when a request's live computation runs out of its deadline;
their number is capped by NIMBASE_AUTO_JOBS and each stops after `max_seconds` of worker time (null: no
bound, as for jobs an administrator submits).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("jobs", sa.Column("origin", sa.Text(), nullable=False, server_default="admin"))
    op.add_column("jobs", sa.Column("max_seconds", sa.Double(), nullable=True))
    op.create_check_constraint("ck_jobs_origin", "jobs", "origin IN ('admin', 'auto')")
    op.create_check_constraint("ck_jobs_max_seconds", "jobs", "max_seconds > 0")


def downgrade() -> None:
    op.drop_constraint("ck_jobs_max_seconds", "jobs", type_="check")
    op.drop_constraint("ck_jobs_origin", "jobs", type_="check")
    op.drop_column("jobs", "max_seconds")
    op.drop_column("jobs", "origin")
