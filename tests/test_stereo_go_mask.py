"""Stereo Go's legal mask: kept in the state (read-only), made by the compiled step from the
incrementally updated CODE row; checked against the full legality scan (``kernel.scan``)."""

from __future__ import annotations

import copy
import pickle
import random

import numpy as np
import pytest

from envs import IllegalMove, make_game
from envs.stereo_go import StereoGo
from envs.stereo_go import kernel as K

go5 = make_game("stereo_go", board="5x5")
go9 = make_game("stereo_go", board="9x9")
cyl = make_game("stereo_go")

KO_BOARD = [".........", ".........", ".........", "..XO.....", ".XO.O....", "..XO.....",
            ".........", ".........", "........."]


def scanned(game: StereoGo, state) -> list[int]:
    """The legal actions by the full scan of every point (no CODE row, no shortcuts)."""
    out = np.empty(game.n_points + 1, dtype=np.int16)
    return out[: K.legal_actions(state.g, state.hist, game._C, out)].tolist()


def check(game: StereoGo, state) -> None:
    """The state's mask, list and count agree with the full scan; its CODE row with one
    computed from scratch."""
    legal = scanned(game, state)
    mask = game.legal_mask(state)
    assert mask.dtype == np.bool_ and mask.shape == (game.spec.num_actions,)
    assert not mask.flags.writeable
    assert np.flatnonzero(mask).tolist() == legal
    listed = game.legal_actions(state)
    assert listed.dtype == np.int16 and listed.tolist() == legal
    assert state.n_legal == len(legal) and game.is_terminal(state) == (not legal)
    fresh = state.g.copy()
    K.init_codes(fresh, game._C)
    assert np.array_equal(fresh[K.CODE], state.g[K.CODE])


def random_game(game: StereoGo, seed: int, pass_rate: float = 0.03, plies: int = 100_000):
    """A seeded random game, every position checked; returns the final state."""
    rng = random.Random(seed)
    s = game.initial_state()
    check(game, s)
    for _ in range(plies):
        if game.is_terminal(s):
            break
        legal = np.flatnonzero(game.legal_mask(s))
        stones = legal[legal != game.n_points]
        a = int(rng.choice(stones)) if len(stones) and rng.random() > pass_rate else game.n_points
        s = game.apply(s, a)
        check(game, s)
    return s


def test_the_mask_is_the_states_own_read_only_array():
    s = go9.play(go9.initial_state(), "E5")
    mask = go9.legal_mask(s)
    assert mask is go9.legal_mask(s)  # cached: no allocation per call
    with pytest.raises(ValueError):
        mask[0] = False
    assert mask[go9.parse_point("D4")] and not mask[go9.parse_point("E5")] and mask[-1]
    # legal_actions is a new array each time: changing it changes nothing in the state
    listed = go9.legal_actions(s)
    listed[:] = 0
    assert go9.legal_actions(s)[0] == 0 and go9.legal_actions(s)[1] == 1


@pytest.mark.parametrize("board,games", [("5x5", 8), ("9x9", 3), ("cylinder", 1)])
def test_random_games_agree_with_the_full_scan(board, games):
    game = make_game("stereo_go", board=board)
    for seed in range(games):
        random_game(game, seed)


def superko_refusals(game: StereoGo, state) -> int:
    """How many empty points the full scan refuses for superko alone."""
    codes = np.empty(game.n_points, dtype=np.int8)
    K.scan(state.g, state.hist, game._C, state.to_play + 1, 0, game.n_points, codes, False)
    return int(np.count_nonzero(codes == K.SUPERKO))


def test_long_small_board_games_exercise_superko():
    """5x5 games of 300 moves repeat positions often: superko refuses moves, with and
    without the novel-stone shortcut (``M_NOVEL``) in force."""
    game = make_game("stereo_go", board="5x5", max_moves=300)
    refusals = {"novel": 0, "not novel": 0}
    for seed in range(8):  # seeds 3 and 5 meet superko both ways
        rng = random.Random(seed)
        s = game.initial_state()
        while not game.is_terminal(s):
            check(game, s)
            novel = "novel" if s.g[K.META, K.M_NOVEL] else "not novel"
            refusals[novel] += superko_refusals(game, s)
            legal = np.flatnonzero(game.legal_mask(s))
            a = int(legal[rng.randrange(len(legal))]) if rng.random() > 0.05 else game.n_points
            s = game.apply(s, a)
    assert all(refusals.values()), refusals


def test_handicap_games_agree_with_the_full_scan():
    game = make_game("stereo_go", board="9x9", handicap=3)
    s = random_game(game, 3, plies=12)
    assert s.ply == 12
    random_game(game, 4)


