"""The ranking ladder's rules (docs/rules/ladder.md) on hand-built histories: the rank table edge by
edge, promotions and demotions at every kind of rank, the points floor, 1D's floor, Super 9D, direct
promotion, the membership grant, which games count, colours over a sequence of meetings, the
matching order and handicaps."""

from __future__ import annotations

import random

import pytest

from serving.ladder.rules import (
    RANKS,
    Candidate,
    ColourFacts,
    Standing,
    Waiting,
    absence_loses_at,
    apply_result,
    classify,
    colours,
    direct_promotion,
    grant_points,
    handicap,
    pair_all,
    pick_opponent,
    pick_standing_opponent,
    rank_gap,
    rank_named,
    rank_of,
    rate,
)


def name(points: int) -> str:
    return rank_of(points).name


def play(points: int, results: str) -> int:
    """Points after a string of rated results, ``w`` = win, ``l`` = loss."""
    for r in results:
        points = apply_result(points, r == "w")
    return points


# ---------------------------------------------------------------------------- the rank table
TABLE = [  # rank, first point, last point, points per win/loss (docs/rules/ladder.md)
    *[(f"{18 - i}K", i * 1000, i * 1000 + 999, 200) for i in range(18)],
    ("1D", 18_000, 67_999, 10_000),
    ("2D", 68_000, 107_999, 8_000),
    ("3D", 108_000, 197_999, 18_000),
    ("4D", 198_000, 517_999, 64_000),
    ("5D", 518_000, 567_999, 10_000),
    ("6D", 568_000, 617_999, 10_000),
    ("7D", 618_000, 667_999, 10_000),
    ("8D", 668_000, 717_999, 10_000),
    ("9D", 718_000, 767_999, 10_000),
]


def test_the_rank_order_is_18k_to_super_9d():
    assert [r.name for r in RANKS] == [
        "18K", "17K", "16K", "15K", "14K", "13K", "12K", "11K", "10K", "9K", "8K", "7K",
        "6K", "5K", "4K", "3K", "2K", "1K", "1D", "2D", "3D", "4D", "5D", "6D", "7D", "8D",
        "9D", "Super 9D"]
    assert [r.index for r in RANKS] == list(range(28))


@pytest.mark.parametrize(("rank", "first", "last", "step"), TABLE)
def test_each_band_edge_by_edge(rank, first, last, step):
    assert name(first) == rank and name(last) == rank
    assert rank_of(first).step == step and rank_named(rank).low == first
    if first > 0:
        assert name(first - 1) != rank  # the point below the band is the rank below
        assert rank_of(first - 1).index == rank_of(first).index - 1
    assert rank_of(last + 1).index == rank_of(first).index + 1  # the next band starts


def test_super_9d_has_no_upper_bound():
    assert name(767_999) == "9D" and name(768_000) == "Super 9D"
    assert name(10**12) == "Super 9D" and rank_of(768_000).high is None
    assert rank_of(768_000).step == 10_000


def test_new_players_start_at_18k_with_0_points_and_points_are_never_negative():
    assert name(0) == "18K"
    with pytest.raises(ValueError):
        rank_of(-1)
    with pytest.raises(ValueError):
        rank_named("19K")


def test_rank_gap_counts_ranks_not_points():
    assert rank_gap(17_999, 18_000) == 1  # 1K and 1D: one point, one rank
    assert rank_gap(18_000, 67_999) == 0  # 1D's whole band
    assert rank_gap(16_999, 18_000) == 2
    assert rank_gap(767_999, 5_000_000) == 1  # 9D and Super 9D


# ---------------------------------------------------------------------------- points per game
@pytest.mark.parametrize(("points", "step"), [(0, 200), (17_999, 200), (18_000, 10_000),
                                               (68_000, 8_000), (108_000, 18_000),
                                               (198_000, 64_000), (518_000, 10_000),
                                               (760_000, 10_000), (900_000, 10_000)])
