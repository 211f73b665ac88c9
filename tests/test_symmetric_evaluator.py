"""Leaves valued as the mean over the board's symmetries (``SearchConfig.symmetries``,
agents/symmetric.py)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.config import NetworkConfig, SearchConfig
from agents.evaluator import NetworkEvaluator, RolloutEvaluator
from agents.networks import build_network
from agents.search import search
from agents.symmetric import SymmetricEvaluator
from envs import ConfigError, make_game
from envs.fangqi.features import transform_state


def _network(game) -> NetworkEvaluator:
    torch.manual_seed(0)
    kind = "tokens" if game.spec.id == "trigolden" else "resnet"
    return NetworkEvaluator(build_network(game.spec, NetworkConfig(kind=kind, channels=8,
                                                                   blocks=1)))


def _positions(game, n: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    s, out = game.initial_state(), []
    while len(out) < n and not game.is_terminal(s):
        out.append(s)
        legal = np.flatnonzero(game.legal_mask(s))
        s = game.apply(s, int(legal[rng.integers(len(legal))]))
    return out


def test_the_mean_over_every_symmetry_turns_with_the_board() -> None:
    """Averaged over the whole group, the answer for a mirrored position is the mirror of the
    answer: the transformed priors, the same value (a single untrained network is not)."""
    game = make_game("fangqi")
    net = _network(game)
    both = SymmetricEvaluator(net, game.spec.num_symmetries)
    states = _positions(game, 12, seed=1)[4:]
    priors, values = both.evaluate(game, states)
    for t in range(1, game.spec.num_symmetries):
        moved = [transform_state(s, t) for s in states]
        got_p, got_v = both.evaluate(game, moved)
        obs = np.stack([game.observation(s) for s in states])
        _, want_p = game.apply_symmetry(t, obs, priors)
        np.testing.assert_allclose(got_p, want_p, atol=2e-6)
        np.testing.assert_allclose(got_v, values, atol=2e-6)
    plain_p, _ = net.evaluate(game, [transform_state(s, 1) for s in states])
    _, mirrored = game.apply_symmetry(1, np.stack([game.observation(s) for s in states]),
                                      net.evaluate(game, states)[0])
    assert not np.allclose(plain_p, mirrored, atol=1e-4)  # the plain network is not symmetric


@pytest.mark.parametrize("game_id,options,count", [
    ("stereo_go", {"board": "9x9"}, 4), ("trigolden", {}, 2), ("stereo_go", {}, 3)])
def test_priors_stay_a_distribution_over_the_legal_actions(game_id, options, count) -> None:
    """Also where the action permutation depends on the position (TriGolden's mirror moves a
    mirror-symmetric target's edge labels) and on the cylinder (its symmetries shift it)."""
    game = make_game(game_id, **options)
    states = _positions(game, 6, seed=2)
    priors, values = SymmetricEvaluator(_network(game), count).evaluate(game, states)
    masks = np.stack([game.legal_mask(s) for s in states])
    np.testing.assert_allclose(priors.sum(axis=1), 1.0, atol=1e-5)
    assert (priors[~masks] == 0).all() and values.shape == (len(states),)


def test_one_symmetry_is_the_network_itself_and_search_takes_the_setting() -> None:
    game = make_game("fangqi")
    net = _network(game)
    states = _positions(game, 5, seed=3)
    for a, b in zip(SymmetricEvaluator(net, 1).evaluate(game, states), net.evaluate(game, states)):
        np.testing.assert_array_equal(a, b)
    cfg = SearchConfig(simulations=16, symmetries=8, gumbel_scale=0.0)
    assert SearchConfig(simulations=16).as_json().get("symmetries") is None  # keys unchanged
    assert cfg.as_json()["symmetries"] == 8
    (r,) = search(game, [states[-1]], net, cfg, np.random.default_rng(0))
    assert r.simulations == 16
    with pytest.raises(ConfigError, match="no network"):
        search(game, [states[-1]], RolloutEvaluator(np.random.default_rng(0)), cfg,
               np.random.default_rng(0))
