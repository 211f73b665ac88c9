"""Challenges: one player asks a named other for a game; the game is made when they accept.

*(project decision)* This is how a ladder game between players two or more ranks apart comes
about (automatic matching never pairs them): it is a **friendly** game, recorded and shown as
"friendly", with no points. A challenge between players within one rank makes a rated game,
and then the one-rated-game rule holds: neither may be in a rated game or in the queue. An AI
level accepts at once any challenge for options it plays (an even game), so a player whose
rank has no AI level within one rank still finds an opponent, in a friendly game.
"""

from __future__ import annotations

import dataclasses
import secrets
from typing import Any

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from serving.errors import BadInput, Conflict, Forbidden, NotFound
from serving.ladder import rules
from serving.ladder.games import Games
from serving.ladder.options import GameOptions
from serving.ladder.players import PLAYER_ID
from serving.ladder.store import (
    ChallengeRow,
    PlayerRow,
    QueueRow,
    active_games,
    lock_players,
)

MAX_OPEN = 20  # open challenges a player may have sent at once


def challenge_view(c: ChallengeRow) -> dict[str, Any]:
    return {"id": c.id, "challenger": c.from_id, "opponent": c.to_id, "options": c.options,
            "status": c.status, "created": c.created, "session": c.session_id}


class Challenges:
    """Sending, accepting, declining or withdrawing challenges, and listing one's own."""

    def __init__(self, games: Games) -> None:
        self.games = games
        self.store, self.clock = games.store, games.clock

    def send(self, player_id: str, opponent: str, options: GameOptions) -> dict[str, Any]:
        """A challenge to ``opponent``; an AI level accepts it at once (the game is made)."""
        if opponent == player_id:
            raise BadInput("a challenge is for another player")
        with self.store.transaction() as s:
            players = lock_players(s, [player_id, opponent])
            if opponent not in players:
                raise NotFound(f"no player {opponent!r}", player=opponent)
            mine = s.scalars(select(ChallengeRow).where(ChallengeRow.from_id == player_id,
                                                        ChallengeRow.status == "open")).all()
            if len(mine) >= MAX_OPEN:
                raise Conflict(f"at most {MAX_OPEN} open challenges at once")
            row = ChallengeRow(id=secrets.token_urlsafe(9), from_id=player_id, to_id=opponent,
                               options=options.to_json(), status="open", created=self.clock(),
                               session_id=None)
            s.add(row)
            if players[opponent].kind == "ai":
                config = self._ai_config(opponent, options)
                row.status = "accepted"
                even = dataclasses.replace(options, handicap=False)  # AI levels: even games
                row.session_id = self._make(s, players[player_id], players[opponent], even,
                                            config)
            view = challenge_view(row)
        if view["session"] is not None:
            self.games.start([view["session"]])
        return view

    def _ai_config(self, ai_id: str, options: GameOptions) -> dict[str, Any]:
        """The game options an AI level plays the challenge under (409 if it cannot)."""
        ai = next((a for a in self.games.ai_players() if a.player_id == ai_id), None)
        config = None if ai is None else self.games.ai_config(ai, options)
        if config is None:
            raise Conflict(f"AI player {ai_id!r} does not play {options.board} with "
                           f"{options.rules} rules")
        return config

    def mine(self, player_id: str) -> list[dict[str, Any]]:
        """Open challenges sent or received, newest first."""
        with self.store.reader() as s:
            rows = s.scalars(
                select(ChallengeRow)
                .where(ChallengeRow.status == "open",
                       or_(ChallengeRow.from_id == player_id, ChallengeRow.to_id == player_id))
                .order_by(ChallengeRow.created.desc(), ChallengeRow.id))
            return [challenge_view(c) for c in rows]

    def accept(self, player_id: str, challenge_id: str) -> dict[str, Any]:
        """The challenged player accepts: the game is made (rated or friendly)."""
        with self.store.transaction() as s:
            c = self._take(s, challenge_id, player_id, "accepted")
            players = lock_players(s, [c.from_id, c.to_id])
            options = GameOptions.from_json(c.options)
            c.session_id = self._make(s, players[c.from_id], players[c.to_id], options, None)
            view = challenge_view(c)
        self.games.start([view["session"]])
        return view

    def _make(self, s: Session, a: PlayerRow, b: PlayerRow, options: GameOptions,
              config: dict[str, Any] | None) -> str:
        """The game of an accepted challenge (``config``: an AI level's own options)."""
        if rules.rank_gap(a.points, b.points) < rules.FRIENDLY_GAP:  # a rated game
            for p in (a, b):
                if p.kind == "ai":
                    continue
                if any(g.kind == "rated" for g in active_games(s, p.id)):
                    raise Conflict(f"{p.name} is playing a rated game; a player is in one "
                                   "rated game at a time")
                if s.get(QueueRow, p.id, populate_existing=True) is not None:
                    raise Conflict(f"{p.name} is in the queue: a rated game would be a "
                                   "second one; leave the queue first")
        return self.games.make(s, a, b, options, config)

    def close(self, player_id: str, challenge_id: str) -> dict[str, Any]:
        """The challenger withdraws it or the challenged declines it."""
        with self.store.transaction() as s:
            return challenge_view(self._take(s, challenge_id, player_id, "closed"))

    @staticmethod
    def _take(s: Session, challenge_id: str, player_id: str, how: str) -> ChallengeRow:
        """Move an open challenge on (``accepted`` by the challenged; ``closed``: withdrawn
        by the challenger, declined by the challenged) with a conditional update, so of two
        answers at once only one counts."""
        if not PLAYER_ID.fullmatch(challenge_id):
            raise NotFound("no such challenge")
        c = s.get(ChallengeRow, challenge_id)
        if c is None:
            raise NotFound(f"no challenge {challenge_id!r}")
        if player_id not in (c.from_id, c.to_id):
            raise Forbidden("this challenge is between two other players")
        if how == "accepted" and player_id != c.to_id:
            raise Forbidden("only the challenged player accepts a challenge")
        status = how if how == "accepted" else (
            "withdrawn" if player_id == c.from_id else "declined")
        taken = s.execute(update(ChallengeRow)
                          .where(ChallengeRow.id == challenge_id, ChallengeRow.status == "open")
                          .values(status=status))
        s.refresh(c)
        if taken.rowcount != 1:
            raise Conflict(f"the challenge is {c.status}, no longer open")
        return c