def test_a_win_adds_and_a_loss_subtracts_the_current_ranks_amount(points, step):
    assert apply_result(points, True) == points + step
    if points != 18_000:  # a 1D at 18,000 loses onto 1D's floor (below)
        assert apply_result(points, False) == max(0, points - step)


def test_points_never_go_below_zero():
    assert apply_result(0, False) == 0
    assert apply_result(100, False) == 0
    assert play(0, "lllll") == 0
    assert play(0, "wlll") == 0 and play(0, "wwlll") == 0 and play(0, "wwwll") == 200


# Promotion: five more wins than losses from the bottom of a rank reach the next rank;
# demotion: from the top step of a rank (its bottom plus four wins), five more losses than
# wins leave it. A kind of rank each: kyu, 1K to 1D, 1D, 2D, 3D, 4D, 5D-9D, 9D to Super 9D.
# Where the fifth loss lands is read off the points; 1D's fifth loss, from its bottom (18,000),
# lands on 1D's floor, 17,000 (1K), not at 8,000 (10K) as the table's 10,000 alone would.
BANDS = [("17K", "16K", "18K"), ("1K", "1D", "2K"), ("1D", "2D", "1K"), ("2D", "3D", "1D"),
         ("3D", "4D", "2D"), ("4D", "5D", "3D"), ("5D", "6D", "4D"), ("6D", "7D", "5D"),
         ("7D", "8D", "6D"), ("8D", "9D", "7D"), ("9D", "Super 9D", "8D")]


@pytest.mark.parametrize(("rank", "above", "below"), BANDS)
def test_five_net_wins_promote_by_one_rank(rank, above, below):
    low = rank_named(rank).low
    assert name(play(low, "wwww")) == rank
    assert name(play(low, "wwwww")) == above
    assert name(play(low, "wwlwwlww")) == rank  # six wins, two losses: net four
    assert name(play(low, "wwlwwlwww")) == above  # net five


@pytest.mark.parametrize(("rank", "above", "below"), BANDS)
def test_five_net_losses_demote(rank, above, below):
    top_step = play(rank_named(rank).low, "wwww")  # the last step before promotion
    assert name(play(top_step, "llll")) == rank
    assert name(play(top_step, "lllll")) == below
    assert name(play(top_step, "llwllwll")) == rank  # six losses, two wins: net four
    assert name(play(top_step, "llwllwlll")) == below  # net five


def test_net_results_not_order_decide_within_a_rank():
    low = rank_named("3D").low
    assert play(low, "wlwlwlwwww") == play(low, "wwww")  # net four wins: still 3D
    assert name(play(low, "wlwlwlwwwww")) == "4D"


def test_one_loss_at_the_bottom_of_a_rank_drops_by_that_ranks_amount():
    assert play(18_000, "l") == 17_000 and name(17_000) == "1K"  # 1D's floor
    assert play(28_000, "l") == 18_000 and name(18_000) == "1D"  # 1D loses 10,000
    assert play(68_000, "l") == 60_000 and name(60_000) == "1D"
    assert play(108_000, "l") == 90_000 and name(90_000) == "2D"
    assert play(198_000, "l") == 134_000 and name(134_000) == "3D"
    assert play(518_000, "l") == 508_000 and name(508_000) == "4D"


# ---------------------------------------------------------------------------- 1D's floor
@pytest.mark.parametrize(("points", "after"), [(18_000, 17_000), (22_500, 17_000),
                                               (27_999, 17_000), (28_000, 18_000),
                                               (28_001, 18_001), (67_999, 57_999)])
def test_1d_floor_a_loss_below_18000_lands_at_17000_never_lower(points, after):
    assert name(points) == "1D"
    assert apply_result(points, False) == after
    assert name(after) == ("1K" if after < 18_000 else "1D")


def test_five_net_wins_from_1d_floor_bring_the_player_back_to_1d():
    assert play(18_000, "l") == 17_000
    assert name(play(17_000, "wwww")) == "1K" and play(17_000, "wwwww") == 18_000
    assert play(18_000, "l" * 11) == 15_000  # from the floor on, 200 a loss: 15,000 is 3K
    assert rate(Standing(22_500, 30, 15), "loss") == Standing(17_000, 31, 15)