def test_branching_twice_from_one_state_gives_independent_masks():
    s0 = go9.state_from_board(KO_BOARD)
    a = go9.play(s0, "D5")  # takes s0's history buffer
    b = go9.play(s0, "H8")  # a fresh buffer
    a2 = go9.play(s0, "D5")  # the same move again, from the same state: a fresh buffer too
    for s in (s0, a, b, a2):
        check(go9, s)
    c5 = go9.parse_point("C5")
    assert not go9.legal_mask(a)[c5] and not go9.legal_mask(a2)[c5]  # the ko
    assert go9.legal_mask(b)[go9.parse_point("H2")] and not go9.legal_mask(b)[go9.parse_point("H8")]
    assert np.array_equal(go9.legal_mask(a), go9.legal_mask(a2))
    assert go9.legal_mask(a) is not go9.legal_mask(a2)
    # the children's lines go on without touching each other or the parent
    a3 = go9.play(a, "H2")
    b3 = go9.play(b, "D5")  # White fills the ko point in b's line
    for s in (s0, a, b, a2, a3, b3):
        check(go9, s)


def test_many_children_of_one_state_as_in_a_search():
    rng = random.Random(2)
    s = go9.initial_state()
    for _ in range(40):
        legal = np.flatnonzero(go9.legal_mask(s))
        s = go9.apply(s, int(legal[rng.randrange(len(legal) - 1)]))
    children = [go9.apply(s, int(a)) for a in np.flatnonzero(go9.legal_mask(s))]
    for child in children:
        check(go9, child)
    assert go9.is_terminal(children[-1]) is False  # one pass does not end the game


def test_mask_after_superko_from_a_given_history_resume_and_resign():
    s = go5.state_from_board(["....."] * 5, to_play=1)
    seen = go5.position_hash(go5.play(s, "A1"))
    s = go5.state_from_board(["....."] * 5, to_play=1, history=(seen,))
    check(go5, s)
    assert not go5.legal_mask(s)[go5.parse_point("A1")] and go5.legal_mask(s)[go5.parse_point("B1")]
    # resume after two passes: the superko history still forbids the ko retake
    k = go9.play(go9.state_from_board(KO_BOARD), "D5")
    ended = go9.play(go9.play(k, "pass"), "pass")
    assert go9.is_terminal(ended) and not go9.legal_mask(ended).any()
    check(go9, ended)
    r = go9.resume(ended)
    check(go9, r)
    assert not go9.legal_mask(r)[go9.parse_point("C5")] and go9.legal_mask(r)[-1]
    with pytest.raises(IllegalMove, match="superko"):
        go9.play(r, "C5")
    resigned = go9.resign(r)
    check(go9, resigned)
    assert go9.legal_actions(resigned).tolist() == []


def test_json_pickle_and_deepcopy_keep_the_mask_read_only_and_equal():
    s = go9.play(go9.state_from_board(KO_BOARD), "D5")
    restored = [go9.from_json(go9.to_json(s)), pickle.loads(pickle.dumps(s)), copy.deepcopy(s)]
    for r in restored:
        check(go9, r)
        assert np.array_equal(go9.legal_mask(r), go9.legal_mask(s))
        assert r == s
    assert copy.copy(s) == s and not go9.legal_mask(copy.copy(s)).flags.writeable


def test_illegal_moves_still_refused_with_their_reason():
    s = go9.play(go9.state_from_board(KO_BOARD), "D5")
    for move, reason in (("C5", "superko"), ("D5", "occupied")):
        with pytest.raises(IllegalMove, match=reason):
            go9.play(s, move)
    suicide = go5.state_from_board([".X...", "X....", ".....", ".....", "....."], to_play=1)
    with pytest.raises(IllegalMove, match="suicide"):
        go5.play(suicide, "A5")
    assert not go5.legal_mask(suicide)[go5.parse_point("A5")]
    with pytest.raises(IllegalMove, match="out of range"):
        go5.apply(suicide, 26)
    check(go5, suicide)


def test_the_cylinder_poles_in_the_codes():
    # a pole with 17 neighbours: the whole first ring black but one point, white on the pole
    s = cyl.state_from_board(["O"] + ["XXXXXXXXXXXXXXXX."] + ["." * 17] * 20 + ["."])
    check(cyl, s)
    q1 = cyl.parse_point("Q1")
    assert cyl.legal_mask(s)[q1]  # Black on Q1 captures the pole
    s2 = cyl.play(s, "Q1")
    assert s2.captures == (1, 0)
    check(cyl, s2)
    np_ = cyl.parse_point("NP")  # empty again, inside Black's ring: suicide for White
    assert s2.board[np_] == 0 and not cyl.legal_mask(s2)[np_]
    assert cyl.legal_mask(cyl.play(s2, "pass"))[np_]  # and legal for Black
