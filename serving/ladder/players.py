"""Ladder players: registration with an API token, authentication, the public profile with
its game table, the leaderboard, and the administrator's membership grant.

Tokens are handled as the sessions handle seat tokens (:mod:`serving.sessions.tokens`): 256
random bits, shown once at registration, only their SHA-256 stored. A player's token
authenticates every write of theirs (queue, moves in their ladder games).
"""

from __future__ import annotations

import hmac
import re
import secrets
from collections.abc import Callable
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from serving.clocks import Clock
from serving.db import SessionStore
from serving.errors import BadInput, Conflict, Forbidden, NotFound, Unauthorized
from serving.ladder import names, notices, rules
from serving.ladder.ai_players import ai_view
from serving.ladder.store import GrantRow, LadderGameRow, PlayerRow, active_games, lock_players
from serving.sessions.tokens import hash_token, new_token

MAX_PAGE = 100
PLAYER_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # url-safe tokens and AI ids: nothing else exists


def rank_view(points: int) -> dict[str, Any]:
    """A rank as clients show it: name, index, the band and what the next one needs."""
    rank = rules.rank_of(points)
    return {"rank": rank.name, "rank_index": rank.index, "points": points,
            "rank_from": rank.low, "next_rank_at": rank.high, "points_per_game": rank.step}


# The label of an AI player's level from its row's (ai_key, ai_level): the row keeps the
# level's id, the label is the level table's (serving.ladder.ai_players.ai_label).
LabelOf = Callable[[str, str], str]


def ai_parts(p: PlayerRow, label_of: LabelOf) -> dict[str, Any] | None:
    """An AI player's name in parts (level label, options), so that a client can write it in
    its own language; None for a person."""
    if p.kind != "ai":
        return None
    return ai_view(label_of(p.ai_key or "", p.ai_level or ""), p.ai_options)


def player_summary(p: PlayerRow, label_of: LabelOf) -> dict[str, Any]:
    """A player as they appear in lists (leaderboard, opponents)."""
    return {"id": p.id, "name": p.name, "kind": p.kind, "ai": ai_parts(p, label_of),
            **rank_view(p.points),
            "wins": p.rated_wins, "losses": p.rated_losses, "draws": p.rated_draws}


def game_entry(g: LadderGameRow, me: str, names: dict[str, PlayerRow],
               label_of: LabelOf) -> dict[str, Any]:
    """One line of a player's game table; a friendly game shows "friendly", not a result; an
    unrated one (the repeat rule, :mod:`serving.ladder.farming`) its result and why it is
    not rated."""
    colour = "black" if g.black_id == me else "white"
    opponent = names.get(g.white_id if colour == "black" else g.black_id)
    before = g.black_points_start if colour == "black" else g.white_points_start
    after = g.black_points_end if colour == "black" else g.white_points_end
    if g.status != "done":
        result = None
    elif g.kind == "friendly":
        result = "friendly"
    else:
        result = "draw" if g.winner is None else "win" if g.winner == colour else "loss"
    return {
        "game": g.id,
        "session": g.session_id,
        "kind": g.kind,
        "rated": g.kind == "rated",
        "unrated_reason": g.unrated_reason,
        "status": g.status,
        "colour": colour,
        "handicap": g.handicap,
        "opponent": None if opponent is None else {
            "id": opponent.id, "name": opponent.name, "kind": opponent.kind,
            "ai": ai_parts(opponent, label_of)},
        "result": result,
        "reason": g.reason,
        "moves": g.moves,
        "points": {"before": before, "after": after,
                   "change": None if after is None else after - before},
        "ranks": {"before": rules.rank_of(before).name,
                  "after": None if after is None else rules.rank_of(after).name},
        "started": g.created,
        "ended": g.ended,
        "options": g.options,
    }