@pytest.mark.parametrize("rank", [r for r in RANKS if r.name != "1D"])
def test_1d_floor_changes_no_other_rank(rank):
    """Every other rank's loss is its plain amount, from the bottom of its band and from the
    point where its amount first stays inside the band."""
    for points in (rank.low, rank.low + 1, rank.low + rank.step, rank.low + rank.step - 1):
        assert apply_result(points, False) == max(0, points - rank.step), points


def test_other_boundaries_are_unchanged():
    assert apply_result(68_000, False) == 60_000 and name(60_000) == "1D"  # 2D loses 8,000
    assert apply_result(100, False) == 0 and name(0) == "18K"  # 18K: never below 0
    assert apply_result(17_000, False) == 16_800 and name(16_800) == "2K"  # 1K loses 200
    assert apply_result(768_000, False) == 758_000 and name(758_000) == "9D"


def test_super_9d_both_ways():
    top = play(718_000, "wwwww")  # five net wins at 9D
    assert top == 768_000 and name(top) == "Super 9D"
    rich = play(top, "w" * 20)  # it never rises further; its points have no upper bound
    assert rich == 968_000 and name(rich) == "Super 9D"
    assert name(play(top, "wwwwllll")) == "Super 9D"
    assert name(play(top, "wwwwlllll")) == "9D"  # five more losses than wins: 9D again
    assert play(top, "l") == 758_000 and name(758_000) == "9D"  # under 768,000 is 9D


def test_a_kyu_player_climbs_from_18k_to_1d_in_ninety_net_wins():
    assert name(play(0, "w" * 89)) == "1K"
    assert play(0, "w" * 90) == 18_000 and name(18_000) == "1D"


# ---------------------------------------------------------------------------- disconnections
def test_from_the_fourth_disconnection_an_absence_is_bounded_by_the_byo_yomi_left():
    for n in (0, 1, 2, 3):  # the first three are free: the clock alone bounds them
        assert absence_loses_at(n, 100.0, 90.0) is None
    assert absence_loses_at(4, 100.0, 90.0) == 190.0  # 3 periods × 30 s left
    assert absence_loses_at(9, 100.0, 30.0) == 130.0
    assert absence_loses_at(4, 100.0, 0.0) == 100.0  # no period left: at once
    assert absence_loses_at(4, 100.0, None) is None  # a game without byo-yomi


# ---------------------------------------------------------------------------- direct promotion
def standing_after(results: str, granted: bool = False) -> Standing:
    s = Standing(0, granted=granted)
    for r in results:
        s = rate(s, {"w": "win", "l": "loss", "d": "draw"}[r])
    return s


def test_twenty_straight_wins_from_18k_set_1d():
    s = standing_after("w" * 19)
    assert s.points == 3_800 and name(s.points) == "15K"
    s = standing_after("w" * 20)
    assert s.points == 18_000 and name(s.points) == "1D" and s.rated_games == 20
    s = rate(s, "win")  # afterwards the ordinary rules: +1D's amount
    assert s.points == 28_000


def test_nineteen_wins_and_a_loss_do_not_promote_directly():
    for results, points in (("w" * 19 + "l", 3_600), ("w" * 10 + "l" + "w" * 9, 3_600),
                            ("l" + "w" * 19, 3_800)):  # the first loss is floored at 0
        s = standing_after(results)
        assert s.rated_games == 20 and s.rated_wins == 19
        assert s.points == points and name(s.points) != "1D"
    s = standing_after("w" * 19 + "l" + "w")  # and never later
    assert s.points == 3_800


def test_a_rated_draw_breaks_the_streak_and_a_grant_rules_it_out():
    s = standing_after("w" * 10 + "d" + "w" * 9)
    assert s.rated_games == 20 and s.points == 3_800  # a draw changes no points
    s = standing_after("w" * 20, granted=True)
    assert s.points == 4_000
    assert direct_promotion(40_000, 20, 20, granted=False) == 40_000  # never a demotion
    assert direct_promotion(4_000, 21, 21, granted=False) == 4_000


