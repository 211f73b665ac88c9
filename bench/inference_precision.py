"""How far self-play's bfloat16 network (``selfplay.inference_dtype: bfloat16``) strays from
float32 on positions self-play meets: policy top-1 agreement, KL, value differences.

Prints figures, asserts nothing (tests/test_inference_precision.py checks a small network with
tolerances). The positions: the samples of ``--games`` self-play games played by the
checkpoint itself in float32 (the run config's self-play settings) and ``--random`` positions
from uniformly random games; evaluated in batches of ``--batch`` (at least
``agents.evaluator.BFLOAT16_MIN_BATCH``, else bfloat16 is not used), traced as a worker runs:

    python bench/inference_precision.py \\
        --checkpoint checkpoints/stereo_go/board-9x9/stereo_go-iter0500.pt \\
        --config configs/stereo_go_9x9.yaml --games 8 --random 250
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.append(str(Path(__file__).resolve().parent.parent))  # after PYTHONPATH's entries

from agents.checkpoint import load_model  # noqa: E402
from agents.evaluator import (  # noqa: E402
    BFLOAT16_MIN_BATCH,
    NetworkEvaluator,
    observations_and_masks,
)
from agents.inference import InferencePipeline  # noqa: E402
from bench.selfplay_speed import sample_positions  # noqa: E402
from training.config import load_config  # noqa: E402
from training.selfplay import play_games  # noqa: E402


def agreement(
    priors: np.ndarray, values: np.ndarray, other_priors: np.ndarray, other_values: np.ndarray
) -> dict[str, float]:
    """How far ``other`` (bfloat16) strays from the reference (float32): the share of
    positions with the same most likely move, and where not, the reference's prior lost by
    other's choice (largest; small = a near tie); KL(reference || other) over the priors (mean
    and max, nats), the largest prior difference and the value differences (max and mean)."""
    eps = 1e-12
    p, q = priors.astype(np.float64), other_priors.astype(np.float64)
    kl = np.sum(np.where(p > 0, p * (np.log(p + eps) - np.log(q + eps)), 0.0), axis=1)
    dv = np.abs(values.astype(np.float64) - other_values)
    top_p, top_q = p.argmax(axis=1), q.argmax(axis=1)
    rows = np.arange(len(p))
    gap = p[rows, top_p] - p[rows, top_q]  # 0 where they agree
    return {
        "positions": float(len(p)),
        "top1_agreement": float(np.mean(top_p == top_q)),
        "top1_gap_max": float(gap.max(initial=0.0)),
        "kl_mean": float(kl.mean()),
        "kl_max": float(kl.max()),
        "prior_max_diff": float(np.abs(p - q).max()),
        "value_max_diff": float(dv.max()),
        "value_mean_diff": float(dv.mean()),
    }


def evaluate_in_batches(
    network: NetworkEvaluator, obs: np.ndarray, masks: np.ndarray, batch: int
) -> tuple[np.ndarray, np.ndarray]:
    """Priors and values of every row, ``batch`` rows a network call."""
    parts = [network.infer(obs[i:i + batch], masks[i:i + batch]) for i in range(0, len(obs), batch)]
    return np.concatenate([p for p, _ in parts]), np.concatenate([v for _, v in parts])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkpoint", required=True)
    ap.add_argument("--config", required=True, help="the run config: self-play's settings")
    ap.add_argument("--games", type=int, default=8, help="self-play games for positions")
    ap.add_argument("--random", type=int, default=250, help="positions from random games")
    ap.add_argument("--batch", type=int, default=16, help="rows a network call")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if args.batch < BFLOAT16_MIN_BATCH:
        ap.error(f"--batch below {BFLOAT16_MIN_BATCH} runs in float32 anyway")

    torch.set_num_threads(1)
    loaded = load_model(args.checkpoint)
    game, run = loaded.game, load_config(args.config)
    f32 = NetworkEvaluator(loaded.model, traced=True)
    bf16 = NetworkEvaluator(loaded.model, traced=True, dtype="bfloat16")
    rng = np.random.default_rng(args.seed)
    sp = run.selfplay.model_copy(update={"workers": 0, "batch_games": args.games})
    played = play_games(game, InferencePipeline(f32.infer), run.search, sp, args.games, rng)
    randoms = sample_positions(game, args.random, rng, max_depth=120)
    obs_r, masks_r = observations_and_masks(game, randoms)
    sets = {"self-play": (played.obs, played.mask), "random games": (obs_r, masks_r),
            "all": (np.concatenate([played.obs, obs_r]), np.concatenate([played.mask, masks_r]))}
    print(f"{args.checkpoint}: float32 vs bfloat16 (autocast, traced), {args.batch} rows a call")
    for name, (obs, masks) in sets.items():
        p32, v32 = evaluate_in_batches(f32, obs, masks, args.batch)
        pb, vb = evaluate_in_batches(bf16, obs, masks, args.batch)
        a = agreement(p32, v32, pb, vb)
        print(f"{name:>12}: {int(a['positions'])} positions, top-1 agreement "
              f"{a['top1_agreement']:.1%} (largest prior gap where not "
              f"{a['top1_gap_max']:.4f}), KL mean {a['kl_mean']:.2e} max {a['kl_max']:.2e}, "
              f"prior max diff {a['prior_max_diff']:.4f}, |value diff| max "
              f"{a['value_max_diff']:.4f} mean {a['value_mean_diff']:.4f}")


if __name__ == "__main__":
    main()
