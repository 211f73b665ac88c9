"""What people do in every game's sessions: moves, provisional turns (confirm, cancel) and seat
changes.

Each operation works on a loaded :class:`Ctx` and raises a service error when the session,
the token or the move does not allow it; the session manager commits the result. Provisional
turns (``confirm_turns``): moves go to ``pending`` until the turn is complete, then the player
confirms them (they become events) or cancels them. AI turns are committed directly
(:mod:`serving.sessions.ai_seats`).
"""

from __future__ import annotations

from typing import Any

from serving.ai import AIEngine
from serving.catalogue import apply_move, notation
from serving.errors import Conflict, NotFound
from serving.sessions.ai_seats import seat_config
from serving.sessions.context import Ctx
from serving.sessions.machine import push, require_playing
from serving.sessions.tokens import authorize


def move(ctx: Ctx, token: str | None, move: str | dict[str, Any], max_chars: int) -> None:
    """Play a move for the side to move (provisional where turns are confirmed)."""
    data = ctx.data
    require_playing(ctx)
    if data.confirm_turns and ctx.pending_complete():
        raise Conflict("the turn is complete: confirm it or cancel it")
    current = ctx.current()
    seat = ctx.seat_to_play(current)
    if seat is None:
        raise Conflict("the game is over")
    authorize(data, token, seat)
    if data.seats[seat]["type"] == "ai":
        level = data.seats[seat]["level"]
        raise Conflict(f"seat {seat!r} is played by the AI (level {level})")
    index = len(data.events) + len(data.pending)
    text = notation(ctx.game, current, move, index)
    new_state = apply_move(ctx.game, current, text, index, max_chars)
    if data.confirm_turns:
        data.pending.append(text)
    else:
        push(ctx, {"t": "move", "m": text, "seat": seat, "by": "human"}, new_state, ctx.now)


def confirm(ctx: Ctx, token: str | None) -> None:
    """Commit the complete provisional turn."""
    require_playing(ctx)
    if not ctx.pending_complete():
        what = "the turn is not complete" if ctx.data.pending else "no provisional moves"
        raise Conflict(f"nothing to confirm: {what}")
    seat = ctx.seat_to_play(ctx.state)
    assert seat is not None
    authorize(ctx.data, token, seat)
    pending, ctx.data.pending = ctx.data.pending, []
    for m in pending:
        new_state = apply_move(ctx.game, ctx.state, m, len(ctx.data.events))
        push(ctx, {"t": "move", "m": m, "seat": seat, "by": "human"}, new_state, ctx.now)


def cancel(ctx: Ctx, token: str | None) -> None:
    """Take back the provisional moves of this turn."""
    require_playing(ctx)
    if not ctx.data.pending:
        raise Conflict("nothing to cancel: no provisional moves")
    seat = ctx.seat_to_play(ctx.state)
    assert seat is not None
    authorize(ctx.data, token, seat)
    ctx.data.pending = []


def set_seat(
    ctx: Ctx, ai: AIEngine, token: str | None, seat: str, kind: str, level: str | None
) -> None:
    """Hand ``seat`` to a person or an AI level, or change its level."""
    if seat not in ctx.data.seats:
        raise NotFound(f"no seat {seat!r}; seats: {list(ctx.data.seats)}")
    require_playing(ctx)
    authorize(ctx.data, token, seat)
    owner = ctx.data.seats[seat].get("player")
    if owner is not None:  # a ladder game: nobody hands a rated seat to an AI
        raise Conflict(f"seat {seat!r} belongs to ladder player {owner!r}; it cannot change")
    ctx.data.seats[seat] = seat_config(ai, ctx.game, {"type": kind, "level": level})
    if kind == "ai" and ctx.seat_to_play(ctx.state) == seat:
        ctx.data.pending = []  # the AI plays its turn from the committed position
