"""Sessions in and out of the database: load one as a :class:`Ctx` (its game rebuilt by
replaying its events, cached) and commit it with one compare-and-set.

The SQL itself is :mod:`serving.db`'s. Every change is one compare-and-set on the session's
version, committed before the answer: a write carrying a stale version loses, and of two
conflicting writes exactly one wins. The change's events (:mod:`serving.sessions.changes`) are
published in the same transaction. The replayed state is cached per session; committed events
are append-only, so a cached prefix stays valid whoever (this process or another one on the
same database) appended to it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from serving.adapters import get_adapter
from serving.catalogue import build_game
from serving.clocks import Clock
from serving.db import SessionData, SessionStore
from serving.errors import NotFound
from serving.sessions import changes
from serving.sessions.context import Ctx
from serving.sessions.machine import replay_event


class StateCache:
    """session id -> (game index, number of committed events, state), LRU-bounded."""

    def __init__(self, size: int = 1024) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._items: OrderedDict[str, tuple[int, int, Any]] = OrderedDict()

    def get(self, sid: str) -> tuple[int, int, Any] | None:
        with self._lock:
            item = self._items.get(sid)
            if item is not None:
                self._items.move_to_end(sid)
            return item

    def put(self, sid: str, game_index: int, n_events: int, state: Any) -> None:
        with self._lock:
            self._items[sid] = (game_index, n_events, state)
            self._items.move_to_end(sid)
            while len(self._items) > self.size:
                self._items.popitem(last=False)


class SessionRepository:
    """Load, rebuild, insert and commit sessions over a :class:`serving.db.SessionStore`."""

    def __init__(self, store: SessionStore, clock: Clock) -> None:
        self.store = store
        self.clock = clock
        self.cache = StateCache()

    def insert(self, data: SessionData) -> None:
        self.store.insert(data)

    def load(self, sid: str) -> SessionData:
        if not isinstance(sid, str) or len(sid) > 64:
            raise NotFound("no such session")
        data = self.store.load(sid)
        if data is None:
            raise NotFound(f"no session {sid!r}", session=sid)
        return data

    def context(self, data: SessionData) -> Ctx:
        """Context for data freshly loaded from the database (so its state may be cached)."""
        game = build_game(data.game, data.config)
        adapter = get_adapter(data.game)
        game_index, events = len(data.games) - 1, data.events
        hit = self.cache.get(data.id)
        if hit is not None and hit[0] == game_index and hit[1] <= len(events):
            state, start = hit[2], hit[1]
        else:
            state, start = game.initial_state(), 0
        for i in range(start, len(events)):
            state = replay_event(game, adapter, state, events[i], i)
        self.cache.put(data.id, game_index, len(events), state)
        return Ctx(data, game, adapter, state, self.clock())

    def commit(self, ctx: Ctx, expected: int) -> bool:
        """Write ``ctx`` as the version after ``expected`` with its events; False if another
        write came first."""
        ctx.data.version = expected + 1
        ctx.data.updated = ctx.now
        if not self.store.compare_and_set(ctx.data, expected, changes.drafts(ctx)):
            return False
        ctx.committed()
        self.cache.put(ctx.data.id, len(ctx.data.games) - 1, len(ctx.data.events), ctx.state)
        return True
