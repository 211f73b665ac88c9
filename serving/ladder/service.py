"""The ladder as the service runs it (:class:`Ladder`): its tables, the rating hook on the
session store, the AI levels as players, the players' operations, the matcher, the
challenges and the players' presence in their games.

Created by the app's lifespan after the session manager; ``start`` seeds the AI players and
starts the matching thread, ``close`` stops it.
"""

from __future__ import annotations

import dataclasses
import logging
import random
import threading

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from serving.clocks import Clock
from serving.db import SessionStore
from serving.ladder import rules
from serving.ladder.ai_players import AILevel, ai_label, ai_levels, calibrated_points
from serving.ladder.challenges import Challenges
from serving.ladder.games import Games
from serving.ladder.matching import Matcher
from serving.ladder.names import name_key
from serving.ladder.players import Players
from serving.ladder.presence import Presence
from serving.ladder.rating import rate_finished
from serving.ladder.store import PlayerRow
from serving.levels import LevelRegistry
from serving.sessions.manager import SessionManager
from serving.settings import Settings

log = logging.getLogger("qizero.serving")


class Ladder:
    """Players, queue and matching, rating; one per app."""

    def __init__(
        self,
        store: SessionStore,
        sessions: SessionManager,
        levels: LevelRegistry,
        settings: Settings,
        clock: Clock,
        rng: random.Random | None = None,
    ) -> None:
        store.commit_hooks.append(rate_finished)
        self.store = store
        self.levels = levels
        self.clock = clock
        self.with_ai = settings.ladder_ai_players
        admin = settings.ladder_admin_token
        self.players = Players(store, clock, admin.get_secret_value() if admin else None,
                               lambda key, level: ai_label(levels, key, level))
        games = Games(store, sessions, levels, self.ai_players, clock, rng or random.Random())
        self.matcher = Matcher(games, settings.ladder_ai_wait_seconds,
                               settings.ladder_match_seconds)
        self.challenges = Challenges(games)
        self.presence = Presence(store, sessions, clock,
                                 settings.ladder_presence_heartbeat_seconds,
                                 settings.ladder_presence_stale_seconds)
        sessions.repo.presence = self.presence.load
        self._seeded: set[str] = set()
        self._measured: set[str] = set()  # AI players with a measured start for what they are
        self._seed_lock = threading.Lock()

    def start(self) -> None:
        self.ai_players()
        self.matcher.start()
        self.presence.start()

    def close(self) -> None:
        self.presence.close()
        self.matcher.close()

    def ai_players(self) -> list[AILevel]:
        """The AI levels that play on the ladder, each with its player row (new levels get
        one as soon as their levels.json appears) and whether its start was measured."""
        if not self.with_ai:
            return []
        found = ai_levels(self.levels)
        with self._seed_lock:
            missing = [ai for ai in found if ai.player_id not in self._seeded]
            if missing:
                self._seed(missing)
            measured = set(self._measured)
        return [dataclasses.replace(ai, measured=ai.player_id in measured) for ai in found]

    def ai_standings(self) -> dict[tuple[str, str], dict[str, object]]:
        """Each AI ladder player's standing for the catalogue, by (levels key, level id):
        its player id, whether its start was measured, and its rank and points now (None
        while unmeasured: a rank it may not have is not shown)."""
        ais = self.ai_players()
        with self.store.reader() as s:
            points = dict(s.execute(select(PlayerRow.id, PlayerRow.points).where(
                PlayerRow.id.in_([ai.player_id for ai in ais]))).all())
        standings: dict[tuple[str, str], dict[str, object]] = {}
        for ai in ais:
            now = points.get(ai.player_id) if ai.measured else None
            standings[(ai.key, ai.level)] = {
                "player": ai.player_id,
                "measured": ai.measured,
                "rank": rules.rank_of(now).name if now is not None else None,
                "points": now,
            }
        return standings

    def _seed(self, missing: list[AILevel]) -> None:
        """Give each AI level its player row: a new one at its measured points (0 unmeasured);
        an existing one keeps its points, unless the level under that id is now another
        strength than the one its points were set for (:meth:`_reseat`)."""
        start = calibrated_points(self.levels.root, missing)
        self._measured.update(start)
        with self.store.reader() as s:
            have = {pid: (name, fp) for pid, name, fp in s.execute(
                select(PlayerRow.id, PlayerRow.name, PlayerRow.ai_fingerprint).where(
                    PlayerRow.id.in_([ai.player_id for ai in missing]))).all()}
        for ai in missing:
            if ai.player_id in have:
                name, seeded_for = have[ai.player_id]
                if name != ai.name:
                    self._rename(ai)
                if ai.player_id in start and seeded_for != ai.fingerprint:
                    self._reseat(ai, start[ai.player_id])
            else:
                points = start.get(ai.player_id, 0)
                row = PlayerRow(id=ai.player_id, name=ai.name, name_key=name_key(ai.name),
                                kind="ai", points=points,
                                granted=points, ai_key=ai.key, ai_level=ai.level,
                                ai_options=ai.options, created=self.clock(),
                                ai_fingerprint=ai.fingerprint if ai.player_id in start else None)
                try:
                    with self.store.transaction() as s:
                        s.add(row)
                except IntegrityError:  # another replica seeded it, or a name clash
                    log.info("ladder: AI player %s not added (exists or name taken)",
                             ai.player_id)
            self._seeded.add(ai.player_id)

    def _reseat(self, ai: AILevel, points: int) -> None:
        """An AI player whose level is now another network or search (a ladder trained or
        calibrated again, levels renumbered by an insertion) takes the points measured for
        what it is now: the old points were another player's strength. Its games stay; the
        change counts as granted points, as a calibrated start does. A row from before the
        fingerprint was kept counts as another strength (nothing says it is the same)."""
        with self.store.transaction() as s:
            row = s.get(PlayerRow, ai.player_id)
            if row is None or row.kind != "ai" or row.ai_fingerprint == ai.fingerprint:
                return  # gone, a person's, or another replica reseated it first
            log.info("ladder: AI player %s is another strength now (%s, was %s): its points "
                     "%d -> %d, as measured", ai.player_id, ai.fingerprint,
                     row.ai_fingerprint, row.points, points)
            row.granted += points - row.points
            row.points = points
            row.ai_fingerprint = ai.fingerprint

    def _rename(self, ai: AILevel) -> None:
        """An AI player seeded under an older naming takes its name now (the names a person
        reads, :func:`serving.ladder.ai_players.ai_name`); its points and games stay."""
        try:
            with self.store.transaction() as s:
                row = s.get(PlayerRow, ai.player_id)
                if row is not None and row.kind == "ai":
                    row.name, row.name_key = ai.name, name_key(ai.name)
        except IntegrityError:  # a person holds that name (from before it was reserved)
            log.warning("ladder: AI player %s keeps its old name: %r is taken",
                        ai.player_id, ai.name)
