"""Learner speed: samples/s of the training loop's gradient steps, and how much of it is the
replay buffer's sampling (symmetry augmentation on the CPU) rather than the network.

Prints figures, asserts nothing. The buffer is filled with positions of uniformly random games
(uniform policy targets, zero values: the arithmetic is the same as for real samples), then
``training.learner.Learner`` takes ``--steps`` gradient steps exactly as in a run (sampling,
augmentation, forward, backward, AdamW) on ``training.device`` and ``training.threads`` of the
config (``--device`` and ``--threads`` override them). Sampling alone is timed apart. Wall
time and the process's CPU time are both printed: on a loaded machine the CPU figure (samples
per CPU-second, all threads together) is the one that holds.

    python bench/learner_speed.py --config configs/stereo_go.yaml [--steps 20] [--device cpu]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from training.config import load_config  # noqa: E402
from training.learner import Learner  # noqa: E402


def random_positions(game, n: int, rng: np.random.Generator) -> list:
    """``n`` non-terminal positions of uniformly random games, at every depth."""
    out: list = []
    while len(out) < n:
        s = game.initial_state()
        while not game.is_terminal(s) and len(out) < n:
            out.append(s)
            legal = np.flatnonzero(game.legal_mask(s))
            s = game.apply(s, int(legal[rng.integers(len(legal))]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="configs/stereo_go.yaml")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--positions", type=int, default=2000, help="samples in the buffer")
    ap.add_argument("--device", help="override training.device")
    ap.add_argument("--threads", type=int, help="override training.threads")
    args = ap.parse_args()

    cfg = load_config(args.config)
    t = cfg.training
    t = t.model_copy(update={
        "steps_per_iteration": args.steps, "min_buffer": 1,
        **({"device": args.device} if args.device else {}),
        **({"threads": args.threads} if args.threads else {}),
    })
    cfg = cfg.model_copy(update={"training": t})
    with tempfile.TemporaryDirectory() as tmp:
        learner = Learner(cfg, tmp, tensorboard=False)
        game = learner.game
        states = random_positions(game, args.positions, np.random.default_rng(0))
        mask = np.stack([game.legal_mask(s) for s in states])
        buffer = learner.buffer
        aux = {}
        if buffer.aux:  # ownership and score heads: zero targets of the buffer's shapes
            aux = {"ownership": np.zeros((len(states), *buffer.ownership.shape[1:]), np.float32),
                   "score": np.zeros(len(states), np.float32)}
        buffer.add(
            np.stack([game.observation(s) for s in states]), mask,
            (mask / mask.sum(axis=1, keepdims=True)).astype(np.float32),
            np.zeros(len(states), np.float32), **aux,
        )
        learner._train()  # warm-up: allocations, first kernels
        if learner.device.type == "cuda":
            torch.cuda.synchronize()
        t0, cpu0 = time.perf_counter(), time.process_time()
        learner._train()  # its losses are read back every step: the GPU's work is done
        train_s, train_cpu = time.perf_counter() - t0, time.process_time() - cpu0
        rng = np.random.default_rng(1)
        t0 = time.perf_counter()
        for _ in range(args.steps):
            learner.buffer.sample(t.batch_size, rng)
        sample_s = time.perf_counter() - t0
    n = args.steps * t.batch_size
    print(
        f"{args.config}: {cfg.game.id}, network {cfg.network.kind} {cfg.network.channels}x"
        f"{cfg.network.blocks}, batch {t.batch_size}, device {learner.device}, "
        f"{t.threads} threads, {game.spec.num_symmetries} symmetries"
    )
    print(
        f"training loop: {n / train_s:.0f} samples/s ({1000 * train_s / args.steps:.0f} ms a "
        f"step), {n / train_cpu:.0f} samples per CPU-second; of it sampling with augmentation: "
        f"{n / sample_s:.0f} samples/s ({1000 * sample_s / args.steps:.1f} ms a step)"
    )


if __name__ == "__main__":
    main()
