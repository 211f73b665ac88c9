"""Client processes for tests/test_agents_inference_server.py, in a module of their own so a
spawned child imports only this (not torch, the service and the test module)."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.evaluator import observations_and_masks
from agents.inference_remote import InferenceClient
from envs import make_game


def positions(n: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of ``n`` Jiugong positions from seeded random play."""
    game = make_game("jiugong")
    rng = np.random.default_rng(3)
    states, s = [], game.initial_state()
    while len(states) < n:
        states.append(s)
        s = game.apply(s, int(rng.choice(np.flatnonzero(game.legal_mask(s)))))
        if game.is_terminal(s):
            s = game.initial_state()
    return observations_and_masks(game, states)


def ask_many(address: str, authkey: bytes, rounds: int, go: Any) -> None:
    """A client process: one request to connect, then ``rounds`` one-row requests once ``go``
    is set."""
    obs, masks = positions()
    client = InferenceClient(address, authkey)
    client.infer(obs[:1], masks[:1])
    go.wait()
    for i in range(rounds):
        client.infer(obs[i % 6:i % 6 + 1], masks[i % 6:i % 6 + 1])
