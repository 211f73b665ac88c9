"""Fixed policies that come with the rules: uniform random, each game's greedy baseline, solvers.

A policy maps ``(game, state, rng)`` to a legal action index. This module is the one place
that turns a policy name into a policy, for the Gymnasium env's opponents and for the arena's
players alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from envs.core import ConfigError, Game, game_module

Policy = Callable[[Game, Any, np.random.Generator], int]

POLICY_NAMES = ("random", "greedy", "solver")


def random_policy(game: Game, state: Any, rng: np.random.Generator) -> int:
    """The uniform-random legal player."""
    return int(rng.choice(game.legal_actions(state)))


def random_positions(game: Game, n: int, rng: np.random.Generator) -> list[Any]:
    """``n`` distinct-by-draw non-terminal states of uniformly random games, drawn from whole
    games so that openings, middle games and endgames all appear (parity checks, benchmarks)."""
    pool: list[Any] = []
    while len(pool) < 3 * n:
        state = game.initial_state()
        while not game.is_terminal(state):
            pool.append(state)
            state = game.apply(state, random_policy(game, state, rng))
    return [pool[i] for i in rng.choice(len(pool), n, replace=False)]


def named_policy(game: Game, name: str) -> Policy:
    """``random``, ``greedy`` (the game package's ``greedy_policy``) or ``solver`` (Jiugong)."""
    if name == "random":
        return random_policy
    if name == "greedy":
        policy = getattr(game_module(game.spec.id), "greedy_policy", None)
        if policy is None:
            raise ConfigError(f"game {game.spec.id!r} has no greedy baseline")
        return policy
    if name == "solver":
        if game.spec.id != "jiugong":
            raise ConfigError(f"an exact solver exists only for jiugong, not {game.spec.id!r}")
        from envs.jiugong_solver import solver_policy

        return solver_policy()
    raise ConfigError(f"unknown policy {name!r}; known: {', '.join(POLICY_NAMES)}")
