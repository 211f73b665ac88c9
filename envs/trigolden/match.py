"""Playing a TriGolden match (two games, the first player swapping) and arbitration.

Match players are called ``A`` and ``B``: A opens game 1 (as p1) and B opens game 2. A game
that ends by arbitration decides the match at once (the second game is not played). How a
match is scored is :mod:`envs.trigolden.match_score`'s.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from envs.core import IllegalMove
from envs.trigolden.game import TriGolden
from envs.trigolden.match_score import MatchResult, match_result
from envs.trigolden.state import ARBITRATION, ONGOING, TriGoldenState

Policy = Callable[[TriGolden, TriGoldenState, np.random.Generator], int]


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
