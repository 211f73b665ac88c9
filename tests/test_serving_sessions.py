"""Game sessions through the API: seats and tokens, moves with versions, AI seats, seat
takeover and level changes, provisional turns (confirm/cancel), resignation, timers with a fake
clock, persistence across restarts and conflicting writes."""

from __future__ import annotations

import os
import threading
import time

import pytest
from serving_helpers import (
    FakeClock,
    auth,
    client_for,
    overlapping_commits,
    random_moves,
    wait_for,
    write_levels,
)

import envs
from envs import make_game
from serving.adapters import get_adapter

GAME_IDS = envs.game_ids()
# Smaller configurations where a whole random game on the default one takes long.
SMALL = {"stereo_go": {"board": "9x9"}, "trigolden": {"n": 3}}


def create(client, game="jiugong", **body):
    resp = client.post("/v1/sessions", json={"game": game, **body})
    assert resp.status_code == 201, resp.text
    return resp.json()


def move(client, sid, token, mv, version):
    return client.post(
        f"/v1/sessions/{sid}/moves", json={"move": mv, "version": version}, headers=auth(token)
    )


def get(client, sid):
    resp = client.get(f"/v1/sessions/{sid}")
    assert resp.status_code == 200, resp.text
    return resp.json()


def idle(client):
    assert client.app.state.sessions.wait_idle(60)


@pytest.fixture()
def client(tmp_path):
    with client_for(tmp_path) as c:
        yield c


# ---------------------------------------------------------------------------- creation, tokens
def test_create_gives_unguessable_distinct_tokens(client):
    body = create(client, turn_seconds=None)
    s = body["session"]
    assert s["status"] == "playing" and s["version"] == 1 and s["moves"] == []
    assert set(body["seat_tokens"]) == {"south", "north"}
    tokens = [body["owner_token"], *body["seat_tokens"].values()]
    assert len(set(tokens)) == 3 and all(len(t) >= 40 for t in tokens)
    assert s["seats"] == {"south": {"type": "human", "level": None},
                          "north": {"type": "human", "level": None}}
    assert s["position"]["to_play"] == "south"
    assert s["timer"]["turn_seconds"] is None
    other = create(client)
    assert other["session"]["id"] != s["id"] and other["owner_token"] != body["owner_token"]
    assert other["session"]["timer"]["turn_seconds"] == 60.0  # Jiugong's default


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"game": "chess"}, 404),
        ({"game": "jiugong", "seats": {"east": {"type": "human"}}}, 422),
        ({"game": "jiugong", "seats": {"north": {"type": "robot"}}}, 422),
        ({"game": "jiugong", "seats": {"north": {"type": "ai", "level": "nope"}}}, 422),
        ({"game": "jiugong", "config": {"size": 3}}, 422),
        ({"game": "jiugong", "match_games": 2}, 422),
        ({"game": "jiugong", "turn_seconds": -5}, 422),
        ({"seats": {}}, 422),
    ],
)
def test_create_refuses_bad_input(client, body, status):
    resp = client.post("/v1/sessions", json=body)
    assert resp.status_code == status, resp.text
    assert resp.json()["message"]


def test_unknown_session_is_404(client):
    assert client.get("/v1/sessions/nope").status_code == 404
    resp = move(client, "nope", "t", "a1-a2", 1)
    assert resp.status_code == 404 and resp.json()["error"] == "not_found"


def test_tokens_are_checked_on_every_write(client):
    body = create(client, turn_seconds=None)
    sid, seat_tokens = body["session"]["id"], body["seat_tokens"]
    r = client.post(f"/v1/sessions/{sid}/moves", json={"move": "a1-a2", "version": 1})
    assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
    assert move(client, sid, "forged-token", "a1-a2", 1).status_code == 401
    other = create(client)
    assert move(client, sid, other["owner_token"], "a1-a2", 1).status_code == 401
    r = move(client, sid, seat_tokens["north"], "a1-a2", 1)
    assert r.status_code == 403 and "north" in r.json()["message"]
    assert get(client, sid)["version"] == 1  # nothing changed
    r = move(client, sid, seat_tokens["south"], "a1-a2", 1)
    assert r.status_code == 200 and r.json()["moves"] == ["a1-a2"]
    r = move(client, sid, seat_tokens["south"], "a2-a1", 2)  # north to play now
    assert r.status_code == 403
    r = move(client, sid, body["owner_token"], "b3-b2", 2)  # the owner acts for every seat
    assert r.status_code == 200 and r.json()["version"] == 3
    seat_r = client.put(f"/v1/sessions/{sid}/seats/south", json={"type": "human", "version": 3},
                        headers=auth(seat_tokens["north"]))
    assert seat_r.status_code == 403


