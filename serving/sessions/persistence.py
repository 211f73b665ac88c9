"""Sessions in and out of the database: load one as a :class:`Ctx` (its game rebuilt by
replaying its events, cached) and commit it with one compare-and-set.

The SQL itself is :mod:`serving.db`'s. Every change is one compare-and-set on the session's
version, committed before the answer: a write carrying a stale version loses, and of two
conflicting writes exactly one wins. The change's events (:mod:`serving.sessions.changes`) are
published in the same transaction. Each commit also writes what the session waits for
(:func:`schedule`: an AI seat to move, the clock's deadline), which the replicas' pollers query.

The replayed state is cached per session and checked against every load: committed events are
append-only, so a cached state is reused when the loaded session is the same game, at a version
no older, whose events start with the cached ones (count and last event equal), whoever (this
replica or another on the same database) appended the rest.
"""

from __future__ import annotations

import copy
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from serving.adapters import get_adapter
from serving.catalogue import build_game
from serving.clocks import Clock
from serving.db import SessionData, SessionStore
from serving.errors import NotFound
from serving.sessions import changes
from serving.sessions.context import Ctx
from serving.sessions.machine import replay_event
from serving.sessions.timeouts import deadline

SESSION_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # what secrets.token_urlsafe makes


def schedule(ctx: Ctx) -> tuple[bool, float | None]:
    """What the session waits for: an AI seat to move, and when the running clock is up."""
    playing = ctx.data.status == "playing"
    return ctx.ai_seat() is not None, deadline(ctx) if playing else None


class _Cached:
    """A replayed state and what it was replayed from."""

    __slots__ = ("version", "game_index", "n_events", "last", "state")

    def __init__(self, data: SessionData, state: Any) -> None:
        self.version = data.version
        self.game_index = len(data.games) - 1
        self.n_events = len(data.events)
        self.last = copy.deepcopy(data.events[-1]) if data.events else None
        self.state = state

    def valid_for(self, data: SessionData) -> bool:
        """Whether ``data`` continues what this state was replayed from."""
        events = data.events
        return (
            self.version <= data.version
            and self.game_index == len(data.games) - 1
            and self.n_events <= len(events)
            and (self.n_events == 0 or events[self.n_events - 1] == self.last)
        )


class StateCache:
    """session id -> its last replayed state, LRU-bounded."""

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._items: OrderedDict[str, _Cached] = OrderedDict()

    def get(self, sid: str) -> _Cached | None:
        with self._lock:
            item = self._items.get(sid)
            if item is not None:
                self._items.move_to_end(sid)
            return item

    def put(self, data: SessionData, state: Any) -> None:
        with self._lock:
            sid = data.id
            self._items[sid] = _Cached(data, state)
            self._items.move_to_end(sid)
            while len(self._items) > self.size:
                self._items.popitem(last=False)


class SessionRepository:
    """Load, rebuild, insert and commit sessions over a :class:`serving.db.SessionStore`."""

    def __init__(self, store: SessionStore, clock: Clock) -> None:
        self.store = store
        self.clock = clock
        self.cache = StateCache()
        #: Loads a session's players' presence (``Ctx.presence``); the ladder installs it.
        self.presence: Callable[[SessionData], dict[str, dict[str, Any]] | None] = (
            lambda data: None)

    def plan(self, data: SessionData) -> None:
        """Set what a new session waits for, before it is stored (by :meth:`insert` or in a
        transaction of the caller's: the ladder's pairing)."""
        data.ai_turn, data.deadline = schedule(self._rebuild(data))

    def insert(self, data: SessionData) -> None:
        self.plan(data)
        self.store.insert(data)

    def load(self, sid: str) -> SessionData:
        if not isinstance(sid, str) or not SESSION_ID.fullmatch(sid):
            raise NotFound("no such session")  # never sent to the database (NUL: PostgreSQL)
        data = self.store.load(sid)
        if data is None:
            raise NotFound(f"no session {sid!r}", session=sid)
        return data

    def context(self, data: SessionData) -> Ctx:
        """Context for data freshly loaded from the database (so its state may be cached).

        A stored schedule that disagrees with the session (rows from before it existed) is
        corrected here, whoever loads it first."""
        ctx = self._rebuild(data)
        ctx.presence = self.presence(data)
        planned = schedule(ctx)
        if planned != (data.ai_turn, data.deadline):
            data.ai_turn, data.deadline = planned
            self.store.set_schedule(data.id, data.version, *planned)
        return ctx

    def _rebuild(self, data: SessionData) -> Ctx:
        """The session's game replayed (from the cached state where it is still valid)."""
        game = build_game(data.game, data.config)
        adapter = get_adapter(data.game)
        events = data.events
        hit = self.cache.get(data.id)
        if hit is not None and hit.valid_for(data):
            state, start = hit.state, hit.n_events
        else:
            state, start = game.initial_state(), 0
        for i in range(start, len(events)):
            state = replay_event(game, adapter, state, events[i], i)
        self.cache.put(data, state)
        return Ctx(data, game, adapter, state, self.clock())

    def commit(self, ctx: Ctx, expected: int) -> bool:
        """Write ``ctx`` as the version after ``expected`` with its events; False if another
        write came first."""
        ctx.data.version = expected + 1
        ctx.data.updated = ctx.now
        ctx.data.ai_turn, ctx.data.deadline = schedule(ctx)
        if not self.store.compare_and_set(ctx.data, expected, changes.drafts(ctx)):
            return False
        ctx.committed()
        self.cache.put(ctx.data, ctx.state)
        return True
