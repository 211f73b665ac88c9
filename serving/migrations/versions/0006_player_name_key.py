"""Ladder player names unique regardless of case: ``ladder_players.name_key`` (the name's
NFKC_Casefold, :func:`serving.ladder.names.name_key`) under a unique index, so the database
itself refuses ``lin`` beside ``Lin``, on SQLite and PostgreSQL alike.

Rows from before get their key computed here (with a copy of the function as it is now, so this
revision means the same whatever the code becomes). Where two existing names share a key, the
player registered first keeps the plain key and the others get ``<key>#<id>``: no name is
changed or lost, and no new player can take any of them.

Revision ID: 0006_player_name_key
Revises: 0005_rate_limits
"""

from __future__ import annotations

import unicodedata

import sqlalchemy as sa
from alembic import op

revision = "0006_player_name_key"
down_revision = "0005_rate_limits"
branch_labels = None
depends_on = None


def _key(name: str) -> str:
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join(folded.split())[:110]


def upgrade() -> None:
    op.add_column("ladder_players", sa.Column("name_key", sa.String(128), nullable=True))
    conn = op.get_bind()
    players = sa.table("ladder_players", sa.column("id", sa.String), sa.column("name", sa.String),
                       sa.column("created", sa.Float), sa.column("name_key", sa.String))
    taken: set[str] = set()
    rows = conn.execute(sa.select(players.c.id, players.c.name)
                        .order_by(players.c.created, players.c.id)).all()
    for pid, name in rows:
        key = _key(name)
        if key in taken:
            key = f"{key}#{pid}"
        taken.add(key)
        conn.execute(players.update().where(players.c.id == pid).values(name_key=key))
    with op.batch_alter_table("ladder_players") as batch:
        batch.alter_column("name_key", existing_type=sa.String(128), nullable=False)
        batch.create_index("ix_ladder_players_name_key", ["name_key"], unique=True)


def downgrade() -> None:
    with op.batch_alter_table("ladder_players") as batch:
        batch.drop_index("ix_ladder_players_name_key")
        batch.drop_column("name_key")
