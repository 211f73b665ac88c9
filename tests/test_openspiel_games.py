"""The games as OpenSpiel Python games: GameType/GameInfo from the spec, OpenSpiel's own random
simulation checks, and OpenSpiel's MCTSBot playing qizero levels through ``evaluate_bots`` on
Jiugong and Fang Qi, every move checked through the qizero engine."""

from __future__ import annotations

import numpy as np
import pytest

import envs
from envs.core import ConfigError

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python.algorithms import evaluate_bots, mcts  # noqa: E402

from agents.players import level_player  # noqa: E402
from envs.openspiel_games import PolicyBot  # noqa: E402

CASES = [
    ("jiugong", {}),
    ("fangqi", {}),
    ("stereo_go", {"board": "9x9"}),
    ("stereo_go", {"rules": "area", "max_moves": 400}),
    ("trigolden", {}),
    ("trigolden", {"scoring": "trigolden"}),
]


@pytest.mark.parametrize(("game_id", "options"), CASES)
def test_game_facts_come_from_the_spec(game_id: str, options: dict) -> None:
    game = envs.openspiel_game(game_id, **options)
    spec = envs.make_game(game_id, **options).spec
    assert game.get_type().short_name == f"qizero_{game_id}"
    assert game.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert game.num_distinct_actions() == spec.num_actions
    assert game.num_players() == spec.num_players
    assert game.max_game_length() == spec.max_length
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-1.0, 1.0, 0.0)
    assert game.observation_tensor_shape() == list(spec.observation_shape)
    for name, value in options.items():
        assert game.get_parameters()[name] == value


@pytest.mark.parametrize(("game_id", "options"), CASES)
def test_openspiel_random_simulation_checks(game_id: str, options: dict) -> None:
    # Clones, legal actions, returns in range and zero-sum, observation and information state
    # strings, serialization by history: OpenSpiel's own invariants on random games.
    game = envs.openspiel_game(game_id, **options)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_clones_share_the_immutable_state_and_diverge_when_played() -> None:
    game = envs.openspiel_game("fangqi")
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    clone = state.clone()
    assert clone.qizero_state is state.qizero_state
    clone.apply_action(clone.legal_actions()[0])
    assert len(state.history()) == 1 and len(clone.history()) == 2
    with pytest.raises(envs.IllegalMove):  # the qizero engine refuses an illegal action
        state.apply_action(int(np.flatnonzero(~game.qizero.legal_mask(state.qizero_state))[0]))


def test_bad_games_and_options_are_refused() -> None:
    with pytest.raises(ConfigError, match="unknown game"):
        envs.openspiel_game("chess")
    with pytest.raises(ConfigError, match="must be one of"):
        envs.openspiel_game("stereo_go", rules="japanese")


class CheckedBot(pyspiel.Bot):
    """A bot whose every move is checked through the qizero engine before it is played."""

    def __init__(self, bot: pyspiel.Bot, log: list) -> None:
        pyspiel.Bot.__init__(self)
        self.bot = bot
        self.log = log

    def restart_at(self, state) -> None:
        self.bot.restart_at(state)

    def step(self, state) -> int:
        action = self.bot.step(state)
        game, qstate = state.qizero_game, state.qizero_state
        assert state.current_player() == game.to_play(qstate)
        self.log.append(game.check_action(qstate, action))  # IllegalMove if not legal
        return action


@pytest.mark.parametrize(
    ("game_id", "level", "simulations"), [("jiugong", "perfect", 100), ("fangqi", "strong", 16)]
)
def test_openspiel_mcts_plays_a_qizero_level(game_id: str, level: str, simulations: int) -> None:
    game = envs.openspiel_game(game_id)
    player = level_player(game.qizero, level)
    for k in range(2):  # the level plays each side once
        rs = np.random.RandomState(k)
        log: list = []
        searcher = mcts.MCTSBot(game, 2.0, simulations, mcts.RandomRolloutEvaluator(1, rs),
                                random_state=rs)
        trained = PolicyBot(lambda g, s, rng: player.select_action(g, s, rng), seed=k)
        bots = [CheckedBot(b, log) for b in ([trained, searcher] if k == 0 else
                                             [searcher, trained])]
        state = game.new_initial_state()
        returns = evaluate_bots.evaluate_bots(state, bots, np.random.RandomState(k))
        # Replayed through the qizero engine, the game ends where OpenSpiel says, same results.
        q = game.qizero
        replay = q.initial_state()
        for action in log:
            replay = q.apply(replay, action)
        assert state.history() == log
        assert q.is_terminal(replay) and q.to_json(replay) == q.to_json(state.qizero_state)
        assert returns == list(q.returns(replay)) and sum(returns) == 0.0
