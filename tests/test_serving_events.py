"""Live events: the event log (publish inside the change's transaction, ids per channel,
closing, trimming, wake-ups across processes) and ``GET /v1/sessions/{id}/events`` (server-sent
events and NDJSON: a snapshot, moves as they happen including the AI's, clocks and time-outs,
resuming with Last-Event-ID, bad ids, unknown sessions, the end of a finished session, restarts).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from fastapi import APIRouter, Response
from fastapi.testclient import TestClient
from serving_helpers import (
    FakeClock,
    auth,
    client_for,
    random_moves,
    read,
    settings_for,
)
from sqlalchemy import create_engine, text

from serving import schema
from serving.api.streaming import StreamDep, stream_doc
from serving.app import create_app
from serving.events import EventLog, publish
from serving.sessions.view import SharedViews

FAST = {"event_keepalive_seconds": 0.2, "event_poll_seconds": 0.05}


# ---------------------------------------------------------------------------- helpers
def create(client, game="jiugong", **body):
    resp = client.post("/v1/sessions", json={"game": game, "turn_seconds": None, **body})
    assert resp.status_code == 201, resp.text
    return resp.json()


def move(client, sid, token, mv, version):
    r = client.post(f"/v1/sessions/{sid}/moves", json={"move": mv, "version": version},
                    headers=auth(token))
    assert r.status_code == 200, r.text
    return r.json()


def events_of(msgs: list[dict[str, Any]], kind: str | None = None) -> list[dict[str, Any]]:
    return [m for m in msgs if m["id"] is not None and m["kind"] != "snapshot"
            and (kind is None or m["kind"] == kind)]


def count(kind: str, n: int) -> Callable[[list[dict[str, Any]]], bool]:
    return lambda got: len(events_of(got, kind)) >= n


@pytest.fixture()
def client(tmp_path):
    with client_for(tmp_path, **FAST) as c:
        yield c


# ---------------------------------------------------------------------------- the session stream
def test_a_subscriber_sees_every_move_as_it_happens_ai_moves_included(client):
    body = create(client, seats={"north": {"type": "ai", "level": "random"}})
    sid, token = body["session"]["id"], body["seat_tokens"]["south"]
    manager = client.app.state.sessions
    seen = threading.Condition()
    moves_seen: list[dict[str, Any]] = []
    over = threading.Event()
    opened = threading.Event()  # the stream has sent its snapshot

    def south_moves() -> None:
        # lockstep: south moves only after the stream has shown the AI's answer to its last move
        # (and the first time only once the stream is open: a slow open missed the first move)
        for i in range(4):
            with seen:
                assert seen.wait_for(
                    lambda i=i: (opened.is_set() and len(moves_seen) >= 2 * i) or over.is_set(),
                    20)
            assert manager.wait_idle(20)
            view = client.get(f"/v1/sessions/{sid}").json()
            if view["status"] == "over":  # the random AI may win early
                return
            move(client, sid, token, view["position"]["legal_moves"][0], view["version"])

    def note(got: list[dict[str, Any]]) -> bool:
        with seen:
            opened.set()
            moves_seen[:] = events_of(got, "move")
            if events_of(got, "end"):
                over.set()
            seen.notify_all()
        return len(moves_seen) >= 8

    mover = threading.Thread(target=south_moves)
    mover.start()
    msgs = read(client, f"/v1/sessions/{sid}/events", until=note)  # 8 moves, or the end
    mover.join()
    assert msgs[0]["kind"] == "snapshot" and msgs[0]["data"]["moves"] == []
    assert msgs[0]["id"] == 0
    ids = [m["id"] for m in events_of(msgs)]
    assert ids == list(range(1, len(ids) + 1))  # every event once, in order
    moves = events_of(msgs, "move")
    n = len(moves)
    assert n == 8 or (n >= 2 and events_of(msgs, "end"))
    assert [m["data"]["by"] for m in moves] == (["human", "ai"] * 4)[:n]
    assert [m["data"]["seat"] for m in moves] == (["south", "north"] * 4)[:n]
    assert all(m["data"]["level"] == "random" for m in moves[1::2])
    assert [m["data"]["m"] for m in moves] == client.get(f"/v1/sessions/{sid}").json()["moves"]
    # the AI says it thinks before each of its moves; versions rise with the moves
    kinds = [m["kind"] for m in events_of(msgs) if m["kind"] in ("ai_thinking", "move")]
    assert kinds == (["move", "ai_thinking", "move"] * 4)[: n + n // 2]
    versions = [m["data"]["version"] for m in moves]
    assert versions == sorted(versions) and len(set(versions)) == n
    # after each burst the stream sends the whole view: a client never needs to GET
    views = [m for m in msgs if m["kind"] == "view"]
    assert views and all(m["id"] is None for m in views)
    assert max(v["data"]["version"] for v in views) >= moves[-2]["data"]["version"]


def test_reconnecting_with_last_event_id_resumes_exactly_after_it(client):
    body = create(client)
    sid, owner = body["session"]["id"], body["owner_token"]
    version = 1
    for mv in random_moves("jiugong", seed=3, limit=5):
        version = move(client, sid, owner, mv, version)["version"]
    url = f"/v1/sessions/{sid}/events"
    everything = events_of(read(client, url + "?last_event_id=0", until=count("move", 5)))
    n = everything[-1]["id"]
    assert [m["id"] for m in everything] == list(range(1, n + 1))
    for k in (1, 2, n - 1):
        # the header (what an EventSource sends) and the query parameter (header wins)
        for headers, query in (({"Last-Event-ID": str(k)}, ""), ({}, f"?last_event_id={k}"),
                               ({"Last-Event-ID": str(k)}, "?last_event_id=0")):
            got = read(client, url + query, headers=headers,
                       until=lambda g: bool(g) and g[-1]["id"] == n)
            assert got[0]["id"] == k + 1 and got[0]["kind"] != "snapshot"
            assert events_of(got) == everything[k:]
    # live: k events, a drop, more moves meanwhile, a reconnection: nothing missed or repeated
    first = read(client, url, until=lambda g: len(events_of(g)) >= 0)  # the snapshot alone
    assert first[0]["kind"] == "snapshot" and first[0]["id"] == n
    version = move(client, sid, owner, first[0]["data"]["position"]["legal_moves"][0],
                   first[0]["data"]["version"])["version"]
    later = read(client, url, headers={"Last-Event-ID": str(n)}, until=count("move", 1))
    assert later[0]["id"] == n + 1 and later[0]["kind"] == "move"
    assert later[0]["data"]["version"] == version


def test_the_snapshot_reflects_every_event_up_to_its_id(client):
    body = create(client)
    sid, owner = body["session"]["id"], body["owner_token"]
    v = move(client, sid, owner, "a1-a2", 1)["version"]
    move(client, sid, owner, "b3-b2", v)
    snap = read(client, f"/v1/sessions/{sid}/events", until=lambda g: True)[0]
    assert snap["kind"] == "snapshot" and snap["data"]["moves"] == ["a1-a2", "b3-b2"]
    replay = read(client, f"/v1/sessions/{sid}/events?last_event_id=0",
                  until=lambda g: bool(g) and g[-1]["id"] == snap["id"])
    assert [m["data"]["m"] for m in events_of(replay, "move")] == ["a1-a2", "b3-b2"]


def test_ndjson_variant(client):
    body = create(client)
    sid, owner = body["session"]["id"], body["owner_token"]
    move(client, sid, owner, "a1-a2", 1)
    lines: list[str] = []
    with client.stream("GET", f"/v1/sessions/{sid}/events",
                       headers={"Accept": "application/x-ndjson"}) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("application/x-ndjson")
        for line in r.iter_lines():
            lines.append(line)
            if line == "":  # a keep-alive: an empty line
                break
    msgs = [json.loads(x) for x in lines if x]
    assert msgs[0]["kind"] == "snapshot" and msgs[0]["id"] == 1
    assert msgs[0]["data"]["moves"] == ["a1-a2"]
    assert set(msgs[0]) == {"id", "kind", "data", "at"}
    r = client.get(f"/v1/sessions/{sid}/events?last_event_id=0",
                   headers={"Accept": "application/x-ndjson", "Last-Event-ID": "999"})
    assert r.status_code == 422


@pytest.mark.parametrize(("headers", "query"), [
    ({"Last-Event-ID": "abc"}, ""), ({"Last-Event-ID": "-1"}, ""), ({}, "?last_event_id=1.5"),
    ({}, "?last_event_id=7"), ({"Last-Event-ID": "1" * 40}, ""), ({}, "?last_event_id=%C2%B2"),
])
def test_a_bad_last_event_id_is_a_clear_422(client, headers, query):
    sid = create(client)["session"]["id"]
    r = client.get(f"/v1/sessions/{sid}/events{query}", headers=headers)
    assert r.status_code == 422 and r.headers["content-type"] == "application/json"
    assert r.json()["error"] == "invalid_input" and "Last-Event-ID" in r.json()["message"]


def test_unknown_session_is_404(client):
    for headers in ({}, {"Last-Event-ID": "3"}):
        r = client.get("/v1/sessions/nope/events", headers=headers)
        assert r.status_code == 404 and r.json()["error"] == "not_found"


def test_the_stream_of_a_finished_session_ends(client):
    body = create(client)
    sid, owner = body["session"]["id"], body["owner_token"]
    moves = random_moves("jiugong", seed=1)
    version = 1
    for mv in moves:
        version = move(client, sid, owner, mv, version)["version"]
    url = f"/v1/sessions/{sid}/events"
    msgs = read(client, url)  # no `until`: returns because the stream ends
    assert [m["kind"] for m in msgs] == ["snapshot"] and msgs[0]["data"]["status"] == "over"
    replay = read(client, url + "?last_event_id=0")
    kinds = [m["kind"] for m in events_of(replay)]
    assert kinds[-2:] == ["game_end", "end"] and kinds.count("move") == len(moves)
    assert replay[-1]["kind"] == "view" and replay[-1]["data"]["status"] == "over"
    end = events_of(replay)[-1]
    assert end["data"]["result"] == client.get(f"/v1/sessions/{sid}").json()["result"]
    assert end["id"] == msgs[0]["id"]
    # read to the end: 204, which tells an EventSource not to reconnect
    assert client.get(url, headers={"Last-Event-ID": str(end["id"])}).status_code == 204


def test_a_watched_game_ends_the_stream(client):
    body = create(client, seats={"south": {"type": "ai", "level": "random"},
                                 "north": {"type": "ai", "level": "random"}})
    sid = body["session"]["id"]
    # From the first event: the AIs may finish before the stream opens (then it is a replay
    # that ends); otherwise it follows the game live and ends with it.
    msgs = read(client, f"/v1/sessions/{sid}/events?last_event_id=0")
    assert events_of(msgs)[-1]["kind"] == "end"
    assert client.get(f"/v1/sessions/{sid}").json()["status"] == "over"


def test_clock_events_at_moves_and_time_outs(tmp_path):
    clock = FakeClock()
    with client_for(tmp_path, clock=clock, timer_poll_seconds=0.02, **FAST) as c:
        body = create(c, turn_seconds=10)
        sid, owner = body["session"]["id"], body["owner_token"]
        move(c, sid, owner, "a1-a2", 1)
        url = f"/v1/sessions/{sid}/events"
        got = read(c, url + "?last_event_id=0", until=count("clock", 1))
        tick = events_of(got, "clock")[0]["data"]
        assert tick["running"] == "north" and tick["deadline"] == clock.t + 10
        assert tick["turn_seconds"] == 10
        threading.Timer(0.3, clock.advance, args=(11,)).start()  # the poller applies it
        got = read(c, url, headers={"Last-Event-ID": "2"}, until=count("clock", 1))
        kinds = [m["kind"] for m in events_of(got)]
        assert kinds == ["timeout", "clock"]
        out, tick = events_of(got)[0]["data"], events_of(got)[1]["data"]
        assert out["seat"] == "north" and out["at"] == clock.t - 1
        assert tick["running"] == "south" and tick["deadline"] == clock.t - 1 + 10


def test_byo_yomi_clock_events_carry_main_time_and_periods_left(tmp_path):
    clock = FakeClock()
    with client_for(tmp_path, clock=clock, timer_poll_seconds=3600, **FAST) as c:
        body = create(c, game="stereo_go", config={"board": "9x9"},
                      clock={"main_time": 60, "periods": 2, "period_seconds": 10})
        sid, owner = body["session"]["id"], body["owner_token"]
        clock.advance(20)
        move(c, sid, owner, "E5", 1)
        got = read(c, f"/v1/sessions/{sid}/events?last_event_id=0", until=count("clock", 1))
        seats = events_of(got, "clock")[0]["data"]["clock"]["seats"]
        assert seats["black"]["main_left"] == 40 and seats["black"]["periods_left"] == 2
        assert seats["white"]["running"] and seats["white"]["main_left"] == 60


def test_seats_pending_and_new_kinds_from_the_session_data(client):
    body = create(client, confirm_turns=True)
    sid, owner = body["session"]["id"], body["owner_token"]
    manager = client.app.state.sessions
    s = move(client, sid, owner, "a1-a2", 1)
    s = client.post(f"/v1/sessions/{sid}/confirm", json={"version": s["version"]},
                    headers=auth(owner)).json()
    s = client.put(f"/v1/sessions/{sid}/seats/south", headers=auth(owner),
                   json={"type": "ai", "level": "random", "version": s["version"]}).json()

    # a feature of a later module kept in the session's extras is an event kind of its own
    def offer(ctx):
        ctx.data.extras["draw_offer"] = {"by": "north"}
        ctx.publish("chat", {"text": "draw?"})

    manager._write(sid, owner, s["version"], offer)
    got = read(client, f"/v1/sessions/{sid}/events?last_event_id=0", until=count("draw_offer", 1))
    told = [(m["kind"], m["data"]) for m in events_of(got)]
    assert told[0] == ("pending", {"moves": ["a1-a2"], "complete": True, "version": 2})
    assert told[1][0] == "move" and told[2] == ("pending", {"moves": [], "complete": False,
                                                            "version": 3})
    assert ("seat", {"seat": "south", "type": "ai", "level": "random", "version": 4}) in told
    assert told[-2:] == [("chat", {"text": "draw?", "version": 5}),
                         ("draw_offer", {"value": {"by": "north"}, "version": 5})]


def test_events_survive_a_restart_with_the_same_ids(tmp_path):
    with client_for(tmp_path, **FAST) as c:
        body = create(c)
        sid, owner = body["session"]["id"], body["owner_token"]
        v = move(c, sid, owner, "a1-a2", 1)["version"]
        v = move(c, sid, owner, "b3-b2", v)["version"]
        before = events_of(read(c, f"/v1/sessions/{sid}/events?last_event_id=0",
                                until=count("move", 2)))
    with client_for(tmp_path, **FAST) as c:
        url = f"/v1/sessions/{sid}/events"
        after = events_of(read(c, url + "?last_event_id=0", until=count("move", 2)))
        assert after == before
        move(c, sid, owner, "a2-a1", v)
        more = read(c, url, headers={"Last-Event-ID": str(before[-1]["id"])},
                    until=count("move", 1))
        assert more[0]["id"] == before[-1]["id"] + 1 and more[0]["data"]["m"] == "a2-a1"


def test_keep_alive_comments_on_an_idle_stream(client):
    sid = create(client)["session"]["id"]
    with client.stream("GET", f"/v1/sessions/{sid}/events") as r:
        lines = []
        for line in r.iter_lines():
            lines.append(line)
            if line.startswith(": keep-alive"):
                break
    assert lines[0].startswith("retry: ")


def test_openapi_describes_the_stream(client):
    op = client.get("/openapi.json").json()["paths"]["/v1/sessions/{session_id}/events"]["get"]
    assert op["summary"] and "Last-Event-ID" in op["description"]
    assert set(op["responses"]["200"]["content"]) == {"text/event-stream",
                                                      "application/x-ndjson"}
    assert {"204", "404", "422"} <= set(op["responses"])
    params = {p["name"]: p["in"] for p in op["parameters"]}
    assert params["Last-Event-ID"] == "header" and params["last_event_id"] == "query"


# ---------------------------------------------------------------------------- any channel
def test_a_three_line_route_streams_any_channel(tmp_path):
    """What the ladder's GET /v1/players/{id}/events is (a test route beside it): events
    published in a transaction of the module's own, streamed from the next one on (no
    snapshot), resumable."""
    router = APIRouter()

    @router.get("/v1/test/{player_id}/events", **stream_doc("a player's events", "..."))
    async def player_events(player_id: str, stream: StreamDep) -> Response:
        return await stream.open(f"player:{player_id}")

    app = create_app(settings_for(tmp_path, **FAST))
    app.include_router(router)
    with TestClient(app) as c:
        log = c.app.state.events

        def ladder() -> None:
            deadline = time.monotonic() + 20  # publish once the stream below is open
            while "player:7" not in log.wakeups.watched() and time.monotonic() < deadline:
                time.sleep(0.02)
            with log.transaction() as tx:  # with the module's own changes, in one transaction
                publish(tx, "player:7", "match_found", {"session": "abc"})
                publish(tx, "player:8", "match_found", {"session": "abc"})
            log.publish_now("player:7", "rank_change", {"rank": 3})

        threading.Thread(target=ladder).start()
        got = read(c, "/v1/test/7/events", until=lambda g: len(g) == 2)
        assert [(m["id"], m["kind"]) for m in got] == [(1, "match_found"), (2, "rank_change")]
        again = read(c, "/v1/test/7/events?last_event_id=1", until=lambda g: len(g) == 1)
        assert again[0]["id"] == 2
        assert c.get("/v1/test/7/events?last_event_id=3").status_code == 422
        doc = c.get("/openapi.json").json()["paths"]["/v1/test/{player_id}/events"]["get"]
        assert set(doc["responses"]["200"]["content"]) == {"text/event-stream",
                                                           "application/x-ndjson"}


# ---------------------------------------------------------------------------- the event log
def _log(url: str, **kwargs: Any) -> EventLog:
    """An event log on ``url``, its schema migrated (as the service does at start)."""
    kwargs.setdefault("poll_seconds", 0.02)
    engine = create_engine(url)
    schema.upgrade(engine)
    return EventLog(engine, **kwargs)


def _check_publish_in_transaction(url: str, channel: str) -> None:
    log = _log(url)
    try:
        with log.transaction() as tx:  # committed: ids 1, 2 on this channel
            assert publish(tx, channel, "match_found", {"match": 1}, at=5.0) == 1
            assert publish(tx, channel, "rank_change", {"rank": 3}, at=5.0) == 2
        with pytest.raises(RuntimeError), log.transaction() as tx:  # rolled back: no event
            publish(tx, channel, "rank_change", {"rank": 9})
            raise RuntimeError("the change fails")
        head, got = log.since(channel, 0)
        assert head.last_id == 2 and [(e.id, e.kind, e.data) for e in got] == [
            (1, "match_found", {"match": 1}), (2, "rank_change", {"rank": 3})]
        with log.transaction() as tx:
            assert publish(tx, channel, "gone", {}, close=True) == 3
        with log.transaction() as tx:  # a closed channel takes no more events
            assert publish(tx, channel, "late", {}) is None
        assert log.head(channel).closed is not None and log.head(channel).last_id == 3
    finally:
        log.engine.dispose()


def test_publish_commits_with_the_transaction_sqlite(tmp_path):
    _check_publish_in_transaction(f"sqlite:///{tmp_path / 'e.sqlite3'}", "player:7")


def test_publish_commits_with_the_transaction_postgres(postgres_url):
    channel = f"player:test-{time.time_ns()}"
    _check_publish_in_transaction(postgres_url, channel)
    with create_engine(postgres_url).begin() as conn:  # leave the shared database clean
        conn.execute(text("delete from events where channel = :c"), {"c": channel})
        conn.execute(text("delete from event_channels where channel = :c"), {"c": channel})


def test_trim_keeps_open_channels_and_recent_ends(tmp_path):
    log = _log(f"sqlite:///{tmp_path / 'e.sqlite3'}", retention_seconds=100)
    for channel, close_at in (("session:old", 1000.0), ("session:recent", 1050.0),
                              ("session:live", None)):
        with log.transaction() as tx:
            publish(tx, channel, "move", {}, at=900.0)
            if close_at is not None:
                publish(tx, channel, "end", {}, at=close_at, close=True)
    assert log.trim(now=1120.0) == 2  # only the channel closed more than 100 s ago
    assert log.since("session:old", 0)[1] == [] and log.head("session:old").last_id == 2
    assert len(log.since("session:recent", 0)[1]) == 2
    assert len(log.since("session:live", 0)[1]) == 1


def test_a_finished_session_whose_events_were_trimmed_restarts_from_a_snapshot(tmp_path):
    with client_for(tmp_path, **FAST) as c:
        body = create(c)
        sid, owner = body["session"]["id"], body["owner_token"]
        v = 1
        for mv in random_moves("jiugong", seed=1):
            v = move(c, sid, owner, mv, v)["version"]
        log = c.app.state.events
        assert log.trim(now=time.time() + 8 * 86_400) > 0
        got = read(c, f"/v1/sessions/{sid}/events", headers={"Last-Event-ID": "3"})
        assert [m["kind"] for m in got] == ["snapshot"] and got[0]["data"]["status"] == "over"


def test_another_process_events_wake_subscribers_through_the_poll(tmp_path):
    """Two event logs on one database, as two replicas: a commit through one wakes a
    subscriber of the other through the poll (the fallback to LISTEN/NOTIFY; SQLite has no
    NOTIFY, and the writer's own wake-ups reach only its own subscribers)."""
    url = f"sqlite:///{tmp_path / 'e.sqlite3'}"
    reader, writer = _log(url, poll_seconds=0.02), _log(url)
    reader.start()

    async def wait_for_news() -> bool:
        with reader.wakeups.subscribe("player:1") as sub:
            await asyncio.sleep(0.05)  # the poll learns the channel's current head first
            sub.clear()
            threading.Thread(target=writer.publish_now, args=("player:1", "rank_change",
                                                              {"rank": 2})).start()
            # Woken at all is the point; the limit only keeps a broken poll from hanging.
            return await sub.wait(60.0)

    try:
        assert asyncio.run(wait_for_news())
        assert [e.kind for e in reader.since("player:1", 0)[1]] == ["rank_change"]
    finally:
        reader.close()
        writer.close()


def test_service_settings_reach_the_event_log(tmp_path):
    settings = settings_for(tmp_path, event_retention_days=2, event_poll_seconds=0.5)
    with client_for(tmp_path, settings=settings) as c:
        log = c.app.state.events
        assert log.retention_seconds == 2 * 86_400 and log.poll_seconds == 0.5


def test_streams_of_one_session_share_the_view_built_after_a_change():
    views = SharedViews(max_age=60)
    built: list[int] = []

    def build(version: int) -> dict[str, Any]:
        built.append(version)
        time.sleep(0.02)  # the others arrive while it is built
        return {"version": version}

    got: list[dict[str, Any]] = []
    threads = [threading.Thread(target=lambda: got.append(
        views.get("s", lambda v: v["version"] >= 3, lambda: build(3)))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert built == [3] and all(v is got[0] for v in got)
    assert views.get("s", lambda v: v["version"] >= 4, lambda: build(4)) == {"version": 4}
    assert built == [3, 4]
