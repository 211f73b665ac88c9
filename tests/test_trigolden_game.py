"""TriGolden on the Game protocol: actions and notation, the mask's promises, JSON, client
geometry, observation, the Gymnasium env, the greedy player and matches."""

from __future__ import annotations

import math
import pickle

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from trigolden_positions import FORCED, FORCED_TURN, forced_arbitration

import envs  # noqa: F401  (registers the Gymnasium ids)
from envs import ConfigError, IllegalMove, InvalidState, make_game
from envs.policies import random_policy
from envs.trigolden import TriGolden, TriGoldenConfig
from envs.trigolden.game import MARGIN_SCALE
from envs.trigolden.match import play_game, play_match
from envs.trigolden.match_score import match_result
from envs.trigolden.pieces import PIECE_TABLE, PieceKind, make_piece_set
from envs.trigolden.players import greedy_policy, immediate_gain
from envs.trigolden.state import ARBITRATION, FINISHED

game = make_game("trigolden")


def play(g, moves: str):
    state = g.initial_state()
    for move in moves.split():
        state = g.play(state, move)
    return state


def random_states(g, count: int, seed: int):
    """Every state of ``count`` random games."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        state = g.initial_state()
        while not g.is_terminal(state):
            yield state
            state = g.apply(state, int(rng.choice(g.legal_actions(state))))
        yield state


def test_spec_and_config():
    spec = game.spec
    assert spec.player_names == ("p1", "p2")
    assert spec.num_actions == 54 * 4 * 3 * 4 * 2 + 6 == 5190
    assert spec.observation_shape == (55, 20)
    assert spec.max_length == 54
    assert make_game("trigolden", n=4).spec.num_actions == 24 * 96 + 6
    for bad in ({"variant": "x"}, {"scoring": "both"}, {"n": 0}, {"n": 31}, {"n": "9"},
                {"colour": 1}):
        with pytest.raises(ConfigError):
            make_game("trigolden", **bad)


def test_opening_actions_and_spellings():
    s = game.initial_state()
    assert game.legal_moves(s) == ["T", "G", "P", "P'"]
    assert game.move_to_action(s, "T'") == game.move_to_action(s, "T")
    assert game.move_to_action(s, "P'") != game.move_to_action(s, "P")
    assert "opening" in pytest.raises(IllegalMove, game.play, s, "T@0.0/0").value.reason


def test_canonical_spellings_map_to_one_action():
    s = play(game, "P")
    # P's half-turn symmetry: e2 laid like e0; flipping G swaps its legs.
    assert game.move_to_action(s, "P@0.0/2") == game.move_to_action(s, "P@0.0/0")
    assert game.move_to_action(s, "P'@0.1/3") == game.move_to_action(s, "P'@0.1/1")
    assert game.move_to_action(s, "G'@0.1/1") == game.move_to_action(s, "G@0.1/2")
    assert game.move_to_action(s, "T'@0.1/0") == game.move_to_action(s, "T@0.1/0")
    reason = pytest.raises(IllegalMove, game.apply, s, game.rules.encode(0, 0, 2, 2, 0))
    assert "canonical" in reason.value.reason


def test_mask_never_offers_one_placement_twice():
    for state in random_states(game, 3, seed=4):
        if game.is_terminal(state):
            continue
        keys = [(c.kind, frozenset(c.verts)) for c in state.options.legal.values()]
        assert len(keys) == len(set(keys))


def test_first_piece_always_completes_the_turn():
    for g in (game, make_game("trigolden", variant="draft")):
        for state in random_states(g, 2, seed=6):
            if g.is_terminal(state) or state.first >= 0 or sum(state.hands[state.to_play]) < 2:
                continue
            if not state.board.pieces:
                continue
            for a in g.legal_actions(state)[:6]:
                after = g.apply(state, int(a))
                if g.config.variant == "standard":
                    assert after.to_play == state.to_play and after.first >= 0
                    assert g.legal_mask(after).any()


def test_notation_round_trip_and_bad_input():
    for state in random_states(game, 1, seed=2):
        if game.is_terminal(state):
            break
        for a in game.legal_actions(state):
            move = game.action_to_move(state, int(a))
            assert game.move_to_action(state, move) == a
            assert game.json_to_action(state, game.action_to_json(state, int(a))) == a
    s = play(game, "T")
    for bad in ("", "X@0.0/0", "T@0.0", "T@@0.0/0", 7, None, "t@0.0/0 "):
        with pytest.raises(IllegalMove):
            game.play(s, bad)  # type: ignore[arg-type]
    for bad in ({"kind": "T", "target": 0}, {"kind": "Z"}, {"kind": "T", "flipped": 1},
                {"kind": "T", "target": -1, "target_edge": 0, "edge": 0}, "T"):
        with pytest.raises(IllegalMove):
            game.json_to_action(s, bad)
    for bad in (-1, game.spec.num_actions, 1.5, True):
        with pytest.raises(IllegalMove):
            game.apply(s, bad)  # type: ignore[arg-type]
    assert game.json_to_action(s, {"kind": "T", "flipped": False, "target": 0,
                                   "target_edge": 0, "edge": 0}) == game.move_to_action(
        s, "T@0.0/0")


def test_json_round_trip_and_bad_json():
    states = list(random_states(game, 1, seed=9))
    for state in states[:: max(1, len(states) // 6)] + [states[-1]]:
        data = game.to_json(state)
        assert set(data["score"]) == {"p1", "p2"}
        back = game.from_json(data)
        assert back == state and game.to_json(back) == data
    final = states[-1]
    assert game.to_json(final)["score"] == {"p1": final.scores[0], "p2": final.scores[1]}
    for bad in ([], {"moves": "T"}, {"moves": ["T", "T"]}, {"moves": ["Q"]},
                {"moves": [], "variant": "draft"}, {"moves": [], "n": 3},
                {"moves": [], "opening_angle": "x"}):
        with pytest.raises(InvalidState):
            game.from_json(bad)
    angled = game.from_json({"moves": ["P"], "opening_angle": 30})
    assert angled.opening_angle == 30.0 and game.to_json(angled)["opening_angle"] == 30.0


def test_states_are_immutable_and_pickle():
    state = play(game, "T T@0.0/0")
    before = pickle.dumps(state)
    json_before = game.to_json(state)
    for a in game.legal_actions(state)[:5]:
        game.apply(state, int(a))
    assert game.to_json(state) == json_before
    assert pickle.dumps(state) == before
    again = pickle.loads(before)
    assert again == state
    assert list(game.legal_actions(again)) == list(game.legal_actions(state))


def test_client_geometry():
    s = play(game, "P T@0.1/0")
    polys = game.piece_polygons(s)
    assert [p["kind"] for p in polys] == ["P", "T"]
    assert all(len(p["polygon"]) == {"P": 4, "T": 3}[p["kind"]] for p in polys)
    a = polys[0]["polygon"]
    area = 0.5 * sum(a[i - 1][0] * a[i][1] - a[i][0] * a[i - 1][1] for i in range(len(a)))
    assert area == pytest.approx(PHI_AREA_P)  # counter-clockwise, the parallelogram's area
    previews = game.placement_previews(s, "G", False, 0)  # p2's second piece, on p1's P
    legal_g = [a for a in game.legal_actions(s) if game.rules.decode(int(a))[2] == 1]
    assert previews and sorted(p["action"] for p in previews) == sorted(int(a) for a in legal_g)
    for p in previews:
        after = game.apply(s, p["action"])
        assert game.piece_polygons(after)[-1]["polygon"] == p["polygon"]
    assert game.placement_previews(s, "P", True, 0)
    assert game.placement_previews(s, "T", False, 1) == []  # p2's own piece takes nothing
    assert [p["move"] for p in game.placement_previews(game.initial_state(), "T", True, None)] \
        == ["T'"]
    with pytest.raises(IllegalMove):
        game.placement_previews(s, "Q", False, 1)
    with pytest.raises(IllegalMove):
        game.placement_previews(s, "T", False, 9)


PHI_AREA_P = ((1 + math.sqrt(5)) / 2) * math.sin(math.radians(72))


def test_observation_layout():
    s = play(game, "P T@0.1/0")
    obs = game.observation(s)
    assert obs.shape == (55, 20) and obs.dtype == np.float32
    assert np.all(np.abs(obs) <= 1)
    g = obs[0]
    assert g[0] == 1 and g[2] == 1  # standard, bracing
    assert g[10] == 1  # second piece of p2's turn
    assert g[11] == 0  # p2 to move
    assert list(obs[1:, 0]) == [1, 1] + [0] * 52  # two pieces present
    assert obs[1, 2] == 1 and obs[2, 1] == 1  # piece 0 is the opponent's, piece 1 the mover's
    assert obs[1, 3 + 2] == 1 and obs[2, 3 + 0] == 1  # kinds P and T
    assert obs[1, 8 + 3 + 1] == 0 and obs[1, 8 + 3 + 0] == 1  # P's e1 holds the T, e0 is free
    assert obs[2, 9 + 3 + 4] == 1  # piece 1 is the first piece of the turn
    assert obs[1, 10 + 3 + 4] == 1  # piece 0 is its target


def test_env_check_and_self_play():
    env = gym.make("qizero/TriGolden-v0", game_config={"n": 3})
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=1)
    done = False
    steps = 0
    while not done:
        action = int(np.flatnonzero(obs["action_mask"])[0])
        obs, reward, done, _, info = env.step(action)
        steps += 1
    assert steps <= 18 and set(info["returns"]) <= {-1.0, 0.0, 1.0}


def test_env_arbitration_ends_as_opponent_loss():
    # Every turn of p1 leaves p2 no legal complete turn (tests/trigolden_positions.py).
    env = gym.make("qizero/TriGolden-v0", game_config={"n": 4})
    env.reset(seed=0)
    base = env.unwrapped
    state = base.game.initial_state()
    first, second = FORCED_TURN.split()
    for move in [*FORCED.split(), first]:
        state = base.game.play(state, move)
    base.state = state
    base._mask = base.game.legal_mask(state).astype(np.int8)
    _, reward, done, _, info = env.step(base.game.move_to_action(state, second))
    assert done and list(info["returns"]) == [-1.0, 1.0] and reward == -1.0  # p1 moved last


def test_custom_set_draft_passes_and_standard_arbitration():
    # A set whose big rhombus fits nothing of the triangles: players run out of placements.
    rhombus = PieceKind("X", "big rhombus", ((0, (2, 0)), (2, (2, 0)), (5, (2, 0)), (7, (2, 0))))
    pieces = make_piece_set((PIECE_TABLE[0], rhombus))
    draft = TriGolden(TriGoldenConfig(variant="draft", n=1), pieces)
    s = draft.play(play(draft, "T"), "T@0.0/0")
    # p2 could not place its X second: the turn ended after one piece; then p1 (only X)
    # passes, p2 (only X) passes, and the game ends.
    assert s.outcome == FINISHED and s.passes == ((2, 0), (2, 1))
    assert draft.to_json(s)["passes"] == [{"pieces": 2, "player": "p1"},
                                          {"pieces": 2, "player": "p2"}]
    standard = TriGolden(TriGoldenConfig(n=1), pieces)
    s = play(standard, "T")
    # p2 has two pieces and no legal complete turn: p1 broke the obligation, p2 wins.
    assert s.outcome == ARBITRATION and s.claimant == 1
    assert list(standard.returns(s)) == [-1.0, 1.0]


def test_greedy_policy():
    s = play(game, "G P'@0.1/1 P'@0.2/1 P'@2.3/1 G@2.2/0 G@3.0/0 G@3.3/1")
    rng = np.random.default_rng(0)
    a = greedy_policy(game, s, rng)
    assert game.legal_mask(s)[a]
    gains = {int(b): immediate_gain(game, s, int(b)) for b in game.legal_actions(s)}
    assert gains[a] == max(gains.values()) == 4  # the WORTH_4 structure of the rules tests
    after = game.apply(s, a)
    assert after.scores[0] - after.scores[1] - (s.scores[0] - s.scores[1]) == 4


def test_complete_match():
    small = make_game("trigolden", n=3)
    rng = np.random.default_rng(2)
    result = play_match(small, greedy_policy, random_policy, rng)
    g1 = result.games[0]
    if result.decided_by == "score":
        g2 = result.games[1]
        assert result.totals == (g1.scores[0] + g2.scores[1], g1.scores[1] + g2.scores[0])
        expected = None if result.totals[0] == result.totals[1] else int(
            result.totals[1] > result.totals[0])
        assert result.winner == expected
    assert result.to_json()["decided_by"] == result.decided_by
    # Combining by hand: an arbitration in game 1 decides the match at once (claimant p2: B).
    arb = forced_arbitration()
    r = match_result(arb, None)
    assert (r.winner, r.decided_by) == (1, "arbitration")
    # ... and in game 2 the claimant p2 is match player A.
    finished = play_game(small, random_policy, random_policy, rng)
    if finished.outcome == FINISHED:
        assert match_result(finished, arb).winner == 0
    with pytest.raises(IllegalMove):
        match_result(small.initial_state(), None)


def test_mirror_symmetry_matches_the_mirrored_game():
    """Replaying the mirrored actions gives the mirrored observation and the permuted mask."""
    perm = game.mirror_actions
    assert game.spec.num_symmetries == 2
    assert np.array_equal(np.sort(perm), np.arange(game.spec.num_actions))
    rng = np.random.default_rng(12)
    state = game.initial_state()
    mirrored = game.initial_state()
    while not game.is_terminal(state) and state.num_pieces < 30:
        obs, mask = game.apply_symmetry(1, game.observation(state), game.legal_mask(state))
        np.testing.assert_allclose(obs, game.observation(mirrored), atol=1e-6)
        assert np.array_equal(mask, game.legal_mask(mirrored))
        back, back_mask = game.apply_symmetry(1, obs, mask)
        np.testing.assert_allclose(back, game.observation(state), atol=1e-6)
        assert np.array_equal(back_mask, game.legal_mask(state))
        a = int(rng.choice(game.legal_actions(state)))
        onehot = np.zeros(game.spec.num_actions, dtype=np.float32)
        onehot[a] = 1.0
        _, moved = game.apply_symmetry(1, game.observation(state), onehot)
        state = game.apply(state, a)
        mirrored = game.apply(mirrored, int(np.argmax(moved)))
        assert state.scores == mirrored.scores


def test_match_returns_score_the_match_of_the_rules():
    """``match_returns`` (what the arena scores) agrees with ``match_result``: points of both
    games added, arbitration in game 1 deciding at once, an unfinished game leaving a draw."""
    small = make_game("trigolden", n=3)
    assert small.match_games == 2
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(6):
        g1 = play_game(small, greedy_policy, random_policy, rng)
        g2 = play_game(small, random_policy, greedy_policy, rng)
        r = small.match_returns([g1, g2])
        result = match_result(g1, g2)
        expected = 0.0 if result.winner is None else (1.0 if result.winner == 0 else -1.0)
        assert (r[0], r[1]) == (expected, -expected)
        checked += result.decided_by == "score"
    assert checked > 0
    arb = forced_arbitration()  # claimant p2
    assert list(game.match_returns([arb, None])) == [-1.0, 1.0]
    finished = play_game(small, random_policy, random_policy, rng)
    while finished.outcome != FINISHED:
        finished = play_game(small, random_policy, random_policy, rng)
    assert list(small.match_returns([finished, None])) == [0.0, 0.0]
    assert list(small.match_returns([None, finished])) == [0.0, 0.0]


def test_utility_is_the_scaled_margin_and_returns_the_result():
    """Search and value learning maximise the margin (matches add points); the game's result
    stays the sign. Arbitration is worth a full win or loss to both."""
    rng = np.random.default_rng(7)
    seen = set()
    while len(seen) < 2:
        final = play_game(game, greedy_policy, random_policy, rng)
        if final.outcome != FINISHED:
            continue
        diff = final.scores[0] - final.scores[1]
        u = game.utility(final)
        expected = max(-1.0, min(1.0, diff / MARGIN_SCALE))
        assert u[0] == pytest.approx(expected) and u[1] == pytest.approx(-expected)
        assert list(game.returns(final)) == [np.sign(diff), -np.sign(diff)]
        seen.add(abs(diff) >= MARGIN_SCALE)
    arb = forced_arbitration()  # claimant p2
    assert list(game.utility(arb)) == list(game.returns(arb)) == [-1.0, 1.0]
    assert list(game.utility(game.initial_state())) == [0.0, 0.0]
