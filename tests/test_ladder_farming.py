"""A ladder that cannot be farmed, through the API (docs/ladder.md, "Repeated games"): a
rated game's AI level varies its opening, reproducibly per game, and a rated game against
an AI level that repeats one of the pair's last two games is not rated, with the reason.

The AI level is a tiny untrained network without simulations on 5x5 (it plays its prior:
deterministic unless varied, and fast); the person plays the same way every game, the
first legal move that is not a pass."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any

import pytest
from ladder_helpers import ladder_app, register
from serving_helpers import (
    FakeClock,
    auth,
    postgres_schema,
    tiny_checkpoint,
    wait_for,
    write_levels,
)

from agents.variety import OpeningVariety
from serving.ai import AIEngine
from serving.catalogue import apply_move, build_game
from serving.ladder import farming
from serving.levels import LevelRegistry
from serving.sessions.ai_seats import move_plan

SMALL = {"board": "5x5", "rules": "area"}
AI = "ai-board-5x5_rules-area-small"
PLIES = farming.OPENING_PLIES + 2  # played before the person resigns


@pytest.fixture()
def clock():
    return FakeClock()


@pytest.fixture()
def root(tmp_path):
    root = tmp_path / "checkpoints"
    folder = root / "stereo_go" / "board-5x5+rules-area"
    tiny_checkpoint(folder / "small.pt", game_id="stereo_go", options=SMALL)
    write_levels(root / "stereo_go", "board-5x5+rules-area", [
        {"id": "small", "label": "Small", "checkpoint": "small.pt", "elo": 100,
         "search": {"simulations": 0, "gumbel_scale": 0.0, "temperature": 0.0}},
    ], game_options=SMALL)
    return root


@pytest.fixture()
def client(tmp_path, clock, root):
    yield from ladder_app(tmp_path, clock, checkpoints_root=root)


def rated_game(client, clock, human: dict[str, Any]) -> dict[str, Any]:
    """One rated game against the AI level: the person plays the first legal move that is
    not a pass, and resigns after :data:`PLIES` moves in all (two minutes of fake clock)."""
    r = client.post("/v1/ladder/challenges", json={"opponent": AI, **SMALL},
                    headers=auth(human["token"]))
    assert r.status_code == 201 and r.json()["status"] == "accepted", r.text
    sid = r.json()["session"]
    s = client.get(f"/v1/sessions/{sid}").json()
    assert s["ladder"]["kind"] == "rated"
    mine = "black" if s["seats"]["black"].get("player") == human["id"] else "white"
    while len(s["moves"]) < PLIES:
        s = wait_for(lambda: (x := client.get(f"/v1/sessions/{sid}").json())
                     ["position"]["to_play"] == mine and x)
        if len(s["moves"]) >= PLIES:
            break
        move = next(m for m in s["position"]["legal_moves"] if m != "pass")
        r = client.post(f"/v1/sessions/{sid}/moves", json={"move": move, "version": s["version"]},
                        headers=auth(human["token"]))
        assert r.status_code == 200, r.text
        s = r.json()
    assert client.app.state.sessions.wait_idle(30)
    clock.advance(120)
    s = client.get(f"/v1/sessions/{sid}").json()
    r = client.post(f"/v1/sessions/{sid}/resign", json={"version": s["version"]},
                    headers=auth(human["token"]))
    assert r.status_code == 200, r.text
    return {**r.json(), "colour": mine, "plies": list(s["moves"])}


def test_two_rated_games_with_the_same_human_moves_diverge_within_20_plies(client, clock):
    lin = register(client, "Lin")
    games = [rated_game(client, clock, lin) for _ in range(3)]
    first, third = games[0], games[2]  # colours alternate: the first and third are alike
    assert first["colour"] == third["colour"] != games[1]["colour"]
    assert first["plies"][:20] != third["plies"][:20]
    assert [g["ladder"]["outcome"]["kind"] for g in games] == ["rated"] * 3


def test_the_variation_is_reproducible_for_the_same_game(client, clock, root):
    """A fresh engine (a restart, another replica) searching each position of a finished
    game again, with the plan the session gives, plays the very moves the AI played."""
    game = rated_game(client, clock, register(client, "Lin"))
    data = client.app.state.sessions.store.load(game["id"])
    engine = AIEngine(LevelRegistry(root, True), workers=1)
    try:
        board = build_game("stereo_go", data.config)
        events, state, replayed = list(data.events), board.initial_state(), 0
        assert [ev["t"] for ev in events[:PLIES]] == ["move"] * PLIES
        for ply, ev in enumerate(events):
            if ev["t"] != "move":  # the resignation, last
                continue
            if ev["by"] == "ai":
                then = data.copy()
                then.games[-1] = events[:ply]
                seed, variety = move_plan(then)
                assert seed is not None and (variety is not None) == (ply < 20)
                assert engine.analyse(board, state, "small", seed, variety).move == ev["m"]
                replayed += 1
            state = apply_move(board, state, ev["m"], ply)
        assert replayed >= PLIES // 2
    finally:
        engine.close()


def test_a_rated_game_repeating_one_of_the_pairs_last_two_is_not_rated(
    client, clock, monkeypatch
):
    # Without the variety the level plays the same game against the same moves.
    monkeypatch.setattr(farming, "VARIETY", OpeningVariety(plies=0))
    _repeated_game(client, clock)


def test_the_repeat_rule_on_postgresql(tmp_path, clock, root, monkeypatch, postgres_url):
    monkeypatch.setattr(farming, "VARIETY", OpeningVariety(plies=0))
    with postgres_schema(postgres_url) as url:
        app = contextmanager(ladder_app)(tmp_path, clock, checkpoints_root=root,
                                         database_url=url)
        with app as client:
            assert client.get("/v1/health").json()["database"] == "postgresql"
            _repeated_game(client, clock)


def _repeated_game(client, clock) -> None:
    """Three rated games, the person playing the same way: the third repeats the first (the
    pair's game two back): not rated, with the reason; the first two are rated."""
    lin = register(client, "Lin")
    first, second, third = (rated_game(client, clock, lin) for _ in range(3))
    assert first["plies"] == third["plies"] and first["colour"] == third["colour"]
    assert [g["ladder"]["outcome"]["kind"] for g in (first, second)] == ["rated", "rated"]
    outcome = third["ladder"]["outcome"]
    first_id = first["ladder"]["game"]
    why = f"repeats game {first_id}: the same first 20 plies and winner"
    assert outcome["kind"] == "unrated" and outcome["why"] == why
    colour = third["colour"]
    assert outcome["results"][colour] == "loss"
    assert outcome["points"][colour]["before"] == outcome["points"][colour]["after"]
    me = client.get(f"/v1/players/{lin['id']}").json()
    assert me["losses"] == 2 and me["games_total"] == 3  # recorded, not counted
    line = me["games"][0]
    assert line["game"] == third["ladder"]["game"]
    assert (line["kind"], line["rated"], line["unrated_reason"]) == ("unrated", False, why)
    assert line["points"]["change"] == 0 and line["result"] == "loss"
    assert [g["rated"] for g in me["games"][1:]] == [True, True]
    ai = client.get(f"/v1/players/{AI}").json()
    assert ai["wins"] == 2
