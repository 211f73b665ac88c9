"""Helpers for the ladder's API tests: the app on a fake clock, players, the queue, playing a
ladder session, reading a player's event stream."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from typing import Any

from serving_helpers import FakeClock, auth, client_for

ADMIN = "admin-token-for-tests"
NINE = {"board": "9x9"}
FAST_EVENTS = {"event_keepalive_seconds": 0.2, "event_poll_seconds": 0.05}


def ladder_app(tmp_path, clock: FakeClock, **settings: Any) -> Iterator[Any]:
    """For a ``client`` fixture: the service on a fake clock, the matcher every 50 ms, AI
    levels after 30 s (of the fake clock), no timer poller (time-outs land when a session is
    read); ``settings`` override any of these."""
    values = {"ladder_admin_token": ADMIN, "ladder_match_seconds": 0.05,
              "ladder_ai_wait_seconds": 30, "timer_poll_seconds": 3600, **FAST_EVENTS,
              **settings}
    with client_for(tmp_path, clock=clock, **values) as c:
        yield c


def register(client, name: str) -> dict[str, Any]:
    """A new player: ``{"id", "token", ...profile}``."""
    r = client.post("/v1/players", json={"name": name})
    assert r.status_code == 201, r.text
    body = r.json()
    return {**body["player"], "token": body["token"]}


def profile(client, player: dict[str, Any]) -> dict[str, Any]:
    r = client.get(f"/v1/players/{player['id']}")
    assert r.status_code == 200, r.text
    return r.json()


def grant(client, player: dict[str, Any], yuan: int) -> dict[str, Any]:
    r = client.post(f"/v1/players/{player['id']}/grant", json={"yuan": yuan},
                    headers=auth(ADMIN))
    assert r.status_code == 200, r.text
    return r.json()


def queue(client, player: dict[str, Any], **options: Any):
    return client.post("/v1/ladder/queue", json=options, headers=auth(player["token"]))


def queue_state(client, player: dict[str, Any]) -> dict[str, Any]:
    r = client.get("/v1/ladder/queue", headers=auth(player["token"]))
    assert r.status_code == 200, r.text
    return r.json()


def pair(client, a: dict[str, Any], b: dict[str, Any], **options: Any) -> dict[str, Any]:
    """Queue ``a`` then ``b`` with the same options; the session they were paired into, with
    ``tokens`` by colour."""
    assert queue(client, a, **options).json()["status"] == "waiting"
    r = queue(client, b, **options)
    assert r.status_code == 201, r.text
    game = r.json()["game"]
    assert r.json()["status"] == "playing" and game is not None
    return with_tokens(client.get(f"/v1/sessions/{game['session']}").json(), a, b)


def with_tokens(session: dict[str, Any], *players: dict[str, Any]) -> dict[str, Any]:
    """``session`` with ``tokens``: each seat's player's token, by colour."""
    by_id = {p["id"]: p["token"] for p in players}
    return {**session, "tokens": {c: by_id[session["seats"][c]["player"]]
                                  for c in ("black", "white")}}


def play_moves(client, session: dict[str, Any], n: int, seed: int = 0) -> dict[str, Any]:
    """Play ``n`` random legal moves (no passes) with the players' own tokens."""
    rng = random.Random(seed)
    s = session
    for _ in range(n):
        seat = s["position"]["to_play"]
        mv = rng.choice([m for m in s["position"]["legal_moves"] if m != "pass"])
        r = client.post(f"/v1/sessions/{s['id']}/moves", json={"move": mv, "version": s["version"]},
                        headers=auth(session["tokens"][seat]))
        assert r.status_code == 200, r.text
        s = {**r.json(), "tokens": session["tokens"]}
    return s


def act(client, session: dict[str, Any], what: str, colour: str, **body: Any):
    """POST a session action (resign, draw/offer...) as ``colour``'s player."""
    body.setdefault("version", session["version"])
    return client.post(f"/v1/sessions/{session['id']}/{what}", json=body,
                       headers=auth(session["tokens"][colour]))


def stream(client, player: dict[str, Any], count: int, after: int | None = 0,
           timeout: float = 20.0) -> list[dict[str, Any]]:
    """The first ``count`` messages of a player's event stream (NDJSON), from the event after
    ``after`` (None: from a snapshot)."""
    url = f"/v1/players/{player['id']}/events"
    if after is not None:
        url += f"?last_event_id={after}"
    got: list[dict[str, Any]] = []
    end = time.monotonic() + timeout
    with client.stream("GET", url, headers={"Accept": "application/x-ndjson"}) as r:
        assert r.status_code == 200, r.read()
        for line in r.iter_lines():
            assert time.monotonic() < end, f"stream too slow: {got}"
            if line.strip():
                got.append(json.loads(line))
                if len(got) == count:
                    break
    return got
