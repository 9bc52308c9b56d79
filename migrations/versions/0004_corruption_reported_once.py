"""One open corruption report per chunk, closed when the chunk is rewritten.

Every read of a damaged chunk used to add a report. A report now stays open (`repaired_at` null) until
a write replaces the chunk, and a unique index over the open reports keeps one per chunk, so readers
that find the same damage record it once.

Existing reports are closed where a repair job of their chunk finished after them, and the duplicates
the old behaviour left among the open ones are dropped, keeping each chunk's first report.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("corruption_reports", sa.Column("repaired_at", sa.DateTime(timezone=True), nullable=True))
    op.execute(
        """
        UPDATE corruption_reports AS r
        SET repaired_at = (
            SELECT min(j.finished_at) FROM jobs AS j
            WHERE j.kind = 'repair' AND j.status = 'done' AND j.game_id = r.game_id
              AND j.family = r.family AND j.chunk_index = r.chunk_index AND j.finished_at >= r.detected_at
        )
        """
    )
    op.execute(
        """
        DELETE FROM corruption_reports AS r
        WHERE r.repaired_at IS NULL AND EXISTS (
            SELECT 1 FROM corruption_reports AS first
            WHERE first.repaired_at IS NULL AND first.game_id = r.game_id AND first.family = r.family
              AND first.chunk_index = r.chunk_index AND first.id < r.id
        )
        """
    )
    op.create_index(
        "ux_corruption_reports_open",
        "corruption_reports",
        ["game_id", "family", "chunk_index"],
        unique=True,
        postgresql_where=sa.text("repaired_at IS NULL"),
    )


def downgrade() -> None:
    op.drop_index("ux_corruption_reports_open", table_name="corruption_reports")
    op.drop_column("corruption_reports", "repaired_at")
