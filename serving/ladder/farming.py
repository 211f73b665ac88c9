"""A ladder that cannot be farmed: the two rules that keep a person from winning points off
an AI level by replaying a line that beats it (``docs/ladder.md``, "Repeated games").

* **Opening variety.** In a rated game an AI level varies its first :data:`OPENING_PLIES`
  plies among the moves its search rates near-equal (:mod:`agents.variety`), drawn with an
  rng seeded by the session id and the ply (:func:`serving.sessions.ai_seats.move_plan`):
  the same game searched again (a restart, another replica taking the seat over) draws the
  same move, another game draws its own. The rule's parameters are written into the session
  when the game is made (:func:`variety_extras`), so a game keeps the rule it started with.
* **The repeat rule** (lichess's, for games against bots): a rated game against an AI level
  whose first 20 plies and winner are those of one of the pair's last two recorded games is
  not rated (:func:`repeated`): no points change, and the reason is kept with the game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agents.variety import OpeningVariety
from serving.sessions.ai_seats import VARIETY_KEY

OPENING_PLIES = 20  # the plies the repeat rule compares, and the AI varies
REPEAT_WINDOW = 2  # the pair's last games a new one is compared with
VARIETY = OpeningVariety(plies=OPENING_PLIES, visits=0.4, margin=0.03, share=0.5)


def variety_extras(kind: str) -> dict[str, Any]:
    """What a new ladder session's ``extras`` get: the variety rule for a rated game."""
    return {VARIETY_KEY: VARIETY.to_json()} if kind == "rated" else {}


def opening(moves: Sequence[str]) -> list[str]:
    """The part of a game the repeat rule compares: its first :data:`OPENING_PLIES` moves
    (passes included; a shorter game is compared whole, so it repeats only a game of exactly
    the same moves)."""
    return list(moves[:OPENING_PLIES])


@dataclass(frozen=True)
class PastGame:
    """One of the pair's recorded games, as the repeat rule sees it: its id, the first
    plies and the winning player's id (None: a draw)."""

    id: str
    opening: list[str] | None  # None: recorded before the rule (never a repeat)
    winner: str | None


def repeated(moves: list[str], winner: str | None, last: Sequence[PastGame]) -> str | None:
    """Why a rated game against an AI level is not rated, or None if it is: the reason names
    the first of the pair's last :data:`REPEAT_WINDOW` games (``last``, newest first) with
    the same :func:`opening` and the same winning player. Colours are not compared: they
    alternate between meetings, so the game one back always had the other colours."""
    mine = opening(moves)
    for past in last[:REPEAT_WINDOW]:
        if past.opening == mine and past.winner == winner:
            return (f"repeats game {past.id}: the same first {len(mine)} plies and "
                    f"{'winner' if winner is not None else 'draw'}")
    return None
