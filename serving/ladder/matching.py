"""The ladder's queue and automatic matching.

The queue lives in the database (``ladder_queue``), so it survives restarts and is shared by
every replica. A pass (:meth:`Matcher.pair_humans`) reads the queue, pairs it by the matching
order (:func:`serving.ladder.rules.pair_all`: the longest-waiting player chooses first: same
rank, then one lower, then one higher, never further; only players who asked for the same
options) and makes each game in one transaction that also takes both players off the queue
(both rows must still be there, so a player is never paired twice, whichever process or
thread paired first). A player who waited ``ai_wait`` seconds without a partner gets an AI
level of the nearest rank by the same order (:meth:`Matcher.fill_with_ai`). Passes run after
every queue entry and on a thread every ``interval`` seconds.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable
from functools import partial
from typing import Any

from sqlalchemy import select

from serving.errors import Conflict, ServiceError
from serving.ladder import rules
from serving.ladder.ai_players import AILevel
from serving.ladder.games import Games
from serving.ladder.options import GameOptions
from serving.ladder.store import PlayerRow, QueueRow, active_games, lock_players
from serving.periodic import Periodic

log = logging.getLogger("qizero.serving")


class Matcher:
    """Joining and leaving the queue, pairing passes, AI fill-in, the matching thread."""

    def __init__(self, games: Games, ai_wait: float, interval: float) -> None:
        self.games = games
        self.store, self.clock = games.store, games.clock
        self.ai_wait = ai_wait
        self.interval = interval
        self._pass_lock = threading.Lock()  # one pass at a time in this process: exact order
        self._demand = threading.Condition()  # guards the pass counters below
        self._running = False  # a human pairing pass is under way
        self._again = False  # someone joined during it: pass once more
        self._started = self._done = 0  # passes started and finished
        self._thread: Periodic | None = None
        # Called with the seconds each player waited, once their game is made (the metrics).
        self.on_matched: Callable[[float], None] | None = None

    # ------------------------------------------------------------------ the queue
    def join(self, player_id: str, options: GameOptions) -> None:
        """Queue a player (409: already queued, or in a rated game) and pair at once if a
        partner waits."""
        with self.store.transaction() as s:
            lock_players(s, [player_id])
            if s.get(QueueRow, player_id, populate_existing=True) is not None:
                raise Conflict("you are already in the queue; leave it first to change options")
            rated = [g for g in active_games(s, player_id) if g.kind == "rated"]
            if rated:
                raise Conflict("you are playing a rated game; a player is in one rated game at "
                               "a time", session=rated[0].session_id)
            s.add(QueueRow(player_id=player_id, options=options.to_json(),
                           options_key=options.key, since=self.clock()))
        self.pair_humans()

    def leave(self, player_id: str) -> bool:
        """Leave the queue; False if the player was not in it."""
        with self.store.transaction() as s:
            lock_players(s, [player_id])
            row = s.get(QueueRow, player_id, populate_existing=True)
            if row is None:
                return False
            s.delete(row)
        return True

    def state(self, player_id: str) -> dict[str, Any]:
        """``waiting`` (with the options and since when), ``playing`` (the rated game) or
        ``idle``."""
        with self.store.reader() as s:
            row = s.get(QueueRow, player_id)
            rated = [g for g in active_games(s, player_id) if g.kind == "rated"]
        entry = None
        if row is not None:
            entry = {"options": row.options, "since": row.since,
                     "waited": max(0.0, self.clock() - row.since)}
        game = None
        if rated:
            g = rated[0]
            colour = "black" if g.black_id == player_id else "white"
            game = {"game": g.id, "session": g.session_id, "colour": colour,
                    "opponent": g.white_id if colour == "black" else g.black_id,
                    "handicap": g.handicap, "options": g.options}
        status = "waiting" if entry else "playing" if game else "idle"
        return {"status": status, "entry": entry, "game": game}

    # ------------------------------------------------------------------ pairing
    def pair_humans(self) -> list[str]:
        """Pass over the queue until nothing new came in meanwhile; the sessions made.

        A caller that finds a pass running asks it for one more and waits for that one, so
        its answer shows its pairing, and a crowd joining at once costs a few passes, not
        one each."""
        with self._demand:
            if self._running:
                self._again = True
                wanted = self._started + 1
                self._demand.wait_for(lambda: self._done >= wanted)
                return []
            self._running = True
        made: list[str] = []
        try:
            while True:
                with self._demand:
                    self._started += 1
                    self._again = False
                with self._pass_lock:
                    waiting = self._waiting()
                    for a, b in rules.pair_all(list(waiting.values())):
                        sid = self._guarded(self._pair, a.player, b.player)
                        if sid is not None:
                            made.append(sid)
                with self._demand:
                    self._done = self._started
                    self._demand.notify_all()
                    if not self._again:
                        break
        finally:
            with self._demand:
                self._running = False
                self._done = self._started  # a failed pass releases its waiters too
                self._demand.notify_all()
        self.games.start(made)
        return made

    def fill_with_ai(self) -> list[str]:
        """AI levels (those with a measured start) for the players who waited ``ai_wait``
        seconds; the sessions made."""
        with self._pass_lock:
            now = self.clock()
            due = [w.player for w in self._waiting().values() if now - w.since >= self.ai_wait]
            # once a pass, not once a player; only levels whose strength was measured
            ais = [ai for ai in self.games.ai_players() if ai.measured] if due else []
            made = []
            for player_id in due:
                sid = self._guarded(partial(self._pair_ai, ais=ais), player_id)
                if sid is not None:
                    made.append(sid)
        self.games.start(made)
        return made

    def _waiting(self) -> dict[str, rules.Waiting]:
        with self.store.reader() as s:
            rows = s.execute(select(QueueRow, PlayerRow.points)
                             .join(PlayerRow, PlayerRow.id == QueueRow.player_id)).all()
        return {q.player_id: rules.Waiting(q.player_id, rules.rank_of(points).index, q.since,
                                           q.options_key) for q, points in rows}

    def _matched(self, sid: str | None, *since: float) -> str | None:
        """Tell the metrics how long the players of a game made (``sid``) waited."""
        if sid is not None and self.on_matched is not None:
            now = self.clock()
            for t in since:
                self.on_matched(max(0.0, now - t))
        return sid

    def _pair(self, a: str, b: str) -> str | None:
        """Make the game of a pair from one pass, if both still wait for the same options
        within one rank (None otherwise: the next pass sees the queue as it is now)."""
        since: list[float] = []
        sid = self._pair_in_tx(a, b, since)
        return self._matched(sid, *since)

    def _pair_in_tx(self, a: str, b: str, since: list[float]) -> str | None:
        with self.store.transaction() as s:
            players = lock_players(s, [a, b])
            entries = [s.get(QueueRow, pid, populate_existing=True) for pid in (a, b)]
            if None in entries or len(players) != 2:
                return None
            qa, qb = entries
            assert qa is not None and qb is not None
            if qa.options_key != qb.options_key or rules.rank_gap(
                players[a].points, players[b].points
            ) >= rules.FRIENDLY_GAP:
                return None
            options = GameOptions.from_json(qa.options)
            since[:] = [qa.since, qb.since]
            s.delete(qa)
            s.delete(qb)
            return self.games.make(s, players[a], players[b], options)

    def _pair_ai(self, player_id: str, ais: list[AILevel]) -> str | None:
        """Seat the waiting player against the AI level the matching order gives them."""
        since: list[float] = []
        sid = self._pair_ai_in_tx(player_id, ais, since)
        return self._matched(sid, *since)

    def _pair_ai_in_tx(self, player_id: str, ais: list[AILevel], since: list[float]) -> str | None:
        with self.store.transaction() as s:
            me = lock_players(s, [player_id]).get(player_id)
            entry = s.get(QueueRow, player_id, populate_existing=True)
            if me is None or entry is None:
                return None
            options = GameOptions.from_json(entry.options)
            found = self.games.option_set(options)
            playable = {ai.player_id: config for ai in ais
                        if (config := found.plays(ai)) is not None}
            # AI rows are read, not locked: an AI plays many games at once, and its points
            # at the start only choose it and its colour
            ais = {p.id: p for p in s.scalars(
                select(PlayerRow).where(PlayerRow.id.in_(list(playable))))}
            pick = rules.pick_standing_opponent(
                rules.Waiting(player_id, rules.rank_of(me.points).index, entry.since),
                me.points,
                [rules.Candidate(p.id, p.points) for p in ais.values()],
            )
            if pick is None:
                return None
            since[:] = [entry.since]
            s.delete(entry)
            # AI levels play even games: they are trained without handicap
            even = dataclasses.replace(options, handicap=False)
            return self.games.make(s, me, ais[pick.player], even, playable[pick.player])

    @staticmethod
    def _guarded(make: Callable[..., str | None], *players: str) -> str | None:
        """One pairing; a service error (an AI level whose network will not load) is logged
        and skips it, so the rest of the queue is still paired."""
        try:
            return make(*players)
        except ServiceError as exc:
            log.warning("ladder: no game for %s: %s", players, exc.message)
            return None

    # ------------------------------------------------------------------ the thread
    def start(self) -> None:
        self._thread = Periodic("qizero-ladder", self.interval, self._tick)
        self._thread.start()

    def close(self) -> None:
        if self._thread is not None:
            self._thread.close()

    def _tick(self) -> None:
        self.pair_humans()
        self.fill_with_ai()