def test_stale_version_is_409_and_illegal_move_is_422(client):
    body = create(client, turn_seconds=None)
    sid, owner = body["session"]["id"], body["owner_token"]
    assert move(client, sid, owner, "a1-a2", 1).status_code == 200
    r = move(client, sid, owner, "b3-b2", 1)
    assert r.status_code == 409 and r.json()["detail"]["version"] == 2
    r = move(client, sid, owner, "c3-c1", 2)
    assert r.status_code == 422
    assert r.json()["detail"]["index"] == 1 and r.json()["detail"]["move"] == "c3-c1"
    assert get(client, sid)["version"] == 2


# ---------------------------------------------------------------------------- whole games
@pytest.mark.parametrize("game_id", GAME_IDS)
def test_whole_game_between_people(client, game_id):
    game = make_game(game_id)
    moves = random_moves(game_id, seed=7)
    if len(moves) > 60:
        moves = moves[:60]  # long games: the first 60 moves are enough here
    body = create(client, game=game_id, turn_seconds=None, confirm_turns=False)
    sid, tokens = body["session"]["id"], body["seat_tokens"]
    state, version = game.initial_state(), 1
    for mv in moves:
        seat = game.spec.player_names[game.to_play(state)]
        r = move(client, sid, tokens[seat], mv, version)
        assert r.status_code == 200, r.text
        version = r.json()["version"]
        state = game.play(state, mv)
    s = get(client, sid)
    assert s["moves"] == moves
    assert s["position"]["state"] == client.post(
        f"/v1/games/{game_id}/positions", json={"moves": moves}).json()["state"]
    if game.is_terminal(state):
        assert s["status"] == "over"
        w = game.winner(state)
        assert s["result"]["winner"] == (game.spec.player_names[w] if w is not None else None)
        assert move(client, sid, body["owner_token"], moves[0], version).status_code == 409


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_whole_game_between_ai_seats(client, game_id):
    config = SMALL.get(game_id, {})
    names = make_game(game_id, **config).spec.player_names
    seats = {n: {"type": "ai", "level": "random"} for n in names}
    sid = create(client, game=game_id, config=config, seats=seats, turn_seconds=None)
    sid = sid["session"]["id"]
    s = wait_for(lambda: (x := get(client, sid))["status"] == "over" and x, timeout=60)
    # (Go ended by two passes: with no person to agree, the score is final at once)
    assert s["result"]["reason"] in (("rules", "score") if game_id == "stereo_go" else ("rules",))
    assert all(ev["by"] == "ai" for ev in s["events"])
    replay = client.post(f"/v1/games/{game_id}/positions",
                         json={"config": config, "moves": s["moves"]}).json()
    assert replay["is_over"] and replay["result"]["winner"] == s["result"]["winner"]


def test_mixed_game_person_against_ai(client):
    game = make_game("jiugong")
    body = create(client, seats={"north": {"type": "ai", "level": "mcts32"}}, turn_seconds=None)
    sid, token = body["session"]["id"], body["seat_tokens"]["south"]
    rng_moves = 0
    while True:
        idle(client)
        s = get(client, sid)
        if s["status"] == "over":
            break
        assert s["position"]["to_play"] == "south"  # the AI always answered at once
        r = move(client, sid, token, s["position"]["legal_moves"][rng_moves % len(
            s["position"]["legal_moves"])], s["version"])
        assert r.status_code == 200, r.text
        rng_moves += 1
    by = [ev["by"] for ev in s["events"]]
    assert by[0::2] == ["human"] * len(by[0::2]) and set(by[1::2]) <= {"ai"}
    state = game.initial_state()
    for m in s["moves"]:
        state = game.play(state, m)
    assert game.is_terminal(state)


