"""Milliseconds a network call of one checkpoint at several batch sizes, one thread, as the
search calls it (``NetworkEvaluator.infer``: the network as served, with the masked softmax;
for a network with a compiled CPU pass, :mod:`agents.tokens_cpu`, also the frozen TorchScript
graph it replaces, one after the other at each batch size).

The positions come from seeded uniformly random games (``envs.policies.random_positions``: any
depth, in a random order, so a batch mixes openings and later positions), and two checkouts of
the code time the same rows. Each batch size runs for ``--seconds``; prints the
milliseconds a call and a row. Prints figures, asserts nothing. Run the two checkouts one after
the other, or in turns, to compare them:

    python bench/network_speed.py checkpoints/trigolden/scoring-trigolden/trigolden-iter0304.pt
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.checkpoint import load_model  # noqa: E402
from agents.evaluator import NetworkEvaluator, observations_and_masks  # noqa: E402
from envs.policies import random_positions  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 2, 4, 8, 16, 32])
    parser.add_argument("--positions", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    loaded = load_model(args.checkpoint)
    game = loaded.game
    obs, masks = observations_and_masks(
        game, random_positions(game, args.positions, np.random.default_rng(args.seed)))
    evaluators = {"as served": NetworkEvaluator(loaded.model, traced=True)}
    if evaluators["as served"]._compiled is not None:  # also the frozen graph it replaces
        evaluators["frozen graph"] = NetworkEvaluator(loaded.model, traced=True, compiled=False)
    print(f"{args.checkpoint}: {len(obs)} positions")
    for batch in args.batches:
        rows = [np.arange(i, i + batch) % len(obs) for i in range(0, len(obs), batch)]
        for name, evaluator in evaluators.items():
            evaluator.infer(obs[rows[0]], masks[rows[0]])  # traces on first use
            calls, start = 0, time.perf_counter()
            while time.perf_counter() - start < args.seconds:
                r = rows[calls % len(rows)]
                evaluator.infer(obs[r], masks[r])
                calls += 1
            ms = (time.perf_counter() - start) / calls * 1e3
            print(f"batch {batch:3d}, {name:12s}: {ms:7.3f} ms a call, {ms / batch:6.3f} ms a row")

if __name__ == "__main__":
    main()
