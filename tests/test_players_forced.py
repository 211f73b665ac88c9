"""A search player does not search a forced move (the only legal one): the move is the same
whatever the search, so its simulations only cost time (TriGolden's second placement of a
turn is often forced: 6 of the 54 moves of two of its master's games)."""

from __future__ import annotations

import numpy as np
from test_search_batch import Counting
from test_search_mcts import ChainNim

from agents.config import SearchConfig
from agents.evaluator import UniformEvaluator
from agents.players import SearchPlayer, forced_move


def _player() -> tuple[SearchPlayer, Counting]:
    counting = Counting(UniformEvaluator())
    cfg = SearchConfig(algorithm="gumbel", simulations=16, gumbel_scale=0.0)
    return SearchPlayer("p", counting, cfg), counting


def test_forced_move_is_the_only_legal_action() -> None:
    game = ChainNim(ChainNim.Config(stones=1))
    assert forced_move(game, game.initial_state()) == 0
    wide = ChainNim(ChainNim.Config(stones=5))
    assert forced_move(wide, wide.initial_state()) is None


def test_a_forced_move_is_played_unsearched_beside_searched_ones() -> None:
    """Two states, one forced: only the other is searched (every evaluator call, the roots'
    included, holds one state: the forced one never reaches it); the moves come back in the
    states' order."""
    forced = ChainNim(ChainNim.Config(stones=1)).initial_state()
    open_ = ChainNim(ChainNim.Config(stones=5)).initial_state()
    player, counting = _player()
    game = ChainNim(ChainNim.Config(stones=5))
    moves = player.select_actions(game, [forced, open_], np.random.default_rng(0))
    assert moves[0] == 0 and moves[1] in (0, 1, 2)
    assert counting.sizes and set(counting.sizes) == {1}


def test_analysing_a_forced_move_asks_the_evaluator_once() -> None:
    game = ChainNim(ChainNim.Config(stones=1))
    player, counting = _player()
    analysis = player.analyse(game, game.initial_state(), np.random.default_rng(0))
    assert (analysis.action, analysis.move, analysis.value) == (0, "take1", 0.0)
    assert analysis.top == [("take1", 1.0)]
    assert counting.sizes == [1]
