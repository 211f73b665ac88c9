"""Random-play speed of the Stereo Go engine against OpenSpiel's and PettingZoo's Go.

Every engine plays the same number of uniformly random games (legal moves computed at every
ply, pass included as a legal move) on 9x9 and 19x19; this engine also plays the cylinder.
Engines are interleaved game by game so that a busy machine slows them alike, and the time is
CPU time of this process. Prints plies/second per engine and board, and the ratios.

    .venv/bin/python bench/go_engines.py --games 20
    .venv/bin/python bench/go_engines.py --games 20 --pz-games 2   # PettingZoo is slow

OpenSpiel (``open_spiel``) and PettingZoo (``pettingzoo[classic]``) come from the ``bench``
extra; missing ones are reported and skipped. Each engine uses its own cap on game length
(this engine: 2 x points, like OpenSpiel's go).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from envs.stereo_go import StereoGo


def qizero_game(board: str) -> Callable[[random.Random], int]:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="random games per engine and board")
    parser.add_argument("--pz-games", type=int, default=None,
                        help="games for PettingZoo (default: --games)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    pz_games = args.games if args.pz_games is None else args.pz_games

    rows = []
    for size in (9, 19):
        engines = {"qizero": qizero_game(f"{size}x{size}")}
        games = {"qizero": args.games}
        for name, factory, count in (("openspiel", openspiel_game, args.games),
                                     ("pettingzoo", pettingzoo_game, pz_games)):
            play = factory(size)
            if play is None:
                print(f"{name} is not installed: skipped (pip install the 'bench' extra)")
            elif count > 0:
                engines[name] = play
                games[name] = count
        speeds = measure(engines, games, args.seed)
        for name, speed in speeds.items():
            rows.append((f"{size}x{size}", name, games[name], speed, speeds["qizero"] / speed))
    cylinder = {"qizero": qizero_game("cylinder")}
    speed = measure(cylinder, {"qizero": args.games}, args.seed)["qizero"]
    rows.append(("cylinder", "qizero", args.games, speed, 1.0))

    print(f"{'board':9} {'engine':11} {'games':>5} {'plies/s':>10} {'qizero / engine':>16}")
    for board, name, count, speed, ratio in rows:
        print(f"{board:9} {name:11} {count:5d} {speed:10.0f} {ratio:16.2f}")


if __name__ == "__main__":
    main()
