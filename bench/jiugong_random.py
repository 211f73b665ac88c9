"""Random-play throughput of the Jiugong engine and of its Gymnasium env (single process).

Usage: python bench/jiugong_random.py [--games N] [--seed S]
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np

import envs


def engine_games(n: int, seed: int) -> tuple[int, float]:
    game = envs.make_game("jiugong")
    rng = np.random.default_rng(seed)
    plies = 0
    start = time.perf_counter()
    for _ in range(n):
        state = game.initial_state()
        while not game.is_terminal(state):
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
            plies += 1
    return plies, time.perf_counter() - start


def env_steps(n: int, seed: int) -> tuple[int, float]:
    env = gym.make("qizero/Jiugong-v0")
    rng = np.random.default_rng(seed)
    steps = 0
    start = time.perf_counter()
    for episode in range(n):
        obs, _ = env.reset(seed=seed + episode)
        terminated = False
        while not terminated:
            obs, _, terminated, _, _ = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
    return steps, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    plies, seconds = engine_games(args.games, args.seed)
    print(f"engine: {args.games} games, {plies} plies in {seconds:.2f} s: "
          f"{args.games / seconds:,.0f} games/s, {plies / seconds:,.0f} plies/s, "
          f"{plies / args.games:.1f} plies/game")
    steps, seconds = env_steps(args.games, args.seed)
    print(f"gym env (self-play): {steps} steps in {seconds:.2f} s: {steps / seconds:,.0f} steps/s")


if __name__ == "__main__":
    main()
