"""One contract test over every registered game: the Game protocol's invariants.

Each game's own tests check its rules; this file checks that every game keeps the promises the
rest of qizero relies on (search, training, the env wrapper and the service), the same way.
"""

from __future__ import annotations

import ast
import importlib
import json
import pickle
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import envs
from envs.core import GYM_IDS, ConfigError, IllegalMove, InvalidState, make_game

GAME_IDS = envs.game_ids()
RANDOM_GAMES = 3


def random_trajectory(game, seed: int, max_actions: int | None = None):
    """States and actions of one seeded random game (up to ``max_actions`` actions)."""
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    states, actions = [state], []
    limit = max_actions if max_actions is not None else game.spec.max_length
    while not game.is_terminal(state) and len(actions) < limit:
        action = int(rng.choice(game.legal_actions(state)))
        state = game.apply(state, action)
        states.append(state)
        actions.append(action)
    return states, actions


@pytest.fixture(params=GAME_IDS, scope="module")
def game(request):
    return make_game(request.param)


@pytest.fixture(scope="module")
def trajectories(game):
    return [random_trajectory(game, seed) for seed in range(RANDOM_GAMES)]


def test_spec_is_consistent(game):
    spec = game.spec
    assert spec.id == game.id
    assert spec.num_players == len(spec.player_names) >= 2
    assert all(name == name.lower() for name in spec.player_names)
    assert spec.num_actions > 0 and spec.max_length > 0 and spec.num_symmetries >= 1
    assert GYM_IDS[spec.id].startswith("qizero/")


def test_random_games_end_within_max_length(game, trajectories):
    for states, actions in trajectories:
        assert game.is_terminal(states[-1]), "a random game did not end within spec.max_length"
        assert len(actions) <= game.spec.max_length


