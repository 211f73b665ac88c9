"""Levels keyed by game options: a game played with some options gets the levels trained for
exactly those options (checkpoints/<game>/<options key>/levels.json), and the catalogue lists
every trained configuration."""

from __future__ import annotations

import json

import pytest
from serving_helpers import client_for, tiny_checkpoint, write_levels

import envs
from agents.players import level_player, levels_folder

SMALL = {"board": "5x5", "rules": "area"}


def test_options_key_names_the_changed_options() -> None:
    assert envs.options_key(envs.make_game("stereo_go")) == ""
    game = envs.make_game("stereo_go", rules="area", board="5x5", komi=7.5)
    assert envs.options_key(game) == "board-5x5+rules-area"  # sorted; komi is the default
    assert envs.changed_options(game) == {"board": "5x5", "rules": "area"}
    assert envs.options_key(envs.make_game("trigolden", scoring="trigolden")) == (
        "scoring-trigolden"
    )


@pytest.fixture
def root(tmp_path):
    root = tmp_path / "checkpoints"
    folder = root / "stereo_go" / "board-5x5+rules-area"
    tiny_checkpoint(folder / "small.pt", game_id="stereo_go", options=SMALL)
    write_levels(root / "stereo_go", "board-5x5+rules-area", [
        {"id": "small", "label": "Small", "checkpoint": "small.pt", "elo": 100,
         "search": {"simulations": 4}},
    ], game_options=SMALL)
    return root


def test_the_levels_of_a_configuration_serve_exactly_it(tmp_path, root) -> None:
    with client_for(tmp_path, checkpoints_root=root) as c:
        listing = c.get("/v1/games/stereo_go/levels").json()
        # The default options have no trained levels: the baseline ladder.
        assert [lv["source"] for lv in listing["levels"]] == ["baseline", "baseline"]
        (variant,) = listing["variants"]
        assert variant["key"] == "board-5x5+rules-area" and variant["options"] == SMALL
        # beside the trained level, the anchor (uniform random) only, never pure MCTS
        assert [lv["id"] for lv in variant["levels"]] == ["random", "small"]

        chosen = c.get("/v1/games/stereo_go/levels", params={"config": json.dumps(SMALL)}).json()
        assert [lv["id"] for lv in chosen["levels"]] == ["random", "small"]
        assert chosen["default"] == "small"
        for bad in ("{not json", '{"board": "4x4"}', '["board"]'):
            r = c.get("/v1/games/stereo_go/levels", params={"config": bad})
            assert r.status_code == 422 and r.json()["error"] == "invalid_input", bad

        r = c.post("/v1/games/stereo_go/suggest", json={"config": SMALL, "level": "small"})
        assert r.status_code == 200, r.text
        assert r.json()["level"] == "small"
        # The same board with the other rules has no such level.
        other = {"board": "5x5", "rules": "territory"}
        r = c.post("/v1/games/stereo_go/suggest", json={"config": other, "level": "small"})
        assert r.status_code == 404 and "known levels: random" in r.json()["message"]

        session = c.post("/v1/sessions", json={
            "game": "stereo_go", "config": SMALL,
            "seats": {"black": {"type": "ai", "level": "small"}, "white": {"type": "human"}},
        })
        assert session.status_code == 201, session.text


def test_training_tools_find_the_levels_of_a_configuration(root) -> None:
    game = envs.make_game("stereo_go", **SMALL)
    assert levels_folder(game, root) == root / "stereo_go" / "board-5x5+rules-area"
    assert level_player(game, "small", root).cfg.simulations == 4
    with pytest.raises(envs.ConfigError, match="with these options"):
        level_player(envs.make_game("stereo_go"), "small", root)


def test_a_ladder_calibrated_again_serves_networks_trained_with_other_options(tmp_path) -> None:
    """``qizero levels --from-levels`` copies the networks as trained (here with territory
    scoring) beside a ladder calibrated for area scoring: the rules are an input plane, so the
    service plays them; a network for another board is refused with a clear message."""
    root = tmp_path / "checkpoints"
    folder = root / "stereo_go" / "board-5x5+rules-area"
    tiny_checkpoint(folder / "territory.pt", game_id="stereo_go", options={"board": "5x5"})
    tiny_checkpoint(folder / "nine.pt", game_id="stereo_go", options={"board": "9x9"})
    write_levels(root / "stereo_go", "board-5x5+rules-area", [
        {"id": "1", "label": "Calibrated again", "checkpoint": "territory.pt", "elo": 100,
         "search": {"simulations": 4}},
        {"id": "2", "label": "Other board", "checkpoint": "nine.pt", "elo": 200,
         "search": {"simulations": 4}},
    ], game_options=SMALL)
    with client_for(tmp_path, checkpoints_root=root) as c:
        r = c.post("/v1/games/stereo_go/suggest", json={"config": SMALL, "level": "1"})
        assert r.status_code == 200, r.text
        r = c.post("/v1/games/stereo_go/suggest", json={"config": SMALL, "level": "2"})
        assert r.status_code == 422 and "board or actions differ" in r.json()["message"]

