"""The Gumbel root's sparse scoring (``_completed_q_sparse``) gives exactly the choices of the
full completed-Q list it replaced (Go roots have hundreds of edges, a handful visited)."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from envs import make_game
from training import search as S
from training.config import SearchConfig
from training.evaluator import uniform_priors


class _Stats:
    """The fields of a Node that the completed-Q functions read."""

    def __init__(self, N, W, prior, raw_value):
        self.N, self.W, self.prior, self.raw_value = N, W, prior, raw_value
        self.total = sum(N)


def _dense(node, cfg) -> list[float]:
    sigma, unvisited = S._completed_q_sparse(node, cfg)
    return [sigma.get(i, unvisited) for i in range(len(node.N))]


@pytest.mark.parametrize("seed", range(200))
def test_sparse_completed_q_equals_the_full_list(seed):
    rng = random.Random(seed)
    k = rng.choice([1, 2, 5, 40, 361])
    N = [0] * k
    for _ in range(rng.choice([0, 1, 3, 16, 3 * k])):
        N[rng.randrange(k)] += 1
    same = rng.random() < 0.2  # every visited edge with the same mean: the degenerate case
    W = [n * (0.25 if same else rng.uniform(-1, 1)) for n in N]
    p = [rng.random() for _ in range(k)]
    prior = [x / sum(p) for x in p]
    node = _Stats(N, W, prior, rng.uniform(-1, 1))
    cfg = SearchConfig()
    assert _dense(node, cfg) == S._completed_q(node, cfg)  # exactly, float for float


def _full_scan_choice(tree, sim: int) -> int:
    """The root rule as first written: every score built, the best with the count wanted."""
    want = tree.schedule[sim]
    best, best_score = -1, -math.inf
    for i, score in enumerate(tree._root_scores()):
        if tree.root.N[i] == want and score > best_score:
            best, best_score = i, score
    return best


class _NoisyEvaluator:
    """Random priors over the legal actions and random values: Q values that differ."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def evaluate(self, game, states):
        masks = np.stack([game.legal_mask(s) for s in states])
        priors = uniform_priors(masks) * self.rng.random(masks.shape)
        priors /= priors.sum(axis=1, keepdims=True)
        return priors, self.rng.uniform(-1, 1, len(states)).astype(np.float32)


@pytest.mark.parametrize("game_id,options", [("stereo_go", {"board": "9x9"}), ("jiugong", {})])
def test_gumbel_root_chooses_as_the_full_scan(monkeypatch, game_id, options):
    game = make_game(game_id, **options)
    sparse = S._Tree._gumbel_root
    checked = []

    def both(tree, sim):
        choice = sparse(tree, sim)
        assert choice == _full_scan_choice(tree, sim)
        checked.append(choice)
        return choice

    monkeypatch.setattr(S._Tree, "_gumbel_root", both)
    rng = np.random.default_rng(3)
    states, s = [], game.initial_state()
    for _ in range(12):
        states.append(s)
        legal = np.flatnonzero(game.legal_mask(s))
        s = game.apply(s, int(legal[rng.integers(len(legal))]))
        if game.is_terminal(s):
            break
    cfg = SearchConfig(simulations=24, max_considered=8)
    S.search(game, states, _NoisyEvaluator(4), cfg, rng)
    assert len(checked) >= 24 * len(states) // 2
