"""Stereo Go rules: hand-built positions for every rule, perft counts, a slow reference.

Positions are given as notation literals (the stones of each colour) or as board diagrams;
the cylinder's seam (Q next to A) and poles (17 neighbours each) get their own cases.
"""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest
from stereo_go_reference import RefGo

from envs import IllegalMove, InvalidState, make_game
from envs.stereo_go import StereoGo
from envs.stereo_go import kernel as K
from envs.stereo_go.board import get_board

cyl = make_game("stereo_go")
go9 = make_game("stereo_go", board="9x9")
go5 = make_game("stereo_go", board="5x5")


def position(game: StereoGo, black: str = "", white: str = "", to_play: int = 0, **kw):
    """A state with the given stones (space-separated notation) and side to move."""
    values = np.zeros(game.n_points, dtype=np.int32)
    for colour, names in ((1, black), (2, white)):
        for name in names.split():
            values[game.parse_point(name)] = colour
    return game.state_from_board(_diagram_from_values(game, values), to_play=to_play, **kw)


def _diagram_from_values(game: StereoGo, values: np.ndarray) -> list[str]:
    chars = ".XO"
    if game.board.is_cylinder:
        rings = ["".join(chars[v] for v in values[r * 17 : r * 17 + 17]) for r in range(21)]
        return [chars[values[357]]] + rings + [chars[values[358]]]
    n = int(round(game.n_points**0.5))
    return ["".join(chars[v] for v in values[r * n : r * n + n]) for r in range(n - 1, -1, -1)]


def stones(game: StereoGo, state, colour: int) -> set[str]:
    board = state.board
    return {game.board.names[p] for p in np.flatnonzero(board == colour)}


def play(game: StereoGo, state, moves: str):
    for move in moves.split():
        state = game.play(state, move)
    return state


# ---------------------------------------------------------------- the board graph
def test_cylinder_graph():
    b = get_board("cylinder")
    assert b.n_points == 359 and cyl.spec.num_actions == 360
    names = b.names
    nb = {names[p]: {names[q] for q in b.nbr[p] if q >= 0} for p in range(b.n_points)}
    assert nb["A5"] == {"Q5", "B5", "A4", "A6"}  # the ring closes: Q is next to A
    assert nb["Q5"] == {"P5", "A5", "Q4", "Q6"}
    assert nb["C1"] == {"B1", "D1", "C2", "NP"}
    assert nb["C21"] == {"B21", "D21", "C20", "SP"}
    assert nb["NP"] == {f"{m}1" for m in "ABCDEFGHIJKLMNOPQ"}
    assert nb["SP"] == {f"{m}21" for m in "ABCDEFGHIJKLMNOPQ"}
    # symmetric adjacency, 4 neighbours everywhere but the poles
    for p, ns in nb.items():
        assert all(p in nb[q] for q in ns)
        assert len(ns) == (17 if p in ("NP", "SP") else 4)


def test_square_graph_and_gtp_names():
    b = get_board("9x9")
    assert b.names[0] == "A1" and b.names[8] == "J1" and b.names[80] == "J9"
    assert "I5" not in b.names
    assert go9.parse_point("j9") == 80 and go9.parse_point("PASS") == 81
    with pytest.raises(IllegalMove, match="not a point"):
        go9.parse_point("I5")
    assert cyl.parse_point("I5") == 4 * 17 + 8  # the cylinder's meridians include I
    assert cyl.parse_point("np") == 357 and cyl.parse_point("SP") == 358


# ---------------------------------------------------------------- captures
def test_capture_across_the_ring_seam():
    s = position(cyl, black="B5 A4 A6", white="A5")
    s = cyl.play(s, "Q5")  # Q5 is A5's fourth neighbour, across the seam
    assert "A5" not in stones(cyl, s, 2) and s.captures == (1, 0)
    # and the other way round: a stone on Q captured by a stone on A
    s = position(cyl, black="P7 Q6 Q8", white="Q7")
    s = cyl.play(s, "A7")
    assert stones(cyl, s, 2) == set() and s.captures == (1, 0)


