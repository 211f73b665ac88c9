"""Random-play speed of the Stereo Go engine against OpenSpiel's and PettingZoo's Go.

Every engine plays the same number of uniformly random games (legal moves computed at every
ply, pass included as a legal move) on 9x9 and 19x19; this engine also plays the cylinder.
This engine is measured through both of its levels: the array path self-play uses
(``legal_mask``, ``np.flatnonzero``, ``apply`` with a Python int) and the notation-free list
path (``legal_actions``, ``apply`` with the list's element). OpenSpiel plays through its
fastest Python path (``legal_actions`` + ``apply_action``). Engines are interleaved game by
game so that a busy machine slows them alike, and the time is CPU time of this process.
Prints plies/second per engine and board, and each path's ratio to OpenSpiel.

    .venv/bin/python bench/go_engines.py --games 20
    .venv/bin/python bench/go_engines.py --games 20 --pz-games 2   # PettingZoo is slow

Second, the same loop for both engines (issue 34: how self-play drives the engine, against
OpenSpiel's C++ go in the same shape): per ply the legal mask as an array (this engine's
``legal_mask``, OpenSpiel's ``legal_actions_mask``), ``np.flatnonzero`` of it, a uniform pick
from one ``random.Random`` per engine (same seed), then ``apply`` / ``apply_action`` with a
Python int, to the game's end, on 19x19 and 9x9 (this engine alone on the cylinder). After a
warm-up game each, the engines take turns in rounds (A, B, A, B, ...; ``--loop-rounds`` rounds
of ``--loop-games`` games each); the table gives each engine's best round in plies per CPU
second, the mean plies per game (both use the cap 2 x points, so a ratio is not an artefact of
shorter games) and the ratio.

    .venv/bin/python bench/go_engines.py --only loop --loop-games 20

Last, the random playouts of pure MCTS from the empty board: ``Game.random_playout``'s generic
loop over the array path against the engine's compiled playout (the same games, move for
move). ``--only engines|loop|playouts`` prints one of the three tables.

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
from typing import Any

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


def _openspiel_go(size: int) -> Any | None:
    """OpenSpiel's go on a ``size`` board, or None where open_spiel is not installed."""
    try:
        import pyspiel
    except ImportError:
        return None
    return pyspiel.load_game("go", {"board_size": size, "komi": 7.5})


def openspiel_game(size: int) -> Callable[[random.Random], int] | None:
    game = _openspiel_go(size)
    if game is None:
        return None

    def play(rng: random.Random) -> int:
        state = game.new_initial_state()
        plies = 0
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply_action(actions[rng.randrange(len(actions))])
            plies += 1
        return plies

    return play


def openspiel_loop_game(size: int) -> Callable[[random.Random], int] | None:
    """OpenSpiel's go in the loop of :func:`qizero_array_game`: ``legal_actions_mask`` (a list
    of 0/1), ``np.flatnonzero``, pick, ``apply_action`` with a Python int."""
    game = _openspiel_go(size)
    if game is None:
        return None

    def play(rng: random.Random) -> int:
        state = game.new_initial_state()
        plies = 0
        while not state.is_terminal():
            actions = np.flatnonzero(state.legal_actions_mask())
            state.apply_action(int(actions[rng.randrange(len(actions))]))
            plies += 1
        return plies

    play(random.Random(-1))  # warm up like this engine
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


def measure_rounds(engines: dict[str, Callable[[random.Random], int]], games: int,
                   rounds: int, seed: int) -> dict[str, tuple[float, float]]:
    """Each engine's best round (plies per CPU second) and mean plies per game; the engines
    take turns round by round (A, B, A, B, ...), each on its own generator of one seed."""
    best = dict.fromkeys(engines, 0.0)
    plies = dict.fromkeys(engines, 0)
    rngs = {name: random.Random(seed) for name in engines}
    for _ in range(rounds):
        for name, play in engines.items():
            t = time.process_time()
            n = sum(play(rngs[name]) for _ in range(games))
            best[name] = max(best[name], n / (time.process_time() - t))
            plies[name] += n
    return {name: (best[name], plies[name] / (games * rounds)) for name in engines}


