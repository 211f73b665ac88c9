"""The Gumbel root's sparse scoring (``completed_q_sparse``) gives exactly the choices of the
full completed-Q list it replaced (Go roots have hundreds of edges, a handful visited), and the
compiled interior rule (``kernels.gumbel_interior``) the choices of the dense improved policy."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from agents.config import SearchConfig
from agents.evaluator import uniform_priors
from agents.search import gumbel as G
from agents.search import search
from envs import make_game


class _Stats:
    """The fields of a Node that the completed-Q functions read."""

    def __init__(self, N, W, prior, raw_value):
        self.N, self.W = np.array(N, dtype=np.int64), np.array(W, dtype=np.float64)
        self.prior, self.raw_value = np.array(prior, dtype=np.float64), raw_value
        self.total = sum(N)


def _full_list(node, cfg) -> list[float]:
    """sigma(completed Q) as first written: every edge completed, then rescaled."""
    N, W, prior = node.N.tolist(), node.W.tolist(), node.prior.tolist()
    total = node.total
    if total == 0:
        return [0.0] * len(N)
    p_vis = pq = 0.0
    max_n = 0
    completed = []
    for n, w, p in zip(N, W, prior):
        if n:
            q = w / n
            p_vis += p
            pq += p * q
            max_n = max(max_n, n)
            completed.append(q)
        else:
            completed.append(None)
    mixed = (node.raw_value + total * pq / (p_vis if p_vis > 1e-12 else 1e-12)) / (1 + total)
    completed = [mixed if c is None else c for c in completed]
    lo, hi = min(completed), max(completed)
    if hi - lo < 1e-8:
        return [0.0] * len(N)
    scale = (cfg.c_visit + max_n) * cfg.c_scale / (hi - lo)
    return [scale * (c - lo) for c in completed]


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
    assert G.completed_q(node, cfg) == _full_list(node, cfg)  # exactly, float for float


def _full_scan_choice(gumbel, root, sim: int) -> int:
    """The root rule as first written: every score built, the best with the count wanted."""
    want = gumbel.schedule[sim]
    best, best_score = -1, -math.inf
    for i, score in enumerate(gumbel.root_scores(root)):
        if root.N[i] == want and score > best_score:
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
    sparse = G.Gumbel.select_root
    checked = []

    def both(gumbel, root, sim):
        expected = _full_scan_choice(gumbel, root, sim)
        choice = sparse(gumbel, root, sim)
        assert choice == expected
        checked.append(choice)
        return choice

    monkeypatch.setattr(G.Gumbel, "select_root", both)
    rng = np.random.default_rng(3)
    states, s = [], game.initial_state()
    for _ in range(12):
        states.append(s)
        legal = np.flatnonzero(game.legal_mask(s))
        s = game.apply(s, int(legal[rng.integers(len(legal))]))
        if game.is_terminal(s):
            break
    cfg = SearchConfig(simulations=24, max_considered=8)
    search(game, states, _NoisyEvaluator(4), cfg, rng)
    assert len(checked) >= 24 * len(states) // 2


def _dense_interior_choice(node, cfg) -> tuple[int, float]:
    """The interior rule as the paper writes it, from the one completed-Q in gumbel.py: the
    full improved policy minus each edge's visit share; the choice and its margin over the
    runner-up."""
    improved = np.asarray(G.improved_policy(node, cfg))
    score = improved - np.asarray(node.N) / (1 + node.total)
    order = np.argsort(-score, kind="stable")
    margin = score[order[0]] - score[order[1]] if len(order) > 1 else math.inf
    return int(order[0]), float(margin)


@pytest.mark.parametrize("seed", range(300))
def test_compiled_interior_rule_chooses_as_the_improved_policy(seed):
    """kernels.gumbel_interior (which completes every unvisited edge at once) picks the edge
    the dense improved policy picks wherever the best is clear of the runner-up."""
    from agents.search.kernels import gumbel_interior

    rng = random.Random(seed)
    k = rng.choice([1, 2, 5, 40, 300])
    N = [0] * k
    for _ in range(rng.choice([0, 1, 3, 16, 3 * k])):
        N[rng.randrange(k)] += 1
    W = [n * rng.uniform(-1, 1) for n in N]
    p = [rng.random() ** 3 for _ in range(k)]
    node = _Stats(N, W, [x / sum(p) for x in p], rng.uniform(-1, 1))
    node.logits = np.log(node.prior + 1e-12)
    cfg = SearchConfig()
    want, margin = _dense_interior_choice(node, cfg)
    got = gumbel_interior(node.N, node.W, node.prior, node.logits,
                          float(np.exp(node.logits).sum()), node.total, node.raw_value,
                          cfg.c_visit, cfg.c_scale)
    if margin > 1e-9:
        assert got == want
    else:  # a near tie: either is the rule's choice up to rounding
        improved = np.asarray(G.improved_policy(node, cfg))
        score = improved - np.asarray(node.N) / (1 + node.total)
        assert score[got] >= score.max() - 1e-9
