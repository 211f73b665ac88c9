"""Fang Qi shapes, checked through placements on hand-built positions.

Each test places one piece and reads what it earned: ``owed`` after the placement is the value
of the shapes it formed (the placer keeps the turn while ``owed > 0``).
"""

from __future__ import annotations

import pytest

from envs.fangqi import FangQi
from envs.fangqi.board import POINT_INDEX, shape_value
from envs.fangqi.serialize import parse_board_string, parse_diagram

GAME = FangQi()

EMPTY_ROWS = ". . . . . .\n" * 6


def board(*points: str, white: tuple[str, ...] = ()) -> str:
    """A diagram with Black on ``points`` and White on ``white``."""
    cells = {p: "B" for p in points} | {p: "W" for p in white}
    rows = []
    for rank in range(6, 0, -1):
        rows.append(f"{rank} " + " ".join(cells.get(f + str(rank), ".") for f in "abcdef"))
    return "\n".join(rows)


def earned(points: tuple[str, ...], move: str, owed: int = 0) -> int:
    """Extra placements Black is owed after placing ``move`` with ``points`` already Black."""
    state = GAME.position(board(*points), "place", "black", owed=owed)
    after = GAME.play(state, move)
    assert after.to_play == (0 if after.owed else 1)
    return after.owed


def test_lone_piece_forms_nothing_and_the_turn_passes():
    state = GAME.play(GAME.initial_state(), "c3")
    assert (state.to_play, state.owed) == (1, 0)


def test_big_square_is_worth_one():
    assert earned(("a1", "a2", "b2"), "b1") == 1


def test_two_squares_from_one_placement():
    assert earned(("a1", "a2", "b1", "c1", "c2"), "b2") == 2


def test_four_squares_around_one_point():
    block = ("b2", "c2", "d2", "b3", "d3", "b4", "c4", "d4")
    assert earned(block, "c3") == 4


def test_square_of_the_other_colour_does_not_count():
    state = GAME.position(board("a1", "a2", white=("b2",)), "place", "black")
    assert GAME.play(state, "b1").owed == 0


@pytest.mark.parametrize(
    "points, move, value",
    [
        (("a1", "b2"), "c3", 1),  # diagonal of three from a1
        (("f1", "e2"), "d3", 1),  # from f1, on the other long diagonal
        (("f6", "e5"), "d4", 1),  # from f6
        (("a6", "b5"), "c4", 1),  # from a6
        (("b2", "c3"), "a1", 1),  # the corner piece itself completes the run
        (("a1", "b2", "c3"), "d4", 2),  # extending three to four: worth 2, not 1
        (("a1", "b2", "d4"), "c3", 2),  # filling the middle of a run of four
        (("a1", "b2", "c3", "d4"), "e5", 3),  # five
        (("a1", "b2", "c3", "d4", "e5"), "f6", 4),  # six, counted once
        (("a1", "b2", "c3", "e5", "f6"), "d4", 4),  # six closed in the middle, counted once
        (("a1", "b2", "d4", "e5"), "f6", 1),  # run of three from f6; the a1 run is only 2
        (("b2", "c3"), "d4", 0),  # not starting on a corner
        (("a1", "c3", "d4"), "e5", 0),  # the run from a1 is broken at b2
        (("a1", "b2", "c3"), "e5", 0),  # e5 is not in the run (d4 empty)
        (("a1", "b2"), "c2", 0),  # not on the diagonal
    ],
)
def test_corner_diagonals(points, move, value):
    assert earned(points, move) == value


def test_runs_of_the_other_colour_break_a_diagonal():
    state = GAME.position(board("a1", "b2", "d4", white=("c3",)), "place", "black")
    assert GAME.play(state, "e5").owed == 0


@pytest.mark.parametrize(
    "line, move, value",
    [
        (("a2", "b2", "c2", "d2", "e2"), "f2", 3),  # rank 2: inner
        (("a5", "b5", "c5", "d5", "f5"), "e5", 3),  # rank 5: inner
        (("b1", "b2", "b3", "b4", "b5"), "b6", 3),  # file b: inner
        (("e1", "e2", "e3", "e4", "e6"), "e5", 3),  # file e: inner
        (("a1", "b1", "c1", "d1", "e1"), "f1", 0),  # rank 1: edge, no dragon
        (("a6", "b6", "c6", "d6", "e6"), "f6", 0),  # rank 6: edge
        (("a1", "a2", "a3", "a4", "a5"), "a6", 0),  # file a: edge
        (("f2", "f3", "f4", "f5", "f6"), "f1", 0),  # file f: edge
    ],
)
def test_dragons_only_on_inner_lines(line, move, value):
    assert earned(line, move) == value


def test_shapes_from_one_piece_add_up():
    # c3 completes rank 3 (dragon, 3), squares b2-c3 and c2-d3 (1 + 1) and a1-b2-c3 (1).
    points = ("a1", "b2", "c2", "d2", "a3", "b3", "d3", "e3", "f3")
    assert earned(points, "c3") == 6


def test_two_dragons_cross():
    points = ("a3", "b3", "d3", "e3", "f3", "c1", "c2", "c4", "c5", "c6")
    assert earned(points, "c3") == 6


def test_full_diagonal_plus_dragon_plus_squares():
    # d4 closes a1-f6 (4), file d (3), squares c3-d4 and d4-e5 (1 + 1).
    points = ("a1", "b2", "c3", "e5", "f6", "d1", "d2", "d3", "d5", "d6", "c4", "e4")
    assert earned(points, "d4") == 4 + 3 + 2


def test_shape_value_matches_a_brute_force_count_on_every_point():
    """shape_value against a direct enumeration of the shapes, on a few dense boards."""
    from fangqi_reference import value_formed

    diagrams = [
        "BBBBB.\nB.BBBB\nBBBB.B\nBBB.BB\n.BBBBB\nBBBBBB",
        "BWBWBW\nWBWBWB\nBWBWBW\nWBWBWB\nBWBWBW\nWBWBWB",
        "BBB..B\nBBBB.B\nBB.BBB\n.BBBB.\nBBBBBB\nB.B.BB",
    ]
    for diagram in diagrams:
        text = parse_diagram(diagram)
        black, _ = parse_board_string(text.replace("W", "."))
        ref_board = {name: "B" for name, p in POINT_INDEX.items() if text[p] == "B"}
        for name, p in POINT_INDEX.items():
            if text[p] == "B":
                assert shape_value(black, p) == value_formed(ref_board, "B", name), name
