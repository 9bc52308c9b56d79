"""Chunk codec: bit-packed bytes stored raw (0) or deflated (1) when that saves space.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "sequence_chunks", sa.Column("codec", sa.SmallInteger(), nullable=False, server_default="0")
    )
    op.create_check_constraint("ck_sequence_chunks_codec", "sequence_chunks", "codec IN (0, 1)")


def downgrade() -> None:
    op.drop_constraint("ck_sequence_chunks_codec", "sequence_chunks", type_="check")
    op.drop_column("sequence_chunks", "codec")
