"""The Jiugong solver's table is exact: consistent with its children, mirror-symmetric."""

from __future__ import annotations

import numpy as np
import pytest

from envs import make_game
from envs.jiugong import MIRROR_ACTIONS, position_key
from envs.jiugong_solver import DRAW, LOSS, WIN, JiugongSolver, decode_key, get_solver

game = make_game("jiugong")


@pytest.fixture(scope="module")
def solver() -> JiugongSolver:
    return JiugongSolver.build()


def test_reachable_positions_and_start_value(solver):
    assert len(solver) == 7600
    assert solver.counts() == {"win": 1336, "loss": 580, "draw": 5684}
    assert str(solver.value(game.initial_state())) == "draw"


def test_every_value_agrees_with_its_children(solver):
    for state in solver.positions():
        value = solver.value(state)
        children = list(solver.move_values(state).values())
        if not children:
            assert (value.outcome, value.distance) == (LOSS, 0)
        elif value.outcome == WIN:
            wins = [c.distance for c in children if c.outcome == WIN]
            assert wins and min(wins) == value.distance
        elif value.outcome == LOSS:
            assert all(c.outcome == LOSS for c in children)
            assert max(c.distance for c in children) == value.distance
        else:
            assert value.outcome == DRAW and value.distance is None
            assert not any(c.outcome == WIN for c in children)
            assert any(c.outcome == DRAW for c in children)


def test_values_agree_under_the_mirror(solver):
    mirror = [(p // 3) * 3 + (2 - p % 3) for p in range(9)]
    checked = 0
    for key in solver.keys:
        board, to_play, locked = decode_key(int(key))
        mirrored = tuple(board[mirror[p]] for p in range(9))
        other = solver.index.get(position_key(mirrored, to_play, locked))
        if other is not None:
            i = solver.index[int(key)]
            assert solver.outcome[i] == solver.outcome[other]
            assert solver.distance[i] == solver.distance[other]
            checked += 1
    assert checked > 1000
    assert len(MIRROR_ACTIONS) == 24


def test_optimal_moves_win_against_anything(solver):
    """From every won position, always playing an optimal move wins within the distance."""
    rng = np.random.default_rng(0)
    won = [s for s in solver.positions() if solver.value(s).outcome == WIN]
    for state in won[::7]:
        winner = game.to_play(state)
        bound = solver.value(state).distance
        plies = 0
        while not game.is_terminal(state):
            if game.to_play(state) == winner:
                action = int(rng.choice(solver.optimal_actions(state)))
            else:
                action = int(rng.choice(game.legal_actions(state)))
            state = game.apply(state, action)
            plies += 1
        assert game.winner(state) == winner and plies <= bound


def test_cache_round_trip(tmp_path, solver):
    path = tmp_path / "table.npz"
    solver.save(path)
    loaded = JiugongSolver.load(path)
    assert (loaded.keys == solver.keys).all() and (loaded.outcome == solver.outcome).all()
    get_solver.cache_clear()
    assert len(get_solver(str(tmp_path / "new.npz"))) == 7600
    assert (tmp_path / "new.npz").exists()
    get_solver.cache_clear()


def test_unreachable_position_is_reported(solver):
    # North to move at the start can never happen: South always moves first.
    state = game.state_from_position((1, 1, 1, 0, 0, 3, 2, 2, 2), 1, True)
    with pytest.raises(KeyError, match="not reachable"):
        solver.value(state)