def test_capture_of_a_chain_touching_a_pole():
    # White A1-B1 touches the north pole; its liberties are A2, B2, Q1, C1 and NP.
    s = position(cyl, black="A2 B2 Q1 C1", white="A1 B1")
    assert "NP" in cyl.legal_moves(s)
    s = cyl.play(s, "NP")
    assert stones(cyl, s, 2) == set() and s.captures == (2, 0)
    assert stones(cyl, s, 1) == {"A2", "B2", "Q1", "C1", "NP"}


def test_a_pole_stone_has_17_liberties_and_is_captured_by_the_whole_ring():
    ring = [f"{m}21" for m in "ABCDEFGHIJKLMNOPQ"]
    lone = position(cyl, white="SP")
    assert K.liberties(lone.g, cyl._C)[358] == 17
    s = position(cyl, black=" ".join(ring[:16]), white="SP")
    assert K.liberties(s.g, cyl._C)[358] == 1
    obs = cyl.observation(s)
    assert stones(cyl, s, 2) == {"SP"}
    # one liberty left (Q21): the opponent-chain-in-atari plane shows it on the pole row
    assert obs[4, 22].all() and not obs[4, 0].any()
    s = cyl.play(s, "Q21")
    assert stones(cyl, s, 2) == set() and s.captures == (1, 0)
    # the 17 ring stones are one chain, with the 17 points of ring 20 and the pole as liberties
    s = cyl.play(s, "pass")
    assert "SP" in cyl.legal_moves(s)


def test_suicide_is_refused():
    s = position(cyl, black="D10 F10 E9 E11", to_play=1)
    with pytest.raises(IllegalMove, match="suicide"):
        cyl.play(s, "E10")
    assert not cyl.legal_mask(s)[cyl.parse_point("E10")]
    # pole suicide: White on NP when every point of ring 1 is black
    ring = " ".join(f"{m}1" for m in "ABCDEFGHIJKLMNOPQ")
    s = position(cyl, black=ring, to_play=1)
    with pytest.raises(IllegalMove, match="suicide"):
        cyl.play(s, "NP")


def test_multi_stone_suicide_is_refused():
    # White D10-E10 with one liberty F10; every neighbour of F10 is black or that chain.
    black = "C10 D9 E9 D11 E11 G10 F9 F11"
    s = position(cyl, black=black, white="D10 E10", to_play=1)
    with pytest.raises(IllegalMove, match="suicide"):
        cyl.play(s, "F10")
    # Black may play there: it captures the two white stones.
    s = position(cyl, black=black, white="D10 E10", to_play=0)
    s = cyl.play(s, "F10")
    assert s.captures == (2, 0)


def test_a_capture_that_would_otherwise_be_suicide_is_allowed():
    # E10's neighbours are all black, but D10 (black) has E10 as its last liberty.
    s = position(cyl, black="D10 F10 E9 E11", white="C10 D9 D11", to_play=1)
    s = cyl.play(s, "E10")
    assert stones(cyl, s, 2) == {"C10", "D9", "D11", "E10"}
    assert "D10" not in stones(cyl, s, 1) and s.captures == (0, 1)


# ---------------------------------------------------------------- ko and superko
def test_simple_ko():
    # White C5 has one liberty, D5, where Black's stone would itself have one liberty, C5.
    s = position(go9, black="C4 B5 C6", white="D4 E5 D6 C5")
    s = go9.play(s, "D5")  # black captures C5
    assert s.captures == (1, 0)
    with pytest.raises(IllegalMove, match="superko"):
        go9.play(s, "C5")  # the immediate recapture repeats the position
    assert "C5" not in go9.legal_moves(s)
    s = play(go9, s, "H8 H2")  # a ko threat and its answer elsewhere
    s = go9.play(s, "C5")  # now White may retake: the position is new
    assert s.captures == (1, 1)


