"""The anchor, uniform random (0 points, 18K, by definition), plays every Stereo Go option set
on the ladder, trained or not, while pure MCTS plays only options without trained levels (its
strength was measured only there): an 18K newcomer on 9x9 or the cylinder, either scoring
rule, is matched with it and plays a rated game it really moves in; it is one ladder player,
listed once on the leaderboard, and in the catalogue in every table it plays beside."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ladder_helpers import ladder_app, queue, queue_state, register
from serving_helpers import FakeClock, auth, wait_for

from serving.ladder.ai_players import ai_levels, game_config, option_set
from serving.levels import LevelRegistry

NINE = {"board": "9x9"}
CYLINDER_AREA = {"board": "cylinder", "rules": "area", "max_moves": 400}
TRAINED = {"board-9x9": NINE, "max_moves-400+rules-area": CYLINDER_AREA}


def _root(tmp_path: Path) -> Path:
    """Checkpoints with two trained option sets (9x9; the cylinder, area, 400-move cap), two
    levels each (pure-MCTS players: no networks to load), measured at 16K; pure MCTS 32
    measured at 0 points, so it would take a newcomer's seat wherever it were offered (ties
    go to the smaller id: ``ai-mcts32`` before ``ai-random``)."""
    root = tmp_path / "checkpoints"
    measured: dict[str, Any] = {"ai-mcts32": {"points": 0}}
    for key, options in TRAINED.items():
        folder = root / "stereo_go" / key
        folder.mkdir(parents=True)
        (folder / "levels.json").write_text(json.dumps({
            "game": "stereo_go", "game_options": options, "anchor": "random",
            "levels": [{"id": 1, "label": "low", "player": "mcts:2", "elo": 150},
                       {"id": 2, "label": "high", "player": "mcts:4", "elo": 300}]}))
    for ai in ai_levels(LevelRegistry(root)):
        if ai.options is not None:
            measured[ai.player_id] = {"points": 2_500, "fingerprint": ai.fingerprint}
    (root / "stereo_go" / "ladder.json").write_text(json.dumps({"players": measured}))
    return root


def test_random_plays_every_option_set_and_pure_mcts_only_untrained_ones(tmp_path) -> None:
    levels = LevelRegistry(_root(tmp_path))
    baselines = {ai.player_id: ai for ai in ai_levels(levels) if ai.options is None}
    assert set(baselines) == {"ai-random", "ai-mcts32"}  # one player each, whatever the board

    def who(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
        return {pid: own for pid, ai in baselines.items()
                if (own := game_config(ai, config, levels)) is not None}

    assert who(NINE) == {"ai-random": NINE}
    # a ladder player asks for no move cap: the game is the trained set's, capped at 400
    assert who({"rules": "area"}) == {"ai-random": CYLINDER_AREA}
    assert who(CYLINDER_AREA) == {"ai-random": CYLINDER_AREA}
    assert who({"board": "7x7"}) == {"ai-random": {"board": "7x7"},
                                     "ai-mcts32": {"board": "7x7"}}
    assert option_set({"rules": "area"}, levels).key == "max_moves-400+rules-area"
    assert option_set({"board": "7x7"}, levels).key is None


@pytest.fixture()
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture()
def client(tmp_path, clock):
    yield from ladder_app(tmp_path, clock, checkpoints_root=_root(tmp_path))


@pytest.mark.parametrize(("asked", "played"), [
    ({"board": "9x9"}, NINE),
    ({"rules": "area"}, CYLINDER_AREA),
], ids=["9x9", "cylinder-area"])
def test_an_18k_newcomer_who_waits_plays_a_rated_game_against_random(
    client, clock, asked: dict[str, Any], played: dict[str, Any]
) -> None:
    lin = register(client, "Lin")
    assert queue(client, lin, **asked).json()["status"] == "waiting"
    clock.advance(31)
    client.app.state.ladder.matcher.fill_with_ai()
    state = queue_state(client, lin)
    assert state["status"] == "playing", state
    game = state["game"]
    assert game["opponent"] == "ai-random"  # not the 16K levels, nor pure MCTS at 0 points
    s = client.get(f"/v1/sessions/{game['session']}").json()
    assert s["ladder"]["kind"] == "rated" and s["config"] == played
    ai_colour = "white" if game["colour"] == "black" else "black"
    assert s["seats"][ai_colour] == {"type": "ai", "level": "random", "player": "ai-random"}
    if game["colour"] == "black":  # Lin opens; then the AI answers
        mv = next(m for m in s["position"]["legal_moves"] if m != "pass")
        r = client.post(f"/v1/sessions/{s['id']}/moves", json={"move": mv,
                        "version": s["version"]}, headers=auth(lin["token"]))
        assert r.status_code == 200, r.text
    moves = 2 if game["colour"] == "black" else 1
    wait_for(lambda: len(client.get(f"/v1/sessions/{s['id']}").json()["moves"]) >= moves)


def test_pure_mcts_takes_no_trained_option_set_even_by_challenge(client) -> None:
    lin = register(client, "Lin")
    for options in ({"board": "9x9"}, {"rules": "area"}):
        r = client.post("/v1/ladder/challenges", json={"opponent": "ai-mcts32", **options},
                        headers=auth(lin["token"]))
        assert r.status_code == 409 and "does not play" in r.json()["message"], r.text
    r = client.post("/v1/ladder/challenges", json={"opponent": "ai-random", "board": "9x9"},
                    headers=auth(lin["token"]))
    assert r.status_code == 201 and r.json()["status"] == "accepted", r.text


def test_random_is_one_player_on_the_leaderboard_and_in_every_table_it_plays(client) -> None:
    board = client.get("/v1/ladder/leaderboard", params={"limit": 100}).json()["players"]
    randoms = [p for p in board if p["ai"] is not None and p["ai"]["label"] == "Random"]
    assert [p["id"] for p in randoms] == ["ai-random"]
    assert randoms[0]["ai"]["options"] is None  # not one option set's: it plays them all
    assert len({p["id"] for p in board}) == len(board)
    listing = client.get("/v1/games/stereo_go/levels").json()
    tables = {v["key"]: v["levels"] for v in listing["variants"]}
    tables["untrained default"] = listing["levels"]  # no levels.json for the default options
    assert set(tables) == {*TRAINED, "untrained default"}
    for key, table in tables.items():
        (anchor,) = [lv for lv in table if lv["id"] == "random"]
        assert anchor["ladder"] == {"player": "ai-random", "measured": True, "rank": "18K",
                                    "points": 0}, key
        assert anchor["elo"] == 0.0, key  # each file's Elo is anchored at random
    assert not any(lv["id"] == "mcts32" for key in TRAINED for lv in tables[key])
