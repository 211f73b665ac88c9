"""Seconds the post-game review of a whole game takes (serving/review.py), per game, at the
game's strongest level: the values of every position (batched network passes) and the searches
for the key mistakes, timed apart.

Each game is one seeded uniformly random game played to its end (a random game has plenty of
mistakes, so the review runs its full number of searches: the worst case), reviewed through the
service's own AI engine (cache, batcher, network), in this process, with one torch thread.
The level's network is loaded and traced before the clock starts, and the evaluation cache is
off, so every repeat pays for every position. Prints figures, asserts nothing.

    python bench/review_time.py [jiugong fangqi stereo_go trigolden] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import envs  # noqa: E402
from envs import make_game  # noqa: E402
from serving.ai import AIEngine  # noqa: E402
from serving.levels import LevelRegistry  # noqa: E402
from serving.review import plies_of_moves, review, review_level  # noqa: E402

CHECKPOINTS = Path(__file__).resolve().parent.parent / "checkpoints"


class Timed:
    """The engine, with the time spent in value batches and in searches counted apart."""

    def __init__(self, engine: AIEngine) -> None:
        self.engine = engine
        self.value_seconds = 0.0
        self.search_seconds = 0.0
        self.searches = 0

    def table(self, game: Any) -> Any:
        return self.engine.table(game)

    def values(self, game: Any, states: list[Any], level_id: str | None) -> np.ndarray:
        t0 = time.perf_counter()
        try:
            return self.engine.values(game, states, level_id)
        finally:
            self.value_seconds += time.perf_counter() - t0

    def analyse(self, game: Any, state: Any, level_id: str | None, seed: int | None) -> Any:
        t0 = time.perf_counter()
        try:
            return self.engine.analyse(game, state, level_id, seed)
        finally:
            self.search_seconds += time.perf_counter() - t0
            self.searches += 1


def random_game(game: Any, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    state, moves = game.initial_state(), []
    while not game.is_terminal(state):
        legal = np.flatnonzero(game.legal_mask(state))
        action = int(legal[rng.integers(len(legal))])
        moves.append(game.action_to_move(state, action))
        state = game.apply(state, action)
    return moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("games", nargs="*", default=envs.game_ids())
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    engine = AIEngine(LevelRegistry(CHECKPOINTS, baseline=True), workers=1, cache_bytes=0)
    try:
        for game_id in args.games:
            game = make_game(game_id)
            moves = random_game(game, args.seed)
            plies = plies_of_moves(game, moves)
            level = review_level(engine.table(game), None)
            engine.values(game, [game.initial_state()], level)  # load and trace the network
            runs = []
            for _ in range(args.repeat):
                timed = Timed(engine)
                t0 = time.perf_counter()
                got = review(timed, game, plies, level)
                runs.append((time.perf_counter() - t0, timed))
            total, timed = sorted(runs, key=lambda r: r[0])[len(runs) // 2]
            print(f"{game_id}: level {level}, {len(moves)} moves: review {total:.2f} s "
                  f"(median of {args.repeat}; values {timed.value_seconds:.2f} s, "
                  f"{timed.searches} searches {timed.search_seconds:.2f} s; "
                  f"{len(got['mistakes'])} mistakes; all runs "
                  f"{', '.join(f'{r[0]:.2f}' for r in runs)} s, spread "
                  f"{statistics.pstdev([r[0] for r in runs]):.2f} s)", flush=True)
    finally:
        engine.close()


if __name__ == "__main__":
    main()
