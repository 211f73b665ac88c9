"""The generic Gymnasium env: modes, masks, illegal actions, opponents, MaskablePPO."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import envs
from envs import ConfigError, IllegalMove
from envs.gym_env import GameEnv


def test_registered_id_builds_the_env():
    env = gym.make("qizero/Jiugong-v0")
    obs, info = env.reset(seed=0)
    assert obs["observation"].shape == (4, 3, 3)
    assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].sum() == 2
    assert info["to_play"] == 0


def test_self_play_mode_alternates_seats_and_rewards_the_last_mover():
    env = GameEnv("jiugong")
    env.reset(seed=0)
    seats = []
    for move in ["a1-a2", "b3-b2"]:
        seats.append(env.game.to_play(env.state))
        _, reward, terminated, _, info = env.step(env.game.move_to_action(env.state, move))
        assert reward == 0 and not terminated
    assert seats == [0, 1] and info["to_play"] == 0


def test_illegal_action_ends_the_episode_as_a_loss_by_default():
    env = GameEnv("jiugong")
    env.reset(seed=0)
    illegal = int(np.flatnonzero(env.action_masks() == 0)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert terminated and not truncated and reward == -1.0
    assert info["illegal_action"] is True and info["returns"].tolist() == [-1.0, 0.0]
    assert not obs["action_mask"].any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_illegal_action_raises_when_asked():
    env = GameEnv("jiugong", illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(IllegalMove, match="not legal"):
        env.step(int(np.flatnonzero(env.action_masks() == 0)[0]))
    with pytest.raises(IllegalMove, match="out of range"):
        env.step(99)


def test_versus_opponent_mode_agent_as_second_player():
    calls = []

    def first_legal(game, state, rng):
        calls.append(game.to_play(state))
        return int(game.legal_actions(state)[0])

    env = GameEnv("jiugong", opponent=first_legal, agent_player=1)
    obs, info = env.reset(seed=1)
    assert calls == [0] and info["to_play"] == 1
    rng = np.random.default_rng(0)
    terminated = False
    while not terminated:
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, terminated, _, info = env.step(action)
    assert set(calls) == {0}
    assert reward == info["returns"][1]


def test_random_agent_never_beats_the_solver():
    env = GameEnv("jiugong", opponent="solver", agent_player=0)
    rng = np.random.default_rng(0)
    for episode in range(20):
        obs, _ = env.reset(seed=episode)
        terminated = False
        while not terminated:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            obs, reward, terminated, _, _ = env.step(action)
        assert reward <= 0


def test_bad_arguments():
    with pytest.raises(ConfigError, match="unknown game"):
        GameEnv("chess")
    with pytest.raises(ConfigError, match="unknown policy"):
        GameEnv("jiugong", opponent="stockfish")
    with pytest.raises(ConfigError, match="illegal_action"):
        GameEnv("jiugong", illegal_action="ignore")
    with pytest.raises(ConfigError, match="agent_player"):
        GameEnv("jiugong", opponent="random", agent_player=2)
    with pytest.raises(RuntimeError, match="reset"):
        GameEnv("jiugong").step(0)


def test_render_ansi():
    env = GameEnv("jiugong", render_mode="ansi")
    env.reset(seed=0)
    assert "south to play" in env.render()


def test_maskable_ppo_learns_without_modification():
    """sb3-contrib's MaskablePPO trains on the env as it is (a short smoke run)."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    env = gym.make("qizero/Jiugong-v0", opponent="random")
    model = sb3_contrib.MaskablePPO("MultiInputPolicy", env, n_steps=64, batch_size=32, seed=0)
    model.learn(total_timesteps=128)
    obs, _ = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
    assert obs["action_mask"][int(action)] == 1


def test_named_opponents():
    from envs.policies import named_policy

    game = envs.make_game("fangqi")
    state = game.initial_state()
    rng = np.random.default_rng(0)
    for name in ("random", "greedy"):
        assert game.legal_mask(state)[named_policy(game, name)(game, state, rng)]
    with pytest.raises(ConfigError, match="greedy"):
        named_policy(envs.make_game("jiugong"), "greedy")
    with pytest.raises(ConfigError, match="solver"):
        named_policy(game, "solver")
    with pytest.raises(ConfigError, match="unknown policy"):
        named_policy(game, "alphago")