def test_ai_seat_cannot_be_moved_by_people(client):
    body = create(client, seats={"south": {"type": "ai", "level": "random"}}, turn_seconds=None)
    sid = body["session"]["id"]
    idle(client)
    s = get(client, sid)
    assert s["moves"] and s["position"]["to_play"] == "north"
    r = move(client, sid, body["owner_token"], s["position"]["legal_moves"][0], s["version"])
    assert r.status_code == 200
    idle(client)
    s = get(client, sid)
    assert len(s["moves"]) == 3


# ---------------------------------------------------------------------------- seats, levels
def test_seat_takeover_and_level_change(client):
    body = create(client, turn_seconds=None)
    sid, owner, north = body["session"]["id"], body["owner_token"], body["seat_tokens"]["north"]
    s = move(client, sid, owner, "a1-a2", 1).json()
    # North hands its seat to the AI: the AI plays north's move by itself.
    r = client.put(f"/v1/sessions/{sid}/seats/north",
                   json={"type": "ai", "level": "random", "version": s["version"]},
                   headers=auth(north))
    assert r.status_code == 200 and r.json()["seats"]["north"] == {"type": "ai", "level": "random"}
    idle(client)
    s = get(client, sid)
    assert len(s["moves"]) == 2 and s["events"][1]["by"] == "ai"
    assert s["events"][1]["level"] == "random"
    # Level change at any time (by the owner), then the seat goes back to a person.
    r = client.put(f"/v1/sessions/{sid}/seats/north",
                   json={"type": "ai", "level": "mcts32", "version": s["version"]},
                   headers=auth(owner))
    assert r.json()["seats"]["north"]["level"] == "mcts32"
    r = client.put(f"/v1/sessions/{sid}/seats/north",
                   json={"type": "human", "version": r.json()["version"]}, headers=auth(north))
    assert r.json()["seats"]["north"] == {"type": "human", "level": None}
    s = r.json()
    r = move(client, sid, owner, s["position"]["legal_moves"][0], s["version"])
    idle(client)
    s = get(client, sid)
    assert s["position"]["to_play"] == "north" and len(s["moves"]) == 3  # a person again
    # the north seat token still acts for north
    assert move(client, sid, north, s["position"]["legal_moves"][0], s["version"]).status_code \
        == 200
    bad = client.put(f"/v1/sessions/{sid}/seats/east",
                     json={"type": "human", "version": get(client, sid)["version"]},
                     headers=auth(owner))
    assert bad.status_code == 404
    bad = client.put(f"/v1/sessions/{sid}/seats/north",
                     json={"type": "ai", "level": "zzz", "version": get(client, sid)["version"]},
                     headers=auth(owner))
    assert bad.status_code == 422


def test_ai_takes_over_the_seat_to_move_and_the_game_goes_on(client):
    body = create(client, turn_seconds=None)
    sid, owner = body["session"]["id"], body["owner_token"]
    for seat in ("north", "south"):  # north first: south is to move, its AI moves at once
        v = get(client, sid)["version"]
        r = client.put(f"/v1/sessions/{sid}/seats/{seat}",
                       json={"type": "ai", "level": "random", "version": v}, headers=auth(owner))
        assert r.status_code == 200
    s = wait_for(lambda: (x := get(client, sid))["status"] == "over" and x, timeout=60)
    assert s["result"]["reason"] == "rules"


