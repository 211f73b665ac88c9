"""Post-game reviews (``session_reviews``): a finished session's review, computed once on its
first request and kept (:mod:`serving.sessions.reviews`). Sessions finished before have none
until someone asks.

Revision ID: 0009_session_review
Revises: 0008_ladder_unrated_reason
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_session_review"
down_revision = "0008_ladder_unrated_reason"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "session_reviews",
        sa.Column("session_id", sa.String(64), primary_key=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("review", sa.JSON(), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("session_reviews")
