"""The ladder's presence in games (:mod:`serving.ladder.presence`): ``ladder_presence``, per
ladder game and seat, whether the player follows it, their disconnections and absence; and
``ladder_streams``, the open event streams players authenticated, with their heartbeat.

Revision ID: 0007_ladder_presence
Revises: 0006_player_name_key
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_ladder_presence"
down_revision = "0006_player_name_key"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ladder_presence",
        sa.Column("session_id", sa.String(64), primary_key=True),
        sa.Column("seat", sa.String(16), primary_key=True),
        sa.Column("present", sa.Boolean(), nullable=False),
        sa.Column("disconnections", sa.Integer(), nullable=False),
        sa.Column("absent_since", sa.Float(), nullable=True),
        sa.Column("loses_at", sa.Float(), nullable=True, index=True),
    )
    op.create_table(
        "ladder_streams",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("session_id", sa.String(64), nullable=False, index=True),
        sa.Column("seat", sa.String(16), nullable=False),
        sa.Column("seen", sa.Float(), nullable=False, index=True),
    )


def downgrade() -> None:
    op.drop_table("ladder_streams")
    op.drop_table("ladder_presence")
