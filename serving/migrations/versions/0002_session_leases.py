"""Driver leases for replicas: the ``session_leases`` table, and the columns of ``sessions``
that say what a session waits for (``ai_turn``, ``deadline``), so pollers find work with an
indexed query (:mod:`serving.leases`).

Rows written before have no such facts; they get a guess that can only be too eager (every
playing session may have an AI seat to move; its clock may be due from the start of the turn),
which the first replica to look corrects (``SessionStore.set_schedule``).

Revision ID: 0002_session_leases
Revises: 0001_sessions
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_session_leases"
down_revision = "0001_sessions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "sessions",
        sa.Column("ai_turn", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.add_column("sessions", sa.Column("deadline", sa.Float(), nullable=True))
    op.create_index("ix_sessions_ai_turn", "sessions", ["ai_turn"])
    op.create_index("ix_sessions_deadline", "sessions", ["deadline"])
    sessions = sa.table(
        "sessions", sa.column("status", sa.String), sa.column("ai_turn", sa.Boolean),
        sa.column("deadline", sa.Float), sa.column("turn_started", sa.Float),
    )
    op.execute(
        sessions.update()
        .where(sessions.c.status == "playing")
        .values(ai_turn=sa.true(), deadline=sessions.c.turn_started)
    )
    op.create_table(
        "session_leases",
        sa.Column("session_id", sa.String(64), primary_key=True),
        sa.Column("holder", sa.String(64), nullable=True),
        sa.Column("expires", sa.Float(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("error_version", sa.Integer(), nullable=True),
    )
    op.create_index("ix_session_leases_holder", "session_leases", ["holder"])


def downgrade() -> None:
    op.drop_index("ix_session_leases_holder", table_name="session_leases")
    op.drop_table("session_leases")
    op.drop_index("ix_sessions_deadline", table_name="sessions")
    op.drop_index("ix_sessions_ai_turn", table_name="sessions")
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("deadline")
        batch.drop_column("ai_turn")
