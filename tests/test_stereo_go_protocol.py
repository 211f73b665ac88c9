"""Stereo Go on the Game protocol: observation layout, symmetries, JSON, SGF, the gym id."""

from __future__ import annotations

import json
import pickle
import random

import gymnasium as gym
import numpy as np
import pytest

import envs  # noqa: F401  (registers the gym ids)
from envs import IllegalMove, InvalidState, make_game
from envs.stereo_go import StereoGo
from envs.stereo_go.sgf import SgfError, from_sgf, point_to_sgf, sgf_to_point, to_sgf

cyl = make_game("stereo_go")
go9 = make_game("stereo_go", board="9x9")


def random_moves(game: StereoGo, seed: int, plies: int) -> list[int]:
    rng = random.Random(seed)
    s = game.initial_state()
    actions = []
    for _ in range(plies):
        if game.is_terminal(s):
            break
        legal = [int(a) for a in game.legal_actions(s) if a != game.n_points]
        a = rng.choice(legal) if legal else game.n_points
        actions.append(a)
        s = game.apply(s, a)
    return actions


def replay(game: StereoGo, actions):
    s = game.initial_state()
    for a in actions:
        s = game.apply(s, a)
    return s


# ---------------------------------------------------------------- observation
def test_observation_layout_on_the_cylinder():
    s = cyl.play(cyl.initial_state(), "NP")
    s = cyl.play(s, "C21")
    obs = cyl.observation(s)  # Black to move: NP is own, C21 is the opponent's
    assert obs.shape == cyl.spec.observation_shape == (13, 23, 17)
    assert obs[0, 0].all() and obs[0, 1:].sum() == 0  # the pole row repeats the pole
    assert obs[1, 21, 2] == 1 and obs[1].sum() == 1  # C21: ring 21 = row 21, meridian C
    assert obs[7, 21, 2] == 1 and obs[7].sum() == 1  # the last move
    assert obs[8].all() and obs[10].all() and not obs[9].any()
    s = cyl.play(s, "pass")
    obs = cyl.observation(s)  # White to move, a pass would end the game
    assert obs[1, 0].all() and obs[0, 21, 2] == 1 and obs[9].all() and not obs[8].any()


def test_observation_on_a_square_board_and_liberty_planes():
    s = go9.state_from_board(
        ["XO.......", ".........", ".........", ".........", ".........", ".........",
         ".........", ".........", "........."],
        to_play=1,
    )
    obs = go9.observation(s)
    assert obs.shape == (13, 9, 9)
    # row r = rank r+1: A9 is row 8 column 0
    assert obs[1, 8, 0] == 1 and obs[4, 8, 0] == 1  # the black stone, opponent of White, 1 lib
    assert obs[0, 8, 1] == 1 and obs[3, 8, 1] == 1  # White B9: own, 2 liberties
    assert obs[6].sum() == 0


def test_rules_and_komi_planes_from_the_movers_view():
    """KataGo's global inputs: komi for the mover (Black pays it, so it is negative when Black
    moves) and a territory flag, so one network serves either rule set."""
    area = StereoGo(StereoGo.Config(board="9x9", rules="area", komi=6.5))
    s = area.initial_state()
    obs = area.observation(s)
    assert np.all(obs[11] == -6.5 / 15) and not obs[12].any()
    obs = area.observation(area.apply(s, 40))  # White to move
    assert np.all(obs[11] == 6.5 / 15)
    territory = go9.observation(go9.initial_state())
    assert np.all(territory[12] == 1) and np.all(territory[11] == -7.5 / 15)


def test_outcome_targets_are_tromp_taylor_ownership_and_the_margin():
    s = go9.state_from_board(
        ["..X.O....", "..X.O....", "XXX.OOOOO", ".........", ".........", ".........",
         ".........", ".........", "........."],
        to_play=0,
    )
    t = go9.outcome_targets(s)
    # row 8 is rank 9: the black corner A9-B8 (4 points + 5 stones) is Black's
    assert t.ownership.shape == (9, 9)
    assert np.all(t.ownership[8, :3] == 1) and np.all(t.ownership[7, :2] == 1)
    assert np.all(t.ownership[8, 4:] == -1)  # White's stones and the region behind them
    assert t.ownership[8, 3] == 0 and t.ownership[0, 0] == 0  # the open board touches both
    assert (t.ownership == 1).sum() == 9 and (t.ownership == -1).sum() == 15
    assert t.score == pytest.approx((4 - 8 - 7.5) / 81)  # territory: 4 points against 8
    area = StereoGo(StereoGo.Config(board="9x9", rules="area"))
    assert area.outcome_targets(s).score == pytest.approx((9 - 15 - 7.5) / 81)


def test_illegal_points_plane_marks_suicide_and_superko():
    s = go9.state_from_board(
        [".X.......", "X........", ".........", ".........", ".........", ".........",
         ".........", ".........", "........."],
        to_play=1,
    )
    obs = go9.observation(s)
    assert obs[6, 8, 0] == 1 and obs[6].sum() == 1  # A9 is suicide for White


