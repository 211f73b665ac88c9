"""Traced inference: the frozen TorchScript network answers what the eager network answers,
for every network kind, game and batch size the search uses."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import torch

import envs
from agents.config import NetworkConfig
from agents.evaluator import NetworkEvaluator, trace_for_inference
from agents.networks import build_network

# Each network kind with a game it is built for (and the game's options).
CASES = [
    ("resnet", "jiugong", {}),
    ("mlp", "jiugong", {}),
    ("resnet", "fangqi", {}),
    ("cylinder", "stereo_go", {"board": "cylinder"}),
    ("resnet", "stereo_go", {"board": "9x9"}),
    ("tokens", "trigolden", {}),
]


def _positions(game: envs.Game, n: int, seed: int) -> list:
    """States from seeded random play, a few plies apart (varied piece counts, stones...)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        state = game.initial_state()
        for _ in range(int(rng.integers(0, 30))):
            nxt = game.apply(state, int(rng.choice(game.legal_actions(state))))
            if game.is_terminal(nxt):
                break
            state = nxt
        out.append(state)
    return out


@pytest.mark.parametrize(("kind", "game_id", "options"), CASES)
def test_traced_evaluator_matches_eager(kind: str, game_id: str, options: dict) -> None:
    torch.manual_seed(0)
    game = envs.make_game(game_id, **options)
    model = build_network(game.spec, NetworkConfig(kind=kind, channels=16, blocks=1))
    eager = NetworkEvaluator(model)
    # The frozen graph itself (a network with a compiled CPU pass would run that instead:
    # tests/test_tokens_cpu.py).
    traced = NetworkEvaluator(model, traced=True, compiled=False)
    states = _positions(game, 40, seed=1)
    # First call traces on a single position; later calls use other batch sizes.
    for batch in (states[:1], states[1:8], states[8:40], states[5:6]):
        p_eager, v_eager = eager.evaluate(game, batch)
        p_traced, v_traced = traced.evaluate(game, batch)
        np.testing.assert_allclose(p_traced, p_eager, atol=1e-5)
        np.testing.assert_allclose(v_traced, v_eager, atol=1e-5)
    assert isinstance(traced._module, torch.jit.ScriptModule), "this network should trace"


def test_a_network_whose_trace_does_not_carry_over_stays_eager() -> None:
    class ByBatchSize(torch.nn.Module):
        """Control flow on the batch size: a trace keeps only the branch it saw."""

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            if x.shape[0] == 1:
                return x * 2, x.sum(dim=1)
            return x * 3, x.sum(dim=1)

    module = ByBatchSize().eval()
    assert trace_for_inference(module, torch.ones(1, 4)) is module


def test_a_network_traced_twice_into_different_graphs_stays_eager() -> None:
    class EveryOtherCall(torch.nn.Module):
        """Another graph on every call: the trace's sanity check (a second trace) differs."""

        calls = 0

        def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            self.calls += 1
            y = x * 2 if self.calls % 2 else x + x
            return y, y.sum(dim=1)

    module = EveryOtherCall().eval()
    assert trace_for_inference(module, torch.ones(1, 4)) is module


def test_networks_traced_at_once_from_many_threads_all_trace() -> None:
    # The service warms its levels up in one thread while requests trace in others; unguarded,
    # concurrent traces mangle each other's graphs and fail the sanity check.
    torch.manual_seed(0)
    game = envs.make_game("trigolden")
    cfg = NetworkConfig(kind="tokens", channels=16, blocks=2)
    models = [build_network(game.spec, cfg).eval() for _ in range(6)]
    example = torch.from_numpy(game.observation(game.initial_state())[None])
    traced: list = [None] * len(models)

    def trace(i: int) -> None:
        traced[i] = trace_for_inference(models[i], example)

    threads = [threading.Thread(target=trace, args=(i,)) for i in range(len(models))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(isinstance(m, torch.jit.ScriptModule) for m in traced)
