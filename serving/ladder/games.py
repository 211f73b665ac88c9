"""Making a ladder game: colours, handicap, and a Stereo Go session whose seats belong to the
two players, written in the caller's transaction together with the ladder's record of it and
the players' ``match_found`` events.

Seat ownership: a seat played by a ladder player carries ``"player": <id>`` and the hash of
that player's API token as its seat token, so the player acts in the session with their own
token and nobody else can act for that seat (:mod:`serving.sessions.tokens`); the session's
owner token is drawn and thrown away, so no token acts for both seats. Seats owned by players
cannot be handed to an AI (:func:`serving.sessions.turns.set_seat`).
"""

from __future__ import annotations

import logging
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from serving.clocks import Clock
from serving.db import SessionStore
from serving.ladder import farming, notices, rules
from serving.ladder.ai_players import AILevel, OptionSet, option_set
from serving.ladder.options import GAME, GameOptions
from serving.ladder.store import LadderGameRow, PlayerRow, last_meeting_black
from serving.levels import LevelRegistry
from serving.sessions.manager import SessionManager

log = logging.getLogger("qizero.serving")


@dataclass(frozen=True)
class Seating:
    """Who plays Black and White, with how many handicap stones."""

    black: PlayerRow
    white: PlayerRow
    handicap: int


def seat(s: Session, a: PlayerRow, b: PlayerRow, options: GameOptions,
         rng: random.Random) -> Seating:
    """Colours by the ladder's rules; a handicap game (both asked for one, ranks apart) gives
    the weaker player Black with one stone per rank of difference *(project rule)*."""
    if options.handicap and rules.rank_gap(a.points, b.points) > 0:
        weak, strong = (a, b) if a.points < b.points else (b, a)
        return Seating(weak, strong, rules.handicap(weak.points, strong.points))
    facts = [rules.ColourFacts(p.id, p.points, p.last_result) for p in (a, b)]  # type: ignore[arg-type]
    black, _ = rules.colours(facts[0], facts[1], last_meeting_black(s, a.id, b.id), rng)
    return Seating(a, b, 0) if black == a.id else Seating(b, a, 0)


def create_game(
    s: Session,
    sessions: SessionManager,
    seating: Seating,
    options: GameOptions,
    config: dict[str, Any],
) -> str:
    """Write a new ladder game (its session and its record) in transaction ``s``; the
    session id. ``config`` is the game's options (an AI level's own where one plays)."""
    by_colour = {"black": seating.black, "white": seating.white}
    seats = {
        colour: {"type": "ai", "level": p.ai_level} if p.kind == "ai" else {"type": "human"}
        for colour, p in by_colour.items()
    }
    data, _, _ = sessions.prepare(GAME, config, seats, clock=options.clock)
    for colour, p in by_colour.items():
        data.seats[colour]["player"] = p.id
        if p.token_hash is not None:
            data.seat_hashes[colour] = p.token_hash
    gap = rules.rank_gap(seating.black.points, seating.white.points)
    kind = "friendly" if gap >= rules.FRIENDLY_GAP else "rated"
    game_id = secrets.token_urlsafe(12)
    data.extras["ladder"] = {
        "game": game_id,
        "kind": kind,
        "players": {colour: p.id for colour, p in by_colour.items()},
        "handicap": seating.handicap,
    }
    data.extras.update(farming.variety_extras(kind))  # a rated game's AI varies its opening
    SessionStore.add(s, data)
    game = LadderGameRow(
        id=game_id,
        session_id=data.id,
        status="playing",
        kind=kind,
        black_id=seating.black.id,
        white_id=seating.white.id,
        options=options.to_json(),
        handicap=seating.handicap,
        black_points_start=seating.black.points,
        white_points_start=seating.white.points,
        created=data.created,
    )
    s.add(game)
    notices.match_found(s, game, seating.black, seating.white)
    return data.id


@dataclass
class Games:
    """What the matcher and the challenges share: the database, the sessions, the AI levels,
    the clock and the colour rule's rng, and making a game from them."""

    store: SessionStore
    sessions: SessionManager
    levels: LevelRegistry
    ai_players: Callable[[], list[AILevel]]
    clock: Clock
    rng: random.Random = field(default_factory=random.Random)

    def make(self, s: Session, a: PlayerRow, b: PlayerRow, options: GameOptions,
             config: dict[str, Any] | None = None) -> str:
        """Seat ``a`` and ``b`` and write their game in ``s``; the session id. ``config``: an
        AI level's own options (default: the options asked for, with the handicap)."""
        seating = seat(s, a, b, options, self.rng)
        return create_game(s, self.sessions, seating, options,
                           config if config is not None else options.config(seating.handicap))

    def option_set(self, options: GameOptions) -> OptionSet:
        """Who plays a game asked for with ``options``, and under which options (resolved
        once for all the AI levels a waiting player could get)."""
        return option_set(options.config(), self.levels)

    def ai_config(self, ai: AILevel, options: GameOptions) -> dict[str, Any] | None:
        """The options ``ai`` plays a game asked for with ``options`` under (None: it cannot)."""
        return self.option_set(options).plays(ai)

    def start(self, session_ids: list[str]) -> None:
        """Games just committed: an AI seat to move starts thinking."""
        for sid in session_ids:
            try:
                self.sessions.started(sid)
            except Exception:  # noqa: BLE001  the session is stored; the poller resumes it
                log.exception("ladder: cannot start session %s", sid)