def test_superko_refuses_a_triple_ko_cycle():
    # Three independent kos on the edges of a 9x9 board:
    #   K1: a=B1, b=C1; black walls A1 B2, white walls D1 C2; White stone on B1.
    #   K2: a=F1, b=G1; black walls E1 F2, white walls H1 G2; Black stone on G1.
    #   K3: a=B9, b=C9; black walls A9 B8, white walls D9 C8; White stone on B9.
    s0 = position(go9, black="A1 B2 E1 F2 G1 A9 B8", white="D1 C2 B1 H1 G2 D9 C8 B9")
    s = play(go9, s0, "C1 F1 C9 B1 G1")  # each side takes a ko in turn: 5 captures
    assert s.captures == (3, 2)
    # White's capture at B9 would rebuild the starting position. It is not an immediate
    # recapture (Black's last move was on G1, another ko), so only superko forbids it.
    assert go9.action_to_move(s, s.last_action) == "G1"
    with pytest.raises(IllegalMove, match="superko"):
        go9.play(s, "B9")
    assert "B9" not in go9.legal_moves(s)
    # the position it would make is indeed the start
    board = s0.board.copy()
    assert board[go9.parse_point("B9")] == 2 and s.board[go9.parse_point("C9")] == 1


def test_positional_superko_refuses_a_non_capturing_move():
    # Before Black's B1 (P0), Black A1 D1 C2 and White C1 A2 B2:
    #   2  O O X . .      Black B1 takes C1; White C1 takes back the two stones A1 B1;
    #   1  X . O X .      Black A1, capturing nothing, would rebuild P0 (with the other side
    #      A B C D E      to move: superko here is positional, not situational).
    # The kernel checks a non-capturing move only on a point a capture emptied, and only
    # when the position is not new (its stone count no higher than any earlier one's): this
    # is that case, compared move by move with the reference's legal sets.
    ref = RefGo(neighbours(go5), 100)
    s = go5.initial_state()
    for move in "A1 A2 D1 B2 C2 C1 B1 C1".split():
        assert go5.legal_actions(s).tolist() == ref.legal(), move
        action = go5.parse_point(move)
        s = go5.apply(s, action)
        ref.play(action)
    assert stones(go5, s, 1) == {"D1", "C2"} and stones(go5, s, 2) == {"C1", "A2", "B2"}
    assert s.captures == (1, 2) and go5.to_play(s) == 0
    a1 = go5.parse_point("A1")
    assert ref.try_move(a1) == "superko"
    with pytest.raises(IllegalMove, match="superko"):
        go5.play(s, "A1")
    assert "A1" not in go5.legal_moves(s)
    assert go5.legal_actions(s).tolist() == ref.legal()
    # B1 (it captures C1 again) makes a new position: legal
    assert stones(go5, go5.play(s, "B1"), 2) == {"A2", "B2"}


def test_superko_uses_a_given_history():
    # The position after White's A1 is declared as seen before: A1 is refused, B1 is not.
    s = position(go5, to_play=1)
    seen = go5.position_hash(go5.play(s, "A1"))
    s = position(go5, to_play=1, history=(seen,))
    with pytest.raises(IllegalMove, match="superko"):
        go5.play(s, "A1")
    assert go5.play(s, "B1").ply == 1


# ---------------------------------------------------------------- game end, handicap, resign
def test_two_passes_end_the_game_and_tromp_taylor_scores_it():
    s = play(go5, go5.initial_state(), "C3 pass pass")
    assert go5.is_terminal(s) and s.end_reason == "passes"
    assert not go5.legal_mask(s).any() and len(go5.legal_actions(s)) == 0
    # Black's one stone owns the whole 5x5 board: territory 24 + 0 prisoners vs 0 + 7.5
    assert list(go5.returns(s)) == [1.0, -1.0]
    with pytest.raises(IllegalMove, match="game is over"):
        go5.play(s, "A1")


