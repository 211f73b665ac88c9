"""Seeded random Fang Qi games never reach an illegal state: invariants checked on every state
(piece counts, phases and their transitions, who acts, masks, JSON round trips)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envs.fangqi import FangQi, greedy_policy
from envs.fangqi.board import ALL, PLACE_BASE, REMOVE_BASE, STEP_BASE, can_step, iron
from envs.fangqi.state import (
    CAPTURE,
    DRAW,
    NO_CAPTURE_LIMIT,
    OVER,
    PLACE,
    PULL,
    ROOM,
    STEP,
)

GAME = FangQi()

ALLOWED_NEXT = {
    PLACE: {PLACE, PULL},
    PULL: {STEP, ROOM},
    STEP: {STEP, CAPTURE, ROOM, OVER},
    CAPTURE: {CAPTURE, STEP, ROOM, OVER},
    ROOM: {STEP, OVER},
}
ACTION_KIND = {PLACE: (PLACE_BASE, STEP_BASE), STEP: (STEP_BASE, REMOVE_BASE)}


def check_state(state) -> None:
    black, white = state.black, state.white
    assert not black & white and (black | white) <= ALL
    assert black.bit_count() <= 30 and white.bit_count() <= 30
    assert 0 <= state.no_capture <= NO_CAPTURE_LIMIT
    mask = GAME.legal_mask(state)
    actions = np.flatnonzero(mask)
    if state.phase == OVER:
        assert not mask.any()
        if state.result == DRAW:
            assert state.no_capture >= NO_CAPTURE_LIMIT or state.history.count(state.key) >= 3
        else:
            assert state.pieces(state.result) and not state.pieces(1 - state.result)
        return
    assert mask.any()
    low, high = ACTION_KIND.get(state.phase, (REMOVE_BASE, REMOVE_BASE + 36))
    assert actions.min() >= low and actions.max() < high
    own, opp = state.pieces(state.to_play), state.pieces(1 - state.to_play)
    empty = ALL & ~(black | white)
    if state.phase == PLACE:
        assert state.hand_black + black.bit_count() == 30
        assert state.hand_white + white.bit_count() == 30
        assert state.hand(state.to_play) > 0 and empty
    elif state.phase == PULL:
        assert empty == 0 and state.to_play == 0
    else:
        assert empty and own and opp
    if state.phase == STEP:
        assert state.history[-1] == state.key and state.history.count(state.key) < 3
    if state.phase == CAPTURE:
        assert state.owed >= 1
        for a in actions:
            p = int(a) - REMOVE_BASE
            assert opp >> p & 1 and not iron(opp) >> p & 1
    if state.phase == ROOM:
        assert not can_step(opp, empty)
        assert all(own >> (int(a) - REMOVE_BASE) & 1 for a in actions)
    obs = GAME.observation(state)
    assert obs.min() >= 0 and obs.max() <= 1


def check_transition(before, action: int, after) -> None:
    assert after.phase in ALLOWED_NEXT[before.phase]
    n_before = (before.black | before.white).bit_count()
    n_after = (after.black | after.white).bit_count()
    if before.phase == PLACE:
        assert n_after == n_before + 1
        if after.phase == PLACE:
            # The placer keeps the turn exactly when owed extra placements, or when the other
            # side has nothing left in hand.
            same = after.to_play == before.to_play
            assert same == (after.owed > 0 or after.hand(1 - before.to_play) == 0)
    elif before.phase == STEP:
        assert n_after == n_before
        assert after.pieces(0).bit_count() == before.pieces(0).bit_count()
    else:
        assert n_after == n_before - 1
        mover = before.to_play
        own_lost = before.pieces(mover).bit_count() - after.pieces(mover).bit_count()
        assert own_lost == (before.phase == ROOM)
    if after.phase == CAPTURE or (after.phase == PLACE and after.owed):
        assert after.to_play == before.to_play


def play_game(seed: int, greedy: bool = False) -> dict[int, int]:
    rng = np.random.default_rng(seed)
    state = GAME.initial_state()
    lengths = {PLACE: 0, PULL: 0}
    while not GAME.is_terminal(state):
        check_state(state)
        if greedy and state.to_play == seed % 2:
            action = greedy_policy(GAME, state, rng)
        else:
            action = int(rng.choice(GAME.legal_actions(state)))
        nxt = GAME.apply(state, action)
        check_transition(state, action, nxt)
        if state.phase in lengths:
            lengths[state.phase] += 1
        if state.ply % 17 == 0:
            data = json.loads(json.dumps(GAME.to_json(nxt)))
            assert GAME.to_json(GAME.from_json(data)) == data
        state = nxt
    check_state(state)
    assert state.ply <= GAME.spec.max_length
    return lengths


@pytest.mark.parametrize("seed", range(8))
def test_random_games_keep_the_invariants(seed):
    lengths = play_game(seed, greedy=seed >= 4)
    assert lengths[PLACE] == 36  # no removals while placing: exactly one action per point
    assert lengths[PULL] == 1


@pytest.mark.slow
def test_many_random_games_keep_the_invariants():
    for seed in range(8, 300):
        play_game(seed, greedy=seed % 3 == 0)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10**6), min_size=30, max_size=250))
def test_hypothesis_action_sequences_keep_the_invariants(choices):
    """Hypothesis picks the actions (each choice indexes into the legal actions)."""
    state = GAME.initial_state()
    for choice in choices:
        if GAME.is_terminal(state):
            break
        check_state(state)
        actions = GAME.legal_actions(state)
        action = int(actions[choice % len(actions)])
        nxt = GAME.apply(state, action)
        check_transition(state, action, nxt)
        state = nxt
    check_state(state)
    assert GAME.from_json(json.loads(json.dumps(GAME.to_json(state)))) == state
