"""The JSON a client sees of a session (``SessionPublic`` in :mod:`serving.api.models`).

Built from a loaded :class:`Ctx` only, plus what the AI seat driver says, so every answer (and
anything else that shows a session) shows the same thing. :class:`SharedViews` lets the live
streams of one session share the view built after a change.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from serving.catalogue import describe
from serving.clocks import time_control
from serving.sessions.context import Ctx
from serving.sessions.timeouts import deadline


def session_view(ctx: Ctx, ai_thinking: bool, ai_error: str | None) -> dict[str, Any]:
    """Position, seats, events, pending moves, timer, match, scoring phase and result."""
    data = ctx.data
    current = ctx.current()
    position = describe(ctx.game, current)
    position["to_play"] = ctx.seat_to_play(current) if not position["is_over"] else None
    due = deadline(ctx) if data.status == "playing" else None
    clock = time_control(data)
    scoring = data.extras.get("scoring") if data.status == "scoring" else None
    if scoring is not None:
        scoring = {**scoring, "proposed": ctx.adapter.propose_dead(ctx.game, ctx.state)}
    return {
        "id": data.id,
        "game": data.game,
        "config": data.config,
        "version": data.version,
        "status": data.status,
        "seats": data.seats,
        "moves": [ev["m"] for ev in data.events if ev["t"] == "move"],
        "events": data.events,
        "pending": data.pending,
        "turn_complete": ctx.pending_complete(),
        "confirm_turns": data.confirm_turns,
        "position": position,
        "timer": {
            "turn_seconds": data.turn_seconds,
            "turn_started": data.turn_started,
            "deadline": due,
            "remaining": max(0.0, due - ctx.now) if due is not None else None,
            "clock": (
                clock.view(data, ctx.seat_to_play(ctx.state), ctx.now)
                if clock is not None else None
            ),
        },
        "match": {
            "games": data.match_games,
            "current": len(data.games),
            "results": data.extras.get("game_results", []),
            "history": data.games[:-1],
        },
        "scoring": scoring,
        "draw_offer": data.extras.get("draw_offer"),
        "result": data.result,
        "ladder": ladder_view(ctx),
        "ai_thinking": ai_thinking,
        "ai_error": ai_error,
        "created": data.created,
        "updated": data.updated,
    }


def ladder_view(ctx: Ctx) -> dict[str, Any] | None:
    """A ladder game's record, with its players' presence while it is loaded."""
    ladder = ctx.data.extras.get("ladder")
    if ladder is None or ctx.presence is None:
        return ladder
    return {**ladder, "presence": ctx.presence}


class SharedViews:
    """The latest view of each followed session, shared by its streams: after a change one
    stream builds it and the others reuse it (one build per change, not one per stream).

    A view is reused while younger than ``max_age`` seconds (its timer's ``remaining`` ages)
    and while the caller finds it ``usable``; views are shared, so nobody may change one."""

    def __init__(self, max_age: float = 0.25, size: int = 1024) -> None:
        self.max_age = max_age
        self.size = size
        self._lock = threading.Lock()
        self._building = [threading.Lock() for _ in range(64)]  # one build per session at once
        self._items: OrderedDict[str, tuple[float, dict[str, Any]]] = OrderedDict()

    def get(
        self,
        sid: str,
        usable: Callable[[dict[str, Any]], bool],
        build: Callable[[], dict[str, Any]],
    ) -> dict[str, Any]:
        with self._building[hash(sid) % len(self._building)]:
            with self._lock:
                hit = self._items.get(sid)
            if hit is not None and time.monotonic() - hit[0] < self.max_age and usable(hit[1]):
                return hit[1]
            view = build()
            with self._lock:
                self._items[sid] = (time.monotonic(), view)
                self._items.move_to_end(sid)
                while len(self._items) > self.size:
                    self._items.popitem(last=False)
            return view

    def forget(self, sid: str) -> None:
        """Drop ``sid``'s view: something it shows changed without a new version (presence)."""
        with self._lock:
            self._items.pop(sid, None)
