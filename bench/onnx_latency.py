"""Inference latency of each game's top level: PyTorch against ONNX Runtime, one position and a
batch of 16, in the same run, on one core (the service runs torch with one thread); then the
time of a whole move of that level (its search, alone, no evaluation cache) over each runtime.

PyTorch is timed both as the service runs it (``NetworkEvaluator(traced=True)``: the frozen
TorchScript network) and eagerly; ONNX Runtime runs the model ``qizero export`` writes
(:class:`training.onnx_export.OnnxNetwork`, one intra-op thread). Each figure is the median of
``--repeats`` calls of ``infer(observations, masks)`` (masking and softmax included, no cache),
the three runtimes interleaved call by call so that a busy machine slows them alike. The
positions come from whole seeded random games (``envs.policies.random_positions``). Also
prints the largest differences between the runtimes' priors and values on those positions.
The move times: the median over ``--moves`` positions of one seeded random game, each searched
with the same seed over both runtimes (so the same searches). Prints figures, asserts nothing.

    python bench/onnx_latency.py [--repeats 300] [--games jiugong fangqi] [--batches 1 16 64]
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

from agents.checkpoint import load_model  # noqa: E402
from agents.config import SearchConfig  # noqa: E402
from agents.evaluator import NetworkEvaluator  # noqa: E402
from agents.inference import InferencePipeline  # noqa: E402
from agents.players import SearchPlayer, levels_folder, read_levels  # noqa: E402
from envs import make_game  # noqa: E402
from envs.policies import random_positions  # noqa: E402
from training.onnx_export import OnnxNetwork, export_level  # noqa: E402

# A shipped ladder of each game (Stereo Go's: the cylinder ladder for area scoring, 400 moves).
LADDERS = {
    "jiugong": {},
    "fangqi": {},
    "stereo_go": {"rules": "area", "max_moves": 400},
    "trigolden": {},
}


def move_times(game, evaluators: dict, search: SearchConfig, moves: int, seed: int) -> dict:
    """Median milliseconds of a move of each evaluator's player on the same positions."""
    rng = np.random.default_rng(seed)
    state, states = game.initial_state(), []
    while len(states) < moves and not game.is_terminal(state):
        states.append(state)
        state = game.apply(state, int(rng.choice(game.legal_actions(state))))
    players = {k: SearchPlayer(k, ev, search) for k, ev in evaluators.items()}
    times: dict[str, list[float]] = {k: [] for k in players}
    for k, player in players.items():  # untimed first move: traces, memos
        player.select_action(game, states[0], np.random.default_rng(seed))
    for i, s in enumerate(states):
        for k, player in players.items():
            t0 = time.perf_counter()
            player.select_action(game, s, np.random.default_rng(seed + i))
            times[k].append(time.perf_counter() - t0)
    return {k: float(np.median(t)) * 1e3 for k, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", nargs="+", default=list(LADDERS), choices=list(LADDERS))
    parser.add_argument("--repeats", type=int, default=300)
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 16])
    parser.add_argument("--moves", type=int, default=8, help="positions of the move times")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    rows = []
    move_rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for game_id in args.games:
            options = LADDERS[game_id]
            game = make_game(game_id, **options)
            top = read_levels(game).levels[-1]
            assert top.checkpoint is not None  # a shipped ladder's levels are networks
            path = export_level(game_id, str(top.id), Path(tmp) / f"{game_id}.onnx", options)
            model = load_model(levels_folder(game) / top.checkpoint).model
            runtimes = {
                "torch traced": NetworkEvaluator(model, traced=True).infer,
                "torch eager": NetworkEvaluator(model).infer,
                "onnxruntime": OnnxNetwork(path, threads=1).infer,
            }
            rng = np.random.default_rng(args.seed)
            states = random_positions(game, max(64, *args.batches), rng)
            obs = np.stack([game.observation(s) for s in states])
            masks = np.stack([game.legal_mask(s) for s in states])
            outs = {name: fn(obs, masks) for name, fn in runtimes.items()}  # also warms up
            ref_p, ref_v = outs["torch eager"]
            d_prior = max(float(np.abs(p - ref_p).max()) for p, _ in outs.values())
            d_value = max(float(np.abs(v - ref_v).max()) for _, v in outs.values())
            for batch in args.batches:
                times: dict[str, list[float]] = {name: [] for name in runtimes}
                for r in range(args.repeats):
                    lo = (r * batch) % (len(states) - batch + 1)
                    o, m = obs[lo : lo + batch], masks[lo : lo + batch]
                    for name, fn in runtimes.items():
                        t0 = time.perf_counter()
                        fn(o, m)
                        times[name].append(time.perf_counter() - t0)
                med = {name: float(np.median(t)) * 1e3 for name, t in times.items()}
                rows.append((game_id, top.label, batch, med, d_prior, d_value))
                print(f"{game_id} batch {batch}: " + ", ".join(
                    f"{k} {v:.3f} ms" for k, v in med.items()), flush=True)
            if args.moves > 0:
                search = SearchConfig.model_validate(top.search)
                evaluators = {
                    "torch traced": NetworkEvaluator(model, traced=True),
                    "onnxruntime": InferencePipeline(runtimes["onnxruntime"]),
                }
                med = move_times(game, evaluators, search, args.moves, args.seed)
                move_rows.append((game_id, top.label, search.simulations, med))
                print(f"{game_id} a move: " + ", ".join(
                    f"{k} {v:.1f} ms" for k, v in med.items()), flush=True)
    print()
    print("| game | level | batch | torch traced (ms) | torch eager (ms) | onnxruntime (ms) "
          "| ort / traced | max abs diff prior, value |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for game_id, label, batch, med, dp, dv in rows:
        ratio = med["onnxruntime"] / med["torch traced"]
        print(f"| {game_id} | {label} | {batch} | {med['torch traced']:.3f} | "
              f"{med['torch eager']:.3f} | {med['onnxruntime']:.3f} | {ratio:.2f} | "
              f"{dp:.1e}, {dv:.1e} |")
    if move_rows:
        print()
        print("| game | level | simulations | a move, torch traced (ms) | a move, onnxruntime (ms) "
              "| ort / traced |")
        print("| --- | --- | ---: | ---: | ---: | ---: |")
        for game_id, label, sims, med in move_rows:
            ratio = med["onnxruntime"] / med["torch traced"]
            print(f"| {game_id} | {label} | {sims} | {med['torch traced']:.1f} | "
                  f"{med['onnxruntime']:.1f} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