class Players:
    """Registration, authentication, profiles, leaderboard, grants."""

    def __init__(self, store: SessionStore, clock: Clock, admin_token: str | None,
                 label_of: LabelOf) -> None:
        self.store = store
        self.clock = clock
        self.admin_token = admin_token
        self.label_of = label_of

    # ------------------------------------------------------------------ accounts
    def register(self, name: str) -> tuple[dict[str, Any], str]:
        """A new player at 18K with 0 points; their token (shown once)."""
        try:
            name = names.normalize(name)
        except names.BadName as exc:
            raise BadInput(str(exc)) from None
        token = new_token()
        row = PlayerRow(id=secrets.token_urlsafe(9), name=name, name_key=names.name_key(name),
                        kind="human", token_hash=hash_token(token),
                        created=self.clock())  # counts: 0
        try:
            with self.store.transaction() as s:
                s.add(row)
        except IntegrityError:  # the unique name_key: taken whatever its case
            raise Conflict(f"the name {name!r} is taken", name=name) from None
        return self.profile(row.id), token

    def load(self, s: Session, player_id: str) -> PlayerRow:
        if not isinstance(player_id, str) or not PLAYER_ID.fullmatch(player_id):
            raise NotFound("no such player")
        row = s.get(PlayerRow, player_id)
        if row is None:
            raise NotFound(f"no player {player_id!r}", player=player_id)
        return row

    def authenticate(self, token: str | None) -> str:
        """The id of the player whose token this is (401 for none or an unknown one)."""
        if not token:
            raise Unauthorized("this action needs your player token: 'Authorization: Bearer "
                               "<token>'")
        with self.store.reader() as s:
            pid = s.scalar(select(PlayerRow.id).where(PlayerRow.token_hash == hash_token(token)))
        if pid is None:
            raise Unauthorized("unknown player token")
        return pid

    # ------------------------------------------------------------------ reading
    def profile(self, player_id: str, games: int = 20) -> dict[str, Any]:
        """Rank, points, counts, the games being played and the latest recorded ones."""
        with self.store.reader() as s:
            p = self.load(s, player_id)
            table = self._games(s, player_id, 0, games)
            playing = active_games(s, player_id)
            names = self._names(s, [g.black_id for g in playing] + [g.white_id for g in playing])
            return {
                **player_summary(p, self.label_of),
                "rated_games": p.rated_games,
                "friendly_games": p.friendly_games,
                "membership_points": p.granted if p.kind == "human" else 0,
                "level": None if p.kind != "ai" else {"key": p.ai_key, "id": p.ai_level,
                                                      "options": p.ai_options},
                "created": p.created,
                "playing": [game_entry(g, player_id, names, self.label_of) for g in playing],
                "games": table["games"],
                "games_total": table["total"],
            }

    def snapshot(self, player_id: str) -> tuple[int, dict[str, Any]]:
        """The profile and the id of the last event of the player's channel it reflects: a
        stream's first message (read again if an event came while it was read)."""
        return self.store.events.snapshot(notices.channel(player_id),
                                          lambda: self.profile(player_id))

    def games(self, player_id: str, offset: int, limit: int) -> dict[str, Any]:
        """A page of the player's recorded games, newest first."""
        with self.store.reader() as s:
            self.load(s, player_id)
            return self._games(s, player_id, offset, limit)

    def _games(self, s: Session, pid: str, offset: int, limit: int) -> dict[str, Any]:
        mine = (LadderGameRow.status == "done") & or_(LadderGameRow.black_id == pid,
                                                      LadderGameRow.white_id == pid)
        total = s.scalar(select(func.count()).select_from(LadderGameRow).where(mine)) or 0
        rows = list(s.scalars(select(LadderGameRow).where(mine)
                              .order_by(LadderGameRow.ended.desc(), LadderGameRow.id)
                              .offset(offset).limit(min(limit, MAX_PAGE))))
        names = self._names(s, [g.black_id for g in rows] + [g.white_id for g in rows])
        return {"total": total, "offset": offset, "limit": limit,
                "games": [game_entry(g, pid, names, self.label_of) for g in rows]}

    @staticmethod
    def _names(s: Session, ids: list[str]) -> dict[str, PlayerRow]:
        if not ids:
            return {}
        return {p.id: p for p in s.scalars(select(PlayerRow).where(PlayerRow.id.in_(set(ids))))}

    def leaderboard(self, offset: int, limit: int, include_ai: bool,
                    player: str | None = None) -> dict[str, Any]:
        """Players by points (then rated games, then who registered first), paged; with
        ``player``, that player's own entry too (``you``: their position wherever the page
        is, so a client can keep their row in sight; null if the list leaves them out)."""
        where = [] if include_ai else [PlayerRow.kind == "human"]
        with self.store.reader() as s:
            total = s.scalar(select(func.count()).select_from(PlayerRow).where(*where)) or 0
            rows = s.scalars(
                select(PlayerRow).where(*where)
                .order_by(PlayerRow.points.desc(), PlayerRow.rated_games.desc(),
                          PlayerRow.created, PlayerRow.id)
                .offset(offset).limit(min(limit, MAX_PAGE))
            )
            players = [{"position": offset + i + 1, **player_summary(p, self.label_of)}
                       for i, p in enumerate(rows)]
            you = None
            if player is not None:
                me = self.load(s, player)
                if include_ai or me.kind == "human":
                    you = {"position": self._position(s, me, where),
                           **player_summary(me, self.label_of)}
        return {"total": total, "offset": offset, "limit": limit, "players": players,
                "you": you}

    @staticmethod
    def _position(s: Session, me: PlayerRow, where: list[Any]) -> int:
        """``me``'s place in the leaderboard's order: 1 + the players listed before them."""
        ahead = or_(
            PlayerRow.points > me.points,
            (PlayerRow.points == me.points) & or_(
                PlayerRow.rated_games > me.rated_games,
                (PlayerRow.rated_games == me.rated_games) & or_(
                    PlayerRow.created < me.created,
                    (PlayerRow.created == me.created) & (PlayerRow.id < me.id))))
        return 1 + (s.scalar(select(func.count()).select_from(PlayerRow)
                             .where(*where, ahead)) or 0)

    # ------------------------------------------------------------------ membership grant
    def grant(self, player_id: str, token: str | None, yuan: int, note: str) -> dict[str, Any]:
        """The administrator grants a membership balance (no payment is processed here)."""
        if not token:
            raise Unauthorized("a grant needs the administrator's token")
        if self.admin_token is None:
            raise Forbidden("membership grants are off: no administrator token is configured")
        if not hmac.compare_digest(token.encode(), self.admin_token.encode()):
            raise Forbidden("this token is not the administrator's")
        with self.store.transaction() as s:
            self.load(s, player_id)
            p = lock_players(s, [player_id])[player_id]
            if p.kind != "human":
                raise Conflict("AI levels get no membership grants")
            before = p.points
            p.points = rules.grant_points(before, yuan)
            p.granted += p.points - before
            now = self.clock()
            s.add(GrantRow(player_id=player_id, yuan=yuan, points_before=before,
                           points_after=p.points, at=now, note=note))
            notices.granted(s, p, before, yuan, now)
        return self.profile(player_id)
