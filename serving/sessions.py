"""Game sessions: seats, tokens, moves, provisional turns, timers, AI seats, matches.

A session is stored as its events (moves, time-outs) per game of its match; the state of the
game in progress is rebuilt by replaying them through the rules (cached per session: committed
events are append-only, so a cached prefix is always valid). Every change is one
compare-and-set on the session's version (:class:`serving.db.SessionStore`), committed before
the answer: a write carrying a stale version gets 409, and of two conflicting writes exactly
one wins.

Who may act: the owner token acts for every seat (one shared screen); a seat token only for its
seat. Seats of type ``ai`` are played by the server: after every change a worker thread looks
whether an AI seat is to move, searches with its level and commits the move like any other
write (a stale result, e.g. after a level change, is simply dropped and searched again).

Clocks are applied by the server with an injectable clock, one mechanism for every kind
(:mod:`serving.clocks`): the running side's clock starts at ``turn_started`` when a turn (everything
the same player does before the other side is to move) begins; a finished turn is charged to
that side; at the deadline either the game says what happens (``turn_seconds``:
``Game.time_out``, the next turn starts at the deadline) or the side loses on time (Go's main
time + byo-yomi). Time-outs applied late (after a restart, or on the next request) land
exactly where they would have. *(service choice)* Wall-clock time while the server is down
counts.

Go's scoring phase: after two passes the clock stops, the players mark dead chains and accept,
or a person resumes play (a ``resume`` event: replays rebuild the continued game).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from envs.core import Game, IllegalMove
from serving.adapters import Adapter, get_adapter
from serving.ai import AIEngine
from serving.catalogue import apply_move, build_game, describe, notation, result_of
from serving.clocks import ByoYomi, ByoYomiConfig, time_control
from serving.db import SessionData, SessionStore
from serving.errors import BadInput, Conflict, Forbidden, NotFound, ServiceError, Unauthorized
from serving.settings import Settings

log = logging.getLogger("qizero.serving")

Clock = Callable[[], float]
MAX_TIMEOUTS_PER_CALL = 1000


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(32)  # 256 random bits


@dataclass
class Ctx:
    """One session being worked on: its data, game, adapter, committed state and the time."""

    data: SessionData
    game: Game
    adapter: Adapter
    state: Any  # the game in progress after its committed events (pending moves not applied)
    now: float

    @property
    def names(self) -> tuple[str, ...]:
        return self.game.spec.player_names

    def seat_of(self, player: int) -> str:
        """Seat of a player index in the current game (the first player swaps each game)."""
        k = len(self.data.games) - 1
        return self.names[(player + k) % len(self.names)]

    def seat_to_play(self, state: Any) -> str | None:
        if self.game.is_terminal(state):
            return None
        return self.seat_of(self.game.to_play(state))


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


class SessionManager:
    """All session operations; routes call these and turn the results into JSON."""

    def __init__(
        self, store: SessionStore, ai: AIEngine, settings: Settings, clock: Clock = time.time
    ) -> None:
        self.store = store
        self.ai = ai
        self.settings = settings
        self.clock = clock
        self.cache = StateCache()
        self._cond = threading.Condition()
        self._inflight: set[str] = set()
        self._again: set[str] = set()
        self.ai_errors: dict[str, str] = {}
        self._stop = threading.Event()
        self._poller: threading.Thread | None = None
        self._closed = False

    # ================================================================ lifecycle
    def start(self) -> None:
        """Resume every unfinished session (AI seats to move, expired timers) and start the
        timer poller."""
        for sid in self.store.active_ids():
            try:
                self.refresh(sid)
            except Exception:  # noqa: BLE001  one broken session must not stop the service
                log.exception("cannot resume session %s", sid)
        self._poller = threading.Thread(target=self._poll, name="qizero-timers", daemon=True)
        self._poller.start()

    def close(self) -> None:
        self._closed = True
        self._stop.set()
        if self._poller is not None:
            self._poller.join(timeout=5)

    def _poll(self) -> None:
        while not self._stop.wait(self.settings.timer_poll_seconds):
            try:
                for sid in self.store.active_ids(timed_only=True):
                    self.refresh(sid)
            except Exception:  # noqa: BLE001  keep polling through a passing database error
                log.exception("timer poll failed")

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Wait until no AI seat is thinking (tests, benchmarks)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._inflight, timeout)

    # ================================================================ building blocks
    def _load(self, sid: str) -> SessionData:
        if not isinstance(sid, str) or len(sid) > 64:
            raise NotFound("no such session")
        data = self.store.load(sid)
        if data is None:
            raise NotFound(f"no session {sid!r}", session=sid)
        return data

    def _ctx(self, data: SessionData) -> Ctx:
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
            state = self._replay_event(game, adapter, state, events[i], i)
        self.cache.put(data.id, game_index, len(events), state)
        return Ctx(data, game, adapter, state, self.clock())

    @staticmethod
    def _replay_event(game: Game, adapter: Adapter, state: Any, ev: dict[str, Any], i: int) -> Any:
        if ev["t"] == "move":
            return apply_move(game, state, ev["m"], i)
        if ev["t"] == "timeout":
            return game.time_out(state)
        if ev["t"] == "resign":
            return adapter.resign(game, state, ev["player"])
        if ev["t"] == "resume":
            return adapter.resume(game, state)
        if ev["t"] == "time_loss":
            return state  # the session records the result; the position stays as it was
        raise ValueError(f"unknown stored event {ev!r}")

    def _current(self, ctx: Ctx) -> Any:
        """The state with the pending (provisional) moves applied."""
        state = ctx.state
        for j, m in enumerate(ctx.data.pending):
            state = apply_move(ctx.game, state, m, len(ctx.data.events) + j)
        return state

    def _pending_complete(self, ctx: Ctx) -> bool:
        if not ctx.data.pending:
            return False
        current = self._current(ctx)
        return ctx.seat_to_play(current) != ctx.seat_to_play(ctx.state)

    def _push(
        self,
        ctx: Ctx,
        event: dict[str, Any],
        new_state: Any,
        turn_start: float,
        reason: str = "rules",
    ) -> None:
        """Append a committed event and settle what follows (clock, game end, match).

        ``turn_start`` is the event's time: it ends the turn of the side that was to move
        (charged to its clock) and starts the next side's clock."""
        data = ctx.data
        before = ctx.seat_to_play(ctx.state)
        data.events.append(event)
        ctx.state = new_state
        after = ctx.seat_to_play(new_state)
        clock = time_control(data)
        handed_over = after != before and clock is not None
        started = data.turn_started
        if clock is not None and handed_over and before is not None and started is not None:
            clock.charge(data, before, turn_start)
        if ctx.game.is_terminal(new_state):
            self._end_game(ctx, turn_start, reason)
        elif handed_over:
            data.turn_started = turn_start

    def _end_game(self, ctx: Ctx, now: float, reason: str = "rules") -> None:
        data = ctx.data
        res = result_of(ctx.game, ctx.state) if ctx.game.is_terminal(ctx.state) else None
        if reason == "rules" and res is not None:
            reason = ctx.adapter.decides_match(ctx.game, ctx.state) or "rules"
        data.pending = []
        if reason == "rules" and ctx.adapter.scoring_phase(ctx.game, ctx.state):
            data.status = "scoring"  # the players agree on dead stones before the result
            data.turn_started = None
            data.extras["scoring"] = {"dead": [], "accepted": []}
            if all(cfg["type"] == "ai" for cfg in data.seats.values()):
                self._finalize_score(ctx)  # no person to agree with: every stone counts
            return
        by_seat = self._by_seat(ctx, res, reason)
        data.extras.setdefault("game_results", []).append(by_seat)
        if len(data.games) < data.match_games and reason == "rules":
            data.games.append([])
            ctx.state = ctx.game.initial_state()
            clock = time_control(data)
            if isinstance(clock, ByoYomi):  # main time and periods are per game
                ByoYomi.install(data, clock.config, list(ctx.names))
            data.turn_started = now if clock is not None else None
            return
        data.status = "over"
        data.turn_started = None
        data.result = self._final_result(ctx)

    def _by_seat(self, ctx: Ctx, res: dict[str, Any] | None, reason: str) -> dict[str, Any]:
        """A game's result keyed by seat (player names are per game; seats swap in matches)."""
        out: dict[str, Any] = {"reason": reason}
        if res is None:
            return out
        mapping = {ctx.names[p]: ctx.seat_of(p) for p in range(len(ctx.names))}
        out["returns"] = {mapping[k]: v for k, v in res["returns"].items()}
        out["winner"] = mapping[res["winner"]] if res["winner"] else None
        if "score" in res:
            out["score"] = {mapping[k]: v for k, v in res["score"].items()}
        return out

    def _final_result(self, ctx: Ctx) -> dict[str, Any]:
        games = ctx.data.extras.get("game_results", [])
        if ctx.data.match_games == 1 or (len(games) == 1 and games[0].get("reason") != "rules"):
            return dict(games[-1])
        # A match: totals of the games' scores (or returns for a game without a score).
        totals = {s: 0.0 for s in ctx.names}
        for g in games:
            for seat, v in (g.get("score") or g.get("returns") or {}).items():
                totals[seat] += v
        last = games[-1]
        if last.get("reason") != "rules":  # resignation / arbitration decides the match
            return {"reason": last["reason"], "winner": last.get("winner"), "totals": totals,
                    "games": games}
        best = max(totals.values())
        leaders = [s for s, v in totals.items() if v == best]
        winner = leaders[0] if len(leaders) == 1 else None
        return {"reason": "rules", "winner": winner, "totals": totals, "games": games}

    def _deadline(self, ctx: Ctx) -> float | None:
        """When the running side's time is up (None: no clock runs)."""
        clock = time_control(ctx.data)
        seat = ctx.seat_to_play(ctx.state)
        if clock is None or ctx.data.turn_started is None or seat is None:
            return None
        return clock.deadline(ctx.data, seat)

    def _expire(self, ctx: Ctx) -> bool:
        """Apply every time-out due by ``ctx.now``; True if anything changed."""
        data, changed = ctx.data, False
        for _ in range(MAX_TIMEOUTS_PER_CALL):
            deadline = self._deadline(ctx) if data.status == "playing" else None
            if deadline is None or ctx.now < deadline:
                break
            clock = time_control(data)
            seat = ctx.seat_to_play(ctx.state)
            assert clock is not None and seat is not None  # a deadline implies both
            data.pending = []
            if clock.loses_on_time:
                clock.charge(data, seat, deadline)  # everything used up
                data.events.append({"t": "time_loss", "seat": seat, "at": deadline})
                self.finish(ctx, loser=seat, reason="time")
                return True
            try:
                new_state = ctx.game.time_out(ctx.state)
            except (NotImplementedError, IllegalMove):
                data.turn_started = None  # nothing a time-out can do: stop the clock
                changed = True
                break
            self._push(ctx, {"t": "timeout", "seat": seat, "at": deadline}, new_state, deadline)
            changed = True
            # a time-out always hands the turn over, so the next turn starts at the deadline
            if data.status == "playing":
                data.turn_started = deadline
        return changed

    def _commit(self, ctx: Ctx, expected: int) -> bool:
        ctx.data.version = expected + 1
        ctx.data.updated = ctx.now
        if not self.store.compare_and_set(ctx.data, expected):
            return False
        self.cache.put(ctx.data.id, len(ctx.data.games) - 1, len(ctx.data.events), ctx.state)
        return True

    def _fresh(self, sid: str) -> Ctx:
        """Load a session and commit any time-outs that are due (retrying on races)."""
        for _ in range(20):
            data = self._load(sid)
            ctx = self._ctx(data)
            version = data.version
            if not self._expire(ctx):
                return ctx
            if self._commit(ctx, version):
                self._kick_if_ai(ctx)
                return ctx
        raise Conflict("the session is changing too fast; try again")

    # ================================================================ tokens
    @staticmethod
    def _authorize(data: SessionData, token: str | None, seat: str) -> None:
        if not token:
            raise Unauthorized("this action needs a token: 'Authorization: Bearer <token>'")
        h = hash_token(token)
        if hmac.compare_digest(h, data.owner_hash):
            return
        for s, sh in data.seat_hashes.items():
            if hmac.compare_digest(h, sh):
                if s == seat:
                    return
                raise Forbidden(f"this token is for seat {s!r}; it cannot act for {seat!r}")
        raise Unauthorized("unknown token for this session")

    @staticmethod
    def _token_seat(data: SessionData, token: str | None) -> str | None:
        """The seat a seat token belongs to (None for the owner token or an unknown one)."""
        if not token:
            return None
        h = hash_token(token)
        for s, sh in data.seat_hashes.items():
            if hmac.compare_digest(h, sh):
                return s
        return None

    @staticmethod
    def _check_version(data: SessionData, version: int) -> None:
        if version != data.version:
            raise Conflict(
                f"stale version {version}: the session is at version {data.version}",
                version=data.version,
            )

    def _write(self, sid: str, version: int, op: Callable[[Ctx], None]) -> Ctx:
        ctx = self._fresh(sid)
        self._check_version(ctx.data, version)
        op(ctx)
        if not self._commit(ctx, version):
            current = self._load(sid)
            raise Conflict(
                f"the session changed meanwhile (now version {current.version})",
                version=current.version,
            )
        self.ai_errors.pop(sid, None)
        self._kick_if_ai(ctx)
        return ctx

    # ================================================================ operations
    def create(
        self,
        game_id: str,
        config: dict[str, Any],
        seats: dict[str, dict[str, Any]],
        turn_seconds: float | None | str = "default",
        confirm_turns: bool | None = None,
        match_games: int = 1,
        clock: dict[str, Any] | None | str = "default",
    ) -> tuple[Ctx, str, dict[str, str]]:
        """A new session. ``turn_seconds`` and ``clock`` (main time + byo-yomi:
        ``{"main_time", "periods", "period_seconds"}``, missing fields from the game's
        default) are the two kinds of timer; ``"default"`` takes the game's, None none."""
        game = build_game(game_id, config)
        adapter = get_adapter(game_id)
        names = game.spec.player_names
        unknown = sorted(set(seats) - set(names))
        if unknown:
            raise BadInput(f"unknown seat(s) {unknown}; the seats of {game_id} are {list(names)}")
        seat_cfg = {}
        for name in names:
            seat_cfg[name] = self._seat_config(game, seats.get(name) or {"type": "human"})
        if turn_seconds == "default":
            turn_seconds = game.spec.turn_seconds
        if turn_seconds is not None and game.spec.turn_seconds is None:
            raise BadInput(f"{game_id} sessions have no turn timer (its rules define none)")
        byo_yomi = self._byo_yomi(game_id, adapter, clock)
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
        self.store.insert(data)
        ctx = self._ctx(self._load(data.id))
        self._kick_if_ai(ctx)
        return ctx, owner, seat_tokens

    @staticmethod
    def _byo_yomi(
        game_id: str, adapter: Adapter, clock: dict[str, Any] | None | str
    ) -> ByoYomiConfig | None:
        """The validated main time + byo-yomi clock of a new session (None: no clock)."""
        default = adapter.byo_yomi_default
        if clock == "default":
            return default
        if clock is None:
            return None
        if default is None:
            raise BadInput(f"{game_id} sessions have no byo-yomi clock (its rules define none)")
        if not isinstance(clock, dict):
            raise BadInput("clock must be an object {main_time, periods, period_seconds}")
        unknown = sorted(set(clock) - {"main_time", "periods", "period_seconds"})
        if unknown:
            raise BadInput(f"unknown clock field(s) {unknown}")
        values = {**default.to_json(), **{k: v for k, v in clock.items() if v is not None}}
        try:
            return ByoYomiConfig(**values)
        except ValueError as exc:
            raise BadInput(str(exc)) from None

    def _seat_config(self, game: Game, seat: dict[str, Any]) -> dict[str, Any]:
        kind = seat.get("type", "human")
        if kind == "human":
            return {"type": "human", "level": None}
        if kind != "ai":
            raise BadInput(f"a seat's type is 'human' or 'ai', not {kind!r}")
        table = self.ai.table(game)
        try:
            level = table.get(seat.get("level"))
        except NotFound as exc:
            raise BadInput(exc.message) from None
        self.ai.player(game, level, seed=0)  # refuses a level that cannot play this configuration
        return {"type": "ai", "level": level.id}

    def get(self, sid: str) -> Ctx:
        return self._fresh(sid)

    def refresh(self, sid: str) -> None:
        """Apply due time-outs and make sure an AI seat to move is thinking."""
        ctx = self._fresh(sid)
        self._kick_if_ai(ctx)

    def move(self, sid: str, token: str | None, move: str, version: int) -> Ctx:
        def op(ctx: Ctx) -> None:
            data = ctx.data
            self._playing(ctx)
            if data.confirm_turns and self._pending_complete(ctx):
                raise Conflict("the turn is complete: confirm it or cancel it")
            current = self._current(ctx)
            seat = ctx.seat_to_play(current)
            if seat is None:
                raise Conflict("the game is over")
            self._authorize(data, token, seat)
            if data.seats[seat]["type"] == "ai":
                level = data.seats[seat]["level"]
                raise Conflict(f"seat {seat!r} is played by the AI (level {level})")
            index = len(data.events) + len(data.pending)
            text = notation(ctx.game, current, move, index)
            new_state = apply_move(ctx.game, current, text, index, self.settings.max_move_chars)
            if data.confirm_turns:
                data.pending.append(text)
            else:
                self._push(ctx, {"t": "move", "m": text, "seat": seat, "by": "human"}, new_state,
                           ctx.now)

        return self._write(sid, version, op)

    def confirm(self, sid: str, token: str | None, version: int) -> Ctx:
        def op(ctx: Ctx) -> None:
            self._playing(ctx)
            if not self._pending_complete(ctx):
                what = "the turn is not complete" if ctx.data.pending else "no provisional moves"
                raise Conflict(f"nothing to confirm: {what}")
            seat = ctx.seat_to_play(ctx.state)
            assert seat is not None
            self._authorize(ctx.data, token, seat)
            pending, ctx.data.pending = ctx.data.pending, []
            for m in pending:
                new_state = apply_move(ctx.game, ctx.state, m, len(ctx.data.events))
                self._push(ctx, {"t": "move", "m": m, "seat": seat, "by": "human"}, new_state,
                           ctx.now)

        return self._write(sid, version, op)

    def cancel(self, sid: str, token: str | None, version: int) -> Ctx:
        def op(ctx: Ctx) -> None:
            self._playing(ctx)
            if not ctx.data.pending:
                raise Conflict("nothing to cancel: no provisional moves")
            seat = ctx.seat_to_play(ctx.state)
            assert seat is not None
            self._authorize(ctx.data, token, seat)
            ctx.data.pending = []

        return self._write(sid, version, op)

    def set_seat(
        self, sid: str, token: str | None, seat: str, kind: str, level: str | None, version: int
    ) -> Ctx:
        def op(ctx: Ctx) -> None:
            if seat not in ctx.data.seats:
                raise NotFound(f"no seat {seat!r}; seats: {list(ctx.data.seats)}")
            self._playing(ctx)
            self._authorize(ctx.data, token, seat)
            ctx.data.seats[seat] = self._seat_config(ctx.game, {"type": kind, "level": level})
            if kind == "ai" and ctx.seat_to_play(ctx.state) == seat:
                ctx.data.pending = []  # the AI plays its turn from the committed position

        return self._write(sid, version, op)

    def resign(self, sid: str, token: str | None, seat: str | None, version: int) -> Ctx:
        def op(ctx: Ctx) -> None:
            if not ctx.adapter.supports_resign:
                raise Conflict(f"{ctx.data.game} has no resignation in its rules")
            self._playing(ctx)
            who = seat or self._token_seat(ctx.data, token) or ctx.seat_to_play(ctx.state)
            if who not in ctx.data.seats:
                raise NotFound(f"no seat {who!r}; seats: {list(ctx.data.seats)}")
            self._authorize(ctx.data, token, who)
            player = next(p for p in range(len(ctx.names)) if ctx.seat_of(p) == who)
            new_state = ctx.adapter.resign(ctx.game, ctx.state, player)
            if new_state is None:  # the engine has no resignation state: the session records it
                self.finish(ctx, loser=who, reason="resignation")
            else:
                ctx.data.pending = []
                event = {"t": "resign", "seat": who, "player": player}
                self._push(ctx, event, new_state, ctx.now, reason="resignation")

        return self._write(sid, version, op)

    def arbitration(self, sid: str, token: str | None, version: int) -> Ctx:
        """A claim that the opponent broke the obligation (TriGolden, ``standard``)."""

        def op(ctx: Ctx) -> None:
            if not ctx.adapter.supports_arbitration(ctx.game):
                raise Conflict(f"arbitration is not part of these {ctx.data.game} rules")
            self._playing(ctx)
            if ctx.data.pending:
                raise Conflict("arbitration is claimed at the start of a turn: cancel first")
            seat = ctx.seat_to_play(ctx.state)
            assert seat is not None  # a playing session's game is not over
            self._authorize(ctx.data, token, seat)
            if ctx.data.seats[seat]["type"] == "ai":
                raise Conflict(f"seat {seat!r} is played by the AI")
            try:
                turn = ctx.adapter.arbitration_turn(ctx.game, ctx.state)
            except IllegalMove as exc:
                raise Conflict(f"no arbitration now: {exc.reason}") from None
            if turn is None:  # the opponent left no legal complete turn: it loses the match
                loser = next(s for s in ctx.names if s != seat)
                self.finish(ctx, loser=loser, reason="arbitration")
                return
            for action in turn:  # the arbiter plays the legal turn it found ...
                move = ctx.game.action_to_move(ctx.state, action)
                ctx.data.events.append({"t": "move", "m": move, "seat": seat, "by": "arbiter"})
                ctx.state = ctx.game.apply(ctx.state, action)
            self.finish(ctx, loser=seat, reason="arbitration")  # ... and the claimant loses

        return self._write(sid, version, op)

    def _scoring_seat(self, ctx: Ctx, token: str | None) -> list[str]:
        """Seats a token speaks for in the scoring phase (the owner: every seat)."""
        if ctx.data.status != "scoring":
            raise Conflict(f"the session is {ctx.data.status}, not scoring")
        seat = self._token_seat(ctx.data, token)
        if seat is not None:
            return [seat]
        self._authorize(ctx.data, token, ctx.names[0])  # owner, or 401
        return list(ctx.names)

    def mark_dead(self, sid: str, token: str | None, dead: list[str], version: int) -> Ctx:
        """Propose the dead chains (replaces the marks; every acceptance is withdrawn)."""

        def op(ctx: Ctx) -> None:
            self._scoring_seat(ctx, token)
            try:
                ctx.adapter.final_score(ctx.game, ctx.state, dead)
            except IllegalMove as exc:
                raise BadInput(f"bad dead-stone mark {exc.move!r}: {exc.reason}") from None
            ctx.data.extras["scoring"] = {"dead": list(dead), "accepted": []}

        return self._write(sid, version, op)

    def accept_score(self, sid: str, token: str | None, version: int) -> Ctx:
        """Accept the marks; when every human seat has, the score is final."""

        def op(ctx: Ctx) -> None:
            seats = self._scoring_seat(ctx, token)
            scoring = ctx.data.extras["scoring"]
            scoring["accepted"] = sorted(set(scoring["accepted"]) | set(seats))
            humans = {s for s, cfg in ctx.data.seats.items() if cfg["type"] == "human"}
            if humans <= set(scoring["accepted"]):
                self._finalize_score(ctx)

        return self._write(sid, version, op)

    def resume(self, sid: str, token: str | None, version: int) -> Ctx:
        """Resume play in the scoring phase (Go): marks and acceptances are dropped, the clock
        of the side to move starts again."""

        def op(ctx: Ctx) -> None:
            seats = self._scoring_seat(ctx, token)
            humans = [s for s in seats if ctx.data.seats[s]["type"] == "human"]
            if not humans:
                raise Conflict(f"seat {seats[0]!r} is played by the AI; a person resumes play")
            try:
                new_state = ctx.adapter.resume(ctx.game, ctx.state)
            except IllegalMove as exc:
                raise Conflict(f"play cannot resume: {exc.reason}") from None
            ctx.data.status = "playing"
            ctx.data.extras.pop("scoring", None)
            by = humans[0] if len(seats) == 1 else "owner"
            self._push(ctx, {"t": "resume", "by": by}, new_state, ctx.now)

        return self._write(sid, version, op)

    def _finalize_score(self, ctx: Ctx) -> None:
        """End the scoring phase with the marked dead chains."""
        dead = ctx.data.extras["scoring"]["dead"]
        final = ctx.adapter.final_score(ctx.game, ctx.state, dead)
        seat_of = [ctx.seat_of(p) for p in range(len(ctx.names))]
        winner = final["winner"]
        res = {
            "reason": "score",
            "score": {seat_of[p]: v for p, v in enumerate(final["points"])},
            "winner": seat_of[winner] if winner is not None else None,
            "returns": {
                seat_of[p]: (0.0 if winner is None else 1.0 if p == winner else -1.0)
                for p in range(len(ctx.names))
            },
            "dead": dead,
            "detail": final["detail"],
        }
        ctx.data.extras.setdefault("game_results", []).append(res)
        ctx.data.status = "over"
        ctx.data.result = self._final_result(ctx)

    def finish(self, ctx: Ctx, loser: str, reason: str) -> None:
        """End the session with ``loser`` losing (resignation, arbitration): decides a match."""
        others = [s for s in ctx.names if s != loser]
        res = {
            "reason": reason,
            "returns": {s: (-1.0 if s == loser else 1.0) for s in ctx.names},
            "winner": others[0] if len(others) == 1 else None,
            "loser": loser,
        }
        ctx.data.extras.setdefault("game_results", []).append(res)
        ctx.data.pending = []
        ctx.data.status = "over"
        ctx.data.turn_started = None
        ctx.data.result = self._final_result(ctx)

    @staticmethod
    def _playing(ctx: Ctx) -> None:
        if ctx.data.status != "playing":
            raise Conflict(f"the session is {ctx.data.status}")

    # ================================================================ AI seats
    def _ai_seat_to_move(self, ctx: Ctx) -> str | None:
        if ctx.data.status != "playing":
            return None
        seat = ctx.seat_to_play(ctx.state)
        if seat is not None and ctx.data.seats[seat]["type"] == "ai":
            return seat
        return None

    def _kick_if_ai(self, ctx: Ctx) -> None:
        if self._ai_seat_to_move(ctx) is not None:
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
            self.ai.submit(self._ai_worker, sid)
        except RuntimeError:  # the pool is shut down: the service is stopping
            with self._cond:
                self._inflight.discard(sid)
                self._cond.notify_all()

    def _ai_worker(self, sid: str) -> None:
        while True:
            try:
                self._ai_loop(sid)
            except ServiceError as exc:
                self.ai_errors[sid] = exc.message
                log.warning("AI seat of session %s cannot move: %s", sid, exc.message)
            except Exception as exc:  # noqa: BLE001  reported on the session, never lost
                self.ai_errors[sid] = f"{type(exc).__name__}: {exc}"
                log.exception("AI seat of session %s failed", sid)
            with self._cond:
                if sid in self._again and not self._closed:
                    self._again.discard(sid)
                    continue
                self._inflight.discard(sid)
                self._cond.notify_all()
                return

    def _ai_loop(self, sid: str) -> None:
        while not self._closed:
            ctx = self._fresh(sid)
            seat = self._ai_seat_to_move(ctx)
            if seat is None:
                return
            level = ctx.data.seats[seat]["level"]
            version = ctx.data.version
            suggestion = self.ai.analyse(ctx.game, ctx.state, level, None)
            ctx.now = self.clock()
            if self._expire(ctx):  # the AI's turn ran out while it searched: no move
                self._commit(ctx, version)
                continue
            new_state = ctx.game.apply(ctx.state, suggestion.action)
            ctx.data.pending = []
            event = {"t": "move", "m": suggestion.move, "seat": seat, "by": "ai", "level": level}
            self._push(ctx, event, new_state, ctx.now)
            if self._commit(ctx, version):
                self.ai_errors.pop(sid, None)
            # on a lost race the loop reloads and thinks again from the new position

    def thinking(self, sid: str) -> bool:
        with self._cond:
            return sid in self._inflight

    # ================================================================ views
    def view(self, ctx: Ctx) -> dict[str, Any]:
        data = ctx.data
        current = self._current(ctx)
        position = describe(ctx.game, current)
        position["to_play"] = ctx.seat_to_play(current) if not position["is_over"] else None
        deadline = self._deadline(ctx) if data.status == "playing" else None
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
            "turn_complete": self._pending_complete(ctx),
            "confirm_turns": data.confirm_turns,
            "position": position,
            "timer": {
                "turn_seconds": data.turn_seconds,
                "turn_started": data.turn_started,
                "deadline": deadline,
                "remaining": max(0.0, deadline - ctx.now) if deadline is not None else None,
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
            "result": data.result,
            "ai_thinking": self.thinking(data.id),
            "ai_error": self.ai_errors.get(data.id),
            "created": data.created,
            "updated": data.updated,
        }
