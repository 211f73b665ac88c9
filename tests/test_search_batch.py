"""Batches inside one search (``SearchConfig.batch > 1``): fewer evaluator calls, the same
budget, the virtual losses all taken back, and the search still finds what it found.

``batch = 1`` is the sequential search: tests/test_search_golden.py holds it to the records
made before batching existed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from search_golden_cases import GAMES, SEARCHES, HashEvaluator, as_record, run
from test_search_mcts import ChainNim

from agents.config import SearchConfig
from agents.evaluator import Evaluator, RolloutEvaluator, UniformEvaluator
from agents.search import Node, search
from agents.search.gumbel import round_ends, rounds
from agents.search.tree import Tree
from envs import make_game
from envs.core import Game


class Counting:
    """Another evaluator, counting its calls and the states of each."""

    def __init__(self, inner: Evaluator) -> None:
        self.inner = inner
        self.sizes: list[int] = []

    def evaluate(self, game: Game, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        self.sizes.append(len(states))
        return self.inner.evaluate(game, states)


def _go_positions(game: Game, count: int, seed: int = 1) -> list[Any]:
    rng = np.random.default_rng(seed)
    out, state = [], game.initial_state()
    for _ in range(count):
        out.append(state)
        legal = np.flatnonzero(game.legal_mask(state))
        state = game.apply(state, int(legal[rng.integers(len(legal) - 1)]))  # never the pass
    return out


def _evaluator(algorithm: str, seed: int = 0) -> Evaluator:
    if algorithm == "uct":
        return RolloutEvaluator(np.random.default_rng(seed), max_plies=30)
    return HashEvaluator()


@pytest.mark.parametrize("algorithm", ["gumbel", "puct", "uct"])
@pytest.mark.parametrize("batch", [4, 8, 16, 64])
def test_batches_cut_the_evaluator_calls(algorithm: str, batch: int) -> None:
    """64 simulations of three 9x9 roots: one call for the roots, then one a batch. PUCT and
    UCT: 64 / batch. Gumbel: a batch never crosses a round of sequential halving (16 actions
    x 1 round, 8 x 2, 4 x 4, 2 x 8), and the first round of the 8, of the 4 and of the 2 (the
    cuts) go one descent at a time: 1 + (8 + 1) + (4 + 3) + (2 + 7) = 26 calls at 16 or more,
    27 at 8, 30 at 4."""
    game = make_game("stereo_go", board="9x9")
    states = _go_positions(game, 3)
    cfg = SearchConfig(algorithm=algorithm, simulations=64, batch=batch, gumbel_scale=0.0)
    if algorithm == "gumbel":
        calls, widest = {4: 30, 8: 27, 16: 26, 64: 26}[batch], min(batch, 16)
    else:
        calls, widest = 64 // batch, batch
    counting = Counting(_evaluator(algorithm))
    results = search(game, states, counting, cfg, np.random.default_rng(0))
    assert len(counting.sizes) == 1 + calls
    assert counting.sizes[0] == len(states)
    assert max(counting.sizes[1:]) <= len(states) * widest
    for r in results:
        assert r.simulations == int(r.visits.sum()) == 64


def test_gumbel_rounds() -> None:
    assert round_ends(16, 64) == [16, 24, 32, 36, 40, 44, 48, *range(50, 65, 2)]
    assert [end for end, cut in rounds(16, 64) if cut] == [24, 36, 50]
    # 5 x 2 rounds, then 2 x 6 rounds (the cut), 2 x 6, 2 x 3 cut at the budget
    assert [cut for _, cut in rounds(5, 40)] == [False] * 2 + [True] + [False] * 14
    # 4 x 1 round, then rounds of 2 cut at the budget
    assert round_ends(4, 10) == [4, 6, 8, 10]
    assert len(round_ends(16, 256)) == 4 + 8 + 16 + 32
    assert round_ends(1, 3) == [1, 2, 3]


@pytest.mark.parametrize("case", sorted(GAMES))
@pytest.mark.parametrize("name", [n for n in SEARCHES if n.startswith("gumbel")])
@pytest.mark.parametrize("batch", [4, 16])
def test_gumbel_batches_search_as_one_descent_at_a_time(case: str, name: str, batch: int) -> None:
    """Gumbel's batches (rounds of sequential halving, one descent at a time where a round
    cuts) give the sequential search's visits, policy, Q, value and move, float for float,
    with an evaluator that answers a state the same in any batch."""
    got = [as_record(r) for r in run(case, name, batch)]
    assert got == [as_record(r) for r in run(case, name, 1)]


def _nodes(node: Node):
    yield node
    for c in node.children:
        if c is not None and c.expanded:
            yield from _nodes(c)


@pytest.mark.parametrize("batch", [1, 8])
@pytest.mark.parametrize("algorithm", ["gumbel", "puct", "uct"])
def test_every_virtual_loss_is_taken_back(monkeypatch, algorithm: str, batch: int) -> None:
    """After the search, every node's visits add up and no virtual loss is left: each edge's
    count is one (the descent that expanded its child) plus its child's own visits, give or
    take the descents of one batch that met at the same new leaf; with values 0 everywhere
    every W is exactly 0."""
    game = make_game("stereo_go", board="9x9")
    trees: list[Tree] = []
    result = Tree.result
    monkeypatch.setattr(Tree, "result", lambda self: trees.append(self) or result(self))
    cfg = SearchConfig(algorithm=algorithm, simulations=96, batch=batch, solver=False)
    results = search(game, _go_positions(game, 2), UniformEvaluator(), cfg,
                     np.random.default_rng(0))
    for tree, r in zip(trees, results):
        assert r.simulations == 96 and r.value == 0.0 and not r.q.any()
        for node in _nodes(tree.root):
            assert sum(node.N) == node.total and all(w == 0.0 for w in node.W)
            for n, c in zip(node.N, node.children):
                if c is not None and c.expanded:
                    assert 0 <= n - 1 - c.total < batch


def test_descents_that_meet_at_a_leaf_share_one_evaluation() -> None:
    """PUCT, a batch of 4, one move with almost all the prior and a pessimistic value: the
    virtual loss does not outweigh the prior, so all four descents reach the same new leaf.
    It is evaluated once and each descent backs up its value (taking two stones keeps the
    turn: the leaf's value is the root player's)."""
    game = ChainNim(ChainNim.Config(stones=40))
    cfg = SearchConfig(algorithm="puct", simulations=4, batch=4, solver=False)
    counting = Counting(_Confident())
    (r,) = search(game, [game.initial_state()], counting, cfg, np.random.default_rng(0))
    assert counting.sizes == [1, 1]
    assert r.visits.tolist() == [0, 4, 0]
    assert r.q[1] == pytest.approx(-0.8, abs=1e-6)  # the float32 value, four times


class _Confident:
    """Priors 0.01 / 0.98 / 0.01, value -0.8 for the mover everywhere."""

    def evaluate(self, game: Game, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        p = np.tile(np.array([0.01, 0.98, 0.01], dtype=np.float32), (len(states), 1))
        return p, np.full(len(states), -0.8, dtype=np.float32)


# ---------------------------------------------------------------------------- strength


# Strength with batches on solved positions: tests/test_search_mcts.py (its -batch8 cases).


def test_batch_stays_out_of_the_json_at_1() -> None:
    """levels.json entries and players' identities (arena journal keys) made before batches
    existed stay the same; a batched search is told apart."""
    assert "batch" not in SearchConfig().as_json()
    assert SearchConfig(batch=8).as_json()["batch"] == 8
    assert SearchConfig.model_validate(SearchConfig(batch=8).as_json()).batch == 8
