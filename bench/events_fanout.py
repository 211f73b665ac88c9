"""Fan-out of live events: how many events a second reach 32 subscribers of one session, and how
late.

Starts ``qizero serve`` in a subprocess on a free 127.0.0.1 port (SQLite in a temporary folder,
the baseline levels) and plays random Fang Qi games between two people through the REST API, one
move after the other as fast as the server answers. Each game is followed by ``--subscribers``
streams (``GET /v1/sessions/{id}/events``, server-sent events, one thread and HTTP connection
each), opened before its first move; when the game ends its streams end and the next game gets
fresh ones. Each subscriber counts the events it receives (moves and clocks: every message with
an id, past the snapshot) and the ``view`` messages, and measures each event's delivery latency:
its arrival minus its ``at``, the server's clock when the write began (same machine, same clock;
the write's own work, a few ms, is included). For comparison the same games are first played
with no subscriber. The server's CPU time per move (from /proc; Linux) says what the streams
cost it; the subscribers' threads run on the same machine.

Rates are over the time games are played (each game's first move to its streams' last event),
not the set-up of each game's streams. Bounded: each phase stops after ``--moves`` moves or
``--seconds`` seconds.

Usage: python bench/events_fanout.py [--subscribers 32] [--seconds 10] [--moves 600]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve_load import Server, cpu_seconds  # noqa: E402  (a sibling script)

import envs  # noqa: E402

GAME = "fangqi"
VIEW_PREFIX = 'data: {"id": null, "kind": "view"'


@dataclass
class Tally:
    """What one subscriber received."""

    events: int = 0
    views: int = 0
    latencies: list[float] = field(default_factory=list)
    last_version: int = 0


def random_game(seed: int) -> list[str]:
    game = envs.make_game(GAME)
    rng = np.random.default_rng(seed)
    state, moves = game.initial_state(), []
    while not game.is_terminal(state):
        action = int(rng.choice(game.legal_actions(state)))
        moves.append(game.action_to_move(state, action))
        state = game.apply(state, action)
    return moves


def subscribe(url: str, sid: str, tally: Tally, ready: threading.Semaphore,
              stop: threading.Event) -> None:
    """Follow one session's stream until it ends (or ``stop``), counting what arrives."""
    with httpx.Client(timeout=None) as client, client.stream(
            "GET", f"{url}/v1/sessions/{sid}/events") as resp:
        for line in resp.iter_lines():
            if stop.is_set():
                return
            if line.startswith(VIEW_PREFIX):  # the whole session: counted, not parsed
                tally.views += 1
            elif line.startswith("data: "):
                arrived = time.time()
                msg = json.loads(line[6:])
                if msg["kind"] == "snapshot":
                    ready.release()
                    continue
                tally.events += 1
                tally.latencies.append(arrived - msg["at"])
                tally.last_version = max(tally.last_version, msg["data"].get("version", 0))


def play(url: str, subscribers: int, seconds: float, max_moves: int) -> dict[str, float]:
    """Games until the bounds; events delivered per second and latencies."""
    tallies: list[Tally] = []
    moves_played = 0
    active = 0.0  # seconds from each game's first move to its streams' last event
    end = time.perf_counter() + seconds
    seed = 0
    with httpx.Client(base_url=url, timeout=30) as api:
        while moves_played < max_moves and time.perf_counter() < end:
            body = api.post("/v1/sessions", json={"game": GAME}).json()
            sid, token = body["session"]["id"], body["owner_token"]
            ready, stop = threading.Semaphore(0), threading.Event()
            group = [Tally() for _ in range(subscribers)]
            threads = [threading.Thread(target=subscribe, args=(url, sid, t, ready, stop),
                                        daemon=True) for t in group]
            for t in threads:
                t.start()
            for _ in threads:  # every stream has its snapshot: the game may start
                ready.acquire(timeout=30)
            version = 1
            began = time.perf_counter()
            for mv in random_game(seed):
                if moves_played >= max_moves or time.perf_counter() >= end:
                    break
                r = api.post(f"/v1/sessions/{sid}/moves", json={"move": mv, "version": version},
                             headers={"Authorization": f"Bearer {token}"})
                r.raise_for_status()
                version = r.json()["version"]
                moves_played += 1
            drain = time.monotonic() + 10  # every stream has what was committed
            while group and time.monotonic() < drain and min(
                    t.last_version for t in group) < version:
                time.sleep(0.002)
            active += time.perf_counter() - began
            lagging = [t.last_version for t in group if t.last_version < version]
            if lagging:
                print(f"  game {seed}: {len(lagging)} stream(s) still at versions {lagging[:4]} "
                      f"of {version} after 10 s", flush=True)
            stop.set()
            tallies += group
            seed += 1
    lat = np.array([x for t in tallies for x in t.latencies]) * 1000
    events = sum(t.events for t in tallies)
    return {
        "moves": moves_played, "seconds": active, "moves_per_s": moves_played / active,
        "events_per_s": events / active, "views_per_s": sum(t.views for t in tallies) / active,
        "p50_ms": float(np.percentile(lat, 50)) if lat.size else float("nan"),
        "p99_ms": float(np.percentile(lat, 99)) if lat.size else float("nan"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subscribers", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=10.0, help="bound of each phase")
    parser.add_argument("--moves", type=int, default=600, help="bound of each phase")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["QIZERO_EVENT_KEEPALIVE_SECONDS"] = "1"  # idle streams notice `stop` soon
        server = Server(Path(tmp) / "checkpoints", Path(tmp) / "s.sqlite3", batching=True,
                        workers=2)
        try:
            print(f"{GAME} games between people, moves one after the other (cores: "
                  f"{os.cpu_count()})")
            print("| subscribers | moves | moves/s | events delivered/s | views/s "
                  "| latency p50 ms | p99 ms | server CPU ms/move |")
            print("| --- | --- | --- | --- | --- | --- | --- | --- |")
            for n in (0, args.subscribers):
                cpu = cpu_seconds([server.proc.pid])
                res = play(server.url, n, args.seconds, args.moves)
                cpu = (cpu_seconds([server.proc.pid]) - cpu) / max(res["moves"], 1) * 1000
                print(f"| {n} | {res['moves']} | {res['moves_per_s']:.0f} | "
                      f"{res['events_per_s']:.0f} | {res['views_per_s']:.0f} | "
                      f"{res['p50_ms']:.1f} | {res['p99_ms']:.1f} | {cpu:.1f} |", flush=True)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