def test_an_ai_seat_that_cannot_move_says_why_until_the_session_changes(tmp_path):
    levels = [{"id": "random", "label": "random", "player": "random"},
              {"id": "gone", "label": "soon gone", "player": "random"}]
    path = write_levels(tmp_path / "checkpoints", "jiugong", levels)
    with client_for(tmp_path, timer_poll_seconds=0.05) as c:
        body = create(c, turn_seconds=None, seats={"north": {"type": "ai", "level": "gone"}})
        sid, owner = body["session"]["id"], body["owner_token"]
        write_levels(tmp_path / "checkpoints", "jiugong", levels[:1])
        os.utime(path, ns=(time.time_ns() + 10**9,) * 2)  # the registry re-reads it
        s = move(c, sid, owner, "a1-a2", 1).json()
        s = wait_for(lambda: (x := get(c, sid))["ai_error"] and not x["ai_thinking"] and x)
        assert "gone" in s["ai_error"]
        time.sleep(0.3)  # the pollers do not try it again and again
        assert get(c, sid)["version"] == s["version"] == 2
        r = c.put(f"/v1/sessions/{sid}/seats/north", headers=auth(owner),
                  json={"type": "ai", "level": "random", "version": s["version"]})
        assert r.status_code == 200 and r.json()["ai_error"] is None
        s = wait_for(lambda: len((x := get(c, sid))["moves"]) == 2 and x)
        assert s["ai_error"] is None and s["events"][1]["by"] == "ai"


# ---------------------------------------------------------------------------- confirm / cancel
def test_provisional_turns_confirm_and_cancel(client):
    body = create(client, confirm_turns=True, turn_seconds=None)
    sid, tokens = body["session"]["id"], body["seat_tokens"]
    s = move(client, sid, tokens["south"], "a1-a2", 1).json()
    assert s["pending"] == ["a1-a2"] and s["moves"] == [] and s["turn_complete"]
    assert s["position"]["state"]["board"] == ".SSS.XNNN"  # shown with the provisional move
    # The turn is complete: no further move before confirm/cancel.
    r = move(client, sid, tokens["south"], "b1-b2", s["version"])
    assert r.status_code == 409 and "confirm" in r.json()["message"]
    r = client.post(f"/v1/sessions/{sid}/cancel", json={"version": s["version"]},
                    headers=auth(tokens["north"]))
    assert r.status_code == 403
    r = client.post(f"/v1/sessions/{sid}/cancel", json={"version": s["version"]},
                    headers=auth(tokens["south"]))
    s = r.json()
    assert s["pending"] == [] and s["position"]["to_play"] == "south"
    s = move(client, sid, tokens["south"], "b1-b2", s["version"]).json()
    r = client.post(f"/v1/sessions/{sid}/confirm", json={"version": s["version"]},
                    headers=auth(tokens["south"]))
    s = r.json()
    assert r.status_code == 200 and s["moves"] == ["b1-b2"] and s["pending"] == []
    assert s["position"]["to_play"] == "north"
    r = client.post(f"/v1/sessions/{sid}/confirm", json={"version": s["version"]},
                    headers=auth(tokens["north"]))
    assert r.status_code == 409 and "nothing to confirm" in r.json()["message"]


def test_confirm_needs_the_token_of_the_seat_that_played(client):
    """Only the seat whose provisional turn it is (or the owner) confirms it: the move was
    authorized when it was played, but the confirm that commits it is checked again."""
    body = create(client, confirm_turns=True, turn_seconds=None)
    sid, tokens = body["session"]["id"], body["seat_tokens"]
    s = move(client, sid, tokens["south"], "a1-a2", 1).json()
    assert s["turn_complete"] and s["pending"] == ["a1-a2"]
    version = s["version"]
    url = f"/v1/sessions/{sid}/confirm"
    cases = [
        (auth(tokens["north"]), 403),  # the other seat's token
        ({}, 401),  # no token
        (auth("forged-token"), 401),
        (auth(create(client)["owner_token"]), 401),  # another session's owner
    ]
    for headers, status in cases:
        r = client.post(url, json={"version": version}, headers=headers)
        assert r.status_code == status, (headers, r.text)
        after = get(client, sid)  # nothing changed: still provisional, same version
        assert (after["version"], after["moves"], after["pending"]) == (version, [], ["a1-a2"])
    r = client.post(url, json={"version": version}, headers=auth(tokens["south"]))
    assert r.status_code == 200 and r.json()["moves"] == ["a1-a2"]


