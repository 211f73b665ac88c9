"""Time-outs: applying every one that is due (the replica holding a session's lease looks for
them: :mod:`serving.sessions.drivers`; any request applies those due before it acts).

The time controls themselves (what a turn costs, when time is up) are
:mod:`serving.clocks`'; here the session applies them: at the deadline either the game's
``time_out`` rule plays (the next turn starts at the deadline) or the side loses on time.
Deadlines are exact instants computed from stored numbers, so time-outs applied late (after a
restart, on the next request, by the poller) land exactly where they would have.
*(service choice)* Wall-clock time while the server is down counts.

A ladder game's absence rule (:mod:`serving.ladder.presence`) adds one more instant: a seat's
``loses_at`` in ``ctx.presence``, when an absence from the fourth disconnection on has lasted
longer than the seat's byo-yomi, and the seat loses on time whoever is to move. It is applied
here with the clock's deadlines, in time order, so a late application lands where it would
have and no move made after it counts.
"""

from __future__ import annotations

from envs.core import IllegalMove
from serving.clocks import time_control
from serving.sessions.context import Ctx
from serving.sessions.machine import push
from serving.sessions.results import finish

MAX_TIMEOUTS_PER_CALL = 1000


def deadline(ctx: Ctx) -> float | None:
    """When the running side's time is up (None: no clock runs)."""
    clock = time_control(ctx.data)
    seat = ctx.seat_to_play(ctx.state)
    if clock is None or ctx.data.turn_started is None or seat is None:
        return None
    return clock.deadline(ctx.data, seat)


def absence_limit(ctx: Ctx) -> tuple[float, str] | None:
    """The earliest ``(instant, seat)`` at which an absent seat loses on time (None: none)."""
    if ctx.presence is None or ctx.data.status not in ("playing", "scoring"):
        return None
    limits = [(p["loses_at"], seat) for seat, p in ctx.presence.items()
              if p.get("loses_at") is not None]
    return min(limits) if limits else None


def lose_absent(ctx: Ctx, at: float, seat: str) -> None:
    """``seat`` loses on time at ``at`` for its absence: the running clock is charged up to
    then (whoever is to move) and the game ends as a loss on time does."""
    data = ctx.data
    clock = time_control(data)
    running = ctx.seat_to_play(ctx.state) if data.status == "playing" else None
    started = data.turn_started
    if clock is not None and running is not None and started is not None and started <= at:
        clock.charge(data, running, at)
    data.pending = []
    data.events.append({"t": "time_loss", "seat": seat, "at": at, "absent": True})
    finish(ctx, loser=seat, reason="time")


def expire(ctx: Ctx) -> bool:
    """Apply every time-out due by ``ctx.now``; True if anything changed."""
    data, changed = ctx.data, False
    for _ in range(MAX_TIMEOUTS_PER_CALL):
        due = deadline(ctx) if data.status == "playing" else None
        absent = absence_limit(ctx)
        if absent is not None and absent[0] <= ctx.now and (due is None or absent[0] < due):
            lose_absent(ctx, *absent)
            return True
        if due is None or ctx.now < due:
            break
        clock = time_control(data)
        seat = ctx.seat_to_play(ctx.state)
        assert clock is not None and seat is not None  # a deadline implies both
        data.pending = []
        if clock.loses_on_time:
            clock.charge(data, seat, due)  # everything used up
            data.events.append({"t": "time_loss", "seat": seat, "at": due})
            finish(ctx, loser=seat, reason="time")
            return True
        try:
            new_state = ctx.game.time_out(ctx.state)
        except (NotImplementedError, IllegalMove):
            data.turn_started = None  # nothing a time-out can do: stop the clock
            changed = True
            break
        push(ctx, {"t": "timeout", "seat": seat, "at": due}, new_state, due)
        changed = True
        # a time-out always hands the turn over, so the next turn starts at the deadline
        if data.status == "playing":
            data.turn_started = due
    return changed
