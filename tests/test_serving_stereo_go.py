"""Stereo Go sessions through the API: resuming play after two passes, the proposed dead
chains, and the main-time + byo-yomi clock (with a fake clock), across restarts."""

from __future__ import annotations

import pytest
from serving_helpers import FakeClock, auth, client_for, wait_for

from serving.adapters.go_dead import propose_dead

SMALL = {"board": "5x5"}
CLOCK = {"main_time": 10, "periods": 2, "period_seconds": 5}


def create(client, **body):
    resp = client.post("/v1/sessions", json={"game": "stereo_go", "config": SMALL, **body})
    assert resp.status_code == 201, resp.text
    return resp.json()


def post(client, sid, what, token, **body):
    return client.post(f"/v1/sessions/{sid}/{what}", json=body, headers=auth(token))


def get(client, sid):
    resp = client.get(f"/v1/sessions/{sid}")
    assert resp.status_code == 200, resp.text
    return resp.json()


def play(client, sid, tokens, moves, version):
    """Play notation moves, each with the seat token of the side to move; the last view."""
    s = None
    for mv in moves:
        seat = s["position"]["to_play"] if s else get(client, sid)["position"]["to_play"]
        r = post(client, sid, "moves", tokens[seat], move=mv, version=version)
        assert r.status_code == 200, r.text
        s = r.json()
        version = s["version"]
    return s


def clock_of(s, seat):
    return s["timer"]["clock"]["seats"][seat]


# ---------------------------------------------------------------------------- resuming play
def test_resume_after_two_passes_clears_marks_then_play_goes_on_and_ends(tmp_path):
    with client_for(tmp_path, timer_poll_seconds=3600) as c:
        body = create(c)
        sid, t = body["session"]["id"], body["seat_tokens"]
        s = play(c, sid, t, ["C3", "pass", "pass"], 1)  # black passed last
        assert s["status"] == "scoring" and s["timer"]["deadline"] is None
        r = c.put(f"/v1/sessions/{sid}/scoring/dead",
                  json={"dead": ["C3"], "version": s["version"]}, headers=auth(t["white"]))
        s = post(c, sid, "scoring/accept", t["white"], version=r.json()["version"]).json()
        assert s["scoring"]["dead"] == ["C3"] and s["scoring"]["accepted"] == ["white"]
        s = post(c, sid, "resume", t["white"], version=s["version"]).json()
        assert s["status"] == "playing" and s["scoring"] is None and s["result"] is None
        assert s["events"][-1] == {"t": "resume", "by": "white"}
        assert s["moves"] == ["C3", "pass", "pass"]
        # the player whose turn came after the second pass moves; the passes count afresh
        assert s["position"]["to_play"] == "white"
        assert s["position"]["state"]["passes"] == 0 and not s["position"]["is_over"]
        s = play(c, sid, t, ["pass", "B2", "pass", "pass"], s["version"])
        assert s["status"] == "scoring"
        assert s["scoring"]["dead"] == [] and s["scoring"]["accepted"] == []  # marks are gone
        s = post(c, sid, "scoring/accept", t["black"], version=s["version"]).json()
        s = post(c, sid, "scoring/accept", t["white"], version=s["version"]).json()
        assert s["status"] == "over" and s["result"]["reason"] == "score"
        # two black stones own the board: 23 points against 0 + 7.5
        assert s["result"]["winner"] == "black"
        assert s["result"]["score"] == {"black": 23.0, "white": 7.5}


def test_resume_replays_after_a_restart(tmp_path):
    clock = FakeClock()
    with client_for(tmp_path, clock=clock, timer_poll_seconds=3600) as c:
        body = create(c)
        sid, t, owner = body["session"]["id"], body["seat_tokens"], body["owner_token"]
        s = play(c, sid, t, ["C3", "D3", "pass", "pass"], 1)
        s = post(c, sid, "resume", owner, version=s["version"]).json()
        assert s["events"][-1] == {"t": "resume", "by": "owner"}
        before = play(c, sid, t, ["C4"], s["version"])
    with client_for(tmp_path, clock=clock, timer_poll_seconds=3600) as c:  # a fresh manager
        after = get(c, sid)
        for key in ("version", "status", "moves", "events", "position", "timer", "scoring"):
            assert after[key] == before[key], key
        s = play(c, sid, t, ["pass", "pass"], after["version"])
        assert s["status"] == "scoring" and s["moves"][-3:] == ["C4", "pass", "pass"]


