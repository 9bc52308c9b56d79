"""Uploaded graphs (UploadGraph): one row per graph, its vertices, edges and terminals in packed chunks.

A graph of 10,000,000 edges must not take a row per edge: `graphs` holds the name (the key), the counts
and when it was stored, and `graph_chunks` the graph itself, in parts: `vertices` (up to 65,536 names a
chunk, newline-joined UTF-8), `edges` (up to 1,048,576 edges a chunk: their sources then their targets as
little-endian int32 vertex indices) and `terminals` (vertex indices as int32, then their labels as one
byte each), every payload deflated and checksummed (CRC32 over its identity and bytes). A graph is
written in one transaction and never changed: a name is taken for good.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "graphs",
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("vertex_count", sa.BigInteger(), nullable=False),
        sa.Column("edge_count", sa.BigInteger(), nullable=False),
        sa.Column("terminal_count", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        sa.PrimaryKeyConstraint("name", name="pk_graphs"),
        sa.CheckConstraint(
            "vertex_count > 0 AND edge_count >= 0 AND terminal_count >= 0", name="ck_graphs_counts"
        ),
    )
    op.create_table(
        "graph_chunks",
        sa.Column("graph_name", sa.Text(), nullable=False),
        sa.Column("part", sa.Text(), nullable=False),
        sa.Column("chunk_index", sa.Integer(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("payload", sa.LargeBinary(), nullable=False),
        sa.Column("checksum", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("graph_name", "part", "chunk_index", name="pk_graph_chunks"),
        sa.ForeignKeyConstraint(
            ["graph_name"], ["graphs.name"], name="fk_graph_chunks_graphs", ondelete="CASCADE"
        ),
        sa.CheckConstraint("part IN ('vertices', 'edges', 'terminals')", name="ck_graph_chunks_part"),
        sa.CheckConstraint("count > 0", name="ck_graph_chunks_count"),
    )


def downgrade() -> None:
    op.drop_table("graph_chunks")
    op.drop_table("graphs")
