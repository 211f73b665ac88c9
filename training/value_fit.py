"""Refit a network's value to the mean result of uniformly random playouts.

Why: where self-play has taught a network little (TriGolden on two cores), a search level
gets its strength from random playouts at the leaves, and one playout is a noisy judge: on
TriGolden positions its result has a standard deviation of 0.39 around the mean over many
playouts, while the means of different positions spread by only 0.32 (docs/training.md). A
network trained to predict that mean judges a leaf with one evaluation and far less noise,
and a search over it needs no playouts at all.

Positions come from seeded uniformly random games, each position kept with
``sample_probability``; its label is the mean utility, for the player to move, of
``playouts`` random playouts (``Game.random_playout``). Worker processes label chunks of
positions, each saved as ``<out>/value_fit/positions_NNNN.npz``, so a stopped run resumes.
The fit trains the whole network: squared error of the value against the labels, plus
``policy_weight`` times the KL divergence from the source network's policy (the priors stay
what self-play made them), on random symmetries of the positions. The result is written as
``<out>/checkpoints/ckpt_<iteration>.pt`` with the source's iteration, and the config as
``<out>/config.yaml``, so ``qizero levels --run <out>`` builds a ladder on it.

``--transfer`` refits a network under other options of its game than it was trained for
(TriGolden's other scoring mode: the observation's global token tells the modes apart, and the
two share the geometry the policy learnt), so one long run serves both modes.
"""

from __future__ import annotations

import copy
import json
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from envs import Game, make_game
from envs.core import ConfigError
from training.config import RunConfig, ValueFitConfig

#: Seeds of the labelling chunks: [config seed, SEED_TAG, chunk].
SEED_TAG = 7919


def label_chunk(task: tuple[str, dict[str, Any], list[int], int, int, float]) -> dict[str, Any]:
    """``count`` positions of seeded random games with their playout labels (worker task)."""
    game_id, options, seed, count, playouts, keep = task
    game = make_game(game_id, **options)
    rng = np.random.default_rng(seed)
    obs, masks, labels = [], [], []
    while len(labels) < count:
        state = game.initial_state()
        while not game.is_terminal(state) and len(labels) < count:
            if rng.random() < keep:
                mover = game.to_play(state)
                total = sum(float(game.random_playout(state, rng, 1000)[mover])
                            for _ in range(playouts))
                obs.append(game.observation(state))
                masks.append(np.packbits(game.legal_mask(state)))
                labels.append(total / playouts)
            legal = np.flatnonzero(game.legal_mask(state))
            state = game.apply(state, int(legal[rng.integers(len(legal))]))
    return {"obs": np.array(obs, dtype=np.float32), "masks": np.array(masks),
            "labels": np.array(labels, dtype=np.float32)}


def collect(cfg: RunConfig, out_dir: Path, workers: int,
            log: Callable[[str], None] = print) -> list[Path]:
    """Label the positions chunk by chunk (in ``workers`` processes; 0: here), keeping the
    chunk files already in ``out_dir/value_fit`` from an earlier run."""
    vf = cfg.value_fit
    folder = out_dir / "value_fit"
    folder.mkdir(parents=True, exist_ok=True)
    chunks = math.ceil(vf.positions / vf.chunk)
    paths = [folder / f"positions_{c:04d}.npz" for c in range(chunks)]
    todo = [c for c, p in enumerate(paths) if not p.is_file()]
    log(f"value fit: {vf.positions} positions in {chunks} chunks, {vf.playouts} playouts each; "
        f"{chunks - len(todo)} chunks already labelled")
    tasks = {
        c: (cfg.game.id, dict(cfg.game.options), [cfg.seed, SEED_TAG, c],
            min(vf.chunk, vf.positions - c * vf.chunk), vf.playouts, vf.sample_probability)
        for c in todo
    }

    def save(c: int, data: dict[str, Any]) -> None:
        tmp = paths[c].with_name(paths[c].name + ".tmp.npz")
        np.savez_compressed(tmp, **data)
        tmp.replace(paths[c])
        log(f"  chunk {c + 1}/{chunks}: {len(data['labels'])} positions, "
            f"mean label {float(np.mean(data['labels'])):+.3f}")

    if workers <= 0:
        for c, task in tasks.items():
            save(c, label_chunk(task))
        return paths
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor, as_completed

    with ProcessPoolExecutor(workers, mp_context=mp.get_context("spawn")) as pool:
        futures = {pool.submit(label_chunk, task): c for c, task in tasks.items()}
        for fut in as_completed(futures):
            save(futures[fut], fut.result())
    return paths


