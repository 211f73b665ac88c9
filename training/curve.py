"""The training curve of a run: Elo of its checkpoints against the training time they took.

Why a separate evaluation: the Elo logged during training is chained (each iteration against the
one before, a few games), so its errors add up. Here a handful of checkpoints spread over the
run play fixed anchors (random = 0, the game's greedy baseline or exact solver where it has one)
and their neighbours, all ratings come from one fit with 95% intervals, and each checkpoint is
placed at the training time it had: the sum of the ``seconds`` of its iterations in
``log.jsonl`` (time between processes of a resumed run does not count), or, for iterations
logged without it, the gap between checkpoint files.

Writes ``<run>/curve.json``, TensorBoard scalars under ``<run>/tb/curve`` (``curve/elo`` at
step = iteration, with the wall time set to the training seconds, so TensorBoard's "relative"
axis is training time) and a PNG.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.players import make_player
from envs import Game, make_game
from envs.core import ConfigError
from envs.policies import named_policy
from training.arena import MatchResult, fit_elo, round_robin
from training.config import RunConfig
from training.levels import run_checkpoints


@dataclass
class CurvePoint:
    iteration: int
    minutes: float  # training time at the end of the iteration
    elo: float
    elo_ci: tuple[float, float]


@dataclass
class Curve:
    points: list[CurvePoint]
    anchors: dict[str, float]  # anchor player -> Elo (random = 0)


def training_seconds(run_dir: Path) -> dict[int, float]:
    """Cumulative training seconds at the end of each iteration of a run.

    An iteration's ``seconds`` in log.jsonl where logged; else (logs written before it was) the
    gap between its checkpoint file and the one before, unless that gap is over five times the
    median gap (the run was stopped in between), when it counts as a median iteration.
    """
    run_dir = Path(run_dir)
    logged: dict[int, float] = {}
    log = run_dir / "log.jsonl"
    if log.is_file():
        for line in log.read_text().splitlines():
            row = json.loads(line)
            if row.get("seconds") is not None:
                logged[int(row["iteration"])] = float(row["seconds"])
    ckpts = run_checkpoints(run_dir)
    mtimes = {it: p.stat().st_mtime for it, p in ckpts.items()}
    order = sorted(mtimes)
    gaps = {b: mtimes[b] - mtimes[a] for a, b in zip(order, order[1:])}
    median = float(np.median(list(gaps.values()))) if gaps else 0.0
    out: dict[int, float] = {}
    total = 0.0
    for it in sorted(set(mtimes) | set(logged)):
        if it == 0:  # the untrained network, before any iteration
            pass
        elif it in logged:
            total += logged[it]
        else:
            gap = gaps.get(it, median)
            total += median if gap > 5 * median else max(gap, 0.0)
        out[it] = total
    return out


def spread(iterations: Sequence[int], points: int) -> list[int]:
    """``points`` iterations spread evenly over a run (its first and last included)."""
    if not iterations:
        raise ConfigError("the run has no checkpoints")
    idx = np.unique(np.linspace(0, len(iterations) - 1, max(points, 1)).round().astype(int))
    return [iterations[i] for i in idx]


def elo_curve(
    cfg: RunConfig,
    run_dir: Path,
    points: int = 8,
    games: int = 20,
    simulations: int = 0,
    seed: int = 0,
    opening_plies: int | None = None,
    log: Callable[[str], Any] = print,
    workers: int = 0,
    chunk: int = 2,
) -> Curve:
    """Rate ``points`` checkpoints of a run against the anchors and each other."""
    run_dir = Path(run_dir)
    game: Game = make_game(cfg.game.id, **cfg.game.options)
    checkpoints = run_checkpoints(run_dir)
    chosen = spread(list(checkpoints), points)
    seconds = training_seconds(run_dir)
    anchors = ["random"]
    for name in ("greedy", "solver"):
        try:
            named_policy(game, name)
        except ConfigError:  # not for this game (greedy: Fang Qi, TriGolden; solver: Jiugong)
            continue
        anchors.append(name)
    names = anchors + [f"iteration {it}" for it in chosen]
    specs = anchors + [f"net:{checkpoints[it]}:{simulations}" for it in chosen]
    players = [make_player(game, spec, seed=seed + k) for k, spec in enumerate(specs)]
    a = len(anchors)
    pairs = [(i, j) for i in range(a) for j in range(i + 1, len(players))]
    pairs += [(k, k + 1) for k in range(a, len(players) - 1)]

    def show(r: MatchResult) -> None:
        log(f"{names[r.i]} vs {names[r.j]}: +{r.wins_i} ={r.draws} -{r.wins_j}")

    # Random opening plies shared by each pair of games (default: the run's levels setting), so
    # that deterministic players meet in more than one line.
    plies = cfg.levels.opening_plies if opening_plies is None else opening_plies
    results = round_robin(
        game, players, games, seed=seed, pairs=pairs, on_result=show, opening_plies=plies,
        workers=workers, chunk=chunk,
    )
    ratings = fit_elo(len(players), results, anchor=0)
    points = [
        CurvePoint(it, seconds.get(it, 0.0) / 60, float(ratings.elo[a + k]), ratings.ci(a + k))
        for k, it in enumerate(chosen)
    ]
    return Curve(points, {name: float(ratings.elo[i]) for i, name in enumerate(anchors)})


def write_curve(run_dir: Path, title: str, curve: Curve, png: Path | None) -> None:
    """curve.json, TensorBoard scalars and (optionally) a PNG for a rated curve."""
    run_dir = Path(run_dir)
    data = {"points": [p.__dict__ for p in curve.points], "anchors": curve.anchors}
    (run_dir / "curve.json").write_text(json.dumps(data, indent=2) + "\n")
    from torch.utils.tensorboard import SummaryWriter

    with SummaryWriter(str(run_dir / "tb" / "curve")) as w:
        for p in curve.points:
            w.add_scalar("curve/elo", p.elo, p.iteration, walltime=p.minutes * 60)
    if png is not None:
        plot_curve(title, curve, png)


def plot_curve(title: str, curve: Curve, png: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=120)
    pts = curve.points
    err = np.array([[p.elo - p.elo_ci[0] for p in pts], [p.elo_ci[1] - p.elo for p in pts]])
    ax.errorbar([p.minutes for p in pts], [p.elo for p in pts], yerr=err, marker="o",
                capsize=3, label="checkpoint, 95% interval")
    styles = {"random": ("grey", ":"), "greedy": ("tab:red", "--"), "solver": ("tab:green", "--")}
    for name, elo in curve.anchors.items():
        color, line = styles.get(name, ("black", "-."))
        ax.axhline(elo, color=color, linestyle=line, label=f"{name} ({elo:.0f})")
    ax.set_xlabel("training time (minutes, 2 CPU cores)")
    ax.set_ylabel("Elo (random = 0)")
    ax.set_title(title, fontsize="medium")
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    fig.tight_layout()
    Path(png).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png)
    plt.close(fig)
