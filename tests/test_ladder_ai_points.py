"""AI levels start on the ladder at the points measured for what they are now: a label in
ladder.json counts only for the same weights and search (its fingerprint)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from serving_helpers import client_for, tiny_checkpoint

from serving.ladder.ai_players import ai_levels, ai_name, calibrated_points, fingerprint
from serving.ladder.rules import rank_of
from serving.ladder.store import PlayerRow
from serving.levels import Level, LevelRegistry

SEARCH = {"algorithm": "gumbel", "simulations": 8}


def _ladder_root(tmp_path: Path) -> Path:
    """A checkpoints root with a two-level 9x9 ladder (two tiny networks)."""
    root = tmp_path / "checkpoints"
    folder = root / "stereo_go" / "board-9x9"
    for seed in (0, 1):
        tiny_checkpoint(folder / f"net{seed}.pt", "stereo_go", seed, {"board": "9x9"})
    (folder / "levels.json").write_text(json.dumps({"game": "stereo_go", "levels": [
        {"id": 1, "label": "low", "checkpoint": "net0.pt", "search": {"simulations": 0}},
        {"id": 2, "label": "high", "checkpoint": "net1.pt", "search": SEARCH},
    ], "game_options": {"board": "9x9"}}))
    return root


def _measured(root: Path, players: dict[str, dict]) -> None:
    (root / "stereo_go" / "ladder.json").write_text(json.dumps({"players": players}))


def test_a_fingerprint_changes_with_the_weights_and_the_search(tmp_path: Path) -> None:
    a = tiny_checkpoint(tmp_path / "a.pt", "stereo_go", 0, {"board": "9x9"})
    b = tiny_checkpoint(tmp_path / "b.pt", "stereo_go", 1, {"board": "9x9"})
    level = Level("5", "master", checkpoint=a, search=SEARCH)
    same = fingerprint(level)
    assert same == fingerprint(Level("5", "another label", checkpoint=a, search=dict(SEARCH)))
    assert same != fingerprint(Level("5", "master", checkpoint=b, search=SEARCH))
    assert same != fingerprint(Level("5", "master", checkpoint=a,
                                     search={**SEARCH, "simulations": 64}))
    # Gumbel's batches make the sequential search's moves: the same strength.
    assert same == fingerprint(Level("5", "master", checkpoint=a, search={**SEARCH, "batch": 16}))
    puct = {**SEARCH, "algorithm": "puct"}
    assert fingerprint(Level("5", "master", checkpoint=a, search=puct)) != fingerprint(
        Level("5", "master", checkpoint=a, search={**puct, "batch": 16}))  # virtual loss
    assert fingerprint(Level("random", "Random", player="random")) == "baseline:random"
    missing = fingerprint(Level("5", "master", checkpoint=tmp_path / "gone.pt"))
    assert missing.startswith("unreadable:")


def test_points_count_only_for_the_level_they_were_measured_for(tmp_path: Path) -> None:
    root = _ladder_root(tmp_path)
    players = {ai.player_id: ai for ai in ai_levels(LevelRegistry(root))}
    low, high = players["ai-board-9x9-1"], players["ai-board-9x9-2"]
    _measured(root, {
        low.player_id: {"points": 3_000, "fingerprint": low.fingerprint},
        high.player_id: {"points": 9_000, "fingerprint": "0123456789abcdef"},  # old network
        "ai-mcts32": {"points": 8_000},  # a baseline: its code is its identity
        "ai-random": {"points": 500, "fingerprint": "baseline:mcts32"},  # not this one
    })
    points = calibrated_points(root, list(players.values()))
    # the anchor is 0 points by definition, whatever the file says of it
    assert points == {low.player_id: 3_000, "ai-mcts32": 8_000, "ai-random": 0}


@pytest.mark.parametrize("content", ["{not json", '{"players": [1, 2]}',
                                     '{"players": {"ai-1": {"rank": "9K"}}}'])
def test_an_unreadable_calibration_file_measures_only_the_anchor(
    tmp_path: Path, content: str
) -> None:
    root = _ladder_root(tmp_path)
    (root / "stereo_go" / "ladder.json").write_text(content)
    assert calibrated_points(root, ai_levels(LevelRegistry(root))) == {"ai-random": 0}


def test_the_service_seeds_ai_players_with_their_own_measured_points(tmp_path: Path) -> None:
    root = _ladder_root(tmp_path)
    players = {ai.player_id: ai for ai in ai_levels(LevelRegistry(root))}
    _measured(root, {
        "ai-board-9x9-1": {"points": 3_000, "fingerprint": players["ai-board-9x9-1"].fingerprint},
        "ai-board-9x9-2": {"points": 9_000, "fingerprint": "0123456789abcdef"},
    })
    with client_for(tmp_path, checkpoints_root=root) as c:
        low = c.get("/v1/players/ai-board-9x9-1").json()
        high = c.get("/v1/players/ai-board-9x9-2").json()
    assert (low["points"], low["rank"]) == (3_000, rank_of(3_000).name)
    assert (high["points"], high["rank"]) == (0, "18K")  # measured for other weights


def _set_points(tmp_path: Path, player_id: str, points: int, fingerprint: str | None = "keep"
                ) -> None:
    """Move an AI player's points as its rated games would (and, for a row from before the
    fingerprint was kept, clear it)."""
    import sqlalchemy as sa

    engine = sa.create_engine(f"sqlite:///{tmp_path / 'sessions.sqlite3'}")
    values: dict = {"points": points}
    if fingerprint != "keep":
        values["ai_fingerprint"] = fingerprint
    with engine.begin() as conn:
        conn.execute(sa.update(PlayerRow).where(PlayerRow.id == player_id).values(**values))
    engine.dispose()


def _points(tmp_path: Path, root: Path) -> dict[str, int]:
    with client_for(tmp_path, checkpoints_root=root) as c:
        return {pid: c.get(f"/v1/players/{pid}").json()["points"]
                for pid in ("ai-board-9x9-1", "ai-board-9x9-2")}


def test_a_level_that_is_another_strength_now_takes_its_measured_points(tmp_path: Path) -> None:
    """Points earned in games stay across restarts; a level id that names another network
    (a ladder trained again, levels renumbered) takes the points measured for what it is now,
    once; a row from before fingerprints were kept counts as another strength."""
    root = _ladder_root(tmp_path)
    players = {ai.player_id: ai for ai in ai_levels(LevelRegistry(root))}
    _measured(root, {pid: {"points": pts, "fingerprint": players[pid].fingerprint}
                     for pid, pts in (("ai-board-9x9-1", 3_000), ("ai-board-9x9-2", 9_000))})
    assert _points(tmp_path, root) == {"ai-board-9x9-1": 3_000, "ai-board-9x9-2": 9_000}
    _set_points(tmp_path, "ai-board-9x9-2", 9_400)  # it won games
    assert _points(tmp_path, root)["ai-board-9x9-2"] == 9_400  # a restart keeps them

    # Level 2 becomes another player (other weights), measured at 5,000 for what it is now.
    folder = root / "stereo_go" / "board-9x9"
    tiny_checkpoint(folder / "net2.pt", "stereo_go", 2, {"board": "9x9"})
    levels = json.loads((folder / "levels.json").read_text())
    levels["levels"][1]["checkpoint"] = "net2.pt"
    (folder / "levels.json").write_text(json.dumps(levels))
    now = {ai.player_id: ai for ai in ai_levels(LevelRegistry(root))}["ai-board-9x9-2"]
    assert now.fingerprint != players["ai-board-9x9-2"].fingerprint
    _measured(root, {"ai-board-9x9-1": {"points": 3_000,
                                        "fingerprint": players["ai-board-9x9-1"].fingerprint},
                     "ai-board-9x9-2": {"points": 5_000, "fingerprint": now.fingerprint}})
    _set_points(tmp_path, "ai-board-9x9-1", 3_200)
    assert _points(tmp_path, root) == {"ai-board-9x9-1": 3_200, "ai-board-9x9-2": 5_000}
    _set_points(tmp_path, "ai-board-9x9-2", 5_600)
    assert _points(tmp_path, root)["ai-board-9x9-2"] == 5_600  # reseated once, not each start

    _set_points(tmp_path, "ai-board-9x9-1", 3_700, fingerprint=None)  # a row from before
    assert _points(tmp_path, root)["ai-board-9x9-1"] == 3_000


def _levels_9x9(client) -> list[dict]:
    r = client.get("/v1/games/stereo_go/levels", params={"config": json.dumps({"board": "9x9"})})
    assert r.status_code == 200, r.text
    return r.json()["levels"]


def test_the_catalogue_shows_each_levels_rank_and_none_for_an_unmeasured_one(
    tmp_path: Path,
) -> None:
    root = _ladder_root(tmp_path)
    low = next(ai for ai in ai_levels(LevelRegistry(root)) if ai.level == "1")
    _measured(root, {low.player_id: {"points": 3_000, "fingerprint": low.fingerprint}})
    with client_for(tmp_path, checkpoints_root=root) as c:
        levels = _levels_9x9(c)
        baseline = c.get("/v1/games/stereo_go/levels",
                         params={"config": json.dumps({"board": "7x7"})}).json()["levels"]
        jiugong = c.get("/v1/games/jiugong/levels").json()["levels"]
    anchor = {"player": "ai-random", "measured": True, "rank": "18K", "points": 0}
    # the anchor plays beside the trained levels: one ladder player in every table it is in
    assert [lv["ladder"] for lv in levels] == [
        anchor,
        {"player": "ai-board-9x9-1", "measured": True, "rank": "15K", "points": 3_000},
        {"player": "ai-board-9x9-2", "measured": False, "rank": None, "points": None},
    ]
    assert (levels[0]["id"], levels[0]["source"]) == ("random", "baseline")
    assert levels[0]["elo"] is None  # this file's Elo is not anchored at random
    by_id = {lv["id"]: lv["ladder"] for lv in baseline}
    assert by_id["random"] == anchor
    assert by_id["mcts32"]["measured"] is False and by_id["mcts32"]["rank"] is None
    assert all(lv["ladder"] is None for lv in jiugong)  # no ladder for other games


@pytest.mark.parametrize("measured", [False, True])
def test_an_unmeasured_level_is_not_offered_by_the_matching(tmp_path: Path, measured: bool) -> None:
    """An 18K player waits for 9x9: the one level within one rank (``high``, 0 points) is
    offered only when its start was measured for what it is (the baselines are off: the
    anchor, 18K by definition, would take the seat)."""
    from ladder_helpers import queue, queue_state, register
    from serving_helpers import FakeClock

    root = _ladder_root(tmp_path)
    players = {ai.level: ai for ai in ai_levels(LevelRegistry(root))}
    entries = {players["1"].player_id: {"points": 9_000, "fingerprint": players["1"].fingerprint}}
    if measured:
        entries[players["2"].player_id] = {"points": 0, "fingerprint": players["2"].fingerprint}
    _measured(root, entries)
    clock = FakeClock()
    with client_for(tmp_path, clock=clock, checkpoints_root=root, ladder_match_seconds=3600,
                    ladder_ai_wait_seconds=30, baseline_levels=False) as c:
        lin = register(c, "Lin")
        assert queue(c, lin, board="9x9").json()["status"] == "waiting"
        clock.advance(31)
        c.app.state.ladder.matcher.fill_with_ai()
        state = queue_state(c, lin)
    if measured:
        assert state["status"] == "playing" and state["game"]["opponent"] == "ai-board-9x9-2"
    else:
        assert state["status"] == "waiting"


def test_ai_players_have_names_a_person_can_read(tmp_path: Path) -> None:
    """An AI player's name says its level, board and rules in words ("AI high · 9×9,
    territory"), and comes in parts (``ai``) for a client that writes it in another language;
    a player seeded under an older name (the options key) takes the new one at the next
    start, keeping its points."""
    root = _ladder_root(tmp_path)
    with client_for(tmp_path, checkpoints_root=root) as c:
        board = c.get("/v1/ladder/leaderboard", params={"limit": 100}).json()
        store = c.app.state.ladder.store
        with store.transaction() as s:
            row = s.get(PlayerRow, "ai-board-9x9-2")
            row.name, row.name_key, row.points = "AI high (board-9x9)", "ai high (board-9x9)", 70
    ai = {p["id"]: p for p in board["players"] if p["kind"] == "ai"}
    assert ai["ai-board-9x9-2"]["name"] == "AI high \u00b7 9\u00d79, territory"
    assert ai["ai-board-9x9-2"]["ai"] == {"label": "high",
                                         "options": {"board": "9x9", "rules": "territory"}}
    assert ai["ai-random"]["name"] == "AI Random"
    assert ai["ai-random"]["ai"] == {"label": "Random", "options": None}
    assert all(p["ai"] is None for p in board["players"] if p["kind"] == "human")
    with client_for(tmp_path, checkpoints_root=root) as c:
        again = c.get("/v1/players/ai-board-9x9-2").json()
    assert (again["name"], again["points"]) == ("AI high \u00b7 9\u00d79, territory", 70)


def test_ai_names_name_every_option_that_sets_a_table_apart() -> None:
    assert ai_name("master", {"board": "9x9", "rules": "area"}) == "AI master \u00b7 9\u00d79, area"
    assert ai_name("club", {"board": "cylinder", "komi": 7.5, "max_moves": 0}) \
        == "AI club \u00b7 cylinder, territory"
    assert ai_name("club", {"max_moves": 400, "rules": "area"}) \
        == "AI club \u00b7 cylinder, area, 400 moves max"
    assert ai_name("MCTS 32", None) == "AI MCTS 32"
