"""Seconds a move of each game's top level with batches inside its search (``search.batch``).

One search at a time, one core (``torch.set_num_threads(1)``), no evaluation cache (so a
batch's gain is not a cache's): each level from its ``levels.json``, searching the same
positions (every ``--every`` plies of one seeded random game from ply ``--skip``) at each
batch, the batches taking turns in every repeat; a position's time is the least of its
``--repeats`` (the machine is shared: the least is the one least disturbed). Also prints the
network calls a move and how often the batched search chose the sequential one's move.

    python bench/search_batch.py                       # every game's top level, batch 1/8/16
    python bench/search_batch.py --games go9 --batches 1 16 --positions 8
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.config import SearchConfig  # noqa: E402
from agents.players import SearchPlayer, levels_folder, network_player, read_levels  # noqa: E402
from envs import Game, make_game  # noqa: E402

# name -> game id and options: each game's shipped default, and plain 9x9 Go
GAMES: dict[str, tuple[str, dict[str, Any]]] = {
    "jiugong": ("jiugong", {}),
    "fangqi": ("fangqi", {}),
    "cylinder": ("stereo_go", {}),
    "go9": ("stereo_go", {"board": "9x9"}),
    "trigolden": ("trigolden", {}),
}


def top_level(game: Game) -> SearchPlayer:
    """The game's strongest level (the last of its levels.json), without a cache."""
    level = read_levels(game).levels[-1]
    assert level.checkpoint is not None  # a shipped ladder's levels are networks
    cfg = SearchConfig.model_validate(level.search)
    path = levels_folder(game) / level.checkpoint
    return network_player(path, cfg, f"level-{level.label}", cache_bytes=0)


def positions(game: Game, skip: int, every: int, count: int, seed: int) -> list[Any]:
    rng = np.random.default_rng(seed)
    state, out, ply = game.initial_state(), [], 0
    while not game.is_terminal(state) and len(out) < count:
        if ply >= skip and (ply - skip) % every == 0:
            out.append(state)
        legal = np.flatnonzero(game.legal_mask(state))
        state = game.apply(state, int(legal[rng.integers(len(legal))]))
        ply += 1
    return out


def bench_game(name: str, batches: list[int], args: argparse.Namespace) -> None:
    game_id, options = GAMES[name]
    game = make_game(game_id, **options)
    player = top_level(game)
    base = player.cfg
    states = positions(game, args.skip, args.every, args.positions, args.seed)
    player.select_action(game, states[-1], np.random.default_rng(0))  # trace the network
    best = {b: [np.inf] * len(states) for b in batches}
    calls = dict.fromkeys(batches, 0)
    moves: dict[int, list[int]] = {b: [] for b in batches}
    for repeat in range(args.repeats):
        for b in batches:
            player.cfg = base.model_copy(update={"batch": b})
            for k, s in enumerate(states):
                before = player.evaluator.stats()["forward_passes"]
                t0 = time.perf_counter()
                a = player.select_action(game, s, np.random.default_rng(args.seed))
                best[b][k] = min(best[b][k], time.perf_counter() - t0)
                if repeat == 0:
                    calls[b] += player.evaluator.stats()["forward_passes"] - before
                    moves[b].append(a)
    print(f"{name} ({game.spec.name}), top level {player.name}: {base.algorithm} "
          f"{base.simulations} simulations, {len(states)} positions")
    first = batches[0]
    for b in batches:
        ms = 1000 * float(np.mean(best[b]))
        same = sum(x == y for x, y in zip(moves[b], moves[first]))
        speed = float(np.mean(best[first])) / float(np.mean(best[b]))
        print(f"  batch {b:3d}: {ms:7.0f} ms a move (x{speed:.2f}), "
              f"{calls[b] / len(states):5.1f} network calls a move, "
              f"same move as batch {first}: {same}/{len(states)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
    parser.add_argument("--batches", nargs="+", type=int, default=[1, 8, 16])
    parser.add_argument("--skip", type=int, default=4)
    parser.add_argument("--every", type=int, default=6)
    parser.add_argument("--positions", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    for name in args.games:
        bench_game(name, args.batches, args)


if __name__ == "__main__":
    main()
