"""Fang Qi rules on hand-built positions: placement, the pull, movement, captures, making room,
the win and both draw rules (``docs/rules/fangqi.md``)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core import IllegalMove, InvalidState
from envs.fangqi import FangQi, FangQiState
from envs.fangqi.state import (
    BLACK,
    CAPTURE,
    DRAW,
    OVER,
    PLACE,
    PULL,
    ROOM,
    STEP,
    WHITE,
)

GAME = FangQi()


def pos(diagram: str, phase: str, to_play: str = "black", **fields) -> FangQiState:
    return GAME.position(diagram, phase, to_play, **fields)


def play(state: FangQiState, *moves: str) -> FangQiState:
    for move in moves:
        state = GAME.play(state, move)
    return state


def legal(state: FangQiState) -> set[str]:
    return set(GAME.legal_moves(state))


# ---------------------------------------------------------------------------- placement
SQUARE_CORNER = """
6 . . . . . .
5 . . . . . .
4 . . . . . .
3 . . . . . .
2 B . B . . .
1 B B B . . .
"""


def test_black_places_first_and_players_alternate():
    state = GAME.initial_state()
    assert (state.phase, state.to_play) == (PLACE, BLACK)
    assert len(GAME.legal_moves(state)) == 36
    state = play(state, "c3")
    assert state.to_play == WHITE and state.hand_black == 29 and state.hand_white == 30
    state = play(state, "d4")
    assert state.to_play == BLACK


def test_extra_placements_chain():
    # An extra placement that forms two squares earns two more: owed 1 - 1 + 2 = 2.
    state = play(pos(SQUARE_CORNER, "place", owed=1), "b2")
    assert (state.to_play, state.owed) == (BLACK, 2)
    state = play(state, "f6")  # an extra placement forming nothing uses one up
    assert (state.to_play, state.owed) == (BLACK, 1)
    state = play(state, "f5")
    assert (state.to_play, state.owed) == (WHITE, 0)


def test_placement_on_an_occupied_point_is_refused():
    with pytest.raises(IllegalMove, match="occupied"):
        GAME.play(pos(SQUARE_CORNER, "place"), "a1")


FULL_BUT_A1 = """
6 W B W B W B
5 B W B W B W
4 W B W B W B
3 B W B W B W
2 B B W B W B
1 . B B W B W
"""


def test_board_fills_with_placements_owed():
    # a1 completes a square and the whole a1-f6 diagonal (1 + 4 owed), but the board is full:
    # what is owed is lost and Black pulls.
    state = play(pos(FULL_BUT_A1, "place"), "a1")
    assert (state.phase, state.to_play, state.owed) == (PULL, BLACK, 0)


def test_board_fills_with_a_white_placement_then_black_pulls():
    state = play(pos(FULL_BUT_A1, "place", "white"), "a1")
    assert (state.phase, state.to_play) == (PULL, BLACK)


BLACK_HAS_NO_HAND = """
6 W W . . . .
5 B B B B B B
4 B B B B B B
3 B B B B B B
2 B B B B B B
1 B B B B B B
"""


def test_a_side_without_pieces_in_hand_lets_the_other_keep_placing():
    state = pos(BLACK_HAS_NO_HAND, "place", "white")
    assert state.hand_black == 0
    state = play(state, "c6")
    assert (state.phase, state.to_play, state.owed) == (PLACE, WHITE, 0)
    state = play(state, "d6", "e6", "f6")
    assert state.phase == PULL


def test_owed_placements_are_lost_without_pieces_in_hand():
    diagram = """
    6 . B . . . .
    5 B B B B . .
    4 B B B B B B
    3 B B B B B B
    2 B B B B B B
    1 B B B B B B
    """
    state = pos(diagram, "place")
    assert state.hand_black == 1
    state = play(state, "a6")  # square a5-b6, but Black has nothing left to place
    assert (state.to_play, state.owed, state.hand_black) == (WHITE, 0, 0)
    state = play(state, "e5")
    assert state.to_play == WHITE


# ---------------------------------------------------------------------------- the pull
PULL_POSITION = """
6 W W B B B B
5 W W B B B B
4 B B W W W B
3 B W B W B W
2 W B W B W B
1 B W B W B W
"""


def test_pull_takes_loose_white_pieces_only():
    state = pos(PULL_POSITION, "pull")
    assert legal(state) == {
        "xc4",
        "xd4",
        "xe4",
        "xb3",
        "xd3",
        "xf3",
        "xa2",
        "xc2",
        "xe2",
        "xb1",
        "xd1",
        "xf1",
    }
    with pytest.raises(IllegalMove, match="iron"):
        GAME.play(state, "xa6")
    with pytest.raises(IllegalMove, match="White piece"):
        GAME.play(state, "xc6")


def test_white_moves_first_after_the_pull():
    state = play(pos(PULL_POSITION, "pull"), "xd4")
    assert (state.phase, state.to_play) == (STEP, WHITE)
    assert legal(state) == {"c4-d4", "e4-d4", "d3-d4"}
    assert state.no_capture == 0


def test_pull_without_loose_white_pieces_takes_any():
    diagram = """
    6 W W W W W W
    5 W W W W W W
    4 B B B B B B
    3 B B B B B B
    2 B B B B B B
    1 B B B B B B
    """
    state = pos(diagram, "pull")
    assert len(legal(state)) == 12
    state = play(state, "xc6")
    assert (state.phase, state.to_play) == (STEP, WHITE)


def test_pull_leaving_white_stuck_makes_black_make_room():
    state = play(pos(PULL_POSITION, "pull"), "xb3")  # b3's neighbours are all Black
    assert (state.phase, state.to_play) == (ROOM, BLACK)


PULL_THEN_SKIP = """
6 W W B B B B
5 W W B B B B
4 B B B B B B
3 B B B W B B
2 B B B B W W
1 B B B B W W
"""


def test_pull_then_making_room_then_a_skipped_white_turn():
    state = pos(PULL_THEN_SKIP, "pull")
    assert legal(state) == {"xd3"}  # the only loose White piece
    state = play(state, "xd3")
    assert (state.phase, state.to_play) == (ROOM, BLACK)
    assert len(legal(state)) == 27  # every Black piece is iron: any may go
    skipped = play(state, "xf6")  # frees nothing for White
    assert (skipped.phase, skipped.to_play) == (STEP, BLACK)
    freed = play(state, "xc6")  # next to b6
    assert (freed.phase, freed.to_play) == (STEP, WHITE)
    assert legal(freed) == {"b6-c6"}


# ---------------------------------------------------------------------------- movement
CAPTURE_POSITION = """
6 . . . . . .
5 W W . . . .
4 W W . . . W
3 . . . . . .
2 B B . . . .
1 B . B . . W
"""


def test_steps_go_one_point_orthogonally_to_an_empty_point():
    state = pos(CAPTURE_POSITION, "step")
    assert legal(state) == {
        "a2-a3",
        "b2-b3",
        "b2-c2",
        "b2-b1",
        "a1-b1",
        "c1-b1",
        "c1-d1",
        "c1-c2",
    }
    with pytest.raises(IllegalMove, match="one point horizontally or vertically"):
        GAME.play(state, "a2-b3")
    with pytest.raises(IllegalMove, match="one point"):
        GAME.play(state, "a2-a4")
    with pytest.raises(IllegalMove, match="opponent's"):
        GAME.play(state, "f1-e1")
    with pytest.raises(IllegalMove, match="occupied"):
        GAME.play(state, "a1-a2")
    with pytest.raises(IllegalMove, match="movement phase"):
        GAME.play(state, "d4")


def test_a_shape_formed_by_a_step_captures_loose_pieces_only():
    state = play(pos(CAPTURE_POSITION, "step", no_capture=7), "c1-b1")
    assert (state.phase, state.to_play, state.owed) == (CAPTURE, BLACK, 1)
    assert legal(state) == {"xf4", "xf1"}  # the a4-b5 square is iron
    with pytest.raises(IllegalMove, match="iron"):
        GAME.play(state, "xa4")
    with pytest.raises(IllegalMove, match="capture"):
        GAME.play(state, "c3-c4")
    state = play(state, "xf4")
    assert (state.phase, state.to_play, state.no_capture) == (STEP, WHITE, 0)
    assert state.black.bit_count() == 4 and state.white.bit_count() == 5


def test_moving_out_of_a_shape_and_back_forms_it_again():
    state = play(pos(CAPTURE_POSITION, "step"), "c1-b1", "xf4", "f1-f2", "b1-c1", "f2-f1")
    assert (state.phase, state.to_play) == (STEP, BLACK)
    state = play(state, "c1-b1")
    assert (state.phase, state.owed) == (CAPTURE, 1)


def test_a_step_forming_nothing_passes_the_turn():
    state = play(pos(CAPTURE_POSITION, "step", no_capture=7), "c1-d1")
    assert (state.phase, state.to_play, state.no_capture) == (STEP, WHITE, 8)


TWO_SQUARES_ONE_LOOSE = """
6 . . . . . .
5 W W . . . .
4 W W . . . .
3 . B . . . W
2 B . B . . .
1 B B B . . .
"""


def test_captures_beyond_the_loose_pieces_are_lost():
    state = play(pos(TWO_SQUARES_ONE_LOOSE, "step"), "b3-b2")
    assert (state.phase, state.owed) == (CAPTURE, 2)
    assert legal(state) == {"xf3"}
    state = play(state, "xf3")  # one capture made, the second is lost: only iron pieces remain
    assert (state.phase, state.to_play, state.owed, state.no_capture) == (STEP, WHITE, 0, 0)


def test_a_shape_with_no_loose_enemy_captures_nothing():
    diagram = TWO_SQUARES_ONE_LOOSE.replace(". W\n2", ". .\n2")
    state = play(pos(diagram, "step", no_capture=3), "b3-b2")
    # The forfeited captures do not reset the draw count.
    assert (state.phase, state.to_play, state.no_capture) == (STEP, WHITE, 4)


def test_iron_status_is_live():
    diagram = """
    6 . . . . W .
    5 W W . . . .
    4 W W . . . .
    3 . . . . . .
    2 B B . . . .
    1 B . B . . .
    """
    state = play(pos(diagram, "step", "white"), "b5-c5", "c1-b1")
    assert legal(state) == {"xa4", "xb4", "xa5", "xc5", "xe6"}


def test_capturing_the_last_piece_wins_at_once():
    diagram = """
    6 . . . . . .
    5 . . . . . .
    4 . . . . . .
    3 . B . . . W
    2 B . B . . .
    1 B B B . . .
    """
    state = play(pos(diagram, "step"), "b3-b2")
    assert state.owed == 2
    state = play(state, "xf3")
    assert GAME.is_terminal(state) and state.phase == OVER
    assert GAME.winner(state) == BLACK
    assert GAME.returns(state).tolist() == [1.0, -1.0]
    assert not GAME.legal_mask(state).any()
    with pytest.raises(IllegalMove, match="over"):
        GAME.play(state, "a1-a2")


# ---------------------------------------------------------------------------- making room
ROOM_GIVING = """
6 W W B . B B
5 W W B B B B
4 B B B B B B
3 B B B B B B
2 W W B B . .
1 W W B B . B
"""
ROOM_LOOSE = """
6 W W B B B B
5 W W B B B B
4 B B B B B B
3 B B B B B B
2 W W B B . .
1 W W B B . B
"""
ROOM_IRON = """
6 W W B B B B
5 W W B B B B
4 B B . B B B
3 B B B B B B
2 W W B B B B
1 W W B B B B
"""


def test_making_room_prefers_a_loose_piece_that_frees_the_opponent():
    state = pos(ROOM_GIVING, "room", no_capture=5)
    assert legal(state) == {"xc6"}  # f1 is loose too, but frees nothing
    with pytest.raises(IllegalMove, match="would not give the opponent a step"):
        GAME.play(state, "xf1")
    with pytest.raises(IllegalMove, match="iron"):
        GAME.play(state, "xc5")
    with pytest.raises(IllegalMove, match="your own"):
        GAME.play(state, "xa6")
    state = play(state, "xc6")
    assert (state.phase, state.to_play, state.no_capture) == (STEP, WHITE, 5)
    assert legal(state) == {"b6-c6"}


def test_making_room_with_any_loose_piece_when_none_frees_the_opponent():
    state = pos(ROOM_LOOSE, "room", no_capture=5)
    assert legal(state) == {"xf1"}
    state = play(state, "xf1")
    # White still cannot step: its turn is skipped and Black steps again; no turn is counted.
    assert (state.phase, state.to_play, state.no_capture) == (STEP, BLACK, 5)


def test_making_room_with_any_piece_when_all_are_iron():
    state = pos(ROOM_IRON, "room")
    moves = legal(state)
    assert len(moves) == 27 and all(GAME.play(state, m).phase == STEP for m in moves)
    assert play(state, "xc5").to_play == WHITE
    assert play(state, "xf1").to_play == BLACK


def test_a_step_that_leaves_the_opponent_stuck_leads_to_making_room():
    diagram = """
    6 W W B B B B
    5 W W B B B B
    4 B B . B B B
    3 B B B B B B
    2 W W B B B B
    1 W W B B B .
    """
    state = play(pos(diagram, "step"), "f2-f1")
    assert (state.phase, state.to_play) == (ROOM, BLACK)
    assert legal(state) == {"xf1"}  # the only loose piece (tier two)


def test_making_room_with_the_last_piece_loses():
    # Unreachable in play (no single point separates the 6x6 grid, so one piece can never wall
    # the opponent in), but the rule is coded: checked on a raw state.
    state = FangQiState(black=1 << 0, white=(1 << 36) - 1 - 1 - 2, phase=ROOM, to_play=BLACK)
    after = GAME.apply(state, 156 + 0)
    assert after.phase == OVER and GAME.winner(after) == WHITE


# ---------------------------------------------------------------------------- draws
SHUFFLE = """
6 . . . . . W
5 . . . . . .
4 . . . . . .
3 . . . . . .
2 . . . . . .
1 B . . . . .
"""


def test_sixty_turns_without_a_capture_draw():
    state = play(pos(SHUFFLE, "step", no_capture=58), "a1-b1")
    assert (state.phase, state.no_capture) == (STEP, 59)
    state = play(state, "f6-e6")
    assert state.phase == OVER and state.result == DRAW
    assert GAME.returns(state).tolist() == [0.0, 0.0] and GAME.winner(state) is None


def test_a_capture_on_the_sixtieth_turn_resets_the_count():
    state = play(pos(CAPTURE_POSITION, "step", no_capture=59), "c1-b1", "xf1")
    assert (state.phase, state.no_capture) == (STEP, 0)


def test_third_repetition_draws():
    state = pos(SHUFFLE, "step")
    cycle = ("a1-b1", "f6-e6", "b1-a1", "e6-f6")
    state = play(state, *cycle)
    assert state.history.count(state.key) == 2 and state.phase == STEP
    state = play(state, *cycle[:3])
    assert state.phase == STEP
    state = play(state, cycle[3])
    assert state.phase == OVER and state.result == DRAW


def test_a_removal_clears_the_repetition_history():
    state = play(pos(CAPTURE_POSITION, "step"), "c1-d1", "f4-f5", "d1-c1", "f5-f4")
    assert len(state.history) == 5
    state = play(state, "c1-b1", "xf1")
    assert state.history == (state.key,)


# ---------------------------------------------------------------------------- positions
def test_positions_the_rules_cannot_produce_are_refused():
    with pytest.raises(InvalidState, match="no legal step"):
        pos(ROOM_IRON, "step", "white")
    with pytest.raises(InvalidState, match="opponent has no legal step"):
        pos(CAPTURE_POSITION, "room")
    with pytest.raises(InvalidState, match="loose"):
        pos(
            ROOM_IRON.replace("6 W W B B", "6 . . B B").replace("5 W W", "5 . ."), "capture", owed=1
        )
    with pytest.raises(InvalidState, match="full"):
        pos(PULL_POSITION, "place")
    with pytest.raises(InvalidState, match="at most 30"):
        pos(ROOM_IRON.replace("W", "B"), "step")
    with pytest.raises(InvalidState, match="six"):
        pos("B . .", "place")
    with pytest.raises(InvalidState):
        GAME.from_json({"board": "." * 36, "phase": "place", "to_play": "black", "owed": -1})
    with pytest.raises(InvalidState):
        GAME.from_json({"board": "." * 36, "phase": "nope", "to_play": "black"})
    with pytest.raises(InvalidState):
        GAME.from_json({"board": "." * 36, "phase": "place", "to_play": "red"})
    with pytest.raises(InvalidState):
        GAME.from_json({"board": "." * 36, "phase": "place", "to_play": "black", "history": ["zz"]})


def test_render_shows_the_board_and_who_acts():
    text = GAME.render(play(pos(CAPTURE_POSITION, "step"), "c1-b1"))
    assert text.splitlines()[0] == "6 . . . . . ."
    assert text.splitlines()[5] == "1 B B . . . W"
    assert "black to capture (1 owed)" in text


def test_observation_shows_phase_owed_and_hands():
    state = play(pos(CAPTURE_POSITION, "step"), "b2-b3", "f4-f3", "b3-b2", "f3-f4")
    obs = GAME.observation(play(pos(SQUARE_CORNER, "place", owed=1), "b2"))
    assert obs.shape == (16, 6, 6) and obs.dtype == np.float32
    assert obs[5].all() and not obs[6:10].any()  # placement phase
    assert np.allclose(obs[10], 2 / 16)  # two placements owed
    assert np.allclose(obs[11], 24 / 30) and np.allclose(obs[12], 30 / 30)
    assert obs[15].all()  # Black to play
    assert obs[3].sum() == 6  # a1 b1 c1 a2 b2 c2 are iron
    obs = GAME.observation(state)
    assert obs[14].max() == 0.5  # the position is on the board for the second time


# ---------------------------------------------------------------------------- timer
def test_time_out_in_placement_passes_the_turn_and_loses_what_is_owed():
    state = GAME.time_out(pos(SQUARE_CORNER, "place", owed=2))
    assert (state.phase, state.to_play, state.owed, state.hand_black) == (PLACE, WHITE, 0, 25)
    no_hand = GAME.time_out(pos(BLACK_HAS_NO_HAND, "place", "white"))
    assert (no_hand.to_play, no_hand.phase) == (WHITE, PLACE)


def test_time_out_makes_owed_removals_with_the_lowest_point():
    state = GAME.time_out(pos(PULL_POSITION, "pull"))
    # b1 is the lowest loose White piece. Pulled, it leaves White stuck, so Black's making
    # room is made too: a1, the lowest loose Black piece next to a White one (a2).
    assert GAME.to_json(state)["board"][:6] == "..BWBW"
    assert (state.phase, state.to_play) == (STEP, WHITE)


def test_time_out_with_captures_owed():
    state = play(pos(TWO_SQUARES_ONE_LOOSE, "step"), "b3-b2")
    after = GAME.time_out(state)
    assert "W" not in GAME.to_json(after)["board"][12:18]  # f3 captured
    assert (after.phase, after.to_play) == (STEP, WHITE)


def test_time_out_in_movement_passes_the_turn():
    state = GAME.time_out(pos(SHUFFLE, "step", no_capture=3))
    assert (state.phase, state.to_play, state.no_capture) == (STEP, WHITE, 3)
    assert state.ply == 0  # a time-out is not an action
    state = GAME.time_out(state)
    assert state.to_play == BLACK and state.history.count(state.key) == 2
    state = GAME.time_out(GAME.time_out(state))
    assert state.phase == OVER and state.result == DRAW  # third time Black is about to step
    with pytest.raises(IllegalMove, match="over"):
        GAME.time_out(state)
