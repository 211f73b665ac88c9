"""One search call with a config per state: self-play searches its sampled and best moves,
full and fast, together, so that their leaves share each network call. Each tree must search
by its own config and give what it gives searched alone.
"""

from __future__ import annotations

import numpy as np
import pytest
from search_golden_cases import HashEvaluator, as_record
from test_search_batch import Counting, _go_positions

from agents.config import SearchConfig
from agents.search import search
from envs import make_game

# In the order of the states: the trees draw their noise at the start in this order and
# their moves at the end, so the separate calls draw the same numbers (only the sampled
# moves, last, draw at the end; the others' moves draw only on exact ties).
GROUPS = [
    SearchConfig(simulations=16, max_considered=8, gumbel_scale=1.0),  # a full search, best
    SearchConfig(simulations=0, max_considered=8, gumbel_scale=1.0),  # a fast one: the policy
    SearchConfig(algorithm="puct", simulations=12, dirichlet_fraction=0.25),
    SearchConfig(simulations=24, max_considered=4, batch=4, gumbel_scale=1.0),
    SearchConfig(simulations=16, max_considered=8, gumbel_scale=1.0, temperature=1.0),
]


def test_a_config_per_state_searches_each_tree_as_alone() -> None:
    """Five groups of two 9x9 positions in one call: every result is, float for float, the one
    its group's own call gives (an evaluator that answers a state the same in any batch), and
    the leaves of all trees go to the evaluator together (one call a step)."""
    game = make_game("stereo_go", board="9x9")
    states = _go_positions(game, 2 * len(GROUPS), seed=3)
    cfgs = [c for c in GROUPS for _ in range(2)]
    counting = Counting(HashEvaluator())
    together = search(game, states, counting, cfgs, np.random.default_rng(7))
    rng = np.random.default_rng(7)
    alone = []
    separate_calls = 0
    for g, cfg in enumerate(GROUPS):
        apart = Counting(HashEvaluator())
        alone += search(game, states[2 * g : 2 * g + 2], apart, cfg, rng)
        separate_calls += len(apart.sizes)
    assert [as_record(r) for r in together] == [as_record(r) for r in alone]
    assert [r.simulations for r in together] == [c.simulations for c in cfgs]
    # The roots in one call, then one a step until the longest tree (24 simulations, a batch
    # of 4 over rounds of 4 and 2 actions: fewer steps than 24) is done.
    assert counting.sizes[0] == len(states)
    assert len(counting.sizes) == 1 + 16
    assert len(counting.sizes) < separate_calls


def test_one_config_as_a_list_is_the_single_config_call() -> None:
    game = make_game("stereo_go", board="9x9")
    states = _go_positions(game, 3)
    cfg = GROUPS[-1]
    one = search(game, states, HashEvaluator(), cfg, np.random.default_rng(2))
    listed = search(game, states, HashEvaluator(), [cfg] * 3, np.random.default_rng(2))
    assert [as_record(r) for r in one] == [as_record(r) for r in listed]


def test_configs_must_match_the_states_and_how_leaves_are_valued() -> None:
    game = make_game("stereo_go", board="9x9")
    states = _go_positions(game, 2)
    with pytest.raises(ValueError, match="configs for 2 states"):
        search(game, states, HashEvaluator(), [SearchConfig()], np.random.default_rng(0))
    for other in (SearchConfig(rollout_mix=0.5), SearchConfig(symmetries=2)):
        with pytest.raises(ValueError, match="values its leaves one way"):
            search(game, states, HashEvaluator(), [SearchConfig(), other],
                   np.random.default_rng(0))
