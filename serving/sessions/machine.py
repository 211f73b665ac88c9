"""The session state machine over the Game protocol: replaying stored events, appending a
committed event and settling what follows it (the clock's hand-over, the end of a game, the
next game of a match, Go's scoring phase).

A session is stored as its events (moves, time-outs, resignation, resumption of play, loss on
time, a draw by agreement) per game of its match; the state of the game in progress is their
replay through the rules, so the rules stay the one source of truth. Everything a game does
beyond the protocol is asked of its adapter (:mod:`serving.adapters`).
"""

from __future__ import annotations

from typing import Any

from envs.core import Game
from serving.adapters import Adapter
from serving.catalogue import apply_move, result_of
from serving.clocks import ByoYomi, time_control
from serving.errors import Conflict
from serving.sessions.context import Ctx
from serving.sessions.results import by_seat, final_result, finalize_score


def replay_event(game: Game, adapter: Adapter, state: Any, ev: dict[str, Any], i: int) -> Any:
    """The state after stored event ``ev`` (the ``i``-th of its game)."""
    if ev["t"] == "move":
        return apply_move(game, state, ev["m"], i)
    if ev["t"] == "timeout":
        return game.time_out(state)
    if ev["t"] == "resign":
        return adapter.resign(game, state, ev["player"])
    if ev["t"] == "resume":
        return adapter.resume(game, state)
    if ev["t"] in ("time_loss", "draw"):
        return state  # the session records the result; the position stays as it was
    raise ValueError(f"unknown stored event {ev!r}")


def push(
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
    data.extras.pop("draw_offer", None)  # an offer is for the position it was made in
    ctx.state = new_state
    after = ctx.seat_to_play(new_state)
    clock = time_control(data)
    handed_over = after != before and clock is not None
    started = data.turn_started
    if clock is not None and handed_over and before is not None and started is not None:
        clock.charge(data, before, turn_start)
    if ctx.game.is_terminal(new_state):
        end_game(ctx, turn_start, reason)
    elif handed_over:
        data.turn_started = turn_start


def end_game(ctx: Ctx, now: float, reason: str = "rules") -> None:
    """A game of the session is over: scoring phase, next game of the match, or the end."""
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
            finalize_score(ctx)  # no person to agree with: every stone counts
        return
    game_result = by_seat(ctx, res, reason)
    data.extras.setdefault("game_results", []).append(game_result)
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
    data.result = final_result(ctx)


def require_playing(ctx: Ctx) -> None:
    """409 unless the session is being played (not over, not in Go's scoring phase)."""
    if ctx.data.status != "playing":
        raise Conflict(f"the session is {ctx.data.status}")
