"""The ladder's repeat rule (:mod:`serving.ladder.farming`): a ladder game's first plies
(``opening``) and why a rated game against an AI level was not rated (``unrated_reason``).
Games recorded before have neither: the rule never counts them as repeated.

Revision ID: 0008_ladder_unrated_reason
Revises: 0007_ladder_presence
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_ladder_unrated_reason"
down_revision = "0007_ladder_presence"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("ladder_games") as batch:
        batch.add_column(sa.Column("opening", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("unrated_reason", sa.String(200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("ladder_games") as batch:
        batch.drop_column("unrated_reason")
        batch.drop_column("opening")
