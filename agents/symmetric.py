"""A network's answer averaged over the board's symmetries (``SearchConfig.symmetries``).

Why: a small network's errors are not symmetric. The same position rotated or mirrored gets
a slightly different policy and value, so the mean over the transformed positions is a better
estimate than any one of them (AlphaGo Zero's evaluation averaged over random symmetries; here
over the first ``count`` of the game's). It costs ``count`` rows a leaf in one network call:
with all 8, 2.7 (9×9) to 3.5 (Fang Qi) times the CPU a simulation, so it pays only where it
lets a search be shorter at the same strength (measured: docs/training.md). A game without
symmetries (``spec.num_symmetries == 1``) is evaluated as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.evaluator import observations_and_masks
from envs.core import ConfigError, Game


class SymmetricEvaluator:
    """An evaluator over ``inner.infer(observations, masks)`` (a network pipeline) whose
    priors and values are the means over ``count`` symmetries of each position: every
    transform of every state goes to ``inner`` in one call, and each answer's priors are
    mapped back to the position's own actions before averaging."""

    def __init__(self, inner: Any, count: int) -> None:
        if not hasattr(inner, "infer"):
            raise ConfigError(
                f"symmetries > 1 averages a network's answers; {type(inner).__name__} has no "
                "network (infer)")
        self.inner = inner
        self.count = count

    def evaluate(self, game: Game, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        obs, masks = observations_and_masks(game, states)
        k, n = min(self.count, game.spec.num_symmetries), len(states)
        if n == 0 or k == 1:
            return self.inner.infer(obs, masks)
        # Transform s of position i: its observation, and where each of its per-action
        # entries comes from (``game.apply_symmetry`` of an index array; per position, since
        # a game's action permutation may depend on the position, as TriGolden's does).
        index = np.arange(game.spec.num_actions, dtype=np.float64)
        views_obs = np.empty((k, *obs.shape), dtype=obs.dtype)
        sources = np.empty((k, *masks.shape), dtype=np.int64)
        for s in range(k):
            for i in range(n):
                o, src = game.apply_symmetry(s, obs[i], index)
                views_obs[s, i] = o
                sources[s, i] = np.rint(src)
        rows = np.arange(n)[:, None]
        views_masks = masks[rows, sources]  # (k, n, A): the mask as each transform sees it
        priors, values = self.inner.infer(views_obs.reshape(k * n, *obs.shape[1:]),
                                          views_masks.reshape(k * n, -1))
        mean = np.zeros(masks.shape, dtype=np.float64)
        for s in range(k):
            back = np.empty(masks.shape, dtype=np.float64)
            back[rows, sources[s]] = priors[s * n:(s + 1) * n]  # entry a came from sources[s, a]
            mean += back
        value = values.reshape(k, n).astype(np.float64).mean(axis=0)
        return (mean / k).astype(np.float32), value.astype(np.float32)