# ---------------------------------------------------------------- symmetries
def check_symmetries(game: StereoGo, actions: list[int], indices) -> None:
    s = replay(game, actions)
    obs = game.observation(s)
    mask = game.legal_mask(s)
    for k in indices:
        t = replay(game, [game.transform_action(k, a) for a in actions])
        obs_k, mask_k = game.apply_symmetry(k, obs, mask)
        assert np.array_equal(mask_k, game.legal_mask(t)), f"symmetry {k}: legal masks differ"
        assert np.array_equal(obs_k, game.observation(t)), f"symmetry {k}: observations differ"
        assert game.is_terminal(t) == game.is_terminal(s)


def test_the_68_cylinder_symmetries_are_consistent_with_the_rules():
    assert cyl.spec.num_symmetries == 68
    actions = random_moves(cyl, 3, 160)
    check_symmetries(cyl, actions, range(68))
    images = {tuple(cyl.board.sym_points[k]) for k in range(68)}
    assert len(images) == 68  # all distinct


def test_the_8_square_symmetries_are_consistent_with_the_rules():
    assert go9.spec.num_symmetries == 8
    for seed in range(3):
        check_symmetries(go9, random_moves(go9, seed, 70), range(8))


def test_symmetries_permute_actions_and_keep_pass():
    policy = np.arange(cyl.spec.num_actions, dtype=np.float32)
    obs = cyl.observation(cyl.initial_state())
    for k in (1, 17, 34, 67):
        _, p = cyl.apply_symmetry(k, obs, policy)
        assert sorted(p.tolist()) == policy.tolist() and p[-1] == policy[-1]
    # a pole swap exchanges NP and SP and ring k with ring 22 - k
    _, p = cyl.apply_symmetry(34, obs, policy)
    assert p[358] == 357 and p[357] == 358 and p[20 * 17] == 0
    with pytest.raises(ValueError):
        cyl.apply_symmetry(68, obs, policy)
    with pytest.raises(ValueError):
        cyl.apply_symmetry(1, obs[:, :5], policy)


# ---------------------------------------------------------------- JSON, pickle, equality
def test_json_round_trip_keeps_history_handicap_and_end():
    g = make_game("stereo_go", board="9x9", handicap=2)
    s = replay(g, random_moves(g, 1, 40))
    data = json.loads(json.dumps(g.to_json(s)))
    t = g.from_json(data)
    assert t == s and g.to_json(t) == data
    assert np.array_equal(np.sort(t.history), np.sort(s.history))
    assert np.array_equal(g.legal_mask(t), g.legal_mask(s))
    for move in ("pass", "pass"):
        s = g.play(s, move)
    data = g.to_json(s)
    assert data["end"] == "passes" and data["winner"] in ("black", "white")
    assert g.from_json(data) == s


KO_BOARD = [".........", ".........", ".........", "..XO.....", ".XO.O....", "..XO.....",
            ".........", ".........", "........."]


def test_superko_survives_json():
    s = go9.play(go9.state_from_board(KO_BOARD), "D5")  # Black takes the ko at C5
    restored = go9.from_json(json.loads(json.dumps(go9.to_json(s))))
    assert "C5" not in go9.legal_moves(s)
    assert go9.legal_moves(restored) == go9.legal_moves(s)


@pytest.mark.parametrize(
    "change",
    [
        {"to_play": "red"},
        {"passes": 3},
        {"passes": -1},
        {"ply": True},
        {"captures": [1]},
        {"history": ["zz"]},
        {"history": "0"},
        {"board": ["XO"]},
        {"end": "draw"},
        {"end": "resign", "winner": None},
        {"last_move": "Z99"},
        {"handicap_left": 1},
    ],
)
def test_bad_json_is_refused(change):
    data = go9.to_json(go9.initial_state())
    data.update(change)
    with pytest.raises(InvalidState):
        go9.from_json(data)


def test_pickle_and_equality():
    s = replay(cyl, random_moves(cyl, 4, 50))
    game2, s2 = pickle.loads(pickle.dumps((cyl, s)))
    assert s2 == s and hash(s2) == hash(s)
    assert np.array_equal(game2.legal_actions(s2), cyl.legal_actions(s))
    assert s != cyl.initial_state()


def test_states_share_history_safely_across_branches():
    """Lines of play from one state share its history buffer but never see each other."""
    s0 = go9.state_from_board(KO_BOARD)
    before = s0.history
    a = go9.play(s0, "D5")  # appends to s0's buffer in place
    b = go9.play(s0, "H8")  # the buffer is a's now: b gets its own copy
    c = go9.play(a, "H2")  # a is still the newest of its buffer: appends in place
    assert go9.position_hash(a) in a.history and go9.position_hash(a) not in b.history
    assert go9.position_hash(a) in c.history and go9.position_hash(b) not in c.history
    assert np.array_equal(s0.history, before) and "C5" not in go9.legal_moves(a)


