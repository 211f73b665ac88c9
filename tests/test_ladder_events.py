"""The ladder's live events on each player's channel (GET /v1/players/{id}/events): a snapshot
of the profile, ``match_found`` with the pairing, ``rank_change`` with a rated result or a
grant, ``game_over`` for friendly and void games; each published in the transaction of the
change, so two end-of-game writes tell it once."""

from __future__ import annotations

import threading

import pytest
from ladder_helpers import ADMIN, NINE, act, grant, pair, play_moves, register, stream
from serving_helpers import FakeClock, auth, client_for

FAST = {"event_keepalive_seconds": 0.2, "event_poll_seconds": 0.05}


@pytest.fixture()
def clock():
    return FakeClock()


@pytest.fixture()
def client(tmp_path, clock):
    with client_for(tmp_path, clock=clock, ladder_admin_token=ADMIN, ladder_match_seconds=0.05,
                    timer_poll_seconds=3600, **FAST) as c:
        yield c


def kinds(messages):
    return [m["kind"] for m in messages]


def test_match_found_then_rank_change(client, clock):
    lin, wu = register(client, "Lin"), register(client, "Wu")
    grant(client, lin, 5)
    grant(client, wu, 5)
    s = pair(client, lin, wu, **NINE)
    s = play_moves(client, s, 10)
    clock.advance(61)
    loser = s["position"]["to_play"]
    assert act(client, s, "resign", loser).status_code == 200
    for p in (lin, wu):
        got = stream(client, p, 3)
        assert kinds(got) == ["rank_change", "match_found", "rank_change"]
        assert [m["id"] for m in got] == [1, 2, 3]
        grant_ev, found, rated = (m["data"] for m in got)
        assert grant_ev["kind"] == "grant" and grant_ev["points"]["after"] == 5000
        colour = found["colour"]
        assert found["session"] == s["id"] and s["seats"][colour]["player"] == p["id"]
        assert found["opponent"]["id"] == ({lin["id"], wu["id"]} - {p["id"]}).pop()
        assert found["kind"] == "rated" and found["opponent"]["rank"] == "13K"
        won = colour != loser
        assert rated["result"] == ("win" if won else "loss")
        assert rated["points"] == ({"before": 5000, "after": 5200, "change": 200} if won else
                                   {"before": 5000, "after": 4800, "change": -200})
        assert rated["demoted"] == (not won) and rated["ranks"]["after"] == (
            "13K" if won else "14K")


def test_the_stream_starts_with_the_profile(client):
    lin = register(client, "Lin")
    grant(client, lin, 18)
    first, = stream(client, lin, 1, after=None)
    assert first["kind"] == "snapshot" and first["id"] == 1
    assert first["data"]["rank"] == "1D" and first["data"]["id"] == lin["id"]
    assert client.get("/v1/players/nope/events").status_code == 404
    assert client.get(f"/v1/players/{lin['id']}/events?last_event_id=9").status_code == 422


def test_void_and_friendly_games_are_game_over(client, clock):
    lin, wu = register(client, "Lin"), register(client, "Wu")
    s = pair(client, lin, wu, **NINE)
    s = play_moves(client, s, 3)
    act(client, s, "resign", "black")
    got = stream(client, lin, 2)
    assert kinds(got) == ["match_found", "game_over"]
    assert got[1]["data"]["kind"] == "void" and "invalid" in got[1]["data"]["why"]
    dan = register(client, "Dan")
    grant(client, dan, 18)  # 1D against 18K: a friendly game by challenge
    r = client.post("/v1/ladder/challenges", json={"opponent": lin["id"], **NINE},
                    headers=auth(dan["token"]))
    cid = r.json()["id"]
    r = client.post(f"/v1/ladder/challenges/{cid}/accept", headers=auth(lin["token"]))
    s = client.get(f"/v1/sessions/{r.json()['session']}").json()
    s["tokens"] = {c: (lin if s["seats"][c]["player"] == lin["id"] else dan)["token"]
                   for c in ("black", "white")}
    s = play_moves(client, s, 10)
    clock.advance(61)
    act(client, s, "resign", "white")
    found, over = stream(client, lin, 2, after=2)
    assert found["kind"] == "match_found" and found["data"]["kind"] == "friendly"
    assert over["kind"] == "game_over" and over["data"]["result"] == "friendly"


def test_two_end_of_game_writes_tell_it_once(client, clock):
    lin, wu = register(client, "Lin"), register(client, "Wu")
    s = pair(client, lin, wu, board="5x5")
    s = play_moves(client, s, 10)
    clock.advance(120)
    barrier = threading.Barrier(2)

    def resign(colour):
        barrier.wait()
        act(client, s, "resign", colour)

    threads = [threading.Thread(target=resign, args=(c,)) for c in ("black", "white")]
    [t.start() for t in threads]
    [t.join() for t in threads]
    log = client.app.state.events
    for p in (lin, wu):
        head, events = log.since(f"player:{p['id']}", 0)
        assert [e.kind for e in events] == ["match_found", "rank_change"]
