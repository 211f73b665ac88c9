"""What a committed change of a session tells the streams that follow it: the events published
on the session's channel ``session:{id}`` in the same transaction (:mod:`serving.events`).

The events are read off the change itself (the session now against its
:class:`~serving.sessions.context.Baseline`), so every way a session changes (a route, an AI
seat, a time-out applied by the poller) tells the same story and none can forget to. In order:

* per game touched: ``game_start`` (a new game of a match), each new stored game event as a
  kind of its own (``move``, ``timeout``, ``resign``, ``resume``, ``time_loss``, and any type
  added later) with its fields, the game number and its index in the game, then ``game_end``
  with the game's result;
* what the operation published itself (:meth:`~serving.sessions.context.Ctx.publish`);
* ``clock`` after every game event and whenever a clock started, stopped or was charged:
  the running seat, its deadline, and per seat the main time and byo-yomi left;
* ``pending`` (the provisional moves), ``seat`` (a seat handed over or given another level);
* one event per changed key of the session's extras, named after the key, with its new value
  (``scoring`` in Go's scoring phase; a ``draw_offer`` kept there by a later module is a kind
  of its own with no change here);
* ``end`` with the session's result: it closes the channel.

Every event's data carries the session ``version`` the change produced.
"""

from __future__ import annotations

import copy
from typing import Any

from serving.clocks import time_control
from serving.events import Draft
from serving.sessions.context import Ctx
from serving.sessions.timeouts import deadline

# Extras told by events of their own (``clock``, ``game_end``), not as a kind named after them.
TOLD_ELSEWHERE = frozenset({"clock", "game_results"})


def channel(session_id: str) -> str:
    """The event channel of a session."""
    return f"session:{session_id}"


def clock_data(ctx: Ctx) -> dict[str, Any]:
    """The clock as the change left it: figures at the start of the running turn, and its
    deadline (clients count down from there)."""
    data = ctx.data
    control = time_control(data)
    playing = data.status == "playing" and data.turn_started is not None
    running = ctx.seat_to_play(ctx.state) if playing else None
    started = data.turn_started if data.turn_started is not None else ctx.now
    return {
        "running": running,
        "turn_seconds": data.turn_seconds,
        "turn_started": data.turn_started,
        "deadline": deadline(ctx) if playing else None,
        "clock": control.view(data, running, started) if control is not None else None,
    }


def _games(ctx: Ctx) -> list[tuple[str, dict[str, Any]]]:
    data, base = ctx.data, ctx.base
    results = data.extras.get("game_results", [])
    told = len(base.extras.get("game_results", []))
    out: list[tuple[str, dict[str, Any]]] = []
    for g in range(base.games - 1, len(data.games)):
        if g >= base.games:
            out.append(("game_start", {"game": g + 1}))
        start = base.events if g == base.games - 1 else 0
        for i, ev in enumerate(data.games[g][start:], start):
            fields = {k: copy.deepcopy(v) for k, v in ev.items() if k != "t"}
            out.append((ev["t"], {"game": g + 1, "index": i, **fields}))
        if told <= g < len(results):
            out.append(("game_end", {"game": g + 1, "result": results[g]}))
    return out


def drafts(ctx: Ctx) -> list[Draft]:
    """The events of the change from ``ctx.base`` to ``ctx.data`` (version already set)."""
    data, base = ctx.data, ctx.base
    told = _games(ctx)
    moved = len(told) > 0
    told += ctx.outbox
    clock_moved = (data.turn_started != base.turn_started
                   or data.extras.get("clock") != base.extras.get("clock"))
    if time_control(data) is not None and (moved or clock_moved):
        told.append(("clock", clock_data(ctx)))
    if data.pending != base.pending:
        told.append(("pending", {"moves": list(data.pending),
                                 "complete": ctx.pending_complete()}))
    for seat, cfg in data.seats.items():
        if base.seats.get(seat) != cfg:
            told.append(("seat", {"seat": seat, **cfg}))
    for key in sorted((set(base.extras) | set(data.extras)) - TOLD_ELSEWHERE):
        if base.extras.get(key) != data.extras.get(key):
            told.append((key, {"value": copy.deepcopy(data.extras.get(key))}))
    over = data.status == "over" and base.status != "over"
    if over:
        told.append(("end", {"status": data.status, "result": data.result}))
    ch = channel(data.id)
    return [
        Draft(ch, kind, {**payload, "version": data.version}, ctx.now,
              close=over and i == len(told) - 1)
        for i, (kind, payload) in enumerate(told)
    ]
