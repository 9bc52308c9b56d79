"""Each job's memory estimate beside it: a worker claims only the jobs that fit its own cap.

`memory_bytes` is the computing process's peak the job's kind estimated when it was queued
(engine.precompute.JobPlan.memory). Workers on machines of different sizes share one queue: a worker
leaves a job beyond its cap (NIMBASE_WORKER_MEMORY_BYTES) to one with a larger cap, rather than take it
and fail it. Jobs whose kind gives no estimate of its own (the cap decides as they run), repairs, and jobs
queued before this revision have none (NULL): any worker claims them, and puts back at once one its
kind then estimates beyond its cap.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("jobs", sa.Column("memory_bytes", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    op.drop_column("jobs", "memory_bytes")
