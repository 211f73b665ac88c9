"""The AI seat driver: seats of type ``ai`` are played by the server.

After every change the session is kicked: if this replica holds (or can take) the session's
lease (:mod:`serving.sessions.drivers`), a worker thread of the AI engine's pool looks whether
an AI seat is to move, searches with its level and commits the move like any other write; if
another replica holds it, that one plays. At most one worker of one replica drives a session
at a time. A result computed for an older version (a level change, a takeover, a time-out
meanwhile) loses the compare-and-set; the worker then searches again from the new position
only while the lease is still its replica's, so a replica that lost the session to another
never adds a move of its own. When a worker is done it gives the lease back and looks once
more: a change that asked for the AI while the lease was still held here is not missed.
An AI seat that cannot move records why on its lease (``ai_error`` in the view, on every
replica) and is tried again when the session changes. ``ai_thinking`` (a search starts) and
``ai_error`` are told to the session's followers as events of their own: they go with no stored
change.

A session whose ``extras`` carry an opening variety rule (:data:`VARIETY_KEY`; the ladder's
rated games, :mod:`serving.ladder.farming`) has its AI moves seeded from the session id and
the ply (:func:`move_plan`), and its first plies varied among near-equal moves.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable
from typing import Any

from agents.variety import OpeningVariety
from envs.core import Game
from serving.ai import AIEngine
from serving.clocks import Clock
from serving.db import SessionData
from serving.errors import BadInput, NotFound, ServiceError
from serving.sessions.context import Ctx
from serving.sessions.drivers import LeaseHolder
from serving.sessions.machine import push
from serving.sessions.timeouts import expire

log = logging.getLogger("qizero.serving")

VARIETY_KEY = "opening_variety"  # a session's extras: its AI seats' OpeningVariety, as JSON


def move_plan(data: SessionData) -> tuple[int | None, OpeningVariety | None]:
    """(seed, variety) of the AI move to make in ``data``: (None, None) where the session
    asks for no variety (the engine draws a seed of its own, as for suggestions). Else the
    seed comes from persisted data only, the session id and the ply (moves of the game so
    far), so a restart or another replica searching the same position draws the same move;
    the variety applies while the ply is within the rule's opening."""
    rule = data.extras.get(VARIETY_KEY)
    if rule is None:
        return None, None
    ply = sum(1 for ev in data.events if ev["t"] == "move")
    digest = hashlib.sha256(f"{data.id}/{len(data.games)}/{ply}".encode()).digest()
    variety = OpeningVariety.from_json(rule)
    return int.from_bytes(digest[:8], "big"), variety if variety.applies(ply) else None


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
    """Plays the AI seats of every session this replica holds, on the AI engine's workers.

    ``fresh`` loads a session with its due time-outs committed; ``commit`` is the
    compare-and-set write (:meth:`serving.sessions.persistence.SessionRepository.commit`);
    ``ai_turn(sid)`` reads the stored (version, AI seat to move) without loading;
    ``notice(session id, kind, data)`` tells the session's followers what the AI does."""

    def __init__(
        self,
        ai: AIEngine,
        clock: Clock,
        fresh: Callable[[str], Ctx],
        commit: Callable[[Ctx, int], bool],
        leases: LeaseHolder,
        ai_turn: Callable[[str], tuple[int, bool] | None],
        notice: Callable[[str, str, dict[str, Any]], None] = lambda *_: None,
    ) -> None:
        self.ai = ai
        self.clock = clock
        self.fresh = fresh
        self.commit = commit
        self.leases = leases
        self.ai_turn = ai_turn
        self.notice = notice
        self.moves = 0  # AI moves this replica committed (/v1/health)
        self._cond = threading.Condition()
        self._inflight: set[str] = set()
        self._again: set[str] = set()
        self._closed = False

    def close(self) -> None:
        """Start no more searches: kicks are ignored, a worker stops after its current move."""
        self._closed = True

    def kick_if_ai(self, ctx: Ctx) -> None:
        if ctx.ai_seat() is not None:
            self.kick(ctx.data.id)

    def kick(self, sid: str) -> None:
        """Make sure the session's AI seats are played: here if this replica holds or takes
        the lease (at most one worker per session), else by the replica that holds it."""
        if self._closed:
            return
        with self._cond:
            if sid in self._inflight:
                self._again.add(sid)
                return
            self._inflight.add(sid)
        try:
            held = self.leases.hold(sid)
        except Exception:  # noqa: BLE001  the pollers take the session up
            log.exception("cannot take the lease of session %s", sid)
            held = False
        if held:
            try:
                self.ai.submit(self._worker, sid)
                return
            except RuntimeError:  # the pool is shut down: the service is stopping
                self.leases.drop(sid)
        with self._cond:
            self._inflight.discard(sid)
            self._again.discard(sid)
            self._cond.notify_all()

    def thinking(self, sid: str) -> bool:
        """Whether a worker of this replica is on the session."""
        with self._cond:
            return sid in self._inflight

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Wait until no AI seat is thinking here (tests, benchmarks)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._inflight, timeout)

    def _worker(self, sid: str) -> None:
        seen: int | None = None
        while True:
            seen = self._play(sid)
            with self._cond:
                if sid in self._again and not self._closed:
                    self._again.discard(sid)
                    continue
                self._inflight.discard(sid)
                self._cond.notify_all()
                break
        self.leases.drop(sid)
        self._look_again(sid, seen)

    def _look_again(self, sid: str, seen: int | None) -> None:
        """After giving the lease back: if the session changed since it was last seen and an
        AI seat is to move, a kick elsewhere may have found the lease still held here."""
        if seen is None or self._closed:
            return
        try:
            now = self.ai_turn(sid)
        except Exception:  # noqa: BLE001  the pollers take the session up
            log.exception("cannot look at session %s", sid)
            return
        if now is not None and now[1] and now[0] != seen:
            self.kick(sid)

    def _play(self, sid: str) -> int | None:
        """Play AI turns until a person (or nobody) is to move; returns the version last seen
        (None: another replica holds the session now)."""
        version: int | None = None
        try:
            while not self._closed:
                ctx = self.fresh(sid)
                version = ctx.data.version
                seat = ctx.ai_seat()
                if seat is None:
                    return version
                level = ctx.data.seats[seat]["level"]
                self.notice(sid, "ai_thinking", {"seat": seat, "level": level,
                                                 "version": version})
                seed, variety = move_plan(ctx.data)
                suggestion = self.ai.analyse(ctx.game, ctx.state, level, seed, variety)
                ctx.now = self.clock()
                if expire(ctx):  # the AI's turn ran out while it searched: no move
                    self.commit(ctx, version)
                    continue
                new_state = ctx.game.apply(ctx.state, suggestion.action)
                ctx.data.pending = []
                event = {"t": "move", "m": suggestion.move, "seat": seat, "by": "ai",
                         "level": level}
                push(ctx, event, new_state, ctx.now)
                if self.commit(ctx, version):
                    with self._cond:
                        self.moves += 1
                elif not self.leases.still_ours(sid):
                    return None  # taken over by another replica: it plays from here
                # on a lost race the loop reloads and thinks again from the new position
        except ServiceError as exc:
            log.warning("AI seat of session %s cannot move: %s", sid, exc.message)
            self._failed(sid, version, exc.message)
        except Exception as exc:  # noqa: BLE001  reported on the session, never lost
            log.exception("AI seat of session %s failed", sid)
            self._failed(sid, version, f"{type(exc).__name__}: {exc}")
        return version

    def _failed(self, sid: str, version: int | None, message: str) -> None:
        if self._closed:  # the search was abandoned for a shutdown: another replica plays it
            log.info("AI seat of session %s left to another replica: %s", sid, message)
            return
        self.notice(sid, "ai_error", {"message": message})
        if version is None:
            return
        try:
            self.leases.leases.fail(sid, version, message)
        except Exception:  # noqa: BLE001
            log.exception("cannot record the error of session %s", sid)