def test_a_pass_between_stones_does_not_end_the_game():
    s = play(go5, go5.initial_state(), "pass C3 pass")
    assert not go5.is_terminal(s) and s.passes == 1


def test_handicap_is_whites_opening_passes():
    g = make_game("stereo_go", board="9x9", handicap=2)
    s = g.initial_state()
    s = play(g, s, "C3 G7")
    assert g.to_play(s) == 0 and s.handicap_left == 0  # Black's third stone comes next
    s = play(g, s, "E5")
    assert g.to_play(s) == 1
    s = play(g, s, "D4")
    assert g.to_play(s) == 0 and stones(g, s, 1) == {"C3", "G7", "E5"}


def test_handicap_passes_do_not_count_toward_the_two_passes():
    g = make_game("stereo_go", board="9x9", handicap=1)
    s = g.play(g.initial_state(), "C3")  # White's automatic pass follows
    assert g.to_play(s) == 0 and s.passes == 0 and not g.is_terminal(s)
    s = g.play(s, "pass")  # Black passes: one pass; then White ...
    assert g.to_play(s) == 1 and not g.is_terminal(s)
    s = g.play(s, "pass")  # ... and White's real pass ends the game
    assert g.is_terminal(s)
    # a Black pass during the handicap phase counts, the automatic pass after it does not
    s = play(g, g.initial_state(), "pass")
    assert g.to_play(s) == 0 and s.passes == 1
    s = g.play(s, "pass")
    assert g.is_terminal(s) and s.end_reason == "passes"


def test_resignation():
    s = play(go9, go9.initial_state(), "E5 C3")
    with pytest.raises(IllegalMove, match="resign is not an action"):
        go9.move_to_action(s, "resign")
    r = go9.play(s, "resign")  # Black to move resigns
    assert go9.is_terminal(r) and r.end_reason == "resign"
    assert list(go9.returns(r)) == [-1.0, 1.0]
    r = go9.resign(s, player=1)
    assert list(go9.returns(r)) == [1.0, -1.0]
    with pytest.raises(IllegalMove):
        go9.resign(r)
    with pytest.raises(IllegalMove):
        go9.resign(s, player=2)
    data = go9.to_json(r)
    assert go9.to_json(go9.from_json(data)) == data


def test_move_cap_ends_the_game():
    g = make_game("stereo_go", board="9x9", max_moves=6)
    s = play(g, g.initial_state(), "E5 D5 pass E4 D4 F5")
    assert g.is_terminal(s) and s.end_reason == "move_cap" and g.spec.max_length == 6
    assert make_game("stereo_go").spec.max_length == 2 * 359


# ---------------------------------------------------------------- scoring
# 5x5, black wall on column C, white wall on column D, White stone dead in Black's area:
#   5 . . X O .
#   4 . O X O .
#   3 . . X O .
#   2 . . X O .
#   1 . . X O .
SCORE_BOARD = [". . X O .", ". O X O .", ". . X O .", ". . X O .", ". . X O ."]


def score_state(game_rules: str, captures=(0, 0)):
    g = make_game("stereo_go", board="5x5", rules=game_rules)
    return g, g.state_from_board(SCORE_BOARD, captures=captures)


def test_territory_scoring_with_and_without_dead_stones():
    g, s = score_state("territory", captures=(2, 1))
    alive = g.score(s)
    # B2 region (A1..B5 minus B4) touches the white stone on B4 too: not territory.
    assert (alive.black_territory, alive.white_territory) == (0, 5)
    assert (alive.black, alive.white) == (0 + 2, 5 + 1)
    dead = g.score(s, dead=["B4"])
    assert dead.dead_white == 1 and dead.black_territory == 10
    assert (dead.black, dead.white) == (10 + 2 + 1, 5 + 1)
    assert dead.margin == 13 - 6 - 7.5 and dead.winner == 1 and dead.result() == "W+0.5"


