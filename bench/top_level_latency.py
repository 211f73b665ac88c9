"""Seconds a move of every served top level, as a player meets it: one client, the service as
deployed, whole games; and the 9×9 masters against GNU Go's move time on the same positions.

1. **The service** (``qizero serve`` in a subprocess on a free loopback port, fresh SQLite,
   its defaults: search processes, batching, evaluation cache; the networks warm before the
   clock starts) and one client. For every levels table the service serves (every
   ``checkpoints/<game>/**/levels.json``: each game's default options and each trained option
   set) the top level plays ``--games`` whole games against the table's lowest level, both
   through ``POST /v1/games/{game}/suggest`` (each request with its own seed, so the lowest
   level's sampled moves make each game different). Only the top level's requests are timed:
   the move time a person playing against it waits, the evaluation cache as warm as the
   game before made it. Prints p50, p99 and max per table.
2. **GNU Go** (``--gnugo-level``, default 10; skipped when it is not installed) on the first
   ``--positions`` positions where each 9×9 master moved: per position ``clear_board``, the
   moves with ``play``, then a timed ``genmove``. The ratio is the master's median time over
   GNU Go's on the same positions, in the same run (below 1: the master answers faster).

Prints figures, asserts nothing. Run:

    .venv/bin/python bench/top_level_latency.py [--games 2] [--positions 20] [--only stereo_go]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agents.levels_file import LevelsFile  # noqa: E402
from bench.gnugo_match import find_gnugo, gnugo_argv  # noqa: E402
from bench.serve_load import Server  # noqa: E402
from envs import make_game  # noqa: E402
from training.gtp import GtpClient  # noqa: E402


@dataclass
class Table:
    """One served levels table: its game, options and the top and lowest level ids."""

    game: str
    options: dict[str, object]
    top: str
    low: str
    seconds: list[float] = field(default_factory=list)
    positions: list[list[str]] = field(default_factory=list)  # where the top level moved

    @property
    def name(self) -> str:
        shown = ",".join(f"{k}={v}" for k, v in sorted(self.options.items()))
        return f"{self.game}{'[' + shown + ']' if shown else ''}"


def served_tables(checkpoints: Path, only: list[str] | None) -> list[Table]:
    """Every levels file under ``checkpoints``, top level = the last (strongest) entry."""
    tables = []
    for path in sorted(checkpoints.glob("*/**/levels.json")):
        levels = LevelsFile.read(path)
        if not levels.levels or (only and levels.game not in only):
            continue
        tables.append(Table(str(levels.game), dict(levels.game_options),
                            str(levels.levels[-1].id), str(levels.levels[0].id)))
    return tables


def play_games(client: httpx.Client, table: Table, games: int, seed: int) -> None:
    """Whole games, top level against the lowest, colours alternating; times the top's moves."""
    game = make_game(table.game, **table.options)
    for g in range(games):
        state, moves = game.initial_state(), []
        top_seat = g % 2
        while not game.is_terminal(state):
            top = game.to_play(state) == top_seat
            body = {"config": table.options, "moves": moves,
                    "level": table.top if top else table.low, "seed": seed + len(moves) + 1000 * g}
            t0 = time.perf_counter()
            r = client.post(f"/v1/games/{table.game}/suggest", json=body)
            dt = time.perf_counter() - t0
            if r.status_code != 200:
                raise RuntimeError(f"{table.name}: {r.status_code} {r.text}")
            if top:
                table.seconds.append(dt)
                table.positions.append(list(moves))
            move = r.json()["move"]
            state = game.play(state, move)
            moves.append(move)


def gnugo_seconds(gnugo: str, level: int, table: Table, n: int) -> list[float]:
    """GNU Go's genmove time on the first ``n`` positions where ``table``'s top level moved."""
    game = make_game(table.game, **table.options)
    size = str(table.options["board"]).split("x")[0]
    komi = game.config.komi
    out = []
    with GtpClient(gnugo_argv(gnugo, level, 0)) as gtp:
        for moves in table.positions[:n]:
            gtp(f"boardsize {size}")
            gtp("clear_board")
            gtp(f"komi {komi:g}")
            state = game.initial_state()
            for move in moves:
                gtp(f"play {'bw'[game.to_play(state)]} {move}")
                state = game.play(state, move)
            t0 = time.perf_counter()
            gtp(f"genmove {'bw'[game.to_play(state)]}")
            out.append(time.perf_counter() - t0)
    return out


def ms(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values) * 1000.0, q))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkpoints", type=Path, default=ROOT / "checkpoints")
    ap.add_argument("--games", type=int, default=2, help="whole games per table")
    ap.add_argument("--positions", type=int, default=20, help="positions for GNU Go")
    ap.add_argument("--gnugo-level", type=int, default=10)
    ap.add_argument("--only", nargs="*", default=None, help="games to measure (default: all)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    tables = served_tables(args.checkpoints, args.only)
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(args.checkpoints, Path(tmp) / "sessions.sqlite3", batching=True,
                        workers=4)
        try:
            with httpx.Client(base_url=server.url, timeout=120) as client:
                print(f"{'levels table':48} {'top':>8} {'moves':>6} {'p50 ms':>8} {'p99 ms':>8}"
                      f" {'max ms':>8}", flush=True)
                for table in tables:
                    play_games(client, table, args.games, args.seed)
                    s = table.seconds
                    print(f"{table.name:48} {table.top:>8} {len(s):6d} {ms(s, 50):8.0f} "
                          f"{ms(s, 99):8.0f} {max(s) * 1000:8.0f}", flush=True)
        finally:
            server.stop()
    gnugo = find_gnugo()
    nine = [t for t in tables if t.options.get("board") == "9x9"]
    if gnugo is None:
        print("GNU Go is not installed (apt-get install gnugo): no ratio")
        return 0
    for table in nine:
        theirs = gnugo_seconds(gnugo, args.gnugo_level, table, args.positions)
        ours = table.seconds[: len(theirs)]
        print(f"{table.name}: on {len(theirs)} positions, master p50 {ms(ours, 50):.0f} ms, "
              f"GNU Go --level {args.gnugo_level} p50 {ms(theirs, 50):.0f} ms: ratio "
              f"{np.median(ours) / np.median(theirs):.2f} (totals {sum(ours) / sum(theirs):.2f})",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
