"""The levels file's one model (agents.levels_file): every shipped ladder reads and writes back
byte for byte, the default-level rule, and clear errors for a broken file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.levels_file import LEVELS_FILE, LevelEntry, LevelsFile, LevelsFileError
from envs.core import ConfigError

REPO = Path(__file__).resolve().parent.parent
SHIPPED = sorted((REPO / "checkpoints").glob(f"**/{LEVELS_FILE}"))


def _file(**extra) -> dict:
    return {"levels": [{"id": 1, "label": "one", "player": "random"},
                       {"id": 2, "label": "two", "player": "mcts:8"},
                       {"id": 3, "label": "three", "player": "mcts:16"}], **extra}


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(REPO)))
def test_every_shipped_ladder_round_trips_byte_for_byte(path: Path, tmp_path: Path) -> None:
    ladder = LevelsFile.read(path)
    assert ladder.game and all(lv.checkpoint for lv in ladder.levels)
    written = ladder.write(tmp_path / LEVELS_FILE)
    assert written.read_text() == path.read_text()
    assert LevelsFile.read(tmp_path) == ladder  # a folder names the file inside it


def test_the_default_is_the_files_else_the_middle_of_the_ladder() -> None:
    assert LevelsFile.from_json(_file()).default_id == "2"
    assert LevelsFile.from_json(_file()).default_level().label == "two"
    named = LevelsFile.from_json(_file(default="three"))
    assert named.default_id == "three" and named.default_level().id == 3
    assert LevelsFile.from_json({"levels": []}).default_id is None


def test_levels_are_found_by_id_or_label_and_a_miss_names_the_known_ones() -> None:
    ladder = LevelsFile.from_json(_file(game="jiugong"))
    assert ladder.find("3") is ladder.find("three")
    with pytest.raises(LevelsFileError, match=r"no level 'x' for jiugong; known levels: 1 \(one\)"):
        ladder.find("x")


def test_an_interval_given_as_low_and_high_is_read_as_elo_ci() -> None:
    entry = LevelEntry.from_json(
        {"id": "a", "player": "random", "elo": 10, "elo_low": 1, "elo_high": 20}, 0)
    assert entry.elo == 10.0 and entry.elo_ci == (1.0, 20.0) and entry.label == "a"
    assert entry.to_json() == {"id": "a", "label": "a", "player": "random", "elo": 10.0,
                               "elo_ci": [1.0, 20.0]}


@pytest.mark.parametrize(("data", "message"), [
    ([], "must be an object with a 'levels' list"),
    ({"levels": [{"label": "x"}]}, "level 0 must be an object with an 'id'"),
    ({"levels": [{"id": 1, "player": "random", "checkpoint": "a.pt"}]}, "exactly one of"),
    ({"levels": [{"id": 1}]}, "exactly one of"),
    ({"levels": [{"id": 1, "player": "random", "elo": "high"}]}, "elo must be a number"),
    ({"levels": [], "format_version": 2}, "format version 2"),
    ({"levels": [], "game_options": []}, "'game_options' in a levels file must be an object"),
])
def test_a_broken_file_gets_an_error_naming_the_problem(data, message) -> None:
    with pytest.raises(LevelsFileError, match=message):
        LevelsFile.from_json(data)


def test_reading_names_the_file_and_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / LEVELS_FILE).write_text("{not json")
    with pytest.raises(ConfigError, match=f"cannot read {tmp_path / LEVELS_FILE}"):
        LevelsFile.read(tmp_path)
    with pytest.raises(LevelsFileError, match="cannot read"):
        LevelsFile.read(tmp_path / "missing" / LEVELS_FILE)


def test_written_files_leave_out_what_has_no_value(tmp_path: Path) -> None:
    ladder = LevelsFile(levels=(LevelEntry(id=1, label="raw", checkpoint="a.pt",
                                           search={"simulations": 0}),), game="jiugong")
    data = json.loads(ladder.write(tmp_path / LEVELS_FILE).read_text())
    assert data == {"format_version": 1, "game": "jiugong", "game_options": {},
                    "levels": [{"id": 1, "label": "raw", "checkpoint": "a.pt",
                                "search": {"simulations": 0}}]}
    assert not list(tmp_path.glob("*.tmp"))
