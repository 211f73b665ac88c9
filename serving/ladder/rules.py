"""The ranking ladder's rules (``docs/rules/ladder.md``) as pure functions over plain values.

No database, no web framework and no clock is read here: every function gets what it needs as
arguments (points, counts, the seconds a game lasted, an rng), so each rule is tested with
hand-built histories and the service (:mod:`serving.ladder.rating`, :mod:`.matching`) only
gathers the facts and stores what these functions return. Project decisions where the spec is
silent are marked *(project rule)* and collected in ``docs/ladder.md``.

Ranks are indices into :data:`RANKS`, 0 = 18K … 17 = 1K, 18 = 1D … 26 = 9D, 27 = Super 9D;
a player's rank is always read off their points (:func:`rank_of`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

# ---------------------------------------------------------------------------- ranks and points


@dataclass(frozen=True)
class Rank:
    """One rank: its name, the points band ``[low, high)`` (``high`` None: no upper bound)
    and the points a win adds and a loss subtracts while the player holds it."""

    index: int
    name: str
    low: int
    high: int | None
    step: int


def _table() -> tuple[Rank, ...]:
    ranks = [Rank(i, f"{18 - i}K", i * 1_000, (i + 1) * 1_000, 200) for i in range(18)]
    dans = [  # (name, from, to, points per win/loss): docs/rules/ladder.md's table
        ("1D", 18_000, 68_000, 10_000),
        ("2D", 68_000, 108_000, 8_000),
        ("3D", 108_000, 198_000, 18_000),
        ("4D", 198_000, 518_000, 64_000),
        ("5D", 518_000, 568_000, 10_000),
        ("6D", 568_000, 618_000, 10_000),
        ("7D", 618_000, 668_000, 10_000),
        ("8D", 668_000, 718_000, 10_000),
        ("9D", 718_000, 768_000, 10_000),
    ]
    for name, low, high, step in dans:
        ranks.append(Rank(len(ranks), name, low, high, step))
    ranks.append(Rank(len(ranks), "Super 9D", 768_000, None, 10_000))
    return tuple(ranks)


RANKS: tuple[Rank, ...] = _table()
FIRST_DAN = RANKS[18]
FIVE_DAN = RANKS[22]
FIRST_DAN_FLOOR = RANKS[17].low  # 17,000, the bottom of 1K: where a 1D's loss lands at lowest
_BY_NAME = {r.name: r for r in RANKS}


def rank_of(points: int) -> Rank:
    """The rank that holds ``points`` (negative points do not exist: ValueError)."""
    if points < 0:
        raise ValueError(f"points are never negative, got {points}")
    for rank in reversed(RANKS):
        if points >= rank.low:
            return rank
    raise AssertionError("unreachable: 18K starts at 0")


def rank_named(name: str) -> Rank:
    """A rank by its name (``"5K"``, ``"1D"``, ``"Super 9D"``); ValueError if none."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"no rank {name!r}; ranks: 18K … 1K, 1D … 9D, Super 9D") from None


def rank_gap(points_a: int, points_b: int) -> int:
    """How many ranks apart two players are (0: same rank)."""
    return abs(rank_of(points_a).index - rank_of(points_b).index)


def apply_result(points: int, won: bool) -> int:
    """Points after one rated decisive game: the current rank's amount added for a win,
    subtracted for a loss, never below 0; Super 9D has no upper bound and falls back to 9D
    as soon as its points are under 768,000 (the rank is read off the points).

    1D's floor (``docs/rules/ladder.md``, source: 1D˂18000分，则降为1K): a 1D whose loss would take
    them below 18,000 lands at 17,000, the bottom of 1K, never lower, wherever in
    18,000–27,999 they stood. That is the one place where a rank's amount is wider than the
    rank below (10,000 against 1K's 1,000), so a loss never takes anyone more than one rank
    down."""
    rank = rank_of(points)
    if won:
        return points + rank.step
    if rank is FIRST_DAN and points - rank.step < FIRST_DAN.low:
        return FIRST_DAN_FLOOR
    return max(0, points - rank.step)


# ---------------------------------------------------------------------------- disconnections
FREE_DISCONNECTIONS = 3  # 掉线四次以上: from the fourth disconnection on, absences are bounded


