"""Chunk payloads stored EXTERNAL: out of line when large, never compressed by PostgreSQL.

A payload is compressed already where that pays (deflated chunks, an object whose kind compressed its
bytes), so PostgreSQL's own compression of it costs time and saves little; and only an uncompressed
out-of-line value can be read in part: `substring(payload from x for n)` of a chunk stored as plain
words (storage.word_ranges) then reads the TOAST pages holding the range alone. It applies to rows
written from now on; a row written before reads as before, whole or by its range (decompressed first).

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-28
"""

from __future__ import annotations

from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("ALTER TABLE sequence_chunks ALTER COLUMN payload SET STORAGE EXTERNAL")


def downgrade() -> None:
    op.execute("ALTER TABLE sequence_chunks ALTER COLUMN payload SET STORAGE EXTENDED")