def load_positions(paths: list[Path], game: Game) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(observations, legal masks, labels) of the chunk files, in chunk order."""
    obs, masks, labels = [], [], []
    for p in paths:
        with np.load(p) as d:
            obs.append(d["obs"])
            masks.append(np.unpackbits(d["masks"], axis=1)[:, : game.spec.num_actions] > 0)
            labels.append(d["labels"])
    return np.concatenate(obs), np.concatenate(masks), np.concatenate(labels)


def fit(model: Any, game: Game, obs: np.ndarray, masks: np.ndarray, labels: np.ndarray,
        vf: ValueFitConfig, seed: int, on_epoch: Callable[[int, dict[str, float]], None]
        ) -> dict[str, float]:
    """Train ``model`` in place (see the module docstring); returns the last epoch's
    figures, with ``val_mse_before`` (the source network's error on the held-out part)."""
    import torch

    rng = np.random.default_rng([seed, SEED_TAG])
    order = rng.permutation(len(labels))
    n_val = max(1, int(len(labels) * vf.validation_fraction))
    val, train = order[:n_val], order[n_val:]
    teacher = copy.deepcopy(model).eval()

    def forward(net: Any, o: np.ndarray, m: np.ndarray) -> tuple[Any, Any]:
        logits, value = net(torch.from_numpy(o))
        logits = logits.masked_fill(~torch.from_numpy(m), -1e9)
        return torch.log_softmax(logits, dim=1), value

    def held_out() -> tuple[float, float]:
        with torch.no_grad():
            logp, value = forward(model, obs[val], masks[val])
            t_logp, _ = forward(teacher, obs[val], masks[val])
            mse = float(((value - torch.from_numpy(labels[val])) ** 2).mean())
            kl = float((t_logp.exp() * (t_logp - logp)).sum(dim=1).mean())
        return mse, kl

    model.eval()
    before, _ = held_out()
    opt = torch.optim.AdamW(model.parameters(), lr=vf.learning_rate,
                            weight_decay=vf.weight_decay)
    figures: dict[str, float] = {}
    for epoch in range(vf.epochs):
        model.train()
        perm = rng.permutation(train)
        total = 0.0
        for start in range(0, len(perm), vf.batch_size):
            batch = perm[start:start + vf.batch_size]
            o, m = obs[batch].copy(), masks[batch].copy()
            for k, sym in enumerate(rng.integers(game.spec.num_symmetries, size=len(batch))):
                if sym:
                    o[k], mirrored = game.apply_symmetry(int(sym), o[k], m[k].astype(np.float32))
                    m[k] = mirrored > 0.5
            with torch.no_grad():
                target = forward(teacher, o, m)[0].exp()
            logp, value = forward(model, o, m)
            value_loss = ((value - torch.from_numpy(labels[batch])) ** 2).mean()
            policy_loss = -(target * logp).sum(dim=1).mean()
            loss = value_loss + vf.policy_weight * policy_loss
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(value_loss.detach()) * len(batch)
        model.eval()
        val_mse, val_kl = held_out()
        figures = {"train_mse": total / len(train), "val_mse": val_mse,
                   "val_kl_from_source": val_kl, "val_mse_before": before}
        on_epoch(epoch, figures)
    return figures


def target_game(loaded: Any, cfg: RunConfig, source: Path, transfer: bool) -> Game:
    """The game the refit network will play: the config's. Without ``transfer`` it must be the
    one the source was trained for; with it, the same game under other options (TriGolden's
    other scoring mode: the observation tells the modes apart), as long as the network's
    inputs and outputs keep their shapes."""
    options = dict(cfg.game.options)
    if loaded.game.spec.id != cfg.game.id or (
        not transfer and loaded.data["game"]["options"] != options
    ):
        raise ConfigError(f"{source} was trained for {loaded.data['game']}, the config is for "
                          f"{cfg.game.id} {options}" + ("" if transfer else
                          " (--transfer refits it under the config's options)"))
    game = make_game(cfg.game.id, **options)
    if (game.spec.observation_shape != loaded.game.spec.observation_shape
            or game.spec.num_actions != loaded.game.spec.num_actions):
        raise ConfigError(f"{source}'s network does not fit {cfg.game.id} {options}: other "
                          "observation or action shapes")
    return game


def run_value_fit(cfg: RunConfig, config_text: str, source: Path, out_dir: Path,
                  workers: int, log: Callable[[str], None] = print,
                  transfer: bool = False) -> Path:
    """Label, fit and save (see the module docstring); returns the new checkpoint's path.
    ``transfer``: see :func:`target_game`."""
    import torch
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    from agents.checkpoint import file_digest, load_model, save_checkpoint

    loaded = load_model(source)
    game = target_game(loaded, cfg, source, transfer)
    torch.manual_seed(cfg.seed)
    t0 = time.perf_counter()
    paths = collect(cfg, out_dir, workers, log)
    obs, masks, labels = load_positions(paths, game)
    label_minutes = (time.perf_counter() - t0) / 60
    log(f"fitting on {len(labels)} positions ({label_minutes:.1f} min to label)")
    bar = tqdm(total=cfg.value_fit.epochs, desc="value fit", unit="epoch")
    with SummaryWriter(str(out_dir / "tb" / "value_fit")) as writer:
        def on_epoch(epoch: int, figures: dict[str, float]) -> None:
            for name, value in figures.items():
                writer.add_scalar(f"value_fit/{name}", value, epoch + 1)
            bar.set_postfix(val_mse=f"{figures['val_mse']:.4f}",
                            before=f"{figures['val_mse_before']:.4f}")
            bar.update(1)

        figures = fit(loaded.model, game, obs, masks, labels, cfg.value_fit, cfg.seed,
                      on_epoch)
    bar.close()
    (out_dir / "config.yaml").write_text(config_text)
    record = {"source": str(source), "source_sha256": file_digest(source),
              "source_options": dict(loaded.data["game"]["options"]),
              "positions": int(len(labels)), "label_minutes": round(label_minutes, 1),
              **{k: round(v, 5) for k, v in figures.items()}}
    with open(out_dir / "value_fit" / "fit.json", "w") as f:
        json.dump(record, f, indent=2)
    path = out_dir / "checkpoints" / f"ckpt_{loaded.iteration:06d}.pt"
    save_checkpoint(
        path, game_id=cfg.game.id, game_options=dict(cfg.game.options), network=loaded.network,
        model=loaded.model, iteration=loaded.iteration, step=loaded.step,
        config=yaml.safe_load(config_text), commit=loaded.data.get("commit"),
        extra={"value_fit": record},
    )
    log(f"value fit: held-out squared error {figures['val_mse_before']:.4f} -> "
        f"{figures['val_mse']:.4f}; wrote {path}")
    return path
