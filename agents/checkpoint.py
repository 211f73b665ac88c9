"""Self-describing checkpoints (KataGo's habit): a file that needs no training script to load.

A checkpoint is one ``torch.save``'d dict of plain data and tensors:

``format`` ("qizero-checkpoint"), ``format_version``, ``game`` ({id, options}), ``network``
(the NetworkConfig as a dict), ``weights`` (state dict), ``iteration``, ``step``, ``commit``
(git revision of the code that wrote it, when known), and optionally ``optimizer`` (for resume)
and ``config`` (the full resolved run config).

Writes are atomic (write ``.tmp`` then rename) so a crash never leaves half a file; loads use
``torch.load(weights_only=True)``, which refuses arbitrary pickled objects.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from agents.config import NetworkConfig
from agents.networks import build_network
from envs import Game, make_game
from envs.core import QizeroError

FORMAT = "qizero-checkpoint"
FORMAT_VERSION = 1


class CheckpointError(QizeroError):
    """A file that is not a readable qizero checkpoint of a supported version."""


def code_commit() -> str | None:
    """The git revision of this checkout, or None (read-only query)."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            cwd=Path(__file__).resolve().parent,
        )
        return out.stdout.strip() or None if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def file_digest(path: str | Path) -> str:
    """SHA-256 of a file's bytes: what identifies a network in the arena's journal keys."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def save_checkpoint(
    path: str | Path,
    *,
    game_id: str,
    game_options: dict[str, Any],
    network: NetworkConfig,
    model: nn.Module,
    iteration: int,
    step: int,
    optimizer: torch.optim.Optimizer | None = None,
    config: dict[str, Any] | None = None,
    commit: str | None = None,
    extra: dict[str, Any] | None = None,
) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    data: dict[str, Any] = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": {"id": game_id, "options": dict(game_options)},
        "network": network.model_dump(mode="json"),
        "weights": {k: v.detach().cpu().clone() for k, v in model.state_dict().items()},
        "iteration": int(iteration),
        "step": int(step),
        "commit": commit,
    }
    if optimizer is not None:
        data["optimizer"] = optimizer.state_dict()
    if config is not None:
        data["config"] = config
    if extra:
        data["extra"] = dict(extra)
    tmp = path.with_name(path.name + ".tmp")
    torch.save(data, tmp)
    os.replace(tmp, path)
    return path


def read_checkpoint(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"no checkpoint file at {path}")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001  (torch raises many kinds on a bad file)
        raise CheckpointError(f"{path} is not a readable checkpoint: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not a qizero checkpoint")
    if data.get("format_version") != FORMAT_VERSION:
        raise CheckpointError(
            f"{path} has checkpoint format version {data.get('format_version')}; "
            f"this code reads version {FORMAT_VERSION}"
        )
    return data


@dataclass
class LoadedModel:
    game: Game
    network: NetworkConfig
    model: nn.Module
    iteration: int
    step: int
    data: dict[str, Any]

    def plays(self, game: Game) -> bool:
        """Whether this network can play ``game``: the same game with the same observation
        and action shapes. Options the inputs describe (Stereo Go's rules, komi and move cap)
        may differ from the ones it trained with: a ladder calibrated again under other
        options serves the same networks."""
        spec, mine = game.spec, self.game.spec
        return (spec.id, spec.observation_shape, spec.num_actions) == (
            mine.id, mine.observation_shape, mine.num_actions
        )


def load_model(path: str | Path) -> LoadedModel:
    """Rebuild the game and the network (eval mode) from a checkpoint alone."""
    data = read_checkpoint(path)
    game = make_game(data["game"]["id"], **data["game"]["options"])
    net_cfg = NetworkConfig.model_validate(data["network"])
    model = build_network(game.spec, net_cfg)
    try:
        model.load_state_dict(data["weights"])
    except RuntimeError as exc:
        raise CheckpointError(f"{path}: weights do not fit the network it names: {exc}") from None
    model.eval()
    return LoadedModel(game, net_cfg, model, int(data["iteration"]), int(data["step"]), data)
