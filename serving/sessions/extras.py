"""Session operations that exist only where a game's adapter offers them: resignation and
draw offers (Stereo Go), arbitration (TriGolden ``standard``) and Go's scoring phase (marking
dead chains, accepting the score, resuming play).

The game-specific work is the adapter's (:mod:`serving.adapters`); here is what the session
does around it: who may ask, what is recorded, how the session ends. Each operation works on a
loaded :class:`Ctx`; the session manager commits the result.
"""

from __future__ import annotations

from envs.core import IllegalMove
from serving.errors import BadInput, Conflict, NotFound
from serving.sessions.context import Ctx
from serving.sessions.machine import push, require_playing
from serving.sessions.results import draw, finalize_score, finish
from serving.sessions.tokens import authorize, token_seat


def resign(ctx: Ctx, token: str | None, seat: str | None) -> None:
    """``seat`` (default: the token's seat, else the side to move) resigns."""
    if not ctx.adapter.supports_resign:
        raise Conflict(f"{ctx.data.game} has no resignation in its rules")
    require_playing(ctx)
    who = seat or token_seat(ctx.data, token) or ctx.seat_to_play(ctx.state)
    if who not in ctx.data.seats:
        raise NotFound(f"no seat {who!r}; seats: {list(ctx.data.seats)}")
    authorize(ctx.data, token, who)
    player = next(p for p in range(len(ctx.names)) if ctx.seat_of(p) == who)
    new_state = ctx.adapter.resign(ctx.game, ctx.state, player)
    if new_state is None:  # the engine has no resignation state: the session records it
        finish(ctx, loser=who, reason="resignation")
    else:
        ctx.data.pending = []
        event = {"t": "resign", "seat": who, "player": player}
        push(ctx, event, new_state, ctx.now, reason="resignation")


def _acting_seat(ctx: Ctx, token: str | None, seat: str) -> str:
    """The seat ``token`` acts as: its own seat for a seat token, ``seat`` for the owner token
    (401 for none or an unknown one)."""
    own = token_seat(ctx.data, token)
    if own is not None:
        return own
    authorize(ctx.data, token, seat)
    return seat


def offer_draw(ctx: Ctx, token: str | None) -> None:
    """The side to move offers a draw; it stands until the other side answers or an event
    (a move, a time-out) changes the position. One offer a turn: a declined one stays shown
    until the next event."""
    if not ctx.adapter.supports_draw_offers:
        raise Conflict(f"{ctx.data.game} has no draw by agreement in its rules")
    require_playing(ctx)
    seat = ctx.seat_to_play(ctx.state)
    assert seat is not None  # a playing session's game is not over
    if _acting_seat(ctx, token, seat) != seat:
        raise Conflict(f"a draw is offered on your own turn; {seat!r} is to move")
    other = next(s for s in ctx.names if s != seat)
    if ctx.data.seats[other]["type"] == "ai":
        raise Conflict(f"seat {other!r} is played by the AI, which does not agree to draws")
    offer = ctx.data.extras.get("draw_offer")
    if offer is not None:
        raise Conflict(f"a draw offer was {offer['status']} this turn; offer again after a move")
    ctx.data.extras["draw_offer"] = {"by": seat, "to": other, "status": "open",
                                     "at": ctx.now, "move": len(ctx.data.events)}


def answer_draw(ctx: Ctx, token: str | None, accept: bool) -> None:
    """The other side accepts the standing draw offer (the game ends drawn, reason
    ``agreement``) or declines it (play goes on)."""
    require_playing(ctx)
    offer = ctx.data.extras.get("draw_offer")
    if offer is None or offer["status"] != "open":
        raise Conflict("no draw offer stands")
    if _acting_seat(ctx, token, offer["to"]) != offer["to"]:
        raise Conflict(f"the offer is {offer['to']!r}'s to answer")
    if not accept:
        offer["status"] = "declined"
        return
    ctx.data.extras.pop("draw_offer")
    ctx.data.events.append({"t": "draw", "offered_by": offer["by"], "accepted_by": offer["to"],
                            "at": ctx.now})
    draw(ctx, "agreement")


def arbitration(ctx: Ctx, token: str | None) -> None:
    """A claim that the opponent broke the obligation (TriGolden, ``standard``)."""
    if not ctx.adapter.supports_arbitration(ctx.game):
        raise Conflict(f"arbitration is not part of these {ctx.data.game} rules")
    require_playing(ctx)
    if ctx.data.pending:
        raise Conflict("arbitration is claimed at the start of a turn: cancel first")
    seat = ctx.seat_to_play(ctx.state)
    assert seat is not None  # a playing session's game is not over
    authorize(ctx.data, token, seat)
    if ctx.data.seats[seat]["type"] == "ai":
        raise Conflict(f"seat {seat!r} is played by the AI")
    try:
        turn = ctx.adapter.arbitration_turn(ctx.game, ctx.state)
    except IllegalMove as exc:
        raise Conflict(f"no arbitration now: {exc.reason}") from None
    if turn is None:  # the opponent left no legal complete turn: it loses the match
        loser = next(s for s in ctx.names if s != seat)
        finish(ctx, loser=loser, reason="arbitration")
        return
    for action in turn:  # the arbiter plays the legal turn it found ...
        move = ctx.game.action_to_move(ctx.state, action)
        ctx.data.events.append({"t": "move", "m": move, "seat": seat, "by": "arbiter"})
        ctx.state = ctx.game.apply(ctx.state, action)
    finish(ctx, loser=seat, reason="arbitration")  # ... and the claimant loses


def scoring_seats(ctx: Ctx, token: str | None) -> list[str]:
    """Seats a token speaks for in the scoring phase (the owner: every seat)."""
    if ctx.data.status != "scoring":
        raise Conflict(f"the session is {ctx.data.status}, not scoring")
    seat = token_seat(ctx.data, token)
    if seat is not None:
        return [seat]
    authorize(ctx.data, token, ctx.names[0])  # owner, or 401
    return list(ctx.names)


def mark_dead(ctx: Ctx, token: str | None, dead: list[str]) -> None:
    """Propose the dead chains (replaces the marks; every acceptance is withdrawn)."""
    scoring_seats(ctx, token)
    try:
        ctx.adapter.final_score(ctx.game, ctx.state, dead)
    except IllegalMove as exc:
        raise BadInput(f"bad dead-stone mark {exc.move!r}: {exc.reason}") from None
    ctx.data.extras["scoring"] = {"dead": list(dead), "accepted": []}


def accept_score(ctx: Ctx, token: str | None) -> None:
    """Accept the marks; when every human seat has, the score is final."""
    seats = scoring_seats(ctx, token)
    scoring = ctx.data.extras["scoring"]
    scoring["accepted"] = sorted(set(scoring["accepted"]) | set(seats))
    humans = {s for s, cfg in ctx.data.seats.items() if cfg["type"] == "human"}
    if humans <= set(scoring["accepted"]):
        finalize_score(ctx)


def resume(ctx: Ctx, token: str | None) -> None:
    """Resume play in the scoring phase (Go): marks and acceptances are dropped, the clock of
    the side to move starts again."""
    seats = scoring_seats(ctx, token)
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
    push(ctx, {"t": "resume", "by": by}, new_state, ctx.now)
