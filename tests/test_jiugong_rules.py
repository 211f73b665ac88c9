"""Jiugong rules: hand-built positions for every rule, perft counts, draws, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envs import IllegalMove, InvalidState, make_game
from envs.jiugong import MAX_PLIES, NORTH, POINT_NAMES, SOUTH

game = make_game("jiugong")


def position(diagram: str, to_play: str = "south", shared_locked: bool = False):
    """A state from a 3-row diagram, top row (rank 3) first: S, N, X (shared), '.'."""
    rows = diagram.split()
    board = "".join(rows[::-1])  # a1..c1, a2..c2, a3..c3
    return game.from_json({"board": board, "to_play": to_play, "shared_locked": shared_locked})


def play(moves: str, state=None):
    state = state if state is not None else game.initial_state()
    for move in moves.split():
        state = game.play(state, move)
    return state


# ---------------------------------------------------------------- reference implementation
def reference_moves(board: str, to_play: str, locked: bool) -> list[tuple[int, int, bool]]:
    """A deliberately naive move generator over a 9-character string, for perft."""
    own = "S" if to_play == "south" else "N"
    out = []
    for f in range(9):
        if board[f] != own and not (board[f] == "X" and not locked):
            continue
        r, c = divmod(f, 3)
        for rr, cc in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if 0 <= rr < 3 and 0 <= cc < 3 and board[rr * 3 + cc] == ".":
                out.append((f, rr * 3 + cc, board[f] == "X"))
    return out


def reference_perft(board: str, to_play: str, locked: bool, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for f, t, shared in reference_moves(board, to_play, locked):
        b = list(board)
        b[t], b[f] = b[f], "."
        other = "north" if to_play == "south" else "south"
        total += reference_perft("".join(b), other, shared, depth - 1)
    return total


def engine_perft(state, depth: int) -> int:
    if depth == 0:
        return 1
    if game.is_terminal(state):
        return 0
    actions = game.legal_actions(state)
    return sum(engine_perft(game.apply(state, int(a)), depth - 1) for a in actions)


# Counts of move sequences from the start position (no game ends within 8 plies by a draw).
PERFT_FROM_START = {1: 2, 2: 3, 3: 8, 4: 27, 5: 56, 6: 122}


@pytest.mark.parametrize("depth,count", PERFT_FROM_START.items())
def test_perft_from_start(depth, count):
    assert engine_perft(game.initial_state(), depth) == count
    assert reference_perft("SSS..XNNN", "south", True, depth) == count


def test_perft_from_midgame_agrees_with_reference():
    state = position("N.N  SXN  S.S", "north", False)
    for depth in range(1, 6):
        assert engine_perft(state, depth) == reference_perft("S.SSXNN.N", "north", False, depth)


# ---------------------------------------------------------------- start and moves
def test_start_position():
    state = game.initial_state()
    assert game.to_json(state)["board"] == "SSS..XNNN"
    assert game.to_play(state) == SOUTH
    assert game.legal_moves(state) == ["a1-a2", "b1-b2"]


def test_first_move_may_not_use_shared_piece():
    state = game.initial_state()
    with pytest.raises(IllegalMove, match="first move"):
        game.play(state, "c2-b2")


def test_shared_piece_free_after_an_ordinary_move():
    state = play("a1-a2")
    assert "c2-b2" in game.legal_moves(state)  # North may use it at once


def test_shared_piece_locked_right_after_a_shared_move():
    state = play("a1-a2 c2-b2")  # North moved the shared piece
    assert game.to_play(state) == SOUTH
    assert not any(m.startswith("b2-") for m in game.legal_moves(state))
    with pytest.raises(IllegalMove, match="locked"):
        game.play(state, "b2-c2")
    state = play("b1-a1", state)  # South moves its own piece ...
    # ... so North may use the shared piece again.
    assert game.to_json(state)["shared_locked"] is False
    assert "b2-b1" in game.legal_moves(state)


def test_steps_are_orthogonal_to_empty_points_only():
    state = position("NNN  ..X  SSS")
    with pytest.raises(IllegalMove, match="adjacent"):
        game.play(state, "a1-b2")  # diagonal
    with pytest.raises(IllegalMove, match="adjacent"):
        game.play(state, "a1-a3")  # jump
    with pytest.raises(IllegalMove, match="occupied"):
        game.play(state, "b1-c1")
    with pytest.raises(IllegalMove, match="opponent"):
        game.play(state, "a3-a2")
    with pytest.raises(IllegalMove, match="no piece"):
        game.play(state, "a2-b2")


def test_shared_piece_moves_either_way():
    state = position("N.N  NX.  SSS", "south", False)
    assert "b2-b3" in game.legal_moves(state) and "b2-c2" in game.legal_moves(state)
    after = game.play(state, "b2-c2")
    assert game.to_json(after)["board"] == "SSSN.XN.N"
    assert game.to_json(after)["shared_locked"] is True


# ---------------------------------------------------------------- end of the game
def test_no_legal_move_loses_at_once():
    # North to move: its pieces are walled in by a2, b2 and the shared piece, which is blocked.
    state = position("NNN  SSX  ..S", "north", False)
    assert game.is_terminal(state)
    assert game.returns(state).tolist() == [1.0, -1.0]
    assert game.winner(state) == SOUTH
    assert not game.legal_mask(state).any()


def test_locked_shared_piece_does_not_count_as_a_move():
    # South's own pieces are blocked; only the shared piece could move, but it is locked.
    state = position("N.N  SX.  SSN", "south", True)
    assert game.is_terminal(state) and game.winner(state) == NORTH
    unlocked = position("N.N  SX.  SSN", "south", False)
    assert not game.is_terminal(unlocked) and game.legal_moves(unlocked) == ["b2-c2", "b2-b3"]


def test_threefold_repetition_is_a_draw():
    # After "a1-a2" the position recurs every four plies; its third occurrence is a draw.
    state = play("a1-a2 b3-b2 a2-a1 b2-b3 a1-a2 b3-b2 a2-a1 b2-b3")
    assert not game.is_terminal(state)
    state = play("a1-a2", state)
    assert game.is_terminal(state)
    assert game.returns(state).tolist() == [0.0, 0.0]
    assert game.winner(state) is None


def test_200_plies_is_a_draw():
    data = {
        "board": "SS..SXNNN",
        "to_play": "south",
        "shared_locked": False,
        "ply": MAX_PLIES - 1,
        "history": [],
    }
    state = game.from_json(data)
    assert not game.is_terminal(state)
    state = game.apply(state, int(game.legal_actions(state)[0]))
    assert game.is_terminal(state) and not np.any(game.returns(state))


# ---------------------------------------------------------------- notation and bad input
@pytest.mark.parametrize("move", ["", "b1", "b1-", "b1-b2-b3", "d1-d2", "B1-B2", "b1 b2"])
def test_malformed_moves(move):
    with pytest.raises(IllegalMove, match="from-to"):
        game.play(game.initial_state(), move)


def test_move_on_finished_game():
    state = position("NNN  SSX  ..S", "north", False)
    with pytest.raises(IllegalMove, match="over"):
        game.play(state, "c3-c2")


@pytest.mark.parametrize(
    "data,message",
    [
        ({"board": "SSS..XNNN", "to_play": "east", "shared_locked": True}, "to_play"),
        ({"board": "SSS..XNN", "to_play": "south", "shared_locked": True}, "9 characters"),
        ({"board": "SSSS.XNNN", "to_play": "south", "shared_locked": True}, "3 'S'"),
        ({"board": "SSS..XNNN", "to_play": "south", "shared_locked": "yes"}, "shared_locked"),
        ({"board": "SSS..XNNN", "to_play": "south"}, "lacks"),
        ({"board": "SSS..XNNN", "to_play": "south", "shared_locked": True, "ply": -1}, "ply"),
        (
            {"board": "SSS..XNNN", "to_play": "south", "shared_locked": True, "history": ["a"]},
            "history",
        ),
    ],
)
def test_malformed_states(data, message):
    with pytest.raises(InvalidState, match=message):
        game.from_json(data)


def test_observation_is_from_the_movers_view():
    state = play("a1-a2")
    obs = game.observation(state)  # North to move
    assert obs[0].sum() == 3 and obs[0][2].tolist() == [1, 1, 1]  # own pieces on rank 3
    assert obs[1][1].tolist() == [1, 0, 0]  # South's piece on a2
    assert obs[2][1].tolist() == [0, 0, 1]  # shared on c2
    assert not obs[3].any()  # unlocked


def test_mirror_symmetry_maps_legal_masks():
    state = position("N.N  NX.  SSS", "south", False)
    mirrored = position("N.N  .XN  SSS", "south", False)
    obs, mask = game.apply_symmetry(
        1, game.observation(state), game.legal_mask(state).astype(np.float32)
    )
    assert np.array_equal(obs, game.observation(mirrored))
    assert np.array_equal(mask.astype(bool), game.legal_mask(mirrored))


def test_a_loss_on_the_200th_ply_beats_the_draw():
    data = {"board": ".SSS.XNNN", "to_play": "south", "shared_locked": False, "ply": MAX_PLIES - 1}
    state = game.play(game.from_json(data), "b1-b2")  # walls North in on the 200th ply
    assert game.to_json(state)["ply"] == MAX_PLIES
    assert game.is_terminal(state) and game.winner(state) == SOUTH


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10**6), max_size=60))
def test_invariants_along_any_game(choices):
    """Any sequence of legal moves keeps 3+3+1 pieces, the lock rule and the reference moves."""
    state = game.initial_state()
    for choice in choices:
        if game.is_terminal(state):
            break
        data = game.to_json(state)
        expected = reference_moves(data["board"], data["to_play"], data["shared_locked"])
        actions = game.legal_actions(state)
        assert len(actions) == len(expected)
        action = int(actions[choice % len(actions)])
        origin = game.action_to_move(state, action).split("-")[0]
        moved_shared = data["board"][POINT_NAMES.index(origin)] == "X"
        state = game.apply(state, action)
        after = game.to_json(state)
        assert sorted(after["board"]) == sorted("SSS..XNNN")
        assert after["shared_locked"] is moved_shared
        assert after["to_play"] != data["to_play"]
        assert after["ply"] == data["ply"] + 1


def test_time_out_passes_the_turn_and_clears_the_lock():
    state = play("a1-a2 c2-b2")  # South to move, shared piece locked
    after = game.time_out(state)
    data = game.to_json(after)
    assert data["to_play"] == "north" and data["shared_locked"] is False
    assert data["board"] == game.to_json(state)["board"] and data["ply"] == state.ply
    assert game.spec.turn_seconds == 60.0
    with pytest.raises(IllegalMove, match="over"):
        game.time_out(position("NNN  SSX  ..S", "north", False))


def test_endless_time_outs_end_in_a_draw():
    state = game.time_out(game.time_out(play("a1-a2")))  # back to the same position
    state = game.time_out(game.time_out(state))
    assert game.is_terminal(state) and game.winner(state) is None
