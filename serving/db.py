"""Persistence through SQLAlchemy: one ``sessions`` table, SQLite file or PostgreSQL.

A session is stored as its move list (``games``: one list of events per game of a match) plus
its seats, token hashes and timer; the state is never stored, it is rebuilt by replaying the
moves through the rules. Every write is a compare-and-set on ``version`` inside one
transaction, committed before the service answers, so two conflicting writes cannot both win
and an acknowledged move survives a crash. The events a write causes (:mod:`serving.events`) are
published inside that same transaction: a write and its events commit together or not at all.

Other tables (the ranking ladder's, :mod:`serving.ladder.store`) share ``Base``, the engine and
the event log. What must change together with a session's write (a ladder game's rating with
the result that causes it) is a *commit hook*: it runs inside the compare-and-set's
transaction, after the session row is written, so both commit or neither does.

Two columns are derived, written with every commit so that pollers find work with one indexed
query instead of replaying sessions: ``ai_turn`` (an AI seat is to move) and ``deadline`` (when
the running clock's time is up). The tables are created and changed by the Alembic migrations
(:mod:`serving.schema`), never by ``create_all``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Float,
    Integer,
    String,
    create_engine,
    event,
    false,
    select,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

from serving.events import Draft, EventLog, publish_all


class Base(DeclarativeBase):
    pass


class SessionRow(Base):
    __tablename__ = "sessions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    game: Mapped[str] = mapped_column(String(64))
    config: Mapped[dict[str, Any]] = mapped_column(JSON)
    seats: Mapped[dict[str, Any]] = mapped_column(JSON)
    owner_hash: Mapped[str] = mapped_column(String(64))
    seat_hashes: Mapped[dict[str, str]] = mapped_column(JSON)
    games: Mapped[list[Any]] = mapped_column(JSON)
    pending: Mapped[list[Any]] = mapped_column(JSON)
    extras: Mapped[dict[str, Any]] = mapped_column(JSON)
    version: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), index=True)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    confirm_turns: Mapped[int] = mapped_column(Integer)
    match_games: Mapped[int] = mapped_column(Integer)
    turn_seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    turn_started: Mapped[float | None] = mapped_column(Float, nullable=True)
    created: Mapped[float] = mapped_column(Float)
    updated: Mapped[float] = mapped_column(Float)
    ai_turn: Mapped[bool] = mapped_column(
        Boolean, index=True, default=False, server_default=false()
    )
    deadline: Mapped[float | None] = mapped_column(Float, nullable=True, index=True)


@dataclass
class SessionData:
    """A plain, detached copy of one row (what the session manager works on)."""

    id: str
    game: str
    config: dict[str, Any]
    seats: dict[str, Any]
    owner_hash: str
    seat_hashes: dict[str, str]
    games: list[list[dict[str, Any]]]
    pending: list[str]
    extras: dict[str, Any]
    version: int
    status: str
    result: dict[str, Any] | None
    confirm_turns: bool
    match_games: int
    turn_seconds: float | None
    turn_started: float | None
    created: float
    updated: float
    # Derived from the rest at each commit (serving.sessions.persistence): who must act next.
    ai_turn: bool = False
    deadline: float | None = None

    def copy(self) -> SessionData:
        return copy.deepcopy(self)

    @property
    def events(self) -> list[dict[str, Any]]:
        """Events of the game in progress (the last game of the match)."""
        return self.games[-1]


_FIELDS = [f.name for f in fields(SessionData)]


def _to_data(row: SessionRow) -> SessionData:
    values = {name: copy.deepcopy(getattr(row, name)) for name in _FIELDS}
    values["confirm_turns"] = bool(values["confirm_turns"])
    values["ai_turn"] = bool(values["ai_turn"])
    return SessionData(**values)


def _to_values(data: SessionData) -> dict[str, Any]:
    values = {name: copy.deepcopy(getattr(data, name)) for name in _FIELDS}
    values["confirm_turns"] = int(data.confirm_turns)
    return values


#: Runs inside a session write's transaction, after the row is written: may write other tables
#: (and publish events) through the ORM session, and may change ``data.extras`` (return True:
#: it is written too).
CommitHook = Callable[[Session, "SessionData"], bool]


class SessionStore:
    """Load, insert and compare-and-set sessions; the event log on the same database, made by
    ``events`` (e.g. a ``functools.partial`` of :class:`serving.events.EventLog` with its
    settings)."""

    def __init__(self, url: str, events: Callable[[Engine], EventLog] = EventLog) -> None:
        self.url = url
        kwargs: dict[str, Any] = {"future": True}
        if url.startswith("sqlite"):
            path = url.split("///", 1)[-1]
            if path and path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
        else:
            kwargs["pool_pre_ping"] = True
        self.engine: Engine = create_engine(url, **kwargs)
        if url.startswith("sqlite"):
            event.listen(self.engine, "connect", _sqlite_pragmas)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        self.events = events(self.engine)
        self.events.attach(self._sessions)
        self.commit_hooks: list[CommitHook] = []

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """One transaction (committed on leaving, rolled back on an exception); events
        published in it wake this process's streams when it commits."""
        with self._sessions.begin() as s:
            yield s

    def reader(self) -> Session:
        """An ORM session for reads (``with store.reader() as s``)."""
        return self._sessions()

    def close(self) -> None:
        self.events.close()
        self.engine.dispose()

    def load(self, session_id: str) -> SessionData | None:
        with self._sessions() as s:
            row = s.get(SessionRow, session_id)
            return _to_data(row) if row is not None else None

    def insert(self, data: SessionData) -> None:
        with self._sessions.begin() as s:
            self.add(s, data)

    @staticmethod
    def add(s: Session, data: SessionData) -> None:
        """Insert a new session in the caller's transaction ``s``."""
        s.add(SessionRow(**_to_values(data)))

    def compare_and_set(
        self, data: SessionData, expected_version: int, drafts: Sequence[Draft] = ()
    ) -> bool:
        """Write ``data`` if the stored version is still ``expected_version``, and publish
        ``drafts`` in the same transaction (committed; nothing is published on a lost race),
        with whatever the commit hooks write."""
        values = _to_values(data)
        values.pop("id")
        with self._sessions.begin() as s:
            res = s.execute(
                update(SessionRow)
                .where(SessionRow.id == data.id, SessionRow.version == expected_version)
                .values(**values)
            )
            if res.rowcount != 1:
                return False
            publish_all(s, drafts)
            changed = [hook(s, data) for hook in self.commit_hooks]
            if any(changed):
                s.execute(
                    update(SessionRow)
                    .where(SessionRow.id == data.id)
                    .values(extras=copy.deepcopy(data.extras))
                )
            return True

    def set_schedule(self, sid: str, version: int, ai_turn: bool, deadline: float | None) -> None:
        """Correct the derived columns of version ``version`` (rows written before they
        existed carry a guess); no new version, nothing else changes."""
        with self._sessions.begin() as s:
            s.execute(
                update(SessionRow)
                .where(SessionRow.id == sid, SessionRow.version == version)
                .values(ai_turn=ai_turn, deadline=deadline)
            )

    def ai_turn(self, sid: str) -> tuple[int, bool] | None:
        """The version and whether an AI seat is to move, without loading the session."""
        with self._sessions() as s:
            row = s.execute(
                select(SessionRow.version, SessionRow.ai_turn).where(SessionRow.id == sid)
            ).first()
            return (row.version, bool(row.ai_turn)) if row is not None else None


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    # WAL: readers never block the writer; synchronous=FULL: a committed move is on disk.
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=FULL")
    cur.close()
