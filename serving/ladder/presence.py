"""Presence in ladder games and the disconnection rule (``docs/rules/ladder.md``, "Disconnections").

A player **is present** in a ladder game while at least one event stream of the game
(``GET /v1/sessions/{id}/events``) authenticated with their own token is open; a
**disconnection** is the moment their last such stream closes; they **return** when one opens
again. From the fourth disconnection on, an absence longer than the byo-yomi the player had
left when it began loses the game on time, whoever is to move
(:func:`serving.ladder.rules.absence_loses_at`); :mod:`serving.sessions.timeouts` applies it
with the clocks, in time order, whenever the session is loaded. A stream without a token, or
with a token that is no seat's of this game, is a spectator's and counts for nobody.

Restarts and replicas: the facts live in the database, so the replica that holds a player's
stream and the one that applies their loss see the same ones. ``ladder_presence`` has a row
per game and seat (present, disconnections, absent since, loses at); ``ladder_streams`` a row
per open stream. A stream opening or closing is one transaction that locks the seat's presence
row first and then counts the seat's live streams on every replica, so two replicas closing a
player's last two streams at once count one disconnection. Each process refreshes its own
streams' heartbeat (``seen``) every ``heartbeat`` seconds; a stream row whose heartbeat is
older than ``stale`` seconds belongs to a process that died or stopped, and any process sweeps
it: when it was the seat's last stream, that is a disconnection, timed when it is noticed. A
restart is thus no disconnection for a client that reconnects within ``stale`` seconds (an
EventSource does within two), and a crash is one for a client that does not. A process that
is stopping leaves its rows to that sweep instead of counting its own streams' end against
the players.

Every change is told on the game's channel (``session:{id}``) in its own transaction: a
``presence`` event ``{"seat", "player", "present", "disconnections", "absent_since",
"loses_at", "version"}``; the session's view shows the same per seat in ``ladder.presence``.
"""

from __future__ import annotations

import logging
import secrets
import threading
from typing import Any

import anyio
from sqlalchemy import delete, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from serving.clocks import ByoYomi, Clock, time_control
from serving.db import SessionData, SessionRow, SessionStore
from serving.events import publish
from serving.ladder import rules
from serving.ladder.store import PresenceRow, StreamRow
from serving.periodic import Periodic
from serving.sessions.changes import channel
from serving.sessions.manager import SessionManager
from serving.sessions.tokens import token_seat

log = logging.getLogger("qizero.serving")

CHUNK = 500  # stream ids per IN (...) list
_INSERTS = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}


def facts(player: str, row: PresenceRow | None) -> dict[str, Any]:
    """A seat's presence as clients see it (no row yet: never connected)."""
    return {
        "player": player,
        "present": bool(row.present) if row else False,
        "disconnections": row.disconnections if row else 0,
        "absent_since": row.absent_since if row else None,
        "loses_at": row.loses_at if row else None,
    }


def _lock(s: Session, sid: str, seat: str) -> PresenceRow:
    """The seat's presence row, made if missing and locked until ``s`` commits (PostgreSQL:
    the row lock; SQLite: the insert is the transaction's first write, which takes the
    database's write lock), so its facts change one transaction at a time."""
    insert = _INSERTS[s.get_bind().dialect.name]
    s.execute(insert(PresenceRow).values(session_id=sid, seat=seat, present=False,
                                         disconnections=0).on_conflict_do_nothing())
    return s.scalars(
        select(PresenceRow)
        .where(PresenceRow.session_id == sid, PresenceRow.seat == seat)
        .with_for_update()
        .execution_options(populate_existing=True)
    ).one()


