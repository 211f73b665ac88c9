"""Shared helpers for the service tests (test_serving_*.py): app factory, fake clock, levels."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from fastapi.testclient import TestClient

from envs import make_game
from serving.app import create_app
from serving.settings import Settings


class FakeClock:
    """A clock that moves only when told (turn timers)."""

    def __init__(self, t: float = 1_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


def settings_for(tmp_path: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "database_path": tmp_path / "sessions.sqlite3",
        "checkpoints_root": tmp_path / "checkpoints",
        "timer_poll_seconds": 0.05,
        "ai_workers": 4,
        "search_processes": 0,
    }
    values.update(overrides)
    return Settings(**values)


@contextmanager
def client_for(
    tmp_path: Path, clock: Any = time.time, settings: Settings | None = None, **overrides: Any
) -> Iterator[TestClient]:
    app = create_app(settings or settings_for(tmp_path, **overrides), clock=clock)
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


def write_levels(root: Path, game_id: str, levels: list[dict[str, Any]], **extra: Any) -> Path:
    folder = root / game_id
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "levels.json"
    path.write_text(json.dumps({"game": game_id, "levels": levels, **extra}))
    return path


def tiny_checkpoint(
    path: Path, game_id: str = "jiugong", seed: int = 0, options: dict[str, Any] | None = None
) -> Path:
    """A small untrained network saved through the training package's checkpoint API."""
    import torch

    from training.checkpoint import save_checkpoint
    from training.config import NetworkConfig
    from training.networks import build_network

    torch.manual_seed(seed)
    cfg = NetworkConfig(channels=8, blocks=1, value_hidden=8)
    game = make_game(game_id, **(options or {}))
    model = build_network(game.spec, cfg)
    return save_checkpoint(
        path, game_id=game_id, game_options=options or {}, network=cfg, model=model,
        iteration=0, step=0,
    )


def random_moves(game_id: str, seed: int, limit: int | None = None, **config: Any) -> list[str]:
    """Notation moves of one seeded random game (to the end, or ``limit`` moves)."""
    game = make_game(game_id, **config)
    rng = np.random.default_rng(seed)
    state, moves = game.initial_state(), []
    while not game.is_terminal(state) and (limit is None or len(moves) < limit):
        action = int(rng.choice(game.legal_actions(state)))
        moves.append(game.action_to_move(state, action))
        state = game.apply(state, action)
    return moves


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def wait_for(predicate: Any, timeout: float = 20.0, step: float = 0.02) -> Any:
    """Poll until ``predicate()`` is truthy (AI seats move in worker threads)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise AssertionError("condition not reached in time")
