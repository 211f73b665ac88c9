"""Fang Qi at the protocol level: notation, JSON, the 8 symmetries, the spec."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

from envs.core import IllegalMove, InvalidState, make_game
from envs.fangqi import FangQi
from envs.fangqi.board import ACTION_PERM, NUM_ACTIONS, POINT_PERM, STEPS
from envs.fangqi.features import apply_symmetry, transform_state

GAME = FangQi()


def random_states(seed: int, every: int = 7) -> list:
    rng = np.random.default_rng(seed)
    state = GAME.initial_state()
    out = [state]
    while not GAME.is_terminal(state):
        state = GAME.apply(state, int(rng.choice(GAME.legal_actions(state))))
        if state.ply % every == 0 or GAME.is_terminal(state):
            out.append(state)
    return out


def test_spec():
    spec = make_game("fangqi").spec
    assert spec.player_names == ("black", "white")
    assert spec.num_actions == 192 == 36 + 120 + 36
    assert spec.observation_shape == (16, 6, 6) and spec.num_symmetries == 8


def test_notation_of_every_action_round_trips():
    assert GAME.action_to_move(None, 0) == "a1"
    assert GAME.action_to_move(None, 35) == "f6"
    assert GAME.action_to_move(None, 36) == "a1-b1"
    assert GAME.action_to_move(None, 155) == "f6-e6"
    assert GAME.action_to_move(None, 156 + 28) == "xe5"
    names = [GAME.action_to_move(None, a) for a in range(NUM_ACTIONS)]
    assert len(set(names)) == NUM_ACTIONS
    assert len(STEPS) == 120
    with pytest.raises(IllegalMove):
        GAME.action_to_move(None, NUM_ACTIONS)


@pytest.mark.parametrize(
    "move, reason",
    [
        ("c7", "expected"),
        ("g1", "expected"),
        ("xc3-c4", "expected"),
        ("c3--c4", "expected"),
        ("c3-c4", "placement phase"),
        ("xc3", "placement phase"),
        (3, "a move must be a string"),
    ],
)
def test_bad_moves_say_why(move, reason):
    with pytest.raises(IllegalMove, match=reason):
        GAME.play(GAME.initial_state(), move)


def test_moves_are_case_and_space_tolerant():
    assert GAME.move_to_action(GAME.initial_state(), " C3 ") == 14


def test_json_round_trip_and_pickle_on_random_games():
    for seed in range(3):
        for state in random_states(seed):
            data = json.loads(json.dumps(GAME.to_json(state)))
            restored = GAME.from_json(data)
            assert restored == state
            assert pickle.loads(pickle.dumps(state)) == state


@pytest.mark.parametrize(
    "patch",
    [
        {"board": "B" * 36},
        {"board": "." * 35},
        {"board": "." * 35 + "X"},
        {"phase": 3},
        {"to_play": 0},
        {"owed": 1.5},
        {"owed": True},
        {"hand": {"black": 31}},
        {"hand": {"red": 3}},
        {"hand": [30, 30]},
        {"no_capture": -1},
        {"history": "abc"},
        {"history": [12]},
        {"result": "draw"},
        {"result": "blue"},
    ],
)
def test_bad_json_is_refused(patch):
    data = {**GAME.to_json(GAME.initial_state()), **patch}
    with pytest.raises(InvalidState):
        GAME.from_json(data)


@pytest.mark.parametrize("k", range(8))
def test_symmetries_map_positions_masks_and_moves_consistently(k):
    """Transforming a position and then asking for its mask/planes equals transforming the
    original's mask/planes with apply_symmetry; and symmetry commutes with playing a move."""
    for seed in range(2):
        for state in random_states(seed, every=11):
            if GAME.is_terminal(state):
                continue
            image = transform_state(state, k)
            obs, mask = apply_symmetry(k, GAME.observation(state), GAME.legal_mask(state))
            assert np.array_equal(mask, GAME.legal_mask(image))
            assert np.array_equal(obs, GAME.observation(image))
            action = int(GAME.legal_actions(state)[0])
            moved = GAME.apply(image, ACTION_PERM[k][action])
            assert moved == transform_state(GAME.apply(state, action), k)


def test_symmetries_are_the_eight_of_the_square():
    assert len(set(POINT_PERM)) == 8
    assert POINT_PERM[0] == tuple(range(36))
    for perm in ACTION_PERM:
        assert sorted(perm) == list(range(NUM_ACTIONS))
    obs = np.arange(16 * 36, dtype=np.float32).reshape(16, 6, 6)
    policy = np.arange(NUM_ACTIONS, dtype=np.float32)
    # Batched input works the same as one by one.
    batch_obs, batch_pol = apply_symmetry(5, np.stack([obs, obs]), np.stack([policy, policy]))
    one_obs, one_pol = apply_symmetry(5, obs, policy)
    assert np.array_equal(batch_obs[1], one_obs) and np.array_equal(batch_pol[1], one_pol)
    with pytest.raises(ValueError):
        GAME.apply_symmetry(8, obs, policy)
    with pytest.raises(ValueError):
        GAME.apply_symmetry(1, obs[:, :5], policy)
