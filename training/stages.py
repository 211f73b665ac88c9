"""Stage checkpoints: the small, committable snapshots that carry a long run across sessions.

A run's own directory (``runs/...``) holds every checkpoint and a replay buffer of hundreds of
megabytes, which no repository should hold. A stage folder holds only what a later session on
another machine needs to go on (``qizero train CONFIG --resume-stage FOLDER``)::

    config.yaml          the run's resolved config (the resumed run must match its network)
    stage-000040.pt      a checkpoint every ``--stage-every`` iterations and at the end of a
                         session; the newest keeps the optimizer state, older ones only the
                         weights (a third of the size), kept for the curve and the ladders
    log.jsonl            one line per iteration of every session, as the run directory's

The replay buffer is not kept: a resumed run regenerates it by self-play (``training.min_buffer``
samples before the first gradient step), so it continues the run's seeds from the stage's
iteration but not bit for bit.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import torch
import yaml

from agents.checkpoint import code_commit, load_model, save_checkpoint
from agents.config import NetworkConfig
from agents.network_growth import grow_resnet
from envs.core import QizeroError

_STAGE = re.compile(r"^stage-(\d{6})\.pt$")


def stage_path(folder: Path, iteration: int) -> Path:
    return Path(folder) / f"stage-{iteration:06d}.pt"


def stage_iterations(folder: Path) -> list[int]:
    """The iterations with a stage in ``folder``, oldest first."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    found = (_STAGE.match(p.name) for p in folder.iterdir())
    return sorted(int(m.group(1)) for m in found if m)


def latest_stage(folder: Path) -> Path:
    """The newest stage's checkpoint; QizeroError naming the folder when there is none."""
    its = stage_iterations(folder)
    if not its:
        raise QizeroError(f"no stage checkpoint (stage-NNNNNN.pt) in {folder}")
    return stage_path(folder, its[-1])


def write_stage(folder: Path, checkpoint: Path, config: dict[str, Any], iteration: int) -> Path:
    """Copy run checkpoint ``checkpoint`` (iteration ``iteration``) into the stage folder and
    strip the optimizer from the stages before it."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    out = stage_path(folder, iteration)
    tmp = out.with_name(out.name + ".tmp")
    shutil.copyfile(checkpoint, tmp)
    tmp.replace(out)
    for it in stage_iterations(folder):
        if it < iteration:
            _drop_optimizer(stage_path(folder, it))
    return out


def append_log(folder: Path, line: dict[str, Any]) -> None:
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "log.jsonl", "a") as f:
        f.write(json.dumps(line) + "\n")


def trim_log(folder: Path, iteration: int) -> None:
    """Forget the log lines past ``iteration`` (a session that ended after its last stage):
    the resumed run writes them again."""
    path = Path(folder) / "log.jsonl"
    if not path.exists():
        return
    kept = [
        line
        for line in path.read_text().splitlines()
        if line.strip() and json.loads(line).get("iteration", 0) <= iteration
    ]
    path.write_text("".join(line + "\n" for line in kept))


def _drop_optimizer(path: Path) -> None:
    data = torch.load(path, map_location="cpu", weights_only=True)
    if "optimizer" in data:
        del data["optimizer"]
        _atomic_save(data, path)


def _atomic_save(data: dict[str, Any], path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp")
    torch.save(data, tmp)
    tmp.replace(path)


def grow_stage(
    source: Path, config: dict[str, Any], folder: Path, *, seed: int = 0, noise: float = 1e-3
) -> Path:
    """Start stage folder ``folder`` for ``config`` (a resolved run config whose network is a
    wider and deeper grid ResNet) from the source run's stage ``source``: its weights grown
    to the new shape (:func:`agents.network_growth.grow_resnet`, the same play), the
    source's iteration and step, no optimizer state. ``qizero train CONFIG --resume-stage
    FOLDER`` then goes on from there. Refuses a folder that already has stages."""
    folder = Path(folder)
    if stage_iterations(folder):
        raise QizeroError(f"{folder} already has stages: grow into a new folder")
    loaded = load_model(source)
    if loaded.game.spec.id != config["game"]["id"]:
        raise QizeroError(f"{source} is a {loaded.game.spec.id} network, the config is for "
                          f"{config['game']['id']}")
    target = NetworkConfig.model_validate(config["network"])
    grown = grow_resnet(loaded.model, loaded.game.spec, target, seed=seed, noise=noise)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    out = stage_path(folder, loaded.iteration)
    save_checkpoint(
        out,
        game_id=config["game"]["id"],
        game_options=config["game"]["options"],
        network=target,
        model=grown,
        iteration=loaded.iteration,
        step=loaded.step,
        config=config,
        commit=code_commit(),
        extra={"grown_from": str(source), "elo": float(loaded.data.get("extra", {}).get("elo", 0))},
    )
    return out
