"""How noisy is one random playout as a leaf value, and how close is a network's value to the
mean of many? (What ``qizero value-fit`` is for; docs/training.md, "TriGolden".)

Positions from seeded uniformly random games (every ``--every`` plies); each gets ``--playouts``
random playouts (the utility for the player to move) and the network's value. Prints, overall
and by stage of the game: the standard deviation of one playout around the position's mean,
the spread of the means across positions, and the network's squared error and correlation
against the means. Asserts nothing.

    python bench/playout_noise.py checkpoints/trigolden/trigolden-iter0025.pt [--games 12]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.checkpoint import load_model  # noqa: E402
from agents.evaluator import NetworkEvaluator  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("checkpoints", nargs="+", help="networks whose values are compared")
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--every", type=int, default=12)
    parser.add_argument("--playouts", type=int, default=24)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(1)
    nets = [load_model(p) for p in args.checkpoints]
    game = nets[0].game
    rng = np.random.default_rng(args.seed)
    positions = []
    for _ in range(args.games):
        state, ply = game.initial_state(), 0
        while not game.is_terminal(state):
            if ply % args.every == args.every // 4:
                positions.append(state)
            legal = np.flatnonzero(game.legal_mask(state))
            state = game.apply(state, int(legal[rng.integers(len(legal))]))
            ply += 1
    means, sds, plies = [], [], []
    for s in positions:
        mover = game.to_play(s)
        u = [float(game.random_playout(s, rng, 1000)[mover]) for _ in range(args.playouts)]
        means.append(np.mean(u))
        sds.append(np.std(u))
        plies.append(len(game.to_json(s).get("moves", [])))
    means, sds, plies = np.array(means), np.array(sds), np.array(plies)
    values = [NetworkEvaluator(n.model).evaluate(game, positions)[1] for n in nets]
    print(f"{len(positions)} positions of {args.games} random games, {args.playouts} playouts each")
    stages = [("all", np.ones(len(plies), bool))]
    third = int(np.max(plies)) // 3 + 1
    stages += [(f"plies {a}-{a + third - 1}", (plies >= a) & (plies < a + third))
               for a in (0, third, 2 * third)]
    for name, k in stages:
        if k.sum() < 3:
            continue
        line = (f"{name:>14}: n={k.sum():3d}  one playout's sd {sds[k].mean():.3f}  "
                f"spread of the means {means[k].std():.3f}")
        for path, v in zip(args.checkpoints, values):
            err = float(np.mean((v[k] - means[k]) ** 2))
            corr = float(np.corrcoef(v[k], means[k])[0, 1])
            line += f"  | {Path(path).parent.parent.name or path}: mse {err:.4f} corr {corr:.2f}"
        print(line)


if __name__ == "__main__":
    main()
