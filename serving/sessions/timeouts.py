"""Time-outs: applying every one that is due (the replica holding a session's lease looks for
them: :mod:`serving.sessions.drivers`; any request applies those due before it acts).

The time controls themselves (what a turn costs, when time is up) are
:mod:`serving.clocks`'; here the session applies them: at the deadline either the game's
``time_out`` rule plays (the next turn starts at the deadline) or the side loses on time.
Deadlines are exact instants computed from stored numbers, so time-outs applied late (after a
restart, on the next request, by the poller) land exactly where they would have.
*(service choice)* Wall-clock time while the server is down counts.
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


def expire(ctx: Ctx) -> bool:
    """Apply every time-out due by ``ctx.now``; True if anything changed."""
    data, changed = ctx.data, False
    for _ in range(MAX_TIMEOUTS_PER_CALL):
        due = deadline(ctx) if data.status == "playing" else None
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
