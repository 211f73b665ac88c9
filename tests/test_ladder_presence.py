"""Presence and disconnections in ladder games (docs/rules/ladder.md, "Disconnections";
serving/ladder/presence.py), through real sessions and real event streams on a fake clock:
presence events reach the opponent's stream, a disconnection is counted when a player's last
stream closes (streams with another's token or none count for nobody), the fourth disconnection
and an absence past the byo-yomi left lose on time whoever is to move, three do not, returning
in time calls the loss off, and a dead process's streams are swept after the stale window (a
reconnection within it is no disconnection). Time is the fake clock's; nothing sleeps."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import pytest
from ladder_helpers import ladder_app, pair, play_moves, profile, register
from serving_helpers import FakeClock, auth, client_for, postgres_schema, settings_for

BYO_YOMI = 3 * 30.0  # the default ladder clock: 600 s + 3 × 30 s
NINE = {"board": "9x9"}


@pytest.fixture()
def clock():
    return FakeClock()


@pytest.fixture()
def client(tmp_path, clock):
    # no presence thread in the background: the tests call its tick themselves
    yield from ladder_app(tmp_path, clock, ladder_presence_heartbeat_seconds=3600)


class Follower:
    """An open NDJSON stream of a session, read message by message."""

    def __init__(self, lines: Iterator[str]) -> None:
        self.lines = lines

    def next(self, kind: str, limit: int = 500) -> dict[str, Any]:
        """The next message of ``kind`` (others skipped); fails after ``limit`` lines, the
        keep-alives included (one every 0.2 s of quiet), rather than after some time."""
        for _ in range(limit):
            line = next(self.lines)
            if line.strip() and (msg := json.loads(line))["kind"] == kind:
                return msg
        raise AssertionError(f"no {kind!r} message in {limit} lines")


@contextmanager
def follow(client, session: dict[str, Any], token: str | None = None) -> Iterator[Follower]:
    """Follow ``session``'s events, with ``token`` (None: as a spectator), from its snapshot
    on; the stream closes when the block ends."""
    headers = {"Accept": "application/x-ndjson", **(auth(token) if token else {})}
    with client.stream("GET", f"/v1/sessions/{session['id']}/events", headers=headers) as r:
        assert r.status_code == 200, r.read()
        follower = Follower(r.iter_lines())
        follower.next("snapshot")
        yield follower


def presence(client, session: dict[str, Any]) -> dict[str, Any]:
    r = client.get(f"/v1/sessions/{session['id']}")
    assert r.status_code == 200, r.text
    return r.json()["ladder"]["presence"]


def disconnect(client, session: dict[str, Any], colour: str, times: int) -> None:
    """``colour``'s player opens a stream and closes it, ``times`` times."""
    for _ in range(times):
        with follow(client, session, session["tokens"][colour]):
            pass


def game(client, moves: int = 12) -> dict[str, Any]:
    """A rated 9×9 game between two new players after ``moves`` moves (12: Black to move)."""
    s = pair(client, register(client, "Lin"), register(client, "Wu"), **NINE)
    return play_moves(client, s, moves)


# ---------------------------------------------------------------------------- presence
def test_presence_events_reach_the_opponents_stream(client, clock):
    s = game(client)
    white = s["seats"]["white"]["player"]
    assert presence(client, s)["white"] == {"player": white, "present": False,
                                            "disconnections": 0, "absent_since": None,
                                            "loses_at": None}
    with follow(client, s, s["tokens"]["black"]) as black:
        assert black.next("presence")["data"]["seat"] == "black"  # its own arrival first
        with follow(client, s, s["tokens"]["white"]):
            came = black.next("presence")["data"]
            assert came == {"seat": "white", "player": white, "present": True,
                            "disconnections": 0, "absent_since": None, "loses_at": None,
                            "version": s["version"]}
            now = presence(client, s)
            assert now["white"]["present"] and now["black"]["present"]
            clock.advance(7)
        left = black.next("presence")["data"]
        assert left == {**came, "present": False, "disconnections": 1,
                        "absent_since": clock()}
        view = black.next("view")["data"]  # the view after the event shows it too
        assert view["ladder"]["presence"]["white"]["disconnections"] == 1
    assert presence(client, s)["black"]["disconnections"] == 1  # black's stream closed too


def test_a_disconnection_counts_only_when_the_players_last_stream_closes(client):
    s = game(client)
    with follow(client, s, s["tokens"]["white"]):
        with follow(client, s, s["tokens"]["white"]):
            pass  # one of two streams closed: still present
        assert presence(client, s)["white"] == {**presence(client, s)["white"],
                                                "present": True, "disconnections": 0}
    assert presence(client, s)["white"]["disconnections"] == 1
    assert not presence(client, s)["white"]["present"]


