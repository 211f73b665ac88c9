"""The event log: what happened, per channel, for the live streams (``GET …/events``).

An event is a row of ``events`` keyed by (channel, id). It is written by :func:`publish` inside
the transaction of the change that causes it, so it exists exactly when the change is committed
(a rolled-back or lost compare-and-set leaves none), survives restarts, and every replica on the
same database can stream it. Channels are names: ``session:{id}`` (a session's moves, clocks,
seats, end: :mod:`serving.sessions.changes`), ``player:{id}`` (the ladder's ``match_found``,
``rank_change``). Kinds are free strings and data any JSON: nothing here depends on them.

Ids are 1, 2, 3, … per channel, taken from the channel's row of ``event_channels`` by one upsert
that locks the row until the transaction ends. Two transactions publishing to one channel are
thus serialised: ids commit in order, so a reader that has seen id n never sees a smaller id
appear later. (A transaction that publishes to several channels should take them in a fixed
order, e.g. sorted, so that two of them cannot deadlock on PostgreSQL.)

Wake-ups: a stream waits on :class:`Wakeups` rather than polling the table. A commit of this
process wakes the channel's subscribers at once (``after_commit`` on the sessions that
:meth:`EventLog.attach` watches). On PostgreSQL, commits of other processes or replicas wake
them at once too: every attached transaction that published queues a ``NOTIFY`` before it
commits, and each process listens (:mod:`serving.pg_listen`). Everywhere, and as the fallback
when a notification is missed (a listening connection that broke), :meth:`EventLog.poll_heads`
looks once every ``poll_seconds`` at the channels that have subscribers.

Retention: a closed channel (a finished session's) keeps its events ``retention_seconds`` after
it closed, then :meth:`EventLog.trim` deletes them; its row (last id, when it closed) stays, so
ids never repeat. Open channels keep every event.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    Float,
    MetaData,
    String,
    Table,
    bindparam,
    delete,
    event,
    insert,
    select,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from serving.periodic import Periodic
from serving.pg_listen import Listener, notify_at_commit

T = TypeVar("T")

log = logging.getLogger("qizero.serving")

MAX_CHANNEL = 160
MAX_KIND = 64
READ_LIMIT = 256  # events per read: a stream far behind catches up in batches
TRIM_EVERY = 3600.0  # seconds between trims
_PUBLISHED = "qizero.events.published"  # Session.info: channel -> last id published in it

metadata = MetaData()
channels = Table(
    "event_channels",
    metadata,
    Column("channel", String(MAX_CHANNEL), primary_key=True),
    Column("last_id", BigInteger, nullable=False),
    Column("closed", Float, nullable=True, index=True),
)
events = Table(
    "events",
    metadata,
    Column("channel", String(MAX_CHANNEL), primary_key=True),
    Column("id", BigInteger, primary_key=True, autoincrement=False),
    Column("kind", String(MAX_KIND), nullable=False),
    Column("data", JSON, nullable=False),
    Column("at", Float, nullable=False),
)

_UPSERTS = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}
# The reads every stream makes after every wake-up, built once (bound at each execution).
_HEAD = select(channels.c.last_id, channels.c.closed).where(
    channels.c.channel == bindparam("channel"))
_SINCE = (
    select(events.c.id, events.c.kind, events.c.data, events.c.at)
    .where(events.c.channel == bindparam("channel"), events.c.id > bindparam("after"),
           events.c.id <= bindparam("last"))
    .order_by(events.c.id)
    .limit(bindparam("limit"))
)


@dataclass(frozen=True)
class Event:
    """One committed event of a channel."""

    id: int
    kind: str
    data: Any
    at: float


@dataclass(frozen=True)
class Head:
    """Where a channel stands: its last id (0: none yet) and when it was closed."""

    last_id: int
    closed: float | None


@dataclass(frozen=True)
class Draft:
    """An event to publish with a change (handed to the transaction that commits it)."""

    channel: str
    kind: str
    data: Any
    at: float | None = None
    close: bool = False


def publish(
    tx: Session,
    channel: str,
    kind: str,
    data: Any,
    at: float | None = None,
    close: bool = False,
) -> int | None:
    """Append an event to ``channel`` inside ``tx``: it commits or rolls back with the change.

    Returns its id, or None when the channel is closed (then nothing is written). ``close``
    closes the channel after this event: streams end once they have read it. ``at`` is the
    event's time in seconds (default now). Subscribers of this process are woken when ``tx``
    commits if its sessionmaker is attached (:meth:`EventLog.attach`)."""
    if not 0 < len(channel) <= MAX_CHANNEL or not 0 < len(kind) <= MAX_KIND:
        raise ValueError(f"bad channel {channel!r} or kind {kind!r}")
    at = time.time() if at is None else at
    dialect = tx.get_bind().dialect.name
    upsert = _UPSERTS.get(dialect)
    if upsert is None:
        raise NotImplementedError(f"no event log on {dialect} (SQLite and PostgreSQL only)")
    c = channels.c
    stmt = (
        upsert(channels)
        .values(channel=channel, last_id=1, closed=at if close else None)
        .on_conflict_do_update(
            index_elements=[c.channel],
            set_={"last_id": c.last_id + 1, **({"closed": at} if close else {})},
            where=c.closed.is_(None),
        )
        .returning(c.last_id)
    )
    eid = tx.execute(stmt).scalar()
    if eid is None:
        return None
    tx.execute(insert(events).values(channel=channel, id=eid, kind=kind, data=data, at=at))
    tx.info.setdefault(_PUBLISHED, {})[channel] = eid
    return eid


def publish_all(tx: Session, drafts: Iterable[Draft]) -> None:
    """Publish each draft inside ``tx``, in order."""
    for d in drafts:
        publish(tx, d.channel, d.kind, d.data, d.at, d.close)


class Subscription:
    """One stream's interest in a channel: woken from any thread when it may have news."""

    def __init__(self, hub: Wakeups, channel: str) -> None:
        self.hub = hub
        self.channel = channel
        self._loop = asyncio.get_running_loop()
        self._flag = asyncio.Event()

    def wake(self) -> None:
        try:
            self._loop.call_soon_threadsafe(self._flag.set)
        except RuntimeError:  # the event loop is closed: nobody waits any more
            pass

    def clear(self) -> None:
        """Forget earlier wake-ups (call before reading, so none during the read is lost)."""
        self._flag.clear()

    async def wait(self, timeout: float) -> bool:
        """Wait for a wake-up; False after ``timeout`` seconds without one."""
        try:
            await asyncio.wait_for(self._flag.wait(), max(timeout, 0.0))
            return True
        except TimeoutError:
            return False

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.hub.unsubscribe(self)


