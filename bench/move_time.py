"""Seconds a move of players (any ``make_player`` spec) on the same positions, one core.

The positions come from one seeded uniformly random game (every ``--every`` plies from ply
``--skip``), so two runs, or two checkouts of the code, time the same searches. The first
move of each player is played once untimed (network tracing, memos). Prints figures, asserts
nothing: the wall time a move, and the process's CPU time a move, which other jobs on a shared
machine disturb far less (one thread: torch is set to one, the compiled core runs in it).

    python bench/move_time.py trigolden level:5 mcts:64 [--option scoring=trigolden]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.players import make_player  # noqa: E402
from envs import make_game  # noqa: E402
from training.cli import parse_options  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("game")
    parser.add_argument("players", nargs="+")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--skip", type=int, default=4)
    parser.add_argument("--every", type=int, default=8)
    parser.add_argument("--positions", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    game = make_game(args.game, **parse_options(args.option))
    rng = np.random.default_rng(args.seed)
    state, states, ply = game.initial_state(), [], 0
    while not game.is_terminal(state) and len(states) < args.positions:
        if ply >= args.skip and (ply - args.skip) % args.every == 0:
            states.append(state)
        legal = np.flatnonzero(game.legal_mask(state))
        state = game.apply(state, int(legal[rng.integers(len(legal))]))
        ply += 1
    for spec in args.players:
        player = make_player(game, spec)
        player.select_action(game, states[0], np.random.default_rng(args.seed))
        t0, c0 = time.perf_counter(), time.process_time()
        for s in states:
            player.select_action(game, s, np.random.default_rng(args.seed))
        per_move = (time.perf_counter() - t0) / len(states)
        cpu = (time.process_time() - c0) / len(states)
        print(f"{spec}: {per_move:.2f} s a move, {cpu:.2f} s of CPU ({len(states)} positions, "
              f"plies {args.skip}, {args.skip + args.every}, ...)")


if __name__ == "__main__":
    main()