def absence_loses_at(disconnections: int, since: float,
                     byo_yomi_left: float | None) -> float | None:
    """When an absence that began at ``since`` with the player's ``disconnections``-th
    disconnection loses the game on time, whoever is to move (None: it never does).

    ``docs/rules/ladder.md``: from the fourth disconnection on, an absence lasting longer than the
    player's remaining byo-yomi (periods left × period length, ``byo_yomi_left``, taken when
    the absence began; None for a game without byo-yomi) loses on time. *(project rule)* The
    loss falls at the instant the absence has lasted that long, as a clock's time is up at its
    deadline; with no period left that is the instant of the disconnection. The first three
    disconnections are free: those absences are bounded by the clock alone."""
    if disconnections <= FREE_DISCONNECTIONS or byo_yomi_left is None:
        return None
    return since + max(0.0, byo_yomi_left)


# ---------------------------------------------------------------------------- direct promotion
DIRECT_PROMOTION_GAMES = 20


def direct_promotion(points: int, rated_games: int, rated_wins: int, granted: bool) -> int:
    """Points after the direct-promotion rule: a player who started at 18K (no granted
    points) and has won every one of their first 20 rated games is set to 1D (18,000 points)
    when the 20th is won. Any other case returns ``points`` unchanged.

    ``rated_games``/``rated_wins`` count rated games *including* the one just finished; a
    rated draw is a rated game that was not won *(project rule)*."""
    if granted or rated_games != DIRECT_PROMOTION_GAMES or rated_wins != rated_games:
        return points
    return max(points, FIRST_DAN.low)


@dataclass(frozen=True)
class Standing:
    """What the rating rules need of a player: points, rated games and wins so far, and
    whether they ever received points other than by playing (a membership grant, an AI
    level's calibrated start)."""

    points: int
    rated_games: int = 0
    rated_wins: int = 0
    granted: bool = False


def rate(player: Standing, result: Literal["win", "loss", "draw"]) -> Standing:
    """The standing after one *rated* game: points by :func:`apply_result` (a draw changes no
    points), the counts advanced, then direct promotion."""
    points = player.points
    if result != "draw":
        points = apply_result(points, result == "win")
    games, wins = player.rated_games + 1, player.rated_wins + (result == "win")
    points = direct_promotion(points, games, wins, player.granted)
    return Standing(points, games, wins, player.granted)


# ---------------------------------------------------------------------------- membership grant
POINTS_PER_YUAN = 1_000
GRANT_CAP = FIVE_DAN.low  # 518,000: the 5D row of the source's recharge table (518 yuan)


def grant_points(points: int, yuan: int) -> int:
    """Points after an administrator's membership grant of ``yuan`` (1 yuan = 1,000 points).

    *(project rule)* "capped at 5D" means a grant never takes a player past 518,000 points,
    the 5D amount of the source's table ("amounts above that convert as 5D"); grants add up
    (the source allows repeated recharges) and never lower a player's points."""
    if yuan <= 0:
        raise ValueError(f"a grant is a positive number of yuan, got {yuan}")
    return max(points, min(points + yuan * POINTS_PER_YUAN, GRANT_CAP))


# ---------------------------------------------------------------------------- which games count
INVALID_MOVES = 10  # resignation or time-out before both sides together made 10 moves ...
INVALID_SECONDS = 60.0  # ... or within the first minute: invalid
DRAW_MIN_MOVES = 15  # a draw by agreement with fewer moves: not rated, no record
FRIENDLY_GAP = 2  # ranks two or more apart: a friendly game

Kind = Literal["void", "friendly", "rated"]


@dataclass(frozen=True)
class Classification:
    """``void``: no record, no points; ``friendly``: recorded, shown as "friendly", no
    points; ``rated``: recorded, points for a decisive result (none for a draw)."""

    kind: Kind
    why: str


def classify(
    reason: str, draw: bool, moves: int, seconds: float, rank_gap_at_start: int
) -> Classification:
    """How a finished game counts.

    ``reason`` is how it ended (``resignation``, ``time``, ``agreement`` for a draw by
    agreement, ``score``/``rules`` for a scored end); ``draw`` whether nobody won; ``moves``
    the moves both sides made together (passes included, White's automatic handicap passes
    not); ``seconds`` from the start to the end; ``rank_gap_at_start`` the players' rank
    distance when the game was made (*(project rule)*: friendliness is fixed at the start,
    so both players know what they play for)."""
    if reason in ("resignation", "time") and (
        moves < INVALID_MOVES or seconds <= INVALID_SECONDS
    ):
        return Classification("void", f"invalid: {reason} after {moves} moves "
                                      f"and {seconds:.0f} s")
    if reason == "agreement" and moves < DRAW_MIN_MOVES:
        return Classification("void", f"draw by agreement after {moves} moves (under 15)")
    if rank_gap_at_start >= FRIENDLY_GAP:
        return Classification("friendly", f"ranks {rank_gap_at_start} apart")
    return Classification("rated", "draw" if draw else "decisive")


