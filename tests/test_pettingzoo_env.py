"""Every game as a PettingZoo AEC env: PettingZoo's own API and seed tests, agents named after
the rules' sides and selected from the game state (several actions a turn), rewards from the
game's returns, illegal actions, and a tabular learner that beats random through the API."""

from __future__ import annotations

import subprocess
import sys
import warnings
from collections import defaultdict
from collections.abc import Callable

import numpy as np
import pytest

import envs
from envs.core import ConfigError, IllegalMove

pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test, seed_test  # noqa: E402

# Every game; Stereo Go also on a plain 9x9 board.
CASES = [
    ("jiugong", {}),
    ("fangqi", {}),
    ("stereo_go", {}),
    ("stereo_go", {"board": "9x9"}),
    ("trigolden", {}),
]
IDS = ["jiugong", "fangqi", "stereo_go", "stereo_go-9x9", "trigolden"]


@pytest.mark.parametrize(("game_id", "options"), CASES, ids=IDS)
def test_pettingzoo_api_and_seed_tests_pass(game_id: str, options: dict) -> None:
    with warnings.catch_warnings():
        # Advice that does not apply: dict observations, side names instead of player_0.
        warnings.simplefilter("ignore")
        api_test(envs.pettingzoo_env(game_id, **options), num_cycles=1000)
        seed_test(lambda: envs.pettingzoo_env(game_id, **options), num_cycles=100)


@pytest.mark.parametrize(("game_id", "options"), CASES, ids=IDS)
def test_agents_follow_the_game_state_and_rewards_are_the_returns(
    game_id: str, options: dict
) -> None:
    env = envs.pettingzoo_env(game_id, **options)
    game = env.unwrapped.game
    assert env.possible_agents == list(game.spec.player_names)
    shadow = [game.initial_state()]  # the same game, played on the engine beside the env
    movers: list[str] = []

    def checked_random(obs: dict, rng: np.random.Generator) -> int:
        state = shadow[0]
        agent = env.agent_selection
        assert agent == game.spec.player_names[game.to_play(state)]
        np.testing.assert_array_equal(obs["observation"], game.observation(state))
        np.testing.assert_array_equal(obs["action_mask"], game.legal_mask(state))
        assert all(not env.observe(a)["action_mask"].any() for a in env.agents if a != agent)
        movers.append(agent)
        action = random_policy(obs, rng)
        shadow[0] = game.apply(state, action)
        return action

    totals, _, _ = play(env, dict.fromkeys(env.possible_agents, checked_random),
                        np.random.default_rng(3))
    assert game.is_terminal(shadow[0]) and not env.agents
    returns = game.returns(shadow[0])
    assert dict(totals) == {a: float(returns[i]) for i, a in enumerate(game.spec.player_names)}
    if game_id in ("fangqi", "trigolden"):  # turns of several actions: the same agent again
        assert any(a == b for a, b in zip(movers, movers[1:]))


def test_an_illegal_action_loses_or_raises() -> None:
    env = envs.pettingzoo_env("jiugong")
    env.reset()
    illegal = int(np.flatnonzero(env.observe("south")["action_mask"] == 0)[0])
    env.step(illegal)
    assert env.terminations == {"south": True, "north": True}
    assert env.rewards == {"south": -1.0, "north": 0.0}
    assert env.infos["south"]["illegal_action"] is True
    assert not env.observe("north")["action_mask"].any()
    strict = envs.pettingzoo_env("jiugong", illegal_action="raise")
    strict.reset()
    with pytest.raises(IllegalMove, match="not legal"):
        strict.step(illegal)
    with pytest.raises(ConfigError):
        envs.pettingzoo_env("jiugong", illegal_action="maybe")
    with pytest.raises(ConfigError, match="unknown game"):
        envs.pettingzoo_env("chess")
    with pytest.raises(ConfigError, match="unknown config option"):
        envs.pettingzoo_env("jiugong", size=4)


def test_render_shows_the_position() -> None:
    env = envs.pettingzoo_env("jiugong", render_mode="ansi")
    env.reset()
    assert env.render() == env.unwrapped.game.render(env.unwrapped.state)


def test_importing_the_games_imports_no_optional_package() -> None:
    code = (
        "import sys, gymnasium, envs\n"
        "for g in envs.game_ids():\n"
        "    game = envs.make_game(g)\n"
        "    game.apply(game.initial_state(), int(game.legal_actions(game.initial_state())[0]))\n"
        "gymnasium.make('qizero/Jiugong-v0').reset(seed=0)\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'torch', 'pettingzoo', 'pyspiel', 'open_spiel', 'onnx', 'onnxruntime'}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ---------------------------------------------------------------------------- learning
Policy = Callable[[dict, np.random.Generator], int]


def random_policy(obs: dict, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


def play(env, policies: dict[str, Policy], rng: np.random.Generator):
    """One game through the AEC API; each agent's total reward and (observation, action) list,
    and South's result by the rules engine itself (what the learner is judged by)."""
    env.reset()
    totals: dict[str, float] = defaultdict(float)
    visits: dict[str, list] = defaultdict(list)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        action = policies[agent](obs, rng)
        visits[agent].append((obs["observation"].tobytes(), action))
        env.step(action)
    game = env.unwrapped.game
    return totals, visits, float(game.returns(env.unwrapped.state)[0])


def test_a_tabular_learner_beats_random_through_the_api() -> None:
    """Monte Carlo control (epsilon-greedy over the legal actions, a Q table keyed by the
    observation) learns South's Jiugong against a random North from PettingZoo's rewards alone,
    judged by the engine's results: it fails if the rewards, masks or agent selection are
    wrong."""
    env = envs.pettingzoo_env("jiugong")
    q: dict[tuple[bytes, int], float] = defaultdict(float)

    def greedy(epsilon: float) -> Policy:
        def policy(obs: dict, rng: np.random.Generator) -> int:
            legal = np.flatnonzero(obs["action_mask"])
            if rng.random() < epsilon:
                return int(rng.choice(legal))
            key = obs["observation"].tobytes()
            values = np.array([q[key, int(a)] for a in legal])
            return int(legal[rng.choice(np.flatnonzero(values == values.max()))])

        return policy

    def results(south: Policy, games: int = 300) -> np.ndarray:
        rng = np.random.default_rng(1)
        return np.array(
            [play(env, {"south": south, "north": random_policy}, rng)[2] for _ in range(games)]
        )

    baseline = results(random_policy)
    rng = np.random.default_rng(0)
    for _ in range(1000):
        totals, visits, _ = play(env, {"south": greedy(0.2), "north": random_policy}, rng)
        for key, action in visits["south"]:
            q[key, action] += 0.1 * (totals["south"] - q[key, action])
    learned = results(greedy(0.0))
    # 300 games a side: a win rate's standard error is below 0.03.
    assert (learned > 0).mean() >= (baseline > 0).mean() + 0.25
    assert (learned < 0).mean() < (baseline < 0).mean()