# ---------------------------------------------------------------------------- resign
def test_resign_where_the_rules_have_it(client, monkeypatch):
    body = create(client, turn_seconds=None)
    sid = body["session"]["id"]
    r = client.post(f"/v1/sessions/{sid}/resign", json={"version": 1},
                    headers=auth(body["seat_tokens"]["north"]))
    assert r.status_code == 409 and "no resignation" in r.json()["message"]
    monkeypatch.setattr(get_adapter("jiugong"), "supports_resign", True)
    r = client.post(f"/v1/sessions/{sid}/resign", json={"version": 1, "seat": "south"},
                    headers=auth(body["seat_tokens"]["north"]))
    assert r.status_code == 403
    r = client.post(f"/v1/sessions/{sid}/resign", json={"version": 1},
                    headers=auth(body["seat_tokens"]["north"]))
    s = r.json()
    assert s["status"] == "over"
    assert s["result"]["winner"] == "south" and s["result"]["reason"] == "resignation"


# ---------------------------------------------------------------------------- timers
def test_timer_passes_the_turn_and_clears_the_lock(tmp_path):
    clock = FakeClock()
    with client_for(tmp_path, clock=clock, timer_poll_seconds=3600) as c:
        body = create(c)
        sid, owner = body["session"]["id"], body["owner_token"]
        assert body["session"]["timer"]["remaining"] == 60.0
        s = move(c, sid, owner, "a1-a2", 1).json()
        s = move(c, sid, owner, "c2-b2", s["version"]).json()  # north moves the shared piece
        assert s["position"]["state"]["shared_locked"] is True
        clock.advance(30)
        s = get(c, sid)
        assert s["timer"]["remaining"] == pytest.approx(30.0) and len(s["events"]) == 2
        clock.advance(30)  # south's 60 s are up: the turn passes to north, the lock is cleared
        s = get(c, sid)
        assert s["events"][-1]["t"] == "timeout" and s["events"][-1]["seat"] == "south"
        assert s["position"]["to_play"] == "north"
        assert s["position"]["state"]["shared_locked"] is False
        assert s["moves"] == ["a1-a2", "c2-b2"] and s["timer"]["remaining"] == 60.0
        # A stale client (it saw the version before the time-out) gets 409.
        assert move(c, sid, owner, "a3-a2", s["version"] - 1).status_code == 409
        # Several turns run out while nobody looks: each time-out lands on its deadline.
        clock.advance(125)
        s = get(c, sid)
        outs = [e for e in s["events"] if e["t"] == "timeout"]
        assert [e["seat"] for e in outs] == ["south", "north", "south"]
        assert [e["at"] for e in outs] == [clock.t - 185 + 60 * k for k in (1, 2, 3)]
        assert s["timer"]["remaining"] == pytest.approx(55.0)


def test_timeouts_repeat_to_a_draw_and_the_ai_answers_after_a_timeout(tmp_path):
    clock = FakeClock()
    with client_for(tmp_path, clock=clock, timer_poll_seconds=3600) as c:
        sid = create(c, turn_seconds=10)["session"]["id"]
        clock.advance(1000)  # nobody ever moves: the same positions repeat -> draw
        s = get(c, sid)
        assert s["status"] == "over" and s["result"]["winner"] is None
        assert all(e["t"] == "timeout" for e in s["events"]) and len(s["events"]) < 10
        body = create(c, seats={"north": {"type": "ai", "level": "random"}}, turn_seconds=10)
        sid = body["session"]["id"]
        clock.advance(11)
        get(c, sid)  # applies south's time-out; north (the AI) then moves by itself
        idle(c)
        s = get(c, sid)
        assert [e["t"] for e in s["events"]] == ["timeout", "move"]
        assert s["events"][1]["by"] == "ai" and s["position"]["to_play"] == "south"


def test_timer_poller_applies_timeouts_without_requests(tmp_path):
    clock = FakeClock()
    with client_for(tmp_path, clock=clock, timer_poll_seconds=0.02) as c:
        sid = create(c, turn_seconds=5)["session"]["id"]
        manager = c.app.state.sessions
        clock.advance(6)
        wait_for(lambda: manager.store.load(sid).games[-1])
        assert manager.store.load(sid).games[-1][0]["t"] == "timeout"


def test_no_timer_for_games_whose_rules_have_none(client):
    for game_id in GAME_IDS:
        if make_game(game_id).spec.turn_seconds is None:
            r = client.post("/v1/sessions", json={"game": game_id, "turn_seconds": 30})
            assert r.status_code == 422 and "timer" in r.json()["message"]
            s = create(client, game=game_id)["session"]
            assert s["timer"]["turn_seconds"] is None


