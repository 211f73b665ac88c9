"""MaskablePPO (sb3-contrib) trained on the unmodified Jiugong env: win rate against random.

Trains against the uniform-random opponent, alternating seats between two envs, then plays
evaluation games from both seats. Usage: python bench/jiugong_ppo.py [--steps N] [--games N]
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import DummyVecEnv

import envs  # noqa: F401  (registers the ids)


def evaluate(model: MaskablePPO, games: int, seed: int) -> dict[str, float]:
    results = {"win": 0, "draw": 0, "loss": 0}
    for i in range(games):
        env = gym.make("qizero/Jiugong-v0", opponent="random", agent_player=i % 2)
        obs, _ = env.reset(seed=seed + i)
        terminated = False
        while not terminated:
            action, _ = model.predict(
                obs, action_masks=env.unwrapped.action_masks(), deterministic=True
            )
            obs, reward, terminated, _, _ = env.step(int(action))
        results["win" if reward > 0 else "loss" if reward < 0 else "draw"] += 1
    return {k: v / games for k, v in results.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (small nets: 1)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    vec = DummyVecEnv(
        [
            lambda seat=seat: gym.make("qizero/Jiugong-v0", opponent="random", agent_player=seat)
            for seat in (0, 1)
        ]
    )
    model = MaskablePPO("MultiInputPolicy", vec, seed=args.seed, verbose=0)
    before = evaluate(model, args.games, args.seed + 10_000)
    start = time.perf_counter()
    model.learn(total_timesteps=args.steps)
    seconds = time.perf_counter() - start
    after = evaluate(model, args.games, args.seed + 10_000)

    def fmt(rates: dict[str, float]) -> str:
        return " ".join(f"{k} {v:.1%}" for k, v in rates.items())

    print(f"untrained vs random ({args.games} games, both seats): {fmt(before)}")
    print(f"after {args.steps} steps ({seconds:.0f} s) vs random: {fmt(after)}")


if __name__ == "__main__":
    main()
