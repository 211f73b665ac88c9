"""The analysis search (agents.search.analysis): values against Jiugong's solver, partial
reports, budgets, cancelling, principal variations, for every algorithm."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from agents.config import SearchConfig
from agents.evaluator import UniformEvaluator
from agents.players import level_player
from agents.search.analysis import RootReport, analyse, analysis_config
from envs import make_game
from envs.jiugong_solver import DRAW, LOSS, WIN, get_solver


@pytest.fixture(scope="module")
def jiugong():
    return make_game("jiugong")


@pytest.fixture(scope="module")
def top_level(jiugong):
    """Jiugong's top level (PUCT, 200 simulations, the solver on)."""
    return level_player(jiugong, "5")


def test_values_agree_with_the_solver(jiugong, top_level) -> None:
    """On positions of every outcome, the analysis's best move keeps the solved outcome and
    its value has the solved sign: a won position is valued above 0, a lost one below."""
    solver = get_solver()
    positions = [s for s in solver.positions() if not jiugong.is_terminal(s)]
    rng = np.random.default_rng(3)
    by_outcome: dict[int, list] = {WIN: [], LOSS: [], DRAW: []}
    for i in rng.permutation(len(positions)):
        s = positions[i]
        kind = solver.value(s).outcome
        if len(by_outcome[kind]) < 12:
            by_outcome[kind].append(s)
    assert all(len(v) == 12 for v in by_outcome.values())
    cfg = analysis_config(top_level.cfg, 200)
    for outcome, states in by_outcome.items():
        for s in states:
            found = analyse(jiugong, s, top_level.evaluator, cfg, np.random.default_rng(0))
            best = found.moves[0]
            assert best.action in solver.preserving_actions(s), (solver.value(s), best)
            if outcome == WIN:
                assert found.value > 0.3, (solver.value(s), found.value)
            elif outcome == LOSS:
                assert found.value < -0.3, (solver.value(s), found.value)
            else:
                assert abs(found.value) < 0.5, found.value


@pytest.mark.parametrize("algorithm", ["gumbel", "puct", "uct"])
def test_partial_reports_come_before_the_final_one(jiugong, algorithm: str) -> None:
    cfg = SearchConfig(algorithm=algorithm, simulations=300, max_considered=4)
    reports: list[RootReport] = []
    final = analyse(jiugong, jiugong.initial_state(), UniformEvaluator(), cfg,
                    np.random.default_rng(1), interval=0.0, report=reports.append, top=3)
    assert reports and not any(r.final for r in reports) and final.final
    visits = [r.visits for r in reports] + [final.visits]
    assert visits == sorted(visits) and final.visits == 300
    assert 1 <= len(final.moves) <= 3
    assert sum(m.visits for m in final.moves) <= final.visits
    for m in final.moves:
        assert m.pv[0] == m.move
        state = jiugong.initial_state()
        for move in m.pv:  # the variation is a line of legal moves
            state = jiugong.play(state, move)
    ranked = [(m.visits, m.value if m.value is not None else -2) for m in final.moves]
    assert ranked == sorted(ranked, reverse=True)


def test_the_time_budget_and_cancelling_stop_the_search(jiugong) -> None:
    cfg = SearchConfig(algorithm="puct", simulations=100_000)
    t0 = time.perf_counter()
    timed = analyse(jiugong, jiugong.initial_state(), UniformEvaluator(), cfg,
                    np.random.default_rng(0), seconds=0.3)
    assert time.perf_counter() - t0 < 5 and 0 < timed.visits < 100_000 and timed.final
    cancel = threading.Event()

    def stop_after_first(report: RootReport) -> None:
        cancel.set()

    stopped = analyse(jiugong, jiugong.initial_state(), UniformEvaluator(), cfg,
                      np.random.default_rng(0), interval=0.0, report=stop_after_first,
                      cancel=cancel)
    assert stopped.final and stopped.visits <= 2


def test_a_terminal_position_is_refused(jiugong) -> None:
    game = make_game("stereo_go", board="9x9")
    over = game.play(game.play(game.initial_state(), "pass"), "pass")
    with pytest.raises(ValueError, match="terminal"):
        analyse(game, over, UniformEvaluator(), SearchConfig(simulations=4),
                np.random.default_rng(0))
