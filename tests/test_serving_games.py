"""Game-specific session extras through the API: Fang Qi's timer, TriGolden's provisional
turns, polygons, arbitration (both ways) and matches of two games."""

from __future__ import annotations

import numpy as np
import pytest
from serving_helpers import FakeClock, auth, client_for, random_moves, wait_for
from trigolden_positions import CROWDED, FORCED, FORCED_TURN

import envs
from envs import make_game

needs = {g: pytest.mark.skipif(g not in envs.game_ids(), reason=f"{g} is not registered")
         for g in ("fangqi", "trigolden", "stereo_go")}


def create(client, game, **body):
    resp = client.post("/v1/sessions", json={"game": game, **body})
    assert resp.status_code == 201, resp.text
    return resp.json()


def post(client, sid, what, token, **body):
    return client.post(f"/v1/sessions/{sid}/{what}", json=body, headers=auth(token))


def get(client, sid):
    return client.get(f"/v1/sessions/{sid}").json()


# ---------------------------------------------------------------------------- Fang Qi timer
def _fangqi_until(phase_name: str, seed: int):
    """A random Fang Qi game played until the side to move is in ``phase_name``."""
    from envs.fangqi.state import PHASE_NAMES

    game = make_game("fangqi")
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    while PHASE_NAMES[state.phase] != phase_name:
        if game.is_terminal(state):
            return game, None
        state = game.apply(state, int(rng.choice(game.legal_actions(state))))
    return game, state


@needs["fangqi"]
def test_fangqi_timeout_in_placement_passes_the_turn():
    game, state = _fangqi_until("place", 0)
    state = game.play(state, "c3")
    after = game.time_out(state)
    assert (after.black, after.white) == (state.black, state.white)
    assert after.to_play == 1 - state.to_play and after.owed == 0
    assert after.ply == state.ply


@needs["fangqi"]
def test_fangqi_timeout_makes_owed_removals_lowest_point_first():
    from envs.fangqi.board import REMOVE_BASE

    for phase in ("pull", "capture"):
        for seed in range(40):
            game, state = _fangqi_until(phase, seed)
            if state is not None:
                break
        assert state is not None
        player = state.to_play
        legal_points = [a - REMOVE_BASE for a in game.legal_actions(state)]
        after = game.time_out(state)
        enemy_before = state.white if player == 0 else state.black
        enemy_after = after.white if player == 0 else after.black
        removed = [p for p in range(36) if enemy_before >> p & 1 and not enemy_after >> p & 1]
        assert removed and removed[0] == min(legal_points)
        assert after.to_play != player or after.phase != state.phase or game.is_terminal(after)


@needs["fangqi"]
def test_fangqi_timeout_in_movement_passes_without_moving():
    game, state = _fangqi_until("step", 1)
    after = game.time_out(state)
    assert (after.black, after.white) == (state.black, state.white)
    assert after.to_play == 1 - state.to_play and after.no_capture == state.no_capture
    assert after.history[-1] == after.key


@needs["fangqi"]
def test_fangqi_session_timer_default_and_timeout(tmp_path):
    clock = FakeClock()
    with client_for(tmp_path, clock=clock, timer_poll_seconds=3600) as c:
        body = create(c, "fangqi")
        sid = body["session"]["id"]
        assert body["session"]["timer"]["turn_seconds"] == 60.0
        r = post(c, sid, "moves", body["seat_tokens"]["black"], move="a1", version=1)
        assert r.status_code == 200
        clock.advance(60)
        s = get(c, sid)
        assert s["events"][-1] == {"t": "timeout", "seat": "white", "at": clock.t}
        assert s["position"]["to_play"] == "black"


