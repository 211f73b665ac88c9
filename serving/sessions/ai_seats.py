"""The AI seat driver: seats of type ``ai`` are played by the server.

After every change the session is kicked: a worker thread of the AI engine's pool looks
whether an AI seat is to move, searches with its level and commits the move like any other
write. At most one worker drives a session at a time; a result computed for an older version
(a level change, a takeover, a time-out meanwhile) loses the compare-and-set and is simply
searched again from the new position. Errors are kept per session (``ai_error`` in the view),
never lost. ``ai_thinking`` (a search starts) and ``ai_error`` are told to the session's
followers as events of their own: they go with no stored change.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from envs.core import Game
from serving.ai import AIEngine
from serving.clocks import Clock
from serving.errors import BadInput, NotFound, ServiceError
from serving.sessions.context import Ctx
from serving.sessions.machine import push
from serving.sessions.timeouts import expire

log = logging.getLogger("qizero.serving")


def seat_config(ai: AIEngine, game: Game, seat: dict[str, Any]) -> dict[str, Any]:
    """A validated seat: ``{"type": "human"}`` or an AI level that can play this game."""
    kind = seat.get("type", "human")
    if kind == "human":
        return {"type": "human", "level": None}
    if kind != "ai":
        raise BadInput(f"a seat's type is 'human' or 'ai', not {kind!r}")
    table = ai.table(game)
    try:
        level = table.get(seat.get("level"))
    except NotFound as exc:
        raise BadInput(exc.message) from None
    ai.player(game, level, seed=0)  # refuses a level that cannot play this configuration
    return {"type": "ai", "level": level.id}


class AISeats:
    """Plays the AI seats of every session, on the AI engine's worker threads.

    ``fresh`` loads a session with its due time-outs committed; ``commit`` is the
    compare-and-set write (:meth:`serving.sessions.persistence.SessionRepository.commit`);
    ``notice(session id, kind, data)`` tells the session's followers what the AI does."""

    def __init__(
        self,
        ai: AIEngine,
        clock: Clock,
        fresh: Callable[[str], Ctx],
        commit: Callable[[Ctx, int], bool],
        notice: Callable[[str, str, dict[str, Any]], None] = lambda *_: None,
    ) -> None:
        self.ai = ai
        self.clock = clock
        self.fresh = fresh
        self.commit = commit
        self.notice = notice
        self.errors: dict[str, str] = {}
        self._cond = threading.Condition()
        self._inflight: set[str] = set()
        self._again: set[str] = set()
        self._closed = False

    def close(self) -> None:
        """Start no more searches: kicks are ignored, a worker stops after its current move."""
        self._closed = True

    def seat_to_move(self, ctx: Ctx) -> str | None:
        """The AI seat to move, if any."""
        if ctx.data.status != "playing":
            return None
        seat = ctx.seat_to_play(ctx.state)
        if seat is not None and ctx.data.seats[seat]["type"] == "ai":
            return seat
        return None

    def kick_if_ai(self, ctx: Ctx) -> None:
        if self.seat_to_move(ctx) is not None:
            self.kick(ctx.data.id)

    def kick(self, sid: str) -> None:
        """Make sure a worker plays the session's AI seats (at most one worker per session)."""
        if self._closed:
            return
        with self._cond:
            if sid in self._inflight:
                self._again.add(sid)
                return
            self._inflight.add(sid)
        try:
            self.ai.submit(self._worker, sid)
        except RuntimeError:  # the pool is shut down: the service is stopping
            with self._cond:
                self._inflight.discard(sid)
                self._cond.notify_all()

    def thinking(self, sid: str) -> bool:
        with self._cond:
            return sid in self._inflight

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Wait until no AI seat is thinking (tests, benchmarks)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._inflight, timeout)

    def _worker(self, sid: str) -> None:
        while True:
            try:
                self._play(sid)
            except ServiceError as exc:
                self.errors[sid] = exc.message
                log.warning("AI seat of session %s cannot move: %s", sid, exc.message)
                self.notice(sid, "ai_error", {"message": exc.message})
            except Exception as exc:  # noqa: BLE001  reported on the session, never lost
                self.errors[sid] = f"{type(exc).__name__}: {exc}"
                log.exception("AI seat of session %s failed", sid)
                self.notice(sid, "ai_error", {"message": self.errors[sid]})
            with self._cond:
                if sid in self._again and not self._closed:
                    self._again.discard(sid)
                    continue
                self._inflight.discard(sid)
                self._cond.notify_all()
                return

    def _play(self, sid: str) -> None:
        """Play AI turns until a person (or nobody) is to move."""
        while not self._closed:
            ctx = self.fresh(sid)
            seat = self.seat_to_move(ctx)
            if seat is None:
                return
            level = ctx.data.seats[seat]["level"]
            version = ctx.data.version
            self.notice(sid, "ai_thinking", {"seat": seat, "level": level, "version": version})
            suggestion = self.ai.analyse(ctx.game, ctx.state, level, None)
            ctx.now = self.clock()
            if expire(ctx):  # the AI's turn ran out while it searched: no move
                self.commit(ctx, version)
                continue
            new_state = ctx.game.apply(ctx.state, suggestion.action)
            ctx.data.pending = []
            event = {"t": "move", "m": suggestion.move, "seat": seat, "by": "ai", "level": level}
            push(ctx, event, new_state, ctx.now)
            if self.commit(ctx, version):
                self.errors.pop(sid, None)
            # on a lost race the loop reloads and thinks again from the new position
