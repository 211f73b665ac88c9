"""The ladder's live events, on each player's channel ``player:{id}`` (:mod:`serving.events`),
streamed by ``GET /v1/players/{id}/events``.

Each is published inside the transaction of the change it tells, so it exists exactly when
that change is committed: ``match_found`` with the pairing (or an accepted challenge) that
makes a game, ``rank_change`` with the rating of a rated game or a membership grant,
``game_over`` with the end of a friendly or void game. Channels are taken in id order (a
transaction that publishes on two must not deadlock with another on PostgreSQL).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from serving.events import publish
from serving.ladder import rules
from serving.ladder.store import LadderGameRow, PlayerRow


def channel(player_id: str) -> str:
    """A player's event channel."""
    return f"player:{player_id}"


def _rank(points: int) -> dict[str, Any]:
    return {"rank": rules.rank_of(points).name, "points": points}


def match_found(s: Session, game: LadderGameRow, black: PlayerRow, white: PlayerRow) -> None:
    """Tell both players their new game: session, colour, opponent, kind, handicap."""
    seats = {"black": black, "white": white}
    for colour in sorted(seats, key=lambda c: seats[c].id):
        me = seats[colour]
        other = seats["white" if colour == "black" else "black"]
        publish(s, channel(me.id), "match_found", {
            "game": game.id, "session": game.session_id, "colour": colour, "kind": game.kind,
            "handicap": game.handicap, "options": game.options,
            "opponent": {"id": other.id, "name": other.name, "kind": other.kind,
                         **_rank(other.points)},
        }, game.created)


def game_over(s: Session, game: LadderGameRow, kind: str, outcome: dict[str, Any],
              at: float) -> None:
    """Tell both players how their game counted: ``rank_change`` for a rated game (points
    and ranks before and after, promoted or demoted), ``game_over`` for a friendly, void or
    unrated (repeated) one, the last two with the reason (``why``)."""
    ids = {"black": game.black_id, "white": game.white_id}
    for colour in sorted(ids, key=lambda c: ids[c]):
        data: dict[str, Any] = {"game": game.id, "session": game.session_id, "kind": kind,
                                "colour": colour}
        if kind == "void":
            publish(s, channel(ids[colour]), "game_over", {**data, "why": outcome["why"]}, at)
            continue
        data["result"] = outcome["results"][colour]
        if kind in ("friendly", "unrated"):  # unrated: a repeated game, with the reason
            extra = {"why": outcome["why"]} if "why" in outcome else {}
            publish(s, channel(ids[colour]), "game_over", {**data, **extra}, at)
            continue
        points = outcome["points"][colour]
        publish(s, channel(ids[colour]), "rank_change",
                {**data, **rank_change(points["before"], points["after"])}, at)


def rank_change(before: int, after: int) -> dict[str, Any]:
    """Points and ranks before and after, and whether the rank went up or down."""
    b, a = rules.rank_of(before), rules.rank_of(after)
    return {"points": {"before": before, "after": after, "change": after - before},
            "ranks": {"before": b.name, "after": a.name},
            "promoted": a.index > b.index, "demoted": a.index < b.index}


def granted(s: Session, player: PlayerRow, before: int, yuan: int, at: float) -> None:
    """Tell a player their membership grant."""
    publish(s, channel(player.id), "rank_change",
            {"kind": "grant", "yuan": yuan, **rank_change(before, player.points)}, at)