def test_resume_is_refused_out_of_the_scoring_phase_with_a_stale_version_or_for_an_ai(tmp_path):
    with client_for(tmp_path, timer_poll_seconds=3600) as c:
        body = create(c)
        sid, t = body["session"]["id"], body["seat_tokens"]
        r = post(c, sid, "resume", t["black"], version=1)
        assert r.status_code == 409 and "not scoring" in r.json()["message"]
        s = play(c, sid, t, ["pass", "pass"], 1)
        r = post(c, sid, "resume", t["black"], version=s["version"] - 1)
        assert r.status_code == 409 and r.json()["detail"]["version"] == s["version"]
        r = c.post(f"/v1/sessions/{sid}/resume", json={"version": s["version"]})
        assert r.status_code == 401
        assert post(c, sid, "resume", "nope", version=s["version"]).status_code == 401
        assert post(c, "no-such-session", "resume", t["black"], version=1).status_code == 404
        r = post(c, sid, "resume", t["black"], version=s["version"], extra=1)
        assert r.status_code == 422
        assert get(c, sid)["status"] == "scoring"
        # an AI seat cannot resume, a person can; then the AI plays on. Seats cannot change in
        # the scoring phase through the API, so the stored session is edited to get there.
        body = create(c)  # a fresh session: white moves after the passes
        sid, t = body["session"]["id"], body["seat_tokens"]
        s = play(c, sid, t, ["C3", "pass", "pass"], 1)
        store = c.app.state.sessions.store
        data = store.load(sid)
        data.seats["white"] = {"type": "ai", "level": "random"}
        assert store.compare_and_set(data, data.version)
        r = post(c, sid, "resume", t["white"], version=s["version"])
        assert r.status_code == 409 and "AI" in r.json()["message"]
        r = post(c, sid, "resume", t["black"], version=s["version"])
        assert r.status_code == 200 and r.json()["status"] == "playing"
        assert c.app.state.sessions.wait_idle(30)
        s = get(c, sid)
        assert s["events"][-1]["by"] == "ai" and s["events"][-1]["seat"] == "white"


# ---------------------------------------------------------------------------- proposed dead
def test_the_server_proposes_a_stone_left_in_the_opponents_area(tmp_path):
    # Black walls column B, White column D; White's stone A3 sits in Black's area.
    moves = ["B1", "D1", "B2", "D2", "B3", "D3", "B4", "D4", "B5", "D5", "pass", "A3",
             "pass", "pass"]
    with client_for(tmp_path, timer_poll_seconds=3600) as c:
        body = create(c)
        sid, t = body["session"]["id"], body["seat_tokens"]
        s = play(c, sid, t, moves, 1)
        assert s["status"] == "scoring"
        assert s["scoring"] == {"dead": [], "accepted": [], "proposed": ["A3"]}
        r = c.put(f"/v1/sessions/{sid}/scoring/dead",
                  json={"dead": s["scoring"]["proposed"], "version": s["version"]},
                  headers=auth(body["owner_token"]))
        s = post(c, sid, "scoring/accept", body["owner_token"], version=r.json()["version"]).json()
        # territory: black A1..A5 (5) + the dead stone; white E1..E5 (5) + 7.5
        assert s["status"] == "over" and s["result"]["score"] == {"black": 6.0, "white": 12.5}


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        # a two-eyed black group with a white stone thrown into one eye; White lives below
        (["XXXXX", "X.OX.", "XXXXX", "OOOOO", "....."], ["C4"]),
        # seki: the two inner chains share their liberties, neither encloses the other
        (["..XO.", "XXXOO", "OOOXX", ".....", "....."], []),
        # two live sides, nothing in anyone's area
        ([".X.O.", ".X.O.", ".X.O.", ".X.O.", ".X.O."], []),
    ],
)
def test_dead_chain_heuristic_on_hand_built_positions(rows, expected):
    from envs import make_game

    game = make_game("stereo_go", **SMALL)
    state = game.state_from_board(rows)
    marks = propose_dead(state.board, game.board.nbr)
    assert [game.board.names[p] for p in marks] == expected


# ---------------------------------------------------------------------------- the clock
def test_clock_defaults_and_validation(tmp_path):
    with client_for(tmp_path, clock=FakeClock(), timer_poll_seconds=3600) as c:
        s = create(c)["session"]
        assert s["timer"]["turn_seconds"] is None
        assert {k: s["timer"]["clock"][k] for k in ("main_time", "periods", "period_seconds")} \
            == {"main_time": 600.0, "periods": 3, "period_seconds": 30.0}
        assert s["timer"]["remaining"] == 600.0 + 3 * 30.0
        s = create(c, clock={"periods": 1})["session"]
        assert s["timer"]["clock"]["periods"] == 1 and s["timer"]["clock"]["main_time"] == 600.0
        s = create(c, clock=None)["session"]
        assert s["timer"]["clock"] is None and s["timer"]["deadline"] is None
        for bad in ({"main_time": -1}, {"main_time": 10**6}, {"periods": 1.5}, {"periods": 101},
                    {"period_seconds": 0}, {"main_time": 0, "periods": 0}, {"hours": 1}):
            r = c.post("/v1/sessions", json={"game": "stereo_go", "clock": bad})
            assert r.status_code == 422, bad
        r = c.post("/v1/sessions", json={"game": "jiugong", "clock": CLOCK})
        assert r.status_code == 422 and "byo-yomi" in r.json()["message"]


