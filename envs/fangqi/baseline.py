"""The greedy Fang Qi baseline: the largest immediate gain, random among ties.

Gain of an action, looking one action ahead only:

* a placement: the extra placements it earns (the value of the shapes it forms);
* a step: the captures it actually makes (the value of the shapes it forms, but no more than
  the enemy's loose pieces);
* a removal (pull, capture, making room): 0, so the choice is uniformly random.

Same signature as ``envs.policies.random_policy`` so the arena and the Gymnasium env can use it
as an opponent.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.fangqi.board import BIT, PLACE_BASE, STEP_BASE, STEPS, shape_value
from envs.fangqi.rules import loose
from envs.fangqi.state import PLACE, STEP, FangQiState


def action_gains(state: FangQiState, actions: list[int] | tuple[int, ...]) -> list[int]:
    """The immediate gain of each of ``actions`` (legal in ``state``)."""
    own, enemy = (state.white, state.black) if state.to_play else (state.black, state.white)
    if state.phase == PLACE:
        return [shape_value(own | BIT[a - PLACE_BASE], a - PLACE_BASE) for a in actions]
    if state.phase == STEP:
        capturable = loose(enemy).bit_count()
        gains = []
        for a in actions:
            f, t = STEPS[a - STEP_BASE]
            gains.append(min(shape_value(own ^ BIT[f] ^ BIT[t], t), capturable))
        return gains
    return [0] * len(actions)


def greedy_policy(game: Any, state: FangQiState, rng: np.random.Generator) -> int:
    """The action with the largest immediate gain; ties broken uniformly at random."""
    actions = [int(a) for a in game.legal_actions(state)]
    if not actions:
        raise ValueError("greedy_policy called on a state without legal actions")
    gains = action_gains(state, actions)
    best = max(gains)
    ties = [a for a, g in zip(actions, gains) if g == best]
    return ties[int(rng.integers(len(ties)))]
