"""The session being worked on: :class:`Ctx`, what every session module passes around.

An operation loads a session, rebuilds its game (:mod:`serving.sessions.persistence`), works
on this context and commits it; nothing here outlives the operation. The context remembers what
the session was when loaded or last committed (:class:`Baseline`), so a commit can tell its
followers what changed (:mod:`serving.sessions.changes`).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from envs.core import Game
from serving.adapters import Adapter
from serving.catalogue import apply_move
from serving.db import SessionData


@dataclass(frozen=True)
class Baseline:
    """What a session was at its last commit: what the next commit is compared with."""

    games: int  # games of the match begun
    events: int  # events of the last of them
    status: str
    seats: dict[str, Any]
    pending: list[str]
    extras: dict[str, Any]
    turn_started: float | None

    @staticmethod
    def of(data: SessionData) -> Baseline:
        return Baseline(
            games=len(data.games), events=len(data.events), status=data.status,
            seats=copy.deepcopy(data.seats), pending=list(data.pending),
            extras=copy.deepcopy(data.extras), turn_started=data.turn_started,
        )


@dataclass
class Ctx:
    """One session being worked on: its data, game, adapter, committed state and the time.

    ``outbox``: events an operation publishes with its commit beyond what the commit's changes
    say by themselves (:meth:`publish`). ``presence``: a ladder game's players' presence per
    seat as loaded with the session (:mod:`serving.ladder.presence`, None elsewhere): shown
    in the view, and a seat's ``loses_at`` ends the game on time (:mod:`.timeouts`)."""

    data: SessionData
    game: Game
    adapter: Adapter
    state: Any  # the game in progress after its committed events (pending moves not applied)
    now: float
    base: Baseline = field(init=False)
    outbox: list[tuple[str, dict[str, Any]]] = field(init=False, default_factory=list)
    presence: dict[str, dict[str, Any]] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.base = Baseline.of(self.data)

    def publish(self, kind: str, data: dict[str, Any]) -> None:
        """Publish an event on the session's channel with the next commit (if it wins)."""
        self.outbox.append((kind, data))

    def committed(self) -> None:
        """The session was committed: later changes are compared with what it is now."""
        self.base = Baseline.of(self.data)
        self.outbox = []

    @property
    def names(self) -> tuple[str, ...]:
        return self.game.spec.player_names

    def seat_of(self, player: int) -> str:
        """Seat of a player index in the current game (the first player swaps each game)."""
        k = len(self.data.games) - 1
        return self.names[(player + k) % len(self.names)]

    def seat_to_play(self, state: Any) -> str | None:
        if self.game.is_terminal(state):
            return None
        return self.seat_of(self.game.to_play(state))

    def ai_seat(self) -> str | None:
        """The AI seat to move in a session being played, if any (the server moves for it)."""
        if self.data.status != "playing":
            return None
        seat = self.seat_to_play(self.state)
        if seat is not None and self.data.seats[seat]["type"] == "ai":
            return seat
        return None

    def current(self) -> Any:
        """The state with the pending (provisional) moves applied."""
        state = self.state
        for j, m in enumerate(self.data.pending):
            state = apply_move(self.game, state, m, len(self.data.events) + j)
        return state

    def pending_complete(self) -> bool:
        """Whether the provisional moves make a whole turn (the other side is to move next)."""
        if not self.data.pending:
            return False
        return self.seat_to_play(self.current()) != self.seat_to_play(self.state)
