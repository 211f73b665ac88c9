"""What a better prior is worth to a TriGolden search: PUCT whose priors come from the greedy
heuristic (the immediate score difference of every legal placement) and whose leaf values
are one random playout, against pure MCTS with uniform priors.

This stands in for a network that has learnt the obvious (place where you score now): if such
a search does not beat ``mcts:64`` with 48 simulations, neither will a network that learns
only that. Measured with these defaults (the same evaluator, seeds and settings, run from a
scratch copy before it became this script): 6 of 16 matches (docs/training.md, "TriGolden",
run c).

Run: ``.venv/bin/python bench/trigolden_greedy_prior.py [--simulations 48] [--opponent
mcts:64] [--games 32] [--points-temperature 2] [--workers 2] [--seed 11]``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.config import SearchConfig
from agents.evaluator import RolloutEvaluator
from agents.players import SearchPlayer, make_player
from envs import Game, make_game
from envs.trigolden.players import immediate_gain
from training.arena import format_matches, round_robin


class GreedyPriorEvaluator:
    """Priors proportional to exp(immediate gain / ``points_temperature``); value: one random
    playout (the game's utility, as pure MCTS)."""

    def __init__(self, seed: int, points_temperature: float) -> None:
        self.playouts = RolloutEvaluator(np.random.default_rng(seed), rollouts=1)
        self.points_temperature = points_temperature

    def evaluate(self, game: Game, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        priors = np.zeros((len(states), game.spec.num_actions), dtype=np.float32)
        for row, state in enumerate(states):
            actions = game.legal_actions(state)
            gains = np.array([immediate_gain(game, state, int(a)) for a in actions], float)
            weights = np.exp((gains - gains.max()) / self.points_temperature)
            priors[row, actions] = weights / weights.sum()
        _, values = self.playouts.evaluate(game, states)
        return priors, values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--simulations", type=int, default=48)
    parser.add_argument("--opponent", default="mcts:64")
    parser.add_argument("--games", type=int, default=32, help="games (two a match)")
    parser.add_argument("--points-temperature", type=float, default=2.0)
    parser.add_argument("--scoring", default="bracing", choices=("bracing", "trigolden"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    game = make_game("trigolden", variant="standard", scoring=args.scoring, n=9)
    cfg = SearchConfig(algorithm="puct", simulations=args.simulations, c_puct=1.5,
                       temperature=0.0)
    searcher = SearchPlayer(
        "greedy-prior", GreedyPriorEvaluator(args.seed + 7, args.points_temperature), cfg
    )
    players = [make_player(game, args.opponent, seed=args.seed), searcher]
    t0 = time.time()
    results = round_robin(game, players, args.games, seed=args.seed, opening_plies=2,
                          workers=args.workers, chunk=2)
    print(format_matches([args.opponent, f"greedy-prior PUCT-{args.simulations}"], results))
    print(f"({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
