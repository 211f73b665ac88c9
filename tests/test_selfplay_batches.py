"""Self-play's network calls: every game of a worker in one search call a step, and Gumbel's
rounds in one descent (``search.batch``), with the games unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from search_golden_cases import HashEvaluator

import training.selfplay as selfplay
from agents.config import SearchConfig
from envs import make_game
from training.config import SelfPlayConfig
from training.selfplay import SelfPlayBatch, play_games

# The 9x9 config's self-play (configs/stereo_go_9x9.yaml) on short games.
SP = SelfPlayConfig(workers=0, batch_games=6, random_opening_plies=6, temperature_plies=12,
                    value_target_mix=0.25, pass_after_ply=20, random_move_probability=0.1,
                    full_search_probability=0.5, fast_simulations=0, max_plies=40)


def _play(batch: int, seed: int = 4, prefetch: bool = False) -> SelfPlayBatch:
    game = make_game("stereo_go", board="9x9")
    cfg = SearchConfig(simulations=16, max_considered=8, gumbel_scale=1.0, batch=batch,
                       prefetch_cuts=prefetch)
    return play_games(game, HashEvaluator(), cfg, SP, 8, np.random.default_rng(seed))


def _same(a: SelfPlayBatch, b: SelfPlayBatch) -> None:
    assert a.results == b.results and a.plies == b.plies
    for field in ("obs", "mask", "policy", "value", "ownership", "score"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))


@pytest.mark.parametrize("batch", [4, 8])
@pytest.mark.parametrize("prefetch", [False, True])
def test_batched_rounds_play_the_same_games(batch: int, prefetch: bool) -> None:
    """Gumbel's batches search as one descent at a time (tests/test_search_batch.py, with the
    cutting rounds predicted: tests/test_search_prefetch.py), so with an evaluator that
    answers a state the same in any batch the games, samples and targets are those of
    batch 1, with fewer evaluator calls."""
    _same(_play(batch, prefetch=prefetch), _play(1))


def test_a_seed_gives_the_same_games() -> None:
    _same(_play(8), _play(8))
    assert not np.array_equal(_play(8, seed=5).obs, _play(8).obs)


def test_every_game_of_a_step_in_one_search_call(monkeypatch) -> None:
    """Sampled and best moves, full and fast searches go to one search call a step (their
    leaves share each evaluator call), each tree with its own config."""
    calls: list[list[SearchConfig]] = []
    search = selfplay.search

    def spy(game, states, evaluator, cfg, rng, root_masks=None):  # type: ignore[no-untyped-def]
        cfgs: Any = cfg
        calls.append(list(cfgs))
        return search(game, states, evaluator, cfg, rng, root_masks=root_masks)

    monkeypatch.setattr(selfplay, "search", spy)
    _play(8)
    assert len(calls[0]) == SP.batch_games  # the first step: every game, in one call
    mixed = [c for c in calls if {x.temperature for x in c} == {0.0, 1.0}
             and {x.simulations for x in c} == {0, 16}]
    assert mixed, "no step searched sampled and best, full and fast moves together"
