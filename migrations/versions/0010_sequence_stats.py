"""Whole-table statistics stored beside each sequence or object stored whole: what GetStats answers from,
without reading the table again.

`stats` is the statistics the kind's kernel made of the stored values (JSON of the kind's own shape,
engine.kind.SequenceKernel.stats_part), covering values 0..stats_upto-1; they are current while
`stats_upto` equals `computed_upto`. A sequence extended later gets them combined with the new range's
in the same transaction as its chunks. Rows stored before this revision have none (NULL): GetStats works
from the values as before, and the next job storing the sequence stores them.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("sequences", sa.Column("stats", postgresql.JSONB(), nullable=True))
    op.add_column("sequences", sa.Column("stats_upto", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    op.drop_column("sequences", "stats_upto")
    op.drop_column("sequences", "stats")
