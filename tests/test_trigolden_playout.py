"""The standard variant's fast random playout (``envs.trigolden.playout``) against the engine.

The playout draws placements by rejection instead of building each position's legal mask. It
is right when (1) the placements it accepts are exactly the mask, position by position, (2) its
games replay through ``Game.apply`` to the same end, and (3) its draws are uniform.
"""

from __future__ import annotations

import numpy as np
import pytest
from trigolden_positions import FORCED

from envs import make_game
from envs.core import Game
from envs.trigolden.playout import (
    BREAKS,
    KEEPS,
    Judge,
    draw_first_piece,
    draw_second_piece,
    first_piece_verdict,
    random_playout,
)
from envs.trigolden.state import ONGOING

standard = make_game("trigolden")


def random_positions(game, games: int, seed: int):
    """Every position of some uniformly random games."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = game.initial_state()
        while not game.is_terminal(state):
            yield state
            legal = game.legal_actions(state)
            state = game.apply(state, int(legal[rng.integers(len(legal))]))
        yield state


def accepted_first_pieces(game, state) -> set[int]:
    """The first pieces the playout draws from: those that keep the obligation, or all the
    legal ones when none does."""
    mover, hand = state.to_play, state.hands[state.to_play]
    cands = [c for c in game.rules.candidates(state.board, mover, hand) if c.legal]
    judge = Judge(game.rules, state.board, mover, state.hands, cands)
    verdicts = [first_piece_verdict(cands, i, hand, judge) for i in range(len(cands))]
    keeps = {c.action for c, v in zip(cands, verdicts) if v == KEEPS}
    return keeps or {c.action for c, v in zip(cands, verdicts) if v == BREAKS}


@pytest.mark.parametrize("n", [9, 2])
def test_accepted_first_pieces_are_exactly_the_legal_mask(n):
    game = make_game("trigolden", n=n)
    checked = 0
    for state in random_positions(game, games=8, seed=n):
        if state.outcome == ONGOING and state.board.pieces and state.first < 0:
            assert accepted_first_pieces(game, state) == set(state.options.legal)
            checked += 1
    assert checked > 40


def forced_position(scoring: str):
    """A position (n = 4) where every turn of p1 leaves p2 no legal complete turn."""
    game = make_game("trigolden", n=4, scoring=scoring)
    state = game.initial_state()
    for move in FORCED.split():
        state = game.play(state, move)
    return game, state


@pytest.mark.parametrize("scoring", ["bracing", "trigolden"])
def test_playouts_replay_through_apply_to_the_same_end(scoring):
    game = make_game("trigolden", scoring=scoring)
    positions = [(game, s) for k, s in enumerate(random_positions(game, games=3, seed=7))
                 if k % 4 == 0]
    positions.append(forced_position(scoring))  # its playouts end by arbitration
    ends = set()
    for k, (game, state) in enumerate(positions):
        end = random_playout(game.rules, scoring, state, np.random.default_rng(k), 1000)
        replayed = state
        for action in end.actions:
            replayed = game.apply(replayed, action)  # raises if a placement is not legal
        assert game.is_terminal(replayed)
        assert (replayed.outcome, replayed.scores, replayed.claimant) == (
            end.outcome, end.scores, end.claimant)
        # What search sees: the game's utility at that end.
        np.testing.assert_array_equal(
            game.random_playout(state, np.random.default_rng(k), 1000), game.utility(replayed))
        ends.add(end.outcome)
    assert len(ends) == 2  # finished games and arbitrations both came up


def test_the_ply_cap_cuts_a_playout_to_a_draw():
    state = standard.initial_state()
    end = random_playout(standard.rules, "bracing", state, np.random.default_rng(0), 3)
    assert end.outcome == ONGOING and len(end.actions) == 3
    assert standard.random_playout(state, np.random.default_rng(0), 3).tolist() == [0.0, 0.0]


def test_a_finished_game_plays_out_to_its_own_utility():
    final = next(s for s in random_positions(standard, 1, 3) if standard.is_terminal(s))
    end = random_playout(standard.rules, "bracing", final, np.random.default_rng(0), 1000)
    assert end.actions == []
    np.testing.assert_array_equal(
        standard.random_playout(final, np.random.default_rng(0), 1000), standard.utility(final))


def _chi_square_uniform(draws: list[int], support: set[int]) -> float:
    assert set(draws) <= support
    counts = np.array([draws.count(a) for a in sorted(support)], dtype=float)
    expected = len(draws) / len(support)
    return float(((counts - expected) ** 2 / expected).sum())


def test_first_piece_draws_are_uniform_over_the_mask():
    # A position where some legal placements have no partner (the rejection matters).
    for state in random_positions(standard, 20, 11):
        if state.outcome != ONGOING or not state.board.pieces or state.first >= 0:
            continue
        hand = state.hands[state.to_play]
        raw = [c for c in standard.rules.candidates(state.board, state.to_play, hand) if c.legal]
        if 4 <= len(state.options.legal) < len(raw) <= 30:
            break
    else:
        pytest.fail("no position with rejected placements found")
    rng = np.random.default_rng(0)
    draws = [draw_first_piece(standard.rules, state.board, state.to_play, state.hands, rng).action
             for _ in range(200 * len(state.options.legal))]
    assert set(draws) == set(state.options.legal)
    # Chi-square with k - 1 degrees of freedom; 3 * k is far in the tail for any k here.
    assert _chi_square_uniform(draws, set(state.options.legal)) < 3 * len(state.options.legal)


def test_second_piece_draws_are_uniform_over_the_mask():
    for state in random_positions(standard, 20, 12):
        if state.outcome == ONGOING and state.first >= 0 and len(state.options.legal) >= 3:
            break
    else:
        pytest.fail("no second-piece position with 3 or more placements found")
    board, mover = state.board, state.to_play
    first = board.pieces[state.first]
    rng = np.random.default_rng(0)
    draws = [draw_second_piece(standard.rules, board, mover, state.hands, first,
                               state.first_contact, rng).action
             for _ in range(200 * len(state.options.legal))]
    assert set(draws) == set(state.options.legal)
    assert _chi_square_uniform(draws, set(state.options.legal)) < 3 * len(state.options.legal)


def test_the_draft_keeps_the_generic_loop():
    draft = make_game("trigolden", variant="draft", n=2)
    with pytest.raises(ValueError, match="standard variant"):
        random_playout(draft.rules, "bracing", draft.initial_state(), np.random.default_rng(0),
                       100)
    state = draft.initial_state()
    np.testing.assert_array_equal(
        draft.random_playout(state, np.random.default_rng(4), 1000),
        Game.random_playout(draft, state, np.random.default_rng(4), 1000))
