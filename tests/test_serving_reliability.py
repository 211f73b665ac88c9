"""Reliability: a server killed hard (SIGKILL) mid-game loses no accepted move; conflicting
writes (one wins); no 5xx anywhere in the OpenAPI surface (schemathesis); persistence on a real
PostgreSQL server when one is reachable."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from serving_helpers import (
    FakeClock,
    Server,
    auth,
    client_for,
    overlapping_commits,
    settings_for,
    wait_for,
)

import envs


# ---------------------------------------------------------------------------- SIGKILL
def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (an exited one not yet reaped is a zombie, ``Z``)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow  # over 5 s: `make test-slow` runs it; the default suite stays short
def test_sigkill_mid_game_loses_no_accepted_move(tmp_path):
    db = tmp_path / "sessions.sqlite3"
    server = Server(tmp_path, db)
    try:
        c = server.client
        pvp = c.post("/v1/sessions", json={"game": "jiugong", "turn_seconds": None}).json()
        mixed = c.post("/v1/sessions", json={
            "game": "jiugong", "turn_seconds": None,
            "seats": {"north": {"type": "ai", "level": "random"}}}).json()
        ai_game = "fangqi" if "fangqi" in envs.game_ids() else "jiugong"
        both_ai = c.post("/v1/sessions", json={
            "game": ai_game, "turn_seconds": None,
            "seats": {n: {"type": "ai", "level": "random"}
                      for n in envs.make_game(ai_game).spec.player_names}}).json()
        accepted: dict[str, list[str]] = {}
        for body in (pvp, mixed):
            sid = body["session"]["id"]
            s = body["session"]
            for _ in range(6):
                def human_to_play(sid=sid):
                    x = c.get(f"/v1/sessions/{sid}").json()
                    seat = x["position"]["to_play"]
                    return x if x["status"] != "playing" or x["seats"][seat]["type"] == "human" \
                        else None

                s = wait_for(human_to_play)
                if s["status"] != "playing":
                    break
                legal = s["position"]["legal_moves"]
                r = c.post(f"/v1/sessions/{sid}/moves", headers=auth(body["owner_token"]),
                           json={"move": legal[len(legal) // 2], "version": s["version"]})
                assert r.status_code == 200, r.text
                s = r.json()
            accepted[sid] = s["moves"]  # everything acknowledged so far
        sid_ai = both_ai["session"]["id"]
        seen = wait_for(lambda: len(m := c.get(f"/v1/sessions/{sid_ai}").json()["moves"]) >= 6
                        and m)
        workers = server.children()
        assert workers, "the searches run in child processes"
    finally:
        server.kill()  # SIGKILL: no shutdown hooks, possibly in the middle of AI moves
    # The search processes see their pipe close and stop: none is left behind.
    wait_for(lambda: not any(_running(pid) for pid in workers), timeout=30)
    server = Server(tmp_path, db)
    try:
        c = server.client
        for sid, moves in accepted.items():
            after = c.get(f"/v1/sessions/{sid}").json()
            assert after["moves"][: len(moves)] == moves
        pvp_after = c.get(f"/v1/sessions/{pvp['session']['id']}").json()
        assert pvp_after["moves"] == accepted[pvp["session"]["id"]]  # people: exactly
        after_ai = c.get(f"/v1/sessions/{sid_ai}").json()
        assert after_ai["moves"][: len(seen)] == seen
        # the AI seats resume by themselves after the restart
        wait_for(lambda: (x := c.get(f"/v1/sessions/{sid_ai}").json())["status"] == "over"
                 or len(x["moves"]) > len(after_ai["moves"]), timeout=60)
        # and a replay of the stored moves gives the stored position
        pos = c.post(f"/v1/games/{ai_game}/positions",
                     json={"moves": after_ai["moves"]})
        assert pos.status_code == 200
    finally:
        server.stop()


# ---------------------------------------------------------------------------- PostgreSQL
# (the postgres_url fixture: conftest.py)
def test_postgres_persistence_restart_and_conflicts(tmp_path, postgres_url):
    clock = FakeClock()
    settings = settings_for(tmp_path, database_url=postgres_url, timer_poll_seconds=3600)
    with client_for(tmp_path, clock=clock, settings=settings) as c:
        assert c.get("/v1/health").json()["database"] == "postgresql"
        body = c.post("/v1/sessions", json={"game": "jiugong"}).json()
        sid, owner = body["session"]["id"], body["owner_token"]
        version = 1
        for mv in ("a1-a2", "b3-b2"):
            r = c.post(f"/v1/sessions/{sid}/moves", json={"move": mv, "version": version},
                       headers=auth(owner))
            assert r.status_code == 200
            version = r.json()["version"]
        before = r.json()
        # two conflicting writes, both past the version check before either commits: the
        # compare-and-set lets exactly one win
        results = []
        legal = ["a2-a1", "b1-a1"]  # two different legal moves for south, same version

        def write(mv):
            results.append(c.post(f"/v1/sessions/{sid}/moves", headers=auth(owner),
                                  json={"move": mv, "version": before["version"]}).status_code)

        with overlapping_commits(c, 2):
            threads = [threading.Thread(target=write, args=(m,)) for m in legal]
            [t.start() for t in threads]
            [t.join() for t in threads]
        assert sorted(results) == [200, 409]
        before = c.get(f"/v1/sessions/{sid}").json()
        assert len(before["moves"]) == 3 and before["moves"][2] in legal
    clock.advance(61)  # north's turn runs out while the server is down
    with client_for(tmp_path, clock=clock, settings=settings) as c:
        after = c.get(f"/v1/sessions/{sid}").json()
        assert after["moves"][: len(before["moves"])] == before["moves"]
        assert after["events"][len(before["events"])] == {
            "t": "timeout", "seat": "north", "at": before["timer"]["deadline"]}


# ---------------------------------------------------------------------------- schemathesis
def _schemathesis_run(tmp_path, max_examples: int) -> None:
    import hypothesis
    import schemathesis

    server = Server(tmp_path, tmp_path / "schemathesis.sqlite3")
    failures: list[str] = []
    try:
        schema = schemathesis.openapi.from_url(f"{server.url}/openapi.json")

        def make_check(operation):
            @hypothesis.settings(
                max_examples=max_examples,
                deadline=None,
                derandomize=True,
                database=None,
                suppress_health_check=list(hypothesis.HealthCheck),
                phases=[hypothesis.Phase.explicit, hypothesis.Phase.generate],
            )
            @hypothesis.given(case=operation.as_strategy())
            def check(case):
                response = case.call()
                if response.status_code >= 500:
                    failures.append(f"{operation.label}: {response.status_code} "
                                    f"{response.text[:200]} for {case.body!r}")

            return check

        for op in schema.get_all_operations():
            make_check(op.ok())()
    finally:
        server.stop()
    assert not failures, failures[:5]


@pytest.mark.slow  # over 5 s: `make test-slow` runs it; the default suite stays short
def test_schemathesis_finds_no_server_errors(tmp_path):
    _schemathesis_run(tmp_path, max_examples=3)


@pytest.mark.slow
def test_schemathesis_long_run(tmp_path):
    _schemathesis_run(tmp_path, max_examples=300)
