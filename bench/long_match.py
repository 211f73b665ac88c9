"""A long two-player match, played in seeded chunks and recorded as it goes, so an evaluation
of hours (a level against pure MCTS with hundreds of random-rollout simulations per move) can
run in the background, survive an interruption and be read at any time.

Run: ``.venv/bin/python bench/long_match.py fangqi level:5 mcts:400 --games 100
--out runs/eval/fangqi-top-vs-mcts400.jsonl [--chunk 10] [--workers 2] [--option k=v]``.

Each chunk is ``play_match`` of ``--chunk`` games (an even number: sides alternate) with its
own seed; a line ``{"chunk", "a_wins", "draws", "b_wins", "plies", "seconds"}`` is appended
to ``--out`` when it ends. Started again with the same arguments, the script plays only the
chunks missing from the file. ``--summary`` prints the tally with a 95% Wilson interval of
A's score (draws count half) and stops. ``--games`` counts games; where the rules play
matches (TriGolden: two games, the first player swapping) the tally counts matches, so
``--games 80`` gives 40 TriGolden matches.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import numpy as np

from envs.core import game_class
from training.cli import parse_options


def play_chunk(args: dict[str, Any]) -> dict[str, Any]:
    """One seeded chunk in a worker process (one torch thread: the workers are the
    parallelism)."""
    import torch

    from envs import make_game
    from training.arena import play_match
    from training.players import make_player

    torch.set_num_threads(1)
    game = make_game(args["game"], **args["options"])
    seed = [args["seed"], args["chunk"]]
    a = make_player(game, args["a"], seed=args["seed"] * 1000 + 2 * args["chunk"])
    b = make_player(game, args["b"], seed=args["seed"] * 1000 + 2 * args["chunk"] + 1)
    start = time.perf_counter()
    wa, d, wb, plies = play_match(
        game, a, b, args["games"], np.random.default_rng(seed), max_plies=args["max_plies"]
    )
    return {
        "chunk": args["chunk"],
        "a_wins": wa,
        "draws": d,
        "b_wins": wb,
        "plies": plies,
        "seconds": round(time.perf_counter() - start, 1),
    }


def read_chunks(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson interval of a proportion ``score`` over ``n`` games."""
    if n == 0:
        return 0.0, 1.0
    centre = (score + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def summary(chunks: list[dict[str, Any]], a: str, b: str, unit: str = "games") -> str:
    wa = sum(c["a_wins"] for c in chunks)
    d = sum(c["draws"] for c in chunks)
    wb = sum(c["b_wins"] for c in chunks)
    n = wa + d + wb
    if n == 0:
        return f"no {unit} played yet"
    score = (wa + 0.5 * d) / n
    lo, hi = wilson(score, n)
    secs = sum(c["seconds"] for c in chunks)
    return (
        f"{a} vs {b}: {n} {unit}, {a} won {wa}, drew {d}, lost {wb}; "
        f"win rate {100 * wa / n:.1f}%, score {100 * score:.1f}% "
        f"(95% CI {100 * lo:.1f}-{100 * hi:.1f}%); {secs / 3600:.2f} h of play"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game")
    ap.add_argument("a", help="player spec (see training.players.make_player)")
    ap.add_argument("b", help="player spec")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--chunk", type=int, default=10, help="games per chunk (even)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-plies", type=int, default=None, help="cap: a capped game is a draw")
    ap.add_argument("--option", action="append", default=[], help="game option key=value")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--summary", action="store_true", help="print the tally and stop")
    args = ap.parse_args()
    if args.chunk < 2 or args.chunk % 2:
        raise SystemExit("--chunk must be an even number >= 2 (sides alternate)")
    done = read_chunks(args.out)
    # Where the rules play matches (TriGolden: two games), the tally counts matches.
    unit = "matches" if game_class(args.game).match_games > 1 else "games"
    if args.summary:
        print(summary(done, args.a, args.b, unit))
        return
    have = {c["chunk"] for c in done}
    todo = [k for k in range(math.ceil(args.games / args.chunk)) if k not in have]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    jobs = [
        {
            "game": args.game,
            "options": parse_options(args.option),
            "a": args.a,
            "b": args.b,
            "games": args.chunk,
            "chunk": k,
            "seed": args.seed,
            "max_plies": args.max_plies,
        }
        for k in todo
    ]
    print(f"{len(done)} chunk(s) already played, {len(jobs)} to play", flush=True)
    with ProcessPoolExecutor(max_workers=max(1, args.workers)) as pool:
        futures = [pool.submit(play_chunk, job) for job in jobs]
        for fut in as_completed(futures):
            res = fut.result()
            with args.out.open("a") as fh:
                fh.write(json.dumps(res) + "\n")
            done.append(res)
            print(f"chunk {res['chunk']}: {res}; so far: {summary(done, args.a, args.b, unit)}",
                  flush=True)
    print(summary(done, args.a, args.b, unit))


if __name__ == "__main__":
    main()
