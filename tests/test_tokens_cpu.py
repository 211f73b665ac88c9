"""TriGolden's token transformer compiled for the CPU (agents.tokens_cpu) against the module:
the same priors and values, whatever the batch, the widths and the padding, and the evaluator
running it only where it may."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.checkpoint import load_model
from agents.config import NetworkConfig
from agents.evaluator import NetworkEvaluator, masked_softmax, observations_and_masks
from agents.networks import build_network
from agents.tokens_cpu import TokensCPU
from envs import make_game
from envs.policies import random_positions

GAME = make_game("trigolden")  # observation (55, 20), 5190 actions
MASTER = "checkpoints/trigolden/scoring-trigolden/trigolden-iter0304.pt"


def _net(seed: int, channels: int = 16, blocks: int = 2) -> torch.nn.Module:
    torch.manual_seed(seed)
    cfg = NetworkConfig(kind="tokens", channels=channels, blocks=blocks, value_hidden=8)
    return build_network(GAME.spec, cfg).eval()


def _module(net: torch.nn.Module, obs: np.ndarray, masks: np.ndarray) -> tuple:
    with torch.inference_mode():
        logits, values = net(torch.from_numpy(obs))
        priors = masked_softmax(logits, torch.from_numpy(masks))
    return priors.numpy(), values.numpy()


def _positions(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    states = [GAME.initial_state(), *random_positions(GAME, n - 1, np.random.default_rng(seed))]
    return observations_and_masks(GAME, states)


@pytest.mark.parametrize(("channels", "blocks"), [(16, 2), (32, 1), (10, 3)])
def test_same_priors_and_values_as_the_module(channels: int, blocks: int) -> None:
    """Random weights of several shapes (4 heads, or 1 where the width is not a multiple of
    4, as 10), positions from the empty board to late games."""
    net = _net(channels + blocks, channels, blocks)
    obs, masks = _positions(40, channels)
    want_p, want_v = _module(net, obs, masks)
    got_p, got_v = TokensCPU(net).infer(obs, masks)
    assert got_p.dtype == np.float32 and got_v.dtype == np.float32
    np.testing.assert_allclose(got_p, want_p, rtol=2e-4, atol=2e-6)
    np.testing.assert_allclose(got_v, want_v, rtol=2e-4, atol=2e-6)
    assert np.array_equal(got_p > 0, masks)  # zero exactly off the legal actions


def test_the_shipped_master_network() -> None:
    net = load_model(MASTER).model.eval()
    obs, masks = _positions(48, 1)
    want_p, want_v = _module(net, obs, masks)
    got_p, got_v = TokensCPU(net).infer(obs, masks)
    np.testing.assert_allclose(got_p, want_p, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(got_v, want_v, rtol=1e-4, atol=1e-6)


def test_a_position_gets_the_same_answer_in_any_batch() -> None:
    """Each position attends over its own pieces only: its answer does not depend on what it
    is batched with (the frozen graph's moves by ~1e-8 with the batch), so a batched search
    is the sequential one float for float."""
    fast = TokensCPU(_net(5))
    obs, masks = _positions(12, 2)
    alone = [fast.infer(obs[i : i + 1], masks[i : i + 1]) for i in range(len(obs))]
    together = fast.infer(obs[::-1], masks[::-1])
    for i, (p, v) in enumerate(alone):
        assert np.array_equal(p[0], together[0][len(obs) - 1 - i])
        assert v[0] == together[1][len(obs) - 1 - i]


def test_padding_and_rows_without_legal_actions() -> None:
    """Garbage in the empty slots changes nothing; a row with no legal action gets zeros (as
    the module's masked softmax gives) and still its value."""
    net = _net(6)
    obs, masks = _positions(6, 3)
    garbage = obs.copy()
    empty = garbage[:, 1:, 0] < 0.5
    noise = np.random.default_rng(0).uniform(-1, 1, garbage.shape).astype(np.float32)
    noise[:, :, 0] = 0.0
    garbage[:, 1:][empty] = noise[:, 1:][empty]
    masks[2] = False
    fast = TokensCPU(net)
    p, v = fast.infer(obs, masks)
    q, w = fast.infer(garbage, masks)
    assert np.array_equal(p, q) and np.array_equal(v, w)
    assert not p[2].any()
    np.testing.assert_allclose(v, _module(net, obs, masks)[1], rtol=2e-4, atol=2e-6)


def test_shapes_that_do_not_fit_are_refused() -> None:
    fast = TokensCPU(_net(7))
    obs, masks = _positions(2, 4)
    with pytest.raises(ValueError, match="do not fit"):
        fast.infer(obs[0], masks)
    with pytest.raises(ValueError, match="do not fit"):
        fast.infer(obs, masks[:, :-1])


def test_the_evaluator_runs_it_only_for_fixed_weights_on_the_cpu() -> None:
    net = _net(8)
    obs, masks = _positions(5, 5)
    traced = NetworkEvaluator(net, traced=True)
    assert traced._compiled is not None
    assert NetworkEvaluator(net, traced=True, compiled=False)._compiled is None
    assert NetworkEvaluator(net)._compiled is None  # weights still training: eager torch
    assert NetworkEvaluator(net, traced=True, dtype="bfloat16")._compiled is None
    p, v = traced.infer(obs, masks)
    q, w = NetworkEvaluator(net, traced=True, compiled=False).infer(obs, masks)
    np.testing.assert_allclose(p, q, rtol=2e-4, atol=2e-6)
    np.testing.assert_allclose(v, w, rtol=2e-4, atol=2e-6)
    # A pickled evaluator (a parallel arena's) keeps the choice.
    import pickle

    assert pickle.loads(pickle.dumps(traced))._compiled is not None
    assert pickle.loads(pickle.dumps(
        NetworkEvaluator(net, traced=True, compiled=False)))._compiled is None