# ---------------------------------------------------------------------------- TriGolden
@needs["trigolden"]
def test_trigolden_turns_are_provisional_until_confirmed(tmp_path):
    with client_for(tmp_path) as c:
        body = create(c, "trigolden")
        s, sid, p1 = body["session"], body["session"]["id"], body["seat_tokens"]["p1"]
        assert s["confirm_turns"] is True and s["timer"]["turn_seconds"] is None
        s = post(c, sid, "moves", p1, move="P", version=1).json()
        assert s["pending"] == ["P"] and s["moves"] == [] and s["turn_complete"]
        assert len(s["position"]["drawing"]["pieces"]) == 1
        s = post(c, sid, "cancel", p1, version=s["version"]).json()
        assert s["pending"] == [] and s["position"]["drawing"]["pieces"] == []
        s = post(c, sid, "moves", p1, move="T", version=s["version"]).json()
        s = post(c, sid, "confirm", p1, version=s["version"]).json()
        assert s["moves"] == ["T"] and s["position"]["to_play"] == "p2"
        # p2 places two pieces; the turn is complete only after the second
        p2 = body["seat_tokens"]["p2"]
        legal = s["position"]["legal_moves"]
        s = post(c, sid, "moves", p2, move=legal[0], version=s["version"]).json()
        assert not s["turn_complete"]
        r = post(c, sid, "confirm", p2, version=s["version"])
        assert r.status_code == 409 and "not complete" in r.json()["message"]
        s = post(c, sid, "moves", p2, move=s["position"]["legal_moves"][0],
                 version=s["version"]).json()
        assert s["turn_complete"] and len(s["pending"]) == 2
        s = post(c, sid, "confirm", p2, version=s["version"]).json()
        assert len(s["moves"]) == 3 and s["position"]["to_play"] == "p1"
        poly = s["position"]["drawing"]["pieces"][0]
        assert poly["kind"] == "T" and len(poly["polygon"]) == 3 and poly["owner"] == "p1"


@needs["trigolden"]
def test_trigolden_arbitration_claim_with_a_legal_turn_loses_the_match(tmp_path):
    with client_for(tmp_path) as c:
        body = create(c, "trigolden", match_games=2)
        sid, t = body["session"]["id"], body["seat_tokens"]
        s = post(c, sid, "moves", t["p1"], move="T", version=1).json()
        s = post(c, sid, "confirm", t["p1"], version=s["version"]).json()
        r = post(c, sid, "arbitration", t["p1"], version=s["version"])
        assert r.status_code == 403  # p2 is to move: only p2 (or the owner) may claim
        s = post(c, sid, "arbitration", t["p2"], version=s["version"]).json()
        assert s["status"] == "over"
        assert s["result"]["reason"] == "arbitration" and s["result"]["winner"] == "p1"
        assert [e["by"] for e in s["events"][1:]] == ["arbiter", "arbiter"]
        game = make_game("trigolden")
        st = game.initial_state()
        for m in s["moves"]:
            st = game.play(st, m)  # the arbiter's turn is legal
        assert game.to_play(st) == 0 and s["match"]["current"] == 1


@needs["trigolden"]
def test_trigolden_claimant_without_legal_turn_wins_the_match(tmp_path):
    # An n = 4 game where every turn of p1 leaves p2 with no legal complete turn (so p1 must
    # play one, docs/rules/trigolden.md): the game ends by arbitration and decides the whole match.
    moves = [*FORCED.split(), *FORCED_TURN.split()]
    with client_for(tmp_path) as c:
        body = create(c, "trigolden", config={"n": 4}, match_games=2, confirm_turns=False)
        sid, owner = body["session"]["id"], body["owner_token"]
        version = 1
        for m in moves:
            r = post(c, sid, "moves", owner, move=m, version=version)
            assert r.status_code == 200, r.text
            version = r.json()["version"]
        s = r.json()
        assert s["status"] == "over" and s["match"]["current"] == 1
        assert s["result"]["reason"] == "arbitration" and s["result"]["winner"] == "p2"


