"""Self-play positions/s by backend: local processes, local processes whose leaves go to one
shared inference server (``selfplay.inference: shared``), and Ray actors, 1 and 2 workers
each, the same config and weights in one run.

Prints a table, asserts nothing. For each (backend, workers) row the backend is opened, one
warm-up round is played (process or actor start, imports, the first network calls) and then
``--rounds`` rounds, each one training iteration's self-play (``games_per_iteration`` split
over the workers as the learner splits them, seeded by round). Positions/s = searched
positions (training samples) / wall seconds of those rounds, and of the fastest round alone
(the least disturbed by other work on the machine); per CPU-second = the same positions / the
CPU time the workers spent playing them, which a loaded machine does not lower (the ceiling
per core).
Ray is started once for all its rows (``num_cpus`` = the most workers asked for); its start-up
time is printed apart.

    python bench/selfplay_backends.py [--config configs/jiugong.yaml] [--workers 1 2]
                                      [--rounds 3] [--checkpoint PATH] [--no-ray]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.checkpoint import load_model  # noqa: E402
from agents.networks import build_network  # noqa: E402
from envs import make_game  # noqa: E402
from training.backends import SelfPlayBackend, keep_ray_on_loopback  # noqa: E402
from training.backends.local import LocalBackend  # noqa: E402
from training.backends.shared_inference import SharedInference  # noqa: E402
from training.config import RunConfig, load_config  # noqa: E402
from training.learner import selfplay_tasks  # noqa: E402
from training.selfplay import Weights, cpu_weights  # noqa: E402


def measure(
    backend: SelfPlayBackend, cfg: RunConfig, weights: Weights, workers: int, rounds: int
) -> tuple[float, float, float, float]:
    """(positions/s, the fastest round's positions/s, positions per CPU-second, sample bytes a
    position) over ``rounds`` rounds."""
    run = cfg.model_copy(
        update={"selfplay": cfg.selfplay.model_copy(update={"workers": workers})}
    )
    backend.play(weights, selfplay_tasks(run, 0))  # warm-up
    positions, nbytes, cpu, best, t0 = 0, 0, 0.0, 0.0, time.perf_counter()
    for r in range(1, rounds + 1):
        start = time.perf_counter()
        batch = backend.play(weights, selfplay_tasks(run, r))
        best = max(best, batch.searched_positions / (time.perf_counter() - start))
        positions += batch.searched_positions
        cpu += batch.cpu_seconds
        nbytes += sum(a.nbytes for a in (batch.obs, batch.mask, batch.policy, batch.value))
    seconds = time.perf_counter() - t0
    return positions / seconds, best, positions / cpu, nbytes / max(positions, 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="configs/jiugong.yaml")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--checkpoint", help="weights to play with (default: a fresh network)")
    ap.add_argument("--no-ray", action="store_true", help="no Ray rows (its start is slow)")
    args = ap.parse_args()

    cfg = load_config(args.config)
    game = make_game(cfg.game.id, **cfg.game.options)
    if args.checkpoint:
        model = load_model(args.checkpoint).model
    else:
        torch.manual_seed(cfg.seed)
        model = build_network(game.spec, cfg.network)
    weights = cpu_weights(model)
    sp = cfg.selfplay
    print(
        f"{args.config}: {cfg.game.id}, {sp.games_per_iteration} games a round "
        f"({sp.batch_games} at once per worker), {cfg.search.simulations} simulations, "
        f"{args.rounds} rounds after a warm-up; weights {sum(w.nbytes for w in weights.values())}"
        " bytes"
    )
    rows: list[tuple[str, int, float, float, float, float]] = []
    for n in args.workers:
        with LocalBackend(n) as backend:
            rows.append(("local", n, *measure(backend, cfg, weights, n, args.rounds)))
    for n in args.workers:
        with SharedInference(LocalBackend(n), sp.device) as shared:
            rows.append(("local, shared inference", n,
                         *measure(shared, cfg, weights, n, args.rounds)))
    if args.no_ray:
        pass
    elif importlib.util.find_spec("ray") is None:
        print("ray is not installed (pip install -e '.[ray]'): no Ray rows")
    else:
        keep_ray_on_loopback()
        import ray

        from training.backends.ray_actors import RayBackend

        t0 = time.perf_counter()
        ray.init(address="local", num_cpus=max(args.workers), include_dashboard=False,
                 log_to_driver=False)
        print(f"Ray instance started in {time.perf_counter() - t0:.1f} s")
        try:
            for n in args.workers:
                with RayBackend(n) as backend:
                    rows.append(("ray", n, *measure(backend, cfg, weights, n, args.rounds)))
        finally:
            ray.shutdown()
    base = rows[0][2]
    best_base = rows[0][3]
    print("| backend | workers | positions/s | vs local, 1 worker | fastest round | vs local, "
          "1 worker | positions per CPU-second |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, n, pos_s, best, per_cpu, _ in rows:
        print(f"| {name} | {n} | {pos_s:.0f} | {pos_s / base:.2f}x | {best:.0f} | "
              f"{best / best_base:.2f}x | {per_cpu:.0f} |")
    print(f"samples travel back at {rows[0][5] / 1024:.1f} KiB a position")
    load = Path("/proc/loadavg")
    if load.exists():
        print(f"load average (1, 5, 15 min): {' '.join(load.read_text().split()[:3])}")


if __name__ == "__main__":
    main()