class Wakeups:
    """This process's subscribers per channel, and the last id each channel is known to have."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subs: dict[str, set[Subscription]] = {}
        self._known: dict[str, int] = {}
        self.closed = False

    def subscribe(self, channel: str) -> Subscription:
        """A subscription (in the running event loop); leave it with ``with`` or unsubscribe."""
        sub = Subscription(self, channel)
        with self._lock:
            self._subs.setdefault(channel, set()).add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            subs = self._subs.get(sub.channel)
            if subs is not None:
                subs.discard(sub)
                if not subs:
                    del self._subs[sub.channel]
                    self._known.pop(sub.channel, None)

    def subscribers(self) -> int:
        """How many subscriptions (open streams) this process has (the metrics)."""
        with self._lock:
            return sum(len(subs) for subs in self._subs.values())

    def watched(self) -> dict[str, int]:
        """The channels with subscribers and the last id known of each (0: none known)."""
        with self._lock:
            return {ch: self._known.get(ch, 0) for ch in self._subs}

    def notify(self, channel: str, last_id: int) -> None:
        """``channel`` has events up to ``last_id``: wake its subscribers (any thread)."""
        with self._lock:
            subs = self._subs.get(channel)
            if not subs or last_id <= self._known.get(channel, 0):
                return
            self._known[channel] = last_id
            subs = list(subs)
        for sub in subs:
            sub.wake()

    def close(self) -> None:
        """Wake every subscriber for the last time: the service is stopping."""
        self.closed = True
        with self._lock:
            subs = [s for group in self._subs.values() for s in group]
        for sub in subs:
            sub.wake()


class EventLog:
    """The event log of one database: reads, wake-ups, the poll for other replicas, trimming.

    ``clock`` gives the time for trimming (tests pass a fake one)."""

    def __init__(
        self,
        engine: Engine,
        poll_seconds: float = 1.0,
        retention_seconds: float = 7 * 86_400.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.engine = engine
        self.poll_seconds = poll_seconds
        self.retention_seconds = retention_seconds
        self.clock = clock
        self.wakeups = Wakeups()
        self._sessions = sessionmaker(engine)
        self.attach(self._sessions)
        self._upkeep = Periodic("qizero-events", poll_seconds, self._upkeep_tick)
        self._next_trim = 0.0
        self.listener: Listener | None = None
        if engine.dialect.name == "postgresql":
            self.listener = Listener(engine.url, self.wakeups.notify, self._poll_quietly)

    # ------------------------------------------------------------------ writing
    def attach(self, maker: sessionmaker) -> None:
        """Wake this process's subscribers when a transaction of ``maker`` that published
        commits (the session store's, and :meth:`transaction`'s)."""
        event.listen(maker, "after_commit", self._after_commit)
        event.listen(maker, "after_rollback", lambda s: s.info.pop(_PUBLISHED, None))
        if self.engine.dialect.name == "postgresql":  # other replicas hear of it at commit
            event.listen(maker, "before_commit",
                         lambda s: notify_at_commit(s, s.info.get(_PUBLISHED, {})))

    def _after_commit(self, session: Session) -> None:
        for channel, eid in session.info.pop(_PUBLISHED, {}).items():
            self.wakeups.notify(channel, eid)

    def transaction(self) -> Any:
        """``with log.transaction() as tx:`` a transaction to change things and
        :func:`publish` in (for modules with tables of their own, such as the ladder)."""
        return self._sessions.begin()

    def publish_now(
        self, channel: str, kind: str, data: Any, at: float | None = None
    ) -> int | None:
        """Publish in a transaction of its own (an event that goes with no stored change)."""
        with self._sessions.begin() as tx:
            return publish(tx, channel, kind, data, at)

    # ------------------------------------------------------------------ reading
    def head(self, channel: str) -> Head:
        with self.engine.connect() as conn:
            return self._head(conn, channel)

    @staticmethod
    def _head(conn: Any, channel: str) -> Head:
        row = conn.execute(_HEAD, {"channel": channel}).first()
        return Head(int(row.last_id), row.closed) if row is not None else Head(0, None)

    def since(self, channel: str, after: int, limit: int = READ_LIMIT) -> tuple[Head, list[Event]]:
        """The channel's head and its events after id ``after`` (at most ``limit``)."""
        with self.engine.connect() as conn:
            head = self._head(conn, channel)
            if head.last_id <= after:
                return head, []
            rows = conn.execute(
                _SINCE, {"channel": channel, "after": after, "last": head.last_id, "limit": limit})
            return head, [Event(int(r.id), r.kind, r.data, r.at) for r in rows]

    def snapshot(self, channel: str, read: Callable[[], T]) -> tuple[int, T]:
        """``read()`` and the id of the last event of ``channel`` it reflects: a stream's first
        message. The last id is read before and after; if an event came between, ``read()``
        runs again (a few times; then the events after the id carry what changed)."""
        for _ in range(5):
            last = self.head(channel).last_id
            value = read()
            if self.head(channel).last_id == last:
                break
        return last, value

    # ------------------------------------------------------------------ upkeep
    def trim(self, now: float | None = None) -> int:
        """Delete the events of channels closed more than ``retention_seconds`` ago."""
        cutoff = (self.clock() if now is None else now) - self.retention_seconds
        c = channels.c
        old = select(c.channel).where(c.closed.is_not(None), c.closed < cutoff)
        with self._sessions.begin() as tx:
            return tx.execute(delete(events).where(events.c.channel.in_(old))).rowcount

    def poll_heads(self) -> None:
        """Wake the watched channels whose last id moved (commits of other processes that no
        notification told of: on SQLite, or while a listening connection was down)."""
        watched = self.wakeups.watched()
        names = list(watched)
        c = channels.c
        for i in range(0, len(names), 500):
            with self.engine.connect() as conn:
                rows = conn.execute(
                    select(c.channel, c.last_id).where(c.channel.in_(names[i : i + 500]))
                ).all()
            for channel, last_id in rows:
                if last_id > watched[channel]:
                    self.wakeups.notify(channel, int(last_id))

    def _poll_quietly(self) -> None:
        try:
            self.poll_heads()
        except Exception:  # noqa: BLE001  the upkeep thread polls again
            log.exception("event poll failed")

    def start(self) -> None:
        """Start listening (PostgreSQL) and the thread that polls for other processes' events
        and trims old ones."""
        if self.listener is not None:
            self.listener.start()
        self._upkeep.start()

    def close(self) -> None:
        self.wakeups.close()
        if self.listener is not None:
            self.listener.close()
        self._upkeep.close()

    def _upkeep_tick(self) -> None:
        self.poll_heads()
        if time.monotonic() >= self._next_trim:
            self._next_trim = time.monotonic() + TRIM_EVERY
            self.trim()
