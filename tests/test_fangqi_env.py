"""Fang Qi through the generic Gymnasium env, and the greedy baseline player."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium.utils.env_checker import check_env

import envs  # noqa: F401  (registers qizero/FangQi-v0)
from envs.fangqi import FangQi, greedy_policy
from envs.fangqi.baseline import action_gains
from envs.policies import random_policy

GAME = FangQi()


def test_check_env_passes():
    env = gym.make("qizero/FangQi-v0")
    check_env(env.unwrapped, skip_render_check=True)


def test_env_against_the_greedy_opponent_plays_to_the_end():
    env = gym.make("qizero/FangQi-v0", opponent=greedy_policy, agent_player=1)
    obs, info = env.reset(seed=1)
    assert obs["observation"].shape == (16, 6, 6)
    rng = np.random.default_rng(1)
    terminated = False
    while not terminated:
        assert info["to_play"] == 1
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, terminated, _, info = env.step(action)
    assert reward in (-1.0, 0.0, 1.0)


def test_greedy_takes_the_largest_gain():
    diagram = """
    6 . . . . . .
    5 . . . . . .
    4 . . . . . .
    3 . . . . . .
    2 B . B . . .
    1 B B B . . .
    """
    state = GAME.position(diagram, "place")
    rng = np.random.default_rng(0)
    assert {GAME.action_to_move(state, greedy_policy(GAME, state, rng)) for _ in range(20)} == {
        "b2"
    }
    gains = action_gains(state, [int(a) for a in GAME.legal_actions(state)])
    assert max(gains) == 2 and sorted(gains)[-2] == 0


def test_greedy_is_random_among_ties():
    state = GAME.initial_state()
    rng = np.random.default_rng(0)
    picks = {greedy_policy(GAME, state, rng) for _ in range(60)}
    assert len(picks) > 20


def test_greedy_counts_only_captures_it_can_make():
    diagram = """
    6 . . . . . .
    5 W W . . . .
    4 W W . . . .
    3 . B . . . W
    2 B . B . . .
    1 B B B . . .
    """
    state = GAME.position(diagram, "step")
    rng = np.random.default_rng(0)
    assert GAME.action_to_move(state, greedy_policy(GAME, state, rng)) == "b3-b2"
    gains = dict(zip(GAME.legal_moves(state), action_gains(state, GAME._legal(state))))
    assert gains["b3-b2"] == 1  # two squares, but only one loose White piece


def test_greedy_beats_random():
    wins = 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        greedy_side = seed % 2
        state = GAME.initial_state()
        while not GAME.is_terminal(state):
            policy = greedy_policy if state.to_play == greedy_side else random_policy
            state = GAME.apply(state, policy(GAME, state, rng))
        wins += GAME.winner(state) == greedy_side
    assert wins >= 14
