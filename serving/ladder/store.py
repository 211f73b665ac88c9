"""The ladder's tables (players, ladder games, the queue, membership grants) beside the
``sessions`` table: the same ``Base`` and engine (:mod:`serving.db`), SQLite or PostgreSQL,
made by the migrations like every table (:mod:`serving.schema`).

Why row locks by touching: the ladder reads a player, decides with the pure rules
(:mod:`serving.ladder.rules`) and writes the result, and two of those must never interleave
(an AI level ends two games at once; a player queues while being paired). :func:`lock_players`
bumps each player row's ``lock`` column in id order before anything is read: on PostgreSQL
that takes the row locks (in one order everywhere, so no deadlock), on SQLite the first write
of a transaction takes the database's write lock, so every later read in the transaction sees
the latest committed data and no other writer can come between.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Float,
    Integer,
    String,
    and_,
    or_,
    select,
    update,
)
from sqlalchemy.orm import Mapped, Session, mapped_column

from serving.db import Base


class PlayerRow(Base):
    """A ladder player: a person (with an API token) or an AI level."""

    __tablename__ = "ladder_players"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    # serving.ladder.names.name_key(name): names are unique regardless of case, in the database
    name_key: Mapped[str] = mapped_column(String(128), unique=True, index=True)
    kind: Mapped[str] = mapped_column(String(8))  # human | ai
    token_hash: Mapped[str | None] = mapped_column(String(64), unique=True, nullable=True)
    points: Mapped[int] = mapped_column(BigInteger, default=0)
    rated_games: Mapped[int] = mapped_column(Integer, default=0)
    rated_wins: Mapped[int] = mapped_column(Integer, default=0)
    rated_losses: Mapped[int] = mapped_column(Integer, default=0)
    rated_draws: Mapped[int] = mapped_column(Integer, default=0)
    friendly_games: Mapped[int] = mapped_column(Integer, default=0)
    # points received other than by playing: membership grants, an AI level's calibrated start
    granted: Mapped[int] = mapped_column(BigInteger, default=0)
    last_result: Mapped[str | None] = mapped_column(String(8), nullable=True)
    # AI levels: the level table's options key ("" default options, "baseline") and level id
    ai_key: Mapped[str | None] = mapped_column(String(256), nullable=True)
    ai_level: Mapped[str | None] = mapped_column(String(64), nullable=True)
    ai_options: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # the level's fingerprint when its points were last set from the ladder bench's measurement
    # (serving.ladder.ai_players.fingerprint): another strength under the same id is seen
    ai_fingerprint: Mapped[str | None] = mapped_column(String(64), nullable=True)
    lock: Mapped[int] = mapped_column(Integer, default=0)
    created: Mapped[float] = mapped_column(Float)


class LadderGameRow(Base):
    """A game of the ladder: made when two players are paired, finished (and rated) in the
    transaction that ends its session, deleted when it turns out invalid (no record)."""

    __tablename__ = "ladder_games"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    session_id: Mapped[str] = mapped_column(String(64), unique=True)
    status: Mapped[str] = mapped_column(String(8), index=True)  # playing | done
    # rated | friendly (fixed at the start); unrated: a rated game the repeat rule took out
    kind: Mapped[str] = mapped_column(String(10))
    black_id: Mapped[str] = mapped_column(String(64), index=True)
    white_id: Mapped[str] = mapped_column(String(64), index=True)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    handicap: Mapped[int] = mapped_column(Integer, default=0)
    black_points_start: Mapped[int] = mapped_column(BigInteger)
    white_points_start: Mapped[int] = mapped_column(BigInteger)
    created: Mapped[float] = mapped_column(Float)
    ended: Mapped[float | None] = mapped_column(Float, nullable=True, index=True)
    winner: Mapped[str | None] = mapped_column(String(8), nullable=True)  # black | white
    reason: Mapped[str | None] = mapped_column(String(16), nullable=True)
    moves: Mapped[int | None] = mapped_column(Integer, nullable=True)
    black_points_end: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    white_points_end: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    # the repeat rule (serving.ladder.farming): the game's first plies, and why a rated game
    # against an AI level was not rated (kind "unrated")
    opening: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    unrated_reason: Mapped[str | None] = mapped_column(String(200), nullable=True)


class QueueRow(Base):
    """A player waiting to be paired (one row per player: queueing twice is a conflict)."""

    __tablename__ = "ladder_queue"

    player_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    options_key: Mapped[str] = mapped_column(String(512))
    since: Mapped[float] = mapped_column(Float, index=True)


class GrantRow(Base):
    """One membership grant, kept for the record (who got how much, when, why)."""

    __tablename__ = "ladder_grants"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[str] = mapped_column(String(64), index=True)
    yuan: Mapped[int] = mapped_column(Integer)
    points_before: Mapped[int] = mapped_column(BigInteger)
    points_after: Mapped[int] = mapped_column(BigInteger)
    at: Mapped[float] = mapped_column(Float)
    note: Mapped[str] = mapped_column(String(200), default="")


class ChallengeRow(Base):
    """One player's challenge to another: open until accepted, declined or withdrawn."""

    __tablename__ = "ladder_challenges"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    from_id: Mapped[str] = mapped_column(String(64), index=True)
    to_id: Mapped[str] = mapped_column(String(64), index=True)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(10), index=True)  # open accepted declined ...
    created: Mapped[float] = mapped_column(Float)
    session_id: Mapped[str | None] = mapped_column(String(64), nullable=True)


