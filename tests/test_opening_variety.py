"""The opening variety rule (agents/variety.py) on hand-built search results, and the
repeat rule (serving/ladder/farming.py) on hand-built game histories."""

from __future__ import annotations

import numpy as np
import pytest

from agents.search import SearchResult
from agents.variety import OpeningVariety, candidates, varied_action
from serving.ladder.farming import OPENING_PLIES, PastGame, repeated

RULE = OpeningVariety(plies=20, visits=0.4, margin=0.03, share=0.5)


def result(action: int, policy: list[float], visits: list[int] | None = None,
           q: list[float] | None = None) -> SearchResult:
    n = len(policy)
    return SearchResult(
        action=action, policy=np.asarray(policy, dtype=np.float32),
        value=0.0, visits=np.asarray(visits or [0] * n, dtype=np.int64),
        q=np.asarray(q or [0.0] * n, dtype=np.float64), simulations=sum(visits or []),
    )


# ---------------------------------------------------------------------------- candidates
def test_a_searched_choice_admits_moves_searched_nearly_as_much_and_valued_nearly_as_well():
    r = result(0, policy=[0.9, 0.05, 0.03, 0.02, 0.0],
               visits=[60, 60, 28, 12, 0], q=[0.20, 0.18, 0.21, 0.20, 0.0])
    # 1: as many visits, 0.02 below; 2: 47% of the visits, above; 3: 20% of the visits: out;
    # 4: never searched (and illegal here: policy 0): out.
    assert candidates(r, RULE).tolist() == [0, 1, 2]


def test_a_clearly_worse_move_is_never_a_candidate():
    r = result(0, policy=[0.5, 0.5], visits=[60, 60], q=[0.20, 0.16])
    assert candidates(r, RULE).tolist() == [0]  # 0.04 below the choice: out
    assert {varied_action(r, RULE, np.random.default_rng(s)) for s in range(50)} == {0}


def test_an_unsearched_choice_admits_moves_with_half_its_prior():
    r = result(2, policy=[0.2, 0.09, 0.4, 0.31, 0.0])
    assert candidates(r, RULE).tolist() == [0, 2, 3]


def test_a_choice_the_policy_gives_nothing_stays_alone():
    r = result(1, policy=[0.0, 0.0, 0.0])  # e.g. no visits, no prior: nothing to compare
    assert candidates(r, RULE).tolist() == [1]


def test_the_draw_covers_the_candidates_and_is_reproducible_per_seed():
    r = result(0, policy=[0.3, 0.3, 0.3, 0.1])
    draws = [varied_action(r, RULE, np.random.default_rng(s)) for s in range(60)]
    assert set(draws) == {0, 1, 2}
    assert draws == [varied_action(r, RULE, np.random.default_rng(s)) for s in range(60)]


def test_the_rule_applies_to_the_opening_only_and_round_trips_as_json():
    assert RULE.applies(0) and RULE.applies(19) and not RULE.applies(20)
    assert OpeningVariety.from_json(RULE.to_json()) == RULE
    with pytest.raises(ValueError):
        OpeningVariety(share=0.0)


# ---------------------------------------------------------------------------- the repeat rule
def game(i: int, n: int = 30) -> list[str]:
    """A game of ``n`` moves; ``i`` changes its 20th move (``i = 0``: the reference)."""
    return [f"m{k}" if k != 19 else f"m{k}-{i}" for k in range(n)]


def past(gid: str, moves: list[str] | None, winner: str | None) -> PastGame:
    return PastGame(gid, None if moves is None else moves[:OPENING_PLIES], winner)


def test_repeating_the_last_or_the_second_last_game_is_not_rated():
    me = game(0)
    why = repeated(me, "lin", [past("g2", game(0, 25), "lin"), past("g1", game(1), "lin")])
    assert why == "repeats game g2: the same first 20 plies and winner"
    why = repeated(me, "lin", [past("g2", game(1), "lin"), past("g1", game(0, 40), "lin")])
    assert why == "repeats game g1: the same first 20 plies and winner"


def test_repeating_the_third_last_game_is_rated():
    history = [past("g3", game(1), "lin"), past("g2", game(2), "lin"), past("g1", game(0), "lin")]
    assert repeated(game(0), "lin", history) is None


def test_the_same_plies_with_another_winner_is_rated():
    assert repeated(game(0), "lin", [past("g1", game(0), "ai-5")]) is None
    assert repeated(game(0), None, [past("g1", game(0), "lin")]) is None  # a draw now
    assert repeated(game(0), None, [past("g1", game(0), None)]) == (
        "repeats game g1: the same first 20 plies and draw")


def test_plies_after_the_twentieth_do_not_matter_and_the_twentieth_does():
    assert repeated(game(0, 200), "lin", [past("g1", game(0, 21), "lin")]) is not None
    assert repeated(game(0), "lin", [past("g1", game(7), "lin")]) is None


def test_a_game_under_twenty_plies_repeats_only_the_very_same_game():
    short = game(0, 12)
    assert repeated(short, "lin", [past("g1", game(0, 12), "lin")]) == (
        "repeats game g1: the same first 12 plies and winner")
    assert repeated(short, "lin", [past("g1", game(0), "lin")]) is None  # a longer game
    assert repeated(game(0), "lin", [past("g1", short, "lin")]) is None


def test_games_recorded_before_the_rule_are_never_repeated():
    assert repeated(game(0), "lin", [past("g1", None, "lin")]) is None
