"""Driver leases: which replica acts on a session by itself (its AI seats, its clock).

Several ``qizero serve`` replicas share one database. Writes need no coordination (each is a
compare-and-set on the session's version), but the work nobody asks for does: searching an AI
seat's move, applying a time-out when nobody looks. A replica does such work on a session only
while it holds the session's *lease*: a row of ``session_leases`` naming the holder and an
expiry, taken with one atomic upsert (free, expired, or already ours), renewed while the work
goes on and deleted when it is done. A replica that dies stops renewing; once the expiry
passes, any other replica's poller takes the session over.

Why a lease row rather than PostgreSQL advisory locks or ``SELECT … FOR UPDATE SKIP LOCKED``:
it is the only one of the three that works the same on SQLite (the embedded single-process
default) and PostgreSQL; it needs no connection held open per session (an advisory lock lives
as long as one connection, a row lock as long as one transaction, and an AI search can take
seconds); its state can be read by anyone (``ai_thinking`` on every replica) and it records a
failure (``error`` at ``error_version``) so a broken AI seat is not retried by every poller.
Expiry is measured by the database server's clock (:class:`db_now`), so replicas' clocks need
not agree. A lease is not a fence: a holder that stalls past its expiry may still finish its
move, and the compare-and-set on the version is what keeps every move made exactly once.

Every lease statement runs alone in autocommit (no row lock held while Python gets back to
send COMMIT), and on PostgreSQL on connections of their own with ``synchronous_commit`` off:
a lease write lost in a database crash is one that would have expired anyway, so none of them
waits for the WAL flush that a session's write waits for.
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Float,
    Integer,
    String,
    Text,
    and_,
    create_engine,
    delete,
    event,
    func,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import CompileError
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.sql.functions import FunctionElement

from serving.db import Base, SessionRow

CHUNK = 500  # ids per IN (...) list


class LeaseRow(Base):
    __tablename__ = "session_leases"

    session_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    holder: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)
    expires: Mapped[float] = mapped_column(Float)  # seconds since the epoch, database clock
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    error_version: Mapped[int | None] = mapped_column(Integer, nullable=True)


class db_now(FunctionElement):  # noqa: N801  (reads like the SQL function it stands for)
    """The database server's time in seconds since the epoch (one clock for every replica)."""

    type = Float()
    inherit_cache = True


@compiles(db_now, "postgresql")
def _now_postgresql(element: Any, compiler: Any, **kw: Any) -> str:
    return "EXTRACT(EPOCH FROM clock_timestamp())::float8"


@compiles(db_now, "sqlite")
def _now_sqlite(element: Any, compiler: Any, **kw: Any) -> str:
    return "((julianday('now') - 2440587.5) * 86400.0)"


@compiles(db_now)
def _now_other(element: Any, compiler: Any, **kw: Any) -> str:
    raise CompileError("leases need SQLite or PostgreSQL")


_UPSERT = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}


def new_holder_id() -> str:
    """This process's name as a lease holder: host, pid and a random tail (a restarted
    process with the same pid is another holder)."""
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{secrets.token_hex(4)}"


@dataclass(frozen=True)
class LeaseState:
    """What a session's lease row says (for the session's view)."""

    live: bool  # held and not expired: some replica is working on the session
    error: str | None
    error_version: int | None


def _no_wal_wait(dbapi_conn: Any, _record: Any) -> None:
    with dbapi_conn.cursor() as cur:
        cur.execute("SET synchronous_commit TO off")


