"""The strength an AI ladder player's points belong to: ``ladder_players.ai_fingerprint``, the
level's fingerprint (its network weights and search, :func:`serving.ladder.ai_players.
fingerprint`) when its points were last set from a measurement. A level whose id now names
another network or search (a ladder trained again, levels renumbered by an insertion) is
seen at the next start and takes its measured points instead of the old player's.

Rows from before have none: the service treats them as not known to match (the next start
sets them from the measurement, where there is one).

Revision ID: 0010_ai_fingerprint
Revises: 0009_session_review
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_ai_fingerprint"
down_revision = "0009_session_review"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("ladder_players", sa.Column("ai_fingerprint", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("ladder_players") as batch:
        batch.drop_column("ai_fingerprint")