def test_branching_does_not_change_the_main_line():
    rng = random.Random(9)
    s = go9.initial_state()
    line = []
    for _ in range(120):
        if go9.is_terminal(s):
            break
        legal = go9.legal_actions(s)
        for a in rng.sample(legal.tolist(), min(3, len(legal))):
            go9.apply(s, a)  # siblings, made before and after the main line's child
        a = int(legal[rng.randrange(len(legal))])
        line.append(a)
        s = go9.apply(s, a)
        go9.apply(s, int(go9.legal_actions(s)[0])) if not go9.is_terminal(s) else None
    fresh = replay(go9, line)
    assert go9.to_json(fresh) == go9.to_json(s)
    assert np.array_equal(go9.legal_actions(fresh), go9.legal_actions(s))


# ---------------------------------------------------------------- notation
def test_notation_round_trip_and_errors():
    s = cyl.initial_state()
    for a in (0, 16, 17, 356, 357, 358, 359):
        assert cyl.move_to_action(s, cyl.action_to_move(s, a)) == a
    assert cyl.action_to_move(s, 359) == "pass" and cyl.action_to_move(s, 357) == "NP"
    assert cyl.move_to_action(s, " q21 ") == 356
    for bad in ("R1", "A22", "A0", "N", "", "pass pass", 5):
        with pytest.raises(IllegalMove):
            cyl.move_to_action(s, bad)
    with pytest.raises(IllegalMove):
        cyl.action_to_move(s, 360)
    assert "game over" in cyl.render(cyl.play(s, "resign"))
    assert "NP" in cyl.render(s) and "black to play" in cyl.render(s)


# ---------------------------------------------------------------- SGF
@pytest.mark.parametrize("board,handicap", [("9x9", 0), ("19x19", 3), ("cylinder", 2)])
def test_sgf_round_trip(board, handicap):
    g = make_game("stereo_go", board=board, handicap=handicap, rules="area")
    actions = random_moves(g, 2, 80)
    moves = []
    s = g.initial_state()
    for a in actions:
        moves.append(g.action_to_move(s, a))
        s = g.apply(s, a)
    if not g.is_terminal(s):
        moves.append("resign")
    text = to_sgf(g, moves, black="B", white="W")
    g2, moves2, s2 = from_sgf(text)
    assert g2.config == g.config and moves2 == moves
    assert g.is_terminal(s2) and ("RE[" in text)
    if handicap:
        assert text.count(";W[]") >= handicap and f"HA[{handicap}]" in text


def test_sgf_coordinates():
    assert point_to_sgf(go9, 0) == "ai" and point_to_sgf(go9, 80) == "ia"
    assert point_to_sgf(go9, 81) == "" and sgf_to_point(go9, "tt") == 81
    assert point_to_sgf(cyl, 0) == "aa" and point_to_sgf(cyl, 356) == "qu"
    assert point_to_sgf(cyl, 357) == "ra" and point_to_sgf(cyl, 358) == "ru"
    for p in range(cyl.spec.num_actions):
        assert sgf_to_point(cyl, point_to_sgf(cyl, p)) == p
    with pytest.raises(SgfError):
        sgf_to_point(cyl, "rb")
    with pytest.raises(SgfError):
        sgf_to_point(go9, "jj")


def test_sgf_import_reads_a_foreign_record():
    text = "(;GM[1]FF[4]SZ[9]KM[6.5]RU[Chinese]PB[x];B[ee];W[gc](;B[cg];W[])(;B[aa]))"
    g, moves, s = from_sgf(text)
    assert g.config.komi == 6.5 and g.config.rules == "area"
    assert moves == ["E5", "G7", "C3", "pass"]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "(;GM[2]SZ[9])",
        "(;SZ[9]AB[aa])",
        "(;SZ[17:21])",
        "(;SZ[9];W[aa])",
        "(;SZ[9];B[aa];W[aa])",
        "(;SZ[9];B[zz])",
        "(;SZ[9]KM[x])",
        "(;SZ[9]RU[Ing])",
        "(;SZ[4])",
        "(;SZ[9];B[aa",
    ],
)
def test_bad_sgf_is_refused(text):
    with pytest.raises(SgfError):
        from_sgf(text)


# ---------------------------------------------------------------- gymnasium
def test_gym_id_and_config():
    env = gym.make("qizero/StereoGo-v0", game_config={"board": "9x9"})
    obs, info = env.reset(seed=0)
    assert obs["observation"].shape == (13, 9, 9) and obs["action_mask"].shape == (82,)
    env.close()


def test_threads_sharing_a_game_get_their_own_legal_lists():
    import threading

    game = make_game("stereo_go", board="9x9")
    lines = [random_moves(go9, seed, 100) for seed in range(4)]
    results: dict[int, list] = {}

    def worker(i: int) -> None:
        s = game.initial_state()
        states = []
        for a in lines[i]:
            s = game.apply(s, a)
            states.append(s)
        results[i] = states

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, states in results.items():
        fresh = go9.initial_state()
        for a, s in zip(lines[i], states):
            fresh = go9.apply(fresh, a)
            assert np.array_equal(game.legal_actions(s), go9.legal_actions(fresh))
