"""Self-play speed: positions/s and network evaluations/s, batched versus unbatched search.

Prints figures, asserts nothing (timings never go in tests). One process, one torch thread:
the figures are per core. Two measurements in the same run:

1. search throughput on the same set of positions (taken from random games): all of them
   searched together (one network call per simulation for the whole batch) versus one at a
   time; the ratio is what batching gains;
2. complete self-play games with the batched worker loop (``training.selfplay.play_games``);
   with ``--without-network`` the same games again with uniform priors and zero values instead
   of the network: what the search and the rules cost alone, so the rest is the network's.

With ``--config`` the game, network shape, search and self-play settings come from a run
config (workers 0: one process; ``--games`` games at once unless ``--batch-games``), e.g. the
Stereo Go configs; ``--positions 0`` skips the first measurement:

    python bench/selfplay_speed.py --game fangqi [--checkpoint PATH] [--simulations 16]
    python bench/selfplay_speed.py --config configs/stereo_go.yaml --games 4 --positions 0
    python bench/selfplay_speed.py --config configs/fangqi_b.yaml --positions 0 --device cuda

``--device`` is where the self-play games evaluate the network (``selfplay.device``: a worker
on a GPU machine); the search-throughput comparison always runs on the CPU. ``--inference-dtype``
is the self-play games' network precision (``selfplay.inference_dtype``; default: the config's,
else float32); compare float32 and bfloat16 by alternating runs and reading the positions per
CPU-second (per-core speed, steadier than wall time on a loaded machine). ``--search-batch``
and ``--prefetch-cuts on|off`` override the search's ``batch`` and ``prefetch_cuts`` (Gumbel's
rounds of sequential halving in one network call, its cutting rounds predicted).

    python bench/selfplay_speed.py --config configs/stereo_go_9x9.yaml --games 32 \
        --positions 0 --inference-dtype bfloat16

The code measured is this checkout's unless PYTHONPATH names another one (before/after runs
of two checkouts with one script).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.append(str(Path(__file__).resolve().parent.parent))  # after PYTHONPATH's entries

from agents.checkpoint import load_model  # noqa: E402
from agents.config import NetworkConfig, SearchConfig  # noqa: E402
from agents.device import resolve_device  # noqa: E402
from agents.evaluator import (  # noqa: E402
    BFLOAT16_MIN_BATCH,
    NetworkEvaluator,
    UniformEvaluator,
)
from agents.inference import InferencePipeline  # noqa: E402
from agents.networks import build_network, count_parameters  # noqa: E402
from agents.search import search  # noqa: E402
from envs import make_game  # noqa: E402
from training.config import SelfPlayConfig, load_config  # noqa: E402
from training.selfplay import play_games  # noqa: E402


def sample_positions(game, n: int, rng: np.random.Generator, max_depth: int = 80) -> list:
    """Non-terminal positions from uniformly random games, at random depths below
    ``max_depth``."""
    out = []
    while len(out) < n:
        s = game.initial_state()
        depth = int(rng.integers(0, max_depth))
        for _ in range(depth):
            if game.is_terminal(s):
                break
            legal = np.flatnonzero(game.legal_mask(s))
            s = game.apply(s, int(legal[rng.integers(len(legal))]))
        if not game.is_terminal(s):
            out.append(s)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="fangqi")
    ap.add_argument("--config", help="a run config: its game, network, search and self-play")
    ap.add_argument("--batch-games", type=int, help="games searched together (with --config)")
    ap.add_argument("--checkpoint", help="network to use (default: a fresh one, same shape)")
    ap.add_argument("--channels", type=int, default=32)
    ap.add_argument("--blocks", type=int, default=2)
    ap.add_argument("--simulations", type=int, default=16)
    ap.add_argument("--positions", type=int, default=64, help="positions searched per mode")
    ap.add_argument("--games", type=int, default=16, help="self-play games (batched loop)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--games-seed", type=int, default=2,
                    help="the self-play games' seed (other games: other lengths and batches)")
    ap.add_argument("--device", default="cpu",
                    help="where the self-play games evaluate the network (cpu, auto, cuda)")
    ap.add_argument("--inference-dtype", choices=("float32", "bfloat16"),
                    help="the self-play games' network precision (default: the config's)")
    ap.add_argument("--search-batch", type=int,
                    help="the self-play games' search.batch (default: the config's)")
    ap.add_argument("--prefetch-cuts", choices=("on", "off"),
                    help="search.prefetch_cuts (Gumbel's cutting rounds predicted; default: "
                    "the config's)")
    ap.add_argument("--without-network", action="store_true",
                    help="also play the games with a uniform evaluator (search and rules alone)")
    args = ap.parse_args()

    torch.set_num_threads(1)
    run = load_config(args.config) if args.config else None
    if args.checkpoint:
        loaded = load_model(args.checkpoint)
        game, model = loaded.game, loaded.model
    else:
        game = make_game(run.game.id, **run.game.options) if run else make_game(args.game)
        net = run.network if run else NetworkConfig(
            kind="resnet", channels=args.channels, blocks=args.blocks
        )
        torch.manual_seed(args.seed)
        model = build_network(game.spec, net).eval()
    cfg = run.search if run else SearchConfig(simulations=args.simulations, max_considered=8)
    rng = np.random.default_rng(args.seed)
    states = sample_positions(game, args.positions, rng)
    print(
        f"game {game.spec.id} {game.config}, network {count_parameters(model)} parameters, "
        f"{cfg.simulations} simulations per move, {len(states)} positions, 1 thread; "
        f"code: {Path(sys.modules[make_game.__module__].__file__).parent.parent}"
    )

    figures = {}
    for mode in ("batched", "unbatched") if states else ():
        ev = InferencePipeline(NetworkEvaluator(model).infer)
        t0 = time.perf_counter()
        if mode == "batched":
            search(game, states, ev, cfg, np.random.default_rng(1))
        else:
            for s in states:
                search(game, [s], ev, cfg, np.random.default_rng(1))
        dt = time.perf_counter() - t0
        counts = ev.stats()
        rows, calls = counts["rows"], counts["forward_passes"]
        figures[mode] = (len(states) / dt, rows / dt, calls)
        print(
            f"{mode:>9}: {len(states) / dt:8.1f} positions/s  {rows / dt:9.1f} "
            f"network evals/s  ({calls} network calls, {dt:.1f} s)"
        )
    if figures:
        ratio = figures["batched"][0] / figures["unbatched"][0]
        print(f"batching gain: {ratio:.2f}x positions/s")

    # Warm up (compiled rules loaded from numba's cache, first network call) on the side.
    sample_positions(game, 1, np.random.default_rng(12345))
    device = str(resolve_device(args.device, "--device"))
    dtype = args.inference_dtype or (run.selfplay.inference_dtype if run else "float32")
    # As a worker plays (run_task): the traced network through the inference pipeline.
    network = NetworkEvaluator(model, device=device, traced=True, dtype=dtype)
    ev = InferencePipeline(network.infer)
    ev.evaluate(game, [game.initial_state()])
    if dtype != "float32":  # trace the bfloat16 network too, outside the timed games
        network.evaluate(game, [game.initial_state()] * BFLOAT16_MIN_BATCH)
    if run:
        sp = run.selfplay.model_copy(
            update={"workers": 0, "batch_games": args.batch_games or args.games}
        )
    else:
        sp = SelfPlayConfig(workers=0, batch_games=args.games, max_plies=400)
    if args.search_batch:
        cfg = cfg.model_copy(update={"batch": args.search_batch})
    if args.prefetch_cuts:
        cfg = cfg.model_copy(update={"prefetch_cuts": args.prefetch_cuts == "on"})
    batch = play_games(game, ev, cfg, sp, args.games, np.random.default_rng(args.games_seed))
    prefetch = ", prefetch_cuts" if cfg.prefetch_cuts else ""
    print(
        f"self-play ({args.games} games, {sp.batch_games} at once, to the end): "
        f"{batch.searched_positions} "
        f"positions in {batch.seconds:.1f} s = {batch.searched_positions / batch.seconds:.1f} "
        f"positions/s, {batch.evaluations / batch.seconds:.1f} network evals/s, "
        f"{batch.network_calls} network calls of "
        f"{batch.evaluations / max(batch.network_calls, 1):.1f} positions on average "
        f"(search.batch {cfg.batch}{prefetch}), "
        f"mean game length {batch.plies / max(batch.games, 1):.0f} plies; "
        f"{batch.searched_positions / batch.cpu_seconds:.1f} positions per CPU-second "
        f"(network on {device}, {dtype})"
    )
    if args.without_network:
        free = play_games(
            game, UniformEvaluator(), cfg, sp, args.games, np.random.default_rng(args.games_seed)
        )
        # Shares of CPU time, not wall time: a loaded machine slows both runs unevenly.
        per_position = free.cpu_seconds / free.searched_positions  # search and rules alone
        share = 1 - per_position * batch.searched_positions / batch.cpu_seconds
        print(
            f"without the network (uniform priors, zero values): {free.searched_positions} "
            f"positions in {free.seconds:.1f} s = {free.searched_positions / free.seconds:.1f} "
            f"positions/s, {1 / per_position:.1f} per CPU-second; the network's share of "
            f"self-play's CPU time (observations included): {share:.0%}"
        )

if __name__ == "__main__":
    main()
