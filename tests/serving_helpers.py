"""Shared helpers for the service tests (test_serving_*.py): app factory, fake clock, levels,
``qizero serve`` subprocesses, and PostgreSQL schemas of their own."""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from fastapi.testclient import TestClient

from envs import make_game
from serving.app import create_app
from serving.settings import Settings


class FakeClock:
    """A clock that moves only when told (turn timers)."""

    def __init__(self, t: float = 1_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


def settings_for(tmp_path: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "database_path": tmp_path / "sessions.sqlite3",
        "checkpoints_root": tmp_path / "checkpoints",
        "timer_poll_seconds": 0.05,
        "ai_workers": 4,
        "search_processes": 0,
    }
    values.update(overrides)
    return Settings(**values)


@contextmanager
def client_for(
    tmp_path: Path, clock: Any = time.time, settings: Settings | None = None, **overrides: Any
) -> Iterator[TestClient]:
    app = create_app(settings or settings_for(tmp_path, **overrides), clock=clock)
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


def write_levels(root: Path, game_id: str, levels: list[dict[str, Any]], **extra: Any) -> Path:
    folder = root / game_id
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "levels.json"
    path.write_text(json.dumps({"game": game_id, "levels": levels, **extra}))
    return path


def tiny_checkpoint(
    path: Path, game_id: str = "jiugong", seed: int = 0, options: dict[str, Any] | None = None
) -> Path:
    """A small untrained network saved through the agent layer's checkpoint API."""
    import torch

    from agents.checkpoint import save_checkpoint
    from agents.config import NetworkConfig
    from agents.networks import build_network

    torch.manual_seed(seed)
    cfg = NetworkConfig(channels=8, blocks=1, value_hidden=8)
    game = make_game(game_id, **(options or {}))
    model = build_network(game.spec, cfg)
    return save_checkpoint(
        path, game_id=game_id, game_options=options or {}, network=cfg, model=model,
        iteration=0, step=0,
    )


def random_moves(game_id: str, seed: int, limit: int | None = None, **config: Any) -> list[str]:
    """Notation moves of one seeded random game (to the end, or ``limit`` moves)."""
    game = make_game(game_id, **config)
    rng = np.random.default_rng(seed)
    state, moves = game.initial_state(), []
    while not game.is_terminal(state) and (limit is None or len(moves) < limit):
        action = int(rng.choice(game.legal_actions(state)))
        moves.append(game.action_to_move(state, action))
        state = game.apply(state, action)
    return moves


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def wait_for(predicate: Any, timeout: float = 20.0, step: float = 0.02) -> Any:
    """Poll until ``predicate()`` is truthy (AI seats move in worker threads)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise AssertionError("condition not reached in time")


@contextmanager
def overlapping_commits(client: TestClient, parties: int = 2) -> Iterator[None]:
    """Force a race between ``parties`` writes to sessions: each write's commit waits at a
    barrier, between the write's read (and its version check) and its compare-and-set, until
    all of them are there. Every writer has then read the same version before any writes, so
    only the compare-and-set can tell them apart, however the threads are scheduled. Later
    commits (a loser's retry) pass straight through. The barrier's timeout only keeps a broken
    test from hanging."""
    repo = client.app.state.sessions.repo
    real = repo.commit
    barrier = threading.Barrier(parties, timeout=60)
    lock = threading.Lock()
    arrived: list[int] = []
    broken: list[int] = []

    def commit(ctx: Any, expected: int) -> bool:
        with lock:
            arrived.append(expected)
            held = len(arrived) <= parties
        if held:
            try:
                barrier.wait()
            except threading.BrokenBarrierError:
                broken.append(expected)
        return real(ctx, expected)

    repo.commit = commit  # an instance attribute: shadows the method until deleted
    try:
        yield
    finally:
        del repo.commit
    assert len(arrived) >= parties and not broken, (
        f"the writes did not overlap: {len(arrived)} commit(s), barrier broken: {broken}")


# ---------------------------------------------------------------------------- event streams
def parse_sse(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    """SSE messages as dicts; a keep-alive comment as ``{"keepalive": True}``."""
    sse_id, data = None, None
    for line in lines:
        if line.startswith(":"):
            yield {"keepalive": True}
        elif line.startswith("id: "):
            sse_id = line[4:]
        elif line.startswith("data: "):
            data = json.loads(line[6:])
        elif line == "" and data is not None:
            assert str(data["id"]) == sse_id if sse_id is not None else data["id"] is None
            yield data
            sse_id, data = None, None
        elif line == "":
            sse_id = None


def read(client, url: str, until: Callable[[list[dict[str, Any]]], bool] = lambda _: False,
         headers: dict[str, str] | None = None, timeout: float = 20.0) -> list[dict[str, Any]]:
    """Messages of a stream (keep-alives left out) until ``until`` holds or the stream ends."""
    got: list[dict[str, Any]] = []
    end = time.monotonic() + timeout
    with client.stream("GET", url, headers=headers or {}) as r:
        assert r.status_code == 200, r.read()
        assert r.headers["content-type"].startswith("text/event-stream")
        for msg in parse_sse(r.iter_lines()):
            assert time.monotonic() < end, f"stream too slow: {got}"
            if "keepalive" in msg:
                continue
            got.append(msg)
            if until(got):
                break
    return got


# ---------------------------------------------------------------------------- subprocess servers
ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``qizero serve`` in a subprocess on a free loopback port: on the SQLite file
    ``database``, or on ``database_url`` (PostgreSQL); ``env`` adds QIZERO_* settings."""

    def __init__(
        self,
        tmp_path: Path,
        database: Path | None = None,
        database_url: str | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        full_env = dict(os.environ, QIZERO_CHECKPOINTS_ROOT=str(tmp_path / "checkpoints"),
                        QIZERO_TIMER_POLL_SECONDS="0.2", **(env or {}))
        where = ["--database-url", database_url] if database_url else ["--database", str(database)]
        for _ in range(3):
            # A free port can be taken by another process before the server binds it (tests
            # run in parallel): then the server exits at once, and another port is tried.
            if self._start(tmp_path, full_env, where):
                return
        raise RuntimeError(f"server did not start: its port was taken, three times ({self.url})")

    def _start(self, tmp_path: Path, full_env: dict[str, str], where: list[str]) -> bool:
        """Start the server on a free port and wait until it is ready; False when the port
        was taken before it could bind (RuntimeError on any other failure to start)."""
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = tmp_path / f"server-{self.port}.log"
        self.log = open(self.log_path, "w")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "qizero_cli", "serve", "--port", str(self.port), *where,
             "--log-level", "warning"],
            cwd=ROOT, env=full_env, stdout=self.log, stderr=subprocess.STDOUT,
        )
        self.client = httpx.Client(base_url=self.url, timeout=30)
        deadline = time.monotonic() + 90
        while True:  # ready: started in the background, levels loaded (/v1/health answers first)
            try:
                if self.client.get("/v1/ready").status_code == 200:
                    return True
            except httpx.TransportError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                log = self.log_path.read_text()
                if self.proc.returncode is not None and "address already in use" in log:
                    return False
                raise RuntimeError(f"server did not start: {log[-2000:]}")
            time.sleep(0.1)

    def children(self) -> list[int]:
        """PIDs of the server's child processes (its search processes), from /proc."""
        out = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == self.proc.pid:
                out.append(int(stat.parent.name))
        return out

    def kill(self) -> None:
        """SIGKILL: no shutdown hooks run."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)
        self.client.close()
        self.log.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.client.close()
        self.log.close()


# ---------------------------------------------------------------------------- PostgreSQL
@contextmanager
def postgres_schema(url: str) -> Iterator[str]:
    """A URL whose connections work in a new, empty schema of their own (dropped after), so
    a test sees only its own tables and rows."""
    from sqlalchemy import create_engine, text

    name = f"test_{secrets.token_hex(6)}"
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {name}"))
    sep = "&" if "?" in url else "?"
    try:
        yield f"{url}{sep}options=-csearch_path%3D{name}"
    finally:
        with engine.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {name} CASCADE"))
        engine.dispose()


@contextmanager
def serve_in_thread(app: Any, name: str) -> Iterator[str]:
    """``app`` served by uvicorn in a thread on a free loopback port: yields its base URL."""
    import uvicorn

    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, name=name, daemon=True)
    thread.start()
    end = time.monotonic() + 30
    while not srv.started:
        if time.monotonic() > end or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        srv.should_exit = True
        thread.join(timeout=10)