def test_mask_matches_legal_moves_and_notation(game, trajectories):
    for states, _ in trajectories:
        for state in states[:: max(1, len(states) // 25)]:
            mask = game.legal_mask(state)
            assert mask.dtype == np.bool_ and mask.shape == (game.spec.num_actions,)
            actions = game.legal_actions(state)
            assert np.array_equal(actions, np.flatnonzero(mask))
            moves = game.legal_moves(state)
            assert len(moves) == len(actions) == len(set(moves))
            for action, move in zip(actions, moves):
                assert game.move_to_action(state, move) == action
            if game.is_terminal(state):
                assert not mask.any()
            else:
                assert mask.any(), "a non-terminal state must have a legal action"


def test_illegal_actions_are_refused(game, trajectories):
    states, _ = trajectories[0]
    for state in states[:: max(1, len(states) // 10)]:
        mask = game.legal_mask(state)
        illegal = np.flatnonzero(~mask)
        if len(illegal):
            with pytest.raises(IllegalMove):
                game.apply(state, int(illegal[0]))
    for bad in (-1, game.spec.num_actions, 1.5, "0", None, True):
        with pytest.raises(IllegalMove):
            game.apply(states[0], bad)
    for bad in ("", "zz99", "??", "x" * 1000):
        with pytest.raises(IllegalMove):
            game.play(states[0], bad)
    with pytest.raises(IllegalMove):
        game.play(states[0], 42)  # not a string


def test_play_by_notation_reproduces_the_game(game, trajectories):
    states, actions = trajectories[0]
    state = game.initial_state()
    for action, expected in zip(actions, states[1:]):
        state = game.play(state, game.action_to_move(state, action))
        assert game.to_json(state) == game.to_json(expected)


def test_states_are_immutable(game, trajectories):
    states, actions = trajectories[0]
    for state, action in list(zip(states, actions))[:: max(1, len(actions) // 10)]:
        before = game.to_json(state)
        game.apply(state, action)
        game.observation(state)
        game.legal_mask(state)
        assert game.to_json(state) == before


def test_json_round_trip(game, trajectories):
    for states, _ in trajectories:
        for state in states[:: max(1, len(states) // 10)] + [states[-1]]:
            data = json.loads(json.dumps(game.to_json(state)))
            restored = game.from_json(data)
            assert game.to_json(restored) == data
            assert np.array_equal(game.legal_mask(restored), game.legal_mask(state))
            assert game.is_terminal(restored) == game.is_terminal(state)
            assert np.array_equal(game.returns(restored), game.returns(state))
            if not game.is_terminal(state):
                assert game.to_play(restored) == game.to_play(state)


def test_board_view_and_facts_are_data_a_client_can_draw(game, trajectories):
    """Every position names its board kind (a grid's cells fit its labels and hold player
    indices) and its status facts are label keys with JSON arguments (envs/boards.py)."""
    for states, _ in trajectories:
        for state in states[:: max(1, len(states) // 8)]:
            board = json.loads(json.dumps(game.board_view(state)))
            assert isinstance(board["kind"], str) and board["kind"]
            if board["kind"] == "grid":
                assert len(board["cells"]) == board["rows"] == len(board["row_labels"])
                for row in board["cells"]:
                    assert len(row) == board["cols"] == len(board["col_labels"])
                    assert all(v is None or 0 <= v < game.spec.num_players for v in row)
                assert board["click"] in ("cell", "column")
            for fact in json.loads(json.dumps(game.status_facts(state))):
                assert isinstance(fact["key"], str) and isinstance(fact["args"], dict)
    for language, table in type(game).labels.items():
        assert language in ("en", "zh") and all(isinstance(v, str) for v in table.values())


def test_bad_json_is_refused(game):
    for bad in (None, [], "state", 3, {}, {"board": 12}):
        with pytest.raises(InvalidState):
            game.from_json(bad)


def test_pickle_round_trip(game, trajectories):
    states, _ = trajectories[0]
    state = states[len(states) // 2]
    game2, state2 = pickle.loads(pickle.dumps((game, state)))
    assert game2.to_json(state2) == game.to_json(state)
    assert np.array_equal(game2.legal_mask(state2), game.legal_mask(state))


def test_returns_and_observation(game, trajectories):
    for states, _ in trajectories:
        final = game.returns(states[-1])
        assert final.shape == (game.spec.num_players,)
        assert np.all(final >= -1) and np.all(final <= 1)
        assert not np.any(game.returns(states[0]))
        for state in states[:-1][:: max(1, len(states) // 10)]:
            obs = game.observation(state)
            assert obs.dtype == np.float32 and obs.shape == game.spec.observation_shape
            low, high = game.spec.observation_range
            assert np.all(obs >= low) and np.all(obs <= high), "see GameSpec.observation_range"
            assert 0 <= game.to_play(state) < game.spec.num_players


def test_symmetries_keep_shapes_and_identity(game, trajectories):
    states, _ = trajectories[0]
    state = states[len(states) // 3]
    obs = game.observation(state)
    mask = game.legal_mask(state).astype(np.float32)
    o0, m0 = game.apply_symmetry(0, obs, mask)
    assert np.array_equal(o0, obs) and np.array_equal(m0, mask)
    for k in range(game.spec.num_symmetries):
        ok, mk = game.apply_symmetry(k, obs, mask)
        assert ok.shape == obs.shape and mk.shape == mask.shape
        assert mk.sum() == mask.sum(), "a symmetry must permute actions, not drop them"
    with pytest.raises(ValueError):
        game.apply_symmetry(game.spec.num_symmetries, obs, mask)


def test_determinism(game):
    a = random_trajectory(game, 7)
    b = random_trajectory(game, 7)
    assert a[1] == b[1]


def test_unknown_config_is_refused(game):
    with pytest.raises(ConfigError):
        make_game(game.spec.id, no_such_option=1)


def test_check_env(game):
    env = gym.make(GYM_IDS[game.spec.id])
    check_env(env.unwrapped, skip_render_check=True)


def test_gym_env_plays_to_the_end_with_masks(game):
    env = gym.make(GYM_IDS[game.spec.id], opponent="random")
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(3)
    terminated = False
    steps = 0
    while not terminated:
        assert np.array_equal(obs["action_mask"], info["action_mask"])
        assert np.array_equal(env.unwrapped.action_masks(), obs["action_mask"].astype(bool))
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, terminated, _, info = env.step(action)
        steps += 1
        assert steps <= game.spec.max_length
    assert "returns" in info and -1 <= reward <= 1


def test_unknown_game_is_refused():
    with pytest.raises(ConfigError, match="unknown game"):
        make_game("no_such_game")


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_rules_modules_import_neither_torch_nor_gymnasium(game_id):
    """Rules import the standard library and numpy only (imports go envs -> agents ->
    training -> serving)."""
    module = importlib.import_module(envs.core._REGISTRY[game_id].split(":")[0])
    path = Path(module.__file__)
    files = sorted(path.parent.glob("*.py")) if path.name == "__init__.py" else [path]
    forbidden = {"torch", "gymnasium", "fastapi", "agents", "training", "serving"}
    for file in files:
        for node in ast.walk(ast.parse(file.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                assert name.split(".")[0] not in forbidden, f"{file.name} imports {name}"