class Leases:
    """The SQL of the lease table for one holder (this process)."""

    def __init__(self, engine: Engine, holder: str, ttl: float) -> None:
        dialect = engine.dialect.name
        if dialect not in _UPSERT:
            raise ValueError(f"leases need SQLite or PostgreSQL, not {dialect}")
        self._own = dialect == "postgresql"
        if self._own:
            self.engine = create_engine(
                engine.url, isolation_level="AUTOCOMMIT", pool_pre_ping=True, pool_size=4,
                max_overflow=16,
            )
            event.listen(self.engine, "connect", _no_wal_wait)
        else:
            self.engine = engine.execution_options(isolation_level="AUTOCOMMIT")
        self.holder = holder
        self.ttl = ttl
        self._upsert = _UPSERT[dialect]

    def close(self) -> None:
        if self._own:
            self.engine.dispose()

    def _conn(self) -> Connection:
        return self.engine.connect()

    def acquire(self, sid: str) -> bool:
        """Take (or keep) the lease of ``sid`` if it is free, expired or ours."""
        row = LeaseRow.__table__.c
        stmt = self._upsert(LeaseRow).values(
            session_id=sid, holder=self.holder, expires=db_now() + self.ttl
        )
        stmt = stmt.on_conflict_do_update(
            index_elements=[row.session_id],
            set_={"holder": self.holder, "expires": db_now() + self.ttl},
            where=or_(row.holder == self.holder, row.holder.is_(None), row.expires < db_now()),
        ).returning(row.session_id)
        with self._conn() as conn:
            return conn.execute(stmt).first() is not None

    def renew(self, sids: Iterable[str]) -> set[str]:
        """Push back the expiry of our leases among ``sids``; returns those still ours."""
        ids, kept = list(sids), set()
        with self._conn() as conn:
            for i in range(0, len(ids), CHUNK):
                res = conn.execute(
                    update(LeaseRow)
                    .where(LeaseRow.holder == self.holder,
                           LeaseRow.session_id.in_(ids[i : i + CHUNK]))
                    .values(expires=db_now() + self.ttl)
                    .returning(LeaseRow.session_id)
                )
                kept.update(res.scalars())
        return kept

    def release(self, sid: str) -> None:
        with self._conn() as conn:
            conn.execute(
                delete(LeaseRow).where(LeaseRow.session_id == sid, LeaseRow.holder == self.holder)
            )

    def release_all(self) -> None:
        with self._conn() as conn:
            conn.execute(delete(LeaseRow).where(LeaseRow.holder == self.holder))

    def fail(self, sid: str, version: int, message: str) -> None:
        """Give the lease up recording why the AI seat cannot move at ``version``: no poller
        retries it until the session changes, and every replica shows the error."""
        with self._conn() as conn:
            conn.execute(
                update(LeaseRow)
                .where(LeaseRow.session_id == sid, LeaseRow.holder == self.holder)
                .values(holder=None, expires=0.0, error=message[:2000], error_version=version)
            )

    def state(self, sid: str) -> LeaseState:
        with self._conn() as conn:
            row = conn.execute(
                select(
                    and_(LeaseRow.holder.is_not(None), LeaseRow.expires > db_now()).label("live"),
                    LeaseRow.error,
                    LeaseRow.error_version,
                ).where(LeaseRow.session_id == sid)
            ).first()
        if row is None:
            return LeaseState(False, None, None)
        return LeaseState(bool(row.live), row.error, row.error_version)

    def claimable(self, now: float, limit: int) -> list[str]:
        """Sessions this replica should take up (in random order, so replicas spread out):
        a clock due by ``now`` (the service clock) whose lease is free or ours, or an AI seat
        to move whose lease is free (its holder finished, died or never came) and that did not
        fail at this version."""
        s, lease = SessionRow, LeaseRow
        free = or_(lease.session_id.is_(None), lease.holder.is_(None), lease.expires < db_now())
        due = and_(s.deadline <= now, or_(free, lease.holder == self.holder))
        orphan = and_(
            s.ai_turn.is_(True),
            free,
            or_(lease.error_version.is_(None), lease.error_version != s.version),
        )
        q = (
            select(s.id)
            .outerjoin(lease, lease.session_id == s.id)
            .where(s.status == "playing", or_(due, orphan))
            .order_by(func.random())
            .limit(limit)
        )
        with self._conn() as conn:
            return list(conn.scalars(q))
