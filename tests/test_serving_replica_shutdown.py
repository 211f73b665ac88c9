"""SIGTERM of one of two ``qizero serve`` replicas on one PostgreSQL, under load: the stopping
replica hands its AI seats' leases back as it stops, so the other takes every session over at
its next poll (the leases here last 60 s: only the release, not the expiry, lets it take them
so soon), every AI move is made exactly once, and no acknowledged move is lost. Skipped without
QIZERO_TEST_POSTGRES_URL. Times are printed, not asserted."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from serving_helpers import Server, auth, postgres_schema, wait_for, write_levels
from sqlalchemy import create_engine, select

from serving.leases import LeaseRow

SLOW = "mcts:6000"  # a search of seconds: the stop comes while the AI seats think
SESSIONS = 6


@pytest.fixture()
def replicas(tmp_path: Path, postgres_url: str) -> Iterator[tuple[list[Server], Any]]:
    write_levels(tmp_path / "checkpoints", "jiugong", [
        {"id": "random", "label": "random", "player": "random"},
        {"id": "slow", "label": "slow search", "player": SLOW},
    ])
    env = {"QIZERO_SEARCH_PROCESSES": "0", "QIZERO_AI_WORKERS": "4",
           "QIZERO_LEASE_SECONDS": "60", "QIZERO_METRICS": "1"}
    with postgres_schema(postgres_url) as url:
        with ThreadPoolExecutor(2) as pool:
            futures = [pool.submit(Server, tmp_path, database_url=url, env=env)
                       for _ in range(2)]
        servers = [f.result() for f in futures]
        engine = create_engine(url)
        try:
            yield servers, engine
        finally:
            for s in servers:
                s.stop()
            engine.dispose()


def holders(engine: Any, sids: list[str]) -> dict[str, str | None]:
    with engine.connect() as conn:
        rows = conn.execute(select(LeaseRow.session_id, LeaseRow.holder)
                            .where(LeaseRow.session_id.in_(sids))).all()
    found = dict(rows)
    return {sid: found.get(sid) for sid in sids}


def takeovers(server: Server) -> float:
    from prometheus_client.parser import text_string_to_metric_families

    for family in text_string_to_metric_families(server.client.get("/metrics").text):
        if family.name == "qizero_lease_takeovers":
            return family.samples[0].value
    raise AssertionError("no lease takeover counter")


@pytest.mark.slow  # over 5 s: `make test-slow` runs it; the default suite stays short
def test_sigterm_under_load_hands_the_ai_seats_to_the_other_replica_at_once(replicas):
    servers, engine = replicas
    ids = [s.client.get("/v1/health").json()["replica"]["id"] for s in servers]
    # a people's game with acknowledged moves, made on both replicas
    people = servers[0].client.post(
        "/v1/sessions", json={"game": "jiugong", "turn_seconds": None}).json()
    sid_p, owner = people["session"]["id"], people["owner_token"]
    acknowledged, version = [], 1
    for i, mv in enumerate(("a1-a2", "b3-b2", "a2-a1", "b2-b3")):
        r = servers[i % 2].client.post(f"/v1/sessions/{sid_p}/moves", headers=auth(owner),
                                       json={"move": mv, "version": version})
        assert r.status_code == 200, r.text
        acknowledged.append(mv)
        version = r.json()["version"]
    # AI seats thinking on both replicas: south moves, north (slow AI) answers
    sids = []
    for i in range(SESSIONS):
        c = servers[i % 2].client
        body = c.post("/v1/sessions", json={
            "game": "jiugong", "turn_seconds": None,
            "seats": {"north": {"type": "ai", "level": "slow"}}}).json()
        sid = body["session"]["id"]
        r = c.post(f"/v1/sessions/{sid}/moves", json={"move": "a1-a2", "version": 1},
                   headers=auth(body["seat_tokens"]["south"]))
        assert r.status_code == 200, r.text
        sids.append(sid)
    wait_for(lambda: all(holders(engine, sids).values()), timeout=30)
    held = holders(engine, sids)
    victim = max((0, 1), key=lambda i: sum(h == ids[i] for h in held.values()))
    survivor = 1 - victim
    theirs = [sid for sid, h in held.items() if h == ids[victim]]
    assert theirs, held

    taken_before = takeovers(servers[survivor])
    sent = time.monotonic()
    servers[victim].proc.send_signal(signal.SIGTERM)
    servers[victim].proc.wait(timeout=30)
    exited = time.monotonic() - sent
    c = servers[survivor].client
    seen_taken: set[str] = set()

    def taken_over_all() -> bool:
        """Each of the victim's sessions has its AI move, or the survivor's lease on it (a
        60 s lease: released by the victim, not expired)."""
        now = holders(engine, theirs)
        seen_taken.update(sid for sid in theirs if now[sid] == ids[survivor])
        return all(now[sid] == ids[survivor]
                   or len(c.get(f"/v1/sessions/{sid}").json()["moves"]) >= 2 for sid in theirs)

    wait_for(taken_over_all, timeout=30, step=0.05)
    taken_over = time.monotonic() - sent
    for sid in sids:
        s = wait_for(lambda sid=sid: (x := c.get(f"/v1/sessions/{sid}").json())["moves"]
                     and len(x["moves"]) >= 2 and x, timeout=60)
        assert [(e["t"], e["by"]) for e in s["events"]] == [("move", "human"), ("move", "ai")]
    assert c.get(f"/v1/sessions/{sid_p}").json()["moves"] == acknowledged
    # the survivor's poller took each of them up, and counted it
    assert takeovers(servers[survivor]) - taken_before >= len(seen_taken)
    print(f"SIGTERM under load ({len(theirs)} AI seats thinking on the stopped replica): "
          f"exit {exited:.2f} s, all taken over {taken_over:.2f} s after the signal")
