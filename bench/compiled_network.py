"""A level over its network's compiled CPU forward pass against the same level over the frozen
TorchScript graph (``NetworkEvaluator(compiled=False)``): do they play the same, and how long
does a move take? For networks that have one (TriGolden's, :mod:`agents.tokens_cpu`).

1. **Same moves, and the time a move.** The level plays ``--games`` whole games against the
   table's lowest level; on every position where it moves, both versions search it with the
   same seed (each with its own evaluation cache, warm from the game so far, as the
   service's is): how often they choose the same move and the same top five, and the wall
   milliseconds a move of each (one thread, in-process; the two in turns, position by
   position).
2. **Strength** (``--arena N``): N games of the compiled level against the traced one, sides
   swapped, from ``--opening-plies`` random plies (``training.arena.play_match``).

Prints figures, asserts nothing.

    python bench/compiled_network.py trigolden --option scoring=trigolden --arena 40
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.evaluator import NetworkEvaluator  # noqa: E402
from agents.inference import InferencePipeline, ModelPipeline  # noqa: E402
from agents.players import PLAYER_CACHE_BYTES, SearchPlayer, level_player, read_levels  # noqa: E402
from envs import make_game  # noqa: E402
from training.arena import play_match, wilson  # noqa: E402
from training.cli import parse_options  # noqa: E402


def traced_twin(player: SearchPlayer) -> SearchPlayer:
    """The same level over the frozen graph instead of the compiled forward pass."""
    pipeline = player.evaluator
    assert isinstance(pipeline, ModelPipeline)  # a level's evaluator, by construction
    network = NetworkEvaluator(pipeline.loaded.model, traced=True, compiled=False)
    evaluator = InferencePipeline(network.infer, cache_bytes=PLAYER_CACHE_BYTES)
    return SearchPlayer(f"{player.name}-traced", evaluator, player.cfg)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("game")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--level", help="default: the table's top level")
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--arena", type=int, default=0, help="games of the two versions")
    parser.add_argument("--opening-plies", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    game = make_game(args.game, **parse_options(args.option))
    levels = read_levels(game).levels
    top = args.level or str(levels[-1].id)
    compiled = level_player(game, top)
    traced = traced_twin(compiled)
    lowest = level_player(game, str(levels[0].id))
    compiled.select_action(game, game.initial_state(), np.random.default_rng(0))  # warm up
    traced.select_action(game, game.initial_state(), np.random.default_rng(0))

    times: dict[str, list[float]] = {"compiled": [], "traced": []}
    same_move = same_top = positions = 0
    for g in range(args.games):
        rng = np.random.default_rng([args.seed, g])
        state, seat = game.initial_state(), g % 2
        while not game.is_terminal(state):
            if game.to_play(state) != seat:
                state = game.apply(state, lowest.select_action(game, state, rng))
                continue
            found = {}
            for name, player in (("compiled", compiled), ("traced", traced)):
                t0 = time.perf_counter()
                found[name] = player.analyse(game, state, np.random.default_rng([args.seed, g]))
                times[name].append((time.perf_counter() - t0) * 1e3)
            positions += 1
            same_move += found["compiled"].action == found["traced"].action
            same_top += [m for m, _ in found["compiled"].top] == [m for m, _ in found["traced"].top]
            state = game.apply(state, found["compiled"].action)
    print(f"{game.spec.id} level {top}, {positions} positions of {args.games} games against "
          f"level {levels[0].id}: the same move on {same_move}, the same top five on {same_top}")
    for name, t in times.items():
        ms = np.array(t)
        print(f"  {name:9s} ms a move: p50 {np.median(ms):.0f}, p99 {np.percentile(ms, 99):.0f}, "
              f"mean {ms.mean():.0f}")

    if args.arena:
        wins, draws, losses, _ = play_match(game, compiled, traced, args.arena,
                                            np.random.default_rng(args.seed),
                                            opening_plies=args.opening_plies)
        n = wins + draws + losses
        lo, hi = wilson(wins + draws / 2, n)
        print(f"arena, compiled against traced: +{wins} ={draws} -{losses} of {n} "
              f"({(wins + draws / 2) / n:.1%}, 95% interval {lo:.0%}-{hi:.0%})")


if __name__ == "__main__":
    main()