# ---------------------------------------------------------------------------- membership grant
@pytest.mark.parametrize(("yuan", "points", "rank"), [
    (18, 18_000, "1D"), (68, 68_000, "2D"), (108, 108_000, "3D"), (198, 198_000, "4D"),
    (518, 518_000, "5D"), (519, 518_000, "5D"), (2_000, 518_000, "5D"), (1, 1_000, "17K"),
])
def test_grant_converts_yuan_at_1000_points_capped_at_5d(yuan, points, rank):
    assert grant_points(0, yuan) == points and name(points) == rank


def test_grants_add_up_to_the_cap_and_never_lower_points():
    assert grant_points(18_000, 50) == 68_000  # 18 + 50 yuan: the 68-yuan 2D
    assert grant_points(500_000, 100) == 518_000
    assert grant_points(600_000, 100) == 600_000  # a 6D keeps their points
    with pytest.raises(ValueError):
        grant_points(0, 0)


# ---------------------------------------------------------------------------- which games count
@pytest.mark.parametrize(("reason", "moves", "seconds", "kind"), [
    ("resignation", 9, 600, "void"),  # before both sides together made 10 moves
    ("resignation", 10, 600, "rated"),
    ("resignation", 40, 60, "void"),  # within the first minute
    ("resignation", 40, 60.5, "rated"),
    ("time", 9, 3600, "void"),
    ("time", 10, 61, "rated"),
    ("time", 50, 59, "void"),
    ("score", 4, 10, "rated"),  # the invalid-game rule names resignation and time-out only
    ("rules", 400, 900, "rated"),  # the move cap, scored
])
def test_invalid_games(reason, moves, seconds, kind):
    assert classify(reason, False, moves, seconds, 0).kind == kind


@pytest.mark.parametrize(("moves", "gap", "kind"), [
    (14, 0, "void"), (15, 0, "rated"), (120, 1, "rated"), (14, 3, "void"), (30, 2, "friendly"),
])
def test_draws_by_agreement(moves, gap, kind):
    c = classify("agreement", True, moves, 3600, gap)
    assert c.kind == kind


@pytest.mark.parametrize(("gap", "kind"), [(0, "rated"), (1, "rated"), (2, "friendly"),
                                           (5, "friendly")])
def test_friendly_games_are_two_or_more_ranks_apart(gap, kind):
    assert classify("resignation", False, 50, 900, gap).kind == kind
    assert classify("score", False, 50, 900, gap).kind == kind


def test_an_invalid_friendly_game_is_still_void():
    assert classify("resignation", False, 3, 900, 4).kind == "void"


# ---------------------------------------------------------------------------- colours
def facts(player, points, last=None):
    return ColourFacts(player, points, last)


def test_the_loser_of_their_previous_game_takes_black():
    rng = random.Random(0)
    assert colours(facts("a", 100, "win"), facts("b", 5000, "loss"), None, rng) == ("b", "a")
    assert colours(facts("a", 100, "loss"), facts("b", 0, "win"), None, rng) == ("a", "b")
    assert colours(facts("a", 0, "draw"), facts("b", 0, "loss"), None, rng) == ("b", "a")


def test_same_last_results_give_black_to_fewer_points():
    rng = random.Random(0)
    assert colours(facts("a", 900, "win"), facts("b", 800, "win"), None, rng) == ("b", "a")
    assert colours(facts("a", 700, "loss"), facts("b", 800, "loss"), None, rng) == ("a", "b")


def test_first_meeting_without_results_fewer_points_then_random():
    assert colours(facts("a", 200), facts("b", 100), None, random.Random(0)) == ("b", "a")
    assert colours(facts("a", 200, "win"), facts("b", 300), None, random.Random(0)) == ("a", "b")
    seen = {colours(facts("a", 0), facts("b", 0), None, random.Random(seed))
            for seed in range(20)}
    assert seen == {("a", "b"), ("b", "a")}  # equal points: the injected rng decides


