"""Matching latency of the ladder queue over HTTP (loopback), with 50 players queued.

Starts ``qizero serve`` in a subprocess (SQLite file, no AI levels on the ladder, searches in
the server process) and measures two things:

1. **A newcomer into a queue of 50.** 50 players wait, each for options nobody else asked
   for (their own main time), so none of them can pair. A newcomer asks for the options of
   one of them: the latency is its ``POST /v1/ladder/queue`` until the answer (which already
   says ``playing``: the pairing pass reads the 50, pairs, writes the session). A fresh
   player then takes the paired one's place, so the queue stays at 50.
2. **50 at once.** 50 players with the same options post at the same instant (threads, one
   HTTP connection each); a player's latency runs from its post until it is in a game (its
   answer says ``playing``, or ``GET /v1/ladder/queue`` says so, polled every 20 ms).

Usage: python bench/ladder_matching.py [--newcomers 200] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serve_load import Server  # noqa: E402

QUEUED = 50


def register(c: httpx.Client, name: str) -> str:
    r = c.post("/v1/players", json={"name": name})
    r.raise_for_status()
    return r.json()["token"]


def options(i: int) -> dict:
    return {"board": "9x9", "clock": {"main_time": 600 + i}}


def newcomers(url: str, n: int, tag: str) -> list[float]:
    """Latency (s) of ``n`` newcomers each pairing with one of 50 waiting players."""
    with httpx.Client(base_url=url, timeout=60) as c:
        for i in range(QUEUED):
            token = register(c, f"w{tag}-{i}")
            r = c.post("/v1/ladder/queue", json=options(i), headers=_auth(token))
            assert r.json()["status"] == "waiting", r.text
        spare = [register(c, f"s{tag}-{k}") for k in range(n)]
        fresh = [register(c, f"n{tag}-{k}") for k in range(n)]
        out = []
        for k in range(n):
            i = k % QUEUED
            t0 = time.perf_counter()
            r = c.post("/v1/ladder/queue", json=options(i), headers=_auth(fresh[k]))
            out.append(time.perf_counter() - t0)
            assert r.json()["status"] == "playing", r.text
            r = c.post("/v1/ladder/queue", json=options(i), headers=_auth(spare[k]))
            assert r.json()["status"] == "waiting", r.text  # the queue is at 50 again
        for k in range(n - QUEUED, n):  # leave the queue as it was found: empty
            c.delete("/v1/ladder/queue", headers=_auth(spare[k]))
    return out


def at_once(url: str, tag: str) -> list[float]:
    """Latency (s) of 50 players posting at the same instant until each is in a game."""
    with httpx.Client(base_url=url, timeout=60) as c:
        tokens = [register(c, f"a{tag}-{i}") for i in range(QUEUED)]
    barrier = threading.Barrier(QUEUED)
    out: list[float] = [0.0] * QUEUED
    body = options(10_000)

    def run(i: int) -> None:
        with httpx.Client(base_url=url, timeout=60) as c:
            barrier.wait()
            t0 = time.perf_counter()
            r = c.post("/v1/ladder/queue", json=body, headers=_auth(tokens[i]))
            status = r.json()["status"]
            while status != "playing":
                time.sleep(0.02)
                status = c.get("/v1/ladder/queue", headers=_auth(tokens[i])).json()["status"]
            out[i] = time.perf_counter() - t0

    threads = [threading.Thread(target=run, args=(i,)) for i in range(QUEUED)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    return out


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def summary(name: str, xs: list[float]) -> str:
    ms = np.array(xs) * 1000
    return (f"{name:<34} n={len(ms):>4}  p50 {np.percentile(ms, 50):7.1f} ms  "
            f"p99 {np.percentile(ms, 99):7.1f} ms  max {ms.max():7.1f} ms")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--newcomers", type=int, default=200)
    p.add_argument("--rounds", type=int, default=3, help="rounds of the 50-at-once test")
    args = p.parse_args(argv)
    os.environ.update(QIZERO_LADDER_AI_PLAYERS="false", QIZERO_SEARCH_PROCESSES="0")
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp), Path(tmp) / "ladder.sqlite3", batching=True, workers=4)
        try:
            first = newcomers(server.url, args.newcomers, "x")
            crowd: list[float] = []
            for r in range(args.rounds):
                crowd += at_once(server.url, f"r{r}")
        finally:
            server.stop()
    print(f"ladder matching over HTTP, SQLite, {os.cpu_count()} CPUs")
    print(summary("newcomer into a queue of 50", first))
    print(summary(f"50 at once ({args.rounds} rounds)", crowd))
    return 0


if __name__ == "__main__":
    sys.exit(main())