@needs["trigolden"]
def test_trigolden_turn_that_breaks_the_obligation_is_refused(tmp_path):
    # G@42.0/1 would open only turns that leave p2 without a legal complete turn, while other
    # turns keep one: the provisional piece is refused at once (every piece of a turn is
    # checked when placed, so such a turn never reaches confirm), and nothing changes.
    with client_for(tmp_path) as c:
        body = create(c, "trigolden")
        sid, owner = body["session"]["id"], body["owner_token"]
        s = body["session"]
        for m in CROWDED.split():
            s = post(c, sid, "moves", owner, move=m, version=s["version"]).json()
            if s["turn_complete"]:
                s = post(c, sid, "confirm", owner, version=s["version"]).json()
        assert s["position"]["to_play"] == "p1" and s["pending"] == []
        assert "G@42.0/1" not in s["position"]["legal_moves"]
        r = post(c, sid, "moves", owner, move="G@42.0/1", version=s["version"])
        assert r.status_code == 422
        assert "obligation" in r.json()["message"] and "opponent" in r.json()["message"]
        assert get(c, sid)["version"] == s["version"]


@needs["trigolden"]
def test_trigolden_full_match_of_two_games_with_totals(tmp_path):
    with client_for(tmp_path) as c:
        seats = {"p1": {"type": "ai", "level": "random"}, "p2": {"type": "ai", "level": "random"}}
        sid = create(c, "trigolden", config={"n": 1}, seats=seats, match_games=2)["session"]["id"]
        s = wait_for(lambda: (x := get(c, sid))["status"] == "over" and x, timeout=60)
        results = s["match"]["results"]
        assert s["match"]["current"] == 2 and len(results) == 2
        totals = {seat: results[0]["score"][seat] + results[1]["score"][seat]
                  for seat in ("p1", "p2")}
        assert s["result"]["totals"] == totals
        best = max(totals.values())
        leaders = [k for k, v in totals.items() if v == best]
        assert s["result"]["winner"] == (leaders[0] if len(leaders) == 1 else None)
        # game 2: p2 opened (the first player swaps)
        first_of_game2 = s["events"][0]
        assert first_of_game2["seat"] == "p2"
        assert s["match"]["history"][0][0]["seat"] == "p1"


@needs["trigolden"]
def test_trigolden_positions_give_polygons(tmp_path):
    with client_for(tmp_path) as c:
        moves = random_moves("trigolden", 4, limit=5)
        body = c.post("/v1/games/trigolden/positions", json={"moves": moves}).json()
        pieces = body["drawing"]["pieces"]
        assert len(pieces) == 5 and [p["index"] for p in pieces] == list(range(5))
        assert body["score"] is not None and set(body["score"]) == {"p1", "p2"}


# ---------------------------------------------------------------------------- Stereo Go
@pytest.fixture()
def stereo_go(monkeypatch):
    """Stereo Go, registered for the test if its engine has not registered itself yet."""
    if "stereo_go" not in envs.game_ids():
        from envs import core

        monkeypatch.setitem(core._REGISTRY, "stereo_go", "envs.stereo_go.game:StereoGo")
    return "stereo_go"


