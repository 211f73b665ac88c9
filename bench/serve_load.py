"""Load test of the qizero service: suggestion latency and throughput over HTTP (loopback).

Starts ``qizero serve`` in a subprocess on a free 127.0.0.1 port and drives it from this
process with concurrent clients (threads, one HTTP connection each). For every game and for its
lowest and top level it measures suggest latency p50/p99 and requests/second with 1, 8 and 32
concurrent clients, on the service as deployed (batching and the evaluation cache on). Two
more servers run beside it (idle until asked), both without the evaluation cache, one with
batching and one without; the top (network) levels are then measured on both, alternating
on/off cells so that both see the same machine load, and the throughput ratio batching on /
off is printed (same run).

Levels: the shipped ``checkpoints/<game>/levels.json`` where it exists. A game without one gets
a *stand-in* ladder written to a temporary folder (marked in the output): an untrained network
of the default size (agents.config.NetworkConfig) as the lowest level (raw policy, no search)
and the same network with ``--standin-sims`` simulations as the top level; untrained weights
cost exactly what trained ones cost, so the timings hold. Games whose network kind does not
exist yet fall back to the service's baseline levels (random, pure MCTS).

Every loop is bounded: each cell stops after ``--requests`` requests or ``--seconds`` seconds.

``--metrics`` turns on the main server's ``/metrics`` (QIZERO_METRICS=1), scrapes it around each
cell of the latency table and checks that its counts add up to the bench's: suggestion requests
by status (``qizero_http_requests_total``) and searches (``qizero_search_seconds_count``).

Replicas (``--urls``, or ``--replicas N --database-url …`` to start N servers on one database):
the same cells against the first replica alone and against all of them (each client sends each
request to the next replica, as a load balancer without affinity), alternating one / all so
both see the same machine load: suggestions of the top level, and *session play* (each client
plays south against an AI level, polling the session and moving on its turn: creates, reads,
moves and the AI seats' commits all go through the database). On PostgreSQL ``--pg-stats``
adds the rows the database wrote per move (pg_stat_database, read after its 1 s flush).

Usage: python bench/serve_load.py [--games jiugong fangqi] [--seconds 6] [--requests 200]
                                   [--metrics]
       python bench/serve_load.py --games jiugong --replicas 2 \
           --database-url postgresql+psycopg://user@host/db [--clients 32] [--pg-stats]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np

import envs

ROOT = Path(__file__).resolve().parent.parent
CONCURRENCY = (1, 8, 32)


def lowest_and_top(levels: list[dict[str, Any]]) -> tuple[str, str]:
    """The ids of a catalogue's lowest trained level and its top level (the anchor, uniform
    random, stands beside trained levels too: it is not a trained game's lowest level)."""
    trained = [lv for lv in levels if lv["source"] != "baseline"] or levels
    return trained[0]["id"], levels[-1]["id"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(
        self, checkpoints: Path, database: Path | str, batching: bool, workers: int,
        cache: bool = True, metrics: bool = False, inference: str = "local",
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        where = (["--database-url", database] if isinstance(database, str)
                 else ["--database", str(database)])
        cmd = [sys.executable, "-m", "qizero_cli", "serve", "--port", str(self.port),
               *where, "--checkpoints", str(checkpoints),
               "--workers", str(workers), "--log-level", "warning"]
        if not batching:
            cmd.append("--no-batching")
        env = dict(os.environ)
        if not cache:
            env["QIZERO_EVAL_CACHE_MB"] = "0"
        if metrics:
            env["QIZERO_METRICS"] = "1"
        env["QIZERO_INFERENCE"] = inference
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env)
        # Every level of every game warms before the clock starts: more than 2 minutes on a
        # 2-core machine that other jobs load.
        deadline = time.monotonic() + 300
        with httpx.Client(base_url=self.url) as c:
            while True:
                try:  # up, and every search process has loaded its networks
                    r = c.get("/v1/health")
                    if r.status_code == 200 and r.json()["ai"]["warm"]:
                        return
                except httpx.TransportError:
                    pass
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()  # not left serving (and holding the caller's stdout)
                    raise RuntimeError("the server did not start")
                time.sleep(0.2)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def standin_levels(root: Path, game_id: str, sims: int) -> bool:
    """Write a stand-in ladder (untrained default-size network) for ``game_id``."""
    from agents.checkpoint import save_checkpoint
    from agents.config import NetworkConfig, SearchConfig
    from agents.networks import build_network

    game = envs.make_game(game_id)
    cfg = NetworkConfig()
    try:
        model = build_network(game.spec, cfg)
    except envs.QizeroError as exc:
        print(f"  {game_id}: no stand-in network ({exc}); using baseline levels")
        return False
    folder = root / game_id
    folder.mkdir(parents=True, exist_ok=True)
    save_checkpoint(folder / "standin.pt", game_id=game_id, game_options={}, network=cfg,
                    model=model, iteration=0, step=0)
    levels = [
        {"id": "standin-policy", "label": "stand-in raw policy", "checkpoint": "standin.pt",
         "search": SearchConfig(simulations=0, gumbel_scale=0.0).model_dump(mode="json")},
        {"id": f"standin-s{sims}", "label": f"stand-in {sims} simulations",
         "checkpoint": "standin.pt",
         "search": SearchConfig(simulations=sims, gumbel_scale=0.0).model_dump(mode="json")},
    ]
    (folder / "levels.json").write_text(json.dumps({"game": game_id, "levels": levels}))
    return True


def positions(game_id: str, n: int, seed: int,
              options: dict[str, str] | None = None) -> list[list[str]]:
    """Move lists of non-terminal positions from seeded random play (0..19 plies in)."""
    game = envs.make_game(game_id, **(options or {}))
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        state, moves = game.initial_state(), []
        for _ in range(int(rng.integers(0, 20))):
            a = int(rng.choice(game.legal_actions(state)))
            nxt = game.apply(state, a)
            if game.is_terminal(nxt):
                break
            moves.append(game.action_to_move(state, a))
            state = nxt
        out.append(moves)
    return out


def drive(url: str | list[str], game_id: str, level: str, clients: int, pool: list[list[str]],
          max_requests: int, seconds: float,
          config: dict[str, str] | None = None) -> dict[str, float]:
    """``clients`` threads asking suggestions until the request or time budget is spent
    (several URLs: each client sends each request to the next one)."""
    urls = [url] if isinstance(url, str) else url
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    issued = [0]
    start = time.perf_counter()
    stop_at = start + seconds

    def client(k: int) -> None:
        with RoundRobin(urls, k) as c:
            while True:
                with lock:
                    if issued[0] >= max_requests or (time.perf_counter() > stop_at
                                                     and issued[0] >= clients):
                        return
                    i = issued[0]
                    issued[0] += 1
                body = {"moves": pool[i % len(pool)], "level": level, "seed": i,
                        **({"config": config} if config else {})}
                t0 = time.perf_counter()
                r = c.post(f"/v1/games/{game_id}/suggest", json=body)
                dt = time.perf_counter() - t0
                with lock:
                    if r.status_code == 200:
                        latencies.append(dt)
                    else:
                        errors[0] += 1

    return _run_clients(client, clients, start, latencies, errors[0])


def _run_clients(client: Any, clients: int, start: float, latencies: list[float],
                 errors: int | list[int], **extra: float) -> dict[str, float]:
    """Run ``client(k)`` in ``clients`` threads; latency percentiles and requests/s."""
    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    lat = np.array(latencies) if latencies else np.array([np.nan])
    n_err = errors[0] if isinstance(errors, list) else errors
    return {"n": len(latencies), "errors": n_err, "p50": float(np.percentile(lat, 50)),
            "p99": float(np.percentile(lat, 99)), "rps": len(latencies) / wall, "wall": wall,
            **extra}


class RoundRobin:
    """One HTTP connection per replica; each request to the next replica (client ``k``
    starts at replica ``k``, so the clients spread out from the first request)."""

    def __init__(self, urls: list[str], k: int = 0) -> None:
        self.clients = [httpx.Client(base_url=u, timeout=300) for u in urls]
        self.i = k

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        self.i += 1
        return self.clients[self.i % len(self.clients)].request(method, path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("POST", path, **kwargs)

    def get(self, path: str) -> httpx.Response:
        return self.request("GET", path)

    def __enter__(self) -> RoundRobin:
        return self

    def __exit__(self, *exc: object) -> None:
        for c in self.clients:
            c.close()


def play(urls: list[str], game_id: str, level: str, clients: int, seconds: float,
         seed: int) -> dict[str, float]:
    """``clients`` threads each playing south against an AI level for ``seconds``: read the
    session, move on south's turn (a random legal move), a new session when one ends. Every
    request counts (creates, reads, moves); ``moves`` counts the moves made by both sides."""
    latencies: list[float] = []
    replies: list[float] = []  # from a move's answer to the AI's reply seen
    errors = [0]
    moves = [0]
    lock = threading.Lock()
    start = time.perf_counter()
    stop_at = start + seconds

    def timed(c: RoundRobin, method: str, path: str, **kwargs: Any) -> httpx.Response:
        t0 = time.perf_counter()
        r = c.request(method, path, **kwargs)
        with lock:
            if r.status_code < 400 or r.status_code == 409:  # 409: the AI moved first
                latencies.append(time.perf_counter() - t0)
            else:
                errors[0] += 1
        return r

    def client(k: int) -> None:
        rng = np.random.default_rng(seed + k)
        south, north = envs.make_game(game_id).spec.player_names[:2]
        moved_at: float | None = None
        with RoundRobin(urls, k) as c:
            session: dict[str, Any] | None = None
            while time.perf_counter() < stop_at:
                if session is None:
                    r = timed(c, "POST", "/v1/sessions", json={
                        "game": game_id, "turn_seconds": None,
                        "seats": {north: {"type": "ai", "level": level}}})
                    if r.status_code != 201:
                        continue
                    session, done = r.json(), 0
                    sid, token = session["session"]["id"], session["seat_tokens"][south]
                s = timed(c, "GET", f"/v1/sessions/{sid}").json()
                if s["status"] == "playing" and s["position"]["to_play"] != south:
                    time.sleep(0.01)
                    continue
                if moved_at is not None:
                    with lock:
                        replies.append(time.perf_counter() - moved_at)
                    moved_at = None
                if s["status"] != "playing":
                    with lock:
                        moves[0] += len(s["moves"]) - done
                    session = None
                    continue
                legal = s["position"]["legal_moves"]
                r = timed(c, "POST", f"/v1/sessions/{sid}/moves",
                          headers={"Authorization": f"Bearer {token}"},
                          json={"move": legal[int(rng.integers(len(legal)))],
                                "version": s["version"]})
                if r.status_code == 200:
                    moved_at = time.perf_counter()
                    with lock:
                        moves[0] += len(r.json()["moves"]) - done
                    done = len(r.json()["moves"])

    result = _run_clients(client, clients, start, latencies, errors)
    result["moves_per_s"] = moves[0] / result["wall"]
    result["moves"] = moves[0]
    result["reply_p99"] = float(np.percentile(replies, 99)) if replies else float("nan")
    result["reply_max"] = max(replies, default=float("nan"))
    return result


def pg_rows_written(url: str) -> tuple[int, int] | None:
    """Rows inserted, updated and deleted, and transactions committed, in the database so far
    (PostgreSQL statistics; None elsewhere)."""
    if not url.startswith("postgresql"):
        return None
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            row = conn.execute(text(
                "SELECT tup_inserted + tup_updated + tup_deleted, xact_commit "
                "FROM pg_stat_database WHERE datname = current_database()")).one()
            return int(row[0]), int(row[1])
    finally:
        engine.dispose()


def cpu_seconds(pids: list[int]) -> float:
    """CPU time (user + system) of these processes and all their descendants (Linux /proc;
    children still running: a server's search processes)."""
    table: dict[int, tuple[int, int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            f = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        table[int(stat.parent.name)] = (int(f[1]), int(f[11]) + int(f[12]))
    family, grew = set(pids), True
    while grew:
        kids = {pid for pid, (parent, _) in table.items() if parent in family} - family
        family |= kids
        grew = bool(kids)
    return sum(table[p][1] for p in family if p in table) / os.sysconf("SC_CLK_TCK")


def compare_replicas(urls: list[str], games: list[str], clients: int, args: argparse.Namespace,
                     pools: dict[str, list[list[str]]], database_url: str | None,
                     pids: list[int]) -> None:
    """One replica against all of them, same run, cells alternating (2 rounds each).
    ``pids``: the servers' processes (started here), for their CPU per request."""
    print(f"\nreplicas: 1 vs {len(urls)} ({', '.join(urls)}), {clients} clients, cells "
          f"alternate, 2 rounds each")
    print(f"{'workload':<26} {'replicas':>8} {'req/s':>7} {'p50 ms':>8} {'p99 ms':>8} "
          f"{'moves/s':>8} {'AI reply p99':>12} {'rows/move':>9} {'CPU ms/req':>10}")
    for g in games:
        levels = httpx.get(f"{urls[0]}/v1/games/{g}/levels").json()["levels"]
        low, top = lowest_and_top(levels)
        for u in urls:
            for lv in (low, top):
                warm_up(u, g, lv, pools[g])
                warm_up_sessions(u, g, lv)
        cells = [(f"{g} suggest {top}", "suggest", top), (f"{g} play vs {low}", "play", low),
                 (f"{g} play vs {top}", "play", top)]
        for name, kind, lv in cells:
            sums: dict[int, list[dict[str, float]]] = {1: [], len(urls): []}
            for _ in range(2):
                for n in sums:
                    before = pg_rows_written(database_url) if args.pg_stats and database_url \
                        else None
                    cpu = cpu_seconds(pids) if pids else float("nan")
                    if kind == "suggest":
                        r = drive(urls[:n], g, lv, clients, pools[g], args.requests,
                                  args.seconds)
                    else:
                        r = play(urls[:n], g, lv, clients, args.seconds, args.seed)
                    r["cpu_per_request"] = (cpu_seconds(pids) - cpu) / max(r["n"], 1)
                    if before is not None and kind == "play":
                        time.sleep(11)  # idle backends flush their statistics within 10 s
                        after = pg_rows_written(database_url)
                        r["rows_per_move"] = (after[0] - before[0]) / max(r["moves"], 1)
                    sums[n].append(r)
            for n, rs in sums.items():
                rps = np.mean([r["rps"] for r in rs])
                p50 = np.mean([r["p50"] for r in rs])
                p99 = np.mean([r["p99"] for r in rs])
                mps = np.mean([r.get("moves_per_s", np.nan) for r in rs])
                reply = np.mean([r.get("reply_p99", np.nan) for r in rs])
                rows = np.mean([r.get("rows_per_move", np.nan) for r in rs])
                cpu_ms = 1000 * np.mean([r["cpu_per_request"] for r in rs])
                errs = sum(r["errors"] for r in rs)
                print(f"{name:<26} {n:>8} {rps:>7.1f} {1000 * p50:>8.1f} {1000 * p99:>8.1f} "
                      f"{mps:>8.1f} {1000 * reply:>12.1f} {rows:>9.2f} {cpu_ms:>10.1f}"
                      + (f"  errors={errs}" if errs else ""), flush=True)


def scrape(url: str, game_id: str, level: str) -> dict[str, float]:
    """The suggestion counts of /metrics: requests by status, and searches of ``level``."""
    from prometheus_client.parser import text_string_to_metric_families

    out: dict[str, float] = {}
    text = httpx.get(f"{url}/metrics", timeout=60).text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = sample.labels
            if (sample.name == "qizero_http_requests_total"
                    and labels.get("route") == "/v1/games/{game}/suggest"):
                out[labels["status"]] = out.get(labels["status"], 0.0) + sample.value
            elif (sample.name == "qizero_search_seconds_count"
                  and (labels.get("game"), labels.get("level")) == (game_id, level)):
                out["searches"] = sample.value
    return out


def counted(before: dict[str, float], after: dict[str, float]) -> dict[str, int]:
    return {k: int(after[k] - before.get(k, 0.0)) for k in after if after[k] != before.get(k)}


def warm_up(url: str, game_id: str, level: str, pool: list[list[str]],
            config: dict[str, str] | None = None) -> None:
    """One untimed request per level: loads its network (and torch) before measuring."""
    r = httpx.post(f"{url}/v1/games/{game_id}/suggest", timeout=600,
                   json={"moves": pool[0], "level": level, "seed": 0,
                         **({"config": config} if config else {})})
    r.raise_for_status()


def warm_up_sessions(url: str, game_id: str, level: str) -> None:
    """One untimed session with an AI seat of ``level``: the server process loads the level's
    player when a seat takes it (the searches run in the search processes)."""
    north = envs.make_game(game_id).spec.player_names[1]
    r = httpx.post(f"{url}/v1/sessions", timeout=600, json={
        "game": game_id, "turn_seconds": None,
        "seats": {north: {"type": "ai", "level": level}}})
    r.raise_for_status()


def model_stats(url: str) -> tuple[int, int]:
    """Forward passes and rows so far, summed over the server's loaded networks."""
    models = httpx.get(f"{url}/v1/health").json()["ai"]["models"].values()
    return sum(m["forward_passes"] for m in models), sum(m["rows"] for m in models)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="*", default=None, help="default: every game")
    parser.add_argument("--seconds", type=float, default=6.0, help="time budget per cell")
    parser.add_argument("--requests", type=int, default=200, help="request budget per cell")
    parser.add_argument("--standin-sims", type=int, default=64)
    parser.add_argument("--workers", type=int, default=32, help="server AI worker threads")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--urls", nargs="+", default=None,
                        help="compare these running replicas (1 vs all) instead")
    parser.add_argument("--replicas", type=int, default=0,
                        help="start this many servers on --database-url and compare 1 vs all")
    parser.add_argument("--database-url", default=None, help="for --replicas (PostgreSQL)")
    parser.add_argument("--clients", type=int, default=32, help="clients in the replica cells")
    parser.add_argument("--pg-stats", action="store_true",
                        help="rows written per move (PostgreSQL statistics)")
    parser.add_argument("--metrics", action="store_true",
                        help="check /metrics' request and search counts against the bench's")
    parser.add_argument("--inference", action="store_true",
                        help="compare the search processes' inference local vs shared (one "
                             "server per network) on the top levels of --games, which may "
                             "name options: stereo_go:board=9x9")
    args = parser.parse_args()
    if args.urls or args.replicas:
        replicas_main(args)
        return
    if args.inference:
        inference_main(args)
        return
    games = args.games or envs.game_ids()
    tmp = Path(tempfile.mkdtemp(prefix="qizero-bench-"))
    shipped = ROOT / "checkpoints"
    root = tmp / "checkpoints"
    standins = set()
    for g in games:
        if (shipped / g / "levels.json").is_file():
            shutil.copytree(shipped / g, root / g)
        elif standin_levels(root, g, args.standin_sims):
            standins.add(g)
    pools = {g: positions(g, 64, args.seed) for g in games}
    print(f"qizero serve load test: {os.cpu_count()} CPUs, loopback HTTP, "
          f"cells of <= {args.requests} requests / {args.seconds:g} s")
    print(f"{'game':<10} {'level':<22} {'clients':>7} {'n':>5} {'p50 ms':>8} {'p99 ms':>8} "
          f"{'req/s':>7}")
    top_levels: dict[str, str] = {}
    # The latency table uses the service as deployed (batching and the evaluation cache on).
    # The batching comparison needs every evaluation to reach the network, so its two servers
    # run without the cache (with it, a pool of 64 positions is soon answered from memory).
    # All servers run for the whole bench (an idle one costs nothing), so the comparison can
    # alternate on/off cells and share whatever else the machine is doing.
    server = Server(root, tmp / "default.sqlite3", batching=True, workers=args.workers,
                    metrics=args.metrics)
    totals = {"bench": 0, "metrics": 0, "searches": 0}
    batched = Server(root, tmp / "on.sqlite3", batching=True, workers=args.workers, cache=False)
    plain = Server(root, tmp / "off.sqlite3", batching=False, workers=args.workers, cache=False)
    try:
        for g in games:
            levels = httpx.get(f"{server.url}/v1/games/{g}/levels").json()["levels"]
            chosen = list(lowest_and_top(levels))
            top_levels[g] = levels[-1]["id"] if levels[-1]["source"] != "baseline" else ""
            for lv in chosen:
                warm_up(server.url, g, lv, pools[g])
                for n in CONCURRENCY:
                    before = scrape(server.url, g, lv) if args.metrics else {}
                    r = drive(server.url, g, lv, n, pools[g], args.requests, args.seconds)
                    mark = "*" if g in standins else " "
                    line = (f"{g:<10} {lv + mark:<22} {n:>7} {r['n']:>5} {1000 * r['p50']:>8.1f} "
                            f"{1000 * r['p99']:>8.1f} {r['rps']:>7.1f}"
                            + (f"  errors={r['errors']}" if r["errors"] else ""))
                    if args.metrics:
                        seen = counted(before, scrape(server.url, g, lv))
                        asked = r["n"] + r["errors"]
                        answered = sum(v for k, v in seen.items() if k != "searches")
                        totals["bench"] += asked
                        totals["metrics"] += answered
                        totals["searches"] += seen.get("searches", 0)
                        line += (f"   /metrics: {answered} requests {seen}"
                                 + ("" if answered == asked else "  MISMATCH"))
                    print(line, flush=True)
        if args.metrics:
            print(f"\n/metrics vs bench: {totals['metrics']} suggestion requests counted, "
                  f"{totals['bench']} sent, {totals['searches']} searches counted "
                  f"({'equal' if totals['metrics'] == totals['bench'] else 'MISMATCH'})")
        print("\nbatching on vs off, top network levels, evaluation cache off "
              "(cells alternate on/off, 2 rounds each):")
        print(f"{'game':<10} {'level':<22} {'clients':>7} {'on req/s':>9} {'off req/s':>9} "
              f"{'on/off':>7}")
        for g in games:
            if not top_levels[g]:
                continue
            warm_up(batched.url, g, top_levels[g], pools[g])
            warm_up(plain.url, g, top_levels[g], pools[g])
            for n in (8, 32):
                done = {"on": 0.0, "off": 0.0}
                passes = {"on": [0, 0], "off": [0, 0]}  # forward passes, rows
                for _ in range(2):
                    for name, srv in (("on", batched), ("off", plain)):
                        before = model_stats(srv.url)
                        r = drive(srv.url, g, top_levels[g], n, pools[g], args.requests,
                                  args.seconds)
                        after = model_stats(srv.url)
                        done[name] += r["rps"]
                        passes[name][0] += after[0] - before[0]
                        passes[name][1] += after[1] - before[1]
                ratio = done["on"] / done["off"] if done["off"] else float("nan")
                rows = passes["on"][1] / max(passes["on"][0], 1)
                print(f"{g:<10} {top_levels[g]:<22} {n:>7} {done['on'] / 2:>9.1f} "
                      f"{done['off'] / 2:>9.1f} {ratio:>7.2f}   rows/forward pass with "
                      f"batching: {rows:.2f}", flush=True)
    finally:
        for srv in (server, batched, plain):
            srv.stop()
    if standins:
        print(f"\n* stand-in level (untrained default-size network): {', '.join(sorted(standins))}")
    shutil.rmtree(tmp, ignore_errors=True)


def replicas_main(args: argparse.Namespace) -> None:
    """The replica comparison: running replicas (--urls) or N started on one database."""
    games = args.games or ["jiugong"]
    pools = {g: positions(g, 64, args.seed) for g in games}
    servers: list[Server] = []
    urls = args.urls or []
    tmp = Path(tempfile.mkdtemp(prefix="qizero-bench-"))
    try:
        if not urls:
            if not args.database_url:
                raise SystemExit("--replicas needs --database-url (one database for all)")
            root = tmp / "checkpoints"
            for g in games:
                if (ROOT / "checkpoints" / g / "levels.json").is_file():
                    shutil.copytree(ROOT / "checkpoints" / g, root / g)
            servers = [Server(root, args.database_url, batching=True, workers=args.workers)
                       for _ in range(args.replicas)]
            urls = [s.url for s in servers]
        print(f"qizero serve replicas: {os.cpu_count()} CPUs, loopback HTTP, cells of "
              f"{args.seconds:g} s (suggest: <= {args.requests} requests)")
        compare_replicas(urls, games, args.clients, args, pools, args.database_url,
                         [s.proc.pid for s in servers])
    finally:
        for s in servers:
            s.stop()
        shutil.rmtree(tmp, ignore_errors=True)


def inference_main(args: argparse.Namespace) -> None:
    """Local against shared inference (``QIZERO_INFERENCE``), in the same run: two servers
    with the shipped levels of ``--games`` (``game[:option=value,...]``), the evaluation
    cache off (every evaluation reaches a network), cells alternating local / shared at 8 and
    ``--clients`` clients, 2 rounds each: requests/s, latency, the servers' CPU a request
    (search processes and inference servers included) and rows per forward pass."""
    specs = []
    for spec in args.games or ["stereo_go:board=9x9", "fangqi"]:
        game_id, _, opts = spec.partition(":")
        options = dict(kv.split("=", 1) for kv in opts.split(",")) if opts else {}
        specs.append((game_id, options))
    tmp = Path(tempfile.mkdtemp(prefix="qizero-bench-"))
    root = tmp / "checkpoints"
    for game_id, options in specs:
        key = envs.options_key(envs.make_game(game_id, **options))
        shutil.copytree(ROOT / "checkpoints" / game_id / key, root / game_id / key)
    servers = {mode: Server(root, tmp / f"{mode}.sqlite3", batching=True, workers=args.workers,
                            cache=False, inference=mode) for mode in ("local", "shared")}
    print(f"qizero serve, inference local vs shared: {os.cpu_count()} CPUs, search processes "
          f"= CPUs, evaluation cache off, cells of <= {args.requests} requests / "
          f"{args.seconds:g} s, 2 rounds alternating")
    print(f"{'game':<22} {'level':<6} {'clients':>7} {'mode':<7} {'req/s':>6} {'p50 ms':>7} "
          f"{'p99 ms':>7} {'CPU ms/req':>10} {'rows/pass':>9}")
    try:
        for game_id, options in specs:
            name = game_id + (":" + ",".join(f"{k}={v}" for k, v in options.items())
                              if options else "")
            query = {"config": json.dumps(options)} if options else {}
            levels = httpx.get(f"{servers['local'].url}/v1/games/{game_id}/levels",
                               params=query).json()["levels"]
            level = levels[-1]["id"]
            pool = positions(game_id, 64, args.seed, options)
            for srv in servers.values():
                warm_up(srv.url, game_id, level, pool, options)
            for n in sorted({8, args.clients}):
                # per mode: req/s, p50, p99 (summed over rounds), CPU s, requests, passes, rows
                sums = {mode: np.zeros(7) for mode in servers}
                for _ in range(2):
                    for mode, srv in servers.items():
                        before, cpu = model_stats(srv.url), cpu_seconds([srv.proc.pid])
                        r = drive(srv.url, game_id, level, n, pool, args.requests,
                                  args.seconds, options)
                        cpu = cpu_seconds([srv.proc.pid]) - cpu
                        after = model_stats(srv.url)
                        sums[mode] += [r["rps"], r["p50"], r["p99"], cpu, r["n"],
                                       after[0] - before[0], after[1] - before[1]]
                for mode in servers:
                    rps, p50, p99, cpu, done, passes, rows = sums[mode]
                    print(f"{name:<22} {level:<6} {n:>7} {mode:<7} {rps / 2:>6.1f} "
                          f"{1000 * p50 / 2:>7.0f} {1000 * p99 / 2:>7.0f} "
                          f"{1000 * cpu / max(done, 1):>10.0f} {rows / max(passes, 1):>9.2f}",
                          flush=True)
    finally:
        for srv in servers.values():
            srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
