"""The ``sessions`` table as the service created it before migrations (``create_all``).

A database made by that older service already has it: :func:`serving.schema.upgrade` then
stamps this revision instead of running it.

Revision ID: 0001_sessions
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_sessions"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("owner_hash", sa.String(64), nullable=False),
        sa.Column("seat_hashes", sa.JSON(), nullable=False),
        sa.Column("games", sa.JSON(), nullable=False),
        sa.Column("pending", sa.JSON(), nullable=False),
        sa.Column("extras", sa.JSON(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("confirm_turns", sa.Integer(), nullable=False),
        sa.Column("match_games", sa.Integer(), nullable=False),
        sa.Column("turn_seconds", sa.Float(), nullable=True),
        sa.Column("turn_started", sa.Float(), nullable=True),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("updated", sa.Float(), nullable=False),
    )
    op.create_index("ix_sessions_status", "sessions", ["status"])


def downgrade() -> None:
    op.drop_index("ix_sessions_status", table_name="sessions")
    op.drop_table("sessions")