def test_area_scoring_with_and_without_dead_stones():
    g, s = score_state("area")
    alive = g.score(s)
    assert (alive.black, alive.white) == (5 + 0, 6 + 5)
    dead = g.score(s, dead=["B4"])
    assert (dead.black, dead.white) == (5 + 10, 5 + 5)
    assert dead.margin == 15 - 10 - 7.5 and dead.result() == "W+2.5"
    assert g.score(s, rules="territory").white == 5
    with pytest.raises(IllegalMove):
        g.score(s, dead=["A1"])  # not a stone
    with pytest.raises(IllegalMove):
        g.score(s, rules="chinese")


def cylinder_split(black_on_ring_11: str) -> tuple:
    """A cylinder split between the colours along rings 10-12: Black holds the north, White
    the south; meridians in ``black_on_ring_11`` push Black's wall one ring further south."""
    black, white = [], []
    for m in "ABCDEFGHIJKLMNOPQ":
        if m in black_on_ring_11:
            black.append(f"{m}11")
            white.append(f"{m}12")
        else:
            black.append(f"{m}10")
            white.append(f"{m}11")
    return " ".join(black), " ".join(white)


def test_area_komi_arithmetic_of_the_rules_file():
    """359 points, no neutral point: 183 black loses by 1/4 stone, 184 wins (rules note)."""
    g = make_game("stereo_go", rules="area")
    s = position(g, *cylinder_split("ABCDEFGHIJKL"))
    score = g.score(s)
    assert (score.black, score.white) == (183, 176)
    assert score.margin == -0.5 and score.result() == "W+0.5"  # half a point = 1/4 stone
    s = position(g, *cylinder_split("ABCDEFGHIJKLM"))
    score = g.score(s)
    assert (score.black, score.white) == (184, 175) and score.result() == "B+1.5"
    s = g.play(g.play(s, "pass"), "pass")  # the same counted by the end of a game
    assert list(g.returns(s)) == [1.0, -1.0]


def test_end_of_game_score_uses_the_configured_rules():
    for rules, expected in (("territory", [-1.0, 1.0]), ("area", [1.0, -1.0])):
        g = make_game("stereo_go", board="5x5", rules=rules, komi=0.5)
        # area: 5 stones + 10 points vs 5 + 5; territory: 10 vs 5 + 20 prisoners
        s = g.state_from_board([". . X O ."] * 5, captures=(0, 20))
        s = play(g, s, "pass pass")
        assert list(g.returns(s)) == expected, rules


# ---------------------------------------------------------------- perft and a reference
def neighbours(game: StereoGo) -> list[list[int]]:
    b = game.board
    return [[int(q) for q in b.nbr[p] if q >= 0] for p in range(b.n_points)]


def engine_perft(game, state, depth):
    if depth == 0:
        return 1
    return sum(engine_perft(game, game.apply(state, int(a)), depth - 1)
               for a in game.legal_actions(state))


def reference_perft(ref: RefGo, depth):
    if depth == 0:
        return 1
    total = 0
    for a in ref.legal():
        child = copy.deepcopy(ref)
        child.play(a)
        total += reference_perft(child, depth - 1)
    return total


def test_perft_from_the_empty_board():
    assert engine_perft(go5, go5.initial_state(), 1) == 26
    assert engine_perft(go5, go5.initial_state(), 2) == 26 * 25 + 1  # 25*25 + pass then 26
    assert engine_perft(go5, go5.initial_state(), 3) == 15650
    assert reference_perft(RefGo(neighbours(go5), 50), 2) == 651
    # the cylinder: 359 points; after a stone 358 + pass; after a pass 359 + pass
    assert engine_perft(cyl, cyl.initial_state(), 2) == 359 * 359 + 360


# a seeded random 5x5 game (22 stones, one capture)
PERFT_MOVES = "E3 D4 A4 B4 A5 D5 B2 A2 E5 C5 C3 B3 B5 C1 B1 D3 D2 E1 A1 C4 D1 E4"