class PresenceRow(Base):
    """A ladder player's presence in one of their games (:mod:`serving.ladder.presence`):
    whether a stream of theirs follows it, how often they left it, since when they are away
    and, from the fourth disconnection on, when the absence loses the game on time."""

    __tablename__ = "ladder_presence"

    session_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    seat: Mapped[str] = mapped_column(String(16), primary_key=True)
    present: Mapped[bool] = mapped_column(Boolean, default=False)
    disconnections: Mapped[int] = mapped_column(Integer, default=0)
    absent_since: Mapped[float | None] = mapped_column(Float, nullable=True)
    loses_at: Mapped[float | None] = mapped_column(Float, nullable=True, index=True)


class StreamRow(Base):
    """One open event stream that a ladder player authenticated in their game, kept alive by
    its process's heartbeat (``seen``): a row whose heartbeat stopped belongs to a process
    that died, and is swept by any other."""

    __tablename__ = "ladder_streams"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    session_id: Mapped[str] = mapped_column(String(64), index=True)
    seat: Mapped[str] = mapped_column(String(16))
    seen: Mapped[float] = mapped_column(Float, index=True)


def lock_players(s: Session, ids: Iterable[str]) -> dict[str, PlayerRow]:
    """Lock the players' rows for this transaction (id order) and load them fresh."""
    ids = sorted(set(ids))
    for pid in ids:
        s.execute(update(PlayerRow).where(PlayerRow.id == pid)
                  .values(lock=PlayerRow.lock + 1))
    rows = s.scalars(
        select(PlayerRow).where(PlayerRow.id.in_(ids)).execution_options(populate_existing=True)
    )
    return {row.id: row for row in rows}


def active_games(s: Session, player_id: str) -> list[LadderGameRow]:
    """The player's ladder games still being played, newest first."""
    return list(s.scalars(
        select(LadderGameRow)
        .where(LadderGameRow.status == "playing",
               or_(LadderGameRow.black_id == player_id, LadderGameRow.white_id == player_id))
        .order_by(LadderGameRow.created.desc())
    ))


def last_meetings(s: Session, a: str, b: str, but: str, n: int) -> list[LadderGameRow]:
    """The last ``n`` recorded games between ``a`` and ``b`` (either colours), newest first,
    leaving out game ``but`` (the one being rated)."""
    return list(s.scalars(
        select(LadderGameRow)
        .where(LadderGameRow.status == "done", LadderGameRow.id != but,
               or_(and_(LadderGameRow.black_id == a, LadderGameRow.white_id == b),
                   and_(LadderGameRow.black_id == b, LadderGameRow.white_id == a)))
        .order_by(LadderGameRow.ended.desc(), LadderGameRow.id.desc())
        .limit(n)
    ))


def last_meeting_black(s: Session, a: str, b: str) -> str | None:
    """Who had Black in the last recorded game between ``a`` and ``b`` (None: never met)."""
    row = s.scalars(
        select(LadderGameRow)
        .where(LadderGameRow.status == "done",
               or_(and_(LadderGameRow.black_id == a, LadderGameRow.white_id == b),
                   and_(LadderGameRow.black_id == b, LadderGameRow.white_id == a)))
        .order_by(LadderGameRow.ended.desc(), LadderGameRow.id.desc())
        .limit(1)
    ).first()
    return row.black_id if row is not None else None