def same_loop(games: int, rounds: int, seed: int) -> None:
    """The same-loop table: this engine against OpenSpiel on 19x19 and 9x9, the cylinder."""
    print(f"same loop (mask, flatnonzero, pick, apply): best of {rounds} rounds "
          f"of {games} games, plies per CPU second")
    print(f"{'board':9} {'engine':10} {'plies/s':>10} {'plies/game':>11} {'/ openspiel':>12}")
    for size in (19, 9, None):
        board = "cylinder" if size is None else f"{size}x{size}"
        engines = {"qizero": qizero_array_game(board)}
        reference = None if size is None else openspiel_loop_game(size)
        if reference is not None:
            engines["openspiel"] = reference
        elif size is not None:
            print("openspiel is not installed: skipped (pip install the 'bench' extra)")
        result = measure_rounds(engines, games, rounds, seed)
        for name, (speed, length) in result.items():
            ratio = (f"{speed / result['openspiel'][0]:.2f}"
                     if name == "qizero" and "openspiel" in result else "")
            print(f"{board:9} {name:10} {speed:10.0f} {length:11.1f} {ratio:>12}")


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


def engine_table(games_each: int, pz_games: int, seed: int) -> None:
    """Every engine's random play, interleaved game by game, both paths of this engine."""
    ours = {"qizero-array": qizero_array_game, "qizero-list": qizero_game}
    rows = []
    for size in (9, 19):
        board = f"{size}x{size}"
        engines = {name: factory(board) for name, factory in ours.items()}
        games = dict.fromkeys(engines, games_each)
        for name, factory, count in (("openspiel", openspiel_game, games_each),
                                     ("pettingzoo", pettingzoo_game, pz_games)):
            play = factory(size)
            if play is None:
                print(f"{name} is not installed: skipped (pip install the 'bench' extra)")
            elif count > 0:
                engines[name] = play
                games[name] = count
        speeds = measure(engines, games, seed)
        reference = speeds.get("openspiel")
        for name, speed in speeds.items():
            ratio = f"{speed / reference:.2f}" if reference and name in ours else ""
            rows.append((board, name, games[name], speed, ratio))
    cylinder = {name: factory("cylinder") for name, factory in ours.items()}
    speeds = measure(cylinder, dict.fromkeys(cylinder, games_each), seed)
    rows += [("cylinder", name, games_each, speed, "") for name, speed in speeds.items()]

    print(f"{'board':9} {'engine':13} {'games':>5} {'plies/s':>10} {'/ openspiel':>12}")
    for board, name, count, speed, ratio in rows:
        print(f"{board:9} {name:13} {count:5d} {speed:10.0f} {ratio:>12}")


def playout_table(games: int, seed: int) -> None:
    """Pure MCTS's random playouts: the generic loop against the compiled one."""
    print(f"{'board':9} {'playouts':>8} {'generic ms':>11} {'compiled ms':>12} {'speed-up':>9}")
    for board in ("9x9", "19x19", "cylinder"):
        generic, compiled = playout_speed(board, games, seed)
        speedup = generic / compiled
        print(f"{board:9} {games:8d} {generic:11.3f} {compiled:12.3f} {speedup:9.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="random games per engine and board")
    parser.add_argument("--pz-games", type=int, default=None,
                        help="games for PettingZoo (default: --games)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--loop-games", type=int, default=10,
                        help="games per engine and round of the same-loop table")
    parser.add_argument("--loop-rounds", type=int, default=4,
                        help="rounds of the same-loop table (each engine's best is reported)")
    parser.add_argument("--only", choices=("engines", "loop", "playouts"), default=None,
                        help="print only one table (default: all three)")
    args = parser.parse_args()
    pz_games = args.games if args.pz_games is None else args.pz_games

    print(f"engine: {sys.modules[StereoGo.__module__].__file__}")
    if args.only in (None, "engines"):
        engine_table(args.games, pz_games, args.seed)
    if args.only in (None, "loop"):
        print()
        same_loop(args.loop_games, args.loop_rounds, args.seed)
    if args.only in (None, "playouts"):
        print()
        playout_table(args.games, args.seed)


if __name__ == "__main__":
    main()
