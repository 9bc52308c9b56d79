"""One open job per stored object: a second submission of what an open job computes returns that job.

A unique index over the open extend jobs' object (game id and family) makes it hold whatever the
submitters do, in any process, at the same moment. Open duplicates an older version queued are merged
first: the oldest open job of each object is kept (the running one, where one runs), the others are
cancelled naming it, and the jobs waiting for them wait for it instead.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

_OPEN = "status IN ('queued', 'running')"


def upgrade() -> None:
    op.execute(
        f"""
        CREATE TEMPORARY TABLE merged_jobs AS
        SELECT id, first_value(id) OVER (
                   PARTITION BY game_id, family ORDER BY (status = 'running') DESC, id
               ) AS kept
        FROM jobs WHERE kind = 'extend' AND {_OPEN}
        """
    )
    op.execute("DELETE FROM merged_jobs WHERE id = kept")
    op.execute(
        """
        UPDATE jobs SET status = 'cancelled', finished_at = now(), lease_expires_at = NULL,
               error = 'merged into job ' || m.kept || ', which computes the same object'
        FROM merged_jobs m WHERE jobs.id = m.id
        """
    )
    op.execute(
        """
        UPDATE jobs SET waits_for = ARRAY(
            SELECT DISTINCT coalesce(m.kept, w) FROM unnest(jobs.waits_for) AS w
            LEFT JOIN merged_jobs m ON m.id = w ORDER BY 1
        )
        WHERE waits_for && ARRAY(SELECT id FROM merged_jobs)
        """
    )
    op.execute("DROP TABLE merged_jobs")
    op.create_index(
        "ux_jobs_open_extend",
        "jobs",
        ["game_id", "family"],
        unique=True,
        postgresql_where=sa.text(f"kind = 'extend' AND {_OPEN}"),
    )


def downgrade() -> None:
    op.drop_index("ux_jobs_open_extend", table_name="jobs")
