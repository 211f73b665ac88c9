"""The web client's offline mode: what the page downloads, and each level's move time in it.

    python bench/web_offline.py [--positions 20] [--every 3] [--seed 0]

Prints two tables. The bundle: the offline mode's own JavaScript, the vendored onnxruntime-web
files and each game's exported models, in KB as served (uncompressed) and gzipped (-9). The
move times: for every in-browser level (Jiugong, Fang Qi, Stereo Go's cylinder and 9x9 board),
milliseconds from the page asking the worker for a move to the answer (the search with its
network calls; the first move of each level is played once untimed), in headless Chromium on
this machine, one thread. The positions come from one seeded uniformly random game per game,
every ``--every`` plies, so two runs time the same searches. The page is served by a plain
static file server (the offline mode needs nothing else), Chromium at /usr/bin/chromium through
Playwright. Prints figures, asserts
nothing.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import json
import statistics
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from envs import make_game  # noqa: E402

STATIC = ROOT / "serving" / "static"
# the entries of the page's offline registry (offline/models/index.json): key -> (game id,
# options)
GAMES: dict[str, tuple[str, dict[str, Any]]] = {
    row["key"]: (row["game"], row["options"])
    for row in json.loads((STATIC / "offline" / "models" / "index.json").read_text())["games"]
}


def kb(paths: list[Path]) -> tuple[float, float]:
    """KB as served and gzipped (level 9)."""
    raw = sum(p.stat().st_size for p in paths)
    packed = sum(len(gzip.compress(p.read_bytes(), 9)) for p in paths)
    return raw / 1024, packed / 1024


def bundle_table() -> None:
    rows = [
        ("offline JavaScript (js/offline/*.js)", sorted((STATIC / "js" / "offline").glob("*.js"))),
        ("onnxruntime-web (offline/ort)", sorted((STATIC / "offline" / "ort").glob("ort*"))),
    ]
    rows += [(f"{g} models", sorted((STATIC / "offline" / "models" / g).iterdir()))
             for g in GAMES]
    def line(name: str, paths: list[Path]) -> None:
        raw, packed = kb(paths)
        print(f"{name:<44} {len(paths):>5} {raw:>10,.0f} {packed:>10,.0f}")

    print(f"{'part':<44} {'files':>5} {'KB':>10} {'gzip KB':>10}")
    for name, paths in rows:
        line(name, paths)
    line("total", [p for _, paths in rows for p in paths])
    for g in GAMES:  # what one game's offline play loads
        line(f"  of which a {g} game loads",
             [p for name, paths in rows if name in (f"{g} models",) or "models" not in name
              for p in paths])


def positions(key: str, count: int, every: int, seed: int) -> list[list[str]]:
    """Move lists of positions from seeded random games, every ``every`` plies."""
    game_id, options = GAMES[key]
    game = make_game(game_id, **options)
    rng = np.random.default_rng(seed)
    out: list[list[str]] = []
    while len(out) < count:
        state, moves = game.initial_state(), []
        while not game.is_terminal(state) and len(out) < count:
            if len(moves) % every == 0:
                out.append(list(moves))
            moves.append(str(rng.choice(game.legal_moves(state))))
            state = game.play(state, moves[-1])
    return out


TIME_LEVELS = """async ([gameId, options, prefixes]) => {
  const { OfflineEngine, offlineLevels } = await import('/js/offline/engine.js');
  const manifest = await offlineLevels(gameId, options);
  const engine = await OfflineEngine.start(manifest);
  const out = [];
  for (const lv of manifest.levels) {
    await engine.choose(lv.id, prefixes[0], 1);  // warm-up: the model's first run
    const ms = [];
    for (const [i, moves] of prefixes.entries()) {
      const t0 = performance.now();
      await engine.choose(lv.id, moves, i);
      ms.push(performance.now() - t0);
    }
    out.push({ id: lv.id, label: lv.label, search: lv.search, ms });
  }
  engine.stop();
  return out;
}"""


def time_table(args: argparse.Namespace, base: str) -> None:
    from playwright.sync_api import sync_playwright

    print(f"\n{'game':<20} {'level':<14} {'search':<18} {'mean ms':>8} {'median':>8} {'max':>8}")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                    args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        page.goto(base + "/offline/ort/manifest.json")  # any page of the origin
        for key, (game_id, options) in GAMES.items():
            prefixes = positions(key, args.positions, args.every, args.seed)
            for row in page.evaluate(TIME_LEVELS, [game_id, options, prefixes]):
                s = row["search"]
                kind = f"{s['algorithm']} {s['simulations']}" + (
                    f" T={s['temperature']:g}" if s["temperature"] else "")
                ms = row["ms"]
                print(f"{key:<20} {row['id'] + ' ' + row['label']:<14} {kind:<18} "
                      f"{statistics.mean(ms):>8.1f} {statistics.median(ms):>8.1f} "
                      f"{max(ms):>8.1f}")
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--every", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    bundle_table()
    handler = functools.partial(QuietHandler, directory=str(STATIC))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        time_table(args, f"http://127.0.0.1:{server.server_address[1]}")
    finally:
        server.shutdown()
    print(json.dumps({"positions": args.positions, "every": args.every, "seed": args.seed}))


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


if __name__ == "__main__":
    main()
