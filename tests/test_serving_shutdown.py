"""Stopping ``qizero serve`` (serving/server.py, serving/lifecycle.py): SIGTERM while busy (a
search in flight for a suggestion and for an AI seat, an event stream open) ends the process,
answers the waiting request, closes the stream, hands the AI seat's lease back and leaves no
child process; after a SIGKILL the search processes end by themselves, on Linux through the
kernel (PR_SET_PDEATHSIG) and everywhere through the worker's watch of its parent.

No wall-clock bound is asserted (the 30 s waits only keep a broken stop from hanging the run);
the measured times are printed (``pytest -s``) and reported in docs/service.md."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from serving_helpers import ROOT, Server, auth, parse_sse, wait_for, write_levels
from sqlalchemy import create_engine, select

from serving.leases import LeaseRow

# a search of minutes: in flight for as long as the test needs
LEVELS = [
    {"id": "random", "label": "random", "player": "random"},
    {"id": "endless", "label": "endless search", "player": "mcts:100000"},
]


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie has ended: only its exit status is left to collect)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.fixture()
def server(tmp_path: Path) -> Any:
    write_levels(tmp_path / "checkpoints", "jiugong", LEVELS)
    srv = Server(tmp_path, database=tmp_path / "db.sqlite3",
                 env={"QIZERO_SEARCH_PROCESSES": "1", "QIZERO_LEASE_SECONDS": "60",
                      "QIZERO_METRICS": "1"})
    try:
        yield srv
    finally:
        srv.stop()
        for pid in srv.children_seen:
            if alive(pid):  # never leave one behind, whatever the test found
                os.kill(pid, signal.SIGKILL)


def in_flight(srv: Server) -> float:
    from prometheus_client.parser import text_string_to_metric_families

    text = srv.client.get("/metrics").text
    for family in text_string_to_metric_families(text):
        if family.name == "qizero_http_requests_in_flight":
            return family.samples[0].value
    raise AssertionError("no in-flight gauge")


def children(srv: Server) -> list[int]:
    pids = srv.children()
    srv.children_seen = sorted({*getattr(srv, "children_seen", []), *pids})
    return pids


def test_sigterm_while_busy_ends_the_server_and_hands_everything_back(server, tmp_path):
    url = server.url
    kids = children(server)
    assert kids, "the server runs its searches in a child process"
    # an AI seat thinking: its session's lease is held by this server
    body = server.client.post("/v1/sessions", json={
        "game": "jiugong", "turn_seconds": None,
        "seats": {"north": {"type": "ai", "level": "endless"}}}).json()
    assert "session" in body, body
    sid = body["session"]["id"]
    r = server.client.post(f"/v1/sessions/{sid}/moves", json={"move": "a1-a2", "version": 1},
                           headers=auth(body["seat_tokens"]["south"]))
    assert r.status_code == 200, r.text
    wait_for(lambda: server.client.get(f"/v1/sessions/{sid}").json()["ai_thinking"])
    engine = create_engine(f"sqlite:///{tmp_path / 'db.sqlite3'}")

    def holder() -> str | None:
        with engine.connect() as conn:
            return conn.execute(
                select(LeaseRow.holder).where(LeaseRow.session_id == sid)).scalar()

    assert holder() is not None
    # a suggestion waiting for its search
    answers: list[Any] = []

    def ask() -> None:
        try:
            answers.append(httpx.post(f"{url}/v1/games/jiugong/suggest",
                                      json={"moves": [], "level": "endless"}, timeout=60))
        except httpx.TransportError as exc:
            answers.append(exc)

    asker = threading.Thread(target=ask)
    asker.start()
    # an open event stream: its snapshot has come
    messages: list[dict[str, Any]] = []
    opened = threading.Event()

    def follow() -> None:
        try:
            with httpx.stream("GET", f"{url}/v1/sessions/{sid}/events", timeout=60) as resp:
                for message in parse_sse(resp.iter_lines()):
                    messages.append(message)
                    opened.set()
        except httpx.TransportError:
            pass
        messages.append({"kind": "<ended>"})

    follower = threading.Thread(target=follow)
    follower.start()
    assert opened.wait(30)
    # the suggestion is in flight too: this scrape, the stream and the suggestion
    wait_for(lambda: in_flight(server) >= 3, timeout=30)
    assert not answers

    sent = time.monotonic()
    server.proc.send_signal(signal.SIGTERM)
    server.proc.wait(timeout=30)
    took = time.monotonic() - sent
    print(f"exit {took:.2f} s after SIGTERM (busy: suggestion, AI seat, stream)")

    asker.join(30)
    follower.join(30)
    assert not asker.is_alive() and not follower.is_alive()
    answer = answers[0]
    # answered 503 at once, or cut off if the stop came between its arrival and its search
    assert isinstance(answer, httpx.TransportError) or answer.status_code == 503, answer
    assert messages[0]["kind"] == "snapshot" and messages[-1]["kind"] == "<ended>"
    assert holder() is None  # the AI seat's lease went back: a replica takes it at once
    wait_for(lambda: not any(alive(pid) for pid in kids), timeout=10)
    engine.dispose()


def test_after_sigkill_the_search_processes_end_too(server):
    kids = children(server)
    assert kids
    asker = threading.Thread(target=lambda: _swallow(
        httpx.post, f"{server.url}/v1/games/jiugong/suggest",
        json={"moves": [], "level": "endless"}, timeout=60))
    asker.start()
    wait_for(lambda: in_flight(server) >= 2, timeout=30)  # this scrape and the suggestion
    killed = time.monotonic()
    server.kill()  # no shutdown code runs in the server
    wait_for(lambda: not any(alive(pid) for pid in kids), timeout=15)
    print(f"search processes gone {time.monotonic() - killed:.2f} s after SIGKILL")
    asker.join(30)


def _swallow(fn: Any, *args: Any, **kwargs: Any) -> None:
    try:
        fn(*args, **kwargs)
    except httpx.TransportError:
        pass


GRANDCHILD = textwrap.dedent("""
    import os, sys, time
    from agents.child_process import die_with_parent
    if sys.argv[1] == "fallback":
        sys.platform = "other"  # no prctl: the parent watch alone
    die_with_parent(os.getppid())
    print(os.getpid(), flush=True)
    time.sleep(120)
