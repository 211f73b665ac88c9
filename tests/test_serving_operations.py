"""Operations (docs/service.md, "Operations"): liveness and readiness, Prometheus metrics, rate
limits shared through the database, the request id and the JSON access log. Every check is of
behaviour (counts, statuses, headers), never of speed."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from serving_helpers import FakeClock, auth, client_for, postgres_schema, settings_for

from serving.app import create_app
from serving.ladder.service import Ladder


def samples(client: TestClient, headers: dict[str, str] | None = None) -> dict[tuple, float]:
    """Every sample of a /metrics scrape: (name, sorted labels) -> value."""
    r = client.get("/metrics", headers=headers or {})
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    out = {}
    for family in text_string_to_metric_families(r.text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def requests_of(metrics: dict[tuple, float], route: str, status: str = "200",
                method: str = "GET") -> float:
    key = ("qizero_http_requests_total",
           (("method", method), ("route", route), ("status", status)))
    return metrics.get(key, 0.0)


# ---------------------------------------------------------------------------- liveness, readiness
@contextmanager
def held_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, Any]]:
    """An app started in the background whose slow part (the ladder's start) waits for the
    event it yields: the state of a service still loading, for as long as the test wants."""
    release = threading.Event()
    original = Ladder.start

    def slow_start(self: Ladder) -> None:
        release.wait(60)
        original(self)

    monkeypatch.setattr(Ladder, "start", slow_start)
    app = create_app(settings_for(tmp_path, background_start=True))
    try:
        with TestClient(app, raise_server_exceptions=False) as client:
            yield client, release
    finally:
        release.set()


def test_health_answers_while_the_start_is_not_done_and_ready_waits_for_it(tmp_path, monkeypatch):
    with held_start(tmp_path, monkeypatch) as (client, release):
        assert client.get("/v1/health").json()["status"] == "ok"
        r = client.get("/v1/ready")
        assert r.status_code == 503
        assert r.headers["retry-after"] == "1"
        assert r.json()["error"] == "unavailable"
        assert r.json()["detail"]["problems"] == ["starting"]
        release.set()
        client.app.state.lifecycle.started.wait(60)
        r = client.get("/v1/ready")
        assert (r.status_code, r.json()) == (200, {"status": "ready"})


def test_ready_is_503_while_levels_load(tmp_path):
    with client_for(tmp_path) as client:
        assert client.get("/v1/ready").status_code == 200
        client.app.state.ai.warm = False  # as while warm_up() loads the networks
        r = client.get("/v1/ready")
        assert r.status_code == 503
        assert r.json()["detail"]["problems"] == ["levels loaded"]


def test_ready_is_503_when_the_database_does_not_answer(tmp_path, monkeypatch):
    from serving.api.routes import health

    def broken(_manager: Any) -> None:
        raise ConnectionError("gone")

    with client_for(tmp_path) as client:
        monkeypatch.setattr(health, "_ping", broken)
        r = client.get("/v1/ready")
        assert r.status_code == 503
        assert r.json()["detail"]["problems"] == ["database unreachable: ConnectionError"]
        assert client.get("/v1/health").status_code == 200  # liveness does not ask it


def test_a_stop_makes_ready_503_and_waiting_searches_answer_503(tmp_path):
    with client_for(tmp_path) as client:
        lifecycle, ai = client.app.state.lifecycle, client.app.state.ai
        lifecycle.begin_stop()
        r = client.get("/v1/ready")
        assert r.status_code == 503 and r.json()["detail"]["problems"] == ["stopping"]
        r = client.post("/v1/games/jiugong/suggest", json={"moves": [], "level": "random"})
        assert r.status_code == 503, r.text
        assert ai.stopping
        assert client.app.state.events.wakeups.closed  # streams end
        assert client.app.state.sessions.leases._closed  # leases handed back


def test_a_suggestion_waiting_for_its_search_answers_503_when_the_service_stops(tmp_path):
    """The search blocks until the stop: the request answers 503 at once rather than waiting
    for it (the search itself is abandoned)."""
    with client_for(tmp_path) as client:
        ai = client.app.state.ai
        entered, release = threading.Event(), threading.Event()
        original = ai.analyse

        def blocking(*args: Any) -> Any:
            entered.set()
            release.wait(60)
            return original(*args)

        ai.analyse = blocking
        answer: list[Any] = []
        asker = threading.Thread(target=lambda: answer.append(client.post(
            "/v1/games/jiugong/suggest", json={"moves": [], "level": "random"})))
        asker.start()
        assert entered.wait(30)
        client.app.state.lifecycle.begin_stop()
        asker.join(30)
        release.set()
        assert not asker.is_alive()
        assert answer[0].status_code == 503, answer[0].text
        assert answer[0].json()["error"] == "unavailable"


# ---------------------------------------------------------------------------- metrics
def test_metrics_are_off_by_default(tmp_path):
    with client_for(tmp_path / "off") as client:
        r = client.get("/metrics")
        assert r.status_code == 404
        assert "QIZERO_METRICS=1" in r.json()["message"]  # the route says why, not "no route"
    with client_for(tmp_path / "on", metrics=True) as client:
        assert client.get("/metrics").status_code == 200


def test_metrics_count_every_request_by_route_template_and_status(tmp_path):
    with client_for(tmp_path, metrics=True) as client:
        before = samples(client)
        for _ in range(7):
            assert client.get("/v1/games/jiugong").status_code == 200
        for _ in range(3):
            assert client.get("/v1/games/nope").status_code == 404
        assert client.get("/no/such/path").status_code == 404
        after = samples(client)
    route = "/v1/games/{game}"
    assert requests_of(after, route) - requests_of(before, route) == 7
    assert requests_of(after, route, "404") - requests_of(before, route, "404") == 3
    assert requests_of(after, "<unmatched>", "404") - requests_of(before, "<unmatched>",
                                                                  "404") == 1
    # the scrape before this one is counted too, under its own route
    assert requests_of(after, "/metrics") == requests_of(before, "/metrics") + 1
    latency = ("qizero_http_request_duration_seconds_count",
               (("method", "GET"), ("route", route)))
    assert after[latency] - before.get(latency, 0.0) == 10


def test_metrics_show_searches_sessions_and_subscribers(tmp_path):
    with client_for(tmp_path, metrics=True) as client:
        for seed in range(2):
            r = client.post("/v1/games/jiugong/suggest",
                            json={"moves": [], "level": "random", "seed": seed})
            assert r.status_code == 200, r.text
        client.post("/v1/sessions", json={"game": "jiugong", "turn_seconds": None})
        sub = _subscribe(client.app.state.events.wakeups, "session:x")
        try:
            m = samples(client)
        finally:
            client.app.state.events.wakeups.unsubscribe(sub)
        after = samples(client)
    search = ("qizero_search_seconds_count", (("game", "jiugong"), ("level", "random")))
    assert m[search] == 2
    assert m[("qizero_sessions_in_play", ())] == 1
    assert m[("qizero_event_subscribers", ())] == 1
    assert after[("qizero_event_subscribers", ())] == 0
    assert m[("qizero_ladder_queue_length", ())] == 0
    assert m[("qizero_ready", ())] == 1
    assert ("qizero_lease_takeovers_total", ()) in m


def _subscribe(wakeups: Any, channel: str) -> Any:
    """A subscription made inside an event loop, as a stream makes it."""
    import asyncio

    async def make() -> Any:
        return wakeups.subscribe(channel)

    return asyncio.run(make())


def test_metrics_with_a_token_need_it(tmp_path):
    with client_for(tmp_path, metrics=True, metrics_token="s3cret") as client:
        assert client.get("/metrics").status_code == 401
        assert client.get("/metrics", headers=auth("wrong")).status_code == 401
        assert samples(client, auth("s3cret"))[("qizero_ready", ())] == 1


# ---------------------------------------------------------------------------- rate limits
@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """Settings for a database two apps can share: a SQLite file, or a PostgreSQL schema."""
    if request.param == "sqlite":
        yield {"database_path": tmp_path / "shared.sqlite3"}
        return
    url = request.getfixturevalue("postgres_url")
    with postgres_schema(url) as schema_url:
        yield {"database_url": schema_url}


@contextmanager
def apps(tmp_path: Path, n: int, clock: Any, **settings: Any) -> Iterator[list[TestClient]]:
    """``n`` apps (replicas) on the same database and the same clock."""
    with ExitStack() as stack:
        clients = []
        for i in range(n):
            s = settings_for(tmp_path / f"app{i}", **settings)
            app = create_app(s, clock=clock)
            clients.append(stack.enter_context(TestClient(app, raise_server_exceptions=False)))
        yield clients


def suggest(client: TestClient, token: str | None = None) -> Any:
    return client.post("/v1/games/jiugong/suggest", json={"moves": [], "level": "random"},
                       headers=auth(token) if token else {})


def test_rate_limits_are_off_by_default(tmp_path):
    with client_for(tmp_path) as client:
        assert all(suggest(client).status_code == 200 for _ in range(30))


def test_the_limit_per_client_is_shared_by_two_replicas(tmp_path, database):
    clock = FakeClock(999_980.0)  # 20 s into a 60 s window (999_960 = 16_666 x 60)
    with apps(tmp_path, 2, clock, rate_limit_suggest_per_client=3, **database) as (a, b):
        assert [suggest(c).status_code for c in (a, b, a)] == [200, 200, 200]
        r = suggest(b)
        assert r.status_code == 429, r.text
        assert r.headers["retry-after"] == "40"
        body = r.json()
        assert body["error"] == "rate_limited"
        assert body["detail"] == {"retry_after": 40, "limit": 3, "per": "client"}
        assert suggest(a).status_code == 429
        assert a.post("/v1/games/jiugong/positions", json={"moves": []}).status_code == 200
        clock.advance(39.5)
        assert suggest(a).status_code == 429
        clock.advance(0.5)  # the next window
        assert suggest(a).status_code == 200


def test_the_limit_per_token_counts_each_token_apart(tmp_path, database):
    clock = FakeClock(1_000_000.0)
    with apps(tmp_path, 2, clock, rate_limit_analysis_per_token=2, **database) as (a, b):
        def analyse(c: TestClient, token: str) -> int:
            return c.post("/v1/games/jiugong/positions", json={"moves": []},
                          headers=auth(token)).status_code

        assert [analyse(a, "one"), analyse(b, "one"), analyse(a, "one")] == [200, 200, 429]
        assert [analyse(b, "two"), analyse(a, "two")] == [200, 200]
        # without a token only the per-client limit counts, and it is off here
        assert all(a.post("/v1/games/jiugong/positions", json={"moves": []}).status_code == 200
                   for _ in range(5))


def test_registration_and_queueing_are_limited(tmp_path):
    clock = FakeClock(1_000_000.0)
    with client_for(tmp_path, clock=clock, rate_limit_register_per_client=2,
                    rate_limit_queue_per_token=1, ladder_ai_players=False) as client:
        tokens = []
        for name in ("ann", "bob"):
            r = client.post("/v1/players", json={"name": name})
            assert r.status_code == 201, r.text
            tokens.append(r.json()["token"])
        r = client.post("/v1/players", json={"name": "cid"})
        assert r.status_code == 429 and int(r.headers["retry-after"]) > 0
        queue: dict[str, Any] = {}
        first = client.post("/v1/ladder/queue", json=queue, headers=auth(tokens[0]))
        assert first.status_code == 201, first.text
        client.delete("/v1/ladder/queue", headers=auth(tokens[0]))
        again = client.post("/v1/ladder/queue", json=queue, headers=auth(tokens[0]))
        assert again.status_code == 429, again.text
        other = client.post("/v1/ladder/queue", json=queue, headers=auth(tokens[1]))
        assert other.status_code == 201, other.text


# ---------------------------------------------------------------------------- request id, logs
@contextmanager
def access_lines() -> Iterator[list[dict[str, Any]]]:
    """The JSON access lines logged meanwhile."""
    lines: list[dict[str, Any]] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(json.loads(record.getMessage()))

    logger = logging.getLogger("qizero.access")
    handler = Keep()
    logger.addHandler(handler)
    try:
        yield lines
    finally:
        logger.removeHandler(handler)


def test_the_request_id_is_echoed_or_made(tmp_path):
    with client_for(tmp_path) as client:
        r = client.get("/v1/games", headers={"X-Request-ID": "abc-123"})
        assert r.headers["x-request-id"] == "abc-123"
        made = client.get("/v1/games").headers["x-request-id"]
        assert len(made) == 32 and int(made, 16) >= 0
        assert client.get("/v1/games").headers["x-request-id"] != made
        bad = client.get("/v1/games", headers={"X-Request-ID": "x" * 200}).headers
        assert len(bad["x-request-id"]) == 32  # too long: replaced


def test_json_logs_write_one_line_per_request(tmp_path):
    with client_for(tmp_path, json_logs=True) as client, access_lines() as lines:
        client.get("/v1/games/jiugong", headers={"X-Request-ID": "req-1"})
        client.post("/v1/sessions/nope/moves", json={"move": "a1-a2", "version": 1})
    assert len(lines) == 2
    first, second = lines
    assert first["request_id"] == "req-1"
    assert (first["method"], first["route"], first["path"], first["status"]) == (
        "GET", "/v1/games/{game}", "/v1/games/jiugong", 200)
    assert first["duration_ms"] >= 0
    assert (second["method"], second["route"], second["status"]) == (
        "POST", "/v1/sessions/{session_id}/moves", 404)
    assert len(second["request_id"]) == 32


def test_without_json_logs_nothing_is_logged_there(tmp_path):
    with client_for(tmp_path) as client, access_lines() as lines:
        client.get("/v1/games")
    assert lines == []


def test_a_stop_during_the_start_still_runs_every_step():
    """A signal before the lifespan added its steps runs none; the lifespan's close, which
    adds and runs the rest, is not skipped because a stop already began."""
    from serving.lifecycle import Lifecycle

    ran: list[str] = []
    life = Lifecycle()
    life.on_stop("first", lambda: ran.append("first"))
    life.begin_stop()
    life.on_stop("second", lambda: ran.append("second"))
    life.on_stop("broken", lambda: 1 / 0)
    life.on_stop("third", lambda: ran.append("third"))
    life.begin_stop()
    life.begin_stop()
    assert ran == ["first", "second", "third"]
    assert life.problems() == ["stopping"]


def test_metrics_show_the_ladder_queue_and_its_waits(tmp_path):
    clock = FakeClock()
    with client_for(tmp_path, clock=clock, metrics=True, ladder_ai_players=False) as client:
        tokens = [client.post("/v1/players", json={"name": name}).json()["token"]
                  for name in ("ann", "bob")]
        assert client.post("/v1/ladder/queue", json={}, headers=auth(tokens[0])).status_code == 201
        clock.advance(5)
        waiting = samples(client)
        r = client.post("/v1/ladder/queue", json={}, headers=auth(tokens[1]))
        assert r.status_code == 201 and r.json()["status"] == "playing", r.text
        paired = samples(client)
    assert waiting[("qizero_ladder_queue_length", ())] == 1
    assert waiting[("qizero_ladder_queue_longest_wait_seconds", ())] == 5
    assert waiting[("qizero_ladder_queue_wait_seconds_count", ())] == 0
    assert paired[("qizero_ladder_queue_length", ())] == 0
    assert paired[("qizero_ladder_queue_wait_seconds_count", ())] == 2  # ann and bob
    assert paired[("qizero_ladder_queue_wait_seconds_sum", ())] == 5  # ann 5 s, bob 0 s
    assert paired[("qizero_sessions_in_play", ())] == 1


def test_concurrent_hits_from_two_replicas_allow_exactly_the_limit(tmp_path, database):
    """The count is one atomic upsert: 40 requests at once through two limiters (two
    replicas' engines) on one key, limit 15, let exactly 15 through. A barrier starts them
    together, so the writes really do race."""
    from serving import schema
    from serving.db import SessionStore
    from serving.rate_limits import RateLimiter

    url = database.get("database_url") or f"sqlite:///{database['database_path']}"
    stores = [SessionStore(url), SessionStore(url)]
    try:
        schema.upgrade(stores[0].engine)
        clock = FakeClock(999_980.0)
        limiters = [RateLimiter(s.engine, 60.0, clock) for s in stores]
        barrier = threading.Barrier(8)
        results: list[int | None] = []
        lock = threading.Lock()

        def client(k: int) -> None:
            barrier.wait()
            for _ in range(5):
                wait = limiters[k % 2].hit("suggest:client:1.2.3.4", 15)
                with lock:
                    results.append(wait)

        threads = [threading.Thread(target=client, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert len(results) == 40
        assert results.count(None) == 15
        assert set(results) - {None} == {40}  # Retry-After: the 40 s left of the window
        assert limiters[0].hit("queue:token:abc", 5) is None
        clock.advance(40)
        assert limiters[0].hit("suggest:client:1.2.3.4", 15) is None  # a new window
        assert limiters[1].sweep() == 1  # the queue row of the past window goes
        assert limiters[1].hit("suggest:client:1.2.3.4", 1) == 60  # the row stayed: 2 > 1
    finally:
        for s in stores:
            s.close()