# ---------------------------------------------------------------------------- colours
Result = Literal["win", "draw", "loss"]
_WORSE = {"loss": 0, "draw": 1, "win": 2}


@dataclass(frozen=True)
class ColourFacts:
    """What decides one player's colour: id, points, and the result of their last recorded
    game against anyone (None: no game yet)."""

    player: str
    points: int
    last_result: Result | None = None


def colours(
    a: ColourFacts, b: ColourFacts, last_meeting_black: str | None, rng: random.Random
) -> tuple[str, str]:
    """``(black, white)`` for a game between ``a`` and ``b``.

    * They met before (``last_meeting_black`` is who had Black in their last recorded game):
      they swap, so colours alternate from the second meeting on.
    * First meeting: the loser of their previous game takes Black; *(project rule)* results
      rank loss < draw < win, so of a loss and a draw the loss takes Black. When both results
      are the same, or either player has none, the one with fewer points takes Black; equal
      points: ``rng`` decides."""
    if last_meeting_black is not None:
        if last_meeting_black not in (a.player, b.player):
            raise ValueError(f"{last_meeting_black!r} is neither {a.player!r} nor {b.player!r}")
        return (b.player, a.player) if last_meeting_black == a.player else (a.player, b.player)
    if a.last_result is not None and b.last_result is not None:
        if _WORSE[a.last_result] != _WORSE[b.last_result]:
            worse_a = _WORSE[a.last_result] < _WORSE[b.last_result]
            return (a.player, b.player) if worse_a else (b.player, a.player)
    if a.points != b.points:
        return (a.player, b.player) if a.points < b.points else (b.player, a.player)
    return (a.player, b.player) if rng.random() < 0.5 else (b.player, a.player)


def handicap(points_black: int, points_white: int) -> int:
    """Handicap stones for a game where the players asked for one: the rank difference, the
    weaker side taking Black (White passes its first N moves, ``docs/rules/stereo-go.md``);
    0 when Black is not the weaker side."""
    gap = rank_of(points_white).index - rank_of(points_black).index
    return max(0, gap)


# ---------------------------------------------------------------------------- matching


@dataclass(frozen=True)
class Waiting:
    """One queued player: id, rank index, when they joined, and the key of the game options
    they asked for (only equal keys are paired)."""

    player: str
    rank: int
    since: float
    options: str = ""


def search_order(rank: int) -> tuple[int, ...]:
    """Ranks to look in, in order: the same rank, one lower, one higher (never further)."""
    return tuple(r for r in (rank, rank - 1, rank + 1) if 0 <= r < len(RANKS))


def pick_opponent(me: Waiting, others: Iterable[Waiting]) -> Waiting | None:
    """The opponent the matching order gives ``me``: by :func:`search_order`, and within a
    rank the longest-waiting (ties: the smaller id, so the choice is deterministic)."""
    pool = [o for o in others if o.player != me.player and o.options == me.options]
    for rank in search_order(me.rank):
        at = [o for o in pool if o.rank == rank]
        if at:
            return min(at, key=lambda o: (o.since, o.player))
    return None


def pair_all(waiting: Sequence[Waiting]) -> list[tuple[Waiting, Waiting]]:
    """Pair a whole queue: the longest-waiting player chooses first, by the matching order,
    then the longest-waiting of those left, and so on. Each pair is (chooser, chosen)."""
    left = sorted(waiting, key=lambda w: (w.since, w.player))
    pairs = []
    while left:
        me = left.pop(0)
        other = pick_opponent(me, left)
        if other is not None:
            left.remove(other)
            pairs.append((me, other))
    return pairs


@dataclass(frozen=True)
class Candidate:
    """A player who can always take a seat (an AI level): id, points."""

    player: str
    points: int


def pick_standing_opponent(me: Waiting, my_points: int,
                           candidates: Iterable[Candidate]) -> Candidate | None:
    """An always-available opponent (an AI level) for a player who waited long enough: by the
    matching order, and within a rank the nearest in points (ties: the smaller id)."""
    pool = [c for c in candidates if c.player != me.player]
    for rank in search_order(me.rank):
        at = [c for c in pool if rank_of(c.points).index == rank]
        if at:
            return min(at, key=lambda c: (abs(c.points - my_points), c.player))
    return None
