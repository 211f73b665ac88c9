"""The session service's entry points (:class:`SessionManager`): one method per route, each
a single compare-and-set write, the lifecycle (this replica's leases and the poller that
drives sessions nobody drives: resumed sessions, due clocks, a dead replica's AI seats) and
the live events' snapshots.

A write loads the session with its due time-outs committed, checks the version the client
last saw (409 if stale), runs one operation (:mod:`~serving.sessions.turns`,
:mod:`~serving.sessions.extras`) and commits it before the answer; after every change the AI
seat driver is kicked.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from typing import Any

from serving.adapters import get_adapter
from serving.ai import AIEngine
from serving.catalogue import build_game
from serving.clocks import ByoYomi, Clock, requested_byo_yomi
from serving.db import SessionData, SessionStore
from serving.errors import BadInput, Conflict
from serving.leases import Leases, new_holder_id
from serving.sessions import changes, extras, turns
from serving.sessions.ai_seats import AISeats, seat_config
from serving.sessions.context import Ctx
from serving.sessions.drivers import Driver, LeaseHolder
from serving.sessions.persistence import SessionRepository
from serving.sessions.reviews import SessionReviews
from serving.sessions.timeouts import expire
from serving.sessions.tokens import authenticate, authorize, hash_token, new_token
from serving.sessions.view import SharedViews, session_view
from serving.settings import Settings

log = logging.getLogger("qizero.serving")


class SessionManager:
    """All session operations; routes call these and turn the results into JSON."""

    def __init__(
        self, store: SessionStore, ai: AIEngine, settings: Settings, clock: Clock = time.time
    ) -> None:
        self.store = store
        self.ai = ai
        self.settings = settings
        self.clock = clock
        self.repo = SessionRepository(store, clock)
        self.events = store.events
        self.shared_views = SharedViews()
        self.leases = LeaseHolder(
            Leases(store.engine, new_holder_id(), settings.lease_seconds)
        )
        self.ai_seats = AISeats(
            ai, clock, self._fresh, self.repo.commit, self.leases, store.ai_turn, self._notice
        )
        self.driver = Driver(self.leases, self.refresh, clock, settings.timer_poll_seconds)
        self.reviews = SessionReviews(store, ai, clock)

    # ================================================================ lifecycle
    def start(self) -> None:
        """Take up the sessions that wait for a driver (AI seats to move, due clocks, left by
        a previous run or a dead replica) and start the poller."""
        self.driver.start()

    def close(self) -> None:
        self.ai_seats.close()
        self.driver.close()

    def replica(self) -> dict[str, Any]:
        """This replica as a lease holder (``/v1/health``)."""
        return {
            "id": self.leases.holder,
            "leases": len(self.leases.held()),
            "ai_moves": self.ai_seats.moves,
        }

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Wait until no AI seat is thinking (tests, benchmarks)."""
        return self.ai_seats.wait_idle(timeout)

    # ================================================================ reads and writes
    def _fresh(self, sid: str) -> Ctx:
        """Load a session and commit any time-outs that are due (retrying on races)."""
        for _ in range(20):
            data = self.repo.load(sid)
            ctx = self.repo.context(data)
            version = data.version
            if not expire(ctx):
                return ctx
            if self.repo.commit(ctx, version):
                self.ai_seats.kick_if_ai(ctx)
                return ctx
        raise Conflict("the session is changing too fast; try again")

    def _write(
        self, sid: str, token: str | None, version: int, op: Callable[[Ctx], None],
        seat: str | None = None,
    ) -> Ctx:
        """Run ``op`` on the session at ``version`` and commit it (409 if anything came
        between). The token is checked first (401; 403 where the route names the ``seat``),
        before the version or anything in the session: authentication comes first."""
        ctx = self._fresh(sid)
        authenticate(ctx.data, token)
        if seat is not None and seat in ctx.data.seats:
            authorize(ctx.data, token, seat)
        if version != ctx.data.version:
            raise Conflict(
                f"stale version {version}: the session is at version {ctx.data.version}",
                version=ctx.data.version,
            )
        op(ctx)
        if not self.repo.commit(ctx, version):
            current = self.repo.load(sid)
            raise Conflict(
                f"the session changed meanwhile (now version {current.version})",
                version=current.version,
            )
        self.ai_seats.kick_if_ai(ctx)
        return ctx

    def get(self, sid: str) -> Ctx:
        return self._fresh(sid)

    def refresh(self, sid: str) -> None:
        """Apply due time-outs and make sure an AI seat to move is thinking."""
        ctx = self._fresh(sid)
        self.ai_seats.kick_if_ai(ctx)

    def view(self, ctx: Ctx) -> dict[str, Any]:
        data = ctx.data
        has_ai = any(s["type"] == "ai" for s in data.seats.values())
        thinking, error = self._ai_status(data.id, data.version, data.status, has_ai,
                                          data.ai_turn)
        return session_view(ctx, thinking, error)

    def _ai_status(
        self, sid: str, version: int, status: str, has_ai: bool, ai_turn: bool
    ) -> tuple[bool, str | None]:
        """``ai_thinking`` and ``ai_error``: read from the session's lease, which every
        replica sees (only a session being played with an AI seat has one worth reading)."""
        thinking, error = self.ai_seats.thinking(sid), None
        if status == "playing" and has_ai:
            lease = self.leases.leases.state(sid)
            thinking = thinking or (lease.live and ai_turn)
            error = lease.error if lease.error_version == version else None
        return thinking, error

    # ================================================================ live events
    def snapshot(self, sid: str) -> tuple[int, dict[str, Any]]:
        """The view and the id of the last event it reflects: a stream's first message."""
        return self.events.snapshot(changes.channel(sid), lambda: self.view(self.get(sid)))

    def current_view(self, sid: str, at_least: int = 0) -> dict[str, Any]:
        """The view as it is now, at version ``at_least`` or later: what a stream sends after a
        burst of events (the streams of one session share it; never change it). A shared view
        is reused only while what its AI seats do still matches the lease."""

        def usable(view: dict[str, Any]) -> bool:
            if view["version"] < at_least:
                return False
            seats, to_play = view["seats"], view["position"]["to_play"]
            has_ai = any(s["type"] == "ai" for s in seats.values())
            ai_turn = to_play is not None and seats[to_play]["type"] == "ai"
            now = self._ai_status(sid, view["version"], view["status"], has_ai, ai_turn)
            return (view["ai_thinking"], view["ai_error"]) == now

        return self.shared_views.get(sid, usable, lambda: self.view(self.get(sid)))

    def _notice(self, sid: str, kind: str, data: dict[str, Any]) -> None:
        """An event that goes with no stored change (the AI seats' ``ai_thinking``)."""
        try:
            self.events.publish_now(changes.channel(sid), kind, data, self.clock())
        except Exception:  # noqa: BLE001  a lost notice must not stop the AI
            log.exception("cannot publish %s for session %s", kind, sid)

    # ================================================================ operations
    def create(self, *args: Any, **kwargs: Any) -> tuple[Ctx, str, dict[str, str]]:
        """A new session, stored; it takes what :meth:`prepare` takes."""
        data, owner, seat_tokens = self.prepare(*args, **kwargs)
        self.repo.insert(data)
        return self.started(data.id), owner, seat_tokens

    def prepare(
        self,
        game_id: str,
        config: dict[str, Any],
        seats: dict[str, dict[str, Any]],
        turn_seconds: float | None | str = "default",
        confirm_turns: bool | None = None,
        match_games: int = 1,
        clock: dict[str, Any] | None | str = "default",
    ) -> tuple[SessionData, str, dict[str, str]]:
        """A new session's data, validated, with its owner and seat tokens, not yet stored
        (:meth:`create` stores it; the ladder stores it in its pairing's transaction).
        ``turn_seconds`` and ``clock`` (main time + byo-yomi: ``{"main_time", "periods",
        "period_seconds"}``, missing fields from the game's default) are the two kinds of
        timer; ``"default"`` takes the game's, None none."""
        game = build_game(game_id, config)
        adapter = get_adapter(game_id)
        names = game.spec.player_names
        unknown = sorted(set(seats) - set(names))
        if unknown:
            raise BadInput(f"unknown seat(s) {unknown}; the seats of {game_id} are {list(names)}")
        seat_cfg = {}
        for name in names:
            seat_cfg[name] = seat_config(self.ai, game, seats.get(name) or {"type": "human"})
        if turn_seconds == "default":
            turn_seconds = game.spec.turn_seconds
        if turn_seconds is not None and game.spec.turn_seconds is None:
            raise BadInput(f"{game_id} sessions have no turn timer (its rules define none)")
        byo_yomi = requested_byo_yomi(game_id, adapter.byo_yomi_default, clock)
        if byo_yomi is not None and turn_seconds is not None:
            raise BadInput("a session has one timer: turn_seconds or clock, not both")
        if match_games not in adapter.match_lengths:
            raise BadInput(
                f"a {game_id} match has {' or '.join(map(str, adapter.match_lengths))} game(s)"
            )
        now = self.clock()
        owner = new_token()
        seat_tokens = {name: new_token() for name in names}
        data = SessionData(
            id=secrets.token_urlsafe(16),
            game=game_id,
            config=dict(config),
            seats=seat_cfg,
            owner_hash=hash_token(owner),
            seat_hashes={k: hash_token(v) for k, v in seat_tokens.items()},
            games=[[]],
            pending=[],
            extras={},
            version=1,
            status="playing",
            result=None,
            confirm_turns=adapter.confirm_turns_default if confirm_turns is None else confirm_turns,
            match_games=match_games,
            turn_seconds=float(turn_seconds) if turn_seconds is not None else None,
            turn_started=now if turn_seconds is not None or byo_yomi is not None else None,
            created=now,
            updated=now,
        )
        if byo_yomi is not None:
            ByoYomi.install(data, byo_yomi, list(names))
        self.repo.plan(data)
        return data, owner, seat_tokens

    def started(self, sid: str) -> Ctx:
        """A session just stored: loaded, its AI seat set thinking if it is to move."""
        ctx = self.repo.context(self.repo.load(sid))
        self.ai_seats.kick_if_ai(ctx)
        return ctx

    def move(self, sid: str, token: str | None, move: str | dict[str, Any], version: int) -> Ctx:
        max_chars = self.settings.max_move_chars
        return self._write(sid, token, version,
                           lambda ctx: turns.move(ctx, token, move, max_chars))

    def confirm(self, sid: str, token: str | None, version: int) -> Ctx:
        return self._write(sid, token, version, lambda ctx: turns.confirm(ctx, token))

    def cancel(self, sid: str, token: str | None, version: int) -> Ctx:
        return self._write(sid, token, version, lambda ctx: turns.cancel(ctx, token))

    def set_seat(
        self, sid: str, token: str | None, seat: str, kind: str, level: str | None, version: int
    ) -> Ctx:
        return self._write(
            sid, token, version,
            lambda ctx: turns.set_seat(ctx, self.ai, token, seat, kind, level), seat=seat,
        )

    def resign(self, sid: str, token: str | None, seat: str | None, version: int) -> Ctx:
        return self._write(sid, token, version, lambda ctx: extras.resign(ctx, token, seat),
                           seat=seat)

    def arbitration(self, sid: str, token: str | None, version: int) -> Ctx:
        """A claim that the opponent broke the obligation (TriGolden, ``standard``)."""
        return self._write(sid, token, version, lambda ctx: extras.arbitration(ctx, token))

    def mark_dead(self, sid: str, token: str | None, dead: list[str], version: int) -> Ctx:
        """Propose the dead chains (replaces the marks; every acceptance is withdrawn)."""
        return self._write(sid, token, version, lambda ctx: extras.mark_dead(ctx, token, dead))

    def accept_score(self, sid: str, token: str | None, version: int) -> Ctx:
        """Accept the marks; when every human seat has, the score is final."""
        return self._write(sid, token, version, lambda ctx: extras.accept_score(ctx, token))

    def resume(self, sid: str, token: str | None, version: int) -> Ctx:
        """Resume play in the scoring phase (Go)."""
        return self._write(sid, token, version, lambda ctx: extras.resume(ctx, token))

    def offer_draw(self, sid: str, token: str | None, version: int) -> Ctx:
        """The side to move offers a draw (Stereo Go)."""
        return self._write(sid, token, version, lambda ctx: extras.offer_draw(ctx, token))

    def answer_draw(self, sid: str, token: str | None, accept: bool, version: int) -> Ctx:
        """The other side accepts or declines the standing draw offer."""
        return self._write(sid, token, version,
                           lambda ctx: extras.answer_draw(ctx, token, accept))