# ---------------------------------------------------------------------------- persistence
def test_restart_continues_every_session_exactly(tmp_path):
    clock = FakeClock()
    with client_for(tmp_path, clock=clock, timer_poll_seconds=3600) as c:
        a = create(c, turn_seconds=None)
        b = create(c, seats={"north": {"type": "ai", "level": "random"}}, confirm_turns=True)
        sa, sb = a["session"]["id"], b["session"]["id"]
        s = move(c, sa, a["owner_token"], "a1-a2", 1).json()
        move(c, sa, a["owner_token"], "b3-b2", s["version"])
        s = move(c, sb, b["owner_token"], "b1-b2", 1).json()  # provisional
        before_a, before_b = get(c, sa), get(c, sb)
    with client_for(tmp_path, clock=clock, timer_poll_seconds=3600) as c:
        after_a, after_b = get(c, sa), get(c, sb)
        for before, after in ((before_a, after_a), (before_b, after_b)):
            for key in ("version", "moves", "events", "pending", "position", "seats", "timer"):
                assert after[key] == before[key], key
        # tokens still work; the provisional turn can be confirmed; the AI answers
        r = c.post(f"/v1/sessions/{sb}/confirm", json={"version": after_b["version"]},
                   headers=auth(b["seat_tokens"]["south"]))
        assert r.status_code == 200
        idle(c)
        assert len(get(c, sb)["moves"]) == 2
        r = move(c, sa, a["seat_tokens"]["south"], after_a["position"]["legal_moves"][0],
                 after_a["version"])
        assert r.status_code == 200


def test_restart_resumes_ai_seats_and_timers(tmp_path):
    clock = FakeClock()
    with client_for(tmp_path, clock=clock, timer_poll_seconds=3600) as c:
        body = create(c, turn_seconds=20)
        sid = body["session"]["id"]
        r = c.put(f"/v1/sessions/{sid}/seats/north",
                  json={"type": "ai", "level": "random", "version": 1},
                  headers=auth(body["owner_token"]))
        assert r.status_code == 200
    clock.advance(21)  # south's time runs out while the server is down
    with client_for(tmp_path, clock=clock, timer_poll_seconds=3600) as c:
        idle(c)
        s = get(c, sid)
        assert [e["t"] for e in s["events"]] == ["timeout", "move"]


def test_two_conflicting_writes_exactly_one_wins(client):
    """Both writes have read version 1 and passed the version check before either commits
    (overlapping_commits), so the compare-and-set alone lets exactly one win."""
    body = create(client, turn_seconds=None)
    sid, owner = body["session"]["id"], body["owner_token"]
    results = []

    def write(mv):
        results.append((mv, move(client, sid, owner, mv, 1).status_code))

    with overlapping_commits(client, 2):
        threads = [threading.Thread(target=write, args=(m,)) for m in ("a1-a2", "b1-b2")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    codes = sorted(code for _, code in results)
    assert codes == [200, 409], results
    winner = next(mv for mv, code in results if code == 200)
    s = get(client, sid)
    assert s["moves"] == [winner] and s["version"] == 2


def test_an_ai_that_runs_out_of_time_loses_its_turn(tmp_path):
    clock = FakeClock()
    with client_for(tmp_path, clock=clock, timer_poll_seconds=3600) as c:
        ai = c.app.state.ai
        real = ai.analyse

        def slow(*args, **kwargs):
            clock.advance(11)  # the search "takes" longer than the turn
            return real(*args, **kwargs)

        ai.analyse = slow
        body = create(c, seats={"north": {"type": "ai", "level": "random"}}, turn_seconds=10)
        sid = body["session"]["id"]
        r = move(c, sid, body["owner_token"], "a1-a2", 1)
        assert r.status_code == 200
        idle(c)
        s = get(c, sid)
        assert [e["t"] for e in s["events"]] == ["move", "timeout"]
        assert s["events"][1]["seat"] == "north" and s["position"]["to_play"] == "south"
