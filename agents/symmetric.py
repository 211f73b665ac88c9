"""A network's answer averaged over the board's symmetries (``SearchConfig.symmetries``).

Why: a small network's errors are not symmetric. The same position rotated or mirrored gets
a slightly different policy and value, so the mean over the transformed positions is a better
estimate than any one of them (AlphaGo Zero's evaluation averaged over random symmetries; here
over the first ``count`` of the game's). It costs ``count`` rows a leaf in one network call,
which a small network on a small board (Fang Qi) mostly pays in per-call overhead it pays
anyway. A game without symmetries (``spec.num_symmetries == 1``) is evaluated as before.
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
        self._sources: dict[Any, np.ndarray] = {}  # game spec -> action sources (see below)

    def _action_sources(self, game: Game, observation: np.ndarray) -> np.ndarray:
        """``(k, A)``: in transform ``s``, the per-action entry at ``a`` comes from the
        position's action ``sources[s, a]`` (``game.apply_symmetry`` of an index array)."""
        found = self._sources.get(game.spec)
        if found is None:
            k = min(self.count, game.spec.num_symmetries)
            index = np.arange(game.spec.num_actions, dtype=np.float64)
            found = np.stack([
                np.rint(game.apply_symmetry(s, observation, index)[1]).astype(np.int64)
                for s in range(k)])
            self._sources[game.spec] = found
        return found

    def evaluate(self, game: Game, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        obs, masks = observations_and_masks(game, states)
        if len(states) == 0 or game.spec.num_symmetries == 1:
            return self.inner.infer(obs, masks)
        sources = self._action_sources(game, obs[0])
        k, n = len(sources), len(states)
        views = [game.apply_symmetry(s, obs, masks) for s in range(k)]
        priors, values = self.inner.infer(
            np.concatenate([o for o, _ in views]), np.concatenate([m for _, m in views]))
        mean = np.zeros(masks.shape, dtype=np.float64)
        for s in range(k):
            back = np.empty(masks.shape, dtype=np.float64)
            back[:, sources[s]] = priors[s * n:(s + 1) * n]  # entry a came from sources[s, a]
            mean += back
        value = values.reshape(k, n).astype(np.float64).mean(axis=0)
        return (mean / k).astype(np.float32), value.astype(np.float32)
