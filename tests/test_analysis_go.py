"""Go analysis: the ownership and score heads read as points of the board
(``Game.read_outcome``, ``agents.evaluator.network_outcome``) on hand-built 9x9 positions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agents.checkpoint import load_model
from agents.evaluator import network_outcome
from envs import make_game

REPO = Path(__file__).resolve().parent.parent
MASTER_9X9 = REPO / "checkpoints/stereo_go/board-9x9/stereo_go-iter0500.pt"


def walls_and_a_dead_stone(game):
    """Black walls off the left side on column E, White the right side on column F, then a
    lone Black stone at H5 deep in White's side: dead. White to move."""
    state = game.initial_state()
    for rank in range(1, 10):
        state = game.play(state, f"E{rank}")
        state = game.play(state, f"F{rank}")
    return game.play(state, "H5")


@pytest.fixture(scope="module")
def master():
    return load_model(MASTER_9X9).model.eval()


def test_dead_and_living_groups_point_the_right_way(master) -> None:
    game = make_game("stereo_go", board="9x9")
    state = walls_and_a_dead_stone(game)
    assert game.to_play(state) == 1  # White: +1 is White's
    outcome = network_outcome(master, game, state)
    assert outcome is not None
    own = outcome.ownership
    assert set(own) == {game.action_to_move(state, p) for p in range(81)}
    assert own["H5"] > 0.2  # the dead Black stone: White's
    assert own["E5"] < -0.5 and own["A5"] < 0  # Black's living wall and its side
    assert own["F5"] > 0.5 and own["J5"] > 0  # White's wall and its side
    assert all(-1.0 <= v <= 1.0 for v in own.values())
    # Black to move (a pass more): the walls seen the other way round.
    black = network_outcome(master, game, game.play(state, "pass"))
    assert black is not None
    assert black.ownership["E5"] > 0.5 and black.ownership["F5"] < -0.5


def test_read_outcome_averages_a_pole_and_scales_the_score() -> None:
    """The cylinder shows each pole as a whole row: its ownership is the row's mean; the
    score head's margin per point comes back in points."""
    game = make_game("stereo_go")
    rows, cols = game.board.grid_shape
    grid = np.zeros((rows, cols), dtype=np.float32)
    grid[0, :] = np.linspace(-1, 1, cols)  # the north pole's row
    grid[1, 0] = 0.75
    found = game.read_outcome(grid, 0.01)
    north = game.board.names[int(game.board.cell_point[0, 0])]
    assert found.ownership[north] == pytest.approx(0.0, abs=1e-6)
    assert found.ownership[game.board.names[int(game.board.cell_point[1, 0])]] == 0.75
    assert len(found.ownership) == game.board.n_points
    assert found.margin == pytest.approx(0.01 * game.board.n_points)
    assert make_game("jiugong").read_outcome(np.zeros((3, 3)), 0.0) is None


def test_levels_without_a_network_estimate_ownership_from_playouts() -> None:
    """A pure MCTS level has no heads: its ownership is the mean over random playouts (as
    Monte Carlo programs show it), every point in [-1, 1], the margin a number of points."""
    from agents.evaluator import playout_outcome

    game = make_game("stereo_go", board="9x9")
    state = walls_and_a_dead_stone(game)
    found = playout_outcome(game, state, np.random.default_rng(0), playouts=8)
    assert found is not None and len(found.ownership) == 81
    assert all(-1.0 <= v <= 1.0 for v in found.ownership.values())
    assert abs(found.margin) <= 81 + game.config.komi
    jiugong = make_game("jiugong")  # no ownership to estimate: no playouts run
    assert playout_outcome(jiugong, jiugong.initial_state(), np.random.default_rng(0)) is None
