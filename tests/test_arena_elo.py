"""Arena and Elo: the fit recovers known strengths; matches are seeded and fair."""

from __future__ import annotations

import math

import numpy as np
import pytest

from envs import make_game
from envs.core import ConfigError
from training.arena import MatchResult, fit_elo, format_table, play_match, round_robin
from training.players import RandomPlayer, make_player


def _synthetic(true_elo: list[float], games: int, draw_rate: float, seed: int) -> list[MatchResult]:
    """Results drawn from the Bradley-Terry model itself (draws take probability mass evenly
    from both sides, so the expected score is still the model's)."""
    rng = np.random.default_rng(seed)
    out = []
    n = len(true_elo)
    for i in range(n):
        for j in range(i + 1, n):
            p = 1 / (1 + 10 ** ((true_elo[j] - true_elo[i]) / 400))
            d = draw_rate * 2 * min(p, 1 - p)
            outcomes = rng.choice(3, size=games, p=[p - d / 2, d, 1 - p - d / 2])
            out.append(
                MatchResult(
                    i,
                    j,
                    int((outcomes == 0).sum()),
                    int((outcomes == 1).sum()),
                    int((outcomes == 2).sum()),
                )
            )
    return out


def test_fit_recovers_known_strengths() -> None:
    true = [0.0, 150.0, 400.0, 700.0]
    r = fit_elo(4, _synthetic(true, 2000, 0.3, seed=1), anchor=0)
    assert r.elo[0] == 0.0 and r.cov[0, 0] == 0.0
    for k in range(1, 4):
        lo, hi = r.ci(k)
        assert lo < true[k] < hi, (k, r.elo[k], lo, hi)
        assert abs(r.elo[k] - true[k]) < 40
    # The order is certain here: every adjacent difference has an interval above 0.
    for k in range(1, 4):
        d, lo, hi = r.diff_ci(k, k - 1)
        assert lo > 0 and lo < true[k] - true[k - 1] < hi


def test_ci_coverage_on_repeated_experiments() -> None:
    """Over many small synthetic tournaments the 95% interval covers the truth ~95% of the
    time (loose bounds: 40 experiments)."""
    true = [0.0, 200.0, 350.0]
    covered = total = 0
    for seed in range(40):
        r = fit_elo(3, _synthetic(true, 120, 0.2, seed=100 + seed), anchor=0)
        for k in (1, 2):
            lo, hi = r.ci(k)
            covered += lo < true[k] < hi
            total += 1
    assert covered / total > 0.85


def test_fit_is_anchored_and_symmetric() -> None:
    res = [MatchResult(0, 1, 10, 0, 10), MatchResult(1, 2, 10, 5, 10), MatchResult(0, 2, 7, 6, 7)]
    r = fit_elo(3, res, anchor=1)
    assert r.elo[1] == 0.0
    np.testing.assert_allclose(r.elo, 0.0, atol=1e-6)
    # One sided results: the winner is above, the interval of the difference is wide but finite.
    r = fit_elo(2, [MatchResult(0, 1, 0, 0, 30)], anchor=0)
    assert r.elo[1] > 300 and math.isfinite(r.ci(1)[1])
    assert "(anchor)" in format_table(["a", "b"], r)
    with pytest.raises(ValueError, match="anchor"):
        fit_elo(2, [], anchor=5)


def test_match_is_seeded_and_the_solver_never_loses() -> None:
    game = make_game("jiugong")
    solver, rnd = make_player(game, "solver"), RandomPlayer()
    a = play_match(game, solver, rnd, 10, np.random.default_rng(5))
    b = play_match(game, solver, rnd, 10, np.random.default_rng(5))
    assert a == b
    wins, draws, losses, plies = a
    assert wins + draws + losses == 10 and losses == 0 and wins >= 5 and plies > 0


def test_round_robin_with_paired_openings() -> None:
    game = make_game("jiugong")
    players = [RandomPlayer(), make_player(game, "solver"), make_player(game, "mcts:20")]
    seen = []
    res = round_robin(game, players, 4, seed=3, on_result=seen.append, opening_plies=2)
    assert [(r.i, r.j) for r in res] == [(0, 1), (0, 2), (1, 2)] and seen == res
    assert all(r.games == 4 for r in res)
    assert res[0].wins_i == 0  # random never beats the solver


def test_player_specs() -> None:
    game = make_game("jiugong")
    for bad in ("mcts", "mcts:0", "mcts:x", "alphago", "random:3", "net:"):
        with pytest.raises(ConfigError):
            make_player(game, bad)
    with pytest.raises(ConfigError, match="greedy"):
        make_player(game, "greedy")  # Jiugong has no greedy baseline
    p = make_player(game, "mcts:10")
    a = p.analyse(game, game.initial_state(), np.random.default_rng(0))
    assert a.move in game.legal_moves(game.initial_state())
    assert a.value is not None and -1 <= a.value <= 1
    assert a.top and abs(sum(prob for _, prob in a.top) - 1) < 1e-5
