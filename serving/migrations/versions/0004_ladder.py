"""The ranking ladder's tables (:mod:`serving.ladder.store`): players, ladder games, the queue,
membership grants and challenges.

The service made these tables with ``create_all`` for a while before migrations: a database
that has them keeps them as they are.

Revision ID: 0004_ladder
Revises: 0003_event_log
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_ladder"
down_revision = "0003_event_log"
branch_labels = None
depends_on = None

ID = sa.String(64)


def _players() -> None:
    op.create_table(
        "ladder_players",
        sa.Column("id", ID, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False, unique=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=True, unique=True),
        sa.Column("points", sa.BigInteger(), nullable=False),
        sa.Column("rated_games", sa.Integer(), nullable=False),
        sa.Column("rated_wins", sa.Integer(), nullable=False),
        sa.Column("rated_losses", sa.Integer(), nullable=False),
        sa.Column("rated_draws", sa.Integer(), nullable=False),
        sa.Column("friendly_games", sa.Integer(), nullable=False),
        sa.Column("granted", sa.BigInteger(), nullable=False),
        sa.Column("last_result", sa.String(8), nullable=True),
        sa.Column("ai_key", sa.String(256), nullable=True),
        sa.Column("ai_level", sa.String(64), nullable=True),
        sa.Column("ai_options", sa.JSON(), nullable=True),
        sa.Column("lock", sa.Integer(), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
    )


def _games() -> None:
    op.create_table(
        "ladder_games",
        sa.Column("id", ID, primary_key=True),
        sa.Column("session_id", ID, nullable=False, unique=True),
        sa.Column("status", sa.String(8), nullable=False, index=True),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("black_id", ID, nullable=False, index=True),
        sa.Column("white_id", ID, nullable=False, index=True),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("handicap", sa.Integer(), nullable=False),
        sa.Column("black_points_start", sa.BigInteger(), nullable=False),
        sa.Column("white_points_start", sa.BigInteger(), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("ended", sa.Float(), nullable=True, index=True),
        sa.Column("winner", sa.String(8), nullable=True),
        sa.Column("reason", sa.String(16), nullable=True),
        sa.Column("moves", sa.Integer(), nullable=True),
        sa.Column("black_points_end", sa.BigInteger(), nullable=True),
        sa.Column("white_points_end", sa.BigInteger(), nullable=True),
    )


def _queue() -> None:
    op.create_table(
        "ladder_queue",
        sa.Column("player_id", ID, primary_key=True),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("options_key", sa.String(512), nullable=False),
        sa.Column("since", sa.Float(), nullable=False, index=True),
    )


def _grants() -> None:
    op.create_table(
        "ladder_grants",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("player_id", ID, nullable=False, index=True),
        sa.Column("yuan", sa.Integer(), nullable=False),
        sa.Column("points_before", sa.BigInteger(), nullable=False),
        sa.Column("points_after", sa.BigInteger(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("note", sa.String(200), nullable=False),
    )


def _challenges() -> None:
    op.create_table(
        "ladder_challenges",
        sa.Column("id", ID, primary_key=True),
        sa.Column("from_id", ID, nullable=False, index=True),
        sa.Column("to_id", ID, nullable=False, index=True),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(10), nullable=False, index=True),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("session_id", ID, nullable=True),
    )


TABLES = {
    "ladder_players": _players,
    "ladder_games": _games,
    "ladder_queue": _queue,
    "ladder_grants": _grants,
    "ladder_challenges": _challenges,
}


def upgrade() -> None:
    existing = set(sa.inspect(op.get_bind()).get_table_names())
    for name, create in TABLES.items():
        if name not in existing:
            create()


def downgrade() -> None:
    for name in reversed(list(TABLES)):
        op.drop_table(name)
