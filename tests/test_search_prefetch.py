"""``SearchConfig.prefetch_cuts``: Gumbel's cutting rounds with their next picks predicted and
sent down early. Each pick is still made on the statistics the picks before it left, so the
search is the sequential one, float for float (with an evaluator that answers a state the
same in any batch), in fewer evaluator calls.
"""

from __future__ import annotations

import numpy as np
import pytest
from search_golden_cases import GAMES, SEARCHES, HashEvaluator, as_record, positions, run
from test_search_batch import Counting, _go_positions

from agents.config import SearchConfig
from agents.search import search
from envs import make_game


@pytest.mark.parametrize("case", sorted(GAMES))
@pytest.mark.parametrize("name", [n for n in SEARCHES if n.startswith("gumbel")])
@pytest.mark.parametrize("batch", [2, 4, 16])
def test_prefetched_cuts_search_as_one_descent_at_a_time(case: str, name: str, batch: int) -> None:
    game, states = positions(case)
    cfg = SearchConfig.model_validate({**SEARCHES[name], "batch": batch, "prefetch_cuts": True})
    got = search(game, states, HashEvaluator(), cfg, np.random.default_rng(5))
    assert [as_record(r) for r in got] == [as_record(r) for r in run(case, name, 1)]


@pytest.mark.parametrize(
    ("simulations", "considered", "batch", "calls"),
    [
        # rounds of 8, 4 (a cut), 2 (a cut), 2: the roots, then 8 calls; 4 when the cuts
        # are predicted (the 2-round's cut picks are back up at the start of the last round)
        (16, 8, 8, [3, 24, 3, 3, 3, 3, 3, 3, 6]),
        # rounds of 16, 8 (a cut), 8, 4 (a cut), 4, 4, 4, 2 (a cut), 2 x 7
        (64, 16, 16, [3, 48] + [3] * 8 + [24] + [3] * 4 + [12] * 3 + [3] * 2 + [6] * 7),
    ],
)
def test_prefetched_cuts_cut_the_evaluator_calls(
    simulations: int, considered: int, batch: int, calls: list[int]
) -> None:
    """Three 9x9 roots: the cutting rounds go one call a descent without prefetching; with it,
    one call sends a round's first pick and its predicted others, and here every prediction
    holds (the same positions evaluated, none wasted)."""
    game = make_game("stereo_go", board="9x9")
    states = _go_positions(game, 3)
    plain = SearchConfig(simulations=simulations, max_considered=considered, batch=batch,
                         gumbel_scale=1.0)
    sizes = []
    for cfg in (plain, plain.model_copy(update={"prefetch_cuts": True})):
        counting = Counting(HashEvaluator())
        search(game, states, counting, cfg, np.random.default_rng(0))
        sizes.append(counting.sizes)
    assert sizes[0] == calls
    assert len(sizes[1]) < len(calls) and sum(sizes[1]) == sum(calls)
    if simulations == 16:
        assert sizes[1] == [3, 24, 12, 6, 6]


def test_prefetch_stays_out_of_the_json_unless_set() -> None:
    assert "prefetch_cuts" not in SearchConfig().as_json()
    assert SearchConfig(prefetch_cuts=True, batch=8).as_json()["prefetch_cuts"] is True


def test_a_mispredicted_pick_is_still_the_sequential_one() -> None:
    """On the 9x9 noise case a round's pick differs from the prediction made before it (one
    leaf more is evaluated than by the sequential search): that pick goes down in the next
    step, and the search is still the sequential one."""
    game, states = positions("go9")
    cfg = SearchConfig.model_validate({**SEARCHES["gumbel-noise"], "batch": 16,
                                       "prefetch_cuts": True})
    prefetched, sequential = HashEvaluator(), HashEvaluator()
    got = search(game, states, prefetched, cfg, np.random.default_rng(5))
    want = search(game, states, sequential, cfg.model_copy(update={"batch": 1}),
                  np.random.default_rng(5))
    assert prefetched.states == sequential.states + 1
    assert [as_record(r) for r in got] == [as_record(r) for r in want]
