"""Self-play through one inference server per iteration (``selfplay.inference: shared``): the
workers evaluate their leaves on the server, which batches them across workers; the run
trains what local workers train, and each iteration's server is gone once it is played."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.config import NetworkConfig, SearchConfig
from agents.networks import build_network
from envs import make_game
from training.backends import open_backend
from training.config import SelfPlayConfig, config_from_dict
from training.learner import Learner
from training.selfplay import SelfPlayTask, cpu_weights

SMALL: dict[str, Any] = {
    "game": {"id": "jiugong"},
    "seed": 3,
    "network": {"kind": "mlp", "channels": 32, "blocks": 1, "value_hidden": 8},
    "search": {"simulations": 4, "max_considered": 4},
    "selfplay": {"workers": 2, "games_per_iteration": 8, "batch_games": 4,
                 "random_opening_plies": 4, "max_plies": 40},
    "replay": {"capacity": 2000},
    "training": {"iterations": 2, "steps_per_iteration": 5, "batch_size": 32,
                 "min_buffer": 32, "eval_every": 0},
}


def _run(tmp_path: Path, inference: str) -> Learner:
    """Games in the learner's own process (workers 0: no pool to start), leaves on the server
    or on its own network."""
    cfg = {**SMALL, "selfplay": {**SMALL["selfplay"], "inference": inference, "workers": 0}}
    learner = Learner(config_from_dict(cfg), tmp_path / inference, tensorboard=False)
    learner.run(progress=False)
    return learner


def test_shared_inference_trains_what_local_workers_train(tmp_path: Path) -> None:
    """Same seed, same tasks: the samples equal the local run's (the server's rows are the
    network's rows, whatever batch they were in: tests/test_agents_inference_server.py)."""
    local, shared = _run(tmp_path, "local"), _run(tmp_path, "shared")
    assert shared.iteration == local.iteration == 2
    assert len(shared.buffer) == len(local.buffer) > 0
    np.testing.assert_allclose(shared.buffer.value, local.buffer.value, atol=1e-5)
    np.testing.assert_allclose(shared.buffer.policy, local.buffer.policy, atol=1e-5)


def test_the_workers_batch_together_and_the_server_stops_after_its_iteration() -> None:
    game = make_game("jiugong")
    net = NetworkConfig(kind="mlp", channels=32, blocks=1, value_hidden=8)
    sp = SelfPlayConfig(workers=2, games_per_iteration=8, batch_games=4, max_plies=30,
                        inference="shared")
    tasks = [SelfPlayTask("jiugong", {}, net, SearchConfig(simulations=4, max_considered=4),
                          sp, 4, (0, k)) for k in range(2)]
    weights = cpu_weights(build_network(game.spec, net))
    with open_backend(sp) as backend:
        batch = backend.play(weights, tasks)
        stats = backend.last_stats
        assert backend.servers.pids() == {}  # the iteration's server is stopped
    assert batch.games == 8 and len(batch.value) > 0
    assert stats["rows"] == batch.evaluations >= len(batch.value)
    # every leaf went through the server, the workers' rows sharing its passes when they met
    assert 0 < stats["forward_passes"] <= batch.network_calls


def test_shared_inference_is_refused_with_ray() -> None:
    with pytest.raises(ValueError, match="inference shared serves workers on this machine"):
        SelfPlayConfig(backend="ray", workers=2, inference="shared")