def test_perft_on_a_fixed_middle_game():
    s = play(go5, go5.initial_state(), PERFT_MOVES)
    ref = RefGo(neighbours(go5), 50)
    for move in PERFT_MOVES.split():
        ref.play(go5.parse_point(move))
    assert sorted(ref.board) == sorted(np.flatnonzero(s.board).tolist())
    assert s.captures == (0, 1)
    assert engine_perft(go5, s, 2) == reference_perft(ref, 2) == 17
    assert engine_perft(go5, s, 3) == reference_perft(ref, 3) == 73


def play_against_reference(game: StereoGo, seed: int, plies: int) -> int:
    """A seeded random game played by the engine and the reference side by side."""
    rng = random.Random(seed)
    s = game.initial_state()
    ref = RefGo(neighbours(game), game.max_moves)
    checked = 0
    for _ in range(plies):
        legal = game.legal_actions(s).tolist()
        assert legal == ref.legal(), f"legal moves differ at ply {s.ply}"
        if not legal:
            break
        stones_only = [a for a in legal if a != game.n_points]
        a = rng.choice(stones_only) if stones_only and rng.random() < 0.97 else game.n_points
        s = game.apply(s, a)
        ref.play(a)
        board = {p: "XO"[int(v) - 1] for p, v in enumerate(s.board) if v}
        assert board == ref.board
        assert s.captures == (ref.captures["X"], ref.captures["O"])
        checked += 1
    if game.is_terminal(s) and game.config.rules == "area":
        assert (int(s.meta[10]), int(s.meta[11])) == ref.area()
    return checked


@pytest.mark.parametrize("board", ["5x5", "9x9"])
def test_random_games_agree_with_the_reference(board):
    game = make_game("stereo_go", board=board, rules="area")
    for seed in range(2):
        assert play_against_reference(game, seed, 200) > 0


def test_random_cylinder_game_agrees_with_the_reference():
    assert play_against_reference(make_game("stereo_go", rules="area"), 5, 120) == 120


@pytest.mark.slow
@pytest.mark.parametrize("board,games", [("5x5", 40), ("7x7", 30), ("9x9", 20), ("cylinder", 3)])
def test_many_random_games_agree_with_the_reference(board, games):
    game = make_game("stereo_go", board=board, rules="area")
    for seed in range(games):
        play_against_reference(game, 100 + seed, 10_000)  # whole games, to the end


# ---------------------------------------------------------------- bad input
def test_bad_positions_and_moves_are_refused():
    with pytest.raises(InvalidState, match="without liberties"):
        go5.state_from_board(["XO...", "O....", ".....", ".....", "....."])
    with pytest.raises(InvalidState):
        go5.state_from_board(["XO..", "....."])
    with pytest.raises(InvalidState):
        go5.state_from_board(["XZ...", ".....", ".....", ".....", "....."])
    with pytest.raises(IllegalMove, match="occupied"):
        play(go5, go5.initial_state(), "C3 C3")
    with pytest.raises(IllegalMove, match="out of range"):
        go5.apply(go5.initial_state(), 26)
    with pytest.raises(IllegalMove, match="integer"):
        go5.apply(go5.initial_state(), np.float64(3.0))
    for huge in (2**70, -(2**70), np.uint64(2**63 + 5), np.int8(-3)):
        with pytest.raises(IllegalMove, match="out of range"):
            go5.apply(go5.initial_state(), huge)
    with pytest.raises(InvalidState):
        go5.state_from_board(["....."] * 5, captures=(-1, 0))
    with pytest.raises(InvalidState):
        go5.state_from_board(["....."] * 5, history=(2**64,))
    with pytest.raises(InvalidState):
        go5.state_from_board(["....."] * 5, to_play=2)
    with pytest.raises(IllegalMove):
        go5.transform_action(0, 26)
    with pytest.raises(ValueError):
        go5.transform_action(8, 0)