""")

MIDDLE = textwrap.dedent("""
    import subprocess, sys, time
    child = subprocess.Popen([sys.executable, "-c", sys.argv[1], sys.argv[2]],
                             stdout=sys.stdout)
    time.sleep(120)
""")


@pytest.mark.parametrize("how", ["prctl", "fallback"])
def test_a_worker_ends_when_its_parent_dies(how):
    """``die_with_parent`` in a grandchild of the test: SIGKILL its parent, and it ends."""
    middle = subprocess.Popen([sys.executable, "-c", MIDDLE, GRANDCHILD, how], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True)
    try:
        pid = int(middle.stdout.readline())
        assert alive(pid)
        middle.kill()
        middle.wait(timeout=30)
        wait_for(lambda: not alive(pid), timeout=15)
    finally:
        if middle.poll() is None:
            middle.kill()
            middle.wait()


def test_the_exit_signal_starts_the_stop_and_the_watchdog(monkeypatch):
    """In-process: uvicorn's exit handler also runs the app's stop steps at once, and the
    watchdog ends the process (os._exit, replaced here) if the stop hangs."""
    import uvicorn

    from serving import server as server_module
    from serving.lifecycle import Lifecycle

    exits: list[int] = []
    monkeypatch.setattr(server_module.os, "_exit", exits.append)
    life = Lifecycle()
    ran = threading.Event()
    life.on_stop("step", ran.set)
    srv = server_module.BoundedServer(uvicorn.Config(app=None), life, shutdown_seconds=0.3)
    srv.handle_exit(signal.SIGTERM, None)
    assert srv.should_exit
    assert ran.wait(30)
    wait_for(lambda: exits, timeout=30)
    assert exits == [128 + signal.SIGTERM]
    srv.handle_exit(signal.SIGTERM, None)  # a second signal arms no second watchdog
    time.sleep(0.3)
    assert exits == [128 + signal.SIGTERM]


@pytest.mark.slow  # over 5 s (a server that fails to bind, then one that starts)
def test_a_server_whose_port_was_taken_starts_on_another(tmp_path, monkeypatch) -> None:
    """The test servers' free port can be taken before the server binds it (tests run in
    parallel; it happened once in a full run): the helper then starts it on another port."""
    import socket

    import serving_helpers

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))  # bound, not listening: the server cannot bind it
    ports = iter([taken.getsockname()[1]])
    real = serving_helpers.free_port
    monkeypatch.setattr(serving_helpers, "free_port", lambda: next(ports, None) or real())
    write_levels(tmp_path / "checkpoints", "jiugong", LEVELS)
    server = Server(tmp_path, tmp_path / "db.sqlite")
    try:
        assert server.port != taken.getsockname()[1]
        assert server.client.get("/v1/health").status_code == 200
    finally:
        server.stop()
        taken.close()
