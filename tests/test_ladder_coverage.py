"""The shipped AI levels cover the ladder: every level starts at measured points, and for each
option set with trained levels every rank from 18K up to its strongest level has an AI level
within one rank (the matching never pairs players further apart), counting every AI player
that plays the set (its levels and the anchor, uniform random, which plays every set), and
every level's label has a name in both languages where the web client shows it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from serving.ladder.ai_players import (
    ANCHOR,
    BASELINE,
    ai_levels,
    calibrated_points,
    game_config,
    ranks_without_ai,
)
from serving.levels import LevelRegistry

REPO = Path(__file__).resolve().parent.parent
ROOT = REPO / "checkpoints"
LEVELS = LevelRegistry(ROOT)
PLAYERS = ai_levels(LEVELS)
TRAINED = [ai for ai in PLAYERS if ai.key != BASELINE]
KEYS = sorted({ai.key for ai in TRAINED})


def _holes(key: str) -> list[str]:
    """The ranks without an AI level within one rank among the players of the option set
    trained as ``key``: those the matching can give a player who asks for its options."""
    options = LEVELS.table("stereo_go", key).options
    mine = [ai for ai in PLAYERS if game_config(ai, options, LEVELS) is not None]
    points = calibrated_points(ROOT, mine)
    return ranks_without_ai([points[ai.player_id] for ai in mine if ai.player_id in points])


def test_ranks_without_ai_are_the_ranks_no_level_is_within_one_of() -> None:
    k = 1_000  # one kyu rank's width
    assert ranks_without_ai([]) == []
    assert ranks_without_ai([0]) == []  # 18K alone: nothing above it to cover
    assert ranks_without_ai([2 * k + 5]) == ["18K"]  # 16K: 17K is within one, 18K is not
    assert ranks_without_ai([0, 3 * k, 6 * k]) == []  # 18K, 15K, 12K: each gap two ranks
    assert ranks_without_ai([0, 4 * k]) == ["16K"]  # 18K, 14K: 16K is two from both
    assert ranks_without_ai([1 * k, 12 * k, 42_651]) == [  # 17K, 6K, 1D
        "15K", "14K", "13K", "12K", "11K", "10K", "9K", "8K", "4K", "3K", "2K"]
    assert ranks_without_ai([16_500, 17_000, 18_000]) == ["18K", "17K", "16K", "15K", "14K",
                                                          "13K", "12K", "11K", "10K", "9K",
                                                          "8K", "7K", "6K", "5K", "4K"]


def test_every_shipped_level_starts_at_measured_points() -> None:
    measured = calibrated_points(ROOT, PLAYERS)  # the anchor by definition
    unmeasured = [ai.player_id for ai in PLAYERS if ai.player_id not in measured]
    assert not unmeasured, (
        f"{unmeasured}: no points in checkpoints/stereo_go/ladder.json for what they are now; "
        "run bench/ladder_levels.py --config <their options> --extra random --reuse --write")


def test_the_anchor_plays_every_option_set_and_covers_the_bottom_ranks() -> None:
    """Uniform random (0 points, 18K, by definition) plays every trained option set and pure
    MCTS none (measured only where nothing was trained), so a newcomer at 18K or 17K always
    has an AI level within one rank."""
    for key in KEYS:
        options = LEVELS.table("stereo_go", key).options
        baselines = {ai.player_id for ai in PLAYERS if ai.key == BASELINE
                     and game_config(ai, options, LEVELS) is not None}
        assert baselines == {ANCHOR}, key
        assert not {"18K", "17K"} & set(_holes(key)), key


#: The option sets whose levels still leave ranks open (docs/ladder.md, "What is left, and
#: why": gaps between levels on the cylinders), so the goal is marked as not met there yet;
#: strict, so the day it is met the marker must go.
STILL_OPEN = {"", "max_moves-400+rules-area"}


def _coverage_case(key: str) -> object:
    marks = [pytest.mark.xfail(strict=True, reason="ranks without an AI level remain: "
                               "docs/ladder.md")] if key in STILL_OPEN else []
    return pytest.param(key, marks=marks, id=key or "default")


@pytest.mark.parametrize("key", [_coverage_case(k) for k in KEYS])
def test_the_levels_of_each_option_set_leave_no_rank_without_an_ai(key: str) -> None:
    holes = _holes(key)
    assert holes == [], f"options {key or 'default'}: no AI level within one rank of {holes}"


def _names(path: Path, prefix: str) -> dict[str, set[str]]:
    """The labels ``path`` names, per language block (en, zh)."""
    text = path.read_text()
    blocks = dict(re.findall(r"\n  (en|zh): \{(.*?)\n  \}", text, re.S))
    return {lang: set(re.findall(rf"'{re.escape(prefix)}([A-Za-z]+)':", body))
            for lang, body in blocks.items()}


def test_every_shipped_level_label_has_a_name_in_both_languages() -> None:
    """One table names the levels for every screen (the ladder's included)."""
    names = _names(REPO / "serving" / "static" / "js" / "i18n" / "levels.js", "level.")
    assert set(names) == {"en", "zh"}
    labels = {ai.entry.label for ai in TRAINED}
    for lang in ("en", "zh"):
        assert labels <= names[lang], f"levels.js ({lang}) lacks {sorted(labels - names[lang])}"
