"""Rate-limit counters shared by the replicas (:mod:`serving.rate_limits`): one row per action,
kind (client or token) and who, with its fixed window's index and count.

Revision ID: 0005_rate_limits
Revises: 0004_ladder
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_rate_limits"
down_revision = "0004_ladder"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rate_limits",
        sa.Column("key", sa.String(128), primary_key=True),
        sa.Column("window_index", sa.BigInteger(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
    )
    op.create_index("ix_rate_limits_window_index", "rate_limits", ["window_index"])


def downgrade() -> None:
    op.drop_index("ix_rate_limits_window_index", table_name="rate_limits")
    op.drop_table("rate_limits")
