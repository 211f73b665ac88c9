"""Baseline TriGolden players."""

from __future__ import annotations

import numpy as np

from envs.trigolden.game import TriGolden
from envs.trigolden.rules import BRACING, Rules
from envs.trigolden.state import TriGoldenState


def immediate_gain(game: TriGolden, state: TriGoldenState, action: int) -> int:
    """The mover's points minus the opponent's from the structures this placement adds."""
    cand = state.options.legal[action]
    board = state.board
    index = len(board.pieces)
    mover = state.to_play
    gain = 0
    bracing_mode = game.config.scoring == BRACING
    for s in Rules.new_structures(board, cand, index):
        piece = s.bracing if bracing_mode else s.trigolden
        owner = mover if piece == index else board.pieces[piece].owner
        gain += s.points if owner == mover else -s.points
    return gain


def greedy_policy(game: TriGolden, state: TriGoldenState, rng: np.random.Generator) -> int:
    """The placement with the best immediate score difference, random among ties.

    Same signature as ``envs.policies.random_policy``, so it can be an env opponent.
    """
    actions = game.legal_actions(state)
    gains = np.array([immediate_gain(game, state, int(a)) for a in actions])
    best = np.flatnonzero(gains == gains.max())
    return int(actions[int(rng.choice(best))])
