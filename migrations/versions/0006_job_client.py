"""Which client queued an automatic job, so each client's share of NIMBASE_AUTO_JOBS holds across server
processes.

`client` is the address of the peer whose request queued the job (the identity the rate limiter uses);
null for jobs an administrator submits and for automatic jobs queued without a known client.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-13
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("jobs", sa.Column("client", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("jobs", "client")
