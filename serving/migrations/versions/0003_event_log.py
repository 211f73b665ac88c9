"""The event log of the live streams (:mod:`serving.events`): ``event_channels`` (a channel's
last id and when it closed) and ``events`` (keyed by channel and id).

The service made these tables with ``create_all`` for a while before migrations: a database
that has them keeps them as they are.

Revision ID: 0003_event_log
Revises: 0002_session_leases
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_event_log"
down_revision = "0002_session_leases"
branch_labels = None
depends_on = None


def upgrade() -> None:
    existing = set(sa.inspect(op.get_bind()).get_table_names())
    if "event_channels" not in existing:
        op.create_table(
            "event_channels",
            sa.Column("channel", sa.String(160), primary_key=True),
            sa.Column("last_id", sa.BigInteger(), nullable=False),
            sa.Column("closed", sa.Float(), nullable=True),
        )
        op.create_index("ix_event_channels_closed", "event_channels", ["closed"])
    if "events" not in existing:
        op.create_table(
            "events",
            sa.Column("channel", sa.String(160), primary_key=True),
            sa.Column("id", sa.BigInteger(), primary_key=True, autoincrement=False),
            sa.Column("kind", sa.String(64), nullable=False),
            sa.Column("data", sa.JSON(), nullable=False),
            sa.Column("at", sa.Float(), nullable=False),
        )


def downgrade() -> None:
    op.drop_table("events")
    op.drop_index("ix_event_channels_closed", table_name="event_channels")
    op.drop_table("event_channels")