class Presence:
    """This process's authenticated streams of ladder games, the transactions that record
    them, and the thread that keeps their heartbeat, sweeps dead processes' streams and
    drives the games whose absence has run out."""

    def __init__(self, store: SessionStore, sessions: SessionManager, clock: Clock,
                 heartbeat: float, stale: float) -> None:
        self.store = store
        self.sessions = sessions
        self.clock = clock
        self.stale = stale
        self.stopping = False
        self._mine: dict[str, tuple[str, str]] = {}  # stream id -> (session id, seat)
        self._lock = threading.Lock()
        self._thread = Periodic("qizero-presence", heartbeat, self.tick)

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        """Stop: the streams still open are left to the other processes' sweep."""
        self.stopping = True
        self._thread.close()

    # ------------------------------------------------------------------ reading
    def load(self, data: SessionData) -> dict[str, dict[str, Any]] | None:
        """The presence of a ladder game's human players by seat (None: not a ladder game)."""
        if "ladder" not in data.extras:
            return None
        seats = {seat: cfg["player"] for seat, cfg in data.seats.items()
                 if cfg.get("player") and cfg["type"] == "human"}
        with self.store.reader() as s:
            rows = {r.seat: r for r in s.scalars(
                select(PresenceRow).where(PresenceRow.session_id == data.id))}
        return {seat: facts(player, rows.get(seat)) for seat, player in seats.items()}

    @staticmethod
    def seat_for(data: SessionData, token: str | None) -> str | None:
        """The seat whose presence a stream with ``token`` shows: a human player's seat of a
        ladder game still on, and the token that player's own (None: a spectator)."""
        if "ladder" not in data.extras or data.status == "over":
            return None
        seat = token_seat(data, token)
        if seat is None or data.seats[seat]["type"] != "human":
            return None
        return seat if data.seats[seat].get("player") else None

    def attend(self, response: Response, data: SessionData, token: str | None) -> Response:
        """``response`` (a session's stream), counted as its player's presence while open
        when ``token`` is a player's own in this ladder game."""
        seat = self.seat_for(data, token)
        if seat is None or not isinstance(response, StreamingResponse):
            return response
        return Attended(response, self, data.id, seat)

    # ------------------------------------------------------------------ changes
    def opened(self, stream_id: str, sid: str, seat: str) -> None:
        """A stream of ``seat`` opened: present again (an absence ends; its loss is called
        off if it had not fallen yet)."""
        with self._lock:
            self._mine[stream_id] = (sid, seat)
        now = self.clock()
        with self.store.transaction() as s:
            row = _lock(s, sid, seat)
            s.add(StreamRow(id=stream_id, session_id=sid, seat=seat, seen=now))
            if not row.present:
                row.present, row.absent_since = True, None
                if row.loses_at is not None and now < row.loses_at:
                    row.loses_at = None  # back in time; a loss that fell stands
                self._tell(s, row, now)
        self.sessions.shared_views.forget(sid)

    def closed(self, stream_id: str) -> None:
        """A stream of this process closed: a disconnection if it was its seat's last."""
        with self._lock:
            mine = self._mine.pop(stream_id, None)
        if mine is None or self.stopping:
            return  # a stopping process's rows go stale and are swept by the others
        sid, seat = mine
        self._settle(sid, seat, [stream_id])

    def _settle(self, sid: str, seat: str, gone: list[str]) -> None:
        """Delete the streams ``gone`` (and the seat's stale ones); if the seat has no live
        stream left and was present, that is a disconnection."""
        left = self._byo_yomi_left(sid, seat)  # first: loading may commit a time-out
        now = self.clock()
        with self._lock:
            mine = list(self._mine)
        with self.store.transaction() as s:
            row = _lock(s, sid, seat)
            ours = StreamRow.session_id == sid, StreamRow.seat == seat
            stale = StreamRow.seen < now - self.stale  # a dead process's (never this one's)
            if mine:
                stale = stale & StreamRow.id.not_in(mine)
            s.execute(delete(StreamRow).where(*ours, or_(StreamRow.id.in_(gone), stale)))
            live = s.scalars(select(StreamRow.id).where(*ours)).first()
            status = s.scalar(select(SessionRow.status).where(SessionRow.id == sid))
            if live is not None or not row.present:
                return
            row.present = False
            if status == "over":
                return  # the game ended (its streams end with it): nothing to count
            row.disconnections += 1
            row.absent_since = now
            if row.loses_at is None:  # else a loss that fell and is not applied yet: it stands
                row.loses_at = rules.absence_loses_at(row.disconnections, now, left)
            self._tell(s, row, now)
        self.sessions.shared_views.forget(sid)

    def _byo_yomi_left(self, sid: str, seat: str) -> float | None:
        """``seat``'s byo-yomi left now (periods left × period length; None: no byo-yomi)."""
        ctx = self.sessions.get(sid)  # due time-outs applied first
        clock = time_control(ctx.data)
        if not isinstance(clock, ByoYomi) or ctx.data.status == "over":
            return None
        running = ctx.seat_to_play(ctx.state) if ctx.data.turn_started is not None else None
        periods = clock.view(ctx.data, running, ctx.now)["seats"][seat]["periods_left"]
        return periods * clock.config.period_seconds

    def _tell(self, s: Session, row: PresenceRow, now: float) -> None:
        """The ``presence`` event of ``row``'s change, on the game's channel."""
        session = s.execute(select(SessionRow.version, SessionRow.seats)
                            .where(SessionRow.id == row.session_id)).one()
        player = session.seats[row.seat]["player"]
        publish(s, channel(row.session_id), "presence",
                {"seat": row.seat, **facts(player, row), "version": session.version}, now)

    # ------------------------------------------------------------------ upkeep
    def tick(self) -> None:
        """Refresh this process's streams' heartbeat, sweep the streams of processes that
        died, and drive the games whose absence ran out (nobody else may load them soon)."""
        now = self.clock()
        with self._lock:
            mine = list(self._mine)
        for i in range(0, len(mine), CHUNK):
            with self.store.transaction() as s:
                s.execute(update(StreamRow).where(StreamRow.id.in_(mine[i:i + CHUNK]))
                          .values(seen=now))
        with self.store.reader() as s:
            stale = s.execute(select(StreamRow.id, StreamRow.session_id, StreamRow.seat)
                              .where(StreamRow.seen < now - self.stale)).all()
            due = s.scalars(
                select(PresenceRow.session_id)
                .join(SessionRow, SessionRow.id == PresenceRow.session_id)
                .where(PresenceRow.loses_at <= now, SessionRow.status != "over")
                .distinct()
            ).all()
        ours = set(mine)
        for sid, seat in {(r.session_id, r.seat) for r in stale if r.id not in ours}:
            try:
                self._settle(sid, seat, [])
            except Exception:  # noqa: BLE001  one broken game must not stop the sweep
                log.exception("presence: cannot sweep session %s seat %s", sid, seat)
        for sid in due:
            self._drive(sid)

    def _drive(self, sid: str) -> None:
        """Apply a game's due loss (under its lease, as the timer poller does)."""
        holder = self.sessions.leases
        if not holder.hold(sid):
            return  # another replica drives it
        try:
            self.sessions.refresh(sid)
        except Exception:  # noqa: BLE001
            log.exception("presence: cannot drive session %s", sid)
        finally:
            holder.drop(sid)


class Attended(StreamingResponse):
    """A session's stream that is its player's presence while it is open: the stream is
    recorded before its first byte and its end after the last, whatever ends it (the client
    leaving, the game ending, the service stopping)."""

    def __init__(self, inner: StreamingResponse, presence: Presence, sid: str,
                 seat: str) -> None:
        super().__init__(inner.body_iterator, inner.status_code, media_type=inner.media_type)
        self.raw_headers = inner.raw_headers
        self.presence, self.sid, self.seat = presence, sid, seat

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        stream_id = secrets.token_hex(16)
        await run_in_threadpool(self.presence.opened, stream_id, self.sid, self.seat)
        try:
            await super().__call__(scope, receive, send)
        finally:
            with anyio.CancelScope(shield=True):  # a cancelled stream still records its end
                try:
                    await run_in_threadpool(self.presence.closed, stream_id)
                except Exception:  # noqa: BLE001  its heartbeat has stopped: the sweep ends it
                    log.exception("presence: cannot record the end of a stream of %s",
                                  self.sid)
