"""Time to the first partial result and to the final one of an analysis, through the service.

For each game (and the 9x9 Go board) the top level analyses ``--repeat`` positions a few
random moves from the start (fresh ones for each budget: no evaluation cache holds them) over
``POST /v1/games/{game}/analysis`` with ``stream: true``: the seconds from sending the request
to the first NDJSON line (a partial report, or the final one if the search ends first) and to
the final line, at the level's own simulations, and with ``--seconds`` a time budget of that
many seconds (visits up to the service's limit). One request untimed first per game (network
loading and tracing, on the start position); the medians over the positions. The service
runs in this process (one AI worker, searches in-process), as the tests run it. Prints
figures, asserts nothing.

    python bench/analysis_latency.py [--interval 0.1] [--repeat 3] [--seconds 2]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from fastapi.testclient import TestClient  # noqa: E402

from serving.app import create_app  # noqa: E402
from serving.settings import Settings  # noqa: E402

CASES: list[tuple[str, dict[str, Any]]] = [
    ("jiugong", {}), ("fangqi", {}), ("stereo_go", {}), ("stereo_go", {"board": "9x9"}),
    ("trigolden", {}),
]


def timed(client: TestClient, game: str, body: dict[str, Any]) -> tuple[float, float, int, int]:
    """(seconds to the first line, to the final line, lines, root visits)."""
    t0 = time.perf_counter()
    first = None
    lines = 0
    with client.stream("POST", f"/v1/games/{game}/analysis", json=body) as r:
        if r.status_code != 200:
            raise SystemExit(f"{game}: {r.status_code} {r.read().decode()}")
        for line in r.iter_lines():
            if not line:
                continue
            lines += 1
            first = first if first is not None else time.perf_counter() - t0
            report = json.loads(line)
    return first or 0.0, time.perf_counter() - t0, lines, report["visits"]


def random_positions(
    client: TestClient, game: str, config: dict[str, Any], count: int, rng: random.Random
) -> list[list[str]]:
    """``count`` move lists of 2 to 8 random legal moves from the start: fresh positions,
    which no evaluation cache holds yet."""
    found: list[list[str]] = []
    while len(found) < count:
        moves: list[str] = []
        for _ in range(rng.randint(2, 8)):
            legal = client.post(f"/v1/games/{game}/positions",
                                json={"config": config, "moves": moves}).json()["legal_moves"]
            if not legal:
                break
            moves.append(rng.choice(legal))
        position = client.post(f"/v1/games/{game}/positions",
                               json={"config": config, "moves": moves}).json()
        if not position["is_over"] and moves not in found:
            found.append(moves)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--interval", type=float, default=0.1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    folder = Path(tempfile.mkdtemp(prefix="qizero-bench-"))
    settings = Settings(database_path=folder / "s.sqlite3", ai_workers=1, search_processes=0,
                        ladder_ai_players=False, torch_threads=1)
    with TestClient(create_app(settings)) as client:
        print(f"{'game':22} {'level':>5} {'budget':>12} {'first s':>8} {'final s':>8} "
              f"{'lines':>5} {'visits':>6}")
        for game, config in CASES:
            levels = client.get(f"/v1/games/{game}/levels",
                                params={"config": json.dumps(config)}).json()
            top = levels["levels"][-1]
            base = {"config": config, "level": top["id"], "stream": True,
                    "interval": args.interval}
            timed(client, game, base)  # untimed: loads and traces the network
            name = game + (f" {config['board']}" if config else "")
            for budget, label in ((base, "level's"),
                                  ({**base, "seconds": args.seconds}, f"{args.seconds:g} s")):
                positions = random_positions(client, game, config, args.repeat, rng)
                runs = [timed(client, game, {**budget, "moves": moves}) for moves in positions]
                print(f"{name:22} {top['id']:>5} {label:>12} "
                      f"{statistics.median(r[0] for r in runs):8.3f} "
                      f"{statistics.median(r[1] for r in runs):8.3f} "
                      f"{statistics.median(r[2] for r in runs):5.0f} "
                      f"{statistics.median(r[3] for r in runs):6.0f}")


if __name__ == "__main__":
    main()
