"""The ladder bench (bench/ladder_levels.py): its entrants, games played side by side, and
real games reused by who played them (a level's fingerprint), whatever its level id is now."""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.ladder_levels import Entrant, entrants, measure, play, reused  # noqa: E402

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
