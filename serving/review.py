"""Post-game review: the value after every move and each side's key mistakes (issue 37).

Why this shape: the values of a whole game are one batched pass of the level's network
(:meth:`serving.ai.AIEngine.values`), cheap for any length; a search is run only where a
move lost value, at most a few per side, to name the move the AI preferred there. Values are
from the first seat's view (what a value graph draws), and a terminal position has the game's
real result, not the network's guess. Who moved at each ply comes from the game's own
``to_play``, never from ply parity: a Fang Qi player owed placements moves several times in a
row, a TriGolden turn is two pieces.

Every game served is for two players and zero-sum (a value for one side is minus the other's),
which is what the first-seat view relies on.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from envs.core import Game
from serving.adapters import Adapter
from serving.catalogue import apply_move, notation
from serving.levels import LevelTable
from serving.sessions.machine import replay_event

MISTAKES_PER_SIDE = 3
#: Searches per side at most: a move the AI would have played too is no mistake, whatever the
#: network's value did, and the next candidate is tried; this bounds the review's cost.
SEARCHES_PER_SIDE = 6
#: A fall in value smaller than this is the network's noise, not a mistake.
MIN_LOSS = 0.02
DIGITS = 4  # the values' precision in the answer (a graph needs no more)


class Reviewer(Protocol):
    """What a review needs of the AI engine (:class:`serving.ai.AIEngine` is one)."""

    def table(self, game: Game) -> LevelTable: ...

    def values(self, game: Game, states: list[Any], level_id: str | None) -> np.ndarray: ...

    def analyse(self, game: Game, state: Any, level_id: str | None, seed: int | None) -> Any: ...


@dataclass(frozen=True)
class Ply:
    """One move of the game: its notation, the state it was played in and the one it made."""

    move: str
    before: Any
    after: Any


def canonical(game: Game, state: Any, move: str) -> str:
    """A legal move as the engine writes it, so a played move and the AI's compare equal
    however the client spelled it."""
    return game.action_to_move(state, game.move_to_action(state, move))


def plies_of_moves(game: Game, moves: list[Any], max_chars: int = 64) -> list[Ply]:
    """A move list replayed from the start (422 naming the first illegal move)."""
    plies, state = [], game.initial_state()
    for i, move in enumerate(moves):
        text = notation(game, state, move, i)
        after = apply_move(game, state, text, i, max_chars)
        plies.append(Ply(canonical(game, state, text), state, after))
        state = after
    return plies


def plies_of_events(game: Game, adapter: Adapter, events: list[dict[str, Any]]) -> list[Ply]:
    """A session's stored game: its moves, with what came between them (a time-out passes
    the turn) replayed as the session did."""
    plies, state = [], game.initial_state()
    for i, event in enumerate(events):
        after = replay_event(game, adapter, state, event, i)
        if event["t"] == "move":
            plies.append(Ply(canonical(game, state, event["m"]), state, after))
        state = after
    return plies


def review_level(table: LevelTable, level_id: str | None) -> str:
    """The level asked for (404 if unknown), by default the strongest: the best judge."""
    if level_id is None and table.levels:
        return table.levels[-1].id
    return table.get(level_id).id


def review(
    engine: Reviewer, game: Game, plies: list[Ply], level_id: str | None, seat_shift: int = 0
) -> dict[str, Any]:
    """The review of a game (``ReviewPublic``); blocking: run it on a worker thread.

    ``seat_shift``: the game's index in a match, where the first player changes seat each
    game (player ``p`` sits in seat ``(p + seat_shift) % 2``); ``player`` in the answer and
    the values' view are seats."""
    t0 = time.perf_counter()
    level = review_level(engine.table(game), level_id)
    n = game.spec.num_players
    first = (-seat_shift) % n  # the player in seat 0

    states = [game.initial_state()] + [s for p in plies for s in (p.before, p.after)]
    # The states to evaluate, each once (a ply's ``before`` is the previous ``after`` unless
    # a time-out came between); terminal ones have their real result instead.
    unique: dict[int, Any] = {id(s): s for s in states}
    live = [s for s in unique.values() if not game.is_terminal(s)]
    net = engine.values(game, live, level) if live else np.zeros(0)
    view: dict[int, float] = {}
    for s, v in zip(live, net, strict=True):
        view[id(s)] = float(v) if game.to_play(s) == first else -float(v)
    for key, s in unique.items():
        if key not in view:
            view[key] = float(game.returns(s)[first])

    def seat_view(state: Any) -> float:
        return float(np.clip(view[id(state)], -1.0, 1.0))

    values = [seat_view(states[0])] + [seat_view(p.after) for p in plies]
    candidates: dict[int, list[tuple[float, int]]] = {}
    for i, ply in enumerate(plies):
        player = game.to_play(ply.before)
        sign = 1.0 if player == first else -1.0
        loss = sign * (seat_view(ply.before) - seat_view(ply.after))
        if loss > MIN_LOSS:
            candidates.setdefault(player, []).append((loss, i))

    mistakes = []
    for player in sorted(candidates, key=lambda p: (p + seat_shift) % n):
        found = 0
        ranked = sorted(candidates[player], key=lambda c: (-c[0], c[1]))
        for loss, i in ranked[:SEARCHES_PER_SIDE]:
            ply = plies[i]
            choice = engine.analyse(game, ply.before, level, i)
            preferred = canonical(game, ply.before, choice.top[0][0] if choice.top
                                  else choice.move)
            if preferred == ply.move:
                continue
            mistakes.append({
                "ply": i,
                "player": (player + seat_shift) % n,
                "move": ply.move,
                "preferred": preferred,
                "loss": round(loss, DIGITS),
            })
            found += 1
            if found == MISTAKES_PER_SIDE:
                break
    return {
        "level": level,
        "seconds": time.perf_counter() - t0,
        "values": [round(v, DIGITS) for v in values],
        "mistakes": mistakes,
    }
