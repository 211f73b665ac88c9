"""Arena and Elo: the fit recovers known strengths; matches are seeded and fair."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from agents.players import Player, RandomPlayer, make_player
from envs import make_game
from envs.core import ConfigError
from envs.trigolden.state import FINISHED
from training.arena import MatchResult, fit_elo, format_table, play_match, round_robin


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
    for bad in ("mcts", "mcts:0", "mcts:x", "uct", "uct:0", "alphago", "random:3", "net:"):
        with pytest.raises(ConfigError):
            make_player(game, bad)
    with pytest.raises(ConfigError, match="greedy"):
        make_player(game, "greedy")  # Jiugong has no greedy baseline
    for spec in ("mcts:10", "uct:10"):
        p = make_player(game, spec)
        a = p.analyse(game, game.initial_state(), np.random.default_rng(0))
        assert a.move in game.legal_moves(game.initial_state())
        assert a.value is not None and -1 <= a.value <= 1
        assert a.top and abs(sum(prob for _, prob in a.top) - 1) < 1e-5
    assert make_player(game, "uct:10").cfg.algorithm == "uct"
    assert make_player(game, "uct:10").identity != make_player(game, "mcts:10").identity


class _LowestAction(Player):
    """Always the lowest legal action: a deterministic, recognisable opener."""

    def select_actions(self, game, states, rng):  # type: ignore[no-untyped-def]
        return [int(np.flatnonzero(game.legal_mask(s))[0]) for s in states]


def test_trigolden_is_scored_by_matches_of_two_games() -> None:
    """TriGolden's arena results count matches (two games, A opening the first), each scored
    by the match rules: the two games' points added."""
    game = make_game("trigolden", n=2)
    seen: list[list] = []
    score_match = game.match_returns

    def spy(finals):  # type: ignore[no-untyped-def]
        seen.append(list(finals))
        return score_match(finals)

    game.match_returns = spy  # type: ignore[method-assign]
    a, b = _LowestAction(), RandomPlayer()
    wa, d, wb, _ = play_match(game, a, b, 6, np.random.default_rng(3))
    assert wa + d + wb == 3 == len(seen)
    opener = int(np.flatnonzero(game.legal_mask(game.initial_state()))[0])
    tally = [0, 0, 0]
    for first, second in seen:
        assert first.moves[0] == opener  # A opens game 1 of every match
        assert game.is_terminal(first) and game.is_terminal(second)
        r = score_match([first, second])
        tally[0 if r[0] > r[1] else 2 if r[1] > r[0] else 1] += 1
        if first.outcome == second.outcome == FINISHED:  # both ended on points
            totals = (first.scores[0] + second.scores[1], first.scores[1] + second.scores[0])
            assert np.sign(r[0]) == np.sign(totals[0] - totals[1])
    assert tally == [wa, d, wb]
    with pytest.raises(ValueError, match="multiple of 2"):
        play_match(game, a, b, 5, np.random.default_rng(0))


def test_arena_command_takes_game_options(tmp_path, capsys) -> None:
    """``qizero arena --option`` plays the configured game; TriGolden's counts are matches;
    a malformed option or an odd number of TriGolden games is a plain error."""
    from qizero_cli import main

    out = tmp_path / "arena.json"
    argv = ["arena", "trigolden", "greedy", "random", "--games", "4", "--json", str(out),
            "--option", "n=2", "--option", "scoring=trigolden"]
    assert main(argv) == 0
    data = json.loads(out.read_text())
    assert data["options"] == {"n": 2, "scoring": "trigolden"}
    (match,) = data["matches"]
    assert match["wins_i"] + match["draws"] + match["wins_j"] == 2
    assert main(["arena", "trigolden", "greedy", "random", "--option", "n"]) == 2
    assert "key=value" in capsys.readouterr().err
    assert main(["arena", "trigolden", "greedy", "random", "--games", "3", "--option", "n=2"]) == 2
    assert "multiple of 2" in capsys.readouterr().err


@pytest.mark.slow  # over 5 s: `make test-slow` runs it; the default suite stays short
def test_parallel_round_robin_does_not_depend_on_the_number_of_workers() -> None:
    """Chunks are seeded by pair and chunk and get fresh players, so 1 and 2 processes give
    the same results; a chunk as long as the pair is the serial match with the chunk's seed."""
    game = make_game("trigolden", n=2)
    players = [RandomPlayer(), make_player(game, "greedy"), make_player(game, "mcts:2", seed=4)]
    seen: list[MatchResult] = []
    one = round_robin(game, players, 6, seed=9, workers=1, on_result=seen.append)
    two = round_robin(game, players, 6, seed=9, workers=2)
    assert [r.__dict__ for r in one] == [r.__dict__ for r in two]
    assert sorted((r.i, r.j) for r in seen) == [(0, 1), (0, 2), (1, 2)]
    assert all(r.games == 3 for r in one)  # three TriGolden matches a pair
    whole = round_robin(game, players, 6, seed=9, pairs=[(1, 2)], workers=1, chunk=6)
    fresh = [RandomPlayer(), make_player(game, "greedy"), make_player(game, "mcts:2", seed=4)]
    fresh[2].reseed([9, 1, 2, 0, 1])  # as the chunk reseeds its copy (second of the pair)
    wa, d, wb, plies = play_match(game, fresh[1], fresh[2], 6, np.random.default_rng([9, 1, 2, 0]))
    assert (whole[0].wins_i, whole[0].draws, whole[0].wins_j, whole[0].plies) == (wa, d, wb, plies)
    with pytest.raises(ValueError, match="chunk"):
        round_robin(game, players, 6, workers=1, chunk=3)
    with pytest.raises(ValueError, match="workers"):
        round_robin(game, players, 6, workers=-1)


