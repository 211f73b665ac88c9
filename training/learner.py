"""The training loop: self-play -> replay buffer -> gradient steps -> numbered checkpoint.

Iteration ``i`` plays ``games_per_iteration`` self-play games with the weights of checkpoint
``i``, adds the samples to the buffer, takes ``steps_per_iteration`` gradient steps and writes
checkpoint ``i + 1`` (with the optimizer state) and the buffer next to it. Stages hand off
through files, so a run resumes from any checkpoint that still has its buffer.

Reproducibility: every random draw of iteration ``i`` comes from generators seeded with
``(seed, i, purpose)``, never from state carried across iterations, so resuming from checkpoint
``i`` continues exactly as the uninterrupted run would have (same weights, bit for bit, on the
same machine and thread count).

Self-play runs on a backend (``selfplay.backend``: local processes or Ray actors,
``training.backends``) that returns the samples of the iteration's tasks in task order, so the
backend changes where games are played, not which. The learner's steps run on
``training.device`` (``auto``: a CUDA GPU when torch sees one, else the CPU).

Run directory (``runs/<game>-<time>/`` by default): ``config.yaml`` (resolved), ``checkpoints/
ckpt_000012.pt`` + ``buffer_000012.npz``, ``tb/`` (TensorBoard: ``losses/...``,
``charts/...``), ``log.jsonl`` (one line of figures per iteration).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml

from agents.checkpoint import code_commit, read_checkpoint, save_checkpoint
from agents.config import SearchConfig
from agents.device import resolve_device
from agents.networks import build_network
from envs import make_game
from envs.core import QizeroError
from training import stages
from training.backends import SelfPlayBackend, open_backend
from training.config import RunConfig, config_to_dict, option_combinations
from training.replay import ReplayBuffer
from training.selfplay import SelfPlayTask, cpu_weights, split_games

_LOSS_NAMES = (
    "policy_loss", "value_loss", "entropy", "value_accuracy", "ownership_loss", "score_loss"
)

# Purposes for derived seeds.
_SELFPLAY, _TRAIN, _EVAL, _INIT = 1, 2, 3, 4


def checkpoint_path(run_dir: Path, iteration: int) -> Path:
    return run_dir / "checkpoints" / f"ckpt_{iteration:06d}.pt"


def buffer_path(run_dir: Path, iteration: int) -> Path:
    return run_dir / "checkpoints" / f"buffer_{iteration:06d}.npz"


def run_dir_of_checkpoint(path: Path) -> Path:
    return Path(path).resolve().parent.parent


def selfplay_tasks(cfg: RunConfig, iteration: int) -> list[SelfPlayTask]:
    """Iteration ``iteration``'s self-play: one task per worker, each keeping ``batch_games``
    games going at once; task k is seeded by (run seed, iteration, k) whichever backend plays
    it, so the samples do not depend on the backend."""
    sp = cfg.selfplay
    variants = option_combinations(cfg)
    counts = split_games(sp.games_per_iteration, max(1, sp.workers))
    return [
        SelfPlayTask(
            game_id=cfg.game.id,
            # The combinations take turns over tasks and iterations alike.
            game_options=variants[(iteration * len(counts) + k) % len(variants)],
            network=cfg.network,
            search=cfg.search,
            selfplay=sp,
            n_games=n,
            seed=(cfg.seed, iteration, _SELFPLAY, k),
        )
        for k, n in enumerate(counts)
    ]


@dataclass
class IterationStats:
    iteration: int
    step: int
    games: int
    samples: int
    buffer: int
    selfplay_seconds: float
    positions_per_s: float
    evals_per_s: float
    policy_loss: float
    value_loss: float
    entropy: float
    value_accuracy: float
    elo: float | None
    first_player_score: float
    ownership_loss: float
    score_loss: float
    seconds: float  # wall time of the whole iteration: summed, the run's training time
    workers: int = 0  # self-play processes or Ray actors (0: the learner's own process)
    worker_restarts: int = 0  # workers replaced after they died, since the run (re)started
    learning_rate: float = math.nan  # of the iteration's gradient steps


class Learner:
    def __init__(
        self,
        cfg: RunConfig,
        run_dir: str | Path,
        resume: str | Path | None = None,
        keep_buffers: int = 2,
        tensorboard: bool = True,
        stage_dir: str | Path | None = None,
        stage_every: int = 0,
    ) -> None:
        """``resume``: a run checkpoint (with its buffer beside it) or a stage checkpoint in
        ``stage_dir`` (the buffer starts empty). ``stage_dir``: where stage checkpoints
        go every ``stage_every`` iterations and at the end of :meth:`run`
        (:mod:`training.stages`)."""
        self.cfg = cfg
        self.run_dir = Path(run_dir)
        self.keep_buffers = keep_buffers
        self.stage_dir = Path(stage_dir) if stage_dir is not None else None
        self.stage_every = stage_every
        self.game = make_game(cfg.game.id, **cfg.game.options)
        torch.set_num_threads(cfg.training.threads)
        torch.manual_seed(cfg.seed * 1000 + _INIT)
        self.device = resolve_device(cfg.training.device)
        self.model = build_network(self.game.spec, cfg.network).to(self.device)
        t = cfg.training
        self.optimizer = torch.optim.AdamW(
            self.model.parameters(), lr=t.learning_rate, weight_decay=t.weight_decay
        )
        self.buffer = ReplayBuffer(
            self.game, cfg.replay.capacity, cfg.replay.symmetries, aux=cfg.network.aux_heads
        )
        self.iteration = 0
        self.step = 0
        self.elo = 0.0
        # True from a stage resume until the buffer first holds resume_min_buffer samples.
        self.refilling = False
        if resume is not None:
            from_stage = (
                self.stage_dir is not None
                and Path(resume).resolve().parent == self.stage_dir.resolve()
            )
            self._resume(Path(resume), from_stage=from_stage)
            self.refilling = from_stage
            if from_stage:
                stages.trim_log(self.stage_dir, self.iteration)
        (self.run_dir / "checkpoints").mkdir(parents=True, exist_ok=True)
        (self.run_dir / "config.yaml").write_text(
            yaml.safe_dump(config_to_dict(cfg), sort_keys=False)
        )
        self.commit = code_commit()
        self.writer = None
        if tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(str(self.run_dir / "tb"))
        if self.iteration == 0 and not checkpoint_path(self.run_dir, 0).exists():
            self._save()

    # -------------------------------------------------------------- resume / save
    def _resume(self, path: Path, from_stage: bool = False) -> None:
        data = read_checkpoint(path)
        if data["game"]["id"] != self.cfg.game.id:
            raise QizeroError(
                f"checkpoint {path} is for game {data['game']['id']!r}, the config for "
                f"{self.cfg.game.id!r}"
            )
        if data["network"] != self.cfg.network.model_dump(mode="json"):
            raise QizeroError(f"checkpoint {path} has another network than the config")
        self.model.load_state_dict(data["weights"])
        if "optimizer" in data:
            self.optimizer.load_state_dict(data["optimizer"])
        self.iteration = int(data["iteration"])
        self.step = int(data["step"])
        self.elo = float(data.get("extra", {}).get("elo", 0.0))
        buf = Path(path).with_name(f"buffer_{self.iteration:06d}.npz")
        if buf.exists():
            self.buffer.load(buf)
        elif self.iteration > 0 and not from_stage:
            raise QizeroError(f"cannot resume from {path}: its replay buffer {buf} is missing")

    def _save(self) -> None:
        save_checkpoint(
            checkpoint_path(self.run_dir, self.iteration),
            game_id=self.cfg.game.id,
            game_options=self.cfg.game.options,
            network=self.cfg.network,
            model=self.model,
            iteration=self.iteration,
            step=self.step,
            optimizer=self.optimizer,
            config=config_to_dict(self.cfg),
            commit=self.commit,
            extra={"elo": self.elo},
        )
        self.buffer.save(buffer_path(self.run_dir, self.iteration))
        old = self.iteration - self.keep_buffers
        if self.keep_buffers > 0 and old >= 0 and buffer_path(self.run_dir, old).exists():
            buffer_path(self.run_dir, old).unlink()

    # -------------------------------------------------------------- one iteration
    def _cpu_model(self) -> torch.nn.Module:
        """The network on the CPU for arena games: itself, or a copy when it trains on a GPU."""
        if self.device.type == "cpu":
            return self.model
        model = build_network(self.game.spec, self.cfg.network)
        model.load_state_dict(cpu_weights(self.model))
        return model

    def _train(self) -> dict[str, float]:
        t = self.cfg.training
        if self.refilling and len(self.buffer) >= (t.resume_min_buffer or t.min_buffer):
            self.refilling = False
        if self.refilling or len(self.buffer) < t.min_buffer or t.steps_per_iteration == 0:
            return dict.fromkeys(_LOSS_NAMES, math.nan)
        rng = np.random.default_rng([self.cfg.seed, self.iteration, _TRAIN])
        torch.manual_seed(self.cfg.seed * 1_000_003 + self.iteration)
        self.model.train()
        aux = self.cfg.network.aux_heads
        for group in self.optimizer.param_groups:
            group["lr"] = t.learning_rate_at(self.iteration)
        sums = dict.fromkeys(_LOSS_NAMES, 0.0)
        for _ in range(t.steps_per_iteration):
            batch = self.buffer.sample(t.batch_size, rng)
            obs_t, mask_t, pol_t, val_t = (
                torch.from_numpy(a).to(self.device)
                for a in (batch.obs, batch.mask, batch.policy, batch.value)
            )
            if aux:
                logits, value, own, score = self.model.forward_aux(obs_t)
                own_t = torch.from_numpy(batch.ownership).to(self.device)
                score_t = torch.from_numpy(batch.score).to(self.device)
                ownership_loss = torch.mean((own - own_t) ** 2)
                score_loss = torch.mean((score - score_t) ** 2)
            else:
                logits, value = self.model(obs_t)
                ownership_loss = score_loss = torch.zeros((), device=self.device)
            logits = logits.masked_fill(~mask_t, -1e9)
            logp = torch.log_softmax(logits, dim=1)
            policy_loss = -(pol_t * logp).sum(dim=1).mean()
            value_loss = torch.mean((value - val_t) ** 2)
            loss = (
                policy_loss
                + t.value_loss_weight * value_loss
                + t.ownership_loss_weight * ownership_loss
                + t.score_loss_weight * score_loss
            )
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()
            self.step += 1
            with torch.no_grad():
                p = logp.exp()
                entropy = -(p * logp.masked_fill(~mask_t, 0.0)).sum(dim=1).mean()
                # Value accuracy: the sign of the prediction matches a decided result.
                decided = val_t != 0
                acc = (
                    (torch.sign(value[decided]) == torch.sign(val_t[decided])).float().mean()
                    if decided.any()
                    else torch.tensor(float("nan"))
                )
            sums["policy_loss"] += float(policy_loss.detach())
            sums["value_loss"] += float(value_loss.detach())
            sums["entropy"] += float(entropy)
            sums["value_accuracy"] += float(acc)
            sums["ownership_loss"] += float(ownership_loss.detach())
            sums["score_loss"] += float(score_loss.detach())
        self.model.eval()
        out = {k: v / t.steps_per_iteration for k, v in sums.items()}
        if not aux:
            out["ownership_loss"] = out["score_loss"] = math.nan
        return out

    def _evaluate(self, previous: dict[str, Any]) -> float | None:
        """Elo of the new weights against the previous checkpoint (added to the running Elo)."""
        t = self.cfg.training
        if t.eval_every == 0 or t.eval_games == 0 or self.iteration % t.eval_every:
            return None
        from agents.evaluator import NetworkEvaluator
        from agents.players import SearchPlayer
        from training.arena import MatchResult, fit_elo, play_match

        # A little temperature gives variety between the games of a deterministic pair.
        cfg = SearchConfig(simulations=t.eval_simulations, gumbel_scale=0.0, temperature=0.3)
        old = build_network(self.game.spec, self.cfg.network)
        old.load_state_dict(previous)
        new = SearchPlayer("new", NetworkEvaluator(self._cpu_model()), cfg)
        prev = SearchPlayer("old", NetworkEvaluator(old), cfg)
        rng = np.random.default_rng([self.cfg.seed, self.iteration, _EVAL])
        wa, d, wb, _ = play_match(self.game, new, prev, t.eval_games, rng)
        r = fit_elo(2, [MatchResult(0, 1, wa, d, wb)], anchor=1)
        self.elo += float(r.elo[0])
        return self.elo

    def run_iteration(self, backend: SelfPlayBackend) -> IterationStats:
        previous = cpu_weights(self.model)
        t0 = time.perf_counter()
        batch = backend.play(previous, selfplay_tasks(self.cfg, self.iteration))
        sp_seconds = time.perf_counter() - t0
        self.buffer.add(
            batch.obs, batch.mask, batch.policy, batch.value, batch.ownership, batch.score
        )
        learning_rate = self.cfg.training.learning_rate_at(self.iteration)
        losses = self._train()
        self.iteration += 1
        elo = self._evaluate(previous)
        self._save()
        stats = IterationStats(
            iteration=self.iteration,
            step=self.step,
            games=batch.games,
            samples=len(batch.value),
            buffer=len(self.buffer),
            selfplay_seconds=sp_seconds,
            positions_per_s=batch.searched_positions / max(sp_seconds, 1e-9),
            evals_per_s=batch.evaluations / max(sp_seconds, 1e-9),
            policy_loss=losses["policy_loss"],
            value_loss=losses["value_loss"],
            entropy=losses["entropy"],
            value_accuracy=losses["value_accuracy"],
            elo=elo,
            first_player_score=float(np.mean(batch.results)) if batch.results else 0.0,
            ownership_loss=losses["ownership_loss"],
            score_loss=losses["score_loss"],
            seconds=time.perf_counter() - t0,
            workers=backend.workers,
            worker_restarts=backend.restarts,
            learning_rate=learning_rate,
        )
        self._log(stats)
        return stats

    def _log(self, s: IterationStats) -> None:
        with open(self.run_dir / "log.jsonl", "a") as f:
            f.write(json.dumps(s.__dict__) + "\n")
        if self.stage_dir is not None:
            stages.append_log(self.stage_dir, s.__dict__)
            if self.stage_every and s.iteration % self.stage_every == 0:
                self.write_stage()
        if self.writer is None:
            return
        w, i = self.writer, s.iteration
        for tag, value in (
            ("losses/policy", s.policy_loss),
            ("losses/value", s.value_loss),
            ("losses/ownership", s.ownership_loss),
            ("losses/score", s.score_loss),
            ("charts/policy_entropy", s.entropy),
            ("charts/value_accuracy", s.value_accuracy),
            ("charts/selfplay_positions_per_s", s.positions_per_s),
            ("charts/network_evals_per_s", s.evals_per_s),
            ("charts/selfplay_workers", s.workers),
            ("charts/selfplay_worker_restarts", s.worker_restarts),
            ("charts/buffer_size", s.buffer),
            ("charts/first_player_score", s.first_player_score),
            ("charts/elo", s.elo),
            ("charts/learning_rate", s.learning_rate),
        ):
            if value is not None and not (isinstance(value, float) and math.isnan(value)):
                w.add_scalar(tag, value, i)
        w.flush()

    def write_stage(self) -> Path | None:
        """Snapshot the current checkpoint into the stage folder (no-op without one)."""
        if self.stage_dir is None:
            return None
        return stages.write_stage(
            self.stage_dir,
            checkpoint_path(self.run_dir, self.iteration),
            config_to_dict(self.cfg),
            self.iteration,
        )

    # -------------------------------------------------------------- the loop
    def run(
        self,
        minutes: float | None = None,
        progress: bool = True,
        backend: SelfPlayBackend | None = None,
        ray_address: str | None = None,
    ) -> list[IterationStats]:
        """Iterate up to ``training.iterations`` (or ``minutes``). Self-play plays on
        ``backend`` when given (left open), else on one opened from the config for this call
        (``ray_address``: a Ray cluster to join) and closed at the end."""
        from tqdm import tqdm

        total = self.cfg.training.iterations
        deadline = time.monotonic() + minutes * 60 if minutes else None
        out = []
        bar = tqdm(total=total, initial=self.iteration, disable=not progress, unit="it")
        owned = backend is None
        if backend is None:
            backend = open_backend(self.cfg.selfplay, ray_address)
        try:
            while self.iteration < total:
                if deadline is not None and time.monotonic() >= deadline:
                    bar.write(f"time limit reached after iteration {self.iteration}")
                    break
                s = self.run_iteration(backend)
                out.append(s)
                bar.update(1)
                bar.set_postfix(
                    ploss=f"{s.policy_loss:.3f}",
                    vloss=f"{s.value_loss:.3f}",
                    pos_s=f"{s.positions_per_s:.0f}",
                    workers=s.workers,
                    elo=f"{s.elo:.0f}" if s.elo is not None else "-",
                    buf=s.buffer,
                )
        finally:
            if owned:
                backend.close()
            stopped_between_stages = (
                self.stage_dir is not None
                and self.iteration not in stages.stage_iterations(self.stage_dir)
            )
            if out and stopped_between_stages:
                self.write_stage()  # the session's last iteration, whatever stopped it
        bar.close()
        if self.writer is not None:
            self.writer.close()
        return out