def test_main_time_then_byo_yomi_periods_then_loss_on_time(tmp_path):
    clock = FakeClock()
    with client_for(tmp_path, clock=clock, timer_poll_seconds=3600) as c:
        body = create(c, clock=CLOCK)
        sid, t = body["session"]["id"], body["seat_tokens"]
        assert body["session"]["timer"]["deadline"] == clock.t + 10 + 2 * 5
        clock.advance(4)
        s = play(c, sid, t, ["C3"], 1)  # black used 4 s of main time
        assert clock_of(s, "black") == {"main_left": 6.0, "periods_left": 2, "period_left": None,
                                        "running": False, "deadline": None}
        assert s["timer"]["clock"]["running"] == "white" and clock_of(s, "white")["running"]
        clock.advance(12)  # white: 10 s of main time, then 2 s into its first period
        s = get(c, sid)
        assert clock_of(s, "white")["main_left"] == 0.0
        assert clock_of(s, "white")["period_left"] == pytest.approx(3.0)
        s = play(c, sid, t, ["D3"], s["version"])  # a move within a period keeps it
        assert clock_of(s, "white")["periods_left"] == 2
        assert clock_of(s, "white")["period_left"] == 5.0
        clock.advance(6 + 7)  # black: main time, one whole period, 2 s into the next
        s = get(c, sid)
        assert clock_of(s, "black")["periods_left"] == 1
        assert clock_of(s, "black")["period_left"] == pytest.approx(3.0)
        s = play(c, sid, t, ["C4"], s["version"])  # the used-up period is gone
        assert clock_of(s, "black") == {"main_left": 0.0, "periods_left": 1, "period_left": 5.0,
                                        "running": False, "deadline": None}
        s = play(c, sid, t, ["D4"], s["version"])
        deadline = s["timer"]["deadline"]
        assert deadline == clock.t + 5  # black's one period is all it has left
        clock.advance(4.5)
        assert get(c, sid)["status"] == "playing"
        clock.advance(0.5)
        s = get(c, sid)
        assert s["status"] == "over" and s["timer"]["deadline"] is None
        assert s["result"]["reason"] == "time" and s["result"]["winner"] == "white"
        assert s["result"]["loser"] == "black"
        assert s["events"][-1] == {"t": "time_loss", "seat": "black", "at": deadline}
        assert clock_of(s, "black")["periods_left"] == 0


def test_time_runs_out_while_the_server_is_down_and_lands_at_the_deadline(tmp_path):
    clock = FakeClock()
    with client_for(tmp_path, clock=clock, timer_poll_seconds=3600) as c:
        body = create(c, clock=CLOCK)
        sid, t = body["session"]["id"], body["seat_tokens"]
        s = play(c, sid, t, ["C3"], 1)
        deadline = s["timer"]["deadline"]
    clock.advance(500)
    with client_for(tmp_path, clock=clock, timer_poll_seconds=3600) as c:
        s = get(c, sid)
        assert s["status"] == "over" and s["result"]["winner"] == "black"
        assert s["events"][-1] == {"t": "time_loss", "seat": "white", "at": deadline}
        assert s["moves"] == ["C3"]


def test_the_poller_applies_a_loss_on_time_without_requests(tmp_path):
    clock = FakeClock()
    with client_for(tmp_path, clock=clock, timer_poll_seconds=0.02) as c:
        sid = create(c, clock={"main_time": 1, "periods": 0})["session"]["id"]
        store = c.app.state.sessions.store
        clock.advance(2)
        wait_for(lambda: store.load(sid).status == "over")
        assert store.load(sid).result["reason"] == "time"


def test_the_clock_stops_in_the_scoring_phase_and_runs_again_on_resume(tmp_path):
    clock = FakeClock()
    with client_for(tmp_path, clock=clock, timer_poll_seconds=3600) as c:
        body = create(c, clock=CLOCK)
        sid, t = body["session"]["id"], body["seat_tokens"]
        clock.advance(3)
        s = play(c, sid, t, ["pass"], 1)
        clock.advance(2)
        s = play(c, sid, t, ["pass"], s["version"])
        assert s["status"] == "scoring" and s["timer"]["clock"]["running"] is None
        clock.advance(10_000)  # far past every deadline: nothing runs while scoring
        s = get(c, sid)
        assert s["status"] == "scoring"
        assert clock_of(s, "black")["main_left"] == 7.0
        assert clock_of(s, "white")["main_left"] == 8.0
        s = post(c, sid, "resume", t["black"], version=s["version"]).json()
        # black passed first, white second: black moves, with the 7 s + periods it had left
        assert s["position"]["to_play"] == "black"
        assert s["timer"]["deadline"] == clock.t + 7 + 2 * 5
        assert clock_of(s, "black")["running"] and not clock_of(s, "white")["running"]