def test_arena_command_plays_the_solver_in_worker_processes(tmp_path, capsys) -> None:
    """Every player spec crosses to a worker process (the solver once could not be pickled);
    ``--chunk`` sets the games a worker plays at once, and a bad chunk is a plain error."""
    from qizero_cli import main

    out = tmp_path / "arena.json"
    argv = ["arena", "jiugong", "solver", "random", "--games", "8", "--workers", "1",
            "--chunk", "4", "--json", str(out)]
    assert main(argv) == 0
    (match,) = json.loads(out.read_text())["matches"]
    assert match["wins_j"] == 0 and match["wins_i"] + match["draws"] == 8
    assert main(argv[:-2] + ["--chunk", "3"]) == 2
    assert "chunk must be an even number" in capsys.readouterr().err


def test_net_player_specs_take_search_settings(tmp_path) -> None:
    from serving_helpers import tiny_checkpoint

    game = make_game("jiugong")
    path = tiny_checkpoint(tmp_path / "net.pt")
    p = make_player(game, f"net:{path}:8:0.5:algorithm=puct:rollout_mix=0.5:solver=false")
    assert (p.cfg.simulations, p.cfg.temperature, p.cfg.algorithm) == (8, 0.5, "puct")
    assert p.cfg.rollout_mix == 0.5 and p.cfg.solver is False and p.cfg.gumbel_scale == 0.0
    assert make_player(game, f"net:{path}").cfg.simulations == 0  # the raw policy
    for bad in (":8:0:max_considered", ":8:0:bogus=1", ":8:0:max_considered=0", ":x",
                ":8:0:simulations=4"):
        with pytest.raises(ConfigError, match="bad player"):
            make_player(game, f"net:{path}{bad}")


@pytest.mark.slow  # over 5 s: `make test-slow` runs it; the default suite stays short
def test_arena_command_resumes_from_its_journal(tmp_path, capsys) -> None:
    """``--journal``: a rerun takes the finished chunks, more ``--games`` plays only the new
    ones, and the figures equal a run that plays every game; other players share nothing."""
    from qizero_cli import main

    journal = tmp_path / "games.jsonl"

    def arena(games: int, *players: str, journal_path: Path | None = journal) -> dict:
        out = tmp_path / "arena.json"
        argv = ["arena", "jiugong", *players, "--games", str(games), "--workers", "1",
                "--seed", "5", "--json", str(out)]
        if journal_path is not None:
            argv += ["--journal", str(journal_path)]
        assert main(argv) == 0
        return json.loads(out.read_text())["matches"]

    arena(4, "mcts:2", "random")
    assert len(journal.read_text().splitlines()) == 2
    capsys.readouterr()
    more = arena(6, "mcts:2", "random")
    assert "2 chunks of games taken from" in capsys.readouterr().out
    assert len(journal.read_text().splitlines()) == 3
    assert more == arena(6, "mcts:2", "random", journal_path=None)
    arena(4, "mcts:3", "random")  # another player: nothing taken
    assert "taken from" not in capsys.readouterr().out
    assert main(["arena", "jiugong", "random", "random", "--journal", str(journal)]) == 2
    assert "--workers" in capsys.readouterr().err


def test_player_identities_say_what_decides_the_moves(tmp_path) -> None:
    from serving_helpers import tiny_checkpoint

    game = make_game("jiugong")
    path = tiny_checkpoint(tmp_path / "net.pt")
    assert make_player(game, "random").identity == "random"
    assert make_player(game, "mcts:8", seed=3).identity != make_player(game, "mcts:8").identity
    a, b = make_player(game, f"net:{path}:8"), make_player(game, f"net:{path}:16")
    assert a.identity["weights"] == b.identity["weights"] and a.identity != b.identity
    json.dumps([a.identity, make_player(game, "mcts:8").identity])  # journal keys are JSON


def test_each_chunk_draws_its_own_playouts() -> None:
    """A chunk's copy of pure MCTS restarts its playout generator from the chunk's seed, so
    against a deterministic opponent two chunks do not replay one game (they once did: every
    copy started from the player's seed, and a 100-game match was two games repeated)."""
    import pickle

    from training.arena import _play_chunk

    game = make_game("trigolden", n=2)
    mcts = make_player(game, "mcts:2", seed=4)
    state = game.initial_state()

    def playouts(player: Player, seed: list[int] | None) -> list[float]:
        copy = pickle.loads(pickle.dumps(player))
        if seed is not None:
            copy.reseed(seed)
        return [float(copy.evaluator.evaluate(game, [state])[1][0]) for _ in range(12)]

    assert playouts(mcts, None) == playouts(mcts, None)  # a copy repeats its first draws
    assert playouts(mcts, [9, 0, 1, 0, 1]) == playouts(mcts, [9, 0, 1, 0, 1])
    assert playouts(mcts, [9, 0, 1, 0, 1]) != playouts(mcts, [9, 0, 1, 1, 1])

    greedy = make_player(game, "greedy")  # deterministic: only MCTS makes games differ
    results = {_play_chunk((game, greedy, mcts, 2, [3, 0, 1, c], 0)) for c in range(6)}
    assert len(results) > 1
