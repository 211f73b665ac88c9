"""Stereo Go's compiled random playout (``kernel.random_playout``): the generic loop of
``Game.random_playout`` move for move, from any position, leaving the position untouched."""

from __future__ import annotations

import numpy as np
import pytest

from envs import make_game
from envs.core import Game
from envs.stereo_go import StereoGo


def positions(game: StereoGo, seed: int, plies: int, every: int) -> list:
    """Every ``every``-th position of one random game (the end included if reached)."""
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    out = [state]
    for ply in range(1, plies + 1):
        if game.is_terminal(state):
            break
        legal = np.flatnonzero(game.legal_mask(state))
        state = game.apply(state, int(legal[rng.integers(len(legal))]))
        if ply % every == 0 or game.is_terminal(state):
            out.append(state)
    return out


def same_as_generic(game: StereoGo, state, seed: int, max_plies: int) -> np.ndarray:
    compiled_rng, generic_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    compiled = game.random_playout(state, compiled_rng, max_plies)
    generic = Game.random_playout(game, state, generic_rng, max_plies)
    assert compiled.dtype == generic.dtype == np.float32
    assert compiled.tolist() == generic.tolist()
    # the same number of draws: the generators are left in the same state
    assert compiled_rng.integers(1 << 62) == generic_rng.integers(1 << 62)
    return compiled


@pytest.mark.parametrize(
    "options",
    [
        {"board": "5x5"},  # small: captures, recaptures and superko refusals in every playout
        {"board": "5x5", "rules": "area", "max_moves": 30},
        {"board": "9x9"},
        {"board": "9x9", "rules": "area", "handicap": 3},
        {"board": "cylinder"},
    ],
)
def test_the_compiled_playout_is_the_generic_loop_move_for_move(options):
    game = make_game("stereo_go", **options)
    results = set()
    for seed, state in enumerate(positions(game, seed=1, plies=120, every=20)):
        for max_plies in (1000, 7):  # to the end, and cut short (a draw)
            results.add(tuple(same_as_generic(game, state, seed, max_plies)))
    assert (1.0, -1.0) in results and (-1.0, 1.0) in results  # both sides win some


def test_a_cut_playout_is_a_draw_and_a_finished_game_its_result():
    game = make_game("stereo_go", board="9x9")
    start = game.initial_state()
    assert game.random_playout(start, np.random.default_rng(0), 3).tolist() == [0.0, 0.0]
    end = positions(game, seed=2, plies=10_000, every=10_000)[-1]
    assert game.is_terminal(end)
    assert game.random_playout(end, np.random.default_rng(0), 100).tolist() == (
        game.returns(end).tolist()
    )


def test_the_position_is_untouched_and_its_line_of_play_goes_on():
    """A playout works on copies: the state's arrays, mask and shared history buffer stay as
    they were, so a search can still expand the node it played out from."""
    game = make_game("stereo_go", board="cylinder")
    state = positions(game, seed=3, plies=60, every=60)[-1]
    before = (state.g.copy(), state.hist.copy(), state.mask.copy(), state.n_legal)
    for seed in range(5):
        game.random_playout(state, np.random.default_rng(seed), 1000)
    assert np.array_equal(state.g, before[0]) and np.array_equal(state.hist, before[1])
    assert np.array_equal(state.mask, before[2]) and state.n_legal == before[3]
    child = game.apply(state, int(np.flatnonzero(state.mask)[0]))
    assert child.ply == state.ply + 1


def test_a_position_read_from_json_plays_out_as_the_original():
    game = make_game("stereo_go", board="9x9", rules="area")
    state = positions(game, seed=4, plies=40, every=40)[-1]
    copy = game.from_json(game.to_json(state))
    for seed in range(3):
        assert same_as_generic(game, copy, seed, 1000).tolist() == (
            game.random_playout(state, np.random.default_rng(seed), 1000).tolist()
        )
