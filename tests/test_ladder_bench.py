"""The ladder bench (bench/ladder_levels.py): its entrants, games played side by side, and
real games reused by who played them (a level's fingerprint), whatever its level id is now."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.ladder_levels import (  # noqa: E402
    Copy,
    Entrant,
    Spread,
    entrants,
    hypothetical,
    labels,
    measure,
    play,
    replayed,
    reused,
    season,
    season_spread,
    win_rate,
)
from serving.ladder.ai_players import ranks_without_ai  # noqa: E402

NINE = {"board": "9x9"}


def _ai(name: str, fingerprint: str) -> Entrant:
    return Entrant(name, f"ai-{name}", f"level:{name[-1]}", NINE, fingerprint, "label")


def test_the_anchor_enters_every_option_set_once(tmp_path: Path) -> None:
    """On trained options the service's levels and the anchor (``ai-random``) enter; an extra
    ``random`` is that anchor, not a second one; pure MCTS 32 does not play there."""
    folder = tmp_path / "stereo_go" / "board-9x9"
    folder.mkdir(parents=True)
    (folder / "levels.json").write_text(json.dumps({
        "game": "stereo_go", "game_options": NINE,
        "levels": [{"id": 1, "label": "low", "player": "mcts:2"}]}))
    found = {e.name: e for e in entrants(NINE, ["random", "mcts:8"], tmp_path)}
    assert set(found) == {"board-9x9-1", "random", "mcts8"}
    assert (found["random"].player_id, found["random"].config) == ("ai-random", NINE)
    untrained = entrants({"board": "7x7"}, ["random"], tmp_path)
    assert [e.player_id for e in untrained] == ["ai-random", "ai-mcts32"]


def test_games_side_by_side_end_and_are_told_apart_by_colour() -> None:
    random = Entrant("random", None, "random", NINE)
    mcts = Entrant("mcts8", None, "mcts:8", NINE)
    games = [(random, mcts, 1, 2, 7), (mcts, random, 1, 2, 7), (random, random, 3, 0, 0)]
    results = play(games)
    assert len(results) == 3
    for winner, moves in results:
        assert winner in ("black", "white", None) and moves > 2
    tally = measure([random, mcts], 4, 1, 0, lambda _: None)
    assert list(tally) == [("random", "mcts8")] and tally[("random", "mcts8")][1] == 4
    assert measure([random, mcts], 4, 1, 0, lambda _: None,
                   known=frozenset({frozenset(("random", "mcts8"))})) == {}


def test_games_are_reused_by_fingerprint_not_by_level_id(tmp_path: Path) -> None:
    path = tmp_path / "ladder.json"
    older = {"config": NINE, "results": {"board-9x9-1|board-9x9-2": [1.0, 8]},
             "identities": {"board-9x9-1": "aaa", "board-9x9-2": "old"}}
    newest = {"config": NINE, "results": {"board-9x9-1|board-9x9-2": [3.0, 8],
                                          "board-9x9-1|random": [8.0, 8]}}
    other = {"config": {}, "results": {"1|random": [0.0, 8]}}
    path.write_text(json.dumps({"players": {
        "ai-board-9x9-1": {"config": NINE, "fingerprint": "aaa"},
        "ai-board-9x9-2": {"config": NINE, "fingerprint": "bbb"}},
        "runs": [older, newest, other]}))
    # A level inserted below them: the old levels are now 2 and 3, the new one 1.
    found = [_ai("board-9x9-1", "new"), _ai("board-9x9-2", "aaa"), _ai("board-9x9-3", "bbb"),
             Entrant("random", None, "random", NINE)]
    matrix = reused(path, NINE, found)
    # The newest run's names are read from the players' fingerprints; the older run's
    # "board-9x9-2" was another network ("old"), so none of its games are taken.
    assert matrix == {("board-9x9-2", "board-9x9-3"): (3.0, 8),
                      ("board-9x9-2", "random"): (8.0, 8)}
    assert reused(path, {"board": "9x9", "rules": "area"}, found) == {}


# A stored matrix of three levels and the anchor: each level beats the one below in 6 of 8
# games, so their copies settle ranks apart, and wander from season to season.
_LADDER = [Entrant("random", "ai-random", "random", NINE)] + [
    _ai(f"board-9x9-{k}", f"f{k}") for k in (1, 2, 3)]
_MATRIX = {(a.name, b.name): (float(5 + i - j), 8)
           for i, a in enumerate(_LADDER) for j, b in enumerate(_LADDER) if i > j}


def _copies() -> list[Copy]:
    return [Copy(e, i) for e in _LADDER for i in range(2)]


def _one_season(seed: int) -> dict[str, dict]:
    copies = _copies()
    season(copies, 300, _MATRIX, seed, "random")
    return labels(copies)


def test_a_spread_is_the_seasons_of_consecutive_seeds() -> None:
    """Season k of a spread is the single season of seed k (so --seasons 1 is today's
    season, and the first of N is the season of --seed); seeds differ, so seasons do."""
    spread = season_spread(_copies, 300, _MATRIX, [7, 8, 9, 10, 11], "random")
    alone = [_one_season(s) for s in (7, 8, 9, 10, 11)]
    assert spread.seeds == (7, 8, 9, 10, 11) and list(spread.labels) == alone
    assert season_spread(_copies, 300, _MATRIX, [7], "random").labels == (alone[0],)
    points = {tuple(lab[e.name]["points"] for e in _LADDER) for lab in alone}
    assert len(points) > 1  # one seed for every season would give one result
    assert alone[0]["random"]["points"] == 0  # the anchor stays pinned
    for e in _LADDER:
        assert sum(k for _, k in spread.ranks(e.name)) == 5
    holes = [ranks_without_ai([lab[e.name]["points"] for e in _LADDER]) for lab in alone]
    assert list(spread.holes) == holes
    assert spread.without_holes == sum(not h for h in holes)
    assert 0 < spread.without_holes < 5  # these seeds leave a rank open in some seasons only


def test_play_again_names_entrants_or_single_pairs() -> None:
    """--play-again takes an entrant (all its pairs) or one pair as A|B, in either order."""
    assert replayed(("a", "b"), ["a"]) and replayed(("a", "b"), ["b"])
    assert replayed(("a", "b"), ["a|b"]) and replayed(("a", "b"), ["b|a"])
    assert not replayed(("a", "b"), ["a|c", "c"]) and not replayed(("a", "b"), [])


def _label(points: int, served: bool = True) -> dict:
    from serving.ladder.rules import rank_of

    return {"points": points, "rank": rank_of(points).name,
            "player_id": "ai-x" if served else None}


def test_the_spread_counts_holes_of_served_levels_only() -> None:
    """Hand-made seasons: 18K and 16K leave nothing open; 18K and 14K leave 16K; 18K and
    13K leave 16K and 15K; a reference player (no player id) at 16K closes nothing."""
    seasons = (
        {"random": _label(0), "a": _label(2_500)},
        {"random": _label(0), "a": _label(4_200), "ref": _label(2_000, served=False)},
        {"random": _label(0), "a": _label(5_900)},
        {"random": _label(0), "a": _label(2_100)},
    )
    spread = Spread((0, 1, 2, 3), seasons)
    assert spread.holes == ([], ["16K"], ["16K", "15K"], [])
    assert spread.without_holes == 2
    assert spread.common_holes() == [("16K", 2), ("15K", 1)]
    assert spread.ranks("a") == [("13K", 1), ("14K", 1), ("16K", 2)]
    assert spread.median_points("a") == (2_500 + 4_200) / 2
    stored = spread.median_labels()  # what --write keeps after several seasons
    assert stored["a"]["points"] == 3_350 and stored["a"]["rank"] == "15K"
    assert stored["random"]["points"] == 0 and stored["a"]["seasons"] == 4
    assert stored["a"]["player_id"] == "ai-x" and "ref" not in stored  # first season's names


def test_what_if_levels_win_as_their_elo_says(tmp_path: Path) -> None:
    """``--what-if``: a hypothetical level beats each entrant, and the next hypothetical one,
    as often as the ladder's Elo difference says (random = 0); an entrant without an Elo on
    that scale is refused."""
    folder = tmp_path / "stereo_go" / "board-9x9"
    folder.mkdir(parents=True)
    (folder / "levels.json").write_text(json.dumps({
        "game": "stereo_go", "game_options": NINE,
        "levels": [{"id": 1, "label": "low", "player": "mcts:2", "elo": 400.0}]}))
    found = entrants(NINE, ["random"], tmp_path)
    matrix: dict[tuple[str, str], tuple[float, int]] = {}
    added = hypothetical(found, matrix, NINE, [400.0, 800.0], tmp_path)
    assert [e.name for e in added] == ["what-if-400", "what-if-800"]
    assert all(e.player_id for e in added)  # counted as levels where ranks are open
    assert win_rate(matrix, "what-if-400", "board-9x9-1") == pytest.approx(0.5)
    assert win_rate(matrix, "what-if-400", "random") == pytest.approx(10 / 11)
    assert win_rate(matrix, "what-if-800", "what-if-400") == pytest.approx(10 / 11)
    assert win_rate(matrix, "random", "what-if-800") == pytest.approx(1 / 101, abs=1e-5)
    with pytest.raises(ValueError, match="no Elo for mcts8"):
        hypothetical(entrants(NINE, ["mcts:8"], tmp_path), {}, NINE, [500.0], tmp_path)
