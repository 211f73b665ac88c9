"""Compile a game's numba kernels before anything times a request.

Why: numba compiles a kernel on its first call. On a cold cache (a fresh checkout, a new
container) that is tens of seconds for TriGolden or Stereo Go, and it would land inside the first
move a service searches or the first request a test times. A few seeded random plies, with the
observation of each position and a short random playout, call every kernel on the engines' hot
path (rules, legality, observations, playouts) once, so later calls find them compiled (or load
them from numba's cache, a second or less).
"""

from __future__ import annotations

import numpy as np

from envs.core import Game


def warm_kernels(game: Game, plies: int = 8, seed: int = 0) -> None:
    """Play ``plies`` seeded random actions from the initial state (observing each position),
    then a random playout of as many plies: every compiled function of the engine is called."""
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    for _ in range(plies):
        if game.is_terminal(state):
            return
        game.observation(state)
        legal = game.legal_actions(state)
        state = game.apply(state, int(legal[rng.integers(len(legal))]))
    if not game.is_terminal(state):
        game.observation(state)
        game.random_playout(state, rng, max_plies=plies)