def test_config_is_validated():
    from envs import ConfigError

    for bad in ({"board": "4x4"}, {"board": "9x8"}, {"board": "hex"}, {"rules": "chinese"},
                {"komi": 7.3}, {"handicap": 10}, {"handicap": -1}, {"max_moves": -5}):
        with pytest.raises(ConfigError):
            make_game("stereo_go", **bad)
    assert make_game("stereo_go", komi=6).config.komi == 6.0


@pytest.mark.slow
def test_long_small_board_games_exercise_superko_against_the_reference():
    """5x5 games of up to 300 moves repeat positions often: compare every legal set, and make
    sure superko refusals of non-capturing moves (the kernel's shortcut cases) occurred."""
    game = make_game("stereo_go", board="5x5", rules="area", max_moves=300)
    nb = neighbours(game)
    refused = {"capturing": 0, "non-capturing": 0}
    for seed in range(150):
        rng = random.Random(seed)
        s = game.initial_state()
        ref = RefGo(nb, 300)
        while not game.is_terminal(s):
            legal = game.legal_actions(s).tolist()
            assert legal == ref.legal(), (seed, s.ply)
            for p in range(25):
                if ref.try_move(p) == "superko":
                    board = dict(ref.board)
                    board[p] = ref.to_play
                    other = "O" if ref.to_play == "X" else "X"
                    captures = any(
                        board.get(q) == other and not ref.chain(board, q)[1] for q in nb[p]
                    )
                    refused["capturing" if captures else "non-capturing"] += 1
            stones_only = [a for a in legal if a != 25]
            a = rng.choice(stones_only) if stones_only and rng.random() < 0.95 else 25
            s = game.apply(s, a)
            ref.play(a)
    assert refused["capturing"] > 0 and refused["non-capturing"] > 0, refused


# ---------------------------------------------------------------- resuming after two passes
def test_resume_after_two_passes_continues_with_the_superko_history():
    # Black takes a ko at D5, both pass, play resumes: White (to move after Black's pass)
    # may not retake at C5, because that would repeat the position before the capture.
    s = position(go9, black="C4 B5 C6", white="D4 E5 D6 C5")
    s = play(go9, s, "D5 pass pass")
    assert go9.is_terminal(s) and s.end_reason == "passes"
    r = go9.resume(s)
    assert not go9.is_terminal(r) and r.end_reason is None and r.passes == 0
    assert go9.to_play(r) == 1 and r.ply == s.ply and r.captures == s.captures
    assert list(go9.returns(r)) == [0.0, 0.0]
    assert np.array_equal(r.history, s.history) and np.array_equal(r.board, s.board)
    with pytest.raises(IllegalMove, match="superko"):
        go9.play(r, "C5")
    assert "C5" not in go9.legal_moves(r) and "pass" in go9.legal_moves(r)
    r = go9.play(r, "pass")  # one pass after resuming does not end the game ...
    assert not go9.is_terminal(r) and r.passes == 1 and go9.to_play(r) == 0
    r = play(go9, r, "H8 pass pass")  # ... two more do, and the new end is scored again
    assert go9.is_terminal(r) and r.end_reason == "passes" and r.ply == s.ply + 4
    assert go9.from_json(go9.to_json(go9.resume(s))) == go9.resume(s)


def test_resume_is_refused_unless_the_game_ended_by_passes():
    live = play(go5, go5.initial_state(), "C3 pass")
    with pytest.raises(IllegalMove, match="two passes"):
        go5.resume(live)
    with pytest.raises(IllegalMove, match="two passes"):
        go5.resume(go5.resign(live))
    capped = make_game("stereo_go", board="5x5", max_moves=3)
    ended = play(capped, capped.initial_state(), "C3 pass pass")
    assert ended.end_reason == "passes"
    with pytest.raises(IllegalMove, match="move cap"):
        capped.resume(ended)