def test_stereo_go_pass_scoring_phase_dead_stones_and_accept(tmp_path, stereo_go):
    with client_for(tmp_path) as c:
        body = create(c, stereo_go, config={"board": "9x9"})
        sid, t = body["session"]["id"], body["seat_tokens"]
        assert body["session"]["timer"]["turn_seconds"] is None
        s = post(c, sid, "moves", t["black"], move="D4", version=1).json()
        s = post(c, sid, "moves", t["white"], move="pass", version=s["version"]).json()
        s = post(c, sid, "moves", t["black"], move="pass", version=s["version"]).json()
        assert s["status"] == "scoring" and s["result"] is None
        assert s["scoring"] == {"dead": [], "accepted": [], "proposed": []}
        r = post(c, sid, "moves", t["white"], move="E5", version=s["version"])
        assert r.status_code == 409
        r = c.put(f"/v1/sessions/{sid}/scoring/dead",
                  json={"dead": ["E5"], "version": s["version"]}, headers=auth(t["white"]))
        assert r.status_code == 422 and "E5" in r.json()["message"]
        # black accepts "all alive", then white marks D4 dead: black's acceptance is withdrawn
        s = post(c, sid, "scoring/accept", t["black"], version=s["version"]).json()
        assert s["scoring"]["accepted"] == ["black"] and s["status"] == "scoring"
        r = c.put(f"/v1/sessions/{sid}/scoring/dead",
                  json={"dead": ["D4"], "version": s["version"]}, headers=auth(t["white"]))
        s = r.json()
        assert s["scoring"] == {"dead": ["D4"], "accepted": [], "proposed": []}
        s = post(c, sid, "scoring/accept", t["white"], version=s["version"]).json()
        assert s["status"] == "scoring"
        s = post(c, sid, "scoring/accept", t["black"], version=s["version"]).json()
        assert s["status"] == "over"
        res = s["result"]
        # D4 dead: the board is empty (no one's territory); white has the dead stone + komi
        assert res["winner"] == "white" and res["reason"] == "score"
        assert res["score"] == {"black": 0.0, "white": 1 + 7.5}
        assert res["detail"]["dead"] == [1, 0]


def test_stereo_go_resignation_and_ai_scoring(tmp_path, stereo_go):
    with client_for(tmp_path) as c:
        body = create(c, stereo_go, config={"board": "9x9"})
        sid, t = body["session"]["id"], body["seat_tokens"]
        s = post(c, sid, "moves", t["black"], move="C3", version=1).json()
        s = post(c, sid, "resign", t["black"], version=s["version"]).json()
        assert s["status"] == "over" and s["result"]["winner"] == "white"
        assert s["result"]["reason"] == "resignation"
        assert s["events"][-1] == {"t": "resign", "seat": "black", "player": 0}
    with client_for(tmp_path) as c:  # the resignation replays after a restart
        assert c.get(f"/v1/sessions/{sid}").json()["position"]["is_over"]
        # against an AI, only the person accepts
        body = create(c, stereo_go, config={"board": "9x9"},
                      seats={"white": {"type": "ai", "level": "random"}})
        sid, black = body["session"]["id"], body["seat_tokens"]["black"]
        s = post(c, sid, "moves", black, move="pass", version=1).json()
        c.app.state.sessions.wait_idle(30)
        s = get(c, sid)
        while s["status"] == "playing":
            s = post(c, sid, "moves", black, move="pass", version=s["version"]).json()
            c.app.state.sessions.wait_idle(30)
            s = get(c, sid)
        if s["status"] == "scoring":
            s = post(c, sid, "scoring/accept", black, version=s["version"]).json()
        assert s["status"] == "over" and s["result"]["winner"] in ("black", "white", None)


@needs["trigolden"]
def test_trigolden_moves_in_json_form(tmp_path):
    with client_for(tmp_path) as c:
        opening = {"kind": "P", "flipped": True}
        body = c.post("/v1/games/trigolden/positions", json={"moves": [opening]}).json()
        as_text = c.post("/v1/games/trigolden/positions", json={"moves": ["P'"]}).json()
        assert body["state"] == as_text["state"]
        bad = c.post("/v1/games/trigolden/positions",
                     json={"moves": ["T", {"kind": "Z", "target": 0, "target_edge": 0, "edge": 0}]})
        assert bad.status_code == 422 and bad.json()["detail"]["index"] == 1
        s = create(c, "trigolden", confirm_turns=False)
        r = post(c, s["session"]["id"], "moves", s["owner_token"], move=opening, version=1)
        assert r.status_code == 200 and r.json()["moves"] == ["P'"]
        other = c.post("/v1/games/jiugong/positions", json={"moves": [{"from": "a1"}]})
        assert other.status_code == 422 and "string" in other.json()["detail"]["reason"]
