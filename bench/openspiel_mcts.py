"""OpenSpiel's own MCTS (``open_spiel.python.algorithms.mcts.MCTSBot``, UCT with one random
rollout a leaf) against a shipped qizero level, played by OpenSpiel's ``evaluate_bots`` on the
game registered by ``envs.openspiel_games``. Sides alternate; every move is checked through the
qizero engine. Prints each game and the level's wins, draws and losses.

    python bench/openspiel_mcts.py fangqi master --simulations 100 --games 10
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import envs  # noqa: E402
from agents.players import level_player  # noqa: E402
from envs.openspiel_games import PolicyBot  # noqa: E402
from training.cli import parse_options  # noqa: E402


def main() -> None:
    from open_spiel.python.algorithms import evaluate_bots, mcts

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("game")
    parser.add_argument("level", help="level id or label")
    parser.add_argument("--simulations", type=int, default=100)
    parser.add_argument("--uct-c", type=float, default=2.0)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args()
    torch.set_num_threads(1)
    game = envs.openspiel_game(args.game, **parse_options(args.option))
    player = level_player(game.qizero, args.level)

    def level_policy(g: envs.Game, state: object, rng: np.random.Generator) -> int:
        return player.select_action(g, state, rng)

    results = []
    for k in range(args.games):
        rs = np.random.RandomState(k)
        bot = mcts.MCTSBot(game, args.uct_c, args.simulations,
                           mcts.RandomRolloutEvaluator(1, rs), random_state=rs)
        seat = k % 2  # the level's seat
        bots = [PolicyBot(level_policy, seed=k), bot] if seat == 0 else [bot, PolicyBot(
            level_policy, seed=k)]
        state = game.new_initial_state()
        t0 = time.perf_counter()
        returns = evaluate_bots.evaluate_bots(state, bots, np.random.RandomState(k))
        results.append(returns[seat])
        print(f"game {k + 1}: level plays {game.qizero.spec.player_names[seat]}, result "
              f"{returns[seat]:+.0f}, {len(state.history())} actions, "
              f"{time.perf_counter() - t0:.0f} s", flush=True)
    r = np.array(results)
    print(f"{args.game} level {args.level} vs OpenSpiel MCTS-{args.simulations}: "
          f"{(r > 0).sum()} won, {(r == 0).sum()} drawn, {(r < 0).sum()} lost")


if __name__ == "__main__":
    main()