def test_streams_with_someone_elses_token_or_none_do_not_count(client):
    s = game(client)
    stranger = register(client, "Zhao")  # a ladder player, but not in this game
    for token in (None, stranger["token"], s["tokens"]["black"], "forged"):
        with follow(client, s, token):
            assert not presence(client, s)["white"]["present"]
    assert presence(client, s)["white"]["disconnections"] == 0
    assert presence(client, s)["black"]["disconnections"] == 1  # black's own token counted


# ---------------------------------------------------------------------------- the rule
def test_the_fourth_disconnection_and_an_absence_past_the_byo_yomi_lose_on_time(client, clock):
    s = game(client)
    assert s["position"]["to_play"] == "black"  # White is away while it is not its turn
    clock.advance(5)
    disconnect(client, s, "white", 3)
    assert presence(client, s)["white"]["loses_at"] is None  # three are free
    disconnect(client, s, "white", 1)
    left_at = clock()
    assert presence(client, s)["white"] == {**presence(client, s)["white"], "disconnections": 4,
                                            "absent_since": left_at,
                                            "loses_at": left_at + BYO_YOMI}
    clock.advance(BYO_YOMI - 1)
    assert client.get(f"/v1/sessions/{s['id']}").json()["status"] == "playing"
    clock.advance(2)  # longer than the byo-yomi left
    over = client.get(f"/v1/sessions/{s['id']}").json()
    assert over["status"] == "over"
    assert over["result"] == {**over["result"], "reason": "time", "loser": "white",
                              "winner": "black"}
    assert over["events"][-1] == {"t": "time_loss", "seat": "white", "at": left_at + BYO_YOMI,
                                  "absent": True}
    outcome = over["ladder"]["outcome"]
    assert outcome["kind"] == "rated" and outcome["results"] == {"black": "win",
                                                                 "white": "loss"}
    loser = profile(client, {"id": over["seats"]["white"]["player"]})
    assert loser["losses"] == 1 and loser["games"][0]["reason"] == "time"


def test_three_disconnections_do_not_lose(client, clock):
    s = game(client)
    disconnect(client, s, "white", 3)
    clock.advance(500)  # far past the byo-yomi, within Black's main time
    view = client.get(f"/v1/sessions/{s['id']}").json()
    assert view["status"] == "playing"
    assert view["ladder"]["presence"]["white"] == {**view["ladder"]["presence"]["white"],
                                                   "disconnections": 3, "loses_at": None}


def test_returning_before_the_limit_calls_the_loss_off(client, clock):
    s = game(client)
    disconnect(client, s, "white", 4)
    clock.advance(BYO_YOMI - 10)
    with follow(client, s, s["tokens"]["white"]):
        back = presence(client, s)["white"]
        assert back["present"] and back["loses_at"] is None and back["disconnections"] == 4
        clock.advance(200)  # past where the absence would have lost
        assert client.get(f"/v1/sessions/{s['id']}").json()["status"] == "playing"
    fifth = clock()  # the fifth disconnection is bounded again, from its own start
    assert presence(client, s)["white"]["loses_at"] == fifth + BYO_YOMI
    clock.advance(BYO_YOMI + 1)
    assert client.get(f"/v1/sessions/{s['id']}").json()["result"]["loser"] == "white"


def test_the_byo_yomi_left_is_periods_left_times_their_length_and_the_clock_still_runs(
        client, clock):
    s = game(client, moves=11)
    assert s["position"]["to_play"] == "white"
    clock.advance(600 + 30 + 10)  # White's main time and one period gone, 10 s into the next
    disconnect(client, s, "white", 4)
    assert presence(client, s)["white"]["loses_at"] == clock() + 2 * 30  # two periods left
    # White's own clock runs out first: 20 s of its second period and the third, 50 s
    clock.advance(49)
    assert client.get(f"/v1/sessions/{s['id']}").json()["status"] == "playing"
    clock.advance(2)
    over = client.get(f"/v1/sessions/{s['id']}").json()
    assert over["result"]["loser"] == "white"
    assert over["events"][-1] == {"t": "time_loss", "seat": "white", "at": clock() - 1}


def test_a_loss_that_fell_stands_when_the_player_comes_back_late(client, clock):
    s = game(client)
    disconnect(client, s, "white", 4)
    limit = presence(client, s)["white"]["loses_at"]
    clock.advance(BYO_YOMI + 30)
    with follow(client, s, s["tokens"]["white"]):  # nobody loaded the game meanwhile
        pass
    over = client.get(f"/v1/sessions/{s['id']}").json()
    assert over["result"]["loser"] == "white" and over["events"][-1]["at"] == limit


# ---------------------------------------------------------------------------- replicas, restarts
def test_the_presence_thread_applies_a_due_loss_without_a_request(client, clock):
    s = game(client)
    disconnect(client, s, "white", 4)
    clock.advance(BYO_YOMI + 1)
    store = client.app.state.sessions.store
    assert store.load(s["id"]).status == "playing"  # nobody has loaded it yet
    client.app.state.ladder.presence.tick()
    assert store.load(s["id"]).status == "over"
    assert store.load(s["id"]).result["loser"] == "white"