def test_colours_over_a_sequence_of_meetings_swap_then_alternate():
    """a and b meet five times; between meetings they play others. The first meeting follows
    the results rule, every later one swaps the last meeting's colours."""
    rng = random.Random(0)
    a, b = facts("a", 1000, "loss"), facts("b", 1000, "win")
    history = []  # who had Black in each meeting
    first = colours(a, b, None, rng)
    assert first == ("a", "b")  # a lost its previous game
    history.append(first[0])
    # whatever happens meanwhile (a now won, b now lost, other points), they swap ...
    a, b = facts("a", 5000, "win"), facts("b", 200, "loss")
    for _ in range(4):
        black, white = colours(a, b, history[-1], rng)
        history.append(black)
    assert history == ["a", "b", "a", "b", "a"]  # ... and alternate from then on
    with pytest.raises(ValueError):
        colours(a, b, "c", rng)


def test_handicap_is_the_rank_difference_for_the_weaker_black():
    assert handicap(5_000, 6_000) == 1  # 13K against 12K
    assert handicap(17_000, 68_000) == 2  # 1K against 2D
    assert handicap(6_000, 6_500) == 0  # same rank
    assert handicap(6_000, 5_000) == 0  # Black is the stronger: no handicap


# ---------------------------------------------------------------------------- matching order
def w(player, rank, since, options=""):
    return Waiting(player, rank, since, options)


def test_same_rank_first_then_one_lower_then_one_higher():
    me = w("me", 10, 5.0)
    lower, higher, same = w("lo", 9, 0.0), w("hi", 11, 0.0), w("eq", 10, 4.0)
    assert pick_opponent(me, [lower, higher, same]).player == "eq"
    assert pick_opponent(me, [higher, lower]).player == "lo"
    assert pick_opponent(me, [higher]).player == "hi"


def test_never_two_or_more_ranks_apart():
    me = w("me", 10, 5.0)
    assert pick_opponent(me, [w("a", 8, 0.0), w("b", 12, 0.0), w("c", 20, 0.0)]) is None
    assert pick_opponent(w("top", 27, 0.0), [w("x", 25, 0.0)]) is None
    assert pick_opponent(w("top", 27, 0.0), [w("x", 26, 0.0)]).player == "x"
    assert pick_opponent(w("bottom", 0, 0.0), [w("x", 1, 0.0)]).player == "x"


def test_within_a_rank_the_longest_waiting_first_and_options_must_agree():
    me = w("me", 3, 10.0, "9x9")
    others = [w("late", 3, 9.0, "9x9"), w("early", 3, 1.0, "9x9"), w("other", 3, 0.0, "19x19")]
    assert pick_opponent(me, others).player == "early"
    assert pick_opponent(me, [w("other", 3, 0.0, "19x19")]) is None


def test_pair_all_lets_the_longest_waiting_choose_first():
    queue = [
        w("a", 5, 0.0),  # waits longest: takes the same-rank c before anyone else can
        w("b", 5, 3.0),
        w("c", 5, 2.0),
        w("d", 4, 1.0),  # one lower than b: b's next choice
        w("e", 9, 0.5),  # nobody within one rank
        w("f", 10, 4.0),  # one higher than e
    ]
    pairs = [(x.player, y.player) for x, y in pair_all(queue)]
    assert pairs == [("a", "c"), ("e", "f"), ("d", "b")]
    assert pair_all([w("x", 0, 0.0)]) == [] and pair_all([]) == []


def test_an_ai_of_the_nearest_rank_within_the_matching_order():
    me = w("me", rank_of(5_500).index, 0.0)  # 13K
    ais = [Candidate("ai-far", 9_000), Candidate("ai-low", 4_100), Candidate("ai-high", 6_000)]
    assert pick_standing_opponent(me, 5_500, ais).player == "ai-low"  # one lower before higher
    ais.append(Candidate("ai-same-far", 5_000))
    ais.append(Candidate("ai-same-near", 5_900))
    assert pick_standing_opponent(me, 5_500, ais).player == "ai-same-near"
    assert pick_standing_opponent(me, 5_500, [Candidate("ai-far", 9_000)]) is None
