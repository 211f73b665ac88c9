"""A TriGolden match (two games, the first player swapping) and arbitration.

Match players are called ``A`` and ``B``: A opens game 1 (as p1) and B opens game 2. Each
player's points from the two games are added; the higher total wins the match, equal totals
draw. A game that ends by arbitration decides the match at once (the second game is not
played): the claimant, the player who had no legal complete turn, wins.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from envs.core import IllegalMove
from envs.trigolden.state import ARBITRATION, ONGOING, TriGoldenState

if TYPE_CHECKING:  # game.py scores matches with this module
    from envs.trigolden.game import TriGolden

Policy = Callable[["TriGolden", TriGoldenState, np.random.Generator], int]
MATCH_PLAYERS = ("A", "B")


def arbitrate(game: TriGolden, state: TriGoldenState) -> list[int] | None:
    """The arbiter's search, for the player to move at the start of a turn (``standard``).

    Returns a legal complete turn (its actions, which the arbiter plays; the claimant loses
    the match), or None when none exists (the opponent broke the obligation and loses).
    A state ended by arbitration is exactly a state where the player to move had none.
    """
    if game.config.variant != "standard":
        raise IllegalMove("arbitration", "arbitration belongs to the standard variant")
    if state.outcome == ARBITRATION:
        return None
    if state.outcome != ONGOING:
        raise IllegalMove("arbitration", "the game is over")
    if state.first >= 0:
        raise IllegalMove("arbitration", "arbitration is claimed at the start of a turn")
    mover = state.to_play
    # Every first action of the mask is known to complete; take the lowest, deterministically.
    first = min(state.options.legal)
    turn = [first]
    after = game.apply(state, first)
    if after.outcome == ONGOING and after.to_play == mover and after.first >= 0:
        turn.append(min(after.options.legal))
    return turn


@dataclass(frozen=True)
class MatchResult:
    """Totals per match player (A, B), the winner (0 = A, 1 = B, None = draw), and how."""

    totals: tuple[int, int]
    winner: int | None
    decided_by: str  # "score" or "arbitration"
    games: tuple[TriGoldenState, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "totals": dict(zip(MATCH_PLAYERS, self.totals)),
            "winner": None if self.winner is None else MATCH_PLAYERS[self.winner],
            "decided_by": self.decided_by,
        }


def match_result(game1: TriGoldenState, game2: TriGoldenState | None) -> MatchResult:
    """Combine the final states of a match's games (A is p1 of game 1 and p2 of game 2)."""
    games = (game1,) if game2 is None else (game1, game2)
    totals = [game1.scores[0], game1.scores[1]]
    if game1.outcome == ARBITRATION:
        return MatchResult(tuple(totals), game1.claimant, "arbitration", games)  # type: ignore[arg-type]
    if game1.outcome == ONGOING:
        raise IllegalMove("match", "game 1 is not over")
    if game2 is None:
        raise IllegalMove("match", "game 1 ended on points; the match needs game 2")
    if game2.outcome == ONGOING:
        raise IllegalMove("match", "game 2 is not over")
    totals[0] += game2.scores[1]
    totals[1] += game2.scores[0]
    if game2.outcome == ARBITRATION:
        # In game 2, p1 is B (1) and p2 is A (0).
        return MatchResult(tuple(totals), 1 - game2.claimant, "arbitration", games)  # type: ignore[arg-type]
    winner = None if totals[0] == totals[1] else (0 if totals[0] > totals[1] else 1)
    return MatchResult(tuple(totals), winner, "score", games)  # type: ignore[arg-type]


def play_game(game: TriGolden, p1: Policy, p2: Policy, rng: np.random.Generator
              ) -> TriGoldenState:
    """One game to the end, ``p1`` opening."""
    state = game.initial_state()
    policies = (p1, p2)
    while not game.is_terminal(state):
        state = game.apply(state, policies[state.to_play](game, state, rng))
    return state


def play_match(game: TriGolden, a: Policy, b: Policy, rng: np.random.Generator) -> MatchResult:
    """A full match: A opens game 1, B opens game 2 (unless game 1 ended by arbitration)."""
    first = play_game(game, a, b, rng)
    if first.outcome == ARBITRATION:
        return match_result(first, None)
    return match_result(first, play_game(game, b, a, rng))
