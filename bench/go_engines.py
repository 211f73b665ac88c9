"""Random-play speed of the Stereo Go engine against OpenSpiel's and PettingZoo's Go.

Every engine plays the same number of uniformly random games (legal moves computed at every
ply, pass included as a legal move) on 9x9 and 19x19; this engine also plays the cylinder.
This engine is measured through both of its levels: the array path self-play uses
(``legal_mask``, ``np.flatnonzero``, ``apply`` with a Python int) and the notation-free list
path (``legal_actions``, ``apply`` with the list's element). OpenSpiel plays through its
fastest Python path (``legal_actions`` + ``apply_action``). Engines are interleaved game by
game so that a busy machine slows them alike, and the time is CPU time of this process.
Prints plies/second per engine and board, and each path's ratio to OpenSpiel. Last, the
random playouts of pure MCTS from the empty board: ``Game.random_playout``'s generic loop over
the array path against the engine's compiled playout (the same games, move for move).

    .venv/bin/python bench/go_engines.py --games 20
    .venv/bin/python bench/go_engines.py --games 20 --pz-games 2   # PettingZoo is slow

OpenSpiel (``open_spiel``) and PettingZoo (``pettingzoo[classic]``) come from the ``bench``
extra; missing ones are reported and skipped. Each engine uses its own cap on game length
(this engine: 2 x points, like OpenSpiel's go).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

# This checkout's engine, unless PYTHONPATH names another (appended: PYTHONPATH comes first,
# and an editable install of another checkout only after every sys.path entry).
sys.path.append(str(Path(__file__).resolve().parent.parent))

from envs.stereo_go import StereoGo  # noqa: E402


def qizero_game(board: str) -> Callable[[random.Random], int]:
    """The list path: ``legal_actions`` (sorted int16) and ``apply`` with one of them."""
    game = StereoGo(StereoGo.Config(board=board))

    def play(rng: random.Random) -> int:
        state = game.initial_state()
        plies = 0
        while not game.is_terminal(state):
            actions = game.legal_actions(state)
            state = game.apply(state, actions[rng.randrange(len(actions))])
            plies += 1
        return plies

    play(random.Random(-1))  # compile and warm up
    return play


def qizero_array_game(board: str) -> Callable[[random.Random], int]:
    """The array path of self-play and search: ``legal_mask``, ``np.flatnonzero``, ``apply``."""
    game = StereoGo(StereoGo.Config(board=board))

    def play(rng: random.Random) -> int:
        state = game.initial_state()
        plies = 0
        while not game.is_terminal(state):
            actions = np.flatnonzero(game.legal_mask(state))
            state = game.apply(state, int(actions[rng.randrange(len(actions))]))
            plies += 1
        return plies

    play(random.Random(-1))  # compile and warm up
    return play


def openspiel_game(size: int) -> Callable[[random.Random], int] | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("go", {"board_size": size, "komi": 7.5})

    def play(rng: random.Random) -> int:
        state = game.new_initial_state()
        plies = 0
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply_action(actions[rng.randrange(len(actions))])
            plies += 1
        return plies

    return play


def pettingzoo_game(size: int) -> Callable[[random.Random], int] | None:
    try:
        from pettingzoo.classic import go_v5
    except ImportError:
        return None
    env = go_v5.env(board_size=size, komi=7.5)

    def play(rng: random.Random) -> int:
        env.reset(seed=rng.randrange(2**31))
        plies = 0
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            else:
                legal = obs["action_mask"].nonzero()[0]
                action = int(legal[rng.randrange(len(legal))])
                plies += 1
            env.step(action)
        return plies

    return play


def measure(engines: dict[str, Callable[[random.Random], int]], games: dict[str, int],
            seed: int) -> dict[str, float]:
    """Plies per CPU second of each engine, playing their games interleaved."""
    plies = dict.fromkeys(engines, 0)
    seconds = dict.fromkeys(engines, 0.0)
    rngs = {name: random.Random(seed) for name in engines}
    for i in range(max(games.values())):
        for name, play in engines.items():
            if i >= games[name]:
                continue
            t = time.process_time()
            plies[name] += play(rngs[name])
            seconds[name] += time.process_time() - t
    return {name: plies[name] / seconds[name] for name in engines}


def playout_speed(board: str, games: int, seed: int) -> tuple[float, float]:
    """Milliseconds (CPU) a random playout from the empty board: generic loop, compiled."""
    from envs.core import Game

    game = StereoGo(StereoGo.Config(board=board))
    start = game.initial_state()
    game.random_playout(start, np.random.default_rng(), 10_000)  # compile
    seconds = [0.0, 0.0]
    rngs = [np.random.default_rng(seed), np.random.default_rng(seed)]
    for _ in range(games):
        for k, playout in enumerate((partial(Game.random_playout, game), game.random_playout)):
            t = time.process_time()
            playout(start, rngs[k], 10_000)
            seconds[k] += time.process_time() - t
    return seconds[0] * 1e3 / games, seconds[1] * 1e3 / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="random games per engine and board")
    parser.add_argument("--pz-games", type=int, default=None,
                        help="games for PettingZoo (default: --games)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    pz_games = args.games if args.pz_games is None else args.pz_games

    print(f"engine: {sys.modules[StereoGo.__module__].__file__}")
    ours = {"qizero-array": qizero_array_game, "qizero-list": qizero_game}
    rows = []
    for size in (9, 19):
        board = f"{size}x{size}"
        engines = {name: factory(board) for name, factory in ours.items()}
        games = dict.fromkeys(engines, args.games)
        for name, factory, count in (("openspiel", openspiel_game, args.games),
                                     ("pettingzoo", pettingzoo_game, pz_games)):
            play = factory(size)
            if play is None:
                print(f"{name} is not installed: skipped (pip install the 'bench' extra)")
            elif count > 0:
                engines[name] = play
                games[name] = count
        speeds = measure(engines, games, args.seed)
        reference = speeds.get("openspiel")
        for name, speed in speeds.items():
            ratio = f"{speed / reference:.2f}" if reference and name in ours else ""
            rows.append((board, name, games[name], speed, ratio))
    cylinder = {name: factory("cylinder") for name, factory in ours.items()}
    speeds = measure(cylinder, dict.fromkeys(cylinder, args.games), args.seed)
    rows += [("cylinder", name, args.games, speed, "") for name, speed in speeds.items()]

    print(f"{'board':9} {'engine':13} {'games':>5} {'plies/s':>10} {'/ openspiel':>12}")
    for board, name, count, speed, ratio in rows:
        print(f"{board:9} {name:13} {count:5d} {speed:10.0f} {ratio:>12}")

    print(f"\n{'board':9} {'playouts':>8} {'generic ms':>11} {'compiled ms':>12} {'speed-up':>9}")
    for board in ("9x9", "19x19", "cylinder"):
        generic, compiled = playout_speed(board, args.games, args.seed)
        speedup = generic / compiled
        print(f"{board:9} {args.games:8d} {generic:11.3f} {compiled:12.3f} {speedup:9.1f}")


if __name__ == "__main__":
    main()