def test_a_stopped_processs_streams_are_swept_after_the_stale_window(client, clock):
    s = game(client)
    tracker = client.app.state.ladder.presence
    tracker.stopping = True  # the process stops with the stream open: it leaves the row
    with follow(client, s, s["tokens"]["white"]):
        pass
    tracker.stopping = False
    assert presence(client, s)["white"]["present"]  # nobody knows yet
    clock.advance(29)
    tracker.tick()
    assert presence(client, s)["white"]["present"]  # within the stale window
    clock.advance(2)
    tracker.tick()
    white = presence(client, s)["white"]
    assert not white["present"] and white["disconnections"] == 1
    assert white["absent_since"] == clock()  # timed when noticed


def test_a_reconnection_within_the_stale_window_is_no_disconnection(client, clock):
    s = game(client)
    tracker = client.app.state.ladder.presence
    tracker.stopping = True
    with follow(client, s, s["tokens"]["white"]):
        pass
    tracker.stopping = False
    with follow(client, s, s["tokens"]["white"]):  # the client reconnects (another replica)
        clock.advance(600)  # the old stream's heartbeat is long stale, the new one is live
        tracker.tick()
        white = presence(client, s)["white"]
        assert white["present"] and white["disconnections"] == 0
    assert presence(client, s)["white"]["disconnections"] == 1


@pytest.mark.needs("postgresql")
def test_presence_and_the_rule_on_postgresql(tmp_path, clock, postgres_url):
    with postgres_schema(postgres_url) as url:
        settings = settings_for(tmp_path, database_url=url, ladder_match_seconds=0.05,
                                timer_poll_seconds=3600, ladder_presence_heartbeat_seconds=3600,
                                event_keepalive_seconds=0.2, event_poll_seconds=0.05)
        with client_for(tmp_path, clock=clock, settings=settings) as c:
            s = game(c)
            with follow(c, s, s["tokens"]["black"]) as black:
                assert black.next("presence")["data"]["seat"] == "black"
                disconnect(c, s, "white", 4)
                for n in range(4):
                    assert black.next("presence")["data"]["present"]
                    assert black.next("presence")["data"]["disconnections"] == n + 1
            clock.advance(BYO_YOMI + 1)
            c.app.state.ladder.presence.tick()
            assert c.app.state.sessions.store.load(s["id"]).result["loser"] == "white"


@pytest.mark.needs("postgresql")
def test_two_replicas_count_one_player_across_both(tmp_path, clock, postgres_url):
    """A player's streams on replica A and replica B are one presence: closing the one on A
    is no disconnection while B's is open, closing B's is; a stream that A leaves when it
    stops, followed by a reconnection to B, is swept by B with no disconnection."""
    with postgres_schema(postgres_url) as url, ExitStack() as stack:
        a, b = (stack.enter_context(client_for(tmp_path / name, clock=clock, settings=settings_for(
            tmp_path / name, database_url=url, ladder_match_seconds=0.05,
            timer_poll_seconds=3600, ladder_presence_heartbeat_seconds=3600,
            event_keepalive_seconds=0.2, event_poll_seconds=0.05))) for name in ("a", "b"))
        s = game(a)
        white = s["tokens"]["white"]
        with follow(b, s, white):
            with follow(a, s, white):
                pass
            assert presence(a, s)["white"] == {**presence(a, s)["white"], "present": True,
                                               "disconnections": 0}
        assert presence(a, s)["white"] == {**presence(a, s)["white"], "present": False,
                                           "disconnections": 1}
        a.app.state.ladder.presence.stopping = True  # A stops with White's stream open
        with follow(a, s, white):
            pass
        with follow(b, s, white):  # White's client reconnects to B
            clock.advance(60)
            b.app.state.ladder.presence.tick()  # B sweeps A's stale stream
            assert presence(b, s)["white"] == {**presence(b, s)["white"], "present": True,
                                               "disconnections": 1}


def test_a_server_that_stops_counts_no_disconnection(client):
    """The service's stop ends every stream; presence stops counting first, so a deploy is
    nobody's disconnection (the other replicas' sweep judges the rows left behind)."""
    from sqlalchemy import select

    from serving.ladder.store import PresenceRow

    s = game(client)
    steps = client.app.state.lifecycle._steps  # the stop's steps, in order
    names = [name for name, _ in steps]
    with follow(client, s, s["tokens"]["white"]):
        for _, step in steps[: names.index("streams") + 1]:  # the stop up to the streams' end
            step()
    with client.app.state.ladder.store.reader() as tx:
        row = tx.execute(select(PresenceRow).where(PresenceRow.session_id == s["id"],
                                                   PresenceRow.seat == "white")).scalar_one()
        assert (row.present, row.disconnections) == (True, 0)
